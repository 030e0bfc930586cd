# pnpm links a member for workspace: only; a plain range comes from the registry
pkg b 1.0.0
file package.json
{"name":"root","private":true}
end
file pnpm-workspace.yaml
packages:
  - packages/*
end
file packages/a/package.json
{"name":"a","version":"1.0.0","dependencies":{"b":"1.0.0","c":"workspace:*"}}
end
file packages/b/package.json
{"name":"b","version":"1.0.0"}
end
file packages/c/package.json
{"name":"c","version":"2.0.0"}
end
expect graph
. ->
packages/a -> b@1.0.0 c=link:../c
packages/b ->
packages/c ->
b@1.0.0
end
