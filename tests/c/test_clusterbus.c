/* test_clusterbus.c -- the cluster bus codec: a MEET sent by Redis 7.0.15
 * (captured from Debian's redis-server on a socket, rebuilt here from its
 * non-zero bytes) is decoded field by field and re-encoded byte for byte;
 * every message type round-trips; and bad input is refused without reading
 * past the buffer: truncated, too long, wrong signature, wrong version,
 * unknown type, counts and lengths that do not match the message, bad
 * extensions, and every truncation and single-byte mutation of a message
 * with gossip and a hostname (each decoded from its own allocation of
 * exactly its length, so ASan or QEMU would catch an over-read).
 */
#include "test.h"
#include "clusterbus.h"

#define NAME_A "66a36971bea0dfe253181adb539583cd7bb9b7ee"
#define NAME_B "7acf3fdba11cb9b3e038974123667eb3e806052a"

/* The MEET Redis 7.0.15 sent: node NAME_A, port 23201, bus 33201, slots
 * 0-99 and 16383, epochs 1, cluster state fail, hostname "deb-host". */
static size_t redis_meet(unsigned char *buf) {
    static const unsigned char head[] = {0x52, 0x43, 0x6d, 0x62, 0x00, 0x00, 0x08, 0xe8, 0x00,
                                         0x01, 0x5a, 0xa1, 0x00, 0x02};
    static const unsigned char tail[] = {0x81, 0xb1, 0x00, 0x11, 0x01, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00,
                                         0x18, 0x00, 0x00, 0x00, 0x00, 'd',  'e',  'b',  '-',  'h',  'o',
                                         's',  't',  0,    0,    0,    0,    0,    0,    0,    0};
    memset(buf, 0, 2280);
    memcpy(buf, head, sizeof head);
    buf[23] = 1;
    buf[31] = 1;
    memcpy(buf + 40, NAME_A, 40);
    memset(buf + 80, 0xff, 12);
    buf[92] = 0x0f;
    buf[2127] = 0x80;
    buf[2215] = 1;
    memcpy(buf + 2248, tail, sizeof tail);
    return 2280;
}

/* Decodes a copy in an allocation of exactly len bytes. */
static int decode_exact(const unsigned char *src, size_t len, clusterBusMsg *m) {
    unsigned char *copy = malloc(len ? len : 1);
    memcpy(copy, src, len);
    int r = clusterBusDecode(copy, len, m);
    free(copy);
    return r;
}

static int slot_set(const unsigned char *slots, int s) { return (slots[s >> 3] >> (s & 7)) & 1; }

static void test_redis_meet_decodes(void) {
    unsigned char buf[2280];
    size_t len = redis_meet(buf);
    clusterBusMsg m;
    CHECK_EQ_INT(clusterBusDecode(buf, len, &m), CLUSTERBUS_OK);
    CHECK_EQ_INT(m.type, CLUSTERBUS_MEET);
    CHECK_EQ_INT(m.totlen, 2280);
    CHECK_EQ_INT(m.port, 23201);
    CHECK_EQ_INT(m.cport, 33201);
    CHECK_EQ_INT(m.pport, 0);
    CHECK_EQ_INT(m.count, 0);
    CHECK_EQ_INT(m.current_epoch, 1);
    CHECK_EQ_INT(m.config_epoch, 1);
    CHECK_EQ_INT(m.flags, 0x11); /* master | myself, Redis's bits */
    CHECK_EQ_INT(m.state, 1);    /* CLUSTER_FAIL */
    CHECK(memcmp(m.sender, NAME_A, 40) == 0);
    CHECK_EQ_STR(m.myip, "");
    CHECK(slot_set(m.myslots, 0) && slot_set(m.myslots, 99) && !slot_set(m.myslots, 100));
    CHECK(slot_set(m.myslots, 16383));
    CHECK_EQ_INT(m.hostname_len, 8);
    CHECK(m.hostname && memcmp(m.hostname, "deb-host", 8) == 0);
    CHECK_EQ_INT(m.unknown_extensions, 0);
    CHECK_EQ_STR(clusterBusTypeName(m.type), "meet");
}

static void test_redis_meet_reencodes(void) {
    unsigned char want[2280], got[2280];
    size_t len = redis_meet(want);
    clusterBusMsg m;
    CHECK_EQ_INT(clusterBusDecode(want, len, &m), CLUSTERBUS_OK);
    m.extensions = 0;
    m.mflags[0] = 0;
    CHECK_EQ_INT(clusterBusPingSize(0, 8), 2280);
    clusterBusWriteHeader(got, &m, 2280);
    CHECK_EQ_INT(clusterBusWriteHostname(got, 0, "deb-host", 8), 24);
    CHECK_EQ_MEM(got, want, 2280);
}

/* A PONG with two gossip entries and a hostname, at an odd address. */
static size_t build_pong(unsigned char *buf) {
    clusterBusMsg h;
    memset(&h, 0, sizeof h);
    h.type = CLUSTERBUS_PONG;
    h.count = 2;
    h.port = 7000;
    h.cport = 17000;
    h.flags = 1;
    h.current_epoch = 0x0102030405060708ULL;
    h.config_epoch = 7;
    h.offset = 123456789012345ULL;
    memcpy(h.sender, NAME_B, 40);
    memcpy(h.replicaof, NAME_A, 40);
    strcpy(h.myip, "10.0.0.1");
    h.myslots[2047] = 0x80;
    size_t len = clusterBusPingSize(2, 5);
    clusterBusWriteHeader(buf, &h, (uint32_t)len);
    clusterBusGossip g;
    memset(&g, 0, sizeof g);
    memcpy(g.name, NAME_A, 40);
    g.ping_sent = 1;
    g.pong_received = 0xfffffffe;
    strcpy(g.ip, "127.0.0.1");
    g.port = 6379;
    g.cport = 16379;
    g.flags = 0x11;
    clusterBusWriteGossip(buf, 0, &g);
    strcpy(g.ip, "::1");
    g.pport = 6380;
    clusterBusWriteGossip(buf, 1, &g);
    CHECK_EQ_INT(clusterBusWriteHostname(buf, 2, "node5", 5), 16);
    return len;
}

static void test_pong_round_trip(void) {
    unsigned char *mem = malloc(4096);
    unsigned char *buf = mem + 1;
    size_t len = build_pong(buf);
    clusterBusMsg m;
    CHECK_EQ_INT(clusterBusDecode(buf, len, &m), CLUSTERBUS_OK);
    CHECK_EQ_INT(m.type, CLUSTERBUS_PONG);
    CHECK(m.current_epoch == 0x0102030405060708ULL);
    CHECK(m.offset == 123456789012345ULL);
    CHECK_EQ_STR(m.myip, "10.0.0.1");
    CHECK(memcmp(m.replicaof, NAME_A, 40) == 0);
    CHECK_EQ_INT(m.count, 2);
    clusterBusGossip g;
    clusterBusGossipAt(&m, 1, &g);
    CHECK_EQ_STR(g.ip, "::1");
    CHECK_EQ_INT(g.pport, 6380);
    CHECK_EQ_INT(g.pong_received, 0xfffffffe);
    clusterBusGossipAt(&m, 0, &g);
    CHECK_EQ_STR(g.ip, "127.0.0.1");
    CHECK_EQ_INT(g.cport, 16379);
    CHECK(m.hostname && m.hostname_len == 5 && memcmp(m.hostname, "node5", 5) == 0);
    /* a gossip entry's port sits at byte 94 of the entry, as in Redis's struct */
    CHECK_EQ_INT(buf[2256 + 94], 6379 >> 8);
    CHECK_EQ_INT(buf[2256 + 95], 6379 & 0xff);
    free(mem);
}

static void test_other_types_round_trip(void) {
    unsigned char *buf = malloc(8192);
    clusterBusMsg h, m;
    memset(&h, 0, sizeof h);
    memcpy(h.sender, NAME_A, 40);

    h.type = CLUSTERBUS_FAIL;
    size_t len = clusterBusPayloadSize(CLUSTERBUS_FAIL);
    clusterBusWriteHeader(buf, &h, (uint32_t)len);
    clusterBusWriteFail(buf, NAME_B);
    CHECK_EQ_INT(decode_exact(buf, len, &m), CLUSTERBUS_OK);

    h.type = CLUSTERBUS_PUBLISH;
    len = clusterBusPublishSize(3, 5);
    clusterBusWriteHeader(buf, &h, (uint32_t)len);
    clusterBusWritePublish(buf, "chn", 3, "hello", 5);
    CHECK_EQ_INT(clusterBusDecode(buf, len, &m), CLUSTERBUS_OK);
    CHECK(m.channel_len == 3 && memcmp(m.channel, "chn", 3) == 0);
    CHECK(m.message_len == 5 && memcmp(m.message, "hello", 5) == 0);

    h.type = CLUSTERBUS_UPDATE;
    unsigned char slots[2048] = {0};
    slots[5] = 0x21;
    len = clusterBusPayloadSize(CLUSTERBUS_UPDATE);
    clusterBusWriteHeader(buf, &h, (uint32_t)len);
    clusterBusWriteUpdate(buf, 99, NAME_B, slots);
    CHECK_EQ_INT(clusterBusDecode(buf, len, &m), CLUSTERBUS_OK);
    CHECK(m.update_epoch == 99 && memcmp(m.update_name, NAME_B, 40) == 0 && m.update_slots[5] == 0x21);

    int empty[] = {CLUSTERBUS_FAILOVER_AUTH_REQUEST, CLUSTERBUS_FAILOVER_AUTH_ACK, CLUSTERBUS_MFSTART};
    for (size_t j = 0; j < 3; j++) {
        h.type = (uint16_t)empty[j];
        clusterBusWriteHeader(buf, &h, CLUSTERBUS_HEADER_LEN);
        CHECK_EQ_INT(decode_exact(buf, CLUSTERBUS_HEADER_LEN, &m), CLUSTERBUS_OK);
        /* one byte more than the type's size is refused */
        clusterBusWriteHeader(buf, &h, CLUSTERBUS_HEADER_LEN + 1);
        CHECK_EQ_INT(decode_exact(buf, CLUSTERBUS_HEADER_LEN + 1, &m), CLUSTERBUS_ERR_LENGTH);
    }
    free(buf);
}

static void test_framing(void) {
    unsigned char buf[2280];
    redis_meet(buf);
    uint32_t totlen = 0;
    CHECK_EQ_INT(clusterBusFrameLength(buf, 7, 1 << 20, &totlen), CLUSTERBUS_NEED_MORE);
    CHECK_EQ_INT(clusterBusFrameLength(buf, 8, 1 << 20, &totlen), CLUSTERBUS_OK);
    CHECK_EQ_INT(totlen, 2280);
    CHECK_EQ_INT(clusterBusFrameLength(buf, 8, 2000, &totlen), CLUSTERBUS_ERR_LENGTH);
    buf[7] = 0x10; /* totlen 0x810 = 2064 < header */
    CHECK_EQ_INT(clusterBusFrameLength(buf, 8, 1 << 20, &totlen), CLUSTERBUS_ERR_LENGTH);
    buf[0] = 'X';
    CHECK_EQ_INT(clusterBusFrameLength(buf, 8, 1 << 20, &totlen), CLUSTERBUS_ERR_SIG);
}

static void test_bad_messages(void) {
    unsigned char buf[2400];
    size_t len = redis_meet(buf);
    clusterBusMsg m;
    /* truncated, and too long (totlen says more than the buffer or less) */
    CHECK_EQ_INT(decode_exact(buf, len - 1, &m), CLUSTERBUS_ERR_LENGTH);
    CHECK_EQ_INT(decode_exact(buf, 100, &m), CLUSTERBUS_ERR_LENGTH);
    CHECK_EQ_INT(decode_exact(buf, 3, &m), CLUSTERBUS_ERR_LENGTH);
    buf[len] = 0;
    CHECK_EQ_INT(decode_exact(buf, len + 1, &m), CLUSTERBUS_ERR_LENGTH);
    buf[7] = (unsigned char)(len + 8 - 0x800); /* totlen 2288, with 8 stray bytes after the extension */
    memset(buf + len, 0, 8);
    CHECK_EQ_INT(decode_exact(buf, len + 8, &m), CLUSTERBUS_ERR_LENGTH);
    redis_meet(buf);
    /* signature, version, type */
    buf[3] = 'c';
    CHECK_EQ_INT(decode_exact(buf, len, &m), CLUSTERBUS_ERR_SIG);
    redis_meet(buf);
    buf[9] = 2;
    CHECK_EQ_INT(decode_exact(buf, len, &m), CLUSTERBUS_ERR_VERSION);
    redis_meet(buf);
    buf[13] = 11;
    CHECK_EQ_INT(decode_exact(buf, len, &m), CLUSTERBUS_ERR_TYPE);
    buf[12] = 0xff;
    CHECK_EQ_INT(decode_exact(buf, len, &m), CLUSTERBUS_ERR_TYPE);
    /* a gossip count the message has no room for */
    redis_meet(buf);
    buf[15] = 1;
    CHECK(decode_exact(buf, len, &m) < 0);
    buf[14] = 0xff;
    buf[15] = 0xff;
    CHECK(decode_exact(buf, len, &m) < 0);
    /* extensions: more than there are, an unpadded length, a length past
     * the end, a zero length, a hostname without its NUL */
    redis_meet(buf);
    buf[2215] = 2;
    CHECK_EQ_INT(decode_exact(buf, len, &m), CLUSTERBUS_ERR_EXT);
    redis_meet(buf);
    buf[2259] = 0x17;
    CHECK_EQ_INT(decode_exact(buf, len, &m), CLUSTERBUS_ERR_EXT);
    buf[2259] = 0x20;
    CHECK_EQ_INT(decode_exact(buf, len, &m), CLUSTERBUS_ERR_EXT);
    buf[2259] = 0;
    CHECK_EQ_INT(decode_exact(buf, len, &m), CLUSTERBUS_ERR_EXT);
    redis_meet(buf);
    memset(buf + 2264, 'x', 16);
    CHECK_EQ_INT(decode_exact(buf, len, &m), CLUSTERBUS_ERR_EXT);
    /* an unknown extension type is skipped and counted */
    redis_meet(buf);
    buf[2261] = 9;
    CHECK_EQ_INT(decode_exact(buf, len, &m), CLUSTERBUS_OK);
    CHECK_EQ_INT(m.unknown_extensions, 1);
    CHECK(m.hostname == NULL);
    /* without the EXT_DATA flag the extension bytes are just too many */
    redis_meet(buf);
    buf[2253] = 0;
    CHECK_EQ_INT(decode_exact(buf, len, &m), CLUSTERBUS_ERR_LENGTH);
}

static void test_publish_lengths_checked(void) {
    unsigned char *buf = malloc(4096);
    clusterBusMsg h, m;
    memset(&h, 0, sizeof h);
    h.type = CLUSTERBUS_PUBLISHSHARD;
    size_t len = clusterBusPublishSize(2, 2);
    clusterBusWriteHeader(buf, &h, (uint32_t)len);
    clusterBusWritePublish(buf, "ab", 2, "cd", 2);
    CHECK_EQ_INT(decode_exact(buf, len, &m), CLUSTERBUS_OK);
    buf[2256 + 3] = 3; /* channel_len 3: one byte more than there is */
    CHECK_EQ_INT(decode_exact(buf, len, &m), CLUSTERBUS_ERR_LENGTH);
    buf[2256] = 0xff; /* a huge channel_len must not wrap the sum */
    buf[2256 + 4] = 0xff;
    CHECK_EQ_INT(decode_exact(buf, len, &m), CLUSTERBUS_ERR_LENGTH);
    h.type = CLUSTERBUS_MODULE;
    clusterBusWriteHeader(buf, &h, CLUSTERBUS_HEADER_LEN + 12);
    CHECK_EQ_INT(decode_exact(buf, CLUSTERBUS_HEADER_LEN + 12, &m), CLUSTERBUS_ERR_LENGTH);
    free(buf);
}

/* MODULE: the layout Redis 7.0 sends from a little-endian host (module_id
 * in host order, then len big-endian, then the type), written and read
 * back the same on every CPU. */
static void test_module_message(void) {
    unsigned char *buf = malloc(4096);
    clusterBusMsg h, m;
    memset(&h, 0, sizeof h);
    h.type = CLUSTERBUS_MODULE;
    size_t len = clusterBusModuleSize(5);
    CHECK_EQ_INT((long long)len, CLUSTERBUS_HEADER_LEN + 13 + 5);
    clusterBusWriteHeader(buf, &h, (uint32_t)len);
    clusterBusWriteModule(buf, 0x0102030405060708ULL, 7, "hello", 5);
    static const unsigned char want[] = {0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01, 0, 0, 0, 5, 7, 'h'};
    CHECK(memcmp(buf + CLUSTERBUS_HEADER_LEN, want, sizeof want) == 0);
    CHECK_EQ_INT(decode_exact(buf, len, &m), CLUSTERBUS_OK);
    /* decoded in place: the payload points into the buffer decoded
     * (decode_exact's copy is freed when it returns) */
    CHECK_EQ_INT(clusterBusDecode(buf, len, &m), CLUSTERBUS_OK);
    CHECK(m.module_id == 0x0102030405060708ULL);
    CHECK_EQ_INT(m.module_type, 7);
    CHECK_EQ_INT(m.module_len, 5);
    CHECK(memcmp(m.module_payload, "hello", 5) == 0);
    /* an empty payload is a message too */
    len = clusterBusModuleSize(0);
    clusterBusWriteHeader(buf, &h, (uint32_t)len);
    clusterBusWriteModule(buf, 42, 255, NULL, 0);
    CHECK_EQ_INT(decode_exact(buf, len, &m), CLUSTERBUS_OK);
    CHECK(m.module_id == 42 && m.module_len == 0 && m.module_type == 255);
    /* len one more than the message holds */
    buf[CLUSTERBUS_HEADER_LEN + 11] = 1;
    CHECK_EQ_INT(decode_exact(buf, len, &m), CLUSTERBUS_ERR_LENGTH);
    free(buf);
}

/* Every prefix and every single-byte change of a PONG with gossip and a
 * hostname: decoded or refused, never read past (exact allocations). */
static void test_mutations(void) {
    unsigned char *orig = malloc(4096);
    size_t len = build_pong(orig);
    clusterBusMsg m;
    int ok = 1;
    for (size_t cut = 0; cut < len; cut += 1 + (cut > 2300 ? 0 : 7)) {
        if (decode_exact(orig, cut, &m) == CLUSTERBUS_OK) ok = 0;
    }
    CHECK(ok);
    unsigned char *copy = malloc(len);
    int decoded = 0;
    for (size_t pos = 0; pos < len; pos++) {
        if (pos >= 80 && pos < 2128) pos = 2128; /* slot bits: any value is valid */
        static const unsigned char vals[] = {0x00, 0x01, 0x07, 0x80, 0xff};
        for (size_t v = 0; v < sizeof vals; v++) {
            memcpy(copy, orig, len);
            copy[pos] = vals[v];
            if (clusterBusDecode(copy, len, &m) == CLUSTERBUS_OK) {
                decoded++;
                clusterBusGossip g;
                for (int i = 0; i < m.count; i++) clusterBusGossipAt(&m, i, &g);
            }
        }
    }
    CHECK(decoded > 0);
    free(copy);
    free(orig);
}

TEST_MAIN(
    RUN(test_redis_meet_decodes);
    RUN(test_redis_meet_reencodes);
    RUN(test_pong_round_trip);
    RUN(test_other_types_round_trip);
    RUN(test_framing);
    RUN(test_bad_messages);
    RUN(test_publish_lengths_checked);
    RUN(test_module_message);
    RUN(test_mutations);
)
