# scoped names and a chain of conflicts three levels deep
pkg @s/a 1.0.0 @s/b@^1
pkg @s/b 1.0.0 @s/c@^1
pkg @s/b 2.0.0
pkg @s/c 1.0.0 @s/b@^2 leaf@^1
pkg @s/c 2.0.0
pkg leaf 1.0.0
pkg leaf 2.0.0
file package.json
{"name":"app","dependencies":{"@s/a":"^1","@s/c":"^2","leaf":"^2"}}
end
expect graph
. -> @s/a@1.0.0 @s/c@2.0.0 leaf@2.0.0
@s/a@1.0.0 -> @s/b@1.0.0
@s/b@1.0.0 -> @s/c@1.0.0
@s/b@2.0.0
@s/c@1.0.0 -> @s/b@2.0.0 leaf@1.0.0
@s/c@2.0.0
leaf@1.0.0
leaf@2.0.0
end
expect tree npm
node_modules/@s/a @s/a@1.0.0
node_modules/@s/b @s/b@1.0.0
node_modules/@s/b/node_modules/@s/b @s/b@2.0.0
node_modules/@s/b/node_modules/@s/c @s/c@1.0.0
node_modules/@s/b/node_modules/leaf leaf@1.0.0
node_modules/@s/c @s/c@2.0.0
node_modules/leaf leaf@2.0.0
end
expect tree bun
node_modules/@s/a @s/a@1.0.0
node_modules/@s/b @s/b@1.0.0
node_modules/@s/b/node_modules/@s/c @s/c@1.0.0
node_modules/@s/b/node_modules/@s/c/node_modules/@s/b @s/b@2.0.0
node_modules/@s/b/node_modules/@s/c/node_modules/leaf leaf@1.0.0
node_modules/@s/c @s/c@2.0.0
node_modules/leaf leaf@2.0.0
end
expect tree yarn
node_modules/@s/a @s/a@1.0.0
node_modules/@s/b @s/b@1.0.0
node_modules/@s/b/node_modules/@s/b @s/b@2.0.0
node_modules/@s/b/node_modules/@s/c @s/c@1.0.0
node_modules/@s/b/node_modules/leaf leaf@1.0.0
node_modules/@s/c @s/c@2.0.0
node_modules/leaf leaf@2.0.0
end
