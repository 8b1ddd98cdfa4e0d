#!/usr/bin/env python3
"""make-clusterbus-seeds.py -- seed inputs of the clusterbus fuzz harness.

Usage: python3 tests/fuzz/make-clusterbus-seeds.py  (writes corpus/clusterbus/)

Each seed is the byte stream of a bus link: one message, or several in a
row. They are written from the documented layout (src/lib/clusterbus.h,
Redis 7.0's clusterMsg), big-endian, without our encoder, so a seed the
decoder refuses points at a disagreement: the MEET is the one Redis 7.0.15
sent in tests/c/test_clusterbus.c, rebuilt byte for byte.
"""
import os
import struct

HEADER = 2256
NAME_A = b"b3b6c5a8a1c0b5a1ff7bd44ad8a4a3e95ee2ba2d"[:40]
NAME_B = b"7acf3fdba11cb9b3e038974123667eb3e806052a"
PING, PONG, MEET, FAIL, PUBLISH, AUTH_REQ, AUTH_ACK, UPDATE, MFSTART, MODULE, PUBLISHSHARD = range(11)


def header(mtype, totlen, count=0, port=7000, cport=17000, pport=0, flags=1, sender=NAME_B, slots=b"",
           cur=1, cfg=1, offset=0, replicaof=b"\0" * 40, ip=b"127.0.0.1", state=0, mflags=b"\0\0\0",
           extensions=0):
    h = bytearray(HEADER)
    h[0:4] = b"RCmb"
    struct.pack_into(">IHHHH", h, 4, totlen, 1, port, mtype, count)
    struct.pack_into(">QQQ", h, 16, cur, cfg, offset)
    h[40:80] = sender
    h[80:80 + len(slots)] = slots
    h[2128:2168] = replicaof
    h[2168:2168 + len(ip)] = ip
    struct.pack_into(">H", h, 2214, extensions)
    struct.pack_into(">HHHB", h, 2246, pport, cport, flags, state)
    h[2253:2256] = mflags
    return h


def gossip(name, ip, port, cport, flags, pport=0):
    g = bytearray(104)
    g[0:40] = name
    struct.pack_into(">II", g, 40, 1, 2)
    g[48:48 + len(ip)] = ip
    struct.pack_into(">HHHH", g, 94, port, cport, flags, pport)
    return bytes(g)


def hostname_ext(name):
    data = name + b"\0"
    data += b"\0" * (-(8 + len(data)) % 8)
    return struct.pack(">IHH", 8 + len(data), 0, 0) + data


def ping(mtype, entries, hostname=None):
    body = b"".join(entries)
    ext = hostname_ext(hostname) if hostname else b""
    total = HEADER + len(body) + len(ext)
    h = header(mtype, total, count=len(entries), mflags=bytes([4 if hostname else 0, 0, 0]),
               extensions=1 if hostname else 0)
    return bytes(h) + body + ext


def fixed(mtype, payload):
    return bytes(header(mtype, HEADER + len(payload))) + payload


def publish(mtype, channel, message):
    payload = struct.pack(">II", len(channel), len(message)) + channel + message
    return fixed(mtype, payload)


def redis_meet():
    """The MEET of tests/c/test_clusterbus.c (sent by Redis 7.0.15)."""
    b = bytearray(2280)
    b[0:14] = bytes([0x52, 0x43, 0x6d, 0x62, 0x00, 0x00, 0x08, 0xe8, 0x00, 0x01, 0x5a, 0xa1, 0x00, 0x02])
    b[23] = 1
    b[31] = 1
    b[40:80] = b"0" * 40
    b[80:92] = b"\xff" * 12
    b[92] = 0x0f
    b[2127] = 0x80
    b[2215] = 1
    tail = bytes([0x81, 0xb1, 0x00, 0x11, 0x01, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x18, 0x00, 0x00, 0x00, 0x00])
    tail += b"deb-host" + b"\0" * 8
    b[2248:2248 + len(tail)] = tail
    return bytes(b)


def main():
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "clusterbus")
    os.makedirs(out, exist_ok=True)
    g1 = gossip(NAME_A, b"127.0.0.1", 7001, 17001, 1)
    g2 = gossip(b"1" * 40, b"::1", 7002, 17002, 2, 7003)
    seeds = {
        "meet-redis-7.0.15": redis_meet(),
        "ping-gossip": ping(PING, [g1, g2]),
        "pong-hostname": ping(PONG, [g1], b"node-a.local"),
        "fail": fixed(FAIL, NAME_A),
        "publish": publish(PUBLISH, b"news", b"hello"),
        "publishshard": publish(PUBLISHSHARD, b"{t}ch", b""),
        "update": fixed(UPDATE, struct.pack(">Q", 9) + NAME_A + b"\xf0" * 2048),
        "auth-request": fixed(AUTH_REQ, b""),
        "mfstart": fixed(MFSTART, b""),
        "module": fixed(MODULE, struct.pack(">QIB", 0x1234, 3, 1) + b"abc"),
        "stream-ping-fail-pong": ping(PING, [g1]) + fixed(FAIL, NAME_A) + ping(PONG, []),
    }
    for name, data in seeds.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
        print("%-24s %6d bytes" % (name, len(data)))


if __name__ == "__main__":
    main()
