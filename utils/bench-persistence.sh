#!/usr/bin/env bash
# bench-persistence.sh -- the Raspberry Pi persistence figures, this server
# against a reference redis-server side by side:
#   (1) N SETs over 1M random keys, no persistence, no pipelining
#   (2) the same with pipelines of 8
#   (3) AOF with appendfsync everysec
#   (4) AOF with a rewrite in progress (BGREWRITEAOF restarted whenever the
#       previous one finishes, for the whole run)
# and the AOF load time of 1M keys. Prints requests/s, the ratios (3)/(1)
# and (4)/(1) per server, and ours/reference per line.
#
# Usage: utils/bench-persistence.sh [-n REQUESTS] [--keys N] [--ours PATH] [--ref PATH] [--quick]
#                                   [--rewrite-cpu LIST] [--tool REDIS-BENCHMARK] [--ours-args "ARGS"]
# Defaults: -n 5000000 (the original report's figure), --keys 1000000.
# --quick: -n 300000 and 200k keys for the load test. Servers on cpu 0,
# redis-benchmark on cpu 1; data in a temporary directory on the same disk
# as /tmp. Needs redis-benchmark and redis-cli (redis-tools).
# --tool src/redis-benchmark: our lighter load generator (Debian's saturates
# its core near 60k req/s at -P 1 on a small machine, hiding the servers).
# --rewrite-cpu LIST: both servers run the AOF cases with aof_rewrite_cpulist
# LIST (e.g. 2 on a 4-core Pi), so in (4) the rewrite child doesn't share the
# server's core (otherwise it inherits the server's pinning to cpu 0).
# --ours-args "ARGS": extra directives for our server only, e.g.
# "--bgchild-nice 10" as the shipped redis.conf sets it (the built-in
# default, 0, is Redis's behaviour: the rewrite child competes with the
# server for cpu 0 as an equal).
set -u
cd "$(dirname "$0")/.." || exit 1

requests=5000000; keys=1000000; ours=src/redis-server; ref=/usr/bin/redis-server
rewrite_args=(); rewrite_note=""; tool=redis-benchmark; ours_args=()
while [ $# -gt 0 ]; do
    case $1 in
        -n) requests=$2; shift 2 ;;
        --keys) keys=$2; shift 2 ;;
        --ours) ours=$2; shift 2 ;;
        --ref) ref=$2; shift 2 ;;
        --quick) requests=300000; keys=200000; shift ;;
        --tool) tool=$2; shift 2 ;;
        --ours-args) read -r -a ours_args <<<"$2"; shift 2 ;;
        --rewrite-cpu) rewrite_args=(--aof_rewrite_cpulist "$2"); rewrite_note=", rewrite child on cpu $2"; shift 2 ;;
        *) echo "unknown option $1" >&2; exit 2 ;;
    esac
done
command -v redis-benchmark >/dev/null || { echo "redis-benchmark missing: apt-get install redis-tools" >&2; exit 1; }
[ -x "$ours" ] || { echo "$ours not built: run make" >&2; exit 1; }
[ -x "$ref" ] || { echo "reference $ref not found: only our figures" >&2; ref=""; }

. utils/bench-lib.sh
bench_init

# start BINARY PORT DIR [args...]: a server with its data in DIR, no automatic rewrites
start() {
    local bin=$1 port=$2 dir=$3
    shift 3
    mkdir -p "$dir"
    start_server "$bin" "$port" --dir "$dir" --auto-aof-rewrite-percentage 0 "$@"
}

stop() { stop_server "$2"; }

rps() { # port pipeline
    taskset -c $client_cpu "$tool" -p "$1" -c 50 -n "$requests" -r 1000000 -P "$2" -t set -q --csv 2>/dev/null |
        awk -F, '/SET/ { gsub(/"/, "", $2); print int($2); exit }'
}

# keeps a rewrite running on PORT until the file STOP exists. Bash builtins
# only (one connection over /dev/tcp, timed reads on a FIFO as the sleep): a
# loop that spawned redis-cli 20 times a second stole CPU from the load
# generator and the servers and showed up as a slower (4) for both.
rewrite_loop() {
    local port=$1 stop=$2 len reply
    mkfifo "$tmp/tick.$port" && exec 5<>"$tmp/tick.$port" && exec 3<>"/dev/tcp/127.0.0.1/$port" || return 1
    while [ ! -e "$stop" ]; do
        printf 'INFO persistence\r\n' >&3
        IFS= read -r len <&3 || break
        len=${len#\$}; len=${len%$'\r'}
        IFS= read -r -N $((len + 2)) reply <&3 || break
        case $reply in
            *aof_rewrite_in_progress:0*) printf 'BGREWRITEAOF\r\n' >&3; IFS= read -r reply <&3 || break ;;
        esac
        IFS= read -r -t 0.05 -u 5 reply
    done
    exec 3>&- 5>&-
}

measure() { # binary label -> "r1 r2 r3 r4 rewrites"
    local bin=$1 label=$2 port pid d extra=()
    [ "$label" = ours ] && extra=("${ours_args[@]}")
    port=$(free_port); d="$tmp/$label-none"
    pid=$(start "$bin" "$port" "$d" --appendonly no "${extra[@]}") || return 1
    local r1 r2 r3 r4
    r1=$(rps "$port" 1); r2=$(rps "$port" 8)
    stop "$port" "$pid"
    port=$(free_port); d="$tmp/$label-aof"
    pid=$(start "$bin" "$port" "$d" --appendonly yes --appendfsync everysec "${rewrite_args[@]}" "${extra[@]}") || return 1
    r3=$(rps "$port" 1)
    rm -f "$tmp/stop"; rewrite_loop "$port" "$tmp/stop" & local loop=$!
    r4=$(rps "$port" 1)
    touch "$tmp/stop"; wait $loop
    local rewrites
    rewrites=$(redis-cli -p "$port" info persistence | tr -d '\r' | awk -F: '/aof_rewrites:/ {print $2}')
    stop "$port" "$pid"
    rm -rf "$tmp/$label-none" "$tmp/$label-aof"
    echo "$r1 $r2 $r3 $r4 ${rewrites:-?}"
}

# AOF load time of KEYS keys, from the server's own log line
load_seconds() {
    local bin=$1 label=$2 port pid d
    port=$(free_port); d="$tmp/$label-load"
    pid=$(start "$bin" "$port" "$d" --appendonly yes --appendfsync no) || return 1
    awk -v n="$keys" 'BEGIN { for (i = 0; i < n; i++) { k = "key:" i; v = "value:" i;
        printf "*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n", length(k), k, length(v), v } }' |
        redis-cli -p "$port" --pipe >/dev/null
    redis-cli -p "$port" shutdown >/dev/null 2>&1; wait "$pid" 2>/dev/null
    port=$(free_port)
    pid=$(start "$bin" "$port" "$d" --appendonly yes) || return 1
    local secs
    secs=$(grep -o 'DB loaded from append only file: [0-9.]* seconds' "$tmp/server-$port.log" | tail -1 | awk '{print $7}')
    [ "$(redis-cli -p "$port" dbsize)" = "$keys" ] || secs="wrong-dbsize"
    stop "$port" "$pid"
    rm -rf "$d"
    echo "$secs"
}

echo "== $requests SETs over 1M random keys, c=50 (server on cpu $server_cpu, client on cpu $client_cpu$rewrite_note)"
read -r o1 o2 o3 o4 orw <<<"$(measure "$ours" ours)"
if [ -n "$ref" ]; then read -r f1 f2 f3 f4 frw <<<"$(measure "$ref" ref)"; else f1=0 f2=0 f3=0 f4=0 frw=-; fi
printf '%-34s %12s %12s %8s\n' case ours reference ours/ref
printf '%-34s %12s %12s %8s\n' "(1) no persistence, P1" "$o1" "$f1" "$(ratio "$o1" "$f1")"
printf '%-34s %12s %12s %8s\n' "(2) no persistence, P8" "$o2" "$f2" "$(ratio "$o2" "$f2")"
printf '%-34s %12s %12s %8s\n' "(3) AOF everysec, P1" "$o3" "$f3" "$(ratio "$o3" "$f3")"
printf '%-34s %12s %12s %8s\n' "(4) AOF + rewrite running, P1" "$o4" "$f4" "$(ratio "$o4" "$f4")"
printf '%-34s %12s %12s\n' "(3)/(1)" "$(ratio "$o3" "$o1")" "$(ratio "$f3" "$f1")"
printf '%-34s %12s %12s\n' "(4)/(1)" "$(ratio "$o4" "$o1")" "$(ratio "$f4" "$f1")"
printf '%-34s %12s %12s\n' "rewrites completed during (4)" "$orw" "$frw"
echo "== AOF load time of $keys keys (seconds, from the server log)"
ol=$(load_seconds "$ours" ours)
if [ -n "$ref" ]; then fl=$(load_seconds "$ref" ref); else fl=-; fi
printf '%-34s %12s %12s %8s\n' "load" "$ol" "$fl" "$(ratio "$fl" "$ol")"
