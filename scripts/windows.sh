#!/usr/bin/env bash
# vatkit::runtime on Windows: cross-builds the runtime and its tests (tests/runtime) for 64-bit
# Windows with MinGW-w64 (cmake/toolchains/mingw-w64-x86_64.cmake, statically linked) and runs
# the tests under Wine, headless. Installs nothing: `scripts/setup.sh test` installs the cross
# compiler and Wine. The exit code is the tests'.
#
#   scripts/windows.sh [BUILD_DIR] [gtest arguments...]   (default BUILD_DIR: build-mingw/)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build-mingw}
shift || true

wine=$(command -v wine64 || true)
[[ -n $wine ]] || wine=/usr/lib/wine/wine64  # Debian's wine64 puts no command on the PATH
for tool in x86_64-w64-mingw32-g++-posix "$wine"; do
  command -v "$tool" >/dev/null || { echo "windows: $tool is missing: run scripts/setup.sh test" >&2; exit 2; }
done

"$here/scripts/build.sh" "$build" -DCMAKE_TOOLCHAIN_FILE="$here/cmake/toolchains/mingw-w64-x86_64.cmake" \
  -DVATKIT_RUNTIME_ONLY=ON -DVATKIT_BUILD_TESTS=ON

# A Wine prefix of its own in the build directory (made on first use); no Wine debug output; no
# display needed (console programs only); no Mono or Gecko installer offered while the prefix is made.
export WINEPREFIX=$build/wine WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
unset DISPLAY WAYLAND_DISPLAY
exec "$wine" "$build/bin/vatkit_runtime_tests.exe" "$@"
