#!/usr/bin/env bash
# cross-persistence.sh -- data moves between architectures: a server of one
# port writes an AOF and an RDB snapshot of a dataset holding every type and
# encoding; servers of other ports load each file and must report the same
# DEBUG DIGEST (the RDB both from SAVE and from a forkless BGSAVE).
# Cross ports run under QEMU (their port.mk names the
# emulator), so big-endian sparc64, 32-bit armv6 and native x86_64 read each
# other's files.
#
#   utils/cross-persistence.sh [WRITER:READER ...]
#   default pairs: sparc64:native sparc64:armv6 native:sparc64 native:armv6
#
# Needs each port built (make PORT=<p>; make test-cross builds them) and
# redis-cli (ours from src/, else Debian's). Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/.." || exit 1

pairs=("$@")
[ ${#pairs[@]} -eq 0 ] && pairs=(sparc64:native sparc64:armv6 native:sparc64 native:armv6)
cli=src/redis-cli
[ -x "$cli" ] || cli=$(command -v redis-cli) || { echo "no redis-cli (make, or apt-get install redis-tools)"; exit 1; }

. utils/bench-lib.sh
bench_init
passed=0
failed=0

port_wrapper() { # port -> its QEMU command line (PORT_QEMU of its port.mk), empty for native
    sed -n 's/^PORT_QEMU *:= *//p' "ports/$1/port.mk"
}

wait_gone() { # pid: bounded wait until the server process is gone
    for _ in $(seq 1 400); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.05; done
    kill -9 "$1" 2>/dev/null
}

# every type, both encodings of each, TTLs, binary values, awkward scores,
# geo sets (52-bit scores, edge coordinates), streams with a consumer group
# and a pending entry
populate() {
    local big
    big=$(seq 1 300 | tr '\n' ' ')
    "$cli" -p "$1" >/dev/null <<EOF
SET str "hello world"
SET int 123456789
SET neg -42
SET withttl value
PEXPIREAT withttl 4102444800000
INCRBYFLOAT float 1.23
SETBIT bits 1000 1
RPUSH list a b c 1 2 3
RPUSH biglist $big
HSET hash f1 v1 f2 2
HSET bighash $(for i in $(seq 1 200); do printf 'f%d v%d ' "$i" "$i"; done)
HINCRBYFLOAT hash fl 0.1
SADD intset 1 2 3 -70000 4000000000
SADD strset a b c
SADD bigset $big
ZADD zset 0.1 a 1e-300 b inf c -inf d 3.14159 e
ZADD bigzset $(for i in $(seq 1 200); do printf '%d.5 m%d ' "$i" "$i"; done)
PFADD hll $big
GEOADD geo 13.361389 38.115556 Palermo 15.087269 37.502669 Catania -122.27652 37.805186 Oakland
GEOADD geo 179.9999 -85.05112878 edge-se -180 85.05112878 edge-nw 0 0 origin
XADD stream 1-1 name a n 1
XADD stream 2-1 name b n -2
XADD stream 3-5 other 12345678901
XDEL stream 2-1
XGROUP CREATE stream grp 0
XREADGROUP GROUP grp alice COUNT 1 STREAMS stream >
XGROUP CREATE emptystream grp \$ MKSTREAM
SELECT 3
SET indb3 x
EOF
}

# start PORTNAME DIR [args] -> "pid port"
start_port() {
    local p=$1 dir=$2
    shift 2
    local bin=build/$p/redis-server
    [ "$p" = native ] && bin=src/redis-server
    [ -x "$bin" ] || { echo "missing $bin (build the port first)" >&2; return 1; }
    local port pid
    port=$(free_port)
    wrapper=$(port_wrapper "$p") pid=$(start_server "$bin" "$port" --dir "$dir" --enable-debug-command yes "$@") || return 1
    echo "$pid $port"
}

check() { # label expected actual
    if [ "$2" = "$3" ] && [ -n "$2" ] && [ "$2" != 0000000000000000000000000000000000000000 ]; then
        echo "[ok] $1 (digest $2)"; passed=$((passed + 1)); else
        echo "[FAIL] $1: expected digest $2, got $3"; failed=$((failed + 1)); fi
}

for pair in "${pairs[@]}"; do
    writer=${pair%%:*}; reader=${pair##*:}
    dir="$tmp/$writer-$reader"
    mkdir -p "$dir"
    read -r pid port <<<"$(start_port "$writer" "$dir" --appendonly yes --appendfsync always)" || {
        echo "[FAIL] $pair: $writer did not start"; failed=$((failed + 1)); continue; }
    populate "$port"
    digest=$("$cli" -p "$port" debug digest)
    # a forkless BGSAVE (snapshot.c) of the same data, kept as forkless.rdb
    "$cli" -p "$port" config set persistence-mode forkless >/dev/null
    "$cli" -p "$port" bgsave >/dev/null
    for _ in $(seq 1 400); do "$cli" -p "$port" info persistence | grep -q '^rdb_bgsave_in_progress:0' && break; sleep 0.05; done
    mv "$dir/dump.rdb" "$dir/forkless.rdb"
    "$cli" -p "$port" save >/dev/null
    "$cli" -p "$port" shutdown nosave >/dev/null 2>&1
    wait_gone "$pid"
    for mode in aof rdb forkless; do
        aof=yes; [ $mode != aof ] && aof=no
        file=dump.rdb; [ $mode = forkless ] && file=forkless.rdb
        read -r pid port <<<"$(start_port "$reader" "$dir" --appendonly $aof --dbfilename $file)" || {
            echo "[FAIL] $writer $mode -> $reader: $reader did not start"; failed=$((failed + 1)); continue; }
        check "$writer $mode -> $reader" "$digest" "$("$cli" -p "$port" debug digest)"
        "$cli" -p "$port" shutdown nosave >/dev/null 2>&1
        wait_gone "$pid"
    done
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
