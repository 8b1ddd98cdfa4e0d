#!/usr/bin/env bash
# compare-command-info.sh -- COMMAND INFO of every command we implement,
# compared field by field with the reference server (Redis 7.0.15).
#
#   utils/compare-command-info.sh [--server BINARY] [--reference BINARY] [--verbose]
#   defaults: --server src/redis-server, --reference /usr/bin/redis-server
#
# Starts both servers on free ports on 127.0.0.1 (stopped by PID on exit),
# takes the names of our COMMAND LIST that have no '|' (subcommands are
# compared inside their container), and asks both for COMMAND INFO name over
# RESP3, so a set that should be a map, or a map that should be a set, is a
# difference too. Compared exactly: name, arity, flags (in order), key
# positions, ACL categories (in order), tips, key specs (in order, each a
# map); subcommands are compared as a set keyed by name, because Redis lists
# them in hash order. Prints each difference as a path and the two values,
# and ends with "N identical, N different" (commands). Deliberate
# differences are listed in KNOWN_INFO (printed and counted, marked
# "known"). Exit status 1 when anything else differs, 2 when
# a server is missing or does not start.
#
# Before that, COMMAND GETKEYS and GETKEYSANDFLAGS are compared (replies and
# errors) on a list of probes whose keys depend on the arguments, and on a
# line of minimal arity (and two longer ones for a variadic command) for
# every command and subcommand with keys; their own summary line comes
# first.
#
# The comparison is a small Python 3 program (a RESP3 parser and a recursive
# diff) fed on stdin; the shell part owns the processes.
set -u
usage() { echo "usage: $0 [--server BINARY] [--reference BINARY] [--verbose]" >&2; exit 2; }

server=
reference=/usr/bin/redis-server
verbose=0
while [ $# -gt 0 ]; do
    case $1 in
    --server) [ $# -ge 2 ] || usage; server=$(realpath -m "$2"); shift 2 ;;
    --reference) [ $# -ge 2 ] || usage; reference=$(realpath -m "$2"); shift 2 ;;
    --verbose) verbose=1; shift ;;
    *) usage ;;
    esac
done
cd "$(dirname "$0")/.." || exit 2
server=${server:-$PWD/src/redis-server}
[ -x "$server" ] || { echo "no server binary $server (build it first)"; exit 2; }
[ -x "$reference" ] || { echo "no reference server $reference (apt-get install redis-server); nothing compared"; exit 2; }
command -v python3 >/dev/null || { echo "python3 is needed"; exit 2; }

. utils/bench-lib.sh
bench_init
ours_port=$(free_port)
ours_pid=$(start_server "$server" "$ours_port") || exit 2
ref_port=$(free_port)
ref_pid=$(start_server "$reference" "$ref_port") || exit 2

python3 - "$ours_port" "$ref_port" "$verbose" <<'EOF'
import socket, sys

class Conn:
    """A blocking RESP3 client: enough of the protocol for COMMAND replies."""

    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.buf = b""
        self.call("HELLO", "3")

    def call(self, *args):
        out = b"*%d\r\n" % len(args)
        for a in args:
            a = a.encode()
            out += b"$%d\r\n%s\r\n" % (len(a), a)
        self.sock.sendall(out)
        return self.read()

    def line(self):
        while b"\r\n" not in self.buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError("connection closed")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line.decode()

    def exact(self, n):
        while len(self.buf) < n + 2:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError("connection closed")
            self.buf += chunk
        data, self.buf = self.buf[:n], self.buf[n + 2:]
        return data.decode()

    def read(self):
        line = self.line()
        kind, rest = line[0], line[1:]
        if kind == "+":
            return ("status", rest)
        if kind == "-":
            return ("error", rest)
        if kind == ":":
            return int(rest)
        if kind == "_":
            return None
        if kind == "$":
            return None if rest == "-1" else self.exact(int(rest))
        if kind in "*~>":
            items = [self.read() for _ in range(int(rest))]
            return ("set", items) if kind == "~" else items
        if kind == "%":
            n = int(rest)
            return ("map", [(self.read(), self.read()) for _ in range(n)])
        raise ValueError("unexpected reply type %r" % line)

def show(v):
    """A reply as compact text: [a b] arrays, {k: v} maps, ~[a b] sets."""
    if isinstance(v, list):
        return "[" + " ".join(show(x) for x in v) + "]"
    if isinstance(v, tuple) and v[0] == "map":
        return "{" + ", ".join(show(k) + ": " + show(x) for k, x in v[1]) + "}"
    if isinstance(v, tuple) and v[0] == "set":
        return "~[" + " ".join(show(x) for x in v[1]) + "]"
    if isinstance(v, tuple):
        return v[1]
    if v is None:
        return "(nil)"
    return str(v)

FIELDS = ["name", "arity", "flags", "first", "last", "step", "categories", "tips", "key_specs"]

def diff(path, ours, ref, out):
    """Appends (path, ours, ref) for every place the two replies differ."""
    if type(ours) != type(ref) or (isinstance(ours, tuple) and ours[0] != ref[0]):
        out.append((path, ours, ref))
    elif isinstance(ours, list):
        if len(ours) != len(ref):
            out.append((path, ours, ref))
        else:
            for j, (a, b) in enumerate(zip(ours, ref)):
                diff("%s[%d]" % (path, j), a, b, out)
    elif isinstance(ours, tuple) and ours[0] == "map":
        if [k for k, _ in ours[1]] != [k for k, _ in ref[1]]:
            out.append((path, ours, ref))
        else:
            for (k, a), (_, b) in zip(ours[1], ref[1]):
                diff("%s.%s" % (path, show(k)), a, b, out)
    elif ours != ref:
        out.append((path, ours, ref))

def kind(v):
    return "set" if isinstance(v, tuple) and v[0] == "set" else type(v).__name__

def items(v):
    return v[1] if isinstance(v, tuple) and v[0] == "set" else v if isinstance(v, list) else []

def diff_entry(path, ours, ref, out):
    """One COMMAND INFO entry: nine fields in place, then the subcommands by name."""
    if not isinstance(ours, list) or not isinstance(ref, list) or len(ours) != 10 or len(ref) != 10:
        out.append((path, ours, ref))
        return
    for j, field in enumerate(FIELDS):
        diff("%s.%s" % (path, field), ours[j], ref[j], out)
    diff("%s.subcommands (reply type)" % path, kind(ours[9]), kind(ref[9]), out)
    subs_ours = {s[0]: s for s in items(ours[9])}
    subs_ref = {s[0]: s for s in items(ref[9])}
    for name in sorted(set(subs_ours) | set(subs_ref)):
        if name not in subs_ref:
            out.append(("%s (subcommand)" % name, "present", "missing in the reference"))
        elif name not in subs_ours:
            continue  # a subcommand we do not implement is not a difference
        else:
            diff_entry(name, subs_ours[name], subs_ref[name], out)

# Command lines whose keys depend on the arguments, for GETKEYS and
# GETKEYSANDFLAGS (lines of a command we lack are skipped).
PROBES = """
set k v|set k v get|set k v NX GeT|set k get|bitfield k get u8 0|bitfield k set u8 0 1
bitfield k overflow sat|bitfield k get u8|bitfield k foo|bitfield_ro k get u8 0
lmove a b left right|rename a b|copy a b replace|mset a 1 b 2|mset a 1 b|del a b|pfmerge d a b|pfmerge d
zunionstore d 2 a b weights 1 2|zunionstore d 0 a|zunionstore d 3 a b|zunionstore d 2x a b|zunionstore d -1 a
zinterstore d 1 a|zdiffstore d 1x a|zunion 2 a b|zunion 01 a|zunion +1 a|zinter 3 a b|zdiff 1 a
zintercard 2 a b limit 1|sintercard 2 a b|sintercard 0 a|sintercard x a
lmpop 2 a b left|lmpop 3 a b left|lmpop 4 a b left|lmpop 4294967297 a left|lmpop 1a a left|lmpop 1 a
blmpop 0 2 a b left|blmpop 0 1x a left|zmpop 1 a min|bzmpop 0 1 a min count 2
sort k|sort k store d|sort k STORE d by x get y|sort k store|sort k limit 0 1 store d|sort k by store d
sort k store a store b|sort k store store d|sort k store limit 0 1|sort k get store d|sort_ro k store d
blpop a b 0|bzpopmin a b 0|spublish ch m|ssubscribe a b|watch a b|object encoding k|object help
memory usage k samples 5|memory stats|ping x|get a b|nosuch a|object nosuch k|client list|lcs a b
"""

# Deliberate differences, path -> reason. They are still counted as
# different, but the exit status is 0 when they are all there is. Only our
# own extension: the 7.2 extras (ZRANK WITHSCORE, CLIENT NO-TOUCH/SETINFO)
# are gone, since redis_version says 7.0.15.
KNOWN_INFO = {
    "client|shm (subcommand)": "ours: the shared-memory transport (README)",
}

def getkeys_lines(names, infos):
    """The probes, then for every command with keys a line of its minimal arity and one longer."""
    lines = [l.split() for row in PROBES.strip().split("\n") for l in row.split("|")]
    lines = [l for l in lines if l[0] in names or l[0] == "nosuch"]
    for info in infos:
        for e in [info] + items(info[9]):
            if not items(e[8]):
                continue
            words = e[0].split("|")
            need = abs(e[1]) - len(words)
            for extra in ([0] if e[1] > 0 else [0, 1, 2]):
                lines.append(words + ["a%d" % j for j in range(need + extra)])
    return lines

def compare_getkeys(ours, ref, lines):
    same = different = 0
    for line in lines:
        for sub in ("GETKEYS", "GETKEYSANDFLAGS"):
            a, b = ours.call("COMMAND", sub, *line), ref.call("COMMAND", sub, *line)
            if a == b:
                same += 1
                continue
            different += 1
            print("--- COMMAND %s %s\n    ours:      %s\n    reference: %s"
                  % (sub, " ".join(line), show(a), show(b)))
    print("GETKEYS/GETKEYSANDFLAGS: %d identical, %d different" % (same, different))
    return different

ours, ref = Conn(int(sys.argv[1])), Conn(int(sys.argv[2]))
verbose = sys.argv[3] == "1"
names = [n for n in ours.call("COMMAND", "LIST") if "|" not in n]
getkeys_unexplained = compare_getkeys(ours, ref, getkeys_lines(names, [ours.call("COMMAND", "INFO", n)[0] for n in names]))
same = different = unexplained = 0
for name in names:
    a = ours.call("COMMAND", "INFO", name)[0]
    b = ref.call("COMMAND", "INFO", name)[0]
    out = []
    if b is None:
        out.append((name, "present", "missing in the reference"))
    else:
        diff_entry(name, a, b, out)
    if out:
        different += 1
        unexplained += any(path not in KNOWN_INFO for path, _, _ in out)
        print("--- %s" % name)
        for path, x, y in out:
            note = " (known: %s)" % KNOWN_INFO[path] if path in KNOWN_INFO else ""
            print("  %s%s\n    ours:      %s\n    reference: %s" % (path, note, show(x), show(y)))
    else:
        same += 1
        if verbose:
            print("ok  %s" % name)
if different > unexplained:
    print("%d of the different commands differ only where known (see above)" % (different - unexplained))
print("%d identical, %d different" % (same, different))
sys.exit(1 if unexplained or getkeys_unexplained else 0)
EOF
status=$?
stop_server "$ours_pid"
stop_server "$ref_pid"
exit $status
