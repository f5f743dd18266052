#!/usr/bin/env bash
# Times a command of this repository on a fresh minimal Debian 12, as a new user's machine would
# run it: makes a chroot with debootstrap (variant minbase, the packages every Debian system has),
# copies the repository's committed files into it (and ../shared beside it when the command is the
# test suite), and runs the command there, printing the time of each of its stages.
#
#   scripts/fresh-machine.sh                 # scripts/run.sh: nothing to out/crowd.png
#   scripts/fresh-machine.sh scripts/test.sh # the whole test suite
#
# Needs root (chroot, mounts) and the network to Debian's mirror (the machine's own apt sources
# are copied in). The chroot is made in VATKIT_FRESH_DIR (default /tmp/vatkit-fresh, removed
# first) from a bare system kept in VATKIT_FRESH_DIR.base; making them is not counted, since a
# new user's machine already exists.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
command=${1:-scripts/run.sh}
root=${VATKIT_FRESH_DIR:-/tmp/vatkit-fresh}
[[ $(id -u) -eq 0 ]] || { echo "fresh-machine: needs root (debootstrap, chroot)" >&2; exit 1; }

if ! command -v debootstrap >/dev/null; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap
fi
mirror=$(sed -n 's/^URIs: *\(http[^ ]*debian\)$/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n 1)
mirror=${mirror:-http://deb.debian.org/debian}

cleanup() {
  for m in "$root/dev/pts" "$root/dev" "$root/proc"; do mountpoint -q "$m" && umount -l "$m"; done
  return 0
}
trap cleanup EXIT
cleanup
# The bare system is made once and kept beside the chroot (VATKIT_FRESH_DIR.base); each run
# starts from a copy of it.
if [[ ! -f $root.base/etc/debian_version ]]; then
  echo "fresh-machine: debootstrap --variant=minbase bookworm from $mirror"
  rm -rf "$root.base"
  debootstrap --variant=minbase bookworm "$root.base" "$mirror" >/dev/null
fi
rm -rf "$root"
cp -a "$root.base" "$root"
cp /etc/resolv.conf "$root/etc/resolv.conf"
[[ -f /etc/apt/sources.list.d/debian.sources ]] && cp /etc/apt/sources.list.d/debian.sources "$root/etc/apt/sources.list.d/"
mount -t proc proc "$root/proc"
mount --bind /dev "$root/dev"
mount --bind /dev/pts "$root/dev/pts"

# The committed tree only: what a clean clone holds.
mkdir -p "$root/work/vatkit"
git -C "$here" archive HEAD | tar -x -C "$root/work/vatkit"
if [[ $command == *test* ]]; then
  cp -r "$here/../shared" "$root/work/shared"
fi

echo "fresh-machine: running $command in the chroot"
start=$SECONDS
chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  bash -c "cd /work/vatkit && $command" 2>&1 | tee "$root/work/log" | grep --line-buffered '^== \|error' || true
status=${PIPESTATUS[0]}
echo "fresh-machine: $command exited $status after $((SECONDS - start)) s in all"
[[ $command != *run.sh* || -s $root/work/vatkit/out/crowd.png ]] || { echo "fresh-machine: no out/crowd.png" >&2; exit 1; }
exit "$status"
