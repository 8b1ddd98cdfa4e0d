#!/usr/bin/env bash
# bench-tools.sh -- our redis-benchmark against Debian's, on the same server.
#
#   utils/bench-tools.sh [-n N] [-r ROUNDS] [--tests set,get] [--server BIN]
#                        [--wrapper 'qemu-arm-static -cpu cortex-a7']
#                        [--ours-tool BIN] [--ref-tool BIN]
#
# One server (ours by default; --wrapper runs it under QEMU, which makes the
# server the bottleneck) is pinned to one core, both load generators to the
# other. For each test at -P 1 and -P 16 (c=50) the two tools run
# alternately, ROUNDS times, and the table shows each tool's best req/s, the
# ratio ours/Debian's, and two checks that do not trust either tool's own
# report:
#   wall   N / elapsed seconds of the whole run (connects included),
#   cpu    the tool's user+sys CPU time per request, in microseconds.
# When a tool's cpu per request is close to its wall time per request it is
# saturating its core, and its figure measures the tool, not the server.
set -u
cd "$(dirname "$0")/.." || exit 1
. utils/bench-lib.sh

requests=200000; rounds=3; tests=set,get
server=src/redis-server; ours_tool=src/redis-benchmark; ref_tool=/usr/bin/redis-benchmark
while [ $# -gt 0 ]; do
    case $1 in
        -n) requests=$2; shift 2 ;;
        -r) rounds=$2; shift 2 ;;
        --tests) tests=$2; shift 2 ;;
        --server) server=$2; shift 2 ;;
        --wrapper) wrapper=$2; shift 2 ;;
        --ours-tool) ours_tool=$2; shift 2 ;;
        --ref-tool) ref_tool=$2; shift 2 ;;
        *) echo "usage: $0 [-n N] [-r ROUNDS] [--tests set,get] [--server BIN] [--wrapper CMD] [--ours-tool BIN] [--ref-tool BIN]" >&2; exit 2 ;;
    esac
done
for f in "$server" "$ours_tool"; do
    [ -x "$f" ] || { echo "missing $f: run make first" >&2; exit 1; }
done
[ -x "$ref_tool" ] || { echo "Debian's redis-benchmark ($ref_tool) is not installed: apt-get install redis-tools" >&2; exit 1; }
command -v /usr/bin/time >/dev/null || { echo "needs /usr/bin/time: apt-get install time" >&2; exit 1; }

bench_init
port=$(free_port)
pid=$(start_server "$server" "$port") || exit 1

# run TOOL PIPELINE TEST -> "rps wall_rps cpu_us_per_request"
run() {
    local tool=$1 p=$2 t=$3 out rps
    out=$(/usr/bin/time -f 'TIME %e %U %S' taskset -c "$client_cpu" "$tool" -p "$port" -c 50 \
          -n "$requests" -P "$p" -t "$t" -q 2>&1)
    rps=$(echo "$out" | tr '\r' '\n' | awk '/requests per second/ { print $2 }' | tail -n 1)
    echo "$out" | awk -v n="$requests" -v rps="${rps:-0}" '/^TIME/ {
        printf "%s %.0f %.2f\n", rps, ($2 > 0 ? n / $2 : 0), ($3 + $4) * 1e6 / n }'
}

printf "%-5s %3s %11s %11s %6s   %11s %11s   %9s %9s\n" test P ours debian ratio "wall ours" "wall deb" "cpu/req o" "cpu/req d"
for t in ${tests//,/ }; do
    for p in 1 16; do
        : >"$tmp/o"; : >"$tmp/d"
        for _ in $(seq 1 "$rounds"); do
            run "$ours_tool" "$p" "$t" >>"$tmp/o"
            run "$ref_tool" "$p" "$t" >>"$tmp/d"
        done
        # the row of each tool's best round by its own report
        read -r o ow oc < <(sort -n "$tmp/o" | tail -n 1)
        read -r d dw dc < <(sort -n "$tmp/d" | tail -n 1)
        printf "%-5s %3s %11s %11s %6s   %11s %11s   %8sus %8sus\n" \
            "$t" "$p" "$o" "$d" "$(ratio "$o" "$d")" "$ow" "$dw" "$oc" "$dc"
    done
done
stop_server "$pid"
