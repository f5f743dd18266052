#!/usr/bin/env bash
# Installs what vatkit needs on a fresh Debian 12 machine: Debian packages that are missing
# (non-interactively, without recommends) and the npm test tooling (Khronos glTF validator).
# Idempotent: a second run installs nothing and takes a second.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)

packages=(
  # build
  g++ make cmake pkg-config ninja-build
  # core libraries
  libtinygltf-dev libglm-dev libcli11-dev nlohmann-json3-dev libmeshoptimizer-dev libstb-dev libxxhash-dev
  # headless OpenGL (gl library, later issues)
  libegl-dev libegl-mesa0 libgl1-mesa-dri libopengl-dev libepoxy-dev libpng-dev libglfw3-dev
  # tests, benchmarks, fuzzing
  libgtest-dev libgmock-dev libbenchmark-dev assimp-testmodels clang libclang-rt-14-dev
  xvfb xauth  # a virtual X display for the GLFW window test
  nodejs npm
)

missing=()
for p in "${packages[@]}"; do
  # nodejs may come from another repository with npm bundled; accept any installed node/npm.
  if [[ $p == nodejs ]] && command -v node >/dev/null; then continue; fi
  if [[ $p == npm ]] && command -v npm >/dev/null; then continue; fi
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  [[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The Khronos glTF validator, for tests only; pinned in tools/validator/package.json.
validator="$here/tools/validator"
if [[ ! -f $validator/node_modules/gltf-validator/package.json ]]; then
  echo "setup: installing gltf-validator (npm)"
  (cd "$validator" && npm install --no-audit --no-fund --silent)
fi
