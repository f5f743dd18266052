#!/usr/bin/env bash
# What a cold build costs: configures a scratch build directory, builds it from nothing and prints
# the wall time, the CPU time and each folder's share of the compile time (from ninja's log).
#
#   scripts/build-cost.sh [run|test] [extra cmake -D options...]
#
# run (default): the main job's build, the CLI and its libraries (as scripts/run.sh builds it);
# test: everything the release stage of scripts/test.sh builds. Pass -DVATKIT_PRECOMPILE_HEADERS=OFF
# or -DCMAKE_UNITY_BUILD=OFF... to compare. Uses every core (nproc), as the build scripts do.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
what=${1:-run}
shift || true
case $what in
  run) options=(-DVATKIT_BUILD_TESTS=OFF -DVATKIT_BUILD_BENCH=OFF) ;;
  test) options=(-DVATKIT_BUILD_TESTS=ON -DVATKIT_BUILD_BENCH=ON) ;;
  *) echo "build-cost: unknown build '$what' (run or test)" >&2; exit 2 ;;
esac
command -v ninja >/dev/null || { echo "build-cost: needs ninja (scripts/setup.sh run)" >&2; exit 1; }
dir=$(mktemp -d /tmp/vatkit-build-cost.XXXXXX)
trap 'rm -rf "$dir"' EXIT
cmake -S "$here" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "${options[@]}" "$@" >/dev/null
times=$dir/times
TIMEFORMAT='%R %U %S'
{ time cmake --build "$dir" --parallel "$(nproc)" >/dev/null; } 2>"$times"
read -r wall user sys <"$times"
echo "build-cost: $what build, $(nproc) cores, options: ${*:-(defaults)}"
awk -v w="$wall" -v u="$user" -v s="$sys" 'BEGIN {
  printf "  %-12s %8.1f s\n  %-12s %8.1f s (user %.1f + system %.1f)\n", "wall", w, "CPU", u + s, u, s }'
# ninja's log: start and end (ms) of each output's last build; compile time summed per folder.
awk 'NR > 1 { split($4, p, "/"); t[p[1]] += ($2 - $1) / 1000; n[p[1]]++ }
     END { for (f in t) printf "  %-12s %8.1f s in %d steps\n", f, t[f], n[f] }' "$dir/.ninja_log" | sort -k2 -rn
