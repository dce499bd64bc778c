#!/usr/bin/env bash
# Real third-party MCP clients against faultline: `faultline grade` runs of the official
# SDK clients, unmodified behind the adapters in examples/clients/ (the TypeScript SDKs from
# npm and the Python SDK from PyPI, all pinned and installed here by this script):
#
#   typescript         @modelcontextprotocol/sdk 1.32.2 (2025-11-25)
#   python             mcp 2.3.0, ClientSession + initialize (2025-11-25)
#   typescript-modern  @modelcontextprotocol/client 2.4.0, versionNegotiation 'auto' (2026-07-28)
#   python-modern      mcp 2.3.0, the high-level Client with its default mode 'auto' (2026-07-28)
#   rmcp               rmcp 3.11.0 (crates.io), the Rust SDK's client, `serve` (2025-11-25)
#   rmcp-modern        the same binary with `--modern`: lifecycle Auto (2026-07-28)
#
# The rmcp client is its own Cargo project (examples/clients/rust-rmcp, Cargo.lock committed),
# built with `cargo build --release --locked` into $CARGO_TARGET_DIR/clients-rmcp (or its own
# target/). It has no request timeout, so each scenario it hangs on holds --timeout-s (75 s).
#
# 1. Each client is graded on the default set (every bundled scenario of its era that fits
#    the client contract, each against a fresh server on the harness's clock; the modern
#    clients with `--era modern`). check.py compares every scenario's verdicts with
#    expectations.json and insists on what is known of the libraries: for 2025 the
#    baseline is clean and Behavior B is silent_gap; for 2026-07-28 a cut call is not
#    re-issued and a dropped listen is not re-opened; grade exits 1. The 2025 clients are
#    also graded by name on call_cut_before_an_id (a call's stream cut before any event
#    id), where check.py holds each to its documented habit: the TypeScript SDK waits for
#    its 60 s request timeout, the Python SDK and rmcp fail the call at once; and on three
#    field scenarios whose ledgers show more habits (check.py's `habit_ledger_facts`:
#    re-initializing after a 404, the cursor after a cut resumption, a refused standalone
#    GET, listing tools before a result), csharp_1713_get_reconnect_400 at `--time-scale 60`.
#    The TypeScript client is graded once more on baseline with `--time-scale 10`, where
#    its 60 s request timeout (wall time) meets the 20-minute job: check.py holds it to
#    the preset's verdict there (surfaced_loss, tests/interop/preset_differences.json).
# 2. auto_long_job: each adapter against the fault-free `faultline serve --time-scale auto`
#    (no grading harness): an 81-minute long_job must deliver every progress value and the
#    result; the wall time is printed.
#
# INTEROP_RECORD=1 (`just interop-record`) rewrites RESULTS.md and expectations.json from
# this run: each accepted outcome seen again counts one more run (`seen`); an outcome not
# accepted before is refused (exit 1) unless INTEROP_ACCEPT='CLIENT/SCENARIO=WHY' gives the
# reason it is right (check.py --accept; wildcards allowed; several, one a line). A plain run
# never writes. Exit 1
# when anything differs from the expectations.
#
#   tests/interop/run.sh                       # all six clients
#   INTEROP_CLIENTS="python python-modern" tests/interop/run.sh
#   INTEROP_CLIENTS=rmcp tests/interop/run.sh  # one client
#   INTEROP_KEEP=1 tests/interop/run.sh        # keep the reports, ledgers and cards (path printed)
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
cd "$ROOT"

CLIENTS=(${INTEROP_CLIENTS:-typescript python typescript-modern python-modern rmcp rmcp-modern})
PYTHON="${PYTHON:-python3}"
log() { printf '[interop] %s\n' "$*" >&2; }

TS="$ROOT/examples/clients/typescript"
TSM="$ROOT/examples/clients/typescript-modern"
PY="$ROOT/examples/clients/python"
RMCP="$ROOT/examples/clients/rust-rmcp"
# Where the rmcp client is built: beside faultline's own target dir when one is set.
RMCP_TARGET="${CARGO_TARGET_DIR:+$CARGO_TARGET_DIR/clients-rmcp}"
RMCP_TARGET="${RMCP_TARGET:-$RMCP/target}"
case "$RMCP_TARGET" in /*) ;; *) RMCP_TARGET="$ROOT/$RMCP_TARGET" ;; esac
RMCP_BIN="$RMCP_TARGET/release/faultline-client-rmcp"
rmcp_built=""
stamp_of() { cat "$@" | sha256sum | cut -d' ' -f1; }

# ---- install (idempotent: skipped when what is installed matches the pins) --------------
for client in "${CLIENTS[@]}"; do
  case "$client" in
    typescript|typescript-modern)
      command -v npm >/dev/null || { log "npm is required"; exit 1; }
      dir="$TS"; [ "$client" = typescript-modern ] && dir="$TSM"
      want="$(stamp_of "$dir/package.json" "$dir/package-lock.json")"
      if [ "$(cat "$dir/node_modules/.faultline-stamp" 2>/dev/null)" != "$want" ]; then
        log "npm ci ($dir, pinned in its package-lock.json)"
        npm ci --prefix "$dir" --no-audit --no-fund --loglevel=error >/dev/null
        echo "$want" >"$dir/node_modules/.faultline-stamp"
      fi
      ;;
    python|python-modern)
      want="$(stamp_of "$PY/requirements.txt")"
      if [ "$(cat "$PY/.venv/.faultline-stamp" 2>/dev/null)" != "$want" ]; then
        log "python venv with the pinned mcp ($PY/requirements.txt)"
        rm -rf "$PY/.venv"
        "$PYTHON" -m venv "$PY/.venv" || { log "'$PYTHON -m venv' failed (Debian: apt-get install python3-venv)"; exit 1; }
        "$PY/.venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input -r "$PY/requirements.txt"
        echo "$want" >"$PY/.venv/.faultline-stamp"
      fi
      ;;
    rmcp|rmcp-modern)
      # cargo is itself idempotent: a build that is up to date takes a second.
      if [ -z "$rmcp_built" ]; then
        log "cargo build --release --locked (rmcp 3.11.0 client, pinned in $RMCP/Cargo.lock)"
        start=$(date +%s)
        CARGO_TARGET_DIR="$RMCP_TARGET" cargo build --release --locked --quiet --manifest-path "$RMCP/Cargo.toml"
        log "rmcp client built in $(( $(date +%s) - start )) s"
        rmcp_built=1
      fi
      ;;
    *) log "unknown client $client"; exit 2 ;;
  esac
done

# ---- build ------------------------------------------------------------------------------
log "cargo build --release"
cargo build --release --quiet
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
  if [ -n "${INTEROP_KEEP:-}" ]; then log "reports kept in $OUT"; else rm -rf "$OUT"; fi
}
trap cleanup EXIT

command_of() {
  case "$1" in
    typescript) echo "node examples/clients/typescript/client.mjs" ;;
    python) echo "examples/clients/python/.venv/bin/python examples/clients/python/client.py" ;;
    typescript-modern) echo "node examples/clients/typescript-modern/client.mjs" ;;
    python-modern) echo "examples/clients/python/.venv/bin/python examples/clients/python/client_modern.py" ;;
    rmcp) echo "$RMCP_BIN" ;;
    rmcp-modern) echo "$RMCP_BIN --modern" ;;
  esac
}
era_of() {
  case "$1" in
    *-modern) echo modern ;;
    *) echo legacy ;;
  esac
}

# ---- 1. grade each client on its era's default set --------------------------------------
for client in "${CLIENTS[@]}"; do
  cmd="$(command_of "$client")"
  log "faultline grade --command \"$cmd\" --era $(era_of "$client")"
  start=$(date +%s)
  set +e
  # Two at a time on CI's two cores: a real client's own wall-clock timers (its read
  # and request timeouts) then fire as they would on a quiet machine.
  "$FAULTLINE" grade --command "$cmd" --era "$(era_of "$client")" --jobs 2 --format json --ledgers "$OUT/$client-ledgers" \
    --html "$OUT/$client.card.html" >"$OUT/$client.grade.json" 2>"$OUT/$client.grade.err"
  echo $? >"$OUT/$client.grade.exit"
  set -e
  log "$client: graded in $(( $(date +%s) - start )) s (exit $(cat "$OUT/$client.grade.exit"))"
  # The scenarios outside the default set that show an SDK client's habit (check.py holds
  # each client to the habit docs/client-habits.md gives it there).
  if [ "$(era_of "$client")" = legacy ]; then
    set +e
    "$FAULTLINE" grade --command "$cmd" --jobs 2 --format json --ledgers "$OUT/$client-ledgers" \
      --scenario call_cut_before_an_id --scenario tssdk_1708_stale_session_404 \
      --scenario tssdk_2499_cursor_forgotten \
      >"$OUT/$client.habits.json" 2>"$OUT/$client.habits.err"
    # A habit that takes the SDK's own reconnect delay (1 s of wall time) to show: paced, so
    # that the delay passes in the scenario's time too (about 15 s).
    "$FAULTLINE" grade --command "$cmd" --format json --ledgers "$OUT/$client-ledgers" \
      --scenario csharp_1713_get_reconnect_400 --time-scale 60 \
      >"$OUT/$client.habits_paced.json" 2>"$OUT/$client.habits_paced.err"
    set -e
  fi
  # A wall-time timer the compressed clock never lets fire (check.py's PACED): graded again
  # at a pace where it meets the scenario's wait, and held to the preset's verdict there.
  if [ "$client" = typescript ]; then
    set +e
    "$FAULTLINE" grade --command "$cmd" --format json --scenario baseline --time-scale 10 \
      >"$OUT/$client.paced.json" 2>"$OUT/$client.paced.err"
    set -e
  fi
  # The SDK's own read timeout (check.py's READ_TIMEOUT), set shorter than the gaps between
  # baseline's progress events by its documented setting and met at a pace: what the
  # transport does when it fires (about 8 s of wall time).
  if [ "$client" = python ]; then
    set +e
    "$FAULTLINE" grade --command "$cmd --sse-read-timeout-s 1" --format json --scenario baseline \
      --time-scale 20 --ledgers "$OUT/$client-read-timeout-ledgers" \
      >"$OUT/$client.read_timeout.json" 2>"$OUT/$client.read_timeout.err"
    set -e
  fi
done

# ---- 2. auto_long_job: serve --time-scale auto moves its own clock ----------------------
CONTEXT='{"call":{"tool":"long_job","arguments":{"steps":81,"interval_ms":60000},"progress":true},"followup_echo":0}'
for client in "${CLIENTS[@]}"; do
  # The first stdout line is the address: read it through a pipe (no polling).
  rm -f "$OUT/serve.fifo" && mkfifo "$OUT/serve.fifo"
  "$FAULTLINE" serve --addr 127.0.0.1:0 --seed 1 --time-scale auto -q \
    >"$OUT/serve.fifo" 2>"$OUT/$client.serve.err" &
  SERVER_PID=$!
  exec 3<"$OUT/serve.fifo"
  if ! read -r first <&3; then
    log "faultline serve did not start:"; cat "$OUT/$client.serve.err" >&2; exit 1
  fi
  URL="${first#listening on }"
  start_ns=$(date +%s%N)
  set +e
  FAULTLINE_SCENARIO=auto_long_job FAULTLINE_CONTEXT="$CONTEXT" timeout 120 \
    sh -c "$(command_of "$client") \"\$@\"" faultline "$URL" \
    </dev/null >"$OUT/$client.auto.stdout" 2>"$OUT/$client.auto.stderr"
  set -e
  echo $(( ($(date +%s%N) - start_ns) / 1000000 )) >"$OUT/$client.auto.wall_ms"
  stop_server
  exec 3<&-
done

echo
record=()
[ -n "${INTEROP_RECORD:-}" ] && record=(--record "$HERE")
# INTEROP_ACCEPT may name several outcomes, one CLIENT/SCENARIO=WHY a line.
if [ -n "${INTEROP_RECORD:-}" ] && [ -n "${INTEROP_ACCEPT:-}" ]; then
  while IFS= read -r accept; do
    [ -n "$accept" ] && record+=(--accept "$accept")
  done <<<"$INTEROP_ACCEPT"
fi
"$PYTHON" "$HERE/check.py" "$OUT" "${CLIENTS[@]}" "${record[@]}"
