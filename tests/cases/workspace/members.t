# workspace members: linked at the top, their own dependencies hoisted past them
pkg lib 1.0.0
pkg lib 2.0.0
pkg util 1.0.0 lib@^1
file package.json
{"name":"root","private":true,"workspaces":["packages/*"],"dependencies":{"lib":"^2"}}
end
file pnpm-workspace.yaml
packages:
  - packages/*
end
file packages/a/package.json
{"name":"a","version":"1.0.0","dependencies":{"util":"^1","b":"1.0.0"}}
end
file packages/b/package.json
{"name":"b","version":"1.0.0","dependencies":{"lib":"^1"}}
end
expect tree npm
node_modules/a -> packages/a
node_modules/b -> packages/b
node_modules/lib lib@2.0.0
node_modules/util util@1.0.0
node_modules/util/node_modules/lib lib@1.0.0
packages/a (member)
packages/b (member)
packages/b/node_modules/lib lib@1.0.0
end
expect tree bun
node_modules/a (member)
node_modules/b (member)
node_modules/b/node_modules/lib lib@1.0.0
node_modules/lib lib@2.0.0
node_modules/util util@1.0.0
node_modules/util/node_modules/lib lib@1.0.0
end
expect tree yarn
node_modules/a -> packages/a
node_modules/b -> packages/b
node_modules/lib lib@2.0.0
node_modules/util util@1.0.0
node_modules/util/node_modules/lib lib@1.0.0
packages/a (member)
packages/b (member)
packages/b/node_modules/lib lib@1.0.0
end
