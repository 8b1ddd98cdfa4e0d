#!/usr/bin/env bash
# build-reference-redis.sh -- Redis itself, built from Debian's `redis` source
# package for one of our ports, as the reference of emulated benchmarks: the
# two servers then run the same way (static, libc malloc, the port's compiler
# and CPU flags, the same QEMU), so a ratio measured in one run compares the
# code, not the build.
#
# Usage: utils/build-reference-redis.sh PORT      e.g. armv7, sparc64, armv6
#        utils/build-reference-redis.sh native-jemalloc
# Result: build/reference-PORT/redis-server (prints its path on success).
#
# native-jemalloc is this machine's Redis with the jemalloc bundled in its
# source tree (Redis's patched copy, dynamic, not static): the one Redis that
# can defragment -- Debian's links the system's unpatched jemalloc and
# refuses `activedefrag yes` -- so the reference of utils/bench-defrag.sh.
#
# Design decisions:
# - The reference is a measuring instrument, never part of the product: it
#   is built under build/, from the upstream release tarball of Debian's
#   source package (`apt-get source --download-only redis`, whose .dsc
#   checksums apt verifies), without Debian's patches, and nothing of it is
#   copied into the repository.
# - The port's facts (compiler prefix, CPU flags) are read from
#   ports/PORT/port.mk, the one place a port is described.
# - MALLOC=libc on both sides: Redis's bundled jemalloc is not built for 16K
#   or 64K pages, and a benchmark of the servers should not be one of two
#   allocators. Run ours as `make PORT=... MALLOC=libc`.
# - An unchanged stamp (version, port flags, this script) means already
#   built: repeated calls are free.
set -u -o pipefail
cd "$(dirname "$0")/.." || exit 1

port=${1:?usage: $0 PORT (one of: $(ls ports | tr '\n' ' ') native-jemalloc)}
[ "$port" != native ] || { echo "the native reference is Debian's /usr/bin/redis-server (apt-get install redis-server)" >&2; exit 2; }
if [ "$port" = native-jemalloc ]; then
    cross= cflags= tools= machine=$(uname -m) malloc=jemalloc ldflags=
else
    portmk=ports/$port/port.mk
    [ -f "$portmk" ] || { echo "unknown port '$port'" >&2; exit 2; }
    port_var() { sed -n "s/^$1[[:space:]]*:=[[:space:]]*//p" "$portmk" | head -n 1; }
    cross=$(port_var PORT_CROSS)
    cflags=$(port_var PORT_CFLAGS)
    tools=$(port_var PORT_TOOLS)
    malloc=libc ldflags=-static
    # Redis's Makefile decides target facts from `uname -m` (e.g. -latomic on
    # 32-bit ARM, which has no 64-bit atomics): tell it the target's, not ours.
    case $port in
        armv6) machine=armv6l ;; armv7) machine=armv7l ;; i386) machine=i686 ;; *) machine=$port ;;
    esac
fi

out=build/reference-$port
cache=deps/.cache/redis-source
stamp="$port|$cross|$cflags|$machine|$(sha256sum "$0" | cut -c1-16)"
if [ -x "$out/redis-server" ] && [ "$(cat "$out/stamp" 2>/dev/null)" = "$stamp" ]; then
    echo "$out/redis-server"
    exit 0
fi

utils/need-tools.sh $tools dpkg-source:dpkg-dev || exit 1

mkdir -p "$cache" "$out"
tarball=$(ls "$cache"/redis_*.orig.tar.gz 2>/dev/null | head -n 1)
if [ -z "$tarball" ]; then
    (cd "$cache" && apt-get source --download-only redis >"$OLDPWD/$out/fetch.log" 2>&1) ||
        { echo "could not fetch Debian's redis source package (a deb-src line is needed; see $out/fetch.log)" >&2; exit 1; }
    tarball=$(ls "$cache"/redis_*.orig.tar.gz | head -n 1)
fi

rm -rf "$out/src" && mkdir -p "$out/src"
tar xzf "$tarball" -C "$out/src" --strip-components=1 || { echo "cannot unpack $tarball" >&2; exit 1; }
echo "building Redis $(basename "$tarball" .orig.tar.gz | cut -d_ -f2) for $port (log: $out/build.log)" >&2
env -u MAKEFLAGS -u CFLAGS -u LDFLAGS make -C "$out/src" -j2 redis-server MALLOC=$malloc BUILD_TLS=no USE_SYSTEMD=no \
    CC="${cross}gcc" AR="${cross}ar" RANLIB="${cross}ranlib" CFLAGS="$cflags" LDFLAGS="$ldflags" uname_M="$machine" \
    >"$out/build.log" 2>&1 || { tail -n 20 "$out/build.log" >&2; echo "the reference build failed" >&2; exit 1; }
cp "$out/src/src/redis-server" "$out/redis-server"
echo "$stamp" >"$out/stamp"
echo "$out/redis-server"
