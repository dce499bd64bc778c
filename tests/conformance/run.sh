#!/usr/bin/env bash
# The official MCP conformance suite (@modelcontextprotocol/conformance, server scenarios)
# against a fault-free `faultline serve`.
#
# Installs what it needs itself (pinned in package.json / package-lock.json): the suite,
# and Node 22 from the npm package `node` (the suite needs Node >= 22; the machine's own
# node only runs npm). Builds faultline (release), starts `faultline serve` on a free
# loopback port, runs each scenario below, and exits non-zero if any scenario has a failed
# check, a warning, or no checks at all.
#
#   tests/conformance/run.sh                 # all scenarios below
#   tests/conformance/run.sh ping tools-list # just these
#
# Results (checks.json per scenario) land in tests/conformance/results/ (git-ignored).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
cd "$HERE"

SCENARIOS=(
  server-initialize
  ping
  logging-set-level
  tools-list
  tools-call-simple-text
  tools-call-with-progress
  tools-call-error
  server-sse-polling
  server-sse-multiple-streams
  dns-rebinding-protection
)
if [ "$#" -gt 0 ]; then
  SCENARIOS=("$@")
fi
SCENARIO_TIMEOUT_S=120

log() { printf '[conformance] %s\n' "$*" >&2; }

# ---- install (idempotent: skipped when node_modules matches the lockfile) -------------
command -v npm >/dev/null || { log "npm is required"; exit 1; }
STAMP=node_modules/.faultline-lock.sha256
want="$(sha256sum package-lock.json package.json | sha256sum | cut -d' ' -f1)"
if [ ! -f "$STAMP" ] || [ "$(cat "$STAMP")" != "$want" ] || [ ! -x node_modules/.bin/conformance ]; then
  log "npm ci (pinned @modelcontextprotocol/conformance and node@22)"
  npm ci --no-audit --no-fund --loglevel=error
  echo "$want" >"$STAMP"
fi
NODE_BIN="$HERE/node_modules/node/bin"
if ! "$NODE_BIN/node" --version 2>/dev/null | grep -q '^v22\.'; then
  log "node_modules/node did not provide a Node 22 binary (install scripts blocked?)"
  exit 1
fi
export PATH="$NODE_BIN:$PATH"
log "node $(node --version), conformance $(node -p 'require("./node_modules/@modelcontextprotocol/conformance/package.json").version')"

# ---- build and start the server ---------------------------------------------------------
log "cargo build --release"
(cd "$ROOT" && cargo build --release --quiet)
# Where cargo put it: CARGO_TARGET_DIR when set (relative to the root, where cargo ran).
TARGET_DIR="${CARGO_TARGET_DIR:-target}"
case "$TARGET_DIR" in /*) ;; *) TARGET_DIR="$ROOT/$TARGET_DIR" ;; esac
FAULTLINE="$TARGET_DIR/release/faultline"

WORK="$(mktemp -d)"
SERVER_PID=""
cleanup() {
  if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT

"$FAULTLINE" serve --addr 127.0.0.1:0 >"$WORK/serve.out" 2>"$WORK/serve.err" &
SERVER_PID=$!
URL=""
for _ in $(seq 1 100); do
  if line="$(head -n1 "$WORK/serve.out" 2>/dev/null)" && [ -n "$line" ]; then
    URL="${line#listening on }"
    break
  fi
  kill -0 "$SERVER_PID" 2>/dev/null || break
  sleep 0.1
done
if [ -z "$URL" ]; then
  log "faultline serve did not start:"
  cat "$WORK/serve.err" >&2
  exit 1
fi
log "faultline serve at $URL"

# ---- run the scenarios ------------------------------------------------------------------
mkdir -p results
declare -a ROWS=()
failures=0
for scenario in "${SCENARIOS[@]}"; do
  out="$WORK/$scenario.log"
  start=$(date +%s)
  set +e
  CI=true timeout "$SCENARIO_TIMEOUT_S" node node_modules/@modelcontextprotocol/conformance/dist/index.js \
    server --url "$URL" --scenario "$scenario" </dev/null >"$out" 2>&1
  rc=$?
  set -e
  secs=$(( $(date +%s) - start ))
  # "Passed: 3/3, 0 failed, 0 warnings"
  summary="$(sed 's/\x1b\[[0-9;]*m//g' "$out" | grep -Eo 'Passed: [0-9]+/[0-9]+, [0-9]+ failed, [0-9]+ warnings' | tail -n1 || true)"
  passed=$(echo "$summary" | sed -En 's/Passed: ([0-9]+)\/.*/\1/p')
  failed=$(echo "$summary" | sed -En 's/.* ([0-9]+) failed.*/\1/p')
  warnings=$(echo "$summary" | sed -En 's/.* ([0-9]+) warnings.*/\1/p')
  verdict=PASS
  if [ "$rc" -ne 0 ] || [ -z "$summary" ] || [ "${passed:-0}" -eq 0 ] || [ "${failed:-1}" -ne 0 ] || [ "${warnings:-1}" -ne 0 ]; then
    verdict=FAIL
    failures=$((failures + 1))
    log "---- $scenario output (exit $rc) ----"
    sed 's/\x1b\[[0-9;]*m//g' "$out" | tail -n 60 >&2
  fi
  ROWS+=("$(printf '| %-28s | %-4s | %-40s | %3ss |' "$scenario" "$verdict" "${summary:-no summary (exit $rc)}" "$secs")")
done

echo
echo "MCP conformance ($(node -p 'require("./node_modules/@modelcontextprotocol/conformance/package.json").version')) against faultline serve (fault-free)"
printf '| %-28s | %-4s | %-40s | %4s |\n' scenario ok checks time
printf '|%s|%s|%s|%s|\n' "$(printf -- '-%.0s' {1..30})" "------" "$(printf -- '-%.0s' {1..42})" "------"
printf '%s\n' "${ROWS[@]}"
if [ "$failures" -ne 0 ]; then
  log "$failures scenario(s) failed"
  exit 1
fi
log "all ${#SCENARIOS[@]} scenarios passed"
