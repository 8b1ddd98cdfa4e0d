/* test_listpack.c -- the listpack library (src/lib/listpack.c).
 *
 * Byte vectors: the listpack blobs inside `DUMP` payloads of small hashes
 * and sorted sets on Redis 7.0.15 (RDB types 16 and 17, rdbcompression off),
 * so the encoder is checked byte for byte against the reference server.
 * The rest checks every encoding boundary, walking in both directions
 * across every backlen size, the editing functions against a reference
 * model (an array of strings) under random operations, and that corrupted
 * or truncated blobs are rejected by lpValidateIntegrity without reading
 * outside them (run under ASan to make that check meaningful).
 */
#include <limits.h>

#include "listpack.h"
#include "test.h"
#include "test_model.h"
#include "util.h"
#include "zmalloc.h"

/* ---- helpers ------------------------------------------------------------ */

static unsigned char *append_str(unsigned char *lp, const char *s) {
    return lpAppend(lp, (const unsigned char *)s, strlen(s));
}

/* The entry at p as text in buf (at least LP_INTBUF_SIZE + the longest
 * string the test uses); returns the length. */
static size_t entry_text(unsigned char *p, char *buf, size_t bufsize) {
    unsigned char ibuf[LP_INTBUF_SIZE];
    size_t len;
    const unsigned char *s = lpGetString(p, &len, ibuf);
    if (len >= bufsize) len = bufsize - 1;
    memcpy(buf, s, len);
    buf[len] = '\0';
    return len;
}

static int entry_is(unsigned char *p, const char *expected) {
    char buf[256];
    entry_text(p, buf, sizeof buf);
    return p && strcmp(buf, expected) == 0;
}

static unsigned char *make_bytes(size_t n, char c) {
    unsigned char *s = malloc(n ? n : 1);
    memset(s, c, n);
    return s;
}

/* ---- byte vectors from the reference server ------------------------------ */

/* HSET h a 1 b hello c -5 d 300000 e 12345678901 */
static const unsigned char redis_hash_small[] = {
    0x31, 0x00, 0x00, 0x00, 0x0a, 0x00, 0x81, 0x61, 0x02, 0x01, 0x01, 0x81, 0x62, 0x02, 0x85, 0x68, 0x65,
    0x6c, 0x6c, 0x6f, 0x06, 0x81, 0x63, 0x02, 0xdf, 0xfb, 0x02, 0x81, 0x64, 0x02, 0xf2, 0xe0, 0x93, 0x04,
    0x04, 0x81, 0x65, 0x02, 0xf4, 0x35, 0x1c, 0xdc, 0xdf, 0x02, 0x00, 0x00, 0x00, 0x09, 0xff};

/* ZADD z 1 a 2.5 b -3 c 100000 d (stored in score order: c a b d) */
static const unsigned char redis_zset_small[] = {
    0x22, 0x00, 0x00, 0x00, 0x08, 0x00, 0x81, 0x63, 0x02, 0xdf, 0xfd, 0x02, 0x81, 0x61, 0x02, 0x01, 0x01,
    0x81, 0x62, 0x02, 0x83, 0x32, 0x2e, 0x35, 0x04, 0x81, 0x64, 0x02, 0xf2, 0xa0, 0x86, 0x01, 0x04, 0xff};

/* HSET hi with fields a..z: every integer width at its limits, plus "007",
 * "-0", "" and 2^63 (not integers: stored as strings) and 0. */
static const char *redis_hash_ints_values[] = {
    "127", "128", "-1", "4095", "-4096", "4096", "-4097", "32767", "32768",
    "-32768", "-32769", "8388607", "8388608", "-8388608", "-8388609", "2147483647",
    "2147483648", "-2147483648", "-2147483649", "9223372036854775807",
    "-9223372036854775808", "007", "-0", "", "9223372036854775808", "0"};
static const unsigned char redis_hash_ints[] = {
    0xe9, 0x00, 0x00, 0x00, 0x34, 0x00, 0x81, 0x61, 0x02, 0x7f, 0x01, 0x81, 0x62, 0x02, 0xc0, 0x80, 0x02,
    0x81, 0x63, 0x02, 0xdf, 0xff, 0x02, 0x81, 0x64, 0x02, 0xcf, 0xff, 0x02, 0x81, 0x65, 0x02, 0xd0, 0x00,
    0x02, 0x81, 0x66, 0x02, 0xf1, 0x00, 0x10, 0x03, 0x81, 0x67, 0x02, 0xf1, 0xff, 0xef, 0x03, 0x81, 0x68,
    0x02, 0xf1, 0xff, 0x7f, 0x03, 0x81, 0x69, 0x02, 0xf2, 0x00, 0x80, 0x00, 0x04, 0x81, 0x6a, 0x02, 0xf1,
    0x00, 0x80, 0x03, 0x81, 0x6b, 0x02, 0xf2, 0xff, 0x7f, 0xff, 0x04, 0x81, 0x6c, 0x02, 0xf2, 0xff, 0xff,
    0x7f, 0x04, 0x81, 0x6d, 0x02, 0xf3, 0x00, 0x00, 0x80, 0x00, 0x05, 0x81, 0x6e, 0x02, 0xf2, 0x00, 0x00,
    0x80, 0x04, 0x81, 0x6f, 0x02, 0xf3, 0xff, 0xff, 0x7f, 0xff, 0x05, 0x81, 0x70, 0x02, 0xf3, 0xff, 0xff,
    0xff, 0x7f, 0x05, 0x81, 0x71, 0x02, 0xf4, 0x00, 0x00, 0x00, 0x80, 0x00, 0x00, 0x00, 0x00, 0x09, 0x81,
    0x72, 0x02, 0xf3, 0x00, 0x00, 0x00, 0x80, 0x05, 0x81, 0x73, 0x02, 0xf4, 0xff, 0xff, 0xff, 0x7f, 0xff,
    0xff, 0xff, 0xff, 0x09, 0x81, 0x74, 0x02, 0xf4, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0x09,
    0x81, 0x75, 0x02, 0xf4, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0x09, 0x81, 0x76, 0x02, 0x83,
    0x30, 0x30, 0x37, 0x04, 0x81, 0x77, 0x02, 0x82, 0x2d, 0x30, 0x03, 0x81, 0x78, 0x02, 0x80, 0x01, 0x81,
    0x79, 0x02, 0x93, 0x39, 0x32, 0x32, 0x33, 0x33, 0x37, 0x32, 0x30, 0x33, 0x36, 0x38, 0x35, 0x34, 0x37,
    0x37, 0x35, 0x38, 0x30, 0x38, 0x14, 0x81, 0x7a, 0x02, 0x00, 0x01, 0xff};

static void test_redis_vectors(void) {
    unsigned char *lp = lpNew(0);
    const char *h[] = {"a", "1", "b", "hello", "c", "-5", "d", "300000", "e", "12345678901"};
    for (size_t i = 0; i < 10; i++) lp = append_str(lp, h[i]);
    CHECK_EQ_INT(lpBytes(lp), sizeof redis_hash_small);
    CHECK_EQ_MEM(lp, redis_hash_small, sizeof redis_hash_small);
    lpFree(lp);

    lp = lpNew(0);
    const char *z[] = {"c", "-3", "a", "1", "b", "2.5", "d", "100000"};
    for (size_t i = 0; i < 8; i++) lp = append_str(lp, z[i]);
    CHECK_EQ_INT(lpBytes(lp), sizeof redis_zset_small);
    CHECK_EQ_MEM(lp, redis_zset_small, sizeof redis_zset_small);
    lpFree(lp);

    lp = lpNew(0);
    for (size_t i = 0; i < 26; i++) {
        char field[2] = {(char)('a' + i), 0};
        lp = append_str(lp, field);
        lp = append_str(lp, redis_hash_ints_values[i]);
    }
    CHECK_EQ_INT(lpBytes(lp), sizeof redis_hash_ints);
    CHECK_EQ_MEM(lp, redis_hash_ints, sizeof redis_hash_ints);
    lpFree(lp);
}

/* Reading the reference blobs back: values, and they validate. */
static void test_redis_vectors_read(void) {
    unsigned char *lp = zmalloc(sizeof redis_hash_ints);
    memcpy(lp, redis_hash_ints, sizeof redis_hash_ints);
    CHECK(lpValidateIntegrity(lp, sizeof redis_hash_ints, 1, NULL, NULL));
    CHECK_EQ_INT(lpLength(lp), 52);
    unsigned char *p = lpFirst(lp);
    for (size_t i = 0; i < 26 && p; i++) {
        char field[2] = {(char)('a' + i), 0};
        CHECK(entry_is(p, field));
        p = lpNext(lp, p);
        CHECK(entry_is(p, redis_hash_ints_values[i]));
        p = lpNext(lp, p);
    }
    CHECK(p == NULL);
    zfree(lp);
}

/* The reference server's entry sizes at each backlen size boundary: a hash
 * with one field "k" and a value of n 'x's; expected total bytes and the
 * last bytes of the blob (value end, backlen, terminator). */
static void test_redis_backlen_boundaries(void) {
    static const struct { size_t n, total; unsigned char tail[6]; size_t tail_len; } rows[] = {
        {63, 75, {0x78, 0x40, 0xff}, 3},
        {64, 77, {0x78, 0x42, 0xff}, 3},
        {125, 138, {0x78, 0x7f, 0xff}, 3},
        {126, 140, {0x78, 0x01, 0x80, 0xff}, 4},
        {4095, 4109, {0x78, 0x20, 0x81, 0xff}, 4},
        {4096, 4113, {0x78, 0x20, 0x85, 0xff}, 4},
        {16377, 16394, {0x78, 0x7f, 0xfe, 0xff}, 4},
        {16378, 16396, {0x78, 0x00, 0xff, 0xff, 0xff}, 5},
        {2097146, 2097165, {0x78, 0x00, 0xff, 0xff, 0xff, 0xff}, 6},
        {2097147, 2097166, {0x78, 0x01, 0x80, 0x80, 0x80, 0xff}, 6},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        unsigned char *v = make_bytes(rows[i].n, 'x');
        unsigned char *lp = lpNew(0);
        lp = append_str(lp, "k");
        lp = lpAppend(lp, v, rows[i].n);
        CHECK_EQ_INT(lpBytes(lp), rows[i].total);
        CHECK_EQ_MEM(lp + lpBytes(lp) - rows[i].tail_len, rows[i].tail, rows[i].tail_len);
        CHECK(lpValidateIntegrity(lp, lpBytes(lp), 1, NULL, NULL));
        unsigned char *last = lpLast(lp);
        size_t len = 0;
        long long ll;
        CHECK(lpGetValue(last, &len, &ll) != NULL);
        CHECK_EQ_INT(len, rows[i].n);
        CHECK(entry_is(lpPrev(lp, last), "k"));
        lpFree(lp);
        free(v);
    }
}


/* ---- encodings at their boundaries ----------------------------------------- */

/* Integer boundaries: each value round-trips, and the entry size (encoding
 * + data + 1-byte backlen) is the width the format prescribes. */
static void test_integer_boundaries(void) {
    static const struct { long long v; size_t entry; } rows[] = {
        {0, 2}, {127, 2}, {128, 3}, {-1, 3}, {4095, 3}, {-4096, 3}, {4096, 4}, {-4097, 4},
        {32767, 4}, {-32768, 4}, {32768, 5}, {-32769, 5}, {8388607, 5}, {-8388608, 5},
        {8388608, 6}, {-8388609, 6}, {INT32_MAX, 6}, {INT32_MIN, 6}, {(long long)INT32_MAX + 1, 10},
        {(long long)INT32_MIN - 1, 10}, {LLONG_MAX, 10}, {LLONG_MIN, 10},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        unsigned char *lp = lpAppendInteger(lpNew(0), rows[i].v);
        CHECK_EQ_INT(lpBytes(lp), LP_HDR_SIZE + 1 + rows[i].entry);
        long long got = 0;
        size_t len;
        CHECK(lpGetValue(lpFirst(lp), &len, &got) == NULL);
        CHECK_EQ_INT(got, rows[i].v);
        /* The same value given as text is stored identically. */
        char text[LP_INTBUF_SIZE];
        int tlen = ll2string(text, sizeof text, rows[i].v);
        unsigned char *lp2 = lpAppend(lpNew(0), (unsigned char *)text, (size_t)tlen);
        CHECK_EQ_INT(lpBytes(lp2), lpBytes(lp));
        CHECK_EQ_MEM(lp2, lp, lpBytes(lp));
        CHECK(lpCompare(lpFirst(lp), (unsigned char *)text, (size_t)tlen));
        lpFree(lp);
        lpFree(lp2);
    }
}

/* String boundaries: header widths 1/2/5, backlen widths, and that
 * integer-looking but non-canonical strings stay strings. */
static void test_string_boundaries(void) {
    static const struct { size_t len; size_t entry; } rows[] = {
        {0, 2}, {1, 3}, {63, 65}, {64, 66 + 1}, {125, 127 + 1}, {126, 128 + 2}, {4095, 4097 + 2},
        {4096, 4101 + 2}, {70000, 70005 + 3},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        unsigned char *s = make_bytes(rows[i].len, 'q');
        unsigned char *lp = lpAppend(lpNew(0), s, rows[i].len);
        CHECK_EQ_INT(lpBytes(lp), LP_HDR_SIZE + 1 + rows[i].entry);
        size_t len = 99;
        long long ll;
        const unsigned char *got = lpGetValue(lpFirst(lp), &len, &ll);
        CHECK(got != NULL);
        CHECK_EQ_INT(len, rows[i].len);
        CHECK(got && memcmp(got, s, len) == 0);
        CHECK(lpCompare(lpFirst(lp), s, rows[i].len));
        CHECK(!lpCompare(lpFirst(lp), (const unsigned char *)"x", 1));
        CHECK(lpValidateIntegrity(lp, lpBytes(lp), 1, NULL, NULL));
        lpFree(lp);
        free(s);
    }
    const char *not_ints[] = {"01", "-0", "+1", " 1", "1 ", "1.0", "9223372036854775808", "-", "0x1"};
    for (size_t i = 0; i < sizeof not_ints / sizeof not_ints[0]; i++) {
        unsigned char *lp = append_str(lpNew(0), not_ints[i]);
        size_t len;
        long long ll;
        CHECK(lpGetValue(lpFirst(lp), &len, &ll) != NULL);
        CHECK(entry_is(lpFirst(lp), not_ints[i]));
        lpFree(lp);
    }
}

/* Walking both ways across entries of every backlen size (1, 2, 3 bytes). */
static void test_walk_both_ways(void) {
    static const size_t sizes[] = {0, 5, 100, 126, 127, 200, 4000, 16377, 16378, 20000, 3, 70000};
    size_t n = sizeof sizes / sizeof sizes[0];
    unsigned char *lp = lpNew(0);
    for (size_t i = 0; i < n; i++) {
        unsigned char *s = make_bytes(sizes[i], (char)('a' + i));
        lp = lpAppend(lp, s, sizes[i]);
        free(s);
    }
    CHECK_EQ_INT(lpLength(lp), n);
    size_t i = 0;
    for (unsigned char *p = lpFirst(lp); p; p = lpNext(lp, p), i++) {
        size_t len;
        long long ll;
        lpGetValue(p, &len, &ll);
        CHECK_EQ_INT(len, sizes[i]);
    }
    CHECK_EQ_INT(i, n);
    for (unsigned char *p = lpLast(lp); p; p = lpPrev(lp, p)) {
        size_t len;
        long long ll;
        i--;
        const unsigned char *v = lpGetValue(p, &len, &ll);
        CHECK_EQ_INT(len, sizes[i]);
        CHECK(len == 0 || v[0] == 'a' + i);
        CHECK(lpSeek(lp, (long)i) == p);
        CHECK(lpSeek(lp, (long)i - (long)n) == p);
    }
    CHECK_EQ_INT(i, 0);
    CHECK(lpSeek(lp, (long)n) == NULL);
    CHECK(lpSeek(lp, -(long)n - 1) == NULL);
    lpFree(lp);
}

/* ---- editing ---------------------------------------------------------------- */

static void test_empty(void) {
    unsigned char *lp = lpNew(0);
    CHECK_EQ_INT(lpBytes(lp), 7);
    CHECK_EQ_INT(lpLength(lp), 0);
    CHECK(lpFirst(lp) == NULL);
    CHECK(lpLast(lp) == NULL);
    CHECK(lpSeek(lp, 0) == NULL);
    CHECK(lpSeek(lp, -1) == NULL);
    CHECK(lpFind(lp, lpFirst(lp), (const unsigned char *)"a", 1, 0) == NULL);
    CHECK(lpValidateIntegrity(lp, 7, 1, NULL, NULL));
    lp = lpDeleteRange(lp, 0, 10);
    CHECK_EQ_INT(lpLength(lp), 0);
    unsigned char *dup = lpDup(lp);
    CHECK_EQ_MEM(dup, lp, 7);
    lpFree(dup);
    lp = lpShrinkToFit(lp);
    CHECK_EQ_INT(lpBytes(lp), 7);
    lpFree(lp);
}

static void test_insert_replace_delete(void) {
    unsigned char *lp = lpNew(64), *p, *newp;
    lp = append_str(lp, "b");
    lp = append_str(lp, "d");
    lp = lpPrepend(lp, (const unsigned char *)"a", 1);
    lp = lpAppendInteger(lp, 5);
    lp = lpPrependInteger(lp, -7);
    /* -7 a b d 5 */
    p = lpSeek(lp, 2);
    lp = lpInsertString(lp, (const unsigned char *)"c", 1, p, LP_AFTER, &newp);
    CHECK(entry_is(newp, "c"));
    p = lpSeek(lp, 0);
    lp = lpInsertInteger(lp, 1000, p, LP_BEFORE, &newp);
    CHECK(entry_is(newp, "1000"));
    /* 1000 -7 a b c d 5 */
    CHECK_EQ_INT(lpLength(lp), 7);
    const char *want[] = {"1000", "-7", "a", "b", "c", "d", "5"};
    p = lpFirst(lp);
    for (int i = 0; i < 7; i++, p = lpNext(lp, p)) CHECK(entry_is(p, want[i]));

    p = lpSeek(lp, 3);
    lp = lpReplace(lp, &p, (const unsigned char *)"BBBBBBBBBBBB", 12);
    CHECK(entry_is(p, "BBBBBBBBBBBB"));
    CHECK(entry_is(lpNext(lp, p), "c"));
    lp = lpReplaceInteger(lp, &p, 77);
    CHECK(entry_is(p, "77"));
    CHECK(entry_is(lpPrev(lp, p), "a"));
    /* Replace with a string taken from the listpack itself. */
    p = lpSeek(lp, 2);
    size_t len;
    long long ll;
    const unsigned char *self = lpGetValue(lpSeek(lp, 5), &len, &ll); /* "d" */
    lp = lpReplace(lp, &p, self, len);
    CHECK(entry_is(p, "d"));

    p = lpSeek(lp, 1);
    lp = lpDelete(lp, p, &newp);
    CHECK(entry_is(newp, "d"));
    p = lpLast(lp);
    lp = lpDelete(lp, p, &newp);
    CHECK(newp == NULL);
    /* 1000 d 77 c d */
    const char *want2[] = {"1000", "d", "77", "c", "d"};
    CHECK_EQ_INT(lpLength(lp), 5);
    p = lpFirst(lp);
    for (int i = 0; i < 5; i++, p = lpNext(lp, p)) CHECK(entry_is(p, want2[i]));
    CHECK(lpValidateIntegrity(lp, lpBytes(lp), 1, NULL, NULL));

    lp = lpDeleteRange(lp, -2, 10);
    CHECK_EQ_INT(lpLength(lp), 3);
    CHECK(entry_is(lpLast(lp), "77"));
    p = lpFirst(lp);
    lp = lpDeleteRangeWithEntry(lp, &p, 2);
    CHECK(entry_is(p, "77"));
    CHECK_EQ_INT(lpLength(lp), 1);
    lp = lpDeleteRangeWithEntry(lp, &p, 5);
    CHECK(p == NULL);
    CHECK_EQ_INT(lpLength(lp), 0);
    CHECK_EQ_INT(lpBytes(lp), 7);
    lpFree(lp);
}

static void test_find_with_skip(void) {
    unsigned char *lp = lpNew(0);
    const char *kv[] = {"a", "b", "b", "c", "12", "a", "c", "12", "x", ""};
    for (int i = 0; i < 10; i++) lp = append_str(lp, kv[i]);
    unsigned char *first = lpFirst(lp);
    CHECK(lpFind(lp, first, (const unsigned char *)"b", 1, 1) == lpSeek(lp, 2));
    CHECK(lpFind(lp, first, (const unsigned char *)"b", 1, 0) == lpSeek(lp, 1));
    CHECK(lpFind(lp, first, (const unsigned char *)"c", 1, 1) == lpSeek(lp, 6));
    CHECK(lpFind(lp, first, (const unsigned char *)"12", 2, 1) == lpSeek(lp, 4));
    CHECK(lpFind(lp, first, (const unsigned char *)"12", 2, 0) == lpSeek(lp, 4));
    CHECK(lpFind(lp, lpSeek(lp, 1), (const unsigned char *)"12", 2, 1) == lpSeek(lp, 7));
    CHECK(lpFind(lp, first, (const unsigned char *)"012", 3, 0) == NULL);
    CHECK(lpFind(lp, first, (const unsigned char *)"", 0, 0) == lpSeek(lp, 9));
    CHECK(lpFind(lp, first, (const unsigned char *)"", 0, 1) == NULL);
    CHECK(lpFind(lp, first, (const unsigned char *)"x", 1, 1) == lpSeek(lp, 8));
    CHECK(lpFind(lp, first, (const unsigned char *)"zz", 2, 0) == NULL);
    lpFree(lp);
}

static void test_merge(void) {
    for (int bigger_second = 0; bigger_second < 2; bigger_second++) {
        unsigned char *a = lpNew(0), *b = lpNew(0);
        for (int i = 0; i < 5; i++) a = lpAppendInteger(a, i);
        for (int i = 5; i < (bigger_second ? 50 : 8); i++) b = lpAppendInteger(b, i);
        unsigned char *m = lpMerge(&a, &b);
        CHECK(m != NULL);
        CHECK(bigger_second ? (a == NULL && b == m) : (b == NULL && a == m));
        long n = bigger_second ? 50 : 8;
        CHECK_EQ_INT(lpLength(m), n);
        long i = 0;
        for (unsigned char *p = lpFirst(m); p; p = lpNext(m, p), i++) {
            size_t len;
            long long ll = -1;
            lpGetValue(p, &len, &ll);
            CHECK_EQ_INT(ll, i);
        }
        CHECK_EQ_INT(i, n);
        CHECK(lpValidateIntegrity(m, lpBytes(m), 1, NULL, NULL));
        lpFree(m);
    }
    unsigned char *a = lpNew(0), *none = NULL;
    CHECK(lpMerge(&a, &none) == NULL);
    CHECK(lpMerge(&a, &a) == NULL);
    lpFree(a);
}

/* Past 65534 entries the header count reads 65535 ("unknown") and the
 * length is counted; it becomes exact again once it falls below. */
static void test_count_saturation(void) {
    unsigned char *lp = lpNew(0);
    unsigned long n = 65540;
    for (unsigned long i = 0; i < n; i++) lp = lpAppendInteger(lp, (long long)(i % 100));
    CHECK_EQ_INT(lp[4] | (lp[5] << 8), 65535);
    CHECK_EQ_INT(lpLength(lp), n);
    CHECK(lpValidateIntegrity(lp, lpBytes(lp), 1, NULL, NULL));
    lp = lpDeleteRange(lp, 0, 3);
    CHECK_EQ_INT(lp[4] | (lp[5] << 8), 65535);
    CHECK_EQ_INT(lpLength(lp), n - 3);
    lp = lpDeleteRange(lp, -10, 10);
    CHECK_EQ_INT(lpLength(lp), n - 13);
    CHECK_EQ_INT(lp[4] | (lp[5] << 8), n - 13); /* counted and cached */
    lp = lpAppendInteger(lp, 1);
    CHECK_EQ_INT(lpLength(lp), n - 12);
    CHECK(lpSeek(lp, -1) != NULL);
    CHECK(lpSeek(lp, 40000) != NULL);
    lpFree(lp);
}

static void test_safe_to_add(void) {
    unsigned char *lp = lpNew(0);
    CHECK(lpSafeToAdd(lp, 100));
    CHECK(lpSafeToAdd(NULL, (size_t)1 << 30));
    CHECK(!lpSafeToAdd(NULL, ((size_t)1 << 30) + 1));
    CHECK(!lpSafeToAdd(lp, ((size_t)1 << 30)));
    CHECK(!lpSafeToAdd(lp, SIZE_MAX));
    lpFree(lp);
}

/* ---- random operations against a model --------------------------------------- */


/* Random element text: integers of every width, strings of every header
 * width, integer-looking non-integers. */
static size_t random_element(char *buf) {
    switch (test_rand() % 7) {
    case 0: return (size_t)ll2string(buf, 32, (long long)(test_rand() % 300) - 150);
    case 1: {
        long long v = (long long)(test_rand() >> (test_rand() % 64));
        if (test_rand() & 1) v = -v;
        return (size_t)ll2string(buf, 32, v);
    }
    case 2: return (size_t)snprintf(buf, 32, "0%u", (unsigned)(test_rand() % 100));
    case 3: {
        size_t n = test_rand() % 5000;
        if (test_rand() % 4) n %= 200;
        for (size_t i = 0; i < n; i++) buf[i] = (char)('a' + test_rand() % 26);
        return n;
    }
    default: {
        size_t n = test_rand() % 8;
        for (size_t i = 0; i < n; i++) buf[i] = (char)('a' + test_rand() % 4);
        return n;
    }
    }
}

static int lp_matches_model(unsigned char *lp, const model *m) {
    if (lpLength(lp) != m->n) return 0;
    size_t i = 0;
    char buf[LP_INTBUF_SIZE];
    for (unsigned char *p = lpFirst(lp); p; p = lpNext(lp, p), i++) {
        size_t len;
        const unsigned char *s = lpGetString(p, &len, (unsigned char *)buf);
        if (i >= m->n || len != m->len[i] || memcmp(s, m->v[i], len) != 0) return 0;
    }
    if (i != m->n) return 0;
    for (unsigned char *p = lpLast(lp); p; p = lpPrev(lp, p)) {
        if (i == 0 || !lpCompare(p, (unsigned char *)m->v[i - 1], m->len[i - 1])) return 0;
        i--;
    }
    return i == 0 && lpValidateIntegrity(lp, lpBytes(lp), 1, NULL, NULL);
}

static void lp_random_step(unsigned char **lpp, model *m, char *buf) {
    unsigned char *lp = *lpp, *p, *newp;
    size_t len = random_element(buf);
    size_t at = m->n ? test_rand() % m->n : 0;
    switch (test_rand() % 9) {
    case 0: lp = lpAppend(lp, (unsigned char *)buf, len); model_insert(m, m->n, buf, len); break;
    case 1: lp = lpPrepend(lp, (unsigned char *)buf, len); model_insert(m, 0, buf, len); break;
    case 2:
        if (!m->n) break;
        p = lpSeek(lp, (long)at);
        lp = lpInsertString(lp, (unsigned char *)buf, len, p, LP_AFTER, &newp);
        model_insert(m, at + 1, buf, len);
        CHECK(lpCompare(newp, (unsigned char *)buf, len));
        break;
    case 3:
        if (!m->n) break;
        p = lpSeek(lp, (long)at - (long)m->n);
        lp = lpInsertString(lp, (unsigned char *)buf, len, p, LP_BEFORE, &newp);
        model_insert(m, at, buf, len);
        CHECK(lpCompare(newp, (unsigned char *)buf, len));
        break;
    case 4:
        if (!m->n) break;
        p = lpSeek(lp, (long)at);
        lp = lpReplace(lp, &p, (unsigned char *)buf, len);
        model_delete(m, at, 1);
        model_insert(m, at, buf, len);
        CHECK(lpCompare(p, (unsigned char *)buf, len));
        break;
    case 5:
        if (!m->n) break;
        p = lpSeek(lp, (long)at);
        lp = lpDelete(lp, p, &newp);
        model_delete(m, at, 1);
        CHECK(at < m->n ? lpCompare(newp, (unsigned char *)m->v[at], m->len[at]) : newp == NULL);
        break;
    case 6: {
        if (!m->n) break;
        size_t count = test_rand() % 5;
        lp = lpDeleteRange(lp, (long)at, count);
        model_delete(m, at, count < m->n - at ? count : m->n - at);
        break;
    }
    case 7: { /* lpFind against a linear search of the model */
        size_t skip = test_rand() % 3;
        size_t want = SIZE_MAX;
        for (size_t i = 0; i < m->n; i += skip + 1)
            if (m->len[i] == len && memcmp(m->v[i], buf, len) == 0) { want = i; break; }
        p = lpFind(lp, lpFirst(lp), (unsigned char *)buf, len, (unsigned)skip);
        CHECK(want == SIZE_MAX ? p == NULL : p == lpSeek(lp, (long)want));
        break;
    }
    default: {
        long long v = (long long)(test_rand() >> (test_rand() % 64)) * ((test_rand() & 1) ? -1 : 1);
        lp = lpAppendInteger(lp, v);
        char t[LP_INTBUF_SIZE];
        model_insert(m, m->n, t, (size_t)ll2string(t, sizeof t, v));
        break;
    }
    }
    *lpp = lp;
}

static void test_random_against_model(void) {
    unsigned long rounds = test_scaled(4000);
    char *buf = malloc(6000);
    for (int trial = 0; trial < 4; trial++) {
        unsigned char *lp = lpNew(0);
        model m = {0};
        int failures_before = test_current_failures;
        for (unsigned long i = 0; i < rounds / 4 && test_current_failures == failures_before; i++) {
            lp_random_step(&lp, &m, buf);
            if ((i % 8 == 0 || m.n < 8) && !lp_matches_model(lp, &m)) {
                printf("    mismatch at trial %d step %lu\n", trial, i);
                CHECK(0);
            }
        }
        CHECK(lp_matches_model(lp, &m));
        model_free(&m);
        lpFree(lp);
    }
    free(buf);
}

/* ---- untrusted blobs ---------------------------------------------------------- */

static int reject_big_ints(unsigned char *p, unsigned int head_count, void *ud) {
    (void)head_count;
    int *seen = ud;
    (*seen)++;
    size_t len;
    long long v = 0;
    return lpGetValue(p, &len, &v) != NULL || v < 1000;
}

static void test_validate_basics(void) {
    unsigned char *lp = lpNew(0);
    lp = append_str(lp, "a");
    lp = lpAppendInteger(lp, 5);
    size_t n = lpBytes(lp);
    CHECK(lpValidateIntegrity(lp, n, 0, NULL, NULL));
    CHECK(lpValidateIntegrity(lp, n, 1, NULL, NULL));
    CHECK(!lpValidateIntegrity(lp, n - 1, 0, NULL, NULL));
    CHECK(!lpValidateIntegrity(lp, 6, 1, NULL, NULL));
    CHECK(!lpValidateIntegrity(lp, 0, 1, NULL, NULL));
    int seen = 0;
    CHECK(lpValidateIntegrity(lp, n, 1, reject_big_ints, &seen));
    CHECK_EQ_INT(seen, 2);
    lp = lpAppendInteger(lp, 5000);
    seen = 0;
    CHECK(!lpValidateIntegrity(lp, lpBytes(lp), 1, reject_big_ints, &seen));
    CHECK_EQ_INT(seen, 3);
    /* A wrong header count, a bad encoding byte, a bad backlen. */
    lp[4] = 9;
    CHECK(!lpValidateIntegrity(lp, lpBytes(lp), 1, NULL, NULL));
    CHECK(lpValidateIntegrity(lp, lpBytes(lp), 0, NULL, NULL));
    lp[4] = 3;
    lp[6] = 0xF7;
    CHECK(!lpValidateIntegrity(lp, lpBytes(lp), 1, NULL, NULL));
    lp[6] = 0x81;
    lp[8] = 3;
    CHECK(!lpValidateIntegrity(lp, lpBytes(lp), 1, NULL, NULL));
    lp[8] = 2;
    CHECK(lpValidateIntegrity(lp, lpBytes(lp), 1, NULL, NULL));
    lpFree(lp);
}

/* A valid blob with entries of every encoding. */
static unsigned char *varied_listpack(void) {
    unsigned char *lp = lpNew(0);
    static const long long ints[] = {0, 100, -1, 4000, -30000, 8000000, -2000000000, LLONG_MAX};
    for (size_t i = 0; i < 8; i++) lp = lpAppendInteger(lp, ints[i]);
    static const size_t lens[] = {0, 10, 63, 64, 200, 4096};
    for (size_t i = 0; i < 6; i++) {
        unsigned char *s = make_bytes(lens[i], (char)('k' + i));
        lp = lpAppend(lp, s, lens[i]);
        free(s);
    }
    return lp;
}

/* If the validator accepts a blob, walking it must be safe and consistent. */
static unsigned long walk_checksum; /* touches every byte the walk hands out */

static void walk_accepted(unsigned char *blob) {
    unsigned long forward = 0, backward = 0;
    unsigned char ibuf[LP_INTBUF_SIZE];
    for (unsigned char *p = lpFirst(blob); p; p = lpNext(blob, p)) {
        size_t len;
        const unsigned char *s = lpGetString(p, &len, ibuf);
        for (size_t i = 0; i < len; i++) walk_checksum += s[i];
        forward++;
    }
    for (unsigned char *p = lpLast(blob); p; p = lpPrev(blob, p)) backward++;
    CHECK_EQ_INT(forward, backward);
    CHECK_EQ_INT(lpLength(blob), forward);
    if (forward) {
        CHECK(lpSeek(blob, -1) == lpLast(blob));
        lpFind(blob, lpFirst(blob), (const unsigned char *)"zz", 2, 1);
    }
}

static void test_corruption_fuzz(void) {
    unsigned char *good = varied_listpack();
    size_t n = lpBytes(good);
    unsigned long rounds = test_scaled(20000);
    unsigned long accepted = 0;
    for (unsigned long r = 0; r < rounds; r++) {
        size_t size = n;
        unsigned char *blob = malloc(n); /* exact size: ASan sees any overread */
        memcpy(blob, good, n);
        switch (test_rand() % 4) {
        case 0: /* flip a few bytes */
            for (int k = 1 + (int)(test_rand() % 3); k > 0; k--) blob[test_rand() % n] ^= (unsigned char)(1 + test_rand() % 255);
            break;
        case 1: /* random byte values in one entry area, header fixed */
            blob[LP_HDR_SIZE + test_rand() % (n - LP_HDR_SIZE)] = (unsigned char)test_rand();
            break;
        case 2: /* truncated, header and terminator patched to match */
            size = LP_HDR_SIZE + 1 + test_rand() % (n - LP_HDR_SIZE - 1);
            blob[0] = (unsigned char)size; blob[1] = (unsigned char)(size >> 8);
            blob[2] = blob[3] = 0;
            blob[size - 1] = 0xFF;
            if (test_rand() & 1) blob[4] = blob[5] = 0xFF;
            break;
        default: /* a lying length field */
            blob[LP_HDR_SIZE + test_rand() % (n - LP_HDR_SIZE)] = (unsigned char)(0xE0 | (test_rand() & 0x1F));
            break;
        }
        unsigned char *exact = malloc(size);
        memcpy(exact, blob, size);
        free(blob);
        if (lpValidateIntegrity(exact, size, 1, NULL, NULL)) {
            accepted++;
            walk_accepted(exact);
        }
        free(exact);
    }
    CHECK(accepted > 0); /* some truncations and harmless flips pass */
    CHECK(accepted < rounds);
    lpFree(good);
}

/* Any byte string whatsoever, of any size, with a matching header. */
static void test_random_blobs(void) {
    unsigned long rounds = test_scaled(20000);
    for (unsigned long r = 0; r < rounds; r++) {
        size_t size = test_rand() % 40;
        unsigned char *blob = malloc(size ? size : 1);
        for (size_t i = 0; i < size; i++) blob[i] = (unsigned char)test_rand();
        if (size >= 7 && (r & 1)) {
            blob[0] = (unsigned char)size; blob[1] = blob[2] = blob[3] = 0;
            blob[size - 1] = 0xFF;
        }
        if (lpValidateIntegrity(blob, size, 1, NULL, NULL)) walk_accepted(blob);
        free(blob);
    }
}

TEST_MAIN(
    test_rand_seed(0x2545f4914f6cdd1dULL);
    RUN(test_redis_vectors);
    RUN(test_redis_vectors_read);
    RUN(test_redis_backlen_boundaries);
    RUN(test_integer_boundaries);
    RUN(test_string_boundaries);
    RUN(test_walk_both_ways);
    RUN(test_empty);
    RUN(test_insert_replace_delete);
    RUN(test_find_with_skip);
    RUN(test_merge);
    RUN(test_count_saturation);
    RUN(test_safe_to_add);
    RUN(test_random_against_model);
    RUN(test_validate_basics);
    RUN(test_corruption_fuzz);
    RUN(test_random_blobs);
)
