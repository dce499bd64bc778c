#!/usr/bin/env bash
# Runs each client adapter once per scenario against `faultline serve --time-scale auto`,
# the way `faultline grade` will (URL as the last argument, FAULTLINE_SCENARIO and
# FAULTLINE_CONTEXT in the environment), and prints each client's report: the last line
# of its stdout, checked to be one JSON object with the contract's four fields.
#
# A stand-in until `faultline grade` runs them itself; it does not grade anything.
#
#   tests/grade/try_adapters.sh [CLIENT ...]     CLIENT: typescript python toy-careful toy-broken
#
# Needs: `faultline` on PATH or FAULTLINE=path/to/faultline; node + `npm ci --prefix
# examples/clients/typescript`; the venv of examples/clients/python/README.md (or PYTHON=).
# TRY_TIMEOUT_S (default 60) bounds each run: a client that never returns is shown as such.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
FAULTLINE="${FAULTLINE:-faultline}"
PYTHON="${PYTHON:-examples/clients/python/.venv/bin/python}"
TIMEOUT_S="${TRY_TIMEOUT_S:-60}"
CLIENTS=("$@")
[ ${#CLIENTS[@]} -eq 0 ] && CLIENTS=(typescript python toy-careful toy-broken)

# scenario name, scenario file ("" = the fault-free server), FAULTLINE_CONTEXT
RUNS=(
  'baseline||{"call":{"tool":"long_job","arguments":{"steps":45,"interval_ms":60000},"progress":true},"followup_echo":1}'
  'behavior_a|scenarios/behavior_a.ron|{"call":{"tool":"long_job","arguments":{"steps":81,"interval_ms":60000},"progress":true},"followup_echo":1}'
  'behavior_b|scenarios/behavior_b.ron|{"call":{"tool":"echo","arguments":{"text":"after the restart"}},"followup_echo":1}'
  'replay_404_cascade|scenarios/replay_404_cascade.ron|{"call":{"tool":"echo","arguments":{"text":"are we there yet"}},"followup_echo":2}'
)

command_of() {
  case "$1" in
    typescript) echo "node examples/clients/typescript/client.mjs" ;;
    python) echo "$PYTHON examples/clients/python/client.py" ;;
    toy-careful) echo "python3 tests/grade/toy_client.py --careful" ;;
    toy-broken) echo "python3 tests/grade/toy_client.py --broken" ;;
    *) echo "unknown client $1" >&2; return 1 ;;
  esac
}

OUT="$(mktemp -d)"
SERVER_PID=""
stop_server() { [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null; SERVER_PID=""; }
trap 'stop_server; rm -rf "$OUT"' EXIT

status=0
for client in "${CLIENTS[@]}"; do
  cmd="$(command_of "$client")" || exit 2
  for run in "${RUNS[@]}"; do
    IFS='|' read -r name file context <<<"$run"
    args=(serve --time-scale auto --control --addr 127.0.0.1:0)
    [ -n "$file" ] && args+=(--scenario "$file")
    "$FAULTLINE" "${args[@]}" >"$OUT/serve.out" 2>"$OUT/serve.err" &
    SERVER_PID=$!
    url=""
    for _ in $(seq 1 100); do
      url="$(sed -n 's/^listening on //p' "$OUT/serve.out")"
      [ -n "$url" ] && break
      sleep 0.1 # waiting for a child process to print its address, not synchronising a test
    done
    [ -z "$url" ] && { echo "$client $name: faultline serve did not start"; cat "$OUT/serve.err"; exit 1; }
    FAULTLINE_SCENARIO="$name" FAULTLINE_CONTEXT="$context" \
      timeout "$TIMEOUT_S" sh -c "$cmd \"\$@\"" faultline "$url" </dev/null >"$OUT/client.out" 2>"$OUT/client.err"
    rc=$?
    stop_server
    report="$(tail -n 1 "$OUT/client.out")"
    if [ "$rc" -eq 124 ]; then
      echo "$client $name: no report: still running after ${TIMEOUT_S}s (killed)"
      status=1
    elif python3 -c 'import json, sys
r = json.loads(sys.argv[1])
assert isinstance(r, dict) and {"progress", "notifications", "result", "error"} <= r.keys()' "$report" 2>/dev/null; then
      echo "$client $name (exit $rc): $report"
    else
      echo "$client $name (exit $rc): NOT a contract report: $report"
      tail -n 5 "$OUT/client.err"
      status=1
    fi
  done
done
exit $status
