#!/usr/bin/env bash
# Builds ftdiag's .deb from build/default (cpack), installs it with apt into a
# fresh Debian 12 root (debootstrap, minbase), and checks there that it
# depends on no CUDA library, that its man page is installed, that it
# diagnoses the bundled example's record, and that `ftdiag run` finds its
# installed probes (a crash's native stack is recorded). Needs root and
# Debian's package archive; exits 77 (skipped) without root.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" -ne 0 ]; then
  echo "test-deb: needs root (debootstrap and chroot)" >&2
  exit 77
fi

build=build/default
(cd "$build" && cpack -G DEB >/dev/null 2>&1)
deb=$(ls -t "$build"/ftdiag_*.deb | head -n 1)
echo "test-deb: built $deb ($(du -h "$deb" | cut -f1))"
depends=$(dpkg-deb -f "$deb" Depends)
echo "test-deb: Depends: $depends"
if printf '%s' "$depends" | grep -qiE 'cuda|nvidia'; then
  echo "test-deb: FAIL: the package depends on CUDA" >&2
  exit 1
fi

# The example's record to diagnose in the fresh root.
record=examples/output/torch-checkpoint-oom
[ -d "$record" ] || record=examples/output/oom-at-checkpoint
[ -d "$record" ] || examples/run.sh >/dev/null
[ -d examples/output/torch-checkpoint-oom ] && record=examples/output/torch-checkpoint-oom

mirror=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
mirror=${mirror:-http://deb.debian.org/debian}
root=$(mktemp -d /tmp/ftdiag-deb-root.XXXXXX)
cleanup() {
  umount "$root/proc" 2>/dev/null || true
  rm -rf "$root"
}
trap cleanup EXIT
debootstrap --variant=minbase bookworm "$root" "$mirror" >/dev/null
mount -t proc proc "$root/proc"
cp "$deb" "$root/tmp/ftdiag.deb"
cp -r "$record" "$root/tmp/example"
chroot "$root" /bin/sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends /tmp/ftdiag.deb' >/dev/null 2>&1

in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }
in_root test -f /usr/share/man/man1/ftdiag.1 -o -f /usr/share/man/man1/ftdiag.1.gz
in_root ftdiag --version
cause=$(in_root ftdiag analyze /tmp/example --format json | in_root python3 -c 'import json, sys; print(json.load(sys.stdin)["verdict"]["cause"])')
echo "test-deb: the bundled example in a fresh Debian 12 root: $cause"
[ "$cause" = host-oom-checkpoint-save ]

# The installed probes: a Python job that faults in native code.
in_root ftdiag run --quiet --job-dir /tmp/crash -- python3 -c 'import ctypes; ctypes.string_at(0)' 2>/dev/null || true
source=$(in_root ftdiag analyze /tmp/crash --facts | in_root python3 -c 'import json, sys; print(json.load(sys.stdin).get("crash.source"))')
echo "test-deb: a crash under the installed ftdiag run was recorded by: $source"
[ "$source" = crash-probe ]
echo "test-deb: ok"
