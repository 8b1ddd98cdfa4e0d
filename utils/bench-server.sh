#!/usr/bin/env bash
# bench-server.sh -- this server against a reference redis-server, side by side.
#
# Throughput: SET, GET, INCR and MSET with redis-benchmark at -P 1 and -P 16
# (-c 50), servers pinned to one core and the load generator to the other;
# the two servers are measured alternately, ROUNDS times, and the best round
# of each is kept. Memory: RSS of a fresh server, and used_memory per key
# after loading 1M keys with 16-byte names and 3-byte values, for the default
# build and, when they are built, MALLOC=libc and the static musl ports; and
# used_memory per connection, 200 connections, just connected and idle.
#
# Usage: utils/bench-server.sh [-n REQUESTS] [-r ROUNDS] [--ours PATH] [--ref PATH]
#        [--wrapper "qemu-arm-static -cpu cortex-a7"] [--no-memory] [--keys N]
#        [--tests set,get,...] [--tool REDIS-BENCHMARK] [--random N]
# On a 2-core machine the load generator saturates its core (Debian's
# redis-benchmark at about 60k req/s at -P 1), so besides req/s the table
# shows the server's own CPU time per request and reference/ours of it;
# --tool src/redis-benchmark uses our lighter load generator.
# --random N: keys drawn from N names (redis-benchmark -r N) instead of the
# single key redis-benchmark uses by default, so lookups miss the CPU cache
# as with a real dataset (run "set" first so "get" finds them).
# The reference defaults to /usr/bin/redis-server (Debian's redis-server
# package); without it, only our figures are printed. redis-benchmark and
# redis-cli come from redis-tools.
set -u
cd "$(dirname "$0")/.." || exit 1

requests=200000; rounds=3; ours=src/redis-server; ref=/usr/bin/redis-server
wrapper=""; memory=1; keys=1000000; tests="set,get,incr,mset"; tool=redis-benchmark; random=()
while [ $# -gt 0 ]; do
    case $1 in
        -n) requests=$2; shift 2 ;;
        -r) rounds=$2; shift 2 ;;
        --ours) ours=$2; shift 2 ;;
        --ref) ref=$2; shift 2 ;;
        --wrapper) wrapper=$2; shift 2 ;;
        --no-memory) memory=0; shift ;;
        --keys) keys=$2; shift 2 ;;
        --tests) tests=$2; shift 2 ;;
        --tool) tool=$2; shift 2 ;;
        --random) random=(-r "$2"); shift 2 ;;
        *) echo "unknown option $1" >&2; exit 2 ;;
    esac
done
command -v redis-benchmark >/dev/null || { echo "redis-benchmark missing: apt-get install redis-tools" >&2; exit 1; }
[ -x "$ours" ] || { echo "$ours not built: run make" >&2; exit 1; }
[ -x "$ref" ] || { echo "reference $ref not found: apt-get install redis-server (or --ref PATH)"; ref=""; }

. utils/bench-lib.sh
bench_init

rps() { # port pipeline test -> requests per second
    taskset -c $client_cpu "$tool" -p "$1" -c 50 -n "$requests" "${random[@]}" -P "$2" -t "$3" -q --csv 2>/dev/null |
        awk -F, -v t="$3" 'toupper($1) ~ "\"" toupper(t) { gsub(/"/, "", $2); print int($2); exit }'
}

echo "== throughput: $requests requests, c=50${random[1]:+, keys from ${random[1]} names}, best of $rounds rounds (server on cpu $server_cpu, client on cpu $client_cpu)${wrapper:+, server under: $wrapper}"
throughput_table "$ours" "$ref" "$tests" 8 || exit 1

[ "$memory" = 1 ] || exit 0

rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }

# keys with 16-byte names ("key:" + 12 digits) and 3-byte values, as RESP
gen_keys() {
    awk -v n="$keys" 'BEGIN { for (i = 0; i < n; i++) { k = sprintf("key:%012d", i);
        printf "*3\r\n$3\r\nSET\r\n$16\r\n%s\r\n$3\r\nabc\r\n", k } }'
}
gen_keys >"$tmp/keys.resp"

measure_memory() { # label binary
    local port pid fresh before after
    port=$(free_port); pid=$(start_server "$2" "$port") || return
    sleep 0.5
    fresh=$(rss_kb "$pid")
    before=$(used_memory "$port")
    redis-cli -p "$port" --pipe <"$tmp/keys.resp" >/dev/null
    after=$(used_memory "$port")
    printf '%-26s fresh RSS %6d KB   used_memory per key %6.1f bytes (%d keys)\n' "$1" "$fresh" \
        "$(awk -v a="$after" -v b="$before" -v n="$keys" 'BEGIN { print (a - b) / n }')" "$keys"
    echo "$(awk -v a="$after" -v b="$before" -v n="$keys" 'BEGIN { print (a - b) / n }')" >"$tmp/perkey-$1"
    stop_server "$pid"
}

# used_memory per connection, 200 of them, at once and after 3.5 s idle
measure_idle_clients() { # label binary
    local port pid got
    command -v tclsh >/dev/null || return
    port=$(free_port); pid=$(start_server "$2" "$port") || return
    got=$(tclsh utils/idle-clients.tcl "$port" 200)
    printf '%-26s per client: %6d bytes connected, %6d bytes after 3.5 s idle\n' "$1" ${got% *} ${got#* }
    echo "${got#* }" >"$tmp/idle-$1"
    stop_server "$pid"
}

echo
echo "== memory"
measure_memory ours "$ours"
[ -x build/native-libc/redis-server ] && measure_memory "ours (MALLOC=libc)" build/native-libc/redis-server
# the static musl builds (make PORT=musl [MALLOC=libc]): the smallest footprint
[ -x build/musl/redis-server ] && measure_memory "ours (PORT=musl)" build/musl/redis-server
[ -x build/musl-libc/redis-server ] && measure_memory "ours (PORT=musl MALLOC=libc)" build/musl-libc/redis-server
[ -n "$ref" ] && measure_memory reference "$ref"
if [ -n "$ref" ] && [ -f "$tmp/perkey-reference" ]; then
    awk -v a="$(cat "$tmp/perkey-ours")" -v b="$(cat "$tmp/perkey-reference")" \
        'BEGIN { printf "memory per key, ours/reference: %.2fx\n", a / b }'
fi
measure_idle_clients ours "$ours"
[ -n "$ref" ] && measure_idle_clients reference "$ref"
if [ -f "$tmp/idle-ours" ] && [ -f "$tmp/idle-reference" ]; then
    awk -v a="$(cat "$tmp/idle-ours")" -v b="$(cat "$tmp/idle-reference")" \
        'BEGIN { printf "memory per idle client, ours/reference: %.2fx\n", a / b }'
fi
