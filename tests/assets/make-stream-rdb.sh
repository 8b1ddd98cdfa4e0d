#!/bin/sh
# make-stream-rdb.sh -- writes redis-7.0.15-streams.rdb with Debian's Redis
# 7.0.15 (/usr/bin/redis-server): streams as 7.0 saves them (RDB type 19),
# for tests/unit/type/stream-cgroups.tcl. Usage: sh make-stream-rdb.sh [OUTDIR]
#
# Keys: s-nodes (250 entries over several nodes, mixed field sets, XDELs,
# big and integer values), s-groups (three groups: PELs over two consumers,
# a consumer with nothing pending, a NOACK reader, a group whose
# entries-read is unknown), s-empty (no entries, a group, made by MKSTREAM),
# s-emptied (all entries deleted, XSETID with ENTRIESADDED/MAXDELETEDID).
# IDs are explicit; delivery and seen times are the clock's when run.
set -e
out=$(cd "${1:-$(dirname "$0")}" && pwd)
dir=$(mktemp -d)
port=7499
redis-server --port $port --bind 127.0.0.1 --dir "$dir" --save '' --daemonize no >"$dir/log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; rm -rf "$dir"' EXIT
sleep 0.5
R="redis-cli -p $port"
{
    i=1
    while [ $i -le 250 ]; do
        case $((i % 5)) in
        0) echo "XADD s-nodes $i-0 name n$i age $i" ;;
        1) echo "XADD s-nodes $i-0 name n$i age $i city x" ;;
        2) echo "XADD s-nodes $i-0 v $((i * 1000003))" ;;
        *) echo "XADD s-nodes $i-$i name n$i age -$i" ;;
        esac
        i=$((i + 1))
    done
    echo "XADD s-nodes 251-0 big $(printf 'y%.0s' $(seq 1 300))"
    echo "XDEL s-nodes 2-0 3-3 100-0 101-0 250-0"
    for i in 1 2 3 4 5 6 7 8; do echo "XADD s-groups $i-1 f v$i"; done
    echo "XGROUP CREATE s-groups g1 0"
    echo "XGROUP CREATE s-groups g2 0"
    echo "XGROUP CREATE s-groups g3 3-1"
    echo "XREADGROUP GROUP g1 alice COUNT 3 STREAMS s-groups >"
    echo "XREADGROUP GROUP g1 bob COUNT 2 STREAMS s-groups >"
    echo "XACK s-groups g1 2-1"
    echo "XGROUP CREATECONSUMER s-groups g1 carol"
    echo "XREADGROUP GROUP g2 dave NOACK STREAMS s-groups >"
    echo "XGROUP SETID s-groups g3 5-1"
    echo "XREADGROUP GROUP g3 erin COUNT 1 STREAMS s-groups >"
    echo "XDEL s-groups 4-1"
    echo "XGROUP CREATE s-empty g \$ MKSTREAM"
    echo "XADD s-emptied 5-5 a 1"
    echo "XADD s-emptied 6-6 a 2"
    echo "XDEL s-emptied 5-5 6-6"
    echo "XSETID s-emptied 9-9 ENTRIESADDED 10 MAXDELETEDID 7-7"
    echo "SAVE"
} | $R >/dev/null
cp "$dir/dump.rdb" "$out/redis-7.0.15-streams.rdb"
echo "wrote $out/redis-7.0.15-streams.rdb"
