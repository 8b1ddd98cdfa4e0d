#!/usr/bin/env bash
# build-test-modules.sh -- compiles the test modules of tests/modules/*.c into
# build/test-modules/*.so for tests/unit/moduleapi.tcl.
#
# The modules are built as any third-party module is: against Redis 7.0's own
# redismodule.h, taken from the pinned Debian source tarball in
# deps/.cache/redis-source (the one utils/redis-suite.sh fetches with
# apt-get source), with the host's compiler. The header is unpacked under
# build/ and never committed. The same .so files load into this server and
# into Debian's /usr/bin/redis-server, which is what makes the comparison
# meaningful.
#
# Prints the output directory on success. On failure prints one line saying
# why and exits 1 (the Tcl test skips with that line).
set -u
cd "$(dirname "$0")/.." || exit 1
out=build/test-modules
cache=deps/.cache/redis-source
tarball=$(ls "$cache"/redis_*.orig.tar.gz 2>/dev/null | head -n 1)
if [ -z "$tarball" ]; then
    mkdir -p "$cache"
    (cd "$cache" && apt-get source --download-only redis >/dev/null 2>&1)
    tarball=$(ls "$cache"/redis_*.orig.tar.gz 2>/dev/null | head -n 1)
fi
[ -n "$tarball" ] || { echo "no Redis source tarball in $cache (apt-get source redis needs a deb-src line)"; exit 1; }
cc=${HOST_CC:-cc}
command -v "$cc" >/dev/null || { echo "no host C compiler ($cc)"; exit 1; }
mkdir -p "$out"
if [ "$(cat "$out/tarball" 2>/dev/null)" != "$tarball" ] || [ ! -f "$out/redismodule.h" ]; then
    tar xzf "$tarball" -C "$out" --strip-components=2 --wildcards '*/src/redismodule.h' ||
        { echo "cannot unpack redismodule.h from $tarball"; exit 1; }
    echo "$tarball" >"$out/tarball"
fi
for src in tests/modules/*.c; do
    so="$out/$(basename "$src" .c).so"
    # tests/modules/*.h (code some test modules share) rebuild them all
    if [ ! -f "$so" ] || [ "$src" -nt "$so" ] || [ "$out/redismodule.h" -nt "$so" ] ||
        [ -n "$(find tests/modules -name '*.h' -newer "$so")" ]; then
        "$cc" -std=gnu11 -O1 -g -Wall -Wextra -fPIC -shared -I"$out" -o "$so" "$src" 2>"$out/cc.log" ||
            { echo "cannot compile $src: $(head -n 3 "$out/cc.log" | tr '\n' ' ')"; exit 1; }
    fi
done
echo "$(pwd)/$out"
