#!/usr/bin/env bash
# A profile-guided build of faultline for long explorations and swarms: the same source as
# the release build, compiled a second time with the branch and call counts of a training
# run (the explorer over every era, both clients), so that the hot paths are laid out for
# the way the simulator really runs. Over 100,000 2025 seeds on one core it explored a
# median 1.12 times as many seeds a second as the release build (docs/performance.md,
# measured with tools/bench-compare.sh); it writes the same bytes.
#
#   tools/pgo-build.sh            # -> target/pgo/release/faultline
#   PGO_SEEDS=5000 tools/pgo-build.sh
#
# It needs `llvm-profdata` that reads the profiles of rustc's LLVM: the rustup component
# (`rustup component add llvm-tools`) or a distribution's LLVM (Debian 12's `llvm-19` reads
# the profiles of rustc 1.95, LLVM 22). Set LLVM_PROFDATA to choose one. Two builds of the
# whole workspace: a few minutes on 2 cores. Exit 0 with the binary built, 1 when a step
# failed, 2 when no llvm-profdata was found.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
log() { printf '[pgo] %s\n' "$*" >&2; }

profdata="${LLVM_PROFDATA:-}"
if [ -z "$profdata" ]; then
  sysroot="$(rustc --print sysroot)"
  host="$(rustc -vV | sed -n 's/^host: //p')"
  for candidate in "$sysroot/lib/rustlib/$host/bin/llvm-profdata" \
    $(ls -d /usr/lib/llvm-*/bin/llvm-profdata 2>/dev/null | sort -t- -k2 -n -r); do
    if [ -x "$candidate" ]; then
      profdata="$candidate"
      break
    fi
  done
fi
if [ -z "$profdata" ] || ! "$profdata" merge --help >/dev/null 2>&1; then
  log "no llvm-profdata found: rustup component add llvm-tools, or install a distribution's LLVM (Debian: apt-get install llvm-19), or set LLVM_PROFDATA"
  exit 2
fi
log "llvm-profdata: $profdata"

seeds="${PGO_SEEDS:-20000}"
work="$ROOT/target/pgo"
data="$work/profiles"
rm -rf "$data" "$work/train"
mkdir -p "$data" "$work/train"

log "1/3 instrumented build (target/pgo/instrumented)"
CARGO_TARGET_DIR="$work/instrumented" RUSTFLAGS="-Cprofile-generate=$data" \
  cargo build --release --locked -p faultline
trained="$work/instrumented/release/faultline"

log "2/3 training: the explorer, $seeds seeds of each era, both clients, and the incidents"
for era in legacy mixed; do
  for client in naive guarded; do
    "$trained" explore --era "$era" --client "$client" --seeds "$seeds" --jobs 1 --no-shrink \
      --out "$work/train/$era-$client" >/dev/null || [ $? -eq 1 ] # a finding exits 1
  done
done
"$trained" bench --reps 5 --explore-seeds 0 >/dev/null
"$profdata" merge -o "$work/merged.profdata" "$data"

log "3/3 optimized build (target/pgo/release)"
CARGO_TARGET_DIR="$work" RUSTFLAGS="-Cprofile-use=$work/merged.profdata" \
  cargo build --release --locked -p faultline
log "built $work/release/faultline (compare: tools/bench-compare.sh target/release/faultline $work/release/faultline)"
