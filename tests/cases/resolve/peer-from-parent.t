# a peer dependency is the one its dependent's parent has; each context its own key
pkg react 17.0.2
pkg react 18.2.0
pkg react-dom 18.2.0 peer:react@^18.2.0
pkg host 1.0.0 react@^17 plugin@^1
pkg plugin 1.0.0 peer:react@*
file package.json
{"name":"app","dependencies":{"react":"^18","react-dom":"^18","host":"^1","plugin":"^1"}}
end
expect graph
. -> host@1.0.0 plugin@1.0.0(react@18.2.0) react@18.2.0 react-dom@18.2.0(react@18.2.0)
host@1.0.0 -> plugin@1.0.0(react@17.0.2) react@17.0.2
plugin@1.0.0(react@17.0.2) -> react@17.0.2
plugin@1.0.0(react@18.2.0) -> react@18.2.0
react-dom@18.2.0(react@18.2.0) -> react@18.2.0
react@17.0.2
react@18.2.0
end
expect tree npm
node_modules/host host@1.0.0
node_modules/host/node_modules/react react@17.0.2
node_modules/plugin plugin@1.0.0
node_modules/react react@18.2.0
node_modules/react-dom react-dom@18.2.0
end
expect tree bun
node_modules/host host@1.0.0
node_modules/host/node_modules/react react@17.0.2
node_modules/plugin plugin@1.0.0
node_modules/react react@18.2.0
node_modules/react-dom react-dom@18.2.0
end
expect tree yarn
node_modules/host host@1.0.0
node_modules/host/node_modules/react react@17.0.2
node_modules/plugin plugin@1.0.0
node_modules/react react@18.2.0
node_modules/react-dom react-dom@18.2.0
end
