#!/usr/bin/env bash
# bench-defrag.sh -- active defragmentation, this server against a
# reference redis-server (Debian's 7.0.15, built with its jemalloc) in the
# same run, on the same fragmenting workload.
#
# The workload, the same on both (one redis-cli --pipe): KEYS string keys of mixed sizes (16..700 bytes), 70% of
# them deleted at random, then 0.35 x KEYS new keys with values of other
# sizes (24..500 bytes). Then `activedefrag yes` with Redis's defaults
# (threshold-lower 10%, cycle-min 1%, cycle-max 25%) except
# active-defrag-ignore-bytes 1mb (the default 100mb is more waste than a
# modest fill makes), while redis-benchmark runs GETs against the server.
#
# Reported per server: RSS, mem_fragmentation_ratio and allocator_frag_ratio
# before and after defrag (after: when the pass ended; RSS also after
# MEMORY PURGE, as jemalloc gives freed pages back only after its decay
# time); the time until allocator_frag_ratio reached 1 + threshold-lower
# ("-" if it never did within the limit); the server's CPU time meanwhile;
# the longest active-defrag-cycle stall the latency monitor saw (ms,
# latency-monitor-threshold 1); and the GET throughput during defrag
# relative to the same benchmark before it.
#
# Debian's Redis 7.0.15 links the system's (unpatched) jemalloc and refuses
# `activedefrag yes`, as any Redis without its bundled jemalloc does: its
# line then says so. A Redis built from its source tree with its bundled
# jemalloc (make MALLOC=jemalloc) can be given with --ref.
#
# Usage: utils/bench-defrag.sh [--keys N] [--limit SECONDS] [--ours PATH] [--ref PATH] [--no-load]
#                              [--ports LO-HI]
#   --keys N       keys filled (default 200000; 1000000 is the issue's figure)
#   --limit S      how long to wait for allocator_frag_ratio to reach the target (default 60)
#   --no-load      no concurrent redis-benchmark
#   --ports LO-HI  servers listen on a free port in LO..HI (default: anywhere in 20000..39999)
set -u
cd "$(dirname "$0")/.." || exit 1

keys=200000; limit=60; ours=src/redis-server; ref=/usr/bin/redis-server; wrapper=""; load=1; ports=""
while [ $# -gt 0 ]; do
    case $1 in
        --keys) keys=$2; shift 2 ;;
        --limit) limit=$2; shift 2 ;;
        --ours) ours=$2; shift 2 ;;
        --ref) ref=$2; shift 2 ;;
        --no-load) load=0; shift ;;
        --ports) ports=$2; shift 2 ;;
        -h|--help) sed -n '2,35p' "$0"; exit 0 ;;
        *) echo "unknown option $1" >&2; exit 2 ;;
    esac
done
[ -x "$ours" ] || { echo "$ours not built: run make" >&2; exit 1; }
[ -x "$ref" ] || { echo "reference $ref not found: apt-get install redis-server (or --ref PATH)"; ref=""; }

. utils/bench-lib.sh
bench_init
if [ -n "$ports" ]; then # bench-lib's free_port, confined to LO..HI
    port_lo=${ports%-*}; port_hi=${ports#*-}
    free_port() {
        local p
        for _ in $(seq 1 50); do
            p=$((port_lo + RANDOM % (port_hi - port_lo + 1)))
            (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }
        done
        echo 0
    }
fi

field() { # port section name
    redis-cli -p "$1" info "$2" | awk -F: -v f="$3" '$1 == f { gsub(/\r/, "", $2); print $2 }'
}
rss_mb() { awk '/VmRSS/ { printf "%.1f", $2 / 1024 }' "/proc/$1/status"; }

# The workload as RESP for redis-cli --pipe (not a Lua script: the Lua
# heap's garbage would fragment our jemalloc, while Redis's Lua uses libc
# malloc): KEYS SETs of sizes 16..700, DEL of 70% of them at random (a fixed
# seed: the same keys on both servers), then 0.35 x KEYS SETs of 24..500.
workload() {
    awk -v n="$keys" 'function rep(c, k,   s) { s = sprintf("%*s", k, ""); gsub(/ /, c, s); return s }
    function cmd3(a, b, c) { printf "*3\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n", length(a), a, length(b), b, length(c), c }
    BEGIN {
        srand(7); split("16 40 100 300 700", A, " "); split("24 64 200 500", B, " ")
        for (i = 0; i < n; i++) cmd3("SET", "key:" i, rep("v", A[i % 5 + 1]))
        for (i = 0; i < n; i++) if (rand() < 0.7) { k = "key:" i; printf "*2\r\n$3\r\nDEL\r\n$%d\r\n%s\r\n", length(k), k }
        for (i = 0; i < n * 35 / 100; i++) cmd3("SET", "new:" i, rep("n", B[i % 4 + 1]))
    }'
}

get_rps() { # port -> GET requests per second
    taskset -c "$client_cpu" redis-benchmark -p "$1" -c 20 -n 200000 -r "$keys" -t get -q --csv 2>/dev/null |
        awk -F, 'NR == 2 { gsub(/"/, "", $2); print int($2); exit }'
}

run_one() { # name binary -> one line of the table
    local name=$1 bin=$2 port pid
    port=$(free_port)
    pid=$(start_server "$bin" "$port" --latency-monitor-threshold 1 --appendonly no) || return 1
    redis-cli -p "$port" --pipe < "$tmp/workload.resp" >/dev/null
    sleep 1
    local rss0 mf0 af0 base_rps=- load_rps=- bench_pid=""
    rss0=$(rss_mb "$pid"); mf0=$(field "$port" memory mem_fragmentation_ratio)
    af0=$(field "$port" memory allocator_frag_ratio)
    [ $load = 1 ] && base_rps=$(get_rps "$port")
    redis-cli -p "$port" config set active-defrag-ignore-bytes 1mb >/dev/null
    redis-cli -p "$port" latency reset >/dev/null
    local cpu0 t0 reached=- now ratio running started=0
    cpu0=$(cpu_ticks "$pid"); t0=$(date +%s%N)
    if ! redis-cli -p "$port" config set activedefrag yes | grep -q OK; then
        printf "%-8s %7s %7s %6s %6s %6s %6s   refuses activedefrag (%s)\n" "$name" "$rss0" - "$mf0" - "$af0" - \
            "$(redis-cli -p "$port" config set activedefrag yes | cut -c1-60)..."
        stop_server "$pid"
        return 0
    fi
    if [ $load = 1 ]; then
        (get_rps "$port" > "$tmp/load.$name") &
        bench_pid=$!
    fi
    local target
    target=$(awk -v l="$(redis-cli -p "$port" config get active-defrag-threshold-lower | tail -n 1)" \
        'BEGIN { printf "%.2f", 1 + l / 100 }')
    while :; do
        now=$(( ($(date +%s%N) - t0) / 1000000 ))
        ratio=$(field "$port" memory allocator_frag_ratio)
        running=$(field "$port" memory active_defrag_running)
        [ "$running" != 0 ] && started=1
        if [ "$reached" = - ] && awk -v r="$ratio" -v t="$target" 'BEGIN { exit !(r <= t) }'; then
            reached=$now
        fi
        [ "$started" = 1 ] && [ "$running" = 0 ] && [ "$reached" != - ] && break
        [ "$now" -gt $((limit * 1000)) ] && break
        sleep 0.1
    done
    local cpu_ms=$(( ($(cpu_ticks "$pid") - cpu0) * 1000 / $(getconf CLK_TCK) ))
    [ -n "$bench_pid" ] && { wait "$bench_pid"; load_rps=$(cat "$tmp/load.$name"); }
    local rss1 mf1 af1 stall hits rss2
    rss1=$(rss_mb "$pid"); mf1=$(field "$port" memory mem_fragmentation_ratio)
    af1=$(field "$port" memory allocator_frag_ratio)
    hits=$(field "$port" stats active_defrag_hits)
    stall=$(redis-cli -p "$port" latency history active-defrag-cycle | awk 'NR % 2 == 0 && $1 > m { m = $1 } END { print m + 0 }')
    redis-cli -p "$port" memory purge >/dev/null
    sleep 1
    rss2=$(rss_mb "$pid")
    printf "%-8s %7s %7s %6s %6s %6s %6s %7s %9s %7s %8s %9s %9s\n" "$name" "$rss0" "$rss1" "$mf0" "$mf1" "$af0" "$af1" \
        "$rss2" "$reached" "$cpu_ms" "$stall" "$hits" "$(ratio "$load_rps" "$base_rps")"
    stop_server "$pid"
}

workload > "$tmp/workload.resp"
echo "== active defrag: $keys keys of mixed sizes, 70% deleted at random, $((keys * 35 / 100)) new keys of other sizes"
echo "   defaults but active-defrag-ignore-bytes 1mb; GETs from redis-benchmark during defrag: $([ $load = 1 ] && echo yes || echo no)"
echo "   (server on cpu $server_cpu, client on cpu $client_cpu)"
printf "%-8s %7s %7s %6s %6s %6s %6s %7s %9s %7s %8s %9s %9s\n" server "rss0MB" "rss1MB" "mfrag0" "mfrag1" "afrag0" \
    "afrag1" "purged" "to-lower" "cpu-ms" "stall-ms" "hits" "load-rps"
run_one ours "$ours"
[ -n "$ref" ] && run_one redis "$ref"
echo "rss0/rss1: RSS before / when the pass ended; purged: RSS after MEMORY PURGE; mfrag/afrag: mem_ and"
echo "allocator_frag_ratio before/after; to-lower: ms until allocator_frag_ratio <= 1 + threshold-lower;"
echo "stall-ms: longest active-defrag-cycle (latency monitor); load-rps: GET req/s during defrag / before it."
