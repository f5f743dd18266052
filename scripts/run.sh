#!/usr/bin/env bash
# The main job on a fresh machine: install what it needs (scripts/setup.sh run), build the
# command-line tool and its libraries only (no tests, no benchmarks), write the built-in sample
# character and print its summary, bake it, and render a crowd of it (out/crowd.png, headless:
# Mesa's llvmpipe needs no GPU). Extra arguments go to `vatkit info`. Each stage's header says
# when it began, in seconds since the start.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
start=$SECONDS
stage() { echo "== $1 (at $((SECONDS - start)) s)"; }
stage "set-up"
"$here/scripts/setup.sh" run
stage "build"
"$here/scripts/build.sh" "$here/build" -DVATKIT_BUILD_TESTS=OFF -DVATKIT_BUILD_BENCH=OFF
stage "sample, bake and render"
mkdir -p "$here/out"
"$here/build/bin/vatkit" sample -o "$here/out/sample.glb"
"$here/build/bin/vatkit" info "$here/out/sample.glb" "$@"
"$here/build/bin/vatkit" bake "$here/out/sample.glb" -o "$here/out/sample.vat.glb"
"$here/build/bin/vatkit" render "$here/out/sample.vat.glb" --instances 100 -o "$here/out/crowd.png"
stage "done: out/crowd.png"
