#!/usr/bin/env bash
# Grade the official MCP SDK clients (TypeScript SDK from npm, Python SDK from PyPI, both
# pinned, both unmodified behind the adapters in examples/clients/) on the default set,
# and check what is known of them: the baseline is clean and Behavior B (a cursor reused
# across a restart's generation bump) is silent_gap for both, so grade exits 1. Every
# other verdict is printed as the libraries really behave.
#
#   tests/grade/sdk_clients.sh
#   GRADE_CLIENTS=python tests/grade/sdk_clients.sh
#   GRADE_OUT=dir tests/grade/sdk_clients.sh      # keep the JSON reports and ledgers
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
CLIENTS=(${GRADE_CLIENTS:-typescript python})
PYTHON="${PYTHON:-python3}"
log() { printf '[grade-sdk] %s\n' "$*" >&2; }

TS="$ROOT/examples/clients/typescript"
PY="$ROOT/examples/clients/python"
for client in "${CLIENTS[@]}"; do
  case "$client" in
    typescript)
      command -v npm >/dev/null || { log "npm is required"; exit 1; }
      log "npm ci ($TS, pinned @modelcontextprotocol/sdk)"
      npm ci --prefix "$TS" --no-audit --no-fund --loglevel=error >/dev/null
      ;;
    python)
      if [ ! -x "$PY/.venv/bin/python" ]; then
        log "python venv with the pinned mcp ($PY/requirements.txt)"
        "$PYTHON" -m venv "$PY/.venv" || { log "'$PYTHON -m venv' failed (Debian: apt-get install python3-venv)"; exit 1; }
      fi
      "$PY/.venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input -r "$PY/requirements.txt"
      ;;
    *) log "unknown client $client"; exit 2 ;;
  esac
done

log "cargo build --release"
cargo build --release --quiet
TARGET_DIR="${CARGO_TARGET_DIR:-target}"
case "$TARGET_DIR" in /*) ;; *) TARGET_DIR="$ROOT/$TARGET_DIR" ;; esac
FAULTLINE="$TARGET_DIR/release/faultline"

OUT="${GRADE_OUT:-$(mktemp -d)}"
mkdir -p "$OUT"
status=0
for client in "${CLIENTS[@]}"; do
  case "$client" in
    typescript) cmd="node examples/clients/typescript/client.mjs" ;;
    python) cmd="examples/clients/python/.venv/bin/python examples/clients/python/client.py" ;;
  esac
  log "faultline grade --command \"$cmd\""
  set +e
  "$FAULTLINE" grade --command "$cmd" --format json --ledgers "$OUT/$client-ledgers" >"$OUT/$client.json"
  code=$?
  set -e
  "$PYTHON" - "$OUT/$client.json" "$client" "$code" <<'PY' || status=1
import json, sys
path, client, code = sys.argv[1], sys.argv[2], int(sys.argv[3])
report = json.load(open(path))
kinds = {r["scenario"]: [v["kind"] for v in r["verdicts"]] for r in report["scenarios"]}
for scenario, verdicts in kinds.items():
    print(f"{client:10} {scenario:24} {', '.join(verdicts)}")
problems = []
if kinds.get("baseline") != ["clean"]:
    problems.append(f"baseline is {kinds.get('baseline')}, not clean")
if "silent_gap" not in kinds.get("behavior_b", []):
    problems.append(f"behavior_b is {kinds.get('behavior_b')}, not silent_gap")
if code != 1 or report["lost_silently"] is not True:
    problems.append(f"grade exited {code} (lost_silently {report['lost_silently']}); expected 1")
for p in problems:
    print(f"FAIL {client}: {p}")
sys.exit(1 if problems else 0)
PY
done
log "reports in $OUT"
exit $status
