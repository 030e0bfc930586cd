# pnpm's peer settings (peerDependencyRules, strictPeerDependencies), against pnpm.
nub_e2e_test(peer_rules test_peer_rules.py)
