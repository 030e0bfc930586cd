# a project's and a member's own peers: pnpm installs them (the optional ones too), bun the required ones, npm and yarn none
pkg a 1.0.0 b@^1
pkg b 1.0.0
pkg b 2.0.0
pkg c 1.0.0
pkg react-like 1.0.0
pkg react-like 2.0.0
file package.json
{"name":"root","version":"1.0.0","private":true,"workspaces":["packages/*"],"dependencies":{"a":"^1.0.0"},"peerDependencies":{"b":"^1.0.0","react-like":"^1.0.0"},"peerDependenciesMeta":{"react-like":{"optional":true}}}
end
file pnpm-workspace.yaml
packages:
  - packages/*
end
file packages/m/package.json
{"name":"m","version":"1.0.0","peerDependencies":{"c":"^1.0.0"}}
end
expect graph
. -> a@1.0.0 b@1.0.0 react-like@1.0.0
packages/m -> c@1.0.0
a@1.0.0 -> b@1.0.0
b@1.0.0
c@1.0.0
react-like@1.0.0
end
expect tree npm
node_modules/a a@1.0.0
node_modules/b b@1.0.0
node_modules/c c@1.0.0
node_modules/m -> packages/m
packages/m (member)
end
expect tree bun
node_modules/a a@1.0.0
node_modules/b b@1.0.0
node_modules/c c@1.0.0
node_modules/m (member)
end
expect tree yarn
node_modules/a a@1.0.0
node_modules/b b@1.0.0
node_modules/m -> packages/m
packages/m (member)
end
