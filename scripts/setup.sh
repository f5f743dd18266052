#!/usr/bin/env bash
# Installs what vatkit needs on a fresh Debian 12 machine: the Debian packages that are missing
# (non-interactively, without recommends) and, for the tests, the npm test tooling.
# Idempotent: a second run installs nothing and takes a second.
#
#   scripts/setup.sh [GROUP...]   (default: test, everything)
#
# Groups (each includes the ones before it):
#   run    what the main job (scripts/run.sh) needs: the compiler and CMake, the libraries the
#          command-line tool links (core, the headless OpenGL renderer, animated WebP output)
#   test   what the test suite (scripts/test.sh) adds: GoogleTest, Google Benchmark, GLFW and a
#          virtual X display for the window test, clang and its sanitizer and fuzzer runtimes, the
#          assimp test models, Node.js and npm with the Khronos glTF validator, Chromium and the
#          web tooling of web/package.json (three.js, Babylon.js) for the browser tests, and for the
#          Windows stage (scripts/windows.sh) the MinGW-w64 cross compiler and Wine, and glslang,
#          SPIRV-Tools and SPIRV-Cross for the shader exports (the build makes them where found),
#          and Godot 3 for the engine test of the OpenVAT export, and FFmpeg's libraries for
#          `vatkit render -o OUT.mp4` (the tool builds without them and says so)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)

run_packages=(
  # build
  g++ cmake pkg-config ninja-build
  # core libraries
  libtinygltf-dev libglm-dev libcli11-dev nlohmann-json3-dev libmeshoptimizer-dev libstb-dev libxxhash-dev
  # headless OpenGL (EGL on Mesa's llvmpipe) and PNG output
  libegl-dev libegl-mesa0 libgl1-mesa-dri libopengl-dev libepoxy-dev libpng-dev
  # vatkit export --to openvat --image exr16
  libopenexr-dev
  # vatkit view's HTTP server
  libcpp-httplib-dev
  # vatkit render -o OUT.webp: animated WebP (libwebp's WebPAnimEncoder in libwebpmux)
  libwebp-dev
)
test_packages=(
  make  # the install test builds its consumer with CMake's default generator
  libgtest-dev libgmock-dev libbenchmark-dev assimp-testmodels clang libclang-rt-14-dev
  libc++-14-dev libc++abi-14-dev googletest  # the clang stage builds against libc++, GoogleTest from source
  clang-format-14  # the format check (scripts/format.sh --check)
  libglfw3-dev xvfb xauth  # the GLFW window test under a virtual X display
  nodejs npm
  chromium  # the browser tests (headless, WebGL2 through SwiftShader)
  g++-mingw-w64-x86-64 wine64  # the runtime cross-built for Windows and its tests run under Wine
  glslang-tools spirv-tools spirv-cross  # the decode chunk exported to SPIR-V, HLSL and Metal (docs/shaders.md)
  pybind11-dev python3-dev python3-numpy python3-pytest  # the Python bindings (python/) and their pytest suite
  godot3  # the engine test: Godot 3.2 plays the OpenVAT export under Xvfb (engines/godot/, docs/godot.md)
  # vatkit render -o OUT.mp4 (H.264 through x264) and its test's decoder: FFmpeg's libraries, here
  # rather than in run as they bring about a hundred packages the main job's crowd.png does not need
  libavformat-dev libavcodec-dev libavutil-dev libswscale-dev
)

groups=("$@")
((${#groups[@]})) || groups=(test)
packages=()
validator=0
for group in "${groups[@]}"; do
  case $group in
    run) packages+=("${run_packages[@]}") ;;
    test) packages+=("${run_packages[@]}" "${test_packages[@]}"); validator=1 ;;
    *) echo "setup: unknown group '$group' (known: run, test)" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${packages[@]}"; do
  # nodejs may come from another repository with npm bundled; accept any installed node/npm.
  if [[ $p == nodejs ]] && command -v node >/dev/null; then continue; fi
  if [[ $p == npm ]] && command -v npm >/dev/null; then continue; fi
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    [[ " ${missing[*]} " == *" $p "* ]] || missing+=("$p")
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
tools="$here/tools/validator"
if ((validator)) && [[ ! -f $tools/node_modules/gltf-validator/package.json ]]; then
  echo "setup: installing gltf-validator (npm)"
  (cd "$tools" && npm install --no-audit --no-fund --silent)
fi

# three.js and Babylon.js for the web runtime's Node and browser tests; pinned in web/package.json
# (package-lock.json beside it). Reinstalled only when the lock file changed since the last install
# (node_modules/.vatkit-lock keeps a copy of the lock it was installed from).
web="$here/web"
if ((validator)) && ! cmp -s "$web/package-lock.json" "$web/node_modules/.vatkit-lock" 2>/dev/null; then
  echo "setup: installing the web test tooling (npm: three, @babylonjs/core, @babylonjs/loaders)"
  (cd "$web" && npm ci --no-audit --no-fund --silent && cp package-lock.json node_modules/.vatkit-lock)
fi
# vatkit-three's copy of the decode chunk (git-ignored; npm ci's "prepare" makes it too): remade
# every run, so that it follows gl/shaders/vat_decode.glsl without a reinstall.
if ((validator)) && command -v node >/dev/null; then
  node "$web/vatkit-three/scripts/embed-glsl.mjs"
fi
