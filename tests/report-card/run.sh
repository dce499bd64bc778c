#!/usr/bin/env bash
# The client report card: installs every client that has an adapter in examples/clients/
# (each pinned, from its registry: npm, PyPI, crates.io; nothing vendored), grades each with
# `faultline grade --format json` on each era's default set where it speaks that era, and
# writes docs/report-card.md, docs/report-card.html and the README's summary table
# (render.py).
#
#   tests/report-card/run.sh                 # everything (about half an hour on 2 cores)
#   REPORT_CARD_KEEP=1 tests/report-card/run.sh   # keep the grade JSON (directory printed)
#   REPORT_CARD_RUNS="rmcp.legacy ai-sdk.modern" tests/report-card/run.sh
#                                            # only these runs (ID.ERA), written to OUT only
#
# Each client is graded 2 scenarios at a time (--jobs 2, as CI grades the SDK clients), one
# client after the other. CI does not run this: it grades the official SDK clients and rmcp
# (tests/interop/run.sh).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
cd "$ROOT"
PYTHON="${PYTHON:-python3}"
C="examples/clients"
log() { printf '[report-card] %s\n' "$*" >&2; }
stamp_of() { cat "$@" | sha256sum | cut -d' ' -f1; }

# ID  ERA  LABEL  NOTE  COMMAND (run from the repository root; URL appended by grade)
RUNS="$(cat <<TSV
typescript	legacy	TypeScript SDK	its default era	node $C/typescript/client.mjs
python	legacy	Python SDK (ClientSession)	its default era	$C/python/.venv/bin/python $C/python/client.py
rmcp	legacy	rmcp	its default lifecycle (initialize)	$C/rust-rmcp/target/release/faultline-client-rmcp
fastmcp	legacy	fastmcp	mode="legacy" (its default speaks 2026-07-28)	$C/fastmcp/.venv/bin/python $C/fastmcp/client.py --legacy
langchain	legacy	langchain-mcp-adapters	its only era (it requires mcp 1.x)	$C/langchain/.venv/bin/python $C/langchain/client.py
ai-sdk	legacy	AI SDK (@ai-sdk/mcp)	protocolVersionDiscovery false (its default speaks 2026-07-28)	$C/ai-sdk/node_modules/.bin/node $C/ai-sdk/client.mjs --legacy
typescript-v2	modern	TypeScript SDK v2	versionNegotiation 'auto' (its default speaks 2025)	node $C/typescript-modern/client.mjs
python	modern	Python SDK (mcp.Client)	its default mode 'auto'	$C/python/.venv/bin/python $C/python/client_modern.py
rmcp	modern	rmcp	lifecycle Auto (its default speaks 2025)	$C/rust-rmcp/target/release/faultline-client-rmcp --modern
fastmcp	modern	fastmcp	its default mode 'auto'	$C/fastmcp/.venv/bin/python $C/fastmcp/client.py
ai-sdk	modern	AI SDK (@ai-sdk/mcp)	its default (protocolVersionDiscovery)	$C/ai-sdk/node_modules/.bin/node $C/ai-sdk/client.mjs
openai-agents	modern	OpenAI Agents SDK	its only era with mcp 2.x	$C/openai-agents/.venv/bin/python $C/openai-agents/client.py
TSV
)"
if [ -n "${REPORT_CARD_RUNS:-}" ]; then
  RUNS="$(while IFS=$'\t' read -r id era rest; do
    case " $REPORT_CARD_RUNS " in *" $id.$era "*) printf '%s\t%s\t%s\n' "$id" "$era" "$rest" ;; esac
  done <<<"$RUNS")"
fi

# ---- install (idempotent: skipped when what is installed matches the pins) --------------
npm_install() {
  local dir="$1" want
  want="$(stamp_of "$dir/package.json" "$dir/package-lock.json")"
  if [ "$(cat "$dir/node_modules/.faultline-stamp" 2>/dev/null)" != "$want" ]; then
    command -v npm >/dev/null || { log "npm is required"; exit 1; }
    log "npm ci ($dir, pinned in its package-lock.json)"
    npm ci --prefix "$dir" --no-audit --no-fund --loglevel=error >/dev/null
    echo "$want" >"$dir/node_modules/.faultline-stamp"
  fi
}
venv_install() {
  local dir="$1" want
  want="$(stamp_of "$dir/requirements.txt")"
  if [ "$(cat "$dir/.venv/.faultline-stamp" 2>/dev/null)" != "$want" ]; then
    log "python venv ($dir/requirements.txt, every package pinned)"
    rm -rf "$dir/.venv"
    "$PYTHON" -m venv "$dir/.venv" || { log "'$PYTHON -m venv' failed (Debian: apt-get install python3-venv)"; exit 1; }
    "$dir/.venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input -r "$dir/requirements.txt"
    echo "$want" >"$dir/.venv/.faultline-stamp"
  fi
}
start=$(date +%s)
for id in $(cut -f1 <<<"$RUNS" | sort -u); do
  case "$id" in
    typescript) npm_install "$C/typescript" ;;
    typescript-v2) npm_install "$C/typescript-modern" ;;
    ai-sdk) npm_install "$C/ai-sdk" ;;  # Node 22 from the npm package `node`, pinned there
    python) venv_install "$C/python" ;;
    fastmcp | langchain | openai-agents) venv_install "$C/$id" ;;
    rmcp)
      log "cargo build --release --locked (rmcp client, $C/rust-rmcp/Cargo.lock, into its own target/)"
      CARGO_TARGET_DIR="$ROOT/$C/rust-rmcp/target" cargo build --release --locked --quiet \
        --manifest-path "$C/rust-rmcp/Cargo.toml"
      ;;
    *) log "unknown client $id"; exit 2 ;;
  esac
done
log "clients installed in $(( $(date +%s) - start )) s"

log "cargo build --release"
cargo build --release --quiet
TARGET_DIR="${CARGO_TARGET_DIR:-target}"
case "$TARGET_DIR" in /*) ;; *) TARGET_DIR="$ROOT/$TARGET_DIR" ;; esac
FAULTLINE="$TARGET_DIR/release/faultline"

OUT="$(mktemp -d)"
cleanup() { if [ -n "${REPORT_CARD_KEEP:-}" ]; then log "grade runs kept in $OUT"; else rm -rf "$OUT"; fi; }
trap cleanup EXIT

commit="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
"$PYTHON" - "$OUT/meta.json" "$("$FAULTLINE" --version 2>/dev/null || echo faultline)" "$commit" <<'PY'
import datetime, json, sys
path, version, commit = sys.argv[1:]
json.dump({"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"),
           "faultline": f"{version} (commit {commit})"}, open(path, "w"))
PY

# ---- grade -------------------------------------------------------------------------------
printf '%s\n' "$RUNS" >"$OUT/runs.tsv"
while IFS=$'\t' read -r id era label note cmd; do
  [ -n "$id" ] || continue
  log "$label ($era): faultline grade --era $era --command \"$cmd\""
  began=$(date +%s)
  set +e
  "$FAULTLINE" grade --era "$era" --command "$cmd" --jobs 2 --format json \
    >"$OUT/$id.$era.grade.json" 2>"$OUT/$id.$era.grade.err" </dev/null
  echo $? >"$OUT/$id.$era.exit"
  set -e
  echo $(( $(date +%s) - began )) >"$OUT/$id.$era.wall_s"
  log "$label ($era): graded in $(cat "$OUT/$id.$era.wall_s") s (exit $(cat "$OUT/$id.$era.exit"))"
done <<<"$RUNS"

if [ -n "${REPORT_CARD_RUNS:-}" ]; then
  "$PYTHON" "$HERE/render.py" "$OUT" "$OUT/report-card.md" "$OUT/report-card.html"
  log "a partial card: $OUT/report-card.md (docs/ left as it was)"
  REPORT_CARD_KEEP=1
else
  "$PYTHON" "$HERE/render.py" "$OUT" docs/report-card.md docs/report-card.html README.md
fi
log "done in $(( $(date +%s) - start )) s"
