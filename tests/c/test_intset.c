/* test_intset.c -- unit tests for intset.c.
 *
 * Covers: the limits of each width, upgrades 16 -> 32 -> 64 from both sides,
 * removal, random operations checked against a plain sorted-array model,
 * blobs at odd addresses, the validator fed truncated and corrupted blobs
 * (run under ASan, it proves no read leaves the blob), and byte identity
 * with blobs produced by the reference Redis (taken with DUMP).
 */
#include <stdint.h>
#include <stdlib.h>

#include "../../src/lib/intset.h"
#include "../../src/lib/zmalloc.h"
#include "test.h"

/* ---- helpers ------------------------------------------------------------ */

static intset *buildFrom(const int64_t *values, size_t n) {
    intset *is = intsetNew();
    for (size_t i = 0; i < n; i++) is = intsetAdd(is, values[i], NULL);
    return is;
}

/* 1 if the set holds exactly the sorted values. */
static int holdsExactly(const intset *is, const int64_t *sorted, size_t n) {
    if (intsetLen(is) != n) return 0;
    for (size_t i = 0; i < n; i++) {
        int64_t v;
        if (!intsetGet(is, (uint32_t)i, &v) || v != sorted[i]) return 0;
    }
    return 1;
}

static int validBlob(const intset *is, int deep) {
    return intsetValidateIntegrity((const unsigned char *)is, intsetBlobLen(is), deep);
}

/* ---- tests ---------------------------------------------------------------- */

static void test_empty(void) {
    intset *is = intsetNew();
    CHECK_EQ_INT(intsetLen(is), 0);
    CHECK_EQ_INT(intsetBlobLen(is), 8);
    CHECK_EQ_INT(intsetEncoding(is), 2);
    CHECK(!intsetFind(is, 0));
    int64_t v;
    CHECK(!intsetGet(is, 0, &v));
    int removed = 7;
    is = intsetRemove(is, 5, &removed);
    CHECK_EQ_INT(removed, 0);
    intsetFree(is);
}

static void test_width_boundaries(void) {
    static const struct { int64_t value; unsigned enc; } cases[] = {
        {0, 2}, {INT16_MAX, 2}, {INT16_MIN, 2},
        {(int64_t)INT16_MAX + 1, 4}, {(int64_t)INT16_MIN - 1, 4}, {INT32_MAX, 4}, {INT32_MIN, 4},
        {(int64_t)INT32_MAX + 1, 8}, {(int64_t)INT32_MIN - 1, 8}, {INT64_MAX, 8}, {INT64_MIN, 8},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int added = 0;
        intset *is = intsetAdd(intsetNew(), cases[i].value, &added);
        CHECK_EQ_INT(added, 1);
        CHECK_EQ_INT(intsetEncoding(is), cases[i].enc);
        CHECK(intsetFind(is, cases[i].value));
        CHECK_EQ_INT(intsetMin(is), cases[i].value);
        CHECK_EQ_INT(intsetMax(is), cases[i].value);
        CHECK_EQ_INT(intsetBlobLen(is), 8 + cases[i].enc);
        CHECK(validBlob(is, 1));
        intsetFree(is);
    }
}

static void test_add_duplicates_and_order(void) {
    intset *is = intsetNew();
    int added;
    is = intsetAdd(is, 5, &added);
    CHECK_EQ_INT(added, 1);
    is = intsetAdd(is, 6, &added);
    is = intsetAdd(is, 4, &added);
    is = intsetAdd(is, 4, &added);
    CHECK_EQ_INT(added, 0);
    static const int64_t want[] = {4, 5, 6};
    CHECK(holdsExactly(is, want, 3));
    intsetFree(is);
}

static void test_upgrade_positive_and_negative(void) {
    /* 16 -> 32 with a positive value: appended at the end. */
    static const int64_t base[] = {-3, 0, 7, 32};
    intset *is = buildFrom(base, 4);
    CHECK_EQ_INT(intsetEncoding(is), 2);
    is = intsetAdd(is, 65535, NULL);
    CHECK_EQ_INT(intsetEncoding(is), 4);
    static const int64_t want1[] = {-3, 0, 7, 32, 65535};
    CHECK(holdsExactly(is, want1, 5));
    /* 32 -> 64 with a negative value: inserted at the start. */
    is = intsetAdd(is, -4294967296LL, NULL);
    CHECK_EQ_INT(intsetEncoding(is), 8);
    static const int64_t want2[] = {-4294967296LL, -3, 0, 7, 32, 65535};
    CHECK(holdsExactly(is, want2, 6));
    CHECK(validBlob(is, 1));
    intsetFree(is);

    /* 16 -> 64 directly, negative first, then positive. */
    is = buildFrom(base, 4);
    is = intsetAdd(is, INT64_MIN, NULL);
    is = intsetAdd(is, INT64_MAX, NULL);
    static const int64_t want3[] = {INT64_MIN, -3, 0, 7, 32, INT64_MAX};
    CHECK(holdsExactly(is, want3, 6));
    intsetFree(is);

    /* 16 -> 32 with a negative value. */
    is = buildFrom(base, 4);
    is = intsetAdd(is, -40000, NULL);
    static const int64_t want4[] = {-40000, -3, 0, 7, 32};
    CHECK(holdsExactly(is, want4, 5));
    CHECK_EQ_INT(intsetEncoding(is), 4);
    intsetFree(is);
}

static void test_remove(void) {
    static const int64_t base[] = {1, 2, 3, 100000, -100000};
    intset *is = buildFrom(base, 5);
    int removed;
    is = intsetRemove(is, 2, &removed);
    CHECK_EQ_INT(removed, 1);
    is = intsetRemove(is, 2, &removed);
    CHECK_EQ_INT(removed, 0);
    is = intsetRemove(is, INT64_MAX, &removed); /* wider than the encoding */
    CHECK_EQ_INT(removed, 0);
    is = intsetRemove(is, -100000, &removed);
    CHECK_EQ_INT(removed, 1);
    static const int64_t want[] = {1, 3, 100000};
    CHECK(holdsExactly(is, want, 3));
    CHECK_EQ_INT(intsetEncoding(is), 4); /* never downgrades */
    CHECK_EQ_INT(intsetBlobLen(is), 8 + 3 * 4);
    is = intsetRemove(is, 1, NULL);
    is = intsetRemove(is, 3, NULL);
    is = intsetRemove(is, 100000, NULL);
    CHECK_EQ_INT(intsetLen(is), 0);
    intsetFree(is);
}

static void test_find_wider_than_encoding(void) {
    static const int64_t base[] = {1, 2};
    intset *is = buildFrom(base, 2);
    CHECK(!intsetFind(is, 65536 + 1));
    CHECK(!intsetFind(is, INT64_MIN));
    CHECK(intsetFind(is, 2));
    intsetFree(is);
}

static void test_random_member(void) {
    static const int64_t base[] = {10, 20, 30};
    intset *is = buildFrom(base, 3);
    int seen[3] = {0, 0, 0};
    for (int i = 0; i < 300; i++) {
        int64_t v = intsetRandom(is);
        CHECK(v == 10 || v == 20 || v == 30);
        seen[v / 10 - 1] = 1;
    }
    CHECK(seen[0] && seen[1] && seen[2]);
    intsetFree(is);
}

static void test_dup(void) {
    static const int64_t base[] = {-1, 70000, 5};
    intset *is = buildFrom(base, 3);
    intset *copy = intsetDup(is);
    CHECK_EQ_INT(intsetBlobLen(copy), intsetBlobLen(is));
    CHECK_EQ_MEM(copy, is, intsetBlobLen(is));
    intsetFree(is);
    intsetFree(copy);
}

/* A model: a sorted array of unique values. */
typedef struct { int64_t *v; size_t n; } model;

static size_t modelFind(const model *m, int64_t x, int *found) {
    size_t lo = 0, hi = m->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->v[mid] == x) { *found = 1; return mid; }
        if (m->v[mid] < x) lo = mid + 1;
        else hi = mid;
    }
    *found = 0;
    return lo;
}

static int64_t randomValueOfWidth(void) {
    switch (random() % 3) {
    case 0: return (int64_t)(random() % 200) - 100;
    case 1: return (int64_t)(random() % 200000) - 100000;
    default: return (int64_t)(((uint64_t)random() << 33) ^ ((uint64_t)random() << 2) ^ (uint64_t)random());
    }
}

static void test_random_ops_vs_model(void) {
    srandom(12345);
    unsigned long rounds = test_scaled(20000);
    for (int trial = 0; trial < 4; trial++) {
        model m = {malloc(sizeof(int64_t) * rounds), 0};
        intset *is = intsetNew();
        int ok = 1;
        for (unsigned long r = 0; r < rounds && ok; r++) {
            int64_t x = randomValueOfWidth();
            /* Bias towards values near existing ones so removals hit. */
            if (m.n && random() % 2) x = m.v[(size_t)random() % m.n];
            int found, changed;
            size_t pos = modelFind(&m, x, &found);
            if (random() % 3) {
                is = intsetAdd(is, x, &changed);
                ok &= changed == !found;
                if (!found) {
                    memmove(m.v + pos + 1, m.v + pos, (m.n - pos) * sizeof(int64_t));
                    m.v[pos] = x;
                    m.n++;
                }
            } else {
                is = intsetRemove(is, x, &changed);
                ok &= changed == found;
                if (found) {
                    memmove(m.v + pos, m.v + pos + 1, (m.n - pos - 1) * sizeof(int64_t));
                    m.n--;
                }
            }
            int inModel;
            modelFind(&m, x, &inModel);
            ok &= intsetFind(is, x) == inModel;
            if (r % 997 == 0) ok &= holdsExactly(is, m.v, m.n) && (m.n == 0 || validBlob(is, 1));
        }
        CHECK(ok);
        CHECK(holdsExactly(is, m.v, m.n));
        CHECK(m.n == 0 || validBlob(is, 1));
        intsetFree(is);
        free(m.v);
    }
}

/* Every operation on a blob copied to each offset 0..7 of a buffer. */
static void test_unaligned_blob(void) {
    static const int64_t base[] = {-5000000000LL, -1, 0, 77, 5000000000LL};
    intset *is = buildFrom(base, 5);
    size_t size = intsetBlobLen(is);
    unsigned char *buf = malloc(size + 8);
    for (size_t off = 0; off < 8; off++) {
        memcpy(buf + off, is, size);
        const intset *odd = (const intset *)(buf + off);
        CHECK(intsetValidateIntegrity(buf + off, size, 1));
        CHECK(holdsExactly(odd, base, 5));
        CHECK(intsetFind(odd, 77));
        CHECK(!intsetFind(odd, 78));
        CHECK_EQ_INT(intsetMin(odd), base[0]);
        CHECK_EQ_INT(intsetMax(odd), base[4]);
    }
    free(buf);
    intsetFree(is);
}

/* ---- validation ---------------------------------------------------------------- */

static void test_validate_rejects(void) {
    static const int64_t base[] = {1, 2, 3};
    intset *is = buildFrom(base, 3);
    unsigned char *b = (unsigned char *)is;
    size_t size = intsetBlobLen(is);
    CHECK(validBlob(is, 0));
    CHECK(validBlob(is, 1));
    CHECK(!intsetValidateIntegrity(b, size - 1, 0));
    CHECK(!intsetValidateIntegrity(b, 7, 0));
    CHECK(!intsetValidateIntegrity(b, 0, 0));
    CHECK(!intsetValidateIntegrity(NULL, 0, 0));

    unsigned char copy[8 + 3 * 2];
    memcpy(copy, b, size);
    copy[0] = 3; /* bad encoding */
    CHECK(!intsetValidateIntegrity(copy, size, 0));
    memcpy(copy, b, size);
    copy[4] = 4; /* length says 4, size says 3 */
    CHECK(!intsetValidateIntegrity(copy, size, 0));
    memcpy(copy, b, size);
    copy[8 + 2] = 1; /* 1, 1, 3: not strictly ascending */
    CHECK(intsetValidateIntegrity(copy, size, 0));
    CHECK(!intsetValidateIntegrity(copy, size, 1));

    /* A huge length must not wrap the size check on 32-bit builds. */
    memcpy(copy, b, size);
    copy[0] = 8; copy[4] = 0; copy[5] = 0; copy[6] = 0; copy[7] = 0x20;
    CHECK(!intsetValidateIntegrity(copy, size, 1));

    /* An empty intset never appears in a dump (empty sets do not exist). */
    intset *empty = intsetNew();
    CHECK(!intsetValidateIntegrity((unsigned char *)empty, 8, 1));
    intsetFree(empty);
    intsetFree(is);
}

/* Random truncations and bit flips: the validator must only answer, never
 * read outside the exact-size heap copy (ASan checks that), and a blob it
 * accepts with deep validation must behave. */
static void test_validate_fuzz(void) {
    srandom(777);
    static const int64_t base[] = {-70000, -2, 9, 1000, 65536, 5000000000LL};
    unsigned long rounds = test_scaled(20000);
    int ok = 1;
    for (unsigned long r = 0; r < rounds; r++) {
        intset *is = buildFrom(base, 1 + (size_t)(random() % 6));
        size_t size = intsetBlobLen(is);
        size_t cut = (size_t)random() % (size + 1);
        unsigned char *blob = malloc(cut ? cut : 1);
        memcpy(blob, is, cut);
        int flips = (int)(random() % 3);
        for (int f = 0; f < flips && cut; f++) blob[(size_t)random() % cut] ^= (unsigned char)(1u << (random() % 8));
        if (intsetValidateIntegrity(blob, cut, 1)) {
            const intset *v = (const intset *)blob;
            ok &= intsetBlobLen(v) == cut;
            int64_t prev = intsetMin(v), x;
            for (uint32_t i = 1; i < intsetLen(v); i++) {
                ok &= intsetGet(v, i, &x) && x > prev;
                prev = x;
            }
            ok &= intsetFind(v, intsetMax(v));
        }
        free(blob);
        intsetFree(is);
    }
    CHECK(ok);
}

/* ---- byte identity with Redis (blobs from `DUMP` of the reference server) ---- */

static void test_redis_blobs(void) {
    /* SADD s 1 2 3 -70000 */
    static const unsigned char blob32[] = {0x04, 0, 0, 0, 0x04, 0, 0, 0, 0x90, 0xee, 0xfe, 0xff,
                                           0x01, 0, 0, 0, 0x02, 0, 0, 0, 0x03, 0, 0, 0};
    static const int64_t v32[] = {1, 2, 3, -70000};
    /* SADD t 5 -3 32767 -32768 */
    static const unsigned char blob16[] = {0x02, 0, 0, 0, 0x04, 0, 0, 0, 0x00, 0x80,
                                           0xfd, 0xff, 0x05, 0x00, 0xff, 0x7f};
    static const int64_t v16[] = {5, -3, 32767, -32768};
    /* SADD u 1 -5000000000 9223372036854775807 */
    static const unsigned char blob64[] = {0x08, 0, 0, 0, 0x03, 0, 0, 0,
                                           0x00, 0x0e, 0xfa, 0xd5, 0xfe, 0xff, 0xff, 0xff,
                                           0x01, 0, 0, 0, 0, 0, 0, 0,
                                           0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f};
    static const int64_t v64[] = {1, -5000000000LL, INT64_MAX};
    static const struct { const unsigned char *blob; size_t size; const int64_t *values; size_t n; } cases[] = {
        {blob32, sizeof blob32, v32, 4}, {blob16, sizeof blob16, v16, 4}, {blob64, sizeof blob64, v64, 3},
    };
    for (size_t i = 0; i < 3; i++) {
        intset *is = buildFrom(cases[i].values, cases[i].n);
        CHECK_EQ_INT(intsetBlobLen(is), cases[i].size);
        CHECK_EQ_MEM(is, cases[i].blob, cases[i].size);
        CHECK(intsetValidateIntegrity(cases[i].blob, cases[i].size, 1));
        intsetFree(is);
    }
}

TEST_MAIN(
    RUN(test_empty);
    RUN(test_width_boundaries);
    RUN(test_add_duplicates_and_order);
    RUN(test_upgrade_positive_and_negative);
    RUN(test_remove);
    RUN(test_find_wider_than_encoding);
    RUN(test_random_member);
    RUN(test_dup);
    RUN(test_random_ops_vs_model);
    RUN(test_unaligned_blob);
    RUN(test_validate_rejects);
    RUN(test_validate_fuzz);
    RUN(test_redis_blobs);
)
