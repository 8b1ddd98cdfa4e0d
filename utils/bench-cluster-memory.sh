#!/bin/sh
# bench-cluster-memory.sh -- memory per key that cluster mode adds, ours and
# Redis 7.0's side by side: each server is started standalone and with
# cluster-enabled yes (all slots assigned), filled by DEBUG POPULATE with N
# short keys, and used_memory's growth divided by N is printed.
#
#   utils/bench-cluster-memory.sh [keys]      (default 200000)
#
# Measured 2026-11-29, x86_64, jemalloc. Before the per-slot index (counts
# only): ours 66.73 B/key standalone and in cluster mode. With the index
# (src/cluster_slotindex.c: 4-byte hash fingerprints per slot, load 3/8..3/4):
#   200000 keys: ours 66.73 -> 75.64 (+8.91), Redis 7.0.15 90.73 -> 106.73 (+16.00)
#  1000000 keys: ours 70.84 -> 79.38 (+8.54), Redis 7.0.15 88.44 -> 104.44 (+16.00)
# (Redis: two slot-list pointers in every dict entry.)
set -e
KEYS=${1:-200000}
OURS=$(realpath "${OURS:-src/redis-server}")
REDIS=${REDIS:-/usr/bin/redis-server}
CLI=${CLI:-src/redis-cli}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
port=27100
for bin in "$OURS" "$REDIS"; do
    [ -x "$bin" ] || { echo "skipped: $bin not found"; continue; }
    for cluster in no yes; do
        port=$((port + 1))
        dir="$TMP/$port"
        mkdir -p "$dir"
        (cd "$dir" && "$bin" --port $port --bind 127.0.0.1 --cluster-enabled $cluster --cluster-port $((port + 100)) \
            --save "" --enable-debug-command yes --logfile log --daemonize yes --pidfile "$dir/pid")
        i=0
        until $CLI -p $port ping >/dev/null 2>&1; do i=$((i + 1)); [ $i -lt 100 ] || exit 1; sleep 0.1; done
        [ $cluster = yes ] && $CLI -p $port cluster addslotsrange 0 16383 >/dev/null
        before=$($CLI -p $port info memory | sed -n 's/^used_memory:\([0-9]*\).*/\1/p')
        $CLI -p $port debug populate "$KEYS" key 10 >/dev/null
        after=$($CLI -p $port info memory | sed -n 's/^used_memory:\([0-9]*\).*/\1/p')
        $CLI -p $port shutdown nosave >/dev/null 2>&1 || true
        awk -v b="$before" -v a="$after" -v n="$KEYS" -v bin="$bin" -v c="$cluster" \
            'BEGIN { printf "%-28s cluster-enabled %-3s %8.2f bytes/key\n", bin, c, (a - b) / n }'
    done
done
