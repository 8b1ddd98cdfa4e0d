/* test_ziplist.c -- the read-only ziplist and zipmap libraries
 * (src/lib/ziplist.c, src/lib/zipmap.c).
 *
 * Hand-written byte blobs for every encoding and its boundaries (the
 * 14- and 32-bit string lengths are big-endian, the integers little-endian,
 * prevlens 1 or 5 bytes), every header check, then fuzzing: random valid
 * blobs from a small builder written here (independent of the library,
 * which builds nothing) are checked against their model, then mutated and
 * truncated; the validator must reject or accept without reading outside
 * the blob (blobs are malloc'ed at their exact size, so ASan sees any
 * overread), and a blob it accepts must walk consistently.
 *
 * That the format is understood the same way Redis does is checked
 * elsewhere: tests/integration/rdb-legacy.tcl loads ziplists and zipmaps in
 * Redis 7.0.15 and here, and compares.
 */
#include <limits.h>

#include "portable.h"
#include "test.h"
#include "ziplist.h"
#include "zipmap.h"

/* ---- helpers ------------------------------------------------------------- */

/* A copy of the bytes in an exact-size allocation. */
static unsigned char *exact_copy(const unsigned char *p, size_t n) {
    unsigned char *b = malloc(n ? n : 1);
    if (n) memcpy(b, p, n);
    return b;
}

/* A ziplist with one entry whose encoding+data are `body` (prevlen 0). */
static size_t one_entry(unsigned char *out, const unsigned char *body, size_t n) {
    size_t size = ZIPLIST_HEADER_SIZE + 1 + n + 1;
    store32le(out, (uint32_t)size);
    store32le(out + 4, ZIPLIST_HEADER_SIZE);
    store16le(out + 8, 1);
    out[10] = 0;
    memcpy(out + 11, body, n);
    out[size - 1] = ZIPLIST_END;
    return size;
}

/* The single entry of a one-entry ziplist built around body: 0 if it does
 * not validate, 1 for an integer (in *ll), 2 for a string (its length in
 * *ll). */
static int single_entry(const unsigned char *body, size_t n, long long *ll) {
    unsigned char *buf = malloc(n + 12);
    size_t size = one_entry(buf, body, n);
    unsigned char *zl = exact_copy(buf, size);
    free(buf);
    ziplistIter it;
    ziplistValue v, end;
    unsigned long count = 0;
    int kind = 0;
    if (ziplistValidateIntegrity(zl, size, &count) && count == 1 && ziplistIterInit(&it, zl, size) &&
        ziplistIterNext(&it, &v) == 1 && ziplistIterNext(&it, &end) == 0) {
        kind = v.s ? 2 : 1;
        *ll = v.s ? (long long)v.len : v.ll;
    }
    free(zl);
    return kind;
}

static int int_entry(const unsigned char *body, size_t n, long long expected) {
    long long ll;
    return single_entry(body, n, &ll) == 1 && ll == expected;
}

/* ---- a ziplist builder for the tests (the library builds nothing) -------- */

typedef struct zlb {
    unsigned char *buf;
    size_t len, cap;
    size_t prev, tail;
    unsigned long count;
    int unknown; /* write zllen 65535 whatever the count */
} zlb;

static void zlb_put(zlb *b, const void *p, size_t n) {
    if (b->len + n > b->cap) {
        b->cap = (b->len + n) * 2;
        b->buf = realloc(b->buf, b->cap);
    }
    memcpy(b->buf + b->len, p, n);
    b->len += n;
}

static void zlb_init(zlb *b) {
    memset(b, 0, sizeof *b);
    unsigned char hdr[ZIPLIST_HEADER_SIZE] = {0};
    zlb_put(b, hdr, sizeof hdr);
}

static void zlb_prevlen(zlb *b, int force5) {
    unsigned char p[5];
    if (b->prev < 254 && !force5) {
        p[0] = (unsigned char)b->prev;
        zlb_put(b, p, 1);
    } else {
        p[0] = 0xFE;
        store32le(p + 1, (uint32_t)b->prev);
        zlb_put(b, p, 5);
    }
}

static void zlb_entry(zlb *b, const unsigned char *enc, size_t enclen, const void *data, size_t datalen,
                      int force5) {
    size_t start = b->len;
    zlb_prevlen(b, force5);
    zlb_put(b, enc, enclen);
    if (datalen) zlb_put(b, data, datalen);
    b->tail = start;
    b->prev = b->len - start;
    b->count++;
}

/* width 0: the smallest encoding; else 1, 2, 3, 4 or 8 bytes (must fit). */
static void zlb_int(zlb *b, long long v, int width, int force5) {
    unsigned char enc[1], d[8];
    if (width == 0) {
        if (v >= 0 && v <= 12) {
            enc[0] = (unsigned char)(0xF1 + v);
            zlb_entry(b, enc, 1, NULL, 0, force5);
            return;
        }
        width = (v >= -128 && v <= 127) ? 1 : (v >= -32768 && v <= 32767) ? 2
              : (v >= -(1 << 23) && v < (1 << 23)) ? 3 : (v >= INT32_MIN && v <= INT32_MAX) ? 4 : 8;
    }
    store64le(d, (uint64_t)v);
    enc[0] = width == 1 ? 0xFE : width == 2 ? 0xC0 : width == 3 ? 0xF0 : width == 4 ? 0xD0 : 0xE0;
    zlb_entry(b, enc, 1, d, (size_t)width, force5);
}

static void zlb_str(zlb *b, const void *s, size_t n, int force5) {
    unsigned char enc[5];
    size_t enclen;
    if (n < 64) {
        enc[0] = (unsigned char)n;
        enclen = 1;
    } else if (n < 16384) {
        enc[0] = (unsigned char)(0x40 | (n >> 8));
        enc[1] = (unsigned char)(n & 0xFF);
        enclen = 2;
    } else {
        enc[0] = 0x80;
        store32be(enc + 1, (uint32_t)n);
        enclen = 5;
    }
    zlb_entry(b, enc, enclen, s, n, force5);
}

/* Finishes the header and end byte; returns an exact-size copy. */
static unsigned char *zlb_finish(zlb *b, size_t *size) {
    unsigned char end = ZIPLIST_END;
    zlb_put(b, &end, 1);
    store32le(b->buf, (uint32_t)b->len);
    store32le(b->buf + 4, (uint32_t)(b->count ? b->tail : ZIPLIST_HEADER_SIZE));
    store16le(b->buf + 8, (uint16_t)(b->count < 65535 && !b->unknown ? b->count : 65535));
    *size = b->len;
    unsigned char *zl = exact_copy(b->buf, b->len);
    free(b->buf);
    return zl;
}

/* ---- hand-written blobs ----------------------------------------------------- */

static void test_documented_example(void) {
    /* Two entries, the integers 2 and 5, as the format's documentation draws them. */
    static const unsigned char zl[] = {0x0f, 0, 0, 0, 0x0c, 0, 0, 0, 0x02, 0, 0x00, 0xf3, 0x02, 0xf6, 0xff};
    unsigned char *b = exact_copy(zl, sizeof zl);
    unsigned long count = 0;
    CHECK(ziplistValidateIntegrity(b, sizeof zl, &count));
    CHECK_EQ_INT(count, 2);
    ziplistIter it;
    ziplistValue v;
    CHECK(ziplistIterInit(&it, b, sizeof zl));
    CHECK(ziplistIterNext(&it, &v) == 1 && v.s == NULL && v.ll == 2);
    CHECK(ziplistIterNext(&it, &v) == 1 && v.s == NULL && v.ll == 5);
    CHECK(ziplistIterNext(&it, &v) == 0);
    CHECK(ziplistIterNext(&it, &v) == 0); /* stays at the end */
    free(b);
}

static void test_integer_encodings(void) {
    static const unsigned char i8min[] = {0xFE, 0x80}, i8max[] = {0xFE, 0x7F};
    static const unsigned char i16min[] = {0xC0, 0x00, 0x80}, i16max[] = {0xC0, 0xFF, 0x7F};
    static const unsigned char i24min[] = {0xF0, 0x00, 0x00, 0x80}, i24max[] = {0xF0, 0xFF, 0xFF, 0x7F};
    static const unsigned char i24m1[] = {0xF0, 0xFF, 0xFF, 0xFF}, i24x[] = {0xF0, 0x56, 0x34, 0x12};
    static const unsigned char i32min[] = {0xD0, 0x00, 0x00, 0x00, 0x80}, i32max[] = {0xD0, 0xFF, 0xFF, 0xFF, 0x7F};
    static const unsigned char i64min[] = {0xE0, 0, 0, 0, 0, 0, 0, 0, 0x80};
    static const unsigned char i64max[] = {0xE0, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F};
    static const unsigned char i64x[] = {0xE0, 0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01};
    CHECK(int_entry(i8min, 2, -128));
    CHECK(int_entry(i8max, 2, 127));
    CHECK(int_entry(i16min, 3, -32768));
    CHECK(int_entry(i16max, 3, 32767));
    CHECK(int_entry(i24min, 4, -8388608));
    CHECK(int_entry(i24max, 4, 8388607));
    CHECK(int_entry(i24m1, 4, -1));
    CHECK(int_entry(i24x, 4, 0x123456));
    CHECK(int_entry(i32min, 5, INT32_MIN));
    CHECK(int_entry(i32max, 5, INT32_MAX));
    CHECK(int_entry(i64min, 9, LLONG_MIN));
    CHECK(int_entry(i64max, 9, LLONG_MAX));
    CHECK(int_entry(i64x, 9, 0x0102030405060708LL));
    for (unsigned char e = 0xF1; e <= 0xFD; e++) CHECK(int_entry(&e, 1, e - 0xF1));
}

static void test_unknown_encodings_rejected(void) {
    long long ll;
    unsigned char body[9] = {0};
    for (unsigned b = 0xC0; b <= 0xFF; b++) {
        int known = b == 0xC0 || b == 0xD0 || b == 0xE0 || b == 0xF0 || (b >= 0xF1 && b <= 0xFE);
        body[0] = (unsigned char)b;
        if (!known) CHECK(!single_entry(body, 9, &ll));
    }
    for (unsigned b = 0x81; b <= 0xBF; b++) { /* 10xxxxxx other than 0x80 */
        unsigned char s[6] = {(unsigned char)b, 0, 0, 0, 1, 'x'};
        CHECK(!single_entry(s, 6, &ll));
    }
}

/* A string entry with the given encoding header and n bytes of data: 1 if
 * it validates as a string of exactly n bytes. */
static int string_entry(const unsigned char *hdr, size_t hlen, size_t n) {
    unsigned char *body = malloc(hlen + n);
    memcpy(body, hdr, hlen);
    for (size_t i = 0; i < n; i++) body[hlen + i] = (unsigned char)('a' + i % 26);
    long long len;
    int ok = single_entry(body, hlen + n, &len) == 2 && len == (long long)n;
    free(body);
    return ok;
}

static void test_string_encodings(void) {
    unsigned char h6[1] = {0}, h14[2], h32[5];
    CHECK(string_entry(h6, 1, 0));
    h6[0] = 63;
    CHECK(string_entry(h6, 1, 63));
    h14[0] = 0x40, h14[1] = 64; /* 64: 01000000 01000000 */
    CHECK(string_entry(h14, 2, 64));
    h14[0] = 0x41, h14[1] = 0x2C; /* 300 = 0x012C, big-endian */
    CHECK(string_entry(h14, 2, 300));
    h14[0] = 0x7F, h14[1] = 0xFF;
    CHECK(string_entry(h14, 2, 16383));
    h32[0] = 0x80, h32[1] = 0, h32[2] = 0, h32[3] = 0x40, h32[4] = 0x00; /* 16384, big-endian */
    CHECK(string_entry(h32, 5, 16384));
    h32[3] = 0x01, h32[4] = 0x2C; /* a short string in the 32-bit form is still valid */
    CHECK(string_entry(h32, 5, 300));
    /* a length one byte longer than the data would swallow the end byte */
    h14[0] = 0x41, h14[1] = 0x2C;
    CHECK(!string_entry(h14, 2, 299));
    h32[3] = 0x40, h32[4] = 0x00;
    CHECK(!string_entry(h32, 5, 16383));
    /* read little-endian, 0x41 0x2C would be 0x2C01 & 0x3FFF = 11265 bytes: no such data here */
    h14[0] = 0x41, h14[1] = 0x2C;
    CHECK(!string_entry(h14, 2, 11265 & 0x3FFF));
    /* content comes back intact */
    static const unsigned char hello[] = {5, 'h', 'e', 'l', 'l', 'o'};
    unsigned char buf[32];
    size_t size = one_entry(buf, hello, sizeof hello);
    ziplistIter it;
    ziplistValue v;
    CHECK(ziplistIterInit(&it, buf, size) && ziplistIterNext(&it, &v) == 1);
    CHECK(v.s && v.len == 5 && memcmp(v.s, "hello", 5) == 0);
}

static void test_builder_every_size(void) {
    /* Strings of the boundary lengths, each followed by an entry whose
     * prevlen switches to 5 bytes once the previous entry is >= 254 bytes. */
    static const size_t lens[] = {0, 1, 62, 63, 64, 250, 251, 252, 253, 254, 16382, 16383, 16384, 70000};
    size_t nl = sizeof lens / sizeof lens[0];
    unsigned char *s = malloc(70000);
    for (size_t i = 0; i < 70000; i++) s[i] = (unsigned char)(i * 7);
    zlb b;
    zlb_init(&b);
    for (size_t i = 0; i < nl; i++) {
        zlb_str(&b, s, lens[i], 0);
        zlb_int(&b, (long long)i, 0, 0);
    }
    size_t size;
    unsigned char *zl = zlb_finish(&b, &size);
    unsigned long count = 0;
    CHECK(ziplistValidateIntegrity(zl, size, &count));
    CHECK_EQ_INT(count, nl * 2);
    ziplistIter it;
    ziplistValue v;
    ziplistIterInit(&it, zl, size);
    for (size_t i = 0; i < nl; i++) {
        CHECK(ziplistIterNext(&it, &v) == 1 && v.s && v.len == lens[i] && (lens[i] == 0 || memcmp(v.s, s, lens[i]) == 0));
        CHECK(ziplistIterNext(&it, &v) == 1 && !v.s && v.ll == (long long)i);
    }
    CHECK(ziplistIterNext(&it, &v) == 0);
    free(zl);
    free(s);
}

/* Three entries "aa", 1000, "bb" built by hand, for surgery. */
static size_t three(unsigned char *zl) {
    static const unsigned char body[] = {
        0x00, 0x02, 'a', 'a',       /* at 10: 4 bytes */
        0x04, 0xC0, 0xE8, 0x03,     /* at 14: prevlen 4, int16 1000 */
        0x04, 0x02, 'b', 'b',       /* at 18: prevlen 4 */
        0xFF};
    store32le(zl, 10 + sizeof body);
    store32le(zl + 4, 18);
    store16le(zl + 8, 3);
    memcpy(zl + 10, body, sizeof body);
    return 10 + sizeof body;
}

static int valid_after(void (*patch)(unsigned char *zl, size_t *size)) {
    unsigned char buf[64];
    size_t size = three(buf);
    patch(buf, &size);
    unsigned char *zl = exact_copy(buf, size);
    int ok = ziplistValidateIntegrity(zl, size, NULL);
    free(zl);
    return ok;
}

static void p_none(unsigned char *zl, size_t *s) { (void)zl, (void)s; }
static void p_zlbytes(unsigned char *zl, size_t *s) { store32le(zl, (uint32_t)*s + 1); }
static void p_size_short(unsigned char *zl, size_t *s) { (void)zl; *s -= 1; }
static void p_no_end(unsigned char *zl, size_t *s) { zl[*s - 1] = 0xFE; }
static void p_end_inside(unsigned char *zl, size_t *s) { (void)s; zl[18] = 0xFF; }
static void p_zltail_first(unsigned char *zl, size_t *s) { (void)s; store32le(zl + 4, 10); }
static void p_zltail_past(unsigned char *zl, size_t *s) { (void)s; store32le(zl + 4, 0xFFFFFFF0u); }
static void p_zllen_more(unsigned char *zl, size_t *s) { (void)s; store16le(zl + 8, 4); }
static void p_zllen_less(unsigned char *zl, size_t *s) { (void)s; store16le(zl + 8, 2); }
static void p_zllen_unknown(unsigned char *zl, size_t *s) { (void)s; store16le(zl + 8, 65535); }
static void p_prevlen_first(unsigned char *zl, size_t *s) { (void)s; zl[10] = 1; }
static void p_prevlen_off(unsigned char *zl, size_t *s) { (void)s; zl[14] = 5; }
static void p_strlen_long(unsigned char *zl, size_t *s) { (void)s; zl[19] = 0x03; }
static void p_prevlen_ff(unsigned char *zl, size_t *s) { (void)s; zl[14] = 0xFF; }
static void p_truncated(unsigned char *zl, size_t *s) { /* cut inside "bb", end byte and zlbytes fixed */
    *s = 21;
    zl[20] = 0xFF;
    store32le(zl, 21);
}

static void test_header_and_structure_checks(void) {
    CHECK(valid_after(p_none));
    CHECK(!valid_after(p_zlbytes));
    CHECK(!valid_after(p_size_short));
    CHECK(!valid_after(p_no_end));
    CHECK(!valid_after(p_end_inside));
    CHECK(!valid_after(p_zltail_first));
    CHECK(!valid_after(p_zltail_past));
    CHECK(!valid_after(p_zllen_more));
    CHECK(!valid_after(p_zllen_less));
    CHECK(valid_after(p_zllen_unknown)); /* 65535: count them */
    CHECK(!valid_after(p_prevlen_first));
    CHECK(!valid_after(p_prevlen_off));
    CHECK(!valid_after(p_strlen_long));
    CHECK(!valid_after(p_prevlen_ff));
    CHECK(!valid_after(p_truncated));
    /* too small, NULL */
    static const unsigned char tiny[] = {10, 0, 0, 0, 10, 0, 0, 0, 0, 0};
    CHECK(!ziplistValidateIntegrity(tiny, sizeof tiny, NULL));
    CHECK(!ziplistValidateIntegrity(NULL, 0, NULL));
    /* the iterator hands out entries until it meets the corruption */
    unsigned char buf[64];
    size_t size = three(buf);
    buf[18] = 9; /* the third entry's prevlen */
    ziplistIter it;
    ziplistValue v;
    CHECK(ziplistIterInit(&it, buf, size));
    CHECK(ziplistIterNext(&it, &v) == 1);
    CHECK(ziplistIterNext(&it, &v) == 1 && v.ll == 1000);
    CHECK(ziplistIterNext(&it, &v) == -1);
    CHECK(ziplistIterNext(&it, &v) == -1);
}

static void test_empty_ziplist(void) {
    unsigned char zl[11] = {11, 0, 0, 0, 10, 0, 0, 0, 0, 0, 0xFF};
    unsigned long count = 7;
    CHECK(ziplistValidateIntegrity(zl, 11, &count));
    CHECK_EQ_INT(count, 0);
    zl[4] = 11; /* zltail must point at the end byte's offset 10 */
    CHECK(!ziplistValidateIntegrity(zl, 11, NULL));
    zl[4] = 10;
    zl[8] = 1;
    CHECK(!ziplistValidateIntegrity(zl, 11, NULL));
}

static void test_prevlen_forms(void) {
    unsigned char big[300];
    memset(big, 'x', sizeof big);
    /* a small previous size in the 5-byte form (Redis's cascade update leaves these) */
    zlb b;
    zlb_init(&b);
    zlb_str(&b, "a", 1, 0);
    zlb_str(&b, "b", 1, 1);
    zlb_str(&b, big, 300, 1);
    zlb_str(&b, "c", 1, 0); /* 5 bytes needed: the previous entry is 5 + 2 + 300 bytes */
    size_t size;
    unsigned char *zl = zlb_finish(&b, &size);
    unsigned long count;
    CHECK(ziplistValidateIntegrity(zl, size, &count) && count == 4);
    /* the last entry's prevlen: FE + 307 LE */
    size_t last = load32le(zl + 4);
    CHECK(zl[last] == 0xFE && load32le(zl + last + 1) == 307);
    store32le(zl + last + 1, 308);
    CHECK(!ziplistValidateIntegrity(zl, size, NULL));
    free(zl);
    /* a 5-byte prevlen cut by the end */
    unsigned char tail[] = {16, 0, 0, 0, 10, 0, 0, 0, 1, 0, 0xFE, 0, 0, 0, 0, 0xFF};
    CHECK(!ziplistValidateIntegrity(tail, sizeof tail, NULL));
}

static void test_count_saturation(void) {
    zlb b;
    zlb_init(&b);
    for (int i = 0; i < 70000; i++) zlb_int(&b, i % 13, 0, 0);
    size_t size;
    unsigned char *zl = zlb_finish(&b, &size);
    unsigned long count;
    CHECK(load16le(zl + 8) == 65535);
    CHECK(ziplistValidateIntegrity(zl, size, &count) && count == 70000);
    free(zl);
}

/* ---- zipmap ------------------------------------------------------------------- */

static int zm_valid(const unsigned char *bytes, size_t n, unsigned long *pairs) {
    unsigned char *zm = exact_copy(bytes, n);
    int ok = zipmapValidateIntegrity(zm, n, pairs);
    free(zm);
    return ok;
}

static void test_zipmap_basics(void) {
    /* "foo" => "bar", "hello" => "world" (free byte 2 after "world") */
    static const unsigned char zm[] = {2, 3, 'f', 'o', 'o', 3, 0, 'b', 'a', 'r', 5, 'h', 'e', 'l', 'l', 'o',
                                       5, 2, 'w', 'o', 'r', 'l', 'd', 0, 0, 0xFF};
    unsigned long pairs = 0;
    CHECK(zm_valid(zm, sizeof zm, &pairs) && pairs == 2);
    zipmapIter it;
    const unsigned char *f, *v;
    size_t fl, vl;
    CHECK(zipmapIterInit(&it, zm, sizeof zm));
    CHECK(zipmapIterNext(&it, &f, &fl, &v, &vl) == 1 && fl == 3 && memcmp(f, "foo", 3) == 0 && vl == 3 &&
          memcmp(v, "bar", 3) == 0);
    CHECK(zipmapIterNext(&it, &f, &fl, &v, &vl) == 1 && fl == 5 && memcmp(f, "hello", 5) == 0 && vl == 5 &&
          memcmp(v, "world", 5) == 0);
    CHECK(zipmapIterNext(&it, &f, &fl, &v, &vl) == 0);
    unsigned char bad[sizeof zm];
    memcpy(bad, zm, sizeof zm);
    bad[0] = 3; /* zmlen says 3 */
    CHECK(!zm_valid(bad, sizeof bad, NULL));
    bad[0] = 254; /* "count them" */
    CHECK(zm_valid(bad, sizeof bad, &pairs) && pairs == 2);
    bad[0] = 255;
    CHECK(!zm_valid(bad, sizeof bad, NULL));
    memcpy(bad, zm, sizeof zm);
    bad[17] = 3; /* free bytes past the end */
    CHECK(!zm_valid(bad, sizeof bad, NULL));
    memcpy(bad, zm, sizeof zm);
    bad[16] = 0xFF; /* a value length may not be the end byte */
    CHECK(!zm_valid(bad, sizeof bad, NULL));
    memcpy(bad, zm, sizeof zm);
    bad[sizeof zm - 1] = 0;
    CHECK(!zm_valid(bad, sizeof bad, NULL));
    CHECK(!zm_valid(zm, sizeof zm - 1, NULL));
    static const unsigned char empty[] = {0, 0xFF};
    CHECK(zm_valid(empty, 2, &pairs) && pairs == 0);
    CHECK(!zm_valid(empty, 1, NULL));
    static const unsigned char early_end[] = {0, 0xFF, 0xFF};
    CHECK(!zm_valid(early_end, 3, NULL));
}

static void test_zipmap_big_lengths(void) {
    size_t n = 300;
    size_t size = 1 + 1 + 1 + 5 + 1 + n + 1;
    unsigned char *zm = malloc(size), *p = zm;
    *p++ = 1;
    *p++ = 1, *p++ = 'k';
    *p++ = 0xFE, store32le(p, (uint32_t)n), p += 4;
    *p++ = 0;
    memset(p, 'v', n), p += n;
    *p++ = 0xFF;
    CHECK((size_t)(p - zm) == size);
    unsigned long pairs;
    CHECK(zm_valid(zm, size, &pairs) && pairs == 1);
    zipmapIter it;
    const unsigned char *f, *v;
    size_t fl, vl;
    zipmapIterInit(&it, zm, size);
    CHECK(zipmapIterNext(&it, &f, &fl, &v, &vl) == 1 && vl == n && v[0] == 'v' && v[n - 1] == 'v');
    store32le(zm + 4, (uint32_t)n + 1);
    CHECK(!zm_valid(zm, size, NULL));
    store32le(zm + 4, 0xFFFFFFFFu);
    CHECK(!zm_valid(zm, size, NULL));
    free(zm);
}

/* ---- random valid blobs, then corrupted ---------------------------------------- */

typedef struct model {
    int is_int[64];
    long long ll[64];
    size_t len[64];
    unsigned char fill[64];
    int n;
} model;

static unsigned char *random_ziplist(model *m, size_t *size) {
    static unsigned char s[20000];
    zlb b;
    zlb_init(&b);
    m->n = (int)(test_rand() % 20);
    for (int i = 0; i < m->n; i++) {
        int force5 = test_rand() % 8 == 0;
        if (test_rand() & 1) {
            static const int widths[] = {0, 1, 2, 3, 4, 8};
            int w = widths[test_rand() % 6];
            long long v = (long long)test_rand();
            if (w == 0) v = (long long)(test_rand() % 13);
            else if (w < 8) v = (long long)((uint64_t)v << (64 - 8 * w)) >> (64 - 8 * w); /* sign-extend */
            zlb_int(&b, v, w, force5);
            m->is_int[i] = 1, m->ll[i] = v;
        } else {
            size_t n = test_rand() % 100;
            if (test_rand() % 10 == 0) n = test_rand() % sizeof s;
            unsigned char fill = (unsigned char)test_rand();
            memset(s, fill, n);
            zlb_str(&b, s, n, force5);
            m->is_int[i] = 0, m->len[i] = n, m->fill[i] = fill;
        }
    }
    b.unknown = test_rand() % 4 == 0; /* the header says "count them" */
    return zlb_finish(&b, size);
}

static int matches_model(const unsigned char *zl, size_t size, const model *m) {
    ziplistIter it;
    ziplistValue v;
    if (!ziplistIterInit(&it, zl, size)) return 0;
    for (int i = 0; i < m->n; i++) {
        if (ziplistIterNext(&it, &v) != 1) return 0;
        if (m->is_int[i] ? (v.s != NULL || v.ll != m->ll[i]) : (v.s == NULL || v.len != m->len[i])) return 0;
        if (!m->is_int[i] && v.len && (v.s[0] != m->fill[i] || v.s[v.len - 1] != m->fill[i])) return 0;
    }
    return ziplistIterNext(&it, &v) == 0;
}

static unsigned long walk_sum;

/* An accepted blob must walk to a clean end with as many entries. */
static void walk_accepted(const unsigned char *zl, size_t size, unsigned long count) {
    ziplistIter it;
    ziplistValue v;
    unsigned long seen = 0;
    int r;
    ziplistIterInit(&it, zl, size);
    while ((r = ziplistIterNext(&it, &v)) == 1) {
        seen++;
        if (v.s && v.len) walk_sum += v.s[0] + v.s[v.len - 1];
    }
    CHECK(r == 0);
    CHECK_EQ_INT(seen, count);
}

static void mutate(unsigned char *blob, size_t *size) {
    size_t n = *size;
    switch (test_rand() % 5) {
    case 0: /* flip a few bytes */
        for (int k = 1 + (int)(test_rand() % 3); k > 0; k--) blob[test_rand() % n] ^= (unsigned char)(1 + test_rand() % 255);
        break;
    case 1: /* one random byte past the header */
        if (n > ZIPLIST_HEADER_SIZE) blob[ZIPLIST_HEADER_SIZE + test_rand() % (n - ZIPLIST_HEADER_SIZE)] = (unsigned char)test_rand();
        break;
    case 2: /* truncated, zlbytes and end byte patched to match */
        if (n > ZIPLIST_HEADER_SIZE + 1) {
            *size = ZIPLIST_HEADER_SIZE + 1 + test_rand() % (n - ZIPLIST_HEADER_SIZE - 1);
            store32le(blob, (uint32_t)*size);
            blob[*size - 1] = ZIPLIST_END;
        }
        break;
    case 3: /* truncated, nothing patched */
        *size = test_rand() % n;
        break;
    default: /* a lying length or a big prevlen */
        if (n > ZIPLIST_HEADER_SIZE) {
            size_t at = ZIPLIST_HEADER_SIZE + test_rand() % (n - ZIPLIST_HEADER_SIZE);
            static const unsigned char liars[] = {0x80, 0x7F, 0x3F, 0xFE, 0xE0, 0xD0};
            blob[at] = liars[test_rand() % sizeof liars];
        }
    }
}

static void test_random_valid_ziplists(void) {
    unsigned long rounds = test_scaled(20000);
    for (unsigned long r = 0; r < rounds; r++) {
        model m;
        size_t size;
        unsigned char *zl = random_ziplist(&m, &size);
        unsigned long count = 0;
        if (!CHECK(ziplistValidateIntegrity(zl, size, &count) && count == (unsigned long)m.n)) {
            free(zl);
            break;
        }
        CHECK(matches_model(zl, size, &m));
        free(zl);
    }
}

static void test_corrupted_ziplists(void) {
    unsigned long rounds = test_scaled(20000), accepted = 0;
    for (unsigned long r = 0; r < rounds; r++) {
        model m;
        size_t size;
        unsigned char *zl = random_ziplist(&m, &size);
        mutate(zl, &size);
        unsigned char *exact = exact_copy(zl, size);
        free(zl);
        unsigned long count;
        if (ziplistValidateIntegrity(exact, size, &count)) {
            accepted++;
            walk_accepted(exact, size, count);
        } else { /* a walk of a rejected blob must stop with -1, safely */
            ziplistIter it;
            ziplistValue v;
            int res = 0;
            if (ziplistIterInit(&it, exact, size))
                while ((res = ziplistIterNext(&it, &v)) == 1) continue;
            CHECK(res != 0 || !ziplistIterInit(&it, exact, size));
        }
        free(exact);
    }
    CHECK(accepted > 0);
    CHECK(accepted < rounds);
}

static void test_random_bytes(void) {
    unsigned long rounds = test_scaled(20000);
    for (unsigned long r = 0; r < rounds; r++) {
        size_t size = test_rand() % 40;
        unsigned char *blob = malloc(size ? size : 1);
        for (size_t i = 0; i < size; i++) blob[i] = (unsigned char)test_rand();
        if (size >= 11 && (r & 1)) {
            store32le(blob, (uint32_t)size);
            blob[size - 1] = ZIPLIST_END;
        }
        unsigned long count;
        if (ziplistValidateIntegrity(blob, size, &count)) walk_accepted(blob, size, count);
        if (size >= 2 && (r & 2)) blob[size - 1] = ZIPMAP_END;
        unsigned long pairs;
        zipmapValidateIntegrity(blob, size, &pairs);
        free(blob);
    }
}

static unsigned char *random_zipmap(size_t *size, unsigned long *pairs) {
    size_t cap = 64, len = 1;
    unsigned char *zm = malloc(cap);
    unsigned long n = test_rand() % 12;
    for (unsigned long i = 0; i < n; i++) {
        for (int part = 0; part < 2; part++) {
            size_t sl = test_rand() % 6 == 0 ? 254 + test_rand() % 400 : test_rand() % 30;
            size_t slack = part ? test_rand() % 5 : 0;
            if (len + 5 + 1 + sl + slack + 1 > cap) {
                cap = (len + 5 + 1 + sl + slack + 1) * 2;
                zm = realloc(zm, cap);
            }
            if (sl < 254 && test_rand() % 3) zm[len++] = (unsigned char)sl;
            else zm[len++] = 0xFE, store32le(zm + len, (uint32_t)sl), len += 4;
            if (part) zm[len++] = (unsigned char)slack;
            memset(zm + len, 'a' + (int)(i % 26), sl + slack);
            len += sl + slack;
        }
    }
    zm = realloc(zm, len + 1);
    zm[len++] = ZIPMAP_END;
    zm[0] = (unsigned char)(n < 254 && test_rand() % 4 ? n : 254);
    *size = len;
    *pairs = n;
    return zm;
}

static void test_zipmap_fuzz(void) {
    unsigned long rounds = test_scaled(20000), accepted = 0;
    for (unsigned long r = 0; r < rounds; r++) {
        size_t size;
        unsigned long pairs, got;
        unsigned char *zm = random_zipmap(&size, &pairs);
        if (!CHECK(zipmapValidateIntegrity(zm, size, &got) && got == pairs)) {
            free(zm);
            break;
        }
        switch (test_rand() % 3) {
        case 0: zm[test_rand() % size] ^= (unsigned char)(1 + test_rand() % 255); break;
        case 1: size = test_rand() % size; break;
        default:
            size = 1 + test_rand() % size;
            zm[size - 1] = ZIPMAP_END;
        }
        unsigned char *exact = exact_copy(zm, size);
        free(zm);
        if (zipmapValidateIntegrity(exact, size, &got)) {
            accepted++;
            zipmapIter it;
            const unsigned char *f, *v;
            size_t fl, vl;
            unsigned long seen = 0;
            int res;
            zipmapIterInit(&it, exact, size);
            while ((res = zipmapIterNext(&it, &f, &fl, &v, &vl)) == 1) {
                seen++;
                if (fl) walk_sum += f[fl - 1];
                if (vl) walk_sum += v[vl - 1];
            }
            CHECK(res == 0 && seen == got);
        }
        free(exact);
    }
    CHECK(accepted > 0);
    CHECK(accepted < rounds);
}

TEST_MAIN(
    test_rand_seed(0x5eed21b1a7e5ULL);
    RUN(test_documented_example);
    RUN(test_integer_encodings);
    RUN(test_unknown_encodings_rejected);
    RUN(test_string_encodings);
    RUN(test_builder_every_size);
    RUN(test_header_and_structure_checks);
    RUN(test_empty_ziplist);
    RUN(test_prevlen_forms);
    RUN(test_count_saturation);
    RUN(test_zipmap_basics);
    RUN(test_zipmap_big_lengths);
    RUN(test_random_valid_ziplists);
    RUN(test_corrupted_ziplists);
    RUN(test_random_bytes);
    RUN(test_zipmap_fuzz);
)
