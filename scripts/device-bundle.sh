#!/bin/bash
# Packs what the GPU machine needs to run this build's vatkit and vatkit_tests (docs/gl.md, "On
# another machine"): the two binaries, the Debian shared libraries it lacks, Debian's glvnd
# packages (libEGL.so.1, libOpenGL.so.0; unpacked there by run.sh) and a copy of the shared
# assets, into build-device/ (ignored by git). On the other machine:
#   build-device/run.sh build-device/vatkit_tests --gtest_filter='Gl*:-GlCrowdCli*'
#   build-device/run.sh build-device/vatkit bench --instances 10k,100k
# Usage: scripts/device-bundle.sh [BUILD_DIR]   (default build; run scripts/build.sh first)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
out="$root/build-device"
for bin in vatkit vatkit_tests; do
  [ -x "$build/bin/$bin" ] || { echo "device-bundle: $build/bin/$bin is missing: run scripts/build.sh first" >&2; exit 1; }
done
rm -rf "$out"
mkdir -p "$out/lib" "$out/debs"
cp "$build/bin/vatkit" "$build/bin/vatkit_tests" "$out/"
# Every library the binaries link but glibc, the C++ runtime and the GL dispatch (the machine has
# newer ones of the former; glvnd comes from the packages below).
ldd "$build/bin/vatkit_tests" "$build/bin/vatkit" | awk '/=> \//{print $3}' | sort -u | while read -r lib; do
  case "$(basename "$lib")" in
    libc.so* | libm.so* | libdl.so* | libpthread.so* | librt.so* | libstdc++.so* | libgcc_s.so* | libz.so* | \
      libEGL.so* | libGLdispatch.so* | libOpenGL.so* | libGL.so* | libGLX.so*) ;;
    *) cp -L "$lib" "$out/lib/" ;;
  esac
done
(cd "$out/debs" && apt-get download libegl1 libglvnd0 libopengl0 >/dev/null 2>&1) || {
  echo "device-bundle: apt-get download libegl1 libglvnd0 libopengl0 failed" >&2
  exit 1
}
assets="$root/../shared/assets"
[ -d "$assets" ] && cp -r "$assets" "$out/assets"
cat >"$out/run.sh" <<'EOF'
#!/bin/bash
# Runs "$@" with this bundle's libraries, glvnd unpacked from its packages, and its assets.
set -e
here="$(cd "$(dirname "$0")" && pwd)"
if [ ! -e "$here/glvnd/usr/lib/x86_64-linux-gnu/libEGL.so.1" ]; then
  mkdir -p "$here/glvnd"
  for d in "$here"/debs/*.deb; do dpkg-deb -x "$d" "$here/glvnd"; done
fi
export LD_LIBRARY_PATH="$here/lib:$here/glvnd/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
vendor=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
if [ -z "${__EGL_VENDOR_LIBRARY_FILENAMES:-}" ] && [ ! -e /usr/share/glvnd/egl_vendor.d/10_nvidia.json ] && [ -e "$vendor" ]; then
  export __EGL_VENDOR_LIBRARY_FILENAMES="$vendor"
fi
[ -d "$here/assets" ] && export VATKIT_ASSETS="$here/assets"
exec "$@"
EOF
chmod +x "$out/run.sh"
echo "device-bundle: $out ($(du -sh "$out" | cut -f1))"
