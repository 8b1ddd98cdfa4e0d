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
#   throughput_table OURS REF TESTS WIDTH   # needs the caller's rps PORT PIPELINE TEST
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

# Starts OURS and REF (REF may be empty) and prints, for each test of the
# comma-separated TESTS at -P 1 and -P 16, the best of $rounds runs of the
# caller's `rps PORT PIPELINE TEST`, measured alternately, and the ratio.
throughput_table() {
    local ours=$1 ref=$2 tests=$3 width=$4 port_a pid_a port_b="" pid_b="" t p a b r
    printf "%-${width}s %4s %14s %14s %8s\n" test P ours reference ratio
    port_a=$(free_port); pid_a=$(start_server "$ours" "$port_a") || return 1
    if [ -n "$ref" ]; then port_b=$(free_port); pid_b=$(start_server "$ref" "$port_b") || return 1; fi
    for t in ${tests//,/ }; do
        for p in 1 16; do
            for _ in $(seq 1 "$rounds"); do
                rps "$port_a" "$p" "$t" >>"$tmp/a-$t-$p"
                [ -n "$pid_b" ] && rps "$port_b" "$p" "$t" >>"$tmp/b-$t-$p"
            done
            a=$(best <"$tmp/a-$t-$p"); b="-"; r="-"
            if [ -n "$pid_b" ]; then b=$(best <"$tmp/b-$t-$p"); r=$(ratio "${a:-0}" "${b:-0}"); fi
            printf "%-${width}s %4s %14s %14s %8s\n" "$t" "$p" "${a:--}" "${b:--}" "$r"
        done
    done
    stop_server "$pid_a"; [ -n "$pid_b" ] && stop_server "$pid_b"
    return 0
}
