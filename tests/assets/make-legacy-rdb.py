#!/usr/bin/env python3
"""make-legacy-rdb.py -- writes RDB files in the encodings of Redis < 7.

Usage: python3 tests/assets/make-legacy-rdb.py [OUTDIR]   (default: the
directory of this script). Writes:

  legacy-v9-all-types.rdb     RDB version 9 (what Redis 5.0/6.x write) with
                              every ziplist-era type: zipmap hash (9),
                              ziplist list (10), intset (11), ziplist zset
                              (12), ziplist hash (13), quicklist v1 (14),
                              plus plain and integer strings, expires in ms
                              and in s, a second database, LZF strings.
  legacy-corrupt-*.rdb        one bad blob each (see CORRUPT below), in an
                              otherwise valid file with a valid checksum.
  empty-collections.rdb       empty collections (an old Redis bug could save
                              them): an empty set, ziplist list,
                              hash and zset and quicklist, between
                              two good strings; loaders skip them.

Everything is written byte by byte from the documented formats, without any
Redis code: the RDB length and string encodings, LZF (a small greedy
compressor with back references), CRC-64/Jones, ziplist, zipmap, intset.
The output is deterministic (no clock, no randomness), so running it again
reproduces the committed assets exactly.

Nothing here proves itself right: tests/integration/rdb-legacy.tcl loads the
files in Debian's Redis 7.0.15 and compares its DEBUG DIGEST and contents
with what our server loads.
"""
import os
import struct
import sys

# ---- CRC-64/Jones (reflected, poly 0xad93d23594c935a9, init 0, no xorout) ----

_CRC_POLY_REFLECTED = 0x95AC9329AC4BC9B5
_CRC_TABLE = []
for _i in range(256):
    _c = _i
    for _ in range(8):
        _c = (_c >> 1) ^ _CRC_POLY_REFLECTED if _c & 1 else _c >> 1
    _CRC_TABLE.append(_c)


def crc64(data, crc=0):
    for b in data:
        crc = _CRC_TABLE[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc


assert crc64(b"123456789") == 0xE9C6D914C4B8D9CA  # the published check value

# ---- LZF ---------------------------------------------------------------------
# A control byte below 32 starts a run of (ctrl + 1) literal bytes. Otherwise
# its top 3 bits are the match length - 2 (7: add the next byte) and its low
# 5 bits the high bits of (distance - 1), whose low byte follows.


def lzf_compress(data):
    out = bytearray()
    lit = bytearray()
    last_seen = {}
    i, n = 0, len(data)

    def flush_literals():
        for k in range(0, len(lit), 32):
            chunk = lit[k:k + 32]
            out.append(len(chunk) - 1)
            out.extend(chunk)
        lit.clear()

    while i < n:
        key = data[i:i + 3]
        ref = last_seen.get(key) if len(key) == 3 else None
        if len(key) == 3:
            last_seen[key] = i
        if ref is not None and i - ref <= 8192:
            length = 3
            while i + length < n and length < 264 and data[ref + length] == data[i + length]:
                length += 1
            flush_literals()
            off = i - ref - 1
            code = length - 2
            if code < 7:
                out.append((code << 5) | (off >> 8))
            else:
                out.append((7 << 5) | (off >> 8))
                out.append(code - 7)
            out.append(off & 0xFF)
            for k in range(i + 1, min(i + length, n - 2)):
                last_seen[data[k:k + 3]] = k
            i += length
        else:
            lit.append(data[i])
            i += 1
    flush_literals()
    return bytes(out)


def lzf_decompress(data, size):
    """Only to check the compressor's output before writing it."""
    out = bytearray()
    i = 0
    while i < len(data):
        ctrl = data[i]
        i += 1
        if ctrl < 32:
            out.extend(data[i:i + ctrl + 1])
            i += ctrl + 1
            continue
        length = ctrl >> 5
        if length == 7:
            length += data[i]
            i += 1
        start = len(out) - ((ctrl & 0x1F) << 8) - data[i] - 1
        i += 1
        for k in range(length + 2):
            out.append(out[start + k])
    assert len(out) == size
    return bytes(out)

# ---- RDB encodings -------------------------------------------------------------


def rdb_len(n):
    if n < 1 << 6:
        return bytes([n])
    if n < 1 << 14:
        return bytes([0x40 | (n >> 8), n & 0xFF])
    if n <= 0xFFFFFFFF:
        return b"\x80" + struct.pack(">I", n)
    return b"\x81" + struct.pack(">Q", n)


def rdb_raw(s):
    return rdb_len(len(s)) + s


def rdb_lzf(s):
    c = lzf_compress(s)
    assert lzf_decompress(c, len(s)) == s
    return b"\xC3" + rdb_len(len(c)) + rdb_len(len(s)) + c


def rdb_int_string(v):
    if -128 <= v <= 127:
        return b"\xC0" + struct.pack("<b", v)
    if -32768 <= v <= 32767:
        return b"\xC1" + struct.pack("<h", v)
    return b"\xC2" + struct.pack("<i", v)

# ---- ziplist -------------------------------------------------------------------
# An entry is an int (stored in the smallest integer encoding), bytes (a
# string encoding by length), or a tuple (value, options) where options may
# hold "prevlen5" (write the 5-byte prevlen form even for a small value).


def zl_encoding(v):
    if isinstance(v, int):
        if 0 <= v <= 12:
            return bytes([0xF1 + v])
        if -128 <= v <= 127:
            return b"\xFE" + struct.pack("<b", v)
        if -32768 <= v <= 32767:
            return b"\xC0" + struct.pack("<h", v)
        if -(1 << 23) <= v < 1 << 23:
            return b"\xF0" + struct.pack("<i", v)[:3]
        if -(1 << 31) <= v < 1 << 31:
            return b"\xD0" + struct.pack("<i", v)
        return b"\xE0" + struct.pack("<q", v)
    n = len(v)
    if n < 1 << 6:
        return bytes([n]) + v
    if n < 1 << 14:
        return bytes([0x40 | (n >> 8), n & 0xFF]) + v  # 14 bits, big-endian
    return b"\x80" + struct.pack(">I", n) + v         # 32 bits, big-endian


def zl_prevlen(n, force5=False):
    if n < 254 and not force5:
        return bytes([n])
    return b"\xFE" + struct.pack("<I", n)


def ziplist(entries, zllen=None):
    body = bytearray()
    prev = 0
    tail = 10
    for e in entries:
        value, opts = e if isinstance(e, tuple) else (e, ())
        entry = zl_prevlen(prev, "prevlen5" in opts) + zl_encoding(value)
        tail = 10 + len(body)
        body += entry
        prev = len(entry)
    count = len(entries) if zllen is None else zllen
    zlbytes = 10 + len(body) + 1
    return struct.pack("<IIH", zlbytes, tail, min(count, 65535)) + bytes(body) + b"\xFF"

# ---- zipmap --------------------------------------------------------------------


def zm_len(n):
    return bytes([n]) if n < 254 else b"\xFE" + struct.pack("<I", n)


def zipmap(pairs, zmlen=None, free=None):
    """pairs: [(field, value)]; free: {index: n} slack bytes after a value."""
    free = free or {}
    out = bytearray([min(len(pairs), 254) if zmlen is None else zmlen])
    for j, (f, v) in enumerate(pairs):
        slack = free.get(j, 0)
        out += zm_len(len(f)) + f + zm_len(len(v)) + bytes([slack]) + v + b"\x00" * slack
    return bytes(out + b"\xFF")

# ---- intset --------------------------------------------------------------------


def intset(values):
    values = sorted(set(values))
    width = 2
    for v in values:
        if not -32768 <= v <= 32767:
            width = max(width, 4)
        if not -(1 << 31) <= v < 1 << 31:
            width = 8
    fmt = {2: "<h", 4: "<i", 8: "<q"}[width]
    return struct.pack("<II", width, len(values)) + b"".join(struct.pack(fmt, v) for v in values)

# ---- the file ------------------------------------------------------------------

TYPE_STRING, TYPE_SET_INTSET = 0, 11
TYPE_HASH_ZIPMAP, TYPE_LIST_ZIPLIST, TYPE_ZSET_ZIPLIST, TYPE_HASH_ZIPLIST, TYPE_LIST_QUICKLIST = 9, 10, 12, 13, 14
OP_AUX, OP_RESIZEDB, OP_EXPIRE_MS, OP_EXPIRE_S, OP_SELECTDB, OP_EOF = 250, 251, 252, 253, 254, 255

EXPIRE_MS = 4102444800000  # 2100-01-01, far enough to survive any test run
EXPIRE_S = 2147483000      # 2038-01-19: Redis reads the seconds opcode as a SIGNED int32
EXPIRE_S_NEGATIVE = 4000000000  # so this one is -294967296 s, long past: the key is dropped


def key(rdbtype, name, value, expire_ms=None, expire_s=None):
    """value: the already encoded value bytes."""
    out = bytearray()
    if expire_ms is not None:
        out += bytes([OP_EXPIRE_MS]) + struct.pack("<Q", expire_ms)
    if expire_s is not None:
        out += bytes([OP_EXPIRE_S]) + struct.pack("<I", expire_s)
    return bytes(out + bytes([rdbtype]) + rdb_raw(name) + value)


def rdb_file(dbs, version=9):
    """dbs: {db number: [key records]}"""
    out = bytearray(b"REDIS%04d" % version)
    for k, v in ((b"redis-ver", b"0.0.0"), (b"generator", b"make-legacy-rdb.py"), (b"redis-bits", b"64")):
        out += bytes([OP_AUX]) + rdb_raw(k) + rdb_raw(v)
    for db in sorted(dbs):
        keys = dbs[db]
        out += bytes([OP_SELECTDB]) + rdb_len(db)
        out += bytes([OP_RESIZEDB]) + rdb_len(len(keys)) + rdb_len(0)
        for k in keys:
            out += k
    out += bytes([OP_EOF])
    return bytes(out) + struct.pack("<Q", crc64(out))


def pattern(n, seed):
    """n bytes of text that is easy to recognise and to compress."""
    unit = b"%s-%d|" % (seed, n)
    return (unit * (n // len(unit) + 1))[:n]

# ---- the main fixture ------------------------------------------------------------

EVERY_INT = [0, 1, 12, 13, -1, 127, -128, 128, -129, 32767, -32768, 32768, -32769,
             (1 << 23) - 1, -(1 << 23), 1 << 23, -(1 << 23) - 1,
             (1 << 31) - 1, -(1 << 31), 1 << 31, -(1 << 31) - 1,
             (1 << 63) - 1, -(1 << 63)] + list(range(2, 12))

EVERY_STRING_LEN = [0, 1, 63, 64, 253, 254, 16383, 16384]


def every_encoding_list():
    entries = list(EVERY_INT)
    entries += [pattern(n, b"s") for n in EVERY_STRING_LEN]  # 5-byte prevlens follow the long ones
    entries += [b"after-big", (b"prevlen5-small", ("prevlen5",)), b"12", b"-0", b"007", b""]
    return entries


def zset_pairs():
    pairs = [(b"int-score", 7), (b"neg", -5), (b"zero", 0), (b"half", b"1.5"), (b"quarter", b"-0.25"),
             (b"pinf", b"inf"), (b"ninf", b"-inf"), (b"huge", b"1e+100"), (b"tiny", b"1.0000000000000002"),
             (42, b"3.5"), (b"big-int-score", 1 << 40), (b"", 2)]
    flat = []
    for m, s in sorted(pairs, key=lambda p: float(p[1]) if isinstance(p[1], bytes) else p[1]):
        flat += [m, s]
    return flat


def main_fixture():
    quick_nodes = [
        ziplist([b"q1", b"q2", 3, -300]),
        None,  # LZF below
        ziplist([]),  # an empty node: skipped
        ziplist([pattern(300, b"n4"), 1 << 33, b"tail"]),
    ]
    lzf_node = ziplist([pattern(200, b"n2"), b"n2-b", 100000, pattern(80, b"n2")])
    quick = rdb_len(len(quick_nodes))
    for node in quick_nodes:
        quick += rdb_lzf(lzf_node) if node is None else rdb_raw(node)

    big_list = ziplist([(j % 300) - 150 for j in range(70000)])  # zllen saturates at 65535
    big_hash = ziplist([x for j in range(200) for x in (b"field:%d" % j, j * 7)])
    big_zset = ziplist([x for j in range(150) for x in (b"m%03d" % j, j)])
    small_hash = ziplist([b"name", b"legacy", b"count", 42, 7, b"seven", b"neg", -70000,
                          b"empty", b"", b"big", 1 << 40])

    db0 = [
        key(TYPE_STRING, b"string:plain", rdb_raw(b"hello from Redis 5"), expire_ms=EXPIRE_MS),
        key(TYPE_STRING, b"string:int", rdb_int_string(-123456)),
        key(TYPE_STRING, b"string:lzf", rdb_lzf(pattern(500, b"lzf"))),
        key(TYPE_SET_INTSET, b"intset:16", rdb_raw(intset([5, -3, 1000, 32767, -32768]))),
        key(TYPE_SET_INTSET, b"intset:64", rdb_raw(intset([1, 1 << 40, -(1 << 62)]))),
        key(TYPE_HASH_ZIPMAP, b"zipmap:small",
            rdb_raw(zipmap([(b"a", b"1"), (b"bb", b""), (b"ccc", b"value"), (b"", b"empty-field")],
                           free={1: 3, 2: 1}))),
        key(TYPE_HASH_ZIPMAP, b"zipmap:big",  # zmlen 254 = "count them"; a 5-byte length
            rdb_raw(zipmap([(b"x", pattern(300, b"zm")), (b"y", b"2"), (b"z", b"3")], zmlen=254))),
        key(TYPE_LIST_ZIPLIST, b"ziplist:list", rdb_lzf(ziplist(every_encoding_list()))),
        key(TYPE_LIST_ZIPLIST, b"ziplist:biglist", rdb_lzf(big_list)),
        key(TYPE_LIST_ZIPLIST, b"ziplist:small-list", rdb_raw(ziplist([b"a", 1, b"b", 2])), expire_s=EXPIRE_S),
        key(TYPE_ZSET_ZIPLIST, b"ziplist:zset", rdb_raw(ziplist(zset_pairs()))),
        key(TYPE_ZSET_ZIPLIST, b"ziplist:bigzset", rdb_raw(big_zset)),
        key(TYPE_HASH_ZIPLIST, b"ziplist:hash", rdb_raw(small_hash), expire_ms=EXPIRE_MS),
        key(TYPE_HASH_ZIPLIST, b"ziplist:bighash", rdb_lzf(big_hash)),
        key(TYPE_HASH_ZIPLIST, b"ziplist:hash-bigvalue", rdb_lzf(ziplist([b"k", pattern(16384, b"v"), b"k2", 1]))),
        key(TYPE_LIST_QUICKLIST, b"quicklist:v1", quick),
        key(TYPE_LIST_QUICKLIST, b"quicklist:v1-ttl", rdb_len(1) + rdb_raw(ziplist([b"x", b"y"])), expire_s=EXPIRE_S),
        key(TYPE_STRING, b"expired:s-signed", rdb_raw(b"gone"), expire_s=EXPIRE_S_NEGATIVE),
    ]
    db3 = [key(TYPE_HASH_ZIPLIST, b"db3:hash", rdb_raw(ziplist([b"f", b"v"])), expire_ms=EXPIRE_MS)]
    return rdb_file({0: db0, 3: db3})

# ---- corrupt variants --------------------------------------------------------------


def patched(blob, offset, data):
    return blob[:offset] + data + blob[offset + len(data):]


def truncated_ziplist():
    zl = ziplist([b"alpha", b"beta", pattern(100, b"t")])
    cut = len(zl) - 40  # inside the last entry's string; zlbytes and end byte made consistent
    zl = zl[:cut] + b"\xFF"
    return patched(zl, 0, struct.pack("<I", len(zl)))


def bad_prevlen():
    zl = ziplist([b"alpha", b"beta", b"gamma"])
    return patched(zl, 10 + 7, b"\x08")  # the second entry's prevlen: 7 -> 8


def bad_zllen():
    zl = ziplist([b"f", b"v", b"g", b"w"])
    return patched(zl, 8, struct.pack("<H", 5))  # 4 entries, the header says 5


def bad_encoding():
    zl = ziplist([b"alpha", 1000, b"gamma"])
    return patched(zl, 10 + 7 + 1, b"\xC1")  # int16 0xC0 -> the unknown 0xC1


def bad_zltail():
    zl = ziplist([b"alpha", b"beta"])
    return patched(zl, 4, struct.pack("<I", 10))


def bad_zipmap():
    zm = zipmap([(b"a", b"1"), (b"b", b"2")])
    return patched(zm, 8, b"\x40")  # the second value's length runs past the end


CORRUPT = {
    # name: (rdb type, the bad blob)
    "truncated": (TYPE_LIST_ZIPLIST, truncated_ziplist()),
    "prevlen": (TYPE_LIST_ZIPLIST, bad_prevlen()),
    "zllen": (TYPE_HASH_ZIPLIST, bad_zllen()),
    "encoding": (TYPE_LIST_ZIPLIST, bad_encoding()),
    "zltail": (TYPE_LIST_QUICKLIST, None),
    "dup-field": (TYPE_HASH_ZIPLIST, ziplist([b"f", b"1", b"g", b"2", b"f", b"3"])),
    "dup-member": (TYPE_ZSET_ZIPLIST, ziplist([b"m", 1, b"m", 2])),
    "dup-zipmap": (TYPE_HASH_ZIPMAP, zipmap([(b"a", b"1"), (b"a", b"2")])),
    "zipmap": (TYPE_HASH_ZIPMAP, bad_zipmap()),
    "odd-hash": (TYPE_HASH_ZIPLIST, ziplist([b"f", b"1", b"g"])),
}


def corrupt_file(name):
    rdbtype, blob = CORRUPT[name]
    if name == "zltail":  # quicklist v1: a good node, then one whose zltail is wrong
        value = rdb_len(2) + rdb_raw(ziplist([b"ok"])) + rdb_raw(bad_zltail())
    else:
        value = rdb_raw(blob)
    return rdb_file({0: [key(TYPE_STRING, b"good", rdb_raw(b"before")), key(rdbtype, b"bad", value)]})


TYPE_SET = 2


def empty_keys_file():
    keys = [key(TYPE_STRING, b"good1", rdb_raw(b"v1")),
            key(TYPE_SET, b"set", rdb_len(0)),
            key(TYPE_LIST_ZIPLIST, b"list_ziplist", rdb_raw(ziplist([]))),
            key(TYPE_LIST_QUICKLIST, b"list_quicklist", rdb_len(0)),
            key(TYPE_HASH_ZIPLIST, b"hash_ziplist", rdb_raw(ziplist([]))),
            key(TYPE_ZSET_ZIPLIST, b"zset_ziplist", rdb_raw(ziplist([]))),
            key(TYPE_STRING, b"good2", rdb_raw(b"v2"))]
    return rdb_file({0: keys})


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    files = {"legacy-v9-all-types.rdb": main_fixture(), "empty-collections.rdb": empty_keys_file()}
    for name in CORRUPT:
        files["legacy-corrupt-%s.rdb" % name] = corrupt_file(name)
    for fname, data in files.items():
        with open(os.path.join(outdir, fname), "wb") as f:
            f.write(data)
        print("%-36s %7d bytes" % (fname, len(data)))


if __name__ == "__main__":
    main()
