#!/usr/bin/env bash
# redis-suite.sh -- Redis's own test suite, from Debian's `redis` source
# package, run against this server: a compatibility check by the tests the
# Redis release we implement (7.0) ships, not by ours.
#
# Usage: utils/redis-suite.sh [UNIT ...] [-- RUNTEST-OPTIONS ...]
#   UNIT: a test file of the suite without .tcl, e.g. unit/type/list,
#   unit/multi; none: the default list below (the units of what we
#   implement). Extra options go to Redis's runtest (--clients N, --tags ...).
#   Example: utils/redis-suite.sh unit/type/zset -- --clients 1
#   utils/redis-suite.sh --cluster [FILE ...]: the cluster suite instead
#   (runtest-cluster, ours and Debian's side by side: see
#   utils/redis-cluster-suite.sh, which this hands over to).
#
# Design decisions:
# - The suite is a measuring instrument, never part of the product: it is
#   unpacked under build/redis-suite/ from the same pinned upstream tarball
#   utils/build-reference-redis.sh fetches (apt-get source --download-only,
#   checksums verified by apt), and nothing of it enters the repository.
# - Redis's runtest starts src/redis-server (and uses src/redis-cli,
#   redis-benchmark, redis-check-aof ...) of its tree: those names are made
#   links to our build, so the suite starts our server with its own
#   configs. Our server must therefore accept every directive of the
#   suite's tests/assets/default.conf.
# - Not run by `make test` or CI: a full run takes long and some units test
#   what we leave out on purpose or
#   behaviour we changed deliberately (see the note of each issue). The
#   default list is the units whose failures are worth a look.
# - It ends with Redis's own summary line ("All tests passed" or the list
#   of failed tests); the exit status is runtest's.
set -u -o pipefail
cd "$(dirname "$0")/.." || exit 1

# Environment (used by utils/redis-suite-units.sh): REDIS_SUITE_DIR, where
# the suite is unpacked (default build/redis-suite; one per set of
# binaries), REDIS_SUITE_BINDIR, the directory of the binaries it starts
# (default our src/; /usr/bin runs Debian's Redis through the same suite),
# REDIS_SUITE_SETUP_ONLY=1 unpack and link only, REDIS_SUITE_KEEP_TMP=1 keep
# tests/tmp (parallel runs share it: each server has its own directory).
suite=${REDIS_SUITE_DIR:-build/redis-suite}
bindir=${REDIS_SUITE_BINDIR:-$(pwd)/src}

if [ "${1:-}" = "--cluster" ]; then
    shift
    exec utils/redis-cluster-suite.sh "$@"
fi

units=(); extra=()
while [ $# -gt 0 ]; do
    case $1 in
        --) shift; extra=("$@"); break ;;
        *) units+=("$1"); shift ;;
    esac
done
if [ ${#units[@]} -eq 0 ]; then
    units=(unit/type/list unit/type/list-2 unit/type/list-3 unit/type/set unit/type/hash unit/type/zset
           unit/type/string unit/type/incr unit/type/stream unit/type/stream-cgroups unit/keyspace unit/expire
           unit/multi unit/scan unit/sort unit/bitops unit/bitfield unit/hyperloglog unit/pubsub unit/geo
           unit/info-command unit/dump unit/protocol unit/other unit/scripting unit/functions)
fi

[ -x "$bindir/redis-server" ] || { echo "$bindir/redis-server not built: run make" >&2; exit 1; }
utils/need-tools.sh tclsh:tcl dpkg-source:dpkg-dev || exit 1

cache=deps/.cache/redis-source
tarball=$(ls "$cache"/redis_*.orig.tar.gz 2>/dev/null | head -n 1)
if [ -z "$tarball" ]; then
    mkdir -p "$cache"
    (cd "$cache" && apt-get source --download-only redis >/dev/null 2>&1) ||
        { echo "could not fetch Debian's redis source package (a deb-src line is needed in /etc/apt/sources.list)" >&2; exit 1; }
    tarball=$(ls "$cache"/redis_*.orig.tar.gz | head -n 1)
fi
# The suite is a measuring instrument: pinned like deps/, by the SHA-256 of
# Debian's orig tarball of Redis 7.0.15 (utils/redis-suite.sha256).
want=$(awk -v f="$(basename "$tarball")" '$2 == f {print $1}' utils/redis-suite.sha256)
got=$(sha256sum "$tarball" | cut -d' ' -f1)
[ -n "$want" ] && [ "$got" = "$want" ] ||
    { echo "$tarball: sha256 $got, expected ${want:-(no line for it in utils/redis-suite.sha256)}" >&2; exit 1; }

# runtest-cluster (utils/redis-cluster-suite.sh), then runtest-moduleapi and
# src/redismodule.h (the module units, utils/redis-suite-units.sh
# --modules: its test modules compile against that header) came later: a
# suite unpacked without them is unpacked again.
if [ "$(cat "$suite/tarball" 2>/dev/null)" != "$tarball" ] || [ ! -e "$suite/runtest-moduleapi" ]; then
    rm -rf "$suite" && mkdir -p "$suite"
    tar xzf "$tarball" -C "$suite" --strip-components=1 --wildcards '*/tests' '*/runtest' '*/runtest-cluster' \
        '*/runtest-moduleapi' '*/src/redismodule.h' ||
        { echo "cannot unpack the tests of $tarball" >&2; exit 1; }
    echo "$tarball" >"$suite/tarball"
fi
mkdir -p "$suite/src"
for tool in redis-server redis-cli redis-benchmark redis-check-aof redis-check-rdb; do
    ln -sfn "$bindir/$tool" "$suite/src/$tool"
done
[ "${REDIS_SUITE_KEEP_TMP:-0}" = 1 ] || rm -rf "$suite/tests/tmp"
mkdir -p "$suite/tests/tmp"
[ "${REDIS_SUITE_SETUP_ONLY:-0}" = 1 ] && exit 0

args=()
for u in "${units[@]}"; do args+=(--single "$u"); done
cd "$suite" && ./runtest --clients 2 "${args[@]}" "${extra[@]}"
