# a peer nothing provides is installed; an optional one is not
pkg host 2.0.0
pkg host 1.0.0
pkg plugin 1.0.0 peer:host@^1 optpeer:extra@*
pkg extra 1.0.0
file package.json
{"name":"app","dependencies":{"plugin":"^1"}}
end
expect graph
. -> plugin@1.0.0(host@1.0.0)
host@1.0.0
plugin@1.0.0(host@1.0.0) -> host@1.0.0
end
expect tree npm
node_modules/host host@1.0.0
node_modules/plugin plugin@1.0.0
end
expect tree bun
node_modules/host host@1.0.0
node_modules/plugin plugin@1.0.0
end
expect tree yarn
node_modules/plugin plugin@1.0.0
end
