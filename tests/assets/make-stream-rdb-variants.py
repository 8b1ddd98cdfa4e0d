#!/usr/bin/env python3
"""make-stream-rdb-variants.py -- the streams fixture in the other stream types.

Usage: python3 tests/assets/make-stream-rdb-variants.py [DIR]   (default: the
directory of this script). Reads redis-7.0.15-streams.rdb (written by Redis
7.0.15 with make-stream-rdb.sh: RDB version 10, streams of type 19) and
writes, with the same streams:

  streams-type15.rdb   RDB version 9, type 15 (what Redis 5.0 - 6.2 write):
                       no first ID / max deleted ID / entries added, no
                       entries-read per group.
  streams-type21.rdb   RDB version 11, type 21 (what Redis 7.2 writes): each
                       consumer's active time after its seen time (here: the
                       same value).

The rest of the file (AUX fields, other opcodes) is copied byte for byte; the
CRC-64 (Jones) trailer is recomputed. Only the documented RDB formats are
used. Deterministic: running it again rewrites the same bytes.
"""
import os
import struct
import sys

_POLY = 0x95AC9329AC4BC9B5
_TABLE = []
for _i in range(256):
    _c = _i
    for _ in range(8):
        _c = (_c >> 1) ^ _POLY if _c & 1 else _c >> 1
    _TABLE.append(_c)


def crc64(data):
    crc = 0
    for b in data:
        crc = _TABLE[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc


class Reader:
    def __init__(self, data):
        self.d = data
        self.p = 0

    def take(self, n):
        s = self.d[self.p:self.p + n]
        self.p += n
        return s

    def byte(self):
        return self.take(1)[0]

    def length(self):
        """(value, raw bytes, is_special)"""
        start = self.p
        b = self.byte()
        kind = b >> 6
        if kind == 0:
            v = b & 0x3F
        elif kind == 1:
            v = ((b & 0x3F) << 8) | self.byte()
        elif kind == 3:
            return b & 0x3F, self.d[start:self.p], True
        elif b == 0x80:
            v = struct.unpack(">I", self.take(4))[0]
        elif b == 0x81:
            v = struct.unpack(">Q", self.take(8))[0]
        else:
            raise ValueError("bad length byte %#x" % b)
        return v, self.d[start:self.p], False

    def string(self):
        """The raw bytes of one RDB string, whatever its encoding."""
        start = self.p
        v, _, special = self.length()
        if not special:
            self.take(v)
        elif v in (0, 1, 2):
            self.take(1 << v)
        elif v == 3:
            clen, _, _ = self.length()
            self.length()
            self.take(clen)
        else:
            raise ValueError("bad string encoding")
        return self.d[start:self.p]

    def raw_len(self):
        return self.length()[1]


def convert_stream(r, target):
    """Reads a type-19 value and returns it re-encoded as `target` (15/21)."""
    out = bytearray()
    nodes, raw, _ = r.length()
    out += raw
    for _ in range(nodes):
        out += r.string() + r.string()
    for _ in range(3):  # length, last id
        out += r.raw_len()
    meta = [r.raw_len() for _ in range(5)]  # first id, max deleted id, entries added
    if target == 21:
        out += b"".join(meta)
    groups, raw, _ = r.length()
    out += raw
    for _ in range(groups):
        out += r.string() + r.raw_len() + r.raw_len()
        entries_read = r.raw_len()
        if target == 21:
            out += entries_read
        pel, raw, _ = r.length()
        out += raw
        for _ in range(pel):
            out += r.take(16 + 8) + r.raw_len()
        consumers, raw, _ = r.length()
        out += raw
        for _ in range(consumers):
            name = r.string()
            seen = r.take(8)
            out += name + seen
            if target == 21:
                out += seen  # active time
            owned, raw, _ = r.length()
            out += raw + r.take(16 * owned)
    return bytes(out)


def convert_file(data, target):
    version = b"0009" if target == 15 else b"0011"
    r = Reader(data)
    assert r.take(9) == b"REDIS0010"
    out = bytearray(b"REDIS" + version)
    while True:
        op = r.byte()
        if op == 0xFF:
            out.append(op)
            break
        if op == 0xFA:  # AUX
            out += bytes([op]) + r.string() + r.string()
        elif op == 0xFE:  # SELECTDB
            out += bytes([op]) + r.raw_len()
        elif op == 0xFB:  # RESIZEDB
            out += bytes([op]) + r.raw_len() + r.raw_len()
        elif op == 0xFC:  # EXPIRETIME_MS
            out += bytes([op]) + r.take(8)
        elif op == 19:
            key = r.string()
            out += bytes([target]) + key + convert_stream(r, target)
        else:
            raise ValueError("the fixture holds only streams; type %d found" % op)
    out += struct.pack("<Q", crc64(bytes(out)))
    return bytes(out)


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(d, "redis-7.0.15-streams.rdb"), "rb") as f:
        data = f.read()
    for target in (15, 21):
        path = os.path.join(d, "streams-type%d.rdb" % target)
        with open(path, "wb") as f:
            f.write(convert_file(data, target))
        print("wrote", path)


if __name__ == "__main__":
    main()
