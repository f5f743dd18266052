#!/usr/bin/env bash
# The main job on a fresh machine: install what is missing, build, write the built-in sample
# character and print its summary, bake it, and render a crowd of it (out/crowd.png, headless:
# Mesa's llvmpipe needs no GPU). Extra arguments go to `vatkit info`.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
"$here/scripts/setup.sh"
"$here/scripts/build.sh" "$here/build"
mkdir -p "$here/out"
"$here/build/bin/vatkit" sample -o "$here/out/sample.glb"
"$here/build/bin/vatkit" info "$here/out/sample.glb" "$@"
"$here/build/bin/vatkit" bake "$here/out/sample.glb" -o "$here/out/sample.vat.glb"
"$here/build/bin/vatkit" render "$here/out/sample.vat.glb" --instances 100 -o "$here/out/crowd.png"
