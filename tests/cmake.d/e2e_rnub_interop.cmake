# nub installs from a nub.lock written by the Rust nub (/opt/peers/rnub or
# $RUST_NUB); reported as skipped when it is not installed.
nub_e2e_test(rnub_interop test_rnub_interop.py)
set_tests_properties(e2e.rnub_interop PROPERTIES SKIP_REGULAR_EXPRESSION "OK \\(skipped=")
