# faultline recipes. The README's two commands need only cargo; these are the longer ones.

# Reproduce one incident (default: the 404 cascade) with a client model.
run scenario="scenarios/replay_404_cascade.ron" client="naive":
    cargo run --release -- run {{scenario}} --client {{client}}

# The test suite (what CI runs first).
test:
    cargo test --workspace --release

# More property-test cases than the default 256 per property.
proptest cases="20000":
    PROPTEST_CASES={{cases}} cargo test --release -p faultline-sim --test properties

# Simulation speed: median wall time per incident and ns per simulated event.
bench:
    cargo run --release -- bench

# Serve a scenario over real HTTP with the control API.
serve scenario="scenarios/behavior_a.ron":
    cargo run --release -- serve --scenario {{scenario}} --control

# Real MCP clients (TypeScript SDK from npm, Python SDK from PyPI) against faultline serve.
interop:
    tests/interop/run.sh

# The official MCP conformance suite against the fault-free server.
conformance:
    tests/conformance/run.sh

fmt:
    cargo fmt --all

lint:
    cargo fmt --all -- --check
    cargo clippy --workspace --all-targets -- -D warnings

# Everything CI runs.
ci:
    bash .ci/run
