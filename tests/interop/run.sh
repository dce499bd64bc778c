#!/usr/bin/env bash
# Real third-party MCP clients against `faultline serve`: how do they cope?
#
# Clients (pinned): the TypeScript SDK (`@modelcontextprotocol/sdk`, package.json +
# package-lock.json) and the Python SDK (PyPI `mcp`, requirements.txt), each installed here
# by this script. Scenarios: a fault-free baseline (echo, long_job with progress), the
# three incidents in scenarios/*.ron played live (--time-scale 0 --control: the harness
# moves virtual time itself, so a 33-minute incident takes a few seconds), and
# auto_long_job: the fault-free server on --time-scale auto, where the server moves its own
# clock and an 81-minute long_job must finish, every progress value delivered, in seconds.
#
# Every (client, scenario) gets a fresh server; the client program records what the
# application experienced; check.py judges it against GET /_chaos/ledger and
# expectations.json and prints the table; with INTEROP_RECORD=1 (`just interop-record`) it
# also rewrites RESULTS.md, never on a plain run. Exit 1 when the baseline is
# not clean or an observation differs from the recorded expectation.
#
#   tests/interop/run.sh                       # everything
#   INTEROP_CLIENTS=python tests/interop/run.sh
#   INTEROP_KEEP=1 tests/interop/run.sh        # keep the raw records (path printed)
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
cd "$HERE"

CLIENTS=(${INTEROP_CLIENTS:-typescript python})
SCENARIOS=(baseline behavior_a behavior_b replay_404_cascade auto_long_job)
RUN_TIMEOUT_S=120
PYTHON="${PYTHON:-python3}"

log() { printf '[interop] %s\n' "$*" >&2; }

# ---- install (idempotent: skipped when what is installed matches the pins) --------------
command -v npm >/dev/null || { log "npm is required"; exit 1; }
command -v node >/dev/null || { log "node is required"; exit 1; }
stamp_of() { cat "$@" | sha256sum | cut -d' ' -f1; }

want="$(stamp_of package.json package-lock.json)"
if [ ! -f node_modules/.faultline-stamp ] || [ "$(cat node_modules/.faultline-stamp)" != "$want" ]; then
  log "npm ci (pinned @modelcontextprotocol/sdk)"
  npm ci --no-audit --no-fund --loglevel=error
  echo "$want" >node_modules/.faultline-stamp
fi

want="$(stamp_of requirements.txt)"
if [ ! -f .venv/.faultline-stamp ] || [ "$(cat .venv/.faultline-stamp)" != "$want" ]; then
  log "python venv with pinned mcp (requirements.txt)"
  rm -rf .venv
  "$PYTHON" -m venv .venv || { log "'$PYTHON -m venv' failed (Debian: apt-get install python3-venv)"; exit 1; }
  .venv/bin/python -m pip install --quiet --disable-pip-version-check --no-input -r requirements.txt
  echo "$want" >.venv/.faultline-stamp
fi
VPY="$HERE/.venv/bin/python"

# ---- build ------------------------------------------------------------------------------
log "cargo build --release"
(cd "$ROOT" && cargo build --release --quiet)
# Where cargo put it: CARGO_TARGET_DIR when set (relative to the root, where cargo ran).
TARGET_DIR="${CARGO_TARGET_DIR:-target}"
case "$TARGET_DIR" in /*) ;; *) TARGET_DIR="$ROOT/$TARGET_DIR" ;; esac
FAULTLINE="$TARGET_DIR/release/faultline"

OUT="$(mktemp -d)"
SERVER_PID=""
stop_server() {
  if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
  fi
  SERVER_PID=""
}
cleanup() {
  stop_server
  if [ -n "${INTEROP_KEEP:-}" ]; then log "records kept in $OUT"; else rm -rf "$OUT"; fi
}
trap cleanup EXIT

# start_server NAME ARGS... -> sets URL
start_server() {
  local name="$1"
  shift
  "$FAULTLINE" serve --addr 127.0.0.1:0 --control "$@" >"$OUT/$name.serve.out" 2>"$OUT/$name.serve.err" &
  SERVER_PID=$!
  URL=""
  for _ in $(seq 1 100); do
    local line
    line="$(head -n1 "$OUT/$name.serve.out" 2>/dev/null || true)"
    if [ -n "$line" ]; then
      URL="${line#listening on }"
      return 0
    fi
    kill -0 "$SERVER_PID" 2>/dev/null || break
    sleep 0.1
  done
  log "faultline serve did not start for $name:"
  cat "$OUT/$name.serve.err" >&2
  return 1
}

fetch_ledger() { # URL FILE
  "$VPY" -c 'import sys, urllib.request
url = sys.argv[1].rsplit("/mcp", 1)[0] + "/_chaos/ledger"
open(sys.argv[2], "wb").write(urllib.request.urlopen(url, timeout=10).read())' "$1" "$2"
}

# ---- run --------------------------------------------------------------------------------
suite_start=$(date +%s)
for client in "${CLIENTS[@]}"; do
  for scenario in "${SCENARIOS[@]}"; do
    name="$client-$scenario"
    if [ "$scenario" = baseline ]; then
      start_server "$name" --seed 1
    elif [ "$scenario" = auto_long_job ]; then
      start_server "$name" --seed 1 --time-scale auto
    else
      start_server "$name" --scenario "$ROOT/scenarios/$scenario.ron" --time-scale 0
    fi
    start=$(date +%s)
    case "$client" in
      typescript) cmd=(node ts/client.mjs "$scenario" "$URL" "$OUT/$name.client.json") ;;
      python) cmd=("$VPY" py/client.py "$scenario" "$URL" "$OUT/$name.client.json") ;;
      *) log "unknown client $client"; exit 2 ;;
    esac
    set +e
    timeout "$RUN_TIMEOUT_S" "${cmd[@]}" </dev/null >"$OUT/$name.stdout" 2>"$OUT/$name.stderr"
    rc=$?
    set -e
    if [ "$rc" -ne 0 ]; then
      log "$name: client exited $rc (stderr tail below)"
      tail -n 20 "$OUT/$name.stderr" >&2 || true
    fi
    fetch_ledger "$URL" "$OUT/$name.ledger.json" || log "$name: could not fetch the ledger"
    stop_server
    log "$name: $(( $(date +%s) - start ))s"
  done
done
log "all runs: $(( $(date +%s) - suite_start ))s"

echo
if [ -n "${INTEROP_RECORD:-}" ]; then
  "$VPY" check.py "$OUT" --write-results "$HERE/RESULTS.md"
else
  "$VPY" check.py "$OUT"
fi
