# bench-lib.sh -- what the benchmark scripts share (sourced, not run):
# a scratch directory cleaned up on exit with the servers they started,
# free ports, starting a server pinned to its core and waiting for PING,
# stopping it, and ratios.
#
#   . "$(dirname "$0")/bench-lib.sh"
#   bench_init                    # sets tmp, server_cpu, client_cpu; installs the EXIT trap
#   port=$(free_port)
#   pid=$(start_server BINARY PORT [--directive value ...]) || exit 1
#   stop_server PID
#   ratio A B                     # "1.23", or "-" when B is 0
#   throughput_table OURS REF TESTS WIDTH   # needs the caller's rps PORT PIPELINE TEST and $requests
#   throughput_rows PID_A PORT_A PID_B PORT_B TESTS WIDTH   # the same for servers already started
#
# start_server runs `$wrapper BINARY --port P --bind 127.0.0.1 --save '' --dir $tmp ARGS`
# pinned to $server_cpu ($wrapper, e.g. a QEMU command, may be empty); later
# ARGS override the defaults (e.g. --dir). Only processes started here are
# stopped, by PID.

bench_init() {
    server_cpu=0
    client_cpu=1
    [ "$(nproc)" -lt 2 ] && client_cpu=0
    tmp=$(mktemp -d)
    pids=()
    wrapper=${wrapper:-}
    trap bench_cleanup EXIT
}

bench_cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
    rm -rf "$tmp"
}

free_port() { # a port nothing listens on
    local p
    for _ in $(seq 1 50); do
        p=$((20000 + RANDOM % 20000))
        (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }
    done
    echo 0
}

start_server() { # binary port [args...] -> pid on stdout, once PING answers
    local bin=$1 port=$2
    shift 2
    # shellcheck disable=SC2086  # the wrapper is a command line
    taskset -c "$server_cpu" $wrapper "$bin" --port "$port" --bind 127.0.0.1 --save '' --dir "$tmp" "$@" \
        >"$tmp/server-$port.log" 2>&1 &
    local pid=$!
    pids+=("$pid")
    for _ in $(seq 1 600); do
        [ "$(redis-cli -p "$port" ping 2>/dev/null)" = PONG ] && { echo "$pid"; return 0; }
        sleep 0.05
    done
    echo "server $bin did not start; log:" >&2
    cat "$tmp/server-$port.log" >&2
    return 1
}

stop_server() { kill "$1" 2>/dev/null; wait "$1" 2>/dev/null; }

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else printf "-" }'; }

used_memory() { redis-cli -p "$1" info memory | awk -F: '/^used_memory:/ { gsub(/\r/, "", $2); print $2 }'; }

best() { sort -n | tail -n 1; }

# CPU time (user + system, in clock ticks) the process PID has used so far.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

# rps_and_cpu PORT PIPELINE TEST PID -> "req/s server-cpu-us-per-request":
# the caller's rps, and what the server spent on it, from /proc (so the
# figure does not depend on how fast the load generator is).
# requests_for PIPELINE: how many requests a run at that pipeline depth
# sends: $requests, or $requests_p16 at -P 16 where a script sets it.
requests_for() {
    if [ "$1" = 16 ] && [ -n "${requests_p16:-}" ]; then echo "$requests_p16"; else echo "$requests"; fi
}

rps_and_cpu() {
    local before after r
    before=$(cpu_ticks "$4")
    r=$(rps "$1" "$2" "$3")
    after=$(cpu_ticks "$4")
    awk -v r="${r:-0}" -v t=$((after - before)) -v hz="$(getconf CLK_TCK)" -v n="$(requests_for "$2")" \
        'BEGIN { printf "%d %.2f\n", r, t * 1e6 / hz / n }'
}

# Starts OURS and REF (REF may be empty) and prints their throughput_rows.
throughput_table() {
    local ours=$1 ref=$2 tests=$3 width=$4 port_a pid_a port_b="" pid_b=""
    port_a=$(free_port); pid_a=$(start_server "$ours" "$port_a") || return 1
    if [ -n "$ref" ]; then port_b=$(free_port); pid_b=$(start_server "$ref" "$port_b") || return 1; fi
    throughput_rows "$pid_a" "$port_a" "$pid_b" "$port_b" "$tests" "$width"
    stop_server "$pid_a"; [ -n "$pid_b" ] && stop_server "$pid_b"
    return 0
}

# throughput_rows PID_A PORT_A PID_B PORT_B TESTS WIDTH: for each test of the
# comma-separated TESTS at -P 1 and -P 16, the best of $rounds runs of the
# caller's `rps PORT PIPELINE TEST` (which must send $requests requests)
# against server A (ours) and B (the reference; PID_B empty for none),
# measured alternately, and the ratio; then the server's CPU time per
# request (the lowest of the rounds) and reference/ours of that: the
# capacity ratio when the load generator, not the server, is the limit.
throughput_rows() {
    local pid_a=$1 port_a=$2 pid_b=$3 port_b=$4 tests=$5 width=$6 t p a b r ca cb rc
    printf "%-${width}s %4s %10s %10s %6s   %13s %13s %8s\n" test P ours reference ratio \
        "cpu/req ours" "cpu/req ref" "ref/ours"
    for t in ${tests//,/ }; do
        for p in 1 16; do
            for _ in $(seq 1 "$rounds"); do
                rps_and_cpu "$port_a" "$p" "$t" "$pid_a" >>"$tmp/a-$t-$p"
                [ -n "$pid_b" ] && rps_and_cpu "$port_b" "$p" "$t" "$pid_b" >>"$tmp/b-$t-$p"
            done
            a=$(cut -d' ' -f1 "$tmp/a-$t-$p" | best); ca=$(cut -d' ' -f2 "$tmp/a-$t-$p" | sort -n | head -n 1)
            b="-"; r="-"; cb="-"; rc="-"
            if [ -n "$pid_b" ]; then
                b=$(cut -d' ' -f1 "$tmp/b-$t-$p" | best); r=$(ratio "${a:-0}" "${b:-0}")
                cb=$(cut -d' ' -f2 "$tmp/b-$t-$p" | sort -n | head -n 1); rc=$(ratio "$cb" "$ca")
            fi
            printf "%-${width}s %4s %10s %10s %6s   %11sus %11sus %8s\n" "$t" "$p" "${a:--}" "${b:--}" "$r" \
                "$ca" "$cb" "$rc"
        done
    done
}
