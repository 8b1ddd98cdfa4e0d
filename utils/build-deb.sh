#!/usr/bin/env bash
# build-deb.sh PORT ARCH VERSION [TAG] -- the Debian package of one port
# (`make deb PORT=...`): build/deb/<port><tag>/redis-portable_<version>_<arch>.deb
# (TAG is the port's PORT_DEB_TAG: -hf for armv6's armhf package, which
# must not overwrite its armel one).
#
# dpkg-buildpackage runs in a staging folder, build/deb/<port>/redis-portable-
# <version>/, that holds a copy of debian/ only: it writes its results next to
# the folder it runs in (the .deb, .buildinfo, .changes), and debhelper its
# work files inside debian/, so nothing lands beside the tree or in the
# committed debian/. debian/rules builds in this tree through DEB_TOP (the
# Makefile with LINK=dynamic BUILD_TAG=-deb), reusing the port's jemalloc and
# Lua from build/deps-<port>. A VERSION other than debian/changelog's top
# entry gets an entry of its own in the copy (the upgrade test builds a
# higher version this way). Cross builds skip the build-dependency check
# (-d): the cross compiler, not libc6-dev:<arch>, provides the target's libc.
set -eu
port=$1 arch=$2 version=$3 tag=${4:-}
top=$(cd "$(dirname "$0")/.." && pwd)
if [ -z "$arch" ]; then
    echo "make deb: no Debian architecture for PORT=$port (packages: native, armv6, armv7, aarch64)" >&2
    exit 1
fi
out=$top/build/deb/$port$tag
stage=$out/redis-portable-$version
rm -rf "$stage"
mkdir -p "$stage"
cp -a "$top/debian" "$stage/debian"
top_version=$(sed -n '1s/^[^ ]* (\([^)]*\)).*/\1/p' "$top/debian/changelog")
if [ "$version" != "$top_version" ]; then
    { printf 'redis-portable (%s) unstable; urgency=medium\n\n  * Built from the tree at version %s.\n\n' "$version" "$version"
      printf ' -- %s  %s\n\n' "$(sed -n 's/^Maintainer: //p' "$top/debian/control")" "$(date -R)"
      cat "$top/debian/changelog"; } >"$stage/debian/changelog"
fi
host_arch=$(dpkg --print-architecture)
cross=()
if [ "$arch" != "$host_arch" ]; then
    cross=(-a"$arch" -d)
    # The Makefile picks the port's compiler itself; CC only tells
    # dpkg-architecture the build is not confused. No tests in a cross build.
    export CC=$(dpkg-architecture -a"$arch" -qDEB_HOST_GNU_TYPE 2>/dev/null)-gcc
    export DEB_BUILD_OPTIONS="nocheck ${DEB_BUILD_OPTIONS:-}"
fi
rm -f "$out"/redis-portable_"$version"_"$arch".*
# The calling make's jobserver does not reach through dpkg-buildpackage (its
# MAKEFLAGS would name pipes debian/rules' make cannot use, and it would
# build with one job): dpkg-buildpackage -j gives the build a make of its own
# with one job per core. Variables the build needs are passed explicitly.
unset MAKEFLAGS MFLAGS MAKELEVEL
jobs=$(nproc 2>/dev/null || echo 2)
cd "$stage"
DEB_TOP=$top DEB_PORT=$port DEB_ARCH=$arch dpkg-buildpackage -b -us -uc -j"$jobs" "${cross[@]}" >"$out/build.log" 2>&1 || {
    tail -40 "$out/build.log" >&2
    echo "make deb: dpkg-buildpackage failed (the whole log: $out/build.log)" >&2
    exit 1
}
deb=$out/redis-portable_${version}_$arch.deb
[ -f "$deb" ] || { echo "make deb: $deb was not made ($out/build.log)" >&2; exit 1; }

# armv6: a package for the Pi 1/Zero must hold no ARMv7 code (the ARM1176
# has no Thumb-2): every program's ARM attributes must say v6. Objects of
# Debian's armhf toolchain linked in (its start files crt1.o, crti.o,
# crtn.o; libc_nonshared.a; libgcc.a) are ARMv7 Thumb-2 and make the linker
# mark the program v7; the armel toolchain's are ARMv5TE and pass.
if [ "$port" = armv6 ]; then
    x=$(mktemp -d)
    dpkg-deb -x "$deb" "$x"
    bad=
    for f in "$x"/usr/lib/redis-portable/bin/*; do
        [ -L "$f" ] && continue
        attrs=$(readelf -A "$f")
        grep -qE 'Tag_CPU_arch: v6' <<<"$attrs" && ! grep -q 'Thumb-2' <<<"$attrs" ||
            bad="$bad $(basename "$f") ($(grep -E 'Tag_CPU_arch:|Tag_THUMB_ISA_use:' <<<"$attrs" | tr -s ' \n' ' '))"
    done
    rm -rf "$x"
    if [ -n "$bad" ]; then
        mv "$deb" "$deb.armv7-code"
        echo "make deb PORT=armv6 DEB_ARCH=$arch: ARMv7 code in:$bad" >&2
        echo "  Debian's armhf cross toolchain links its own ARMv7 start files and libc_nonshared.a into every" >&2
        echo "  program: a Pi 1/Zero (ARM1176) would stop with SIGILL. Build the package on Raspberry Pi OS itself" >&2
        echo "  (make deb there: its compiler and libc are ARMv6), take the armel package for Debian on" >&2
        echo "  the Pi (make deb PORT=armv6), or use the static armv6 build (make PORT=armv6 install)." >&2
        echo "  (The package is kept, renamed: $deb.armv7-code.)" >&2
        exit 1
    fi
fi
echo "built $deb ($(du -k "$deb" | cut -f1) KB)"
