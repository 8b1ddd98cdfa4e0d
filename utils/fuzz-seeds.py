#!/usr/bin/env python3
"""fuzz-seeds.py SOCKET [OUTDIR] -- write the fuzz harnesses' seed corpus
(tests/fuzz/corpus/<harness>/) from a running Redis-compatible server.

The seeds are small valid inputs, so the fuzzer starts from every value
type and encoding instead of having to discover the formats: DUMP payloads
of each type and encoding (restore), the listpack/intset/stream node blobs
inside them (blobs), an RDB file saved by the server (rdb), a few RESP
requests (resp), AOF files and manifests (aof), JSON/MessagePack/struct
inputs (lua), and short ring programs (shmring). Run it against Debian's
Redis 7.0.15 (what the seeds in the tree were made with):

    redis-server --port 0 --unixsocket /tmp/s.sock --rdbcompression no \\
        --save '' --dir /tmp &
    utils/fuzz-seeds.py /tmp/s.sock

Each harness's input format is described at the top of its file in
tests/fuzz/; the first byte of most is a selector, written here.
"""
import os
import socket
import struct
import sys


class Client:
    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.s.connect(path)
        self.f = self.s.makefile('rb')

    def call(self, *args):
        out = b'*%d\r\n' % len(args)
        for a in args:
            a = a if isinstance(a, bytes) else str(a).encode()
            out += b'$%d\r\n%s\r\n' % (len(a), a)
        self.s.sendall(out)
        return self.reply()

    def reply(self):
        line = self.f.readline()[:-2]
        t, rest = line[:1], line[1:]
        if t in (b'+', b':'):
            return rest
        if t == b'-':
            raise RuntimeError(rest.decode())
        if t == b'$':
            n = int(rest)
            if n < 0:
                return None
            data = self.f.read(n + 2)
            return data[:-2]
        if t == b'*':
            return [self.reply() for _ in range(int(rest))]
        raise RuntimeError('bad reply %r' % line)


def rdb_string(p):
    """The first RDB string at p: (bytes, next offset); plain lengths only."""
    b = p[0]
    kind = b >> 6
    if kind == 0:
        n, p = b & 0x3F, p[1:]
    elif kind == 1:
        n, p = ((b & 0x3F) << 8) | p[1], p[2:]
    elif b == 0x80:
        n, p = struct.unpack('>I', p[1:5])[0], p[5:]
    else:
        return None
    return p[:n]


def main():
    sock = sys.argv[1]
    out = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), '..', 'tests', 'fuzz', 'corpus')
    c = Client(sock)
    c.call('FLUSHALL')

    def put(harness, name, data):
        d = os.path.join(out, harness)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, name), 'wb') as fp:
            fp.write(data)

    # ---- values of every type and encoding ----
    big = 'v' * 100
    c.call('SET', 'str-raw', 'hello world')
    c.call('SET', 'str-int', '12345')
    c.call('SET', 'str-big', 'x' * 200)
    c.call('RPUSH', 'list-lp', 'a', '1', 'bb', '-7')
    c.call('RPUSH', 'list-ql', *[big] * 140)
    c.call('SADD', 'set-int', '1', '2', '300', '70000', '-5000000000')
    c.call('SADD', 'set-ht', 'a', 'b', 'c', big)
    c.call('HSET', 'hash-lp', 'f1', 'v1', 'f2', '2')
    c.call('HSET', 'hash-ht', 'f1', big, 'f2', 'x')
    c.call('ZADD', 'zset-lp', '1', 'a', '2.5', 'b', '-3', 'c')
    c.call('ZADD', 'zset-sl', '1', big, '2', 'y')
    c.call('PFADD', 'hll', 'a', 'b', 'c')
    c.call('XADD', 'stream', '1-1', 'a', '1', 'b', '2')
    c.call('XADD', 'stream', '1-2', 'a', '3', 'b', '4')
    c.call('XADD', 'stream', '2-0', 'c', '5')
    c.call('XDEL', 'stream', '1-2')
    c.call('XADD', 'stream-cg', '5-1', 'f', 'v')
    c.call('XGROUP', 'CREATE', 'stream-cg', 'g', '0')
    c.call('XREADGROUP', 'GROUP', 'g', 'alice', 'COUNT', '1', 'STREAMS', 'stream-cg', '>')
    keys = [k.decode() for k in c.call('KEYS', '*')]
    for k in sorted(keys):
        payload = c.call('DUMP', k)
        body, version = payload[:-10], payload[-10]
        put('restore', 'dump-' + k, bytes([version]) + body)
        kind = body[0]
        if kind in (16, 17, 20):  # hash / zset / set as one listpack
            put('blobs', 'listpack-' + k, b'\x00' + rdb_string(body[1:]))
        elif kind == 18:  # quicklist 2: node count, container kind, then each node
            put('blobs', 'listpack-' + k, b'\x00' + rdb_string(body[3:]))
        elif kind == 11:  # intset
            put('blobs', 'intset-' + k, b'\x01' + rdb_string(body[1:]))
        elif kind in (15, 19, 21):  # stream: node count, then master ID key (16 bytes) and node
            key = rdb_string(body[2:])
            node = rdb_string(body[2 + 1 + len(key):])
            ms, seq = struct.unpack('>QQ', key)
            put('blobs', 'stream-node-' + k, b'\x04' + struct.pack('<QQ', ms, seq) + node)
    # Redis 7 writes neither ziplists nor zipmaps: two made by hand (ziplist
    # "ab", 5; zipmap a=b), the formats of src/lib/ziplist.h and zipmap.h.
    zl_entries = b'\x00\x02ab' + b'\x04\xfe\x05'
    zl = struct.pack('<IIH', 10 + len(zl_entries) + 1, 14, 2) + zl_entries + b'\xff'
    put('blobs', 'ziplist', b'\x02' + zl)
    put('blobs', 'zipmap', b'\x03' + b'\x01\x01a\x01\x00b\xff')

    # ---- a whole RDB file ----
    c.call('FUNCTION', 'LOAD', "#!lua name=fuzzlib\nredis.register_function('f', function() return 1 end)")
    c.call('SELECT', '3')
    c.call('SET', 'k', 'v')
    c.call('PEXPIRE', 'k', '100000000')
    c.call('SAVE')
    d = c.call('CONFIG', 'GET', 'dir')[1].decode()
    with open(os.path.join(d, 'dump.rdb'), 'rb') as fp:
        put('rdb', 'all-types.rdb', fp.read())

    # ---- requests ----
    put('resp', 'multibulk-set', b'\x03*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\nhello\r\n')
    put('resp', 'inline', b'\x00SET k "a\\x00b c" \'q\'\r\nPING\n')
    put('resp', 'pipeline', b'\x07*1\r\n$4\r\nPING\r\n*2\r\n$4\r\nECHO\r\n$0\r\n\r\n*0\r\n*-1\r\nGET k\r\n')
    put('resp', 'partial', b'\x0f*2\r\n$3\r\nGET\r\n$10\r\nab')
    put('resp', 'errors', b'\x01*1\r\n$x\r\n')
    put('resp', 'unauthenticated', b'\x13*2\r\n$4\r\nAUTH\r\n$4\r\nfuzz\r\n*20000\r\n$1\r\nx\r\n')
    put('resp', 'unauthenticated-bulk', b'\x11*1\r\n$20000\r\nabc')

    # ---- AOF files (byte 0 even) and manifests (odd) ----
    aof = b'*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n' \
          b'*1\r\n$5\r\nMULTI\r\n*3\r\n$5\r\nRPUSH\r\n$1\r\nl\r\n$1\r\na\r\n*1\r\n$4\r\nEXEC\r\n'
    put('aof', 'commands', b'\x00' + aof)
    put('aof', 'annotated', b'\x00#TS:1700000000\r\n' + aof)
    put('aof', 'truncated', b'\x00' + aof[:-5])
    with open(os.path.join(d, 'dump.rdb'), 'rb') as fp:
        put('aof', 'rdb-preamble', b'\x00' + fp.read() + aof)
    put('aof', 'manifest', b'\x01file appendonly.aof.1.base.rdb seq 1 type b\n'
                           b'file appendonly.aof.1.incr.aof seq 1 type i\n'
                           b'file appendonly.aof.2.incr.aof seq 2 type i\n')
    put('aof', 'manifest-quoted', b'\x01file "app end\\n.aof" seq 3 type h\nfile a.aof seq 5 type i\n')

    # ---- Lua decoders: byte 0 = 0 json, 1 msgpack, 2 struct ----
    put('lua', 'json', b'\x00{"a":[1,2.5,-3e10,true,false,null],"b":{"c":"\\u00e9\\n"}}')
    put('lua', 'json-deep', b'\x00' + b'[' * 50 + b']' * 50)
    packed = b'\x93\x01\xa3abc\x82\xa1k\xcb\x40\x09\x21\xf9\xf0\x1b\x86\x6e\xc2\xc0'
    put('lua', 'msgpack', b'\x01' + packed + b'\xdc\x00\x02\xd0\xff\xcd\x01\x00')
    put('lua', 'struct', b'\x02>i4Bc0s\x00\x00\x00\x00\x05\x03abcxyz\x00')
    put('lua', 'struct-le', b'\x02<hHlLd!8\x00' + bytes(range(32)))

    # ---- shmring programs (shmring.c: op byte mod 10, then arguments) ----
    put('shmring', 'honest', bytes([0, 0, 100, 2, 0, 50, 2, 0, 60, 3, 0x10, 0, 1, 0x08, 0, 8, 7, 0, 0x10, 0, 2, 0x10, 0]))
    put('shmring', 'liar', bytes([0, 0, 10, 4, 0xff, 0xff, 0, 0, 2, 0, 10, 5, 0, 0, 0x20, 0, 3, 0, 5, 6, 1, 2, 0, 0, 0, 1, 7, 9, 2, 0, 1]))
    # ---- config files: the shipped redis.conf's directives, and the hard parts ----
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')
    with open(os.path.join(root, 'redis.conf'), 'rb') as fp:
        lines = [l for l in fp.read().split(b'\n') if l.strip() and not l.lstrip().startswith(b'#')]
    put('config', 'redis.conf-directives', b'\n'.join(lines) + b'\n')
    put('config', 'hard-parts',
        b'save 900 1 300 10\nsave ""\nmaxmemory 1gb\nmaxmemory-policy allkeys-lru\n'
        b'client-output-buffer-limit normal 0 0 0 replica 256mb 64mb 60 pubsub 32mb 8mb 60\n'
        b'notify-keyspace-events "KEA"\noom-score-adj-values 0 200 800\nbind 127.0.0.1 -::1\n'
        b'requirepass "p\\x00ss"\nhz 100\nport 0\nshutdown-on-sigterm nosave force\n'
        b'user alice on >pw ~k* &ch* +@read -debug (~x* +get)\nproto-max-bulk-len 512mb\n'
        b'replicaof 127.0.0.1 6380\nmaxmemory-clients 10%\nlist-max-listpack-size -2\n'
        b"unixsocketperm 700\nappendfsync everysec\ncluster-enabled no\nio-threads 4\n")
    c.call('FLUSHALL')
    c.call('FUNCTION', 'FLUSH')


if __name__ == '__main__':
    main()
