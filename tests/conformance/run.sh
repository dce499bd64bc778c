#!/usr/bin/env bash
# The official MCP conformance suite (@modelcontextprotocol/conformance, server scenarios)
# against a fault-free `faultline serve`.
#
# Two legs against the same server:
#
# - 2025: @modelcontextprotocol/conformance 0.1.16 (package.json), the scenarios below;
#   fails if any scenario has a failed check, a warning, or no checks at all.
# - 2026-07-28: @modelcontextprotocol/conformance 0.2.0-alpha.12 (modern/package.json),
#   `--requirements 2026-07-28`, judged against the baseline
#   modern/expected-failures-2026-07-28.yaml. The suite fails on a failure the baseline
#   does not list *and* on a baseline entry that now passes, so the baseline only shrinks:
#   a change that fixes checks deletes their lines. It is empty: every check passes.
#   Then the tasks extension's lifecycle and dispatch scenarios by name (SEP-2663; the
#   requirements file runs them unscored, so they are named here to stay in CI whatever
#   it says), each with no failed check and no warning.
#
# Installs what it needs itself from the npm registry (pinned by the lockfiles): the
# suites, and Node 22 from the npm package `node` (the suites need Node >= 22; the
# machine's own node only runs npm). Builds faultline (release), starts `faultline serve`
# on a free loopback port, runs both legs, prints pass counts, and exits non-zero if
# either leg fails.
#
#   tests/conformance/run.sh                 # both legs
#   tests/conformance/run.sh 2025            # the 2025 leg only
#   tests/conformance/run.sh 2026-07-28      # the 2026-07-28 leg only
#   tests/conformance/run.sh ping tools-list # just these 2025 scenarios (no 2026-07-28 leg)
#
# Results (checks.json per scenario) land in tests/conformance/results/ (git-ignored);
# the 2026-07-28 leg's in results/2026-07-28/.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
cd "$HERE"

TASKS_SCENARIOS=(
  tasks-lifecycle
  tasks-dispatch-and-envelope
)
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
LEGACY_LEG=1
MODERN_LEG=1
MODERN_REVISION=2026-07-28
if [ "$#" -eq 1 ] && [ "$1" = "$MODERN_REVISION" ]; then
  LEGACY_LEG=0
elif [ "$#" -eq 1 ] && [ "$1" = 2025 ]; then
  MODERN_LEG=0
elif [ "$#" -gt 0 ]; then
  SCENARIOS=("$@")
  MODERN_LEG=0
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
if [ "$MODERN_LEG" -eq 1 ]; then
  MODERN_STAMP=modern/node_modules/.faultline-lock.sha256
  want="$(sha256sum modern/package-lock.json modern/package.json | sha256sum | cut -d' ' -f1)"
  if [ ! -f "$MODERN_STAMP" ] || [ "$(cat "$MODERN_STAMP")" != "$want" ] || [ ! -x modern/node_modules/.bin/conformance ]; then
    log "npm ci in modern/ (pinned @modelcontextprotocol/conformance for $MODERN_REVISION)"
    (cd modern && npm ci --no-audit --no-fund --loglevel=error)
    echo "$want" >"$MODERN_STAMP"
  fi
  log "conformance $(node -p 'require("./modern/node_modules/@modelcontextprotocol/conformance/package.json").version') for $MODERN_REVISION"
fi

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

# ---- the 2025 leg: run the scenarios ----------------------------------------------------
mkdir -p results
declare -a ROWS=()
failures=0
if [ "$LEGACY_LEG" -eq 0 ]; then
  SCENARIOS=()
fi
# One scenario of the suite at $1 (its dist/index.js); appends its row to ROWS and counts
# a failure (a failed check, a warning, no checks at all, or a non-zero exit).
run_scenario() {
  local suite="$1" scenario="$2"
  out="$WORK/$scenario.log"
  start=$(date +%s)
  set +e
  CI=true timeout "$SCENARIO_TIMEOUT_S" node "$suite" \
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
}
for scenario in "${SCENARIOS[@]}"; do
  run_scenario node_modules/@modelcontextprotocol/conformance/dist/index.js "$scenario"
done

if [ "$LEGACY_LEG" -eq 1 ]; then
  echo
  echo "MCP conformance ($(node -p 'require("./node_modules/@modelcontextprotocol/conformance/package.json").version')) against faultline serve (fault-free)"
  printf '| %-28s | %-4s | %-40s | %4s |\n' scenario ok checks time
  printf '|%s|%s|%s|%s|\n' "$(printf -- '-%.0s' {1..30})" "------" "$(printf -- '-%.0s' {1..42})" "------"
  printf '%s\n' "${ROWS[@]}"
  if [ "$failures" -ne 0 ]; then
    log "$failures scenario(s) failed"
  else
    log "all ${#SCENARIOS[@]} scenarios passed"
  fi
fi

# ---- the 2026-07-28 leg: the revision's requirements, against the baseline --------------
modern_failed=0
if [ "$MODERN_LEG" -eq 1 ]; then
  out="$WORK/modern.log"
  rm -rf "results/$MODERN_REVISION"
  set +e
  CI=true timeout 900 node modern/node_modules/@modelcontextprotocol/conformance/dist/index.js \
    server --url "$URL" --requirements "$MODERN_REVISION" \
    --expected-failures "modern/expected-failures-$MODERN_REVISION.yaml" \
    -o "results/$MODERN_REVISION" </dev/null >"$out" 2>&1
  rc=$?
  set -e
  plain="$(sed 's/\x1b\[[0-9;]*m//g' "$out")"
  # "Total: 11 passed, 146 failed"
  total="$(echo "$plain" | grep -Eo 'Total: [0-9]+ passed, [0-9]+ failed' | tail -n1 || true)"
  echo
  echo "MCP conformance ($(node -p 'require("./modern/node_modules/@modelcontextprotocol/conformance/package.json").version')) --requirements $MODERN_REVISION against faultline serve"
  echo "$plain" | sed -n '/=== SUMMARY ===/,$p' | grep -E '^[✓✗] ' || true
  echo "${total:-no total (exit $rc)} (checks; failures listed in the baseline are expected)"
  if [ "$rc" -ne 0 ] || [ -z "$total" ]; then
    modern_failed=1
    log "---- $MODERN_REVISION leg (exit $rc): unexpected failures or stale baseline entries ----"
    echo "$plain" | sed -n '/Stale baseline entries/,$p;/Unexpected failures/,$p' | head -n 80 >&2
  else
    log "$MODERN_REVISION leg: every failure is in the baseline, and every baseline entry still fails"
  fi
fi

# ---- the tasks extension's lifecycle and dispatch scenarios, by name --------------------
if [ "$MODERN_LEG" -eq 1 ]; then
  ROWS=()
  legacy_failures=$failures
  failures=0
  for scenario in "${TASKS_SCENARIOS[@]}"; do
    run_scenario modern/node_modules/@modelcontextprotocol/conformance/dist/index.js "$scenario"
  done
  echo
  echo "MCP conformance ($(node -p 'require("./modern/node_modules/@modelcontextprotocol/conformance/package.json").version')) tasks extension (SEP-2663) against faultline serve"
  printf '| %-28s | %-4s | %-40s | %4s |\n' scenario ok checks time
  printf '|%s|%s|%s|%s|\n' "$(printf -- '-%.0s' {1..30})" "------" "$(printf -- '-%.0s' {1..42})" "------"
  printf '%s\n' "${ROWS[@]}"
  if [ "$failures" -ne 0 ]; then
    log "$failures tasks scenario(s) failed"
    modern_failed=1
  fi
  failures=$legacy_failures
fi

if [ "$failures" -ne 0 ] || [ "$modern_failed" -ne 0 ]; then
  exit 1
fi
