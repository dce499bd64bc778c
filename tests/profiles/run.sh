#!/usr/bin/env bash
# The differential check of the SDK profiles: installs the real SDK servers (pinned, from
# their registries: servers/install.sh), runs the black-box probe (`faultline probe`, the
# product command) against each real server and against `faultline serve --profile` of the
# same name, compares them step by step (compare.py), rewrites docs/profiles.md, and exits 1
# with a `FAIL:` line when a profile matches fewer probe steps than its recorded figure
# (floors.json), or when the probe does not name a server's own profile as its closest.
#
#   tests/profiles/run.sh                  # check
#   PROFILES_RECORD=1 tests/profiles/run.sh   # also record this run's figures as the floors
#   PROFILES_KEEP=1 tests/profiles/run.sh     # keep the probe rows (directory printed)
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
cd "$ROOT"
PYTHON="${PYTHON:-python3}"
log() { printf '[profiles] %s\n' "$*" >&2; }

SERVERS="$("$HERE/servers/install.sh")"

log "cargo build --release"
cargo build --release --quiet
TARGET_DIR="${CARGO_TARGET_DIR:-target}"
case "$TARGET_DIR" in /*) ;; *) TARGET_DIR="$ROOT/$TARGET_DIR" ;; esac
FAULTLINE="$TARGET_DIR/release/faultline"

OUT="$(mktemp -d)"
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  [ -n "${PROFILES_KEEP:-}" ] && log "probe rows kept in $OUT" || rm -rf "$OUT"
}
trap cleanup EXIT

# Starts a server (its command in "$@"), waits for its `listening on URL` line, probes it.
probe() {
  local rows="$1"; shift
  local said="$OUT/said.$RANDOM"
  : >"$said"
  "$@" >"$said" 2>&1 &
  local pid=$!
  PIDS+=("$pid")
  local url=""
  for _ in $(seq 100); do
    url="$(grep -o 'http://[^ ]*/mcp' "$said" | head -1 || true)"
    [ -n "$url" ] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if [ -z "$url" ]; then
    log "FAIL: $* did not say where it listens:"; cat "$said" >&2; return 1
  fi
  "$FAULTLINE" probe "$url" --json "$rows" >/dev/null
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

while read -r name command; do
  log "probing $name: the real server, then faultline serve --profile $name"
  # shellcheck disable=SC2086
  probe "$OUT/real-$name.json" $command
  probe "$OUT/faultline-$name.json" "$FAULTLINE" serve --quiet --profile "$name" --seed 1
done <<<"$SERVERS"

record=()
[ -n "${PROFILES_RECORD:-}" ] && record=(--record)
"$PYTHON" "$HERE/compare.py" "$OUT" "${record[@]}"
