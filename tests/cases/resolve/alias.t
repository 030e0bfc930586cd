# an npm: alias is installed under its alias, its package the real one
pkg real 1.0.0
pkg real 2.0.0
pkg user 1.0.0 real@^1
file package.json
{"name":"app","dependencies":{"fake":"npm:real@^2","user":"^1"}}
end
expect graph
. -> fake=real@2.0.0 user@1.0.0
real@1.0.0
real@2.0.0
user@1.0.0 -> real@1.0.0
end
expect tree npm
node_modules/fake real@2.0.0
node_modules/real real@1.0.0
node_modules/user user@1.0.0
end
expect tree bun
node_modules/fake real@2.0.0
node_modules/real real@1.0.0
node_modules/user user@1.0.0
end
expect tree yarn
node_modules/fake real@2.0.0
node_modules/real real@1.0.0
node_modules/user user@1.0.0
end
