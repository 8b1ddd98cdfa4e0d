#!/usr/bin/env python3
"""bench-wear.py -- SD-card wear per acknowledged write: bytes written to the
device and fsyncs, for each appendfsync mode and for an AOF rewrite, on our
server and on Debian's Redis under the same load.

  utils/bench-wear.py [--server S ...] [--writes N] [--rate R] [--shim build/powercut-shim.so]

Load: N SETs of 100-byte values on 5,000 keys (seeded), one at a time at R
per second, on 127.0.0.1, with `appendonly yes`; then a BGREWRITEAOF.

Measures, per acknowledged write (and for the rewrite, in total):
- device bytes: write_bytes of /proc/PID/io (pages the server process
  dirtied: what the kernel will write back to the device; a page dirtied
  again after an fsync cleaned it counts again, which is what wears an SD
  card). Fork children are separate processes: a fork rewrite's own writes
  are not in the server's count (the shim's count below has them).
- written bytes and fsyncs: counted by the power-cut shim
  (utils/powercut/shim.c, POWERCUT_LOG unset: counters only), over the
  server, its threads and fork children, in its data directory.
Journal writes of the file system are in neither. Ends with a table.
"""
import argparse
import os
import random
import shutil
import struct
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "powercut"))
import powercut as pc  # noqa: E402


def proc_io(pid):
    with open("/proc/%d/io" % pid) as f:
        return {k: int(v) for k, v in (line.split(":") for line in f)}


def counters(path):
    with open(path, "rb") as f:
        return struct.unpack("<3Q", f.read(24))


def measure(server, shim, mode, nwrites, rate, seed):
    work = tempfile.mkdtemp(prefix="wear-")
    try:
        data = os.path.realpath(os.path.join(work, "data"))
        os.makedirs(data)
        cnt = os.path.join(work, "counter")
        with open(cnt, "wb") as f:
            f.write(b"\0" * 64)
        env = dict(os.environ, LD_PRELOAD=shim, POWERCUT_DIR=data, POWERCUT_COUNTER=cnt)
        env.pop("POWERCUT_LOG", None)
        conf = os.path.join(work, "server.conf")
        pc.server_conf(conf, pc.base_conf(data, work, ["appendonly yes", "appendfsync " + mode,
                                                       "aof-use-rdb-preamble yes"]))
        port = pc.free_port()
        proc, err = pc.start_server(server, conf, port, os.path.join(work, "server.log"), env=env)
        if err:
            raise RuntimeError(err)
        try:
            conn = pc.Conn(port)
            rng = random.Random(seed)
            io0, c0 = proc_io(proc.pid), counters(cnt)
            start = time.monotonic()
            for i in range(nwrites):
                due = start + i / rate
                now = time.monotonic()
                if due > now:
                    time.sleep(due - now)
                conn.call("SET", "key:%d" % rng.randrange(5000), "%0100d" % rng.randrange(10 ** 12))
            time.sleep(1.5)  # let everysec's last fsync happen
            io1, c1 = proc_io(proc.pid), counters(cnt)
            conn.call("BGREWRITEAOF")
            pc.wait_info(conn, "persistence", {"aof_rewrite_in_progress": "0", "aof_rewrite_scheduled": "0"})
            io2, c2 = proc_io(proc.pid), counters(cnt)
            conn.close()
        finally:
            pc.stop_server(proc)
        return dict(dev=(io1["write_bytes"] - io0["write_bytes"]) / nwrites, logical=(c1[2] - c0[2]) / nwrites,
                    fsyncs=(c1[1] - c0[1]) / nwrites, rw_dev=io2["write_bytes"] - io1["write_bytes"],
                    rw_logical=c2[2] - c1[2], rw_fsyncs=c2[1] - c1[1])
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--server", action="append", default=[])
    ap.add_argument("--shim", default="build/powercut-shim.so")
    ap.add_argument("--writes", type=int, default=2000)
    ap.add_argument("--rate", type=float, default=500)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    servers = [os.path.abspath(s) for s in args.server] or [os.path.abspath("src/redis-server"), "/usr/bin/redis-server"]
    shim = os.path.abspath(args.shim)
    rows = []
    for server in servers:
        label = pc.server_label(server)
        for mode in ("always", "everysec", "no"):
            rows.append((label, mode, measure(server, shim, mode, args.writes, args.rate, args.seed)))
    print("%d writes of 100-byte values at %g/s; per acknowledged write, then the BGREWRITEAOF that followed"
          % (args.writes, args.rate))
    print("%-22s %-9s %12s %12s %8s | %14s %14s %7s" % ("server", "fsync", "device B/wr", "written B/wr",
                                                        "fsync/wr", "rewrite dev B", "rewrite B", "fsyncs"))
    for label, mode, m in rows:
        print("%-22s %-9s %12.1f %12.1f %8.3f | %14d %14d %7d" % (label, mode, m["dev"], m["logical"], m["fsyncs"],
                                                                  m["rw_dev"], m["rw_logical"], m["rw_fsyncs"]))


if __name__ == "__main__":
    main()
