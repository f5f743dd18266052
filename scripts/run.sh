#!/usr/bin/env bash
# The main job on a fresh machine: install what is missing, build, then write the built-in
# sample character and print its summary. Extra arguments go to `vatkit info`.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
"$here/scripts/setup.sh"
"$here/scripts/build.sh" "$here/build"
mkdir -p "$here/out"
"$here/build/bin/vatkit" sample -o "$here/out/sample.glb"
"$here/build/bin/vatkit" info "$here/out/sample.glb" "$@"
