#!/usr/bin/env python3
"""powercut.py -- the power-cut checker: record a server's file operations
during a workload, build the directory states a power cut may leave, start
the server on each and check what it promised survived.

  powercut.py run  --server PATH [--server PATH2] [--workloads a,b] [--cuts N] [--states N]
                   [--seed S] [--strict] [--keep-failures DIR] [--save-record DIR] [--verbose]
  powercut.py toys                       validate the checker on toy writers
  powercut.py check-record DIR [--server PATH] [--expect-violations] [--strict]
                                         check a record saved by run --save-record
                                         (the regression cases in tests/assets/powercut)

The model, the workloads and the report are described in README.md next to
this file. Only the standard library is used.

Layout: RESP client and server start/stop; recording (the shim in
LD_PRELOAD, the driver of each workload); the file-system model that replays
a record and draws crash states; the checks; the report.
"""
import argparse
import hashlib
import os
import random
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
BLOCK = 4096
EVERYSEC_WINDOW = 2.0  # seconds of acknowledged writes everysec may lose


# ---- a minimal RESP client ------------------------------------------------------------

class Conn:
    def __init__(self, port, timeout=30):
        self.s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.buf = b""

    def close(self):
        self.s.close()

    def _line(self):
        while b"\r\n" not in self.buf:
            chunk = self.s.recv(65536)
            if not chunk:
                raise ConnectionError("connection closed")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def _exact(self, n):
        while len(self.buf) < n + 2:
            chunk = self.s.recv(65536)
            if not chunk:
                raise ConnectionError("connection closed")
            self.buf += chunk
        data, self.buf = self.buf[:n], self.buf[n + 2:]
        return data

    def reply(self):
        line = self._line()
        t, rest = line[:1], line[1:]
        if t in (b"+", b"-"):
            return (t == b"-", rest.decode())
        if t == b":":
            return int(rest)
        if t == b"$":
            n = int(rest)
            return None if n < 0 else self._exact(n)
        if t == b"*":
            n = int(rest)
            return None if n < 0 else [self.reply() for _ in range(n)]
        raise ValueError("bad reply %r" % line)

    def send(self, *args):
        out = b"*%d\r\n" % len(args)
        for a in args:
            a = a if isinstance(a, bytes) else str(a).encode()
            out += b"$%d\r\n%s\r\n" % (len(a), a)
        self.s.sendall(out)

    def call(self, *args):
        self.send(*args)
        return self.reply()


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def is_error(r):
    return isinstance(r, tuple) and r[0]


def start_server(server, conf, port, logpath, env=None, timeout=20):
    """Starts `server conf --port N`; returns (proc, None) once it answers
    PING with PONG, or (None, message) when it exits first."""
    logf = open(logpath, "ab")
    proc = subprocess.Popen([server, conf, "--port", str(port)], stdout=logf, stderr=subprocess.STDOUT,
                            env=env, cwd=os.path.dirname(conf))
    logf.close()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            return None, "exited with status %d" % proc.returncode
        try:
            c = Conn(port, timeout=2)
            r = c.call("PING")
            c.close()
            if r == (False, "PONG"):
                return proc, None
        except (OSError, ConnectionError):
            pass
        time.sleep(0.02)
    stop_server(proc)
    return None, "did not answer within %ds" % timeout


def stop_server(proc):
    if proc and proc.poll() is None:
        proc.kill()
        proc.wait()


def info_field(conn, section, name):
    r = conn.call("INFO", section)
    for line in r.decode().splitlines():
        if line.startswith(name + ":"):
            return line.split(":", 1)[1]
    return None


def wait_info(conn, section, fields, timeout=30):
    """Polls INFO until every name:value in `fields` holds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if all(info_field(conn, section, k) == v for k, v in fields.items()):
            return True
        time.sleep(0.01)
    raise RuntimeError("INFO %s never showed %s" % (section, fields))


# ---- recording --------------------------------------------------------------------------

def read_counter(path):
    with open(path, "rb") as f:
        return struct.unpack("<Q", f.read(8).ljust(8, b"\0"))[0]


class Recorder:
    """One recorded run: the data directory, its initial files, the shim's
    environment, and what the workload was promised."""

    def __init__(self, workdir, shim):
        self.workdir = workdir
        self.data = os.path.realpath(os.path.join(workdir, "data"))
        os.makedirs(self.data)
        self.log = os.path.join(workdir, "record.log")
        self.counter = os.path.join(workdir, "counter")
        with open(self.counter, "wb") as f:
            f.write(b"\0" * 64)
        self.shim = shim
        self.writes = []    # (key, value, ack_seq, ack_time) of each acknowledged write
        self.promises = []  # (kind, threshold, item): see Checker.guaranteed
        self.initial = {}   # relative path -> bytes, the files present before the run

    def env(self):
        e = dict(os.environ)
        e.update(LD_PRELOAD=self.shim, POWERCUT_DIR=self.data, POWERCUT_LOG=self.log,
                 POWERCUT_COUNTER=self.counter)
        return e

    def put_initial(self, rel, content):
        with open(os.path.join(self.data, rel), "wb") as f:
            f.write(content)
        self.initial[rel] = content

    def seq(self):
        return read_counter(self.counter)

    def acked_version(self, rel):
        """The file as it is now must survive (it, or a later version)."""
        with open(os.path.join(self.data, rel), "rb") as f:
            self.promises.append(("version", self.seq(), (rel, f.read())))

    def acked_write(self, conn, key, value):
        r = conn.call("SET", key, value)
        if r != (False, "OK"):
            raise RuntimeError("SET failed: %r" % (r,))
        self.writes.append((key, value, self.seq(), time.monotonic()))
        return len(self.writes) - 1


def server_conf(path, lines):
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def base_conf(data, workdir, extra):
    return ["bind 127.0.0.1", "dir " + data, "logfile \"\"", "daemonize no", "save \"\"",
            "appendonly no", "shutdown-timeout 0"] + extra


# Each workload: a function (rec, conn) run against the recording server, the
# config lines of its server, the files whose versions are checked
# ("targets"), and whether the dataset is checked.
def wl_aof(rec, conn, rng, everysec=False):
    n = 36 if everysec else 60
    for i in range(n):
        if i == n // 2:
            conn.call("BGREWRITEAOF")
            for j in range(10):  # writes while the rewrite runs
                rec.acked_write(conn, "k%d" % rng.randrange(40), "r%d-%d" % (i, j))
            wait_info(conn, "persistence", {"aof_rewrite_in_progress": "0", "aof_rewrite_scheduled": "0"})
        idx = rec.acked_write(conn, "k%d" % rng.randrange(40), "v%d-%d" % (i, rng.randrange(10 ** 6)))
        if not everysec:
            rec.promises.append(("seq", rec.writes[idx][2], idx))
        else:
            rec.promises.append(("time", rec.writes[idx][3] + EVERYSEC_WINDOW, idx))
            time.sleep(0.1)
    if not everysec:
        for idx, w in enumerate(rec.writes):
            rec.promises.append(("seq", w[2], idx))
    else:
        for idx, w in enumerate(rec.writes):
            rec.promises.append(("time", w[3] + EVERYSEC_WINDOW, idx))


def wl_rdb(rec, conn, rng):
    def covered_by_snapshot(at_seq):
        for idx in range(len(rec.writes)):
            rec.promises.append(("seq", at_seq, idx))
    for round_ in range(3):
        for i in range(15):
            rec.acked_write(conn, "k%d" % rng.randrange(30), "v%d-%d" % (round_, i))
        if round_ == 1:
            r = conn.call("BGSAVE")
            if is_error(r):
                raise RuntimeError("BGSAVE: %s" % r[1])
            wait_info(conn, "persistence", {"rdb_bgsave_in_progress": "0"})
            if info_field(conn, "persistence", "rdb_last_bgsave_status") != "ok":
                raise RuntimeError("BGSAVE failed")
            covered_by_snapshot(rec.seq())
        else:
            r = conn.call("SAVE")
            if r != (False, "OK"):
                raise RuntimeError("SAVE: %r" % (r,))
            covered_by_snapshot(rec.seq())
    # the snapshot of a shutdown: done once the process exited with 0
    for i in range(10):
        rec.acked_write(conn, "k%d" % rng.randrange(30), "s%d" % i)
    conn.send("SHUTDOWN", "SAVE")
    try:
        conn.reply()
    except (OSError, ConnectionError):
        pass  # the connection closes when the server exits
    if rec.proc.wait(timeout=30) != 0:
        raise RuntimeError("SHUTDOWN SAVE: exit status %d" % rec.proc.returncode)
    covered_by_snapshot(rec.seq())


def wl_config(rec, conn, rng):
    for i in range(5):
        conn.call("CONFIG", "SET", "maxmemory", str((i + 1) * 1000000 + rng.randrange(1000)))
        conn.call("CONFIG", "SET", "hz", str(10 + i))
        r = conn.call("CONFIG", "REWRITE")
        if r != (False, "OK"):
            raise RuntimeError("CONFIG REWRITE: %r" % (r,))
        rec.acked_version("redis.conf")


def wl_acl(rec, conn, rng):
    for i in range(5):
        conn.call("ACL", "SETUSER", "user%d" % i, "on", ">pw%d" % rng.randrange(10 ** 6), "~*", "+get")
        r = conn.call("ACL", "SAVE")
        if r != (False, "OK"):
            raise RuntimeError("ACL SAVE: %r" % (r,))
        rec.acked_version("users.acl")


def wl_replica(rec, conn, rng):
    """A replica's full sync replaces its dump.rdb (a good one, from a SAVE)
    with the snapshot it received: never with half of it."""
    for i in range(20):
        rec.acked_write(conn, "own%d" % i, "x%d" % rng.randrange(10 ** 6))
    if conn.call("SAVE") != (False, "OK"):
        raise RuntimeError("SAVE failed")
    pdir = os.path.join(rec.workdir, "primary")
    os.makedirs(pdir)
    pconf = os.path.join(pdir, "primary.conf")
    server_conf(pconf, base_conf(pdir, pdir, []))
    pport = free_port()
    primary, err = start_server(rec.server, pconf, pport, os.path.join(pdir, "primary.log"))
    if err:
        raise RuntimeError("primary: " + err)
    try:
        pconn = Conn(pport)
        for i in range(300):
            pconn.send("SET", "p%d" % i, "%d-%s" % (i, "y" * rng.randrange(10, 200)))
        for i in range(300):
            pconn.reply()
        conn.call("REPLICAOF", "127.0.0.1", str(pport))
        wait_info(conn, "replication", {"master_link_status": "up", "master_sync_in_progress": "0"})
        conn.call("REPLICAOF", "NO", "ONE")
        pconn.close()
    finally:
        stop_server(primary)


WORKLOADS = {
    # name: (driver, config lines, targets, checks data, ours only)
    "aof-always": (wl_aof, ["appendonly yes", "appendfsync always"], ["appendonlydir/*.manifest"], True, False),
    "aof-everysec": (lambda r, c, g: wl_aof(r, c, g, everysec=True), ["appendonly yes", "appendfsync everysec"],
                     ["appendonlydir/*.manifest"], True, False),
    "rdb-save": (wl_rdb, [], ["dump.rdb"], True, False),
    "config-rewrite": (wl_config, [], ["redis.conf"], False, False),
    "acl-save": (wl_acl, ["aclfile users.acl"], ["users.acl"], False, False),
    "replica-sync": (wl_replica, ["repl-diskless-load disabled"], ["dump.rdb"], False, False),
    "forkless-rdb": (wl_rdb, ["persistence-mode forkless"], ["dump.rdb"], True, True),
    "forkless-aof": (wl_aof, ["persistence-mode forkless", "appendonly yes", "appendfsync always"],
                     ["appendonlydir/*.manifest"], True, True),
}


def record_workload(name, server, shim, workdir, seed):
    driver, extra, _targets, _kv, _ours = WORKLOADS[name]
    rec = Recorder(workdir, shim)
    rec.server = server
    conf_lines = base_conf(rec.data, workdir, extra)
    if name == "config-rewrite":
        conf = os.path.join(rec.data, "redis.conf")
        rec.put_initial("redis.conf", ("\n".join(conf_lines) + "\n").encode())
    else:
        conf = os.path.join(workdir, "server.conf")
        server_conf(conf, conf_lines)
    if name == "acl-save":
        rec.put_initial("users.acl", b"user default on nopass sanitize-payload ~* &* +@all\n")
    rec.conf_lines = conf_lines
    port = free_port()
    proc, err = start_server(server, conf, port, os.path.join(workdir, "record-server.log"), env=rec.env())
    if err:
        raise RuntimeError("recording server: " + err)
    rec.proc = proc
    try:
        conn = Conn(port)
        driver(rec, conn, random.Random(seed))
        rec.final_seq = rec.seq()
        conn.close()
    finally:
        stop_server(proc)
    return rec


# ---- the record and the file-system model ---------------------------------------------------

def parse_log(path):
    ops = []
    with open(path, "rb") as f:
        raw = f.read()
    pos = 0
    while pos < len(raw):
        nl = raw.index(b"\n", pos)
        head = raw[pos:nl].decode("utf-8", "replace")
        fields, paths = head.split(" ", 8), None
        seq, pid, op, fd, a, b, dlen, ns = fields[:8]
        paths = fields[8].split("\t")
        dlen = int(dlen)
        data = raw[nl + 1:nl + 1 + dlen]
        pos = nl + 1 + dlen
        ops.append(dict(seq=int(seq), pid=int(pid), op=op, fd=int(fd), a=int(a), b=int(b), t=int(ns) / 1e9,
                        p1=paths[0], p2=paths[1] if len(paths) > 1 else "-", data=data))
    ops.sort(key=lambda o: o["seq"])
    return ops


class Inode:
    def __init__(self, ino, data=b""):
        self.ino = ino
        self.data = bytearray(data)   # what the kernel has (lost at a power cut unless synced)
        self.durable = bytes(data)    # what an fsync put on the device
        self.sizes = {len(data)}      # every size since that fsync


class Model:
    """Replays a record op by op: the kernel's view (names, inodes) and what
    of it is on the device (fsynced file data; directory operations, each
    durable once its directory was fsynced)."""

    def __init__(self, root, initial):
        self.root = root
        self.names = {}      # absolute path -> inode number (files)
        self.dirs = {root}   # directories the kernel has
        self.inodes = {}
        self.dirops = []     # [op, args, durable] in order
        self.fds = {}        # (pid, fd) -> inode number, or a directory path
        self.versions = {}   # relative target path -> [contents in the order they appeared]
        self.next_ino = 1
        for rel, content in sorted(initial.items()):
            ino = self._new(content)
            self.names[os.path.join(root, rel)] = ino
            self.dirops.append(["link", (os.path.join(root, rel), ino), True])

    def _new(self, content=b""):
        ino = self.next_ino
        self.next_ino += 1
        self.inodes[ino] = Inode(ino, content)
        return ino

    def _target(self, pid, fd, path):
        t = self.fds.get((pid, fd))
        if t is None:  # a fork child's inherited descriptor: by name
            t = path if path in self.dirs else self.names.get(path)
        return t

    def apply(self, o):
        op, p1 = o["op"], o["p1"]
        if op == "open":
            if p1 in self.dirs:
                self.fds[(o["pid"], o["fd"])] = p1
                return
            ino = self.names.get(p1)
            if ino is None:
                if not o["a"] & os.O_CREAT:
                    return
                ino = self._new()
                self.names[p1] = ino
                self.dirops.append(["link", (p1, ino), False])
            if o["a"] & os.O_TRUNC:
                self._resize(self.inodes[ino], 0)
            self.fds[(o["pid"], o["fd"])] = ino
        elif op == "write":
            ino = self._target(o["pid"], o["fd"], p1)
            if isinstance(ino, int):
                node, off, data = self.inodes[ino], o["a"], o["data"]
                if off > len(node.data):
                    node.data.extend(b"\0" * (off - len(node.data)))
                node.data[off:off + len(data)] = data
                node.sizes.add(len(node.data))
        elif op == "trunc":
            ino = self._target(o["pid"], o["fd"], p1) if o["fd"] >= 0 else self.names.get(p1)
            if isinstance(ino, int):
                self._resize(self.inodes[ino], o["a"])
        elif op == "fsync":
            t = self._target(o["pid"], o["fd"], p1)
            if isinstance(t, int):
                node = self.inodes[t]
                node.durable = bytes(node.data)
                node.sizes = {len(node.data)}
                self._note_versions(t)
            elif isinstance(t, str):
                for d in self.dirops:
                    if t in self._dirs_of(d):
                        d[2] = True
        elif op == "rename":
            ino = self.names.pop(p1, None)
            if ino is None and p1 in self.dirs:
                return
            self.names[o["p2"]] = ino
            self.dirops.append(["rename", (p1, o["p2"], ino), False])
            self._note_versions(ino)
        elif op == "unlink":
            if self.names.pop(p1, None) is not None:
                self.dirops.append(["unlink", (p1,), False])
        elif op == "mkdir":
            self.dirs.add(p1)
            self.dirops.append(["mkdir", (p1,), False])
        elif op == "rmdir":
            self.dirs.discard(p1)
            self.dirops.append(["rmdir", (p1,), False])

    @staticmethod
    def _dirs_of(d):
        return {os.path.dirname(p) for p in d[1] if isinstance(p, str)}

    def _resize(self, node, size):
        if size < len(node.data):
            del node.data[size:]
        else:
            node.data.extend(b"\0" * (size - len(node.data)))
        node.sizes.add(size)

    def _note_versions(self, ino):
        """A file complete enough to be a version of a target: the content of
        a target name when it is renamed into place or fsynced."""
        for path, i in self.names.items():
            if i == ino:
                rel = os.path.relpath(path, self.root)
                vs = self.versions.setdefault(rel, [])
                content = bytes(self.inodes[ino].data)
                if not vs or vs[-1] != content:
                    vs.append(content)

    # -- drawing a crash state --
    def crash_state(self, rng, mode):
        """mode: 'lost' (nothing unsynced persists), 'kept' (everything
        persists), or 'mixed' (each unsynced directory operation and file
        drawn independently). Returns {relative path: bytes} and the set of
        relative directories."""
        names, dirs = {}, {self.root}
        for kind, args, durable in self.dirops:
            if not durable and (mode == "lost" or (mode == "mixed" and rng.random() < 0.5)):
                continue
            if kind == "link":
                names[args[0]] = args[1]
            elif kind == "rename":
                src, dst, ino = args
                if names.get(src) == ino:
                    del names[src]
                names[dst] = ino
            elif kind == "unlink":
                names.pop(args[0], None)
            elif kind == "mkdir":
                dirs.add(args[0])
            elif kind == "rmdir":
                dirs.discard(args[0])
        files = {}
        for path, ino in sorted(names.items()):
            if os.path.dirname(path) not in dirs or ino is None:
                continue
            files[os.path.relpath(path, self.root)] = self.file_content(self.inodes[ino], rng, mode)
        return files, {os.path.relpath(d, self.root) for d in dirs}

    @staticmethod
    def file_content(node, rng, mode):
        D, V = node.durable, bytes(node.data)
        if D == V or mode == "lost":
            return D
        if mode == "kept":
            return V
        how = rng.choice(["lost", "kept", "blocks", "zeros"])
        if how == "lost":
            return D
        if how == "kept":
            return V
        minlen = min(node.sizes | {len(D)})
        lengths = sorted(node.sizes | {len(D), len(V)})
        L = max(lengths) if how == "zeros" else rng.choice(lengths)
        out = bytearray()
        for b in range(0, L, BLOCK):
            n = min(BLOCK, L - b)
            v = V[b:b + n].ljust(n, b"\0")
            d = D[b:b + n].ljust(n, b"\0")
            if v == d:
                out += v
                continue
            choices = [v, d] if b < len(D) else [v]
            # zeros only past the shortest length since the fsync: what the
            # file had then stays (a block the fsync covered in part keeps that part)
            keep = max(0, min(n, minlen - b))
            zeros = d[:keep] + b"\0" * (n - keep)
            if b + n > minlen:
                choices.append(zeros)
            out += zeros if how == "zeros" and b + n > minlen else rng.choice(choices)
        return bytes(out)


# ---- cut points and states -----------------------------------------------------------------

def choose_cuts(ops, root, ncuts, rng):
    """Indices i (state after ops[:i]) at each fsync/rename boundary, just
    before and just after it, plus sampled points between; at most ncuts,
    the boundaries around renames and directory fsyncs kept first."""
    must, boundary, between = set(), set(), set()
    dirs = {root} | {o["p1"] for o in ops if o["op"] == "mkdir"}
    for i, o in enumerate(ops):
        if o["op"] in ("rename", "unlink", "mkdir", "trunc") or (o["op"] == "fsync" and o["p1"] in dirs):
            must.update((i, i + 1))
        elif o["op"] == "fsync":
            boundary.update((i, i + 1))
        elif o["op"] == "write":
            between.add(i + 1)
    must.add(len(ops))
    chosen = set(sorted(must))
    if len(chosen) > ncuts:
        chosen = set(rng.sample(sorted(chosen), ncuts))
    rest = sorted(boundary - chosen)
    room = max(0, ncuts - len(chosen))
    chosen.update(rng.sample(rest, min(room * 3 // 4, len(rest))))
    rest = sorted(between - chosen)
    room = max(0, ncuts - len(chosen))
    chosen.update(rng.sample(rest, min(room, len(rest))))
    return sorted(chosen)


def generate_states(ops, initial, root, ncuts, nstates, seed):
    """[(cut index, seq, time, files, dirs, versions so far)] -- deterministic for a seed."""
    rng = random.Random(seed)
    cuts = choose_cuts(ops, root, ncuts, rng)
    model = Model(root, initial)
    out, seen, i = [], set(), 0
    for cut in cuts:
        while i < cut:
            model.apply(ops[i])
            i += 1
        seq = ops[cut - 1]["seq"] if cut > 0 else 0
        t = ops[cut - 1]["t"] if cut > 0 else 0.0
        # just after a rename, more mixed draws: that is where a file renamed
        # into place before its data was durable shows
        extra = 4 if cut > 0 and ops[cut - 1]["op"] == "rename" else 0
        modes = ["lost", "kept"] + ["mixed"] * max(0, nstates - 2 + extra)
        for mode in modes[:nstates + extra]:
            files, dirs = model.crash_state(rng, mode)
            h = hashlib.sha1(repr((sorted((k, hashlib.sha1(v).hexdigest()) for k, v in files.items()),
                                   sorted(dirs), seq)).encode()).hexdigest()
            if h in seen:  # the same files at the same cut (a later cut promises more: tried again)
                continue
            seen.add(h)
            versions = {k: list(v) for k, v in model.versions.items()}
            out.append(dict(cut=cut, seq=seq, t=t, files=files, dirs=dirs, versions=versions, mode=mode))
    return out, model


# ---- checking a state -------------------------------------------------------------------------

def match_targets(patterns, files):
    """The checked files of a state; a temporary file ("temp-...", Redis's
    name for the manifest it is writing) may be anything."""
    import fnmatch
    return sorted(k for k in files if any(fnmatch.fnmatch(k, p) for p in patterns)
                  and not os.path.basename(k).startswith("temp-"))


def manifest_missing(files):
    """Files an AOF manifest of the state names that the state lacks."""
    missing = []
    for rel, content in files.items():
        if not rel.endswith(".manifest") or os.path.basename(rel).startswith("temp-"):
            continue
        base = os.path.dirname(rel)
        for line in content.decode("latin-1").splitlines():
            parts = line.split()
            kind = parts[parts.index("type") + 1] if "type" in parts[:-1] else "?"
            if len(parts) >= 2 and parts[0] == "file" and kind != "h":  # history files may be gone
                if os.path.join(base, parts[1]) not in files:
                    missing.append("%s names %s" % (rel, parts[1]))
    return missing


def write_state(state, d):
    for rel in sorted(state["dirs"]):
        os.makedirs(os.path.join(d, rel), exist_ok=True)
    for rel, content in state["files"].items():
        with open(os.path.join(d, rel), "wb") as f:
            f.write(content)


class Result:
    def __init__(self):
        self.states = self.refused = self.lost = self.corrupt = self.other = 0
        self.messages, self.details = [], []

    def violations(self):
        return self.lost + self.corrupt + self.other


def guaranteed_writes(rec, state):
    out = set()
    for kind, threshold, item in rec.promises:
        if kind == "seq" and state["seq"] >= threshold:
            out.add(item)
        elif kind == "time" and state["t"] >= threshold:
            out.add(item)
    return out


def check_versions(rec, state, targets, res, label):
    """Targets hold a whole version (the initial file or one complete when
    renamed into place / fsynced), and no older one than acknowledged."""
    bad = False
    for rel in match_targets(targets, {**state["files"], **{k: b"" for k in rec.initial}}):
        vs = [rec.initial[rel]] if rel in rec.initial else []
        vs += state["versions"].get(rel, [])
        content = state["files"].get(rel)
        if content is None:
            if rel in rec.initial:
                res.other += 1
                res.details.append("%s: %s missing" % (label, rel))
                bad = True
            continue
        if content not in vs:
            if rel.endswith(".rdb"):
                res.corrupt += 1
            else:
                res.other += 1
            res.details.append("%s: %s is no complete version (%d bytes)" % (label, rel, len(content)))
            bad = True
            continue
        need = [item[1] for kind, t, item in rec.promises
                if kind == "version" and item[0] == rel and state["seq"] >= t and item[1] in vs]
        if need and vs.index(content) < max(vs.index(c) for c in need):
            res.lost += 1
            res.details.append("%s: %s is older than an acknowledged rewrite" % (label, rel))
            bad = True
    for m in manifest_missing(state["files"]):
        res.other += 1
        res.details.append("%s: %s" % (label, m))
        bad = True
    return bad


def check_state(server, rec, wl, state, idx, workdir, res, keep_failures):
    spec = WORKLOADS.get(wl)
    targets, check_kv = (spec[2], spec[3]) if spec else (["target"], False)  # a toy: its one file
    label = "%s state %d (cut %d, seq %d, %s)" % (wl, idx, state["cut"], state["seq"], state["mode"])
    res.states += 1
    bad = check_versions(rec, state, targets, res, label)
    if server is None:
        keep_state(state, keep_failures, wl, idx, bad)
        return bad
    d = os.path.join(workdir, "state")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    write_state(state, os.path.join(d))
    if wl == "config-rewrite":
        conf = os.path.join(d, "redis.conf")
        if not os.path.exists(conf):
            res.other += 1
            res.details.append("%s: redis.conf missing" % label)
            return True
        with open(conf, "a") as f:  # the copy runs in the state's directory
            f.write("\ndir %s\n" % d)
    else:
        conf = os.path.join(workdir, "check.conf")
        lines = [l for l in rec.conf_lines if not l.startswith("dir ")] + ["dir " + d]
        if wl == "acl-save":
            lines = [l for l in lines if not l.startswith("aclfile")] + ["aclfile " + os.path.join(d, "users.acl")]
        server_conf(conf, lines)
    logp = os.path.join(workdir, "check-server.log")
    if os.path.exists(logp):
        os.unlink(logp)
    port = free_port()
    proc, err = start_server(server, conf, port, logp)
    if err:
        with open(logp, "rb") as f:
            log = f.read().decode("utf-8", "replace")
        msg = refusal_message(log, err)
        res.refused += 1
        res.messages.append(msg)
        names = [os.path.basename(k) for k in state["files"]] + [".aof", ".rdb", ".manifest", ".conf", ".acl"]
        if not any(n and n in msg for n in names):
            res.other += 1
            res.details.append("%s: refused without naming a file: %s" % (label, msg))
            bad = True
        keep_state(state, keep_failures, wl, "%d-refused" % idx, True)
        return bad
    try:
        if check_kv:
            bad |= check_dataset(rec, state, port, res, label)
    finally:
        stop_server(proc)
    keep_state(state, keep_failures, wl, idx, bad)
    return bad


def keep_state(state, keep_failures, wl, idx, bad):
    if bad and keep_failures:
        kept = os.path.join(keep_failures, "%s-%s" % (wl, idx))
        shutil.rmtree(kept, ignore_errors=True)
        write_state(state, kept)  # as drawn, not as the server left it


def refusal_message(log, err):
    """The last log line that names a data file, else the last warning."""
    lines = [l.split(" # ", 1)[-1].strip() for l in log.splitlines() if " # " in l]
    named = [l for l in lines if any(x in l for x in (".aof", ".rdb", ".manifest", ".conf", ".acl"))]
    return named[-1] if named else lines[-1] if lines else err


def check_dataset(rec, state, port, res, label):
    conn = Conn(port)
    keys = sorted({w[0] for w in rec.writes})
    for k in keys:
        conn.send("GET", k)
    got = {k: conn.reply() for k in keys}
    conn.close()
    must = guaranteed_writes(rec, state)
    bad = False
    lost = 0
    for k in keys:
        idxs = [i for i, w in enumerate(rec.writes) if w[0] == k]
        req = [i for i in idxs if i in must]
        allowed = {rec.writes[i][1].encode() for i in idxs if not req or i >= max(req)}
        if not req:
            allowed.add(None)
        if got[k] not in allowed:
            if got[k] is None or any(got[k] == rec.writes[i][1].encode() for i in idxs):
                lost += 1
            else:
                res.other += 1
                res.details.append("%s: %s has a value never written" % (label, k))
    if lost:
        res.lost += lost
        res.details.append("%s: %d acknowledged writes lost" % (label, lost))
        bad = True
    return bad


# ---- toys: writers with known faults ---------------------------------------------------------

TOYS = ["good", "no-fsync", "no-dir-fsync", "truncate-in-place"]


def record_toy(toy, shim, workdir):
    rec = Recorder(workdir, shim)
    rec.put_initial("target", b"version 0\n" * 700)
    rec.conf_lines = []
    p = subprocess.Popen([sys.executable, os.path.join(HERE, "toys", "writer.py"), toy, rec.data],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=rec.env())
    for line in p.stdout:
        if line.startswith(b"ACK"):
            rec.acked_version("target")
            p.stdin.write(b"go\n")
            p.stdin.flush()
    p.wait()
    if p.returncode != 0:
        raise RuntimeError("toy %s exited with %d" % (toy, p.returncode))
    return rec


# ---- saved records (regression cases) ---------------------------------------------------------

def b64(b):
    import base64
    return base64.b64encode(b).decode()


def unb64(s_):
    import base64
    return base64.b64decode(s_)


def save_record(rec, name, outdir):
    """The record of a run and what it was promised, as a regression case
    (tests/assets/powercut/): record.log and meta.json."""
    import json
    os.makedirs(outdir, exist_ok=True)
    shutil.copyfile(rec.log, os.path.join(outdir, "record.log"))
    promises = [(k, t, [item[0], b64(item[1])] if k == "version" else item) for k, t, item in rec.promises]
    meta = dict(workload=name, data=rec.data, conf_lines=rec.conf_lines,
                initial={k: b64(v) for k, v in rec.initial.items()}, writes=rec.writes, promises=promises)
    with open(os.path.join(outdir, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)


def load_record(indir):
    import json
    with open(os.path.join(indir, "meta.json")) as f:
        meta = json.load(f)
    rec = Recorder.__new__(Recorder)
    rec.data, rec.log, rec.conf_lines = meta["data"], os.path.join(indir, "record.log"), meta["conf_lines"]
    rec.initial = {k: unb64(v) for k, v in meta["initial"].items()}
    rec.writes = [tuple(w) for w in meta["writes"]]
    rec.promises = [(k, t, (item[0], unb64(item[1])) if k == "version" else item) for k, t, item in meta["promises"]]
    return meta["workload"], rec


# ---- running it all ------------------------------------------------------------------------------

def run_one(name, server, shim, base, cuts, nstates, seed, keep, save=None, saved=None):
    workdir = tempfile.mkdtemp(prefix="pc-%s-" % name, dir=base)
    res = Result()
    try:
        if saved:
            name, rec = load_record(saved)
        elif name in WORKLOADS:
            rec = record_workload(name, server, shim, workdir, seed)
        else:
            rec = record_toy(name, shim, workdir)
        if save:
            save_record(rec, name, save)
        ops = parse_log(rec.log)
        states, _ = generate_states(ops, rec.initial, rec.data, cuts, nstates, seed)
        for i, st in enumerate(states):
            check_state(server if name in WORKLOADS else None, rec, name, st, i, workdir, res, keep)
        res.ops = len(ops)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return res


def print_table(rows):
    print("%-16s %-28s %6s %7s %5s %7s %5s" % ("workload", "server", "states", "refused", "lost", "corrupt",
                                                "other"))
    for wl, srv, r in rows:
        print("%-16s %-28s %6d %7d %5d %7d %5d" % (wl, srv, r.states, r.refused, r.lost, r.corrupt, r.other))


def report(rows, verbose):
    print_table(rows)
    for wl, srv, r in rows:
        for m in sorted(set(r.messages)):
            print("  %s / %s refused: %s (%dx)" % (wl, srv, m, r.messages.count(m)))
        for d in r.details[:8 if not verbose else None]:
            print("  %s / %s: %s" % (wl, srv, d))
        if len(r.details) > 8 and not verbose:
            print("  %s / %s: ... %d more" % (wl, srv, len(r.details) - 8))


def server_label(server):
    try:
        out = subprocess.run([server, "--version"], capture_output=True, text=True).stdout
        return ("ours " if "redis-portable" in out or "portable" in out else "redis ") + out.split()[2]
    except (OSError, IndexError):
        return os.path.basename(server)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("cmd", choices=["run", "toys", "check-record"])
    ap.add_argument("record", nargs="?", help="check-record: a directory saved by run --save-record")
    ap.add_argument("--server", action="append", default=[])
    ap.add_argument("--shim", default=os.environ.get("POWERCUT_SHIM", "build/powercut-shim.so"))
    ap.add_argument("--workloads", default=",".join(WORKLOADS))
    ap.add_argument("--cuts", type=int, default=24, help="cut points per workload")
    ap.add_argument("--states", type=int, default=3, help="states drawn per cut point")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--keep-failures", default=None, help="copy each failing state's directory here")
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--save-record", default=None, help="run: save each workload's record under DIR/<workload>")
    ap.add_argument("--strict", action="store_true", help="a refused start fails too (it is reported either way)")
    ap.add_argument("--expect-violations", action="store_true",
                    help="check-record: pass when the record IS flagged (a saved faulty sequence)")
    args = ap.parse_args()
    shim = os.path.abspath(args.shim)
    if args.cmd != "check-record" and not os.path.exists(shim):
        sys.exit("no shim at %s (make build/powercut-shim.so)" % shim)
    base = tempfile.mkdtemp(prefix="powercut-")
    passed = failed = 0
    rows = []
    t0 = time.monotonic()
    try:
        if args.cmd == "check-record":
            server = os.path.abspath(args.server[0]) if args.server else None
            r = run_one("record", server, shim, base, args.cuts, args.states, args.seed, args.keep_failures,
                        saved=args.record)
            rows.append((os.path.basename(os.path.normpath(args.record)), "saved record", r))
            ok = (r.violations() + (r.refused if args.strict else 0) > 0) == args.expect_violations
            passed, failed = passed + ok, failed + (not ok)
        elif args.cmd == "toys":
            for toy in TOYS:
                r = run_one(toy, None, shim, base, args.cuts, args.states, args.seed, args.keep_failures)
                rows.append((toy, "toy", r))
                flagged = r.violations() > 0
                ok = flagged == (toy != "good")
                print("%s: %s toy %s (%d states, %d violations)" % ("ok" if ok else "FAIL", toy,
                      "flagged" if flagged else "not flagged", r.states, r.violations()))
                passed, failed = passed + ok, failed + (not ok)
        else:
            for server in map(os.path.abspath, args.server):
                label = server_label(server)
                for wl in args.workloads.split(","):
                    if WORKLOADS[wl][4] and not label.startswith("ours"):
                        continue
                    try:
                        save = os.path.join(args.save_record, wl) if args.save_record else None
                        r = run_one(wl, server, shim, base, args.cuts, args.states, args.seed, args.keep_failures,
                                    save=save)
                    except RuntimeError as e:
                        r = Result()
                        r.other = 1
                        r.details.append("workload failed: %s" % e)
                    rows.append((wl, label, r))
                    ok = r.violations() + (r.refused if args.strict else 0) == 0
                    passed, failed = passed + ok, failed + (not ok)
        report(rows, args.verbose)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    print("(%.1fs)" % (time.monotonic() - t0))
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
