#!/usr/bin/env bash
# Regenerates the diagrams of docs/failure-modes.md from the scenarios (deterministic:
# the same scenario and seed always give the same picture).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
bin="${CARGO_TARGET_DIR:-target}/release/faultline"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
draw() { # scenario client output-name
  "$bin" run "$1" --client "$2" --trace "$tmp/t.jsonl" >/dev/null || true
  # The trace's header carries the seed and client model: render needs only the scenario.
  "$bin" render "$tmp/t.jsonl" --scenario "$1" -o "docs/diagrams/$3.svg" >/dev/null
}
draw scenarios/behavior_a.ron naive behavior_a_naive
draw scenarios/behavior_a.ron guarded behavior_a_guarded
draw scenarios/behavior_b.ron naive behavior_b_naive
draw scenarios/behavior_b.ron guarded behavior_b_guarded
draw scenarios/replay_404_cascade.ron naive cascade_naive
draw scenarios/replay_404_cascade.ron guarded cascade_guarded
draw docs/scenarios/clean.ron naive clean
draw docs/scenarios/quarantine_violation.ron naive quarantine_violation_naive
draw docs/scenarios/quarantine_violation.ron guarded quarantine_violation_guarded
draw docs/scenarios/surfaced_loss.ron naive surfaced_loss_naive
draw docs/scenarios/duplicate.ron naive duplicate_naive
draw scenarios/field/replicas_round_robin.ron naive replicas_round_robin_naive
draw scenarios/field/shared_store_cross_session.ron naive shared_store_cross_session_naive
