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
