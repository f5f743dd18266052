#!/usr/bin/env bash
# Configures and builds vatkit. Usage: scripts/build.sh [BUILD_DIR] [extra cmake -D options...]
# Default BUILD_DIR is build/; the CLI lands in BUILD_DIR/bin/vatkit.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
shift || true
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
if [[ ! -f $build/CMakeCache.txt ]]; then
  cmake -S "$here" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
elif (($#)); then
  cmake -S "$here" -B "$build" "$@" >/dev/null
fi
cmake --build "$build" --parallel "$(nproc)"
