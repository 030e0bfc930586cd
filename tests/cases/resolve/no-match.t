# a range no version satisfies fails, naming the range
pkg lib 1.0.0
file package.json
{"name":"app","dependencies":{"lib":"^2"}}
end
expect error no version of lib matches '^2'
