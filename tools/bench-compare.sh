#!/usr/bin/env bash
# Two faultline binaries side by side on the explorer: the seed loop's seeds/s of each, in
# alternating runs on one machine, and the ratio new/old per round and its median. Each pair
# of runs must write the same bytes (a speed change changes no finding); a pair that does
# not fails the comparison.
#
#   tools/bench-compare.sh OLD NEW [SEEDS] [ROUNDS] [-- EXPLORE ARGS...]
#   tools/bench-compare.sh /tmp/faultline-before target/release/faultline 100000 4 -- --era mixed
#
# SEEDS defaults to 100000 and ROUNDS to 4; the explorer runs on one core (`--jobs 1`)
# without shrinking, as issue 33's figure is taken. Wall time on a shared machine moves
# from run to run: read the ratios, which alternating the binaries keeps honest, rather
# than either column alone. Exit 0 when every pair wrote the same bytes, 1 when one did
# not, 2 on bad arguments.
set -euo pipefail

usage() {
  echo "usage: $0 OLD NEW [SEEDS] [ROUNDS] [-- EXPLORE ARGS...]" >&2
  exit 2
}

[ $# -ge 2 ] || usage
old=$1 new=$2
shift 2
seeds=100000 rounds=4
if [ $# -gt 0 ] && [ "$1" != "--" ]; then seeds=$1; shift; fi
if [ $# -gt 0 ] && [ "$1" != "--" ]; then rounds=$1; shift; fi
if [ $# -gt 0 ]; then
  [ "$1" = "--" ] || usage
  shift
fi
for bin in "$old" "$new"; do
  [ -x "$bin" ] || { echo "$0: $bin is not an executable" >&2; exit 2; }
done
[[ "$seeds" =~ ^[1-9][0-9]*$ && "$rounds" =~ ^[1-9][0-9]*$ ]] || usage

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The seed loop's rate, from the explorer's own report ("… s in the seed loop, N seeds/s").
rate() {
  local bin=$1 out=$2
  shift 2
  "$bin" explore --seeds "$seeds" --jobs 1 --no-shrink --out "$out" "$@" >"$out.log" 2>&1 || true
  sed -n 's/.* in the seed loop, \([0-9][0-9]*\) seeds\/s.*/\1/p' "$out.log" | tail -n 1
}

ratios=()
differ=0
printf '%-6s %14s %14s %8s  %s\n' round "old seeds/s" "new seeds/s" ratio bytes
for round in $(seq 1 "$rounds"); do
  a="$work/old-$round" b="$work/new-$round"
  old_rate=$(rate "$old" "$a" "$@")
  new_rate=$(rate "$new" "$b" "$@")
  if [ -z "$old_rate" ] || [ -z "$new_rate" ]; then
    echo "$0: a run printed no seed-loop rate; its output:" >&2
    cat "$a.log" "$b.log" >&2
    exit 1
  fi
  same=same
  if ! diff -rq "$a" "$b" >/dev/null 2>&1; then
    same=DIFFER
    differ=1
  fi
  ratio=$(awk -v n="$new_rate" -v o="$old_rate" 'BEGIN { printf "%.2f", n / o }')
  ratios+=("$ratio")
  printf '%-6s %14s %14s %8s  %s\n' "$round" "$old_rate" "$new_rate" "$ratio" "$same"
done
median=$(printf '%s\n' "${ratios[@]}" | sort -n |
  awk '{ r[NR] = $1 } END { printf "%.2f", (NR % 2) ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2 }')
echo "median ratio new/old: $median over $rounds rounds of $seeds seeds${*:+ (explore $*)}"
if [ "$differ" -ne 0 ]; then
  echo "FAIL: the two binaries wrote different findings for the same seeds" >&2
  exit 1
fi
