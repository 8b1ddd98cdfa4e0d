/* test_stream_lp.c -- the stream node codec (src/lib/stream_lp.c).
 *
 * The byte vector is the listpack inside `DUMP s` on Redis 7.0.15 (config
 * rdbcompression no) after XADD s 1-1 a 1 b 2, XADD s 1-2 a 3 b 4,
 * XADD s 2-0 c 5, XDEL s 1-2: the codec must build the same bytes and read
 * them back. The rest walks nodes both ways, checks ID arithmetic at the
 * edges, and that the validator refuses every single-byte corruption of a
 * node that changes its meaning without reading outside it (run under ASan
 * to make that meaningful).
 */
#include "listpack.h"
#include "stream_lp.h"
#include "test.h"
#include "zmalloc.h"

static const unsigned char redis_node[] = {
    0x3d, 0x00, 0x00, 0x00, 0x19, 0x00, 0x02, 0x01, 0x01, 0x01, 0x02, 0x01, 0x81, 0x61, 0x02, 0x81,
    0x62, 0x02, 0x00, 0x01, 0x02, 0x01, 0x00, 0x01, 0x00, 0x01, 0x01, 0x01, 0x02, 0x01, 0x05, 0x01,
    0x03, 0x01, 0x00, 0x01, 0x01, 0x01, 0x03, 0x01, 0x04, 0x01, 0x05, 0x01, 0x00, 0x01, 0x01, 0x01,
    0xdf, 0xff, 0x02, 0x01, 0x01, 0x81, 0x63, 0x02, 0x05, 0x01, 0x06, 0x01, 0xff};

static slpString S(const char *s) {
    slpString r = {(const unsigned char *)s, strlen(s)};
    return r;
}

static int strIs(slpString s, const char *expected) {
    return s.len == strlen(expected) && memcmp(s.ptr, expected, s.len) == 0;
}

static unsigned char *buildReferenceNode(const streamID *master) {
    slpString e1[] = {S("a"), S("1"), S("b"), S("2")};
    slpString e2[] = {S("a"), S("3"), S("b"), S("4")};
    slpString e3[] = {S("c"), S("5")};
    slpString fields[] = {S("a"), S("b")};
    streamID id1 = {1, 1}, id2 = {1, 2}, id3 = {2, 0};
    unsigned char *lp = slpNew(fields, 2, 0);
    lp = slpAppend(lp, master, &id1, e1, 2);
    lp = slpAppend(lp, master, &id2, e2, 2);
    lp = slpAppend(lp, master, &id3, e3, 1);
    slpEntry e;
    CHECK(slpFirst(lp, master, &e) && slpNext(lp, master, &e));
    CHECK(e.id.ms == 1 && e.id.seq == 2);
    return slpMarkDeleted(lp, &e);
}

static void test_reference_bytes(void) {
    streamID master = {1, 1};
    unsigned char *lp = buildReferenceNode(&master);
    CHECK_EQ_INT(lpBytes(lp), sizeof redis_node);
    CHECK(lpBytes(lp) == sizeof redis_node && CHECK_EQ_MEM(lp, redis_node, sizeof redis_node));
    CHECK_EQ_INT(slpLiveCount(lp), 2);
    CHECK_EQ_INT(slpDeletedCount(lp), 1);
    lpFree(lp);
}

static void test_read_reference(void) {
    streamID master = {1, 1}, first, last;
    unsigned char *lp = lpDup((unsigned char *)redis_node);
    CHECK(slpValidate(lp, sizeof redis_node, &master, &first, &last));
    CHECK(first.ms == 1 && first.seq == 1 && last.ms == 2 && last.seq == 0);
    slpEntry e;
    slpString f, v;
    CHECK(slpFirst(lp, &master, &e));
    CHECK(e.flags == SLP_FLAG_SAMEFIELDS && e.nfields == 2);
    CHECK(slpEntryField(lp, &e, &f, &v) && strIs(f, "a") && strIs(v, "1"));
    CHECK(slpEntryField(lp, &e, &f, &v) && strIs(f, "b") && strIs(v, "2"));
    CHECK(!slpEntryField(lp, &e, &f, &v));
    CHECK(slpNext(lp, &master, &e) && (e.flags & SLP_FLAG_DELETED));
    CHECK(slpNext(lp, &master, &e) && e.id.ms == 2 && e.id.seq == 0 && e.flags == 0);
    CHECK(slpEntryField(lp, &e, &f, &v) && strIs(f, "c") && strIs(v, "5"));
    CHECK(!slpNext(lp, &master, &e));
    /* and backwards */
    CHECK(slpLast(lp, &master, &e) && e.id.ms == 2);
    CHECK(slpPrev(lp, &master, &e) && e.id.seq == 2);
    CHECK(slpPrev(lp, &master, &e) && e.id.seq == 1);
    CHECK(slpEntryField(lp, &e, &f, &v) && strIs(f, "a") && strIs(v, "1"));
    CHECK(!slpPrev(lp, &master, &e));
    streamID id;
    CHECK(slpFirstLiveID(lp, &master, &id) && id.ms == 1 && id.seq == 1);
    CHECK(slpLastLiveID(lp, &master, &id) && id.ms == 2 && id.seq == 0);
    lpFree(lp);
}

/* Many entries with varying field sets, walked both ways. */
static void test_walk_many(void) {
    streamID master = {1000, 5};
    slpString fields[] = {S("name"), S("age")};
    unsigned char *lp = slpNew(fields, 2, 0);
    int n = test_scaled(300);
    char buf[32];
    for (int i = 0; i < n; i++) {
        streamID id = {1000 + (uint64_t)i / 3, (uint64_t)(i % 3) * 7 + (i < 3 ? 5 : 0)};
        snprintf(buf, sizeof buf, "%d", i * 11);
        slpString same[] = {S("name"), S(buf), S("age"), S("x")};
        slpString other[] = {S("k"), S(buf)};
        lp = (i % 4 == 1) ? slpAppend(lp, &master, &id, other, 1) : slpAppend(lp, &master, &id, same, 2);
    }
    CHECK_EQ_INT(slpLiveCount(lp), n);
    slpEntry e;
    int seen = 0;
    streamID prev = {0, 0};
    for (int ok = slpFirst(lp, &master, &e); ok; ok = slpNext(lp, &master, &e)) {
        if (seen) CHECK(streamIDCompare(&prev, &e.id) < 0);
        CHECK_EQ_INT(e.nfields, (seen % 4 == 1) ? 1 : 2);
        slpString f, v;
        CHECK(slpEntryField(lp, &e, &f, &v));
        snprintf(buf, sizeof buf, "%d", seen * 11);
        CHECK(strIs(v, buf));
        prev = e.id;
        seen++;
    }
    CHECK_EQ_INT(seen, n);
    for (int ok = slpLast(lp, &master, &e); ok; ok = slpPrev(lp, &master, &e)) seen--;
    CHECK_EQ_INT(seen, 0);
    streamID first, last;
    CHECK(slpValidate(lp, lpBytes(lp), &master, &first, &last));
    CHECK(streamIDCompare(&last, &prev) == 0);
    lpFree(lp);
}

static void test_id_arithmetic(void) {
    streamID id = {5, UINT64_MAX};
    CHECK(streamIDIncr(&id) == 0 && id.ms == 6 && id.seq == 0);
    CHECK(streamIDDecr(&id) == 0 && id.ms == 5 && id.seq == UINT64_MAX);
    streamID top = {UINT64_MAX, UINT64_MAX}, zero = {0, 0};
    CHECK(streamIDIncr(&top) == -1 && top.ms == UINT64_MAX);
    CHECK(streamIDDecr(&zero) == -1 && zero.ms == 0);
    unsigned char key[SLP_ID_KEY_LEN];
    streamID a = {0x0102030405060708ULL, 9}, b;
    streamIDEncode(key, &a);
    CHECK(key[0] == 1 && key[7] == 8 && key[15] == 9);
    streamIDDecode(key, &b);
    CHECK(streamIDCompare(&a, &b) == 0);
    /* deltas across the sequence wrap-around */
    streamID master = {10, 100}, later = {11, 0};
    slpString fv[] = {S("f"), S("v")};
    unsigned char *lp = slpNew(fv, 1, 64);
    lp = slpAppend(lp, &master, &master, fv, 1);
    lp = slpAppend(lp, &master, &later, fv, 1);
    slpEntry e;
    CHECK(slpLast(lp, &master, &e) && e.id.ms == 11 && e.id.seq == 0);
    lpFree(lp);
}

/* Every single-byte change of the reference node is either refused or
 * still reads as a consistent node; none reads outside the buffer. */
static void test_validate_corruptions(void) {
    streamID master = {1, 1}, first, last;
    unsigned char copy[sizeof redis_node];
    int refused = 0;
    for (size_t i = 0; i < sizeof redis_node; i++) {
        for (int delta = 1; delta < 256; delta += 37) {
            memcpy(copy, redis_node, sizeof copy);
            copy[i] = (unsigned char)(copy[i] + delta);
            if (!slpValidate(copy, sizeof copy, &master, &first, &last)) {
                refused++;
                continue;
            }
            slpEntry e; /* accepted: walking must stay inside */
            int n = 0;
            for (int ok = slpFirst(copy, &master, &e); ok; ok = slpNext(copy, &master, &e)) {
                slpString f, v;
                while (slpEntryField(copy, &e, &f, &v)) n++;
            }
            CHECK(n >= 0);
        }
    }
    CHECK(refused > 0);
    /* truncated */
    for (size_t len = 0; len < sizeof redis_node; len++) {
        memcpy(copy, redis_node, len);
        CHECK(!slpValidate(copy, len, &master, &first, &last));
    }
    /* a wrong master ID makes the first entry precede it */
    streamID wrong = {1, 2};
    memcpy(copy, redis_node, sizeof copy);
    CHECK(slpValidate(copy, sizeof copy, &wrong, &first, &last) == 0 || first.seq >= 2);
}

static void test_counts_mismatch(void) {
    streamID master = {1, 1}, first, last;
    unsigned char copy[sizeof redis_node];
    memcpy(copy, redis_node, sizeof copy);
    copy[6] = 0x03; /* count 3 while 2 entries are live */
    CHECK(!slpValidate(copy, sizeof copy, &master, &first, &last));
    memcpy(copy, redis_node, sizeof copy);
    copy[8] = 0x00; /* deleted 0 while one entry is flagged */
    CHECK(!slpValidate(copy, sizeof copy, &master, &first, &last));
}


/* Deleting while walking, across the sizes where the master counters take
 * one byte more (127 -> 128) and every entry after them moves. */
static void test_delete_while_walking(void) {
    streamID master = {1, 0};
    slpString fields[] = {S("k")};
    unsigned char *lp = slpNew(fields, 1, 0);
    char buf[32];
    for (int i = 0; i < 300; i++) {
        streamID id = {1, (uint64_t)i};
        snprintf(buf, sizeof buf, "v%d", i);
        slpString fv[] = {S("k"), S(buf)};
        lp = slpAppend(lp, &master, &id, fv, 1);
    }
    slpEntry e;
    int visited = 0;
    for (int ok = slpFirst(lp, &master, &e); ok; ok = slpNext(lp, &master, &e)) {
        CHECK_EQ_INT(e.id.seq, visited);
        if (visited % 3 != 2) lp = slpMarkDeleted(lp, &e); /* keeps every third */
        visited++;
    }
    CHECK_EQ_INT(visited, 300);
    CHECK_EQ_INT(slpLiveCount(lp), 100);
    CHECK_EQ_INT(slpDeletedCount(lp), 200);
    streamID first, last;
    CHECK(slpValidate(lp, lpBytes(lp), &master, &first, &last));
    int live = 0;
    for (int ok = slpFirst(lp, &master, &e); ok; ok = slpNext(lp, &master, &e)) {
        if (e.flags & SLP_FLAG_DELETED) continue;
        slpString f, v;
        CHECK(slpEntryField(lp, &e, &f, &v) && strIs(f, "k"));
        snprintf(buf, sizeof buf, "v%d", live * 3 + 2);
        CHECK(strIs(v, buf));
        live++;
    }
    CHECK_EQ_INT(live, 100);
    lpFree(lp);
}

TEST_MAIN(RUN(test_reference_bytes); RUN(test_read_reference); RUN(test_walk_many); RUN(test_id_arithmetic);
          RUN(test_validate_corruptions); RUN(test_counts_mismatch); RUN(test_delete_while_walking);)
