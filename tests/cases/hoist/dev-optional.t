# devDependencies and optionalDependencies are placed like the others
pkg lint 1.0.0 util@^1
pkg util 1.0.0
pkg util 2.0.0
pkg fsevents-like 1.0.0 util@^2
pkg main 1.0.0 opt:fsevents-like@^1
file package.json
{"name":"app","dependencies":{"main":"^1"},"devDependencies":{"lint":"^1"},"optionalDependencies":{"util":"^2"}}
end
expect graph
. -> main@1.0.0 opt:util@2.0.0 dev:lint@1.0.0
fsevents-like@1.0.0 -> util@2.0.0
lint@1.0.0 -> util@1.0.0
main@1.0.0 -> opt:fsevents-like@1.0.0
util@1.0.0
util@2.0.0
end
expect tree npm
node_modules/fsevents-like fsevents-like@1.0.0
node_modules/lint lint@1.0.0
node_modules/lint/node_modules/util util@1.0.0
node_modules/main main@1.0.0
node_modules/util util@2.0.0
end
expect tree bun
node_modules/fsevents-like fsevents-like@1.0.0
node_modules/lint lint@1.0.0
node_modules/lint/node_modules/util util@1.0.0
node_modules/main main@1.0.0
node_modules/util util@2.0.0
end
expect tree yarn
node_modules/fsevents-like fsevents-like@1.0.0
node_modules/lint lint@1.0.0
node_modules/lint/node_modules/util util@1.0.0
node_modules/main main@1.0.0
node_modules/util util@2.0.0
end
