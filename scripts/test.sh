#!/usr/bin/env bash
# The whole test suite, as CI runs it: set-up, a release build and its tests, the runtime's
# tests cross-built for Windows and run under Wine (scripts/windows.sh), the same tests under
# AddressSanitizer + UndefinedBehaviorSanitizer in a clang + libc++ build, then every fuzz target for a bounded time.
# Stages can be skipped for quick local runs: VATKIT_SKIP_WINDOWS=1, VATKIT_SKIP_SANITIZE=1,
# VATKIT_SKIP_FUZZ=1.
# VATKIT_FUZZ_SECONDS sets the time per fuzz target (default 60).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
jobs=$(nproc)
start=$SECONDS
# Each stage's header says when it began (seconds since the start): where CI's time goes.
stage() { echo "== $1 (at $((SECONDS - start)) s)"; }
stage "set-up"
"$here/scripts/setup.sh" test

stage "release build and tests"
# The tests and benchmarks on, whatever the main job (scripts/run.sh) left configured in build/.
"$here/scripts/build.sh" "$here/build" -DVATKIT_BUILD_TESTS=ON -DVATKIT_BUILD_BENCH=ON
ctest --test-dir "$here/build" --output-on-failure --parallel "$jobs" --timeout 900

if [[ ${VATKIT_SKIP_WINDOWS:-0} != 1 ]]; then
  stage "Windows: the runtime cross-built with MinGW-w64, its tests under Wine"
  "$here/scripts/windows.sh" "$here/build-mingw"
fi

# One clang build serves both later stages: the tests under AddressSanitizer + UBSan, and the
# libFuzzer targets (they link a copy of the library with coverage instrumentation, which the
# tests do not: core/CMakeLists.txt).
san=$here/build-san
if [[ ${VATKIT_SKIP_SANITIZE:-0} != 1 || ${VATKIT_SKIP_FUZZ:-0} != 1 ]]; then
  stage "clang + libc++ ASan + UBSan build (tests and fuzz targets)"
  # -gline-tables-only: symbolized sanitizer reports at a fraction of full debug info's compile time.
  # Against LLVM's libc++ rather than libstdc++: the second standard library the tree must build
  # and pass with (GoogleTest is then built from Debian's sources, cmake/googletest.cmake).
  CXX=clang++ CC=clang "$here/scripts/build.sh" "$san" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DVATKIT_SANITIZE=ON -DVATKIT_LIBCXX=ON \
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -gline-tables-only -DNDEBUG" \
    -DVATKIT_BUILD_FUZZ=ON -DVATKIT_BUILD_BENCH=OFF
fi

if [[ ${VATKIT_SKIP_SANITIZE:-0} != 1 ]]; then
  stage "tests under ASan + UBSan"
  # The breadth tests (every asset x encoding x precision through the CLI and the file, every LOD
  # level of every asset, the Node validator, the culling test's CPU mirror of every instance,
  # bakes repeated at several thread counts) ran in the release stage; under the sanitizers they
  # would take most of this stage and exercise no code the remaining tests do not. The web tests
  # (label web: JavaScript under Node and Chromium) and the engine tests (label engine: Godot) ran
  # there too.
  # LeakSanitizer's own stop-the-world tracer sometimes crashes at process exit ("Tracer caught
  # signal 11 ... LeakSanitizer has encountered a fatal error") after a test has passed: a known
  # fault of the sanitizer runtime under load, not a leak report. When, and only when, that
  # signature is in the output, the failed tests run once more and must pass; a real leak or
  # failure repeats and still fails the stage.
  san_log=$san/Testing/san-stage.log
  mkdir -p "$san/Testing"
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  if ! ctest --test-dir "$san" --output-on-failure --parallel "$jobs" --timeout 1800 -LE 'web|python|engine' \
      -E 'Lod.EveryLevelIsWithinItsBudget|Lod.LevelsKeepWhatMotionNeeds|CliBake.EveryEncodingAndPrecision|VatFile.RealBakesRoundTrip|Validator|CliBench.WithoutCulling|GlCulling.NeverDrops|BakeDeterminism' \
      2>&1 | tee "$san_log"; then
    if grep -q "LeakSanitizer has encountered a fatal error" "$san_log"; then
      echo "== LeakSanitizer's tracer crashed at exit: running the failed tests once more"
      ctest --test-dir "$san" --output-on-failure --timeout 1800 --rerun-failed
    else
      exit 1
    fi
  fi
fi

if [[ ${VATKIT_SKIP_FUZZ:-0} != 1 ]]; then
  stage "fuzzing"
  "$here/scripts/fuzz.sh" "${VATKIT_FUZZ_SECONDS:-60}" "$san"
fi
stage "all tests passed"
