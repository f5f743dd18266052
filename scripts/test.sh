#!/usr/bin/env bash
# The whole test suite, as CI runs it: set-up, a release build and its tests, the same tests
# under AddressSanitizer + UndefinedBehaviorSanitizer, then every fuzz target for a bounded time.
# Stages can be skipped for quick local runs: VATKIT_SKIP_SANITIZE=1, VATKIT_SKIP_FUZZ=1.
# VATKIT_FUZZ_SECONDS sets the time per fuzz target (default 60).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
jobs=$(nproc)
"$here/scripts/setup.sh"

echo "== release build and tests"
"$here/scripts/build.sh" "$here/build"
ctest --test-dir "$here/build" --output-on-failure --parallel "$jobs" --timeout 900

if [[ ${VATKIT_SKIP_SANITIZE:-0} != 1 ]]; then
  echo "== ASan + UBSan build and tests"
  "$here/scripts/build.sh" "$here/build-asan" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DVATKIT_SANITIZE=ON \
    -DVATKIT_BUILD_BENCH=OFF
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir "$here/build-asan" --output-on-failure --parallel "$jobs" --timeout 1800
fi

if [[ ${VATKIT_SKIP_FUZZ:-0} != 1 ]]; then
  echo "== fuzzing"
  "$here/scripts/fuzz.sh" "${VATKIT_FUZZ_SECONDS:-60}"
fi
echo "== all tests passed"
