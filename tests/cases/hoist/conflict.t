# a version that cannot go to the top nests under its dependent
pkg a 1.0.0 b@^1
pkg c 1.0.0 b@^2 d@^1
pkg d 1.0.0 b@^1
pkg b 1.0.0
pkg b 2.0.0
file package.json
{"name":"app","dependencies":{"a":"^1","c":"^1","b":"^2"}}
end
expect graph
. -> a@1.0.0 b@2.0.0 c@1.0.0
a@1.0.0 -> b@1.0.0
b@1.0.0
b@2.0.0
c@1.0.0 -> b@2.0.0 d@1.0.0
d@1.0.0 -> b@1.0.0
end
expect tree npm
node_modules/a a@1.0.0
node_modules/a/node_modules/b b@1.0.0
node_modules/b b@2.0.0
node_modules/c c@1.0.0
node_modules/d d@1.0.0
node_modules/d/node_modules/b b@1.0.0
end
expect tree bun
node_modules/a a@1.0.0
node_modules/a/node_modules/b b@1.0.0
node_modules/b b@2.0.0
node_modules/c c@1.0.0
node_modules/d d@1.0.0
node_modules/d/node_modules/b b@1.0.0
end
expect tree yarn
node_modules/a a@1.0.0
node_modules/a/node_modules/b b@1.0.0
node_modules/b b@2.0.0
node_modules/c c@1.0.0
node_modules/d d@1.0.0
node_modules/d/node_modules/b b@1.0.0
end
