# of two versions, where the one more packages use goes
pkg x 1.0.0 shared@^1
pkg y 1.0.0 shared@^1
pkg z 1.0.0 shared@^2
pkg w 1.0.0 z@^1
pkg shared 1.0.0
pkg shared 2.0.0
file package.json
{"name":"app","dependencies":{"w":"^1","x":"^1","y":"^1"}}
end
expect graph
. -> w@1.0.0 x@1.0.0 y@1.0.0
shared@1.0.0
shared@2.0.0
w@1.0.0 -> z@1.0.0
x@1.0.0 -> shared@1.0.0
y@1.0.0 -> shared@1.0.0
z@1.0.0 -> shared@2.0.0
end
expect tree npm
node_modules/shared shared@1.0.0
node_modules/w w@1.0.0
node_modules/x x@1.0.0
node_modules/y y@1.0.0
node_modules/z z@1.0.0
node_modules/z/node_modules/shared shared@2.0.0
end
expect tree bun
node_modules/shared shared@1.0.0
node_modules/w w@1.0.0
node_modules/x x@1.0.0
node_modules/y y@1.0.0
node_modules/z z@1.0.0
node_modules/z/node_modules/shared shared@2.0.0
end
expect tree yarn
node_modules/shared shared@1.0.0
node_modules/w w@1.0.0
node_modules/x x@1.0.0
node_modules/y y@1.0.0
node_modules/z z@1.0.0
node_modules/z/node_modules/shared shared@2.0.0
end
