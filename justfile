# faultline recipes. The README's two commands need only cargo; these are the longer ones.

# Reproduce one incident (default: the 404 cascade) with a client model.
run scenario="scenarios/replay_404_cascade.ron" client="naive":
    cargo run --release -- run {{scenario}} --client {{client}}

# The test suite (what CI runs first).
test:
    cargo test --workspace --release

# More property-test cases than the default 256 per property.
proptest cases="20000":
    PROPTEST_CASES={{cases}} cargo test --release -p faultline-sim --test sim properties::

# The property tests under other RNG seeds than the fixed one the test suite uses (each
# failure prints its swarm seed; `PROPTEST_RNG_SEED=N` replays a whole sweep).
properties-sweep sweeps="10" cases="2000":
    for i in $(seq 1 {{sweeps}}); do seed=$(od -An -N8 -tu8 /dev/urandom | tr -d ' '); echo "PROPTEST_RNG_SEED=$seed"; PROPTEST_RNG_SEED=$seed PROPTEST_CASES={{cases}} cargo test --release -p faultline-sim --test sim properties:: || exit 1; done

# Simulation speed: median wall time per incident and ns per simulated event.
bench:
    cargo run --release -- bench

# The explorer's seeds/s of two binaries, alternated on one machine, and the ratio new/old
# (each pair must write the same findings): `just bench-compare /tmp/faultline-before`.
bench-compare old new="target/release/faultline" seeds="100000" rounds="4" *args="":
    cargo build --release -p faultline
    tools/bench-compare.sh {{old}} {{new}} {{seeds}} {{rounds}} -- {{args}}

# A profile-guided build for long explorations (target/pgo/release/faultline): the release
# build laid out by a training run of the explorer. Needs llvm-profdata (see the script).
pgo-build:
    tools/pgo-build.sh

# Serve a scenario over real HTTP with the control API.
serve scenario="scenarios/behavior_a.ron":
    cargo run --release -- serve --scenario {{scenario}} --control

# Real MCP clients (TypeScript SDK from npm, Python SDK from PyPI, rmcp from crates.io, behind
# the adapters in examples/clients/) graded on each era's default set, checked against
# tests/interop/expectations.json. INTEROP_CLIENTS=rmcp grades one.
interop:
    tests/interop/run.sh

# The same, rewriting tests/interop/RESULTS.md and expectations.json from this run (a plain
# run never does): an outcome not accepted before is refused unless
# INTEROP_ACCEPT='CLIENT/SCENARIO=WHY' gives the reason it is right.
interop-record:
    INTEROP_RECORD=1 tests/interop/run.sh

# The client report card: installs every client in examples/clients/ (npm, PyPI, crates.io,
# pinned), grades each on each era it speaks and writes docs/report-card.md and .html
# (about half an hour on 2 cores; CI does not run it).
report-card:
    tests/report-card/run.sh

# Grade any client: just grade "node my_client.mjs"
grade command:
    cargo run --release -- grade --command "{{command}}"

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

# Draw a run as HTML and screenshot it in headless Chromium (Debian package `chromium`).
screenshot scenario="scenarios/replay_404_cascade.ron" out="target/teach":
    mkdir -p {{out}}
    -cargo run --release -- run {{scenario}} --trace {{out}}/trace.jsonl
    cargo run --release -- render {{out}}/trace.jsonl --scenario {{scenario}} -o {{out}}/run.html
    chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking --disable-component-update --disable-sync --user-data-dir=$(mktemp -d) --screenshot={{out}}/run.png --window-size=1400,2000 file://$(realpath {{out}}/run.html)

# Regenerate the diagrams in docs/ (failure-modes.md uses them).
diagrams:
    bash docs/diagrams.sh

# Explore the knob space (findings and maps in findings/).
explore client="naive" seeds="100000":
    cargo run --release -- explore --seeds {{seeds}} --client {{client}} --jobs 2

# Load-test the live server over loopback with tools/loadgen (3 runs of 10 s per phase by
# default; arguments go to the load generator, e.g. `just bench-live --json bench-live.json`).
bench-live *args:
    cargo build --release -p faultline
    cargo run --release -p faultline-loadgen -- {{args}}

# Soak: 10,000 sessions created and deleted, each with a GET stream opened and cut; prints
# the server's RSS slope in bytes per session (a leak shows as a slope that stays up). Then
# issue 29's attacks for 30 s while 8 sessions call echo: their latency (median under
# 50 ms) and the server's RSS over the attacks (flat).
soak sessions="10000" attack_seconds="30":
    cargo build --release -p faultline
    cargo run --release -p faultline-loadgen -- --runs 1 --phases soak,attack --soak-sessions {{sessions}} --attack-seconds {{attack_seconds}}
