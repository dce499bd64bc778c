#!/usr/bin/env bash
# Installs the real SDK servers the profiles are checked against, each pinned, from its
# registry (nothing vendored), and prints one line per server: NAME COMMAND... (the command
# starts that server, which prints `listening on http://ADDR/mcp`).
#
#   typescript/     @modelcontextprotocol/sdk 1.32.2 (npm, package-lock.json)
#   typescript-v2/  @modelcontextprotocol/server 2.4.0 (npm, package-lock.json)
#   python/         mcp 2.3.0 and its dependencies (PyPI, requirements.txt, a venv)
#   rmcp/           rmcp 3.11.0 (crates.io, Cargo.lock; its own workspace, built into
#                   $CARGO_TARGET_DIR/profiles-rmcp or rmcp/target)
#
# Idempotent: a server already installed from the same pins is not installed again.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PYTHON="${PYTHON:-python3}"
log() { printf '[profiles] %s\n' "$*" >&2; }
stamp_of() { cat "$@" | sha256sum | cut -d' ' -f1; }

for dir in typescript typescript-v2; do
  d="$HERE/$dir"
  want="$(stamp_of "$d/package.json" "$d/package-lock.json")"
  if [ "$(cat "$d/node_modules/.faultline-stamp" 2>/dev/null)" != "$want" ]; then
    command -v npm >/dev/null || { log "npm is required"; exit 1; }
    log "npm ci ($d)"
    npm ci --prefix "$d" --no-audit --no-fund --loglevel=error >/dev/null
    echo "$want" >"$d/node_modules/.faultline-stamp"
  fi
done

py="$HERE/python"
want="$(stamp_of "$py/requirements.txt")"
if [ "$(cat "$py/.venv/.faultline-stamp" 2>/dev/null)" != "$want" ]; then
  log "python venv with the pinned mcp ($py/requirements.txt)"
  rm -rf "$py/.venv"
  "$PYTHON" -m venv "$py/.venv" || { log "'$PYTHON -m venv' failed (Debian: apt-get install python3-venv)"; exit 1; }
  "$py/.venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input -r "$py/requirements.txt"
  echo "$want" >"$py/.venv/.faultline-stamp"
fi

RMCP_TARGET="${CARGO_TARGET_DIR:+$CARGO_TARGET_DIR/profiles-rmcp}"
RMCP_TARGET="${RMCP_TARGET:-$HERE/rmcp/target}"
log "cargo build --release --locked (rmcp 3.11.0 server)"
CARGO_TARGET_DIR="$RMCP_TARGET" cargo build --release --locked --quiet \
  --manifest-path "$HERE/rmcp/Cargo.toml"

echo "ts-1.32-store node $HERE/typescript/server.mjs --store"
echo "ts-1.32 node $HERE/typescript/server.mjs"
echo "ts-2.4 node $HERE/typescript-v2/server.mjs"
echo "python-2.3-store $py/.venv/bin/python $py/server.py --store"
echo "python-2.3 $py/.venv/bin/python $py/server.py"
echo "rmcp-3.11 $RMCP_TARGET/release/faultline-profile-rmcp"
