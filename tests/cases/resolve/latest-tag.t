# a range that latest satisfies takes latest, not the highest version
pkg lib 1.0.0
pkg lib 1.5.0
pkg lib 2.0.0-beta.1
tag lib latest 1.0.0
pkg other 1.0.0 lib@^1.2.0
file package.json
{"name":"app","dependencies":{"lib":"^1","other":"1.0.0"}}
end
expect graph
. -> lib@1.0.0 other@1.0.0
lib@1.0.0
lib@1.5.0
other@1.0.0 -> lib@1.5.0
end
expect tree npm
node_modules/lib lib@1.5.0
node_modules/other other@1.0.0
end
expect tree bun
node_modules/lib lib@1.0.0
node_modules/other other@1.0.0
node_modules/other/node_modules/lib lib@1.5.0
end
expect tree yarn
node_modules/lib lib@1.0.0
node_modules/other other@1.0.0
node_modules/other/node_modules/lib lib@1.5.0
end
known tree npm: npm replaces a placed version by one every dependent there accepts (arborist's can-place-dep REPLACE: lib@1.5.0 serves the project's ^1 and other's ^1.2.0); nub's npm placement keeps the versions of the resolver's graph, which gives the project latest (1.0.0) as pnpm does
