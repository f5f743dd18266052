#!/usr/bin/env bash
# Builds the libFuzzer targets with clang and runs each for SECONDS (default 60), seeded from
# ../shared/assets (and fuzz/seeds/<target> when present). Usage: scripts/fuzz.sh [SECONDS [BUILD_DIR]]
# BUILD_DIR (default build-fuzz/) is configured with clang, ASan + UBSan and the fuzz targets;
# scripts/test.sh passes its sanitizer build, which has them too. A crash, leak or timeout fails
# the run and leaves the reproducer in BUILD_DIR.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-60}
build=${2:-$here/build-fuzz}
if [[ ! -f $build/CMakeCache.txt ]]; then
  CXX=clang++ CC=clang "$here/scripts/build.sh" "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DVATKIT_BUILD_FUZZ=ON -DVATKIT_BUILD_TESTS=OFF -DVATKIT_BUILD_BENCH=OFF -DVATKIT_BUILD_TOOLS=OFF \
    -DVATKIT_SANITIZE=ON
else
  "$here/scripts/build.sh" "$build"
fi
assets=$(cd "$here/../shared/assets" && pwd)
# One target per core at a time: each fuzzer runs on one thread, so on N cores N targets get as
# many executions each as one alone would, in 1/N of the wall time.
jobs=${VATKIT_FUZZ_JOBS:-$(nproc)}
logs=$build/fuzz-logs
mkdir -p "$logs"
run_target() {
  local target=$1 name corpus seeds
  name=$(basename "$target")
  corpus=$build/corpus/$name
  mkdir -p "$corpus"
  seeds=("$corpus")
  [[ -d $here/fuzz/seeds/$name ]] && seeds+=("$here/fuzz/seeds/$name")
  [[ $name == fuzz_import ]] && seeds+=("$assets/khronos" "$assets/threejs" "$assets/quaternius/fish")
  # Baking is slower than importing: the small animated assets only. Under the sanitizers
  # CesiumMan and RecursiveSkeletons take 20 to 30 s each to bake, past the per-input timeout.
  [[ $name == fuzz_bake_reload ]] && seeds+=("$assets/quaternius/fish")
  # A fixed seed: from the same seeds, a run explores the same inputs in the same order, so CI
  # repeats (a prefix of, on a slower machine) what a local run with a longer time has already
  # passed. VATKIT_FUZZ_SEED=0 asks libFuzzer for a random one, to explore further.
  (cd "$build" && "$target" -seed="${VATKIT_FUZZ_SEED:-1}" -max_total_time="$seconds" -max_len=600000 \
     -rss_limit_mb=4096 -timeout=20 -print_final_stats=1 "${seeds[@]}") > "$logs/$name.log" 2>&1
}
pids=()
names=()
for target in "$build"/bin/fuzz_*; do
  while (($(jobs -rp | wc -l) >= jobs)); do sleep 1; done  # (not wait -n: the loop below collects every status)
  echo "fuzz: $(basename "$target") for ${seconds}s"
  run_target "$target" &
  pids+=($!)
  names+=("$(basename "$target")")
done
failed=0
for i in "${!pids[@]}"; do
  status=0
  wait "${pids[$i]}" || status=$?
  echo "== ${names[$i]} (exit $status)"
  tail -n 12 "$logs/${names[$i]}.log"
  ((status == 0)) || failed=1
done
exit $failed
