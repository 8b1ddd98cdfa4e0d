/* test_hyperloglog.c -- the HyperLogLog library (hll.c): element -> register
 * mapping and sketch bytes checked against facts taken from Redis 7.0.15
 * (so a big-endian or strict-alignment port proves byte identity), the
 * dense register packing against a shadow array, sparse/dense agreement,
 * promotion, the estimator's accuracy, and the refusal of damaged streams.
 */
#include "test.h"
#include "hll.h"
#include "sds.h"

#define CHECK_EQ_U64(a, b) do { \
    uint64_t a_ = (a), b_ = (b); \
    if (!CHECK(a_ == b_)) printf("      got %" PRIu64 ", expected %" PRIu64 "\n", a_, b_); \
} while (0)

/* (element, register, value) as Redis 7.0.15 maps them: PFADD of the one
 * element into an empty key, then PFDEBUG DECODE. Lengths 0..17 cover every
 * tail length of the hash and more than one 8-byte block. */
static const struct {
    const char *ele;
    size_t len;
    long index;
    int value;
} redis_mapping[] = {
    {"", 0, 5938, 2},
    {"a", 1, 12711, 2},
    {"ab", 2, 719, 1},
    {"abc", 3, 9474, 1},
    {"abcd", 4, 11070, 8},
    {"abcde", 5, 3726, 4},
    {"abcdef", 6, 13647, 2},
    {"abcdefg", 7, 5634, 2},
    {"abcdefgh", 8, 1383, 1},
    {"abcdefghi", 9, 6903, 1},
    {"abcdefghijklmnopq", 17, 4271, 1},
    {"\xff\x80\x00\x01\xfe\x7f\x10\x20\x30", 9, 3865, 1},
    {"hello world", 11, 9399, 4},
    {"foo", 3, 7348, 5},
    {"bar", 3, 10007, 1},
    {"zap", 3, 7869, 2},
};

static void test_element_mapping_matches_redis(void) {
    for (size_t i = 0; i < sizeof redis_mapping / sizeof redis_mapping[0]; i++) {
        long index;
        int value = hllPatternLength(redis_mapping[i].ele, redis_mapping[i].len, &index);
        CHECK_EQ_INT(index, redis_mapping[i].index);
        CHECK_EQ_INT(value, redis_mapping[i].value);
    }
}

/* The hash reads its input the same way at any address. */
static void test_hash_ignores_alignment(void) {
    unsigned char buf[64 + 8];
    for (int i = 0; i < 64; i++) buf[i] = (unsigned char)(i * 37 + 11);
    for (size_t len = 0; len <= 40; len++) {
        uint64_t expected = hllMurmurHash64A(buf, len, 0xadc83b19);
        for (int shift = 1; shift < 8; shift++) {
            memmove(buf + shift, buf, 64);
            CHECK_EQ_U64(hllMurmurHash64A(buf + shift, len, 0xadc83b19), expected);
            memmove(buf, buf + shift, 64);
        }
    }
}

static sds from_hex(const char *hex) {
    size_t n = strlen(hex) / 2;
    sds s = sdsnewlen(NULL, n);
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        sscanf(hex + 2 * i, "%2x", &v);
        s[i] = (char)v;
    }
    return s;
}

static void test_sparse_bytes_match_redis(void) {
    sds h = hllCreate();
    sds expected = from_hex("48594c4c0100000000000000000000007fff");
    CHECK_EQ_INT(sdslen(h), 18);
    CHECK(sdslen(h) == sdslen(expected) && CHECK_EQ_MEM(h, expected, 18));
    sdsfree(expected);

    CHECK_EQ_INT(hllAdd(&h, "foo", 3, HLL_SPARSE_MAX_BYTES_DEFAULT), HLL_CHANGED);
    CHECK_EQ_INT(hllAdd(&h, "bar", 3, HLL_SPARSE_MAX_BYTES_DEFAULT), HLL_CHANGED);
    CHECK_EQ_INT(hllAdd(&h, "zap", 3, HLL_SPARSE_MAX_BYTES_DEFAULT), HLL_CHANGED);
    CHECK_EQ_INT(hllAdd(&h, "foo", 3, HLL_SPARSE_MAX_BYTES_DEFAULT), HLL_UNCHANGED);
    hllCacheInvalidate((unsigned char *)h);
    /* Redis after PFADD hll foo bar zap */
    expected = from_hex("48594c4c0100000000000000000000805cb39042078448588058e7");
    CHECK(sdslen(h) == sdslen(expected) && CHECK_EQ_MEM(h, expected, sdslen(h)));
    CHECK(!hllCacheIsValid((unsigned char *)h));
    int invalid;
    CHECK_EQ_U64(hllCount((unsigned char *)h, sdslen(h), &invalid), 3);
    CHECK_EQ_INT(invalid, 0);
    hllCacheSet((unsigned char *)h, 3);
    CHECK(hllCacheIsValid((unsigned char *)h));
    CHECK_EQ_U64(hllCacheGet((unsigned char *)h), 3);
    sdsfree(expected);
    sdsfree(h);
}

/* Estimates Redis gives for el:0 .. el:(n-1) added to one key. */
static void test_estimates_match_redis(void) {
    static const struct { long n; uint64_t count; int encoding; } facts[] = {
        {300, 303, HLL_SPARSE}, {5000, 4959, HLL_DENSE},
    };
    for (size_t f = 0; f < 2; f++) {
        sds h = hllCreate();
        for (long i = 0; i < facts[f].n; i++) {
            char ele[32];
            int len = snprintf(ele, sizeof ele, "el:%ld", i);
            CHECK(hllAdd(&h, ele, (size_t)len, HLL_SPARSE_MAX_BYTES_DEFAULT) != HLL_CORRUPT);
        }
        int invalid;
        CHECK_EQ_U64(hllCount((unsigned char *)h, sdslen(h), &invalid), facts[f].count);
        CHECK_EQ_INT(hllEncoding((unsigned char *)h), facts[f].encoding);
        if (facts[f].n == 300) CHECK_EQ_INT(sdslen(h), 692);
        sdsfree(h);
    }
}

static uint64_t xorshift(uint64_t *x) {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

/* Writing any register leaves every other one alone; the last register
 * never touches the byte after the array (exact-size heap buffer, so ASan
 * would see it). */
static void test_dense_registers(void) {
    size_t bytes = HLL_DENSE_SIZE - HLL_HDR_SIZE;
    unsigned char *regs = malloc(bytes);
    uint8_t *shadow = malloc(HLL_REGISTERS);
    memset(regs, 0, bytes);
    memset(shadow, 0, HLL_REGISTERS);
    uint64_t x = 88172645463325252ULL;
    for (int round = 0; round < 5; round++) {
        for (long i = 0; i < HLL_REGISTERS; i++) {
            long j = (long)(xorshift(&x) % HLL_REGISTERS);
            shadow[j] = (uint8_t)(xorshift(&x) & 63);
            hllDenseSetRegister(regs, j, shadow[j]);
        }
        int mismatches = 0;
        for (long i = 0; i < HLL_REGISTERS; i++) mismatches += hllDenseGetRegister(regs, i) != shadow[i];
        CHECK_EQ_INT(mismatches, 0);
    }
    hllDenseSetRegister(regs, HLL_REGISTERS - 1, 63);
    CHECK_EQ_INT(hllDenseGetRegister(regs, HLL_REGISTERS - 1), 63);
    CHECK_EQ_INT(regs[bytes - 1] >> 2, 63);
    /* Bit layout: register 1 starts at bit 6 of byte 0. */
    memset(regs, 0, bytes);
    hllDenseSetRegister(regs, 1, 0x2d); /* 101101 */
    CHECK_EQ_INT(regs[0], 0x40);
    CHECK_EQ_INT(regs[1], 0x0b);
    free(regs);
    free(shadow);
}

/* The same elements into a sparse and a dense sketch: same registers, same
 * estimate, at every step; promotion keeps the registers too. */
static void test_sparse_and_dense_agree(void) {
    sds sparse = hllCreate(), dense = hllCreate();
    CHECK_EQ_INT(hllToDense(&dense), HLL_CHANGED);
    CHECK_EQ_INT(hllToDense(&dense), HLL_UNCHANGED);
    CHECK_EQ_INT(sdslen(dense), HLL_DENSE_SIZE);
    uint8_t *a = calloc(HLL_REGISTERS, 1), *b = calloc(HLL_REGISTERS, 1);
    uint64_t x = 12345;
    unsigned long n = test_scaled(20000);
    for (unsigned long i = 0; i < n; i++) {
        uint64_t r = xorshift(&x);
        int rs = hllAdd(&sparse, &r, sizeof r, HLL_SPARSE_MAX_BYTES_DEFAULT);
        int rd = hllAdd(&dense, &r, sizeof r, HLL_SPARSE_MAX_BYTES_DEFAULT);
        CHECK(rs != HLL_CORRUPT);
        if (rs != rd) {
            CHECK_EQ_INT(rs, rd);
            break;
        }
        if (i % 97 == 0 || i == n - 1) {
            CHECK(hllIsWellFormed((unsigned char *)sparse, sdslen(sparse)));
            CHECK(sdslen(sparse) <= HLL_SPARSE_MAX_BYTES_DEFAULT || hllEncoding((unsigned char *)sparse) == HLL_DENSE);
            memset(a, 0, HLL_REGISTERS);
            memset(b, 0, HLL_REGISTERS);
            CHECK_EQ_INT(hllMergeInto(a, (unsigned char *)sparse, sdslen(sparse)), HLL_CHANGED);
            CHECK_EQ_INT(hllMergeInto(b, (unsigned char *)dense, sdslen(dense)), HLL_CHANGED);
            if (!CHECK_EQ_MEM(a, b, HLL_REGISTERS)) break;
            int i1, i2;
            CHECK_EQ_U64(hllCount((unsigned char *)sparse, sdslen(sparse), &i1),
                         hllCount((unsigned char *)dense, sdslen(dense), &i2));
            CHECK_EQ_U64(hllCountRaw(a), hllCount((unsigned char *)dense, sdslen(dense), &i2));
        }
    }
    CHECK_EQ_INT(hllEncoding((unsigned char *)sparse), HLL_DENSE);
    free(a);
    free(b);
    sdsfree(sparse);
    sdsfree(dense);
}

/* A smaller limit promotes earlier; a value above 32 promotes at once. */
static void test_promotion(void) {
    sds h = hllCreate();
    for (int i = 0; i < 100 && hllEncoding((unsigned char *)h) == HLL_SPARSE; i++) {
        char ele[16];
        int len = snprintf(ele, sizeof ele, "p%d", i);
        CHECK(hllAdd(&h, ele, (size_t)len, 40) != HLL_CORRUPT);
        if (hllEncoding((unsigned char *)h) == HLL_SPARSE) CHECK(sdslen(h) <= 40);
    }
    CHECK_EQ_INT(hllEncoding((unsigned char *)h), HLL_DENSE);
    sdsfree(h);

    /* 8-byte elements made by inverting the hash (value 32 and 51). */
    h = hllCreate();
    CHECK_EQ_INT(hllAdd(&h, "\x01\x73\x3d\xd4\x65\x75\x67\x8f", 8, 3000), HLL_CHANGED);
    CHECK_EQ_INT(hllEncoding((unsigned char *)h), HLL_SPARSE);
    CHECK_EQ_INT(hllAdd(&h, "\x22\x95\xe7\x76\xdc\x15\xca\x3f", 8, 3000), HLL_CHANGED);
    CHECK_EQ_INT(hllEncoding((unsigned char *)h), HLL_DENSE);
    CHECK_EQ_INT(hllDenseGetRegister((unsigned char *)h + HLL_HDR_SIZE, 0), 32);
    CHECK_EQ_INT(hllDenseGetRegister((unsigned char *)h + HLL_HDR_SIZE, 16383), 51);
    sdsfree(h);

    h = hllCreate();
    CHECK_EQ_INT(hllSetRegister(&h, 100, 32, 3000), HLL_CHANGED);
    CHECK_EQ_INT(hllEncoding((unsigned char *)h), HLL_SPARSE);
    CHECK_EQ_INT(hllSetRegister(&h, 100, 33, 3000), HLL_CHANGED);
    CHECK_EQ_INT(hllEncoding((unsigned char *)h), HLL_DENSE);
    CHECK_EQ_INT(hllDenseGetRegister((unsigned char *)h + HLL_HDR_SIZE, 100), 33);
    CHECK_EQ_INT(hllSetRegister(&h, 100, 20, 3000), HLL_UNCHANGED);
    CHECK_EQ_INT(hllSetRegister(&h, HLL_REGISTERS, 1, 3000), HLL_CORRUPT);
    sdsfree(h);
}

static void test_estimator(void) {
    uint8_t *raw = calloc(HLL_REGISTERS, 1);
    CHECK_EQ_U64(hllCountRaw(raw), 0);
    /* Accuracy over many sizes: within 3 standard errors (0.81% each). */
    sds h = hllCreate();
    uint64_t x = 777, added = 0;
    unsigned long limit = test_scaled(200000);
    for (unsigned long target = 1000; target <= limit; target *= 2) {
        for (; added < target; added++) {
            uint64_t r = xorshift(&x);
            hllAdd(&h, &r, sizeof r, HLL_SPARSE_MAX_BYTES_DEFAULT);
        }
        int invalid;
        double est = (double)hllCount((unsigned char *)h, sdslen(h), &invalid);
        double err = (est - (double)target) / (double)target;
        if (!CHECK(err < 0.025 && err > -0.025)) printf("      %lu elements: %.0f\n", target, est);
    }
    sdsfree(h);
    free(raw);
}

static void test_damaged_streams_are_refused(void) {
    sds good = hllCreate();
    hllAdd(&good, "a", 1, 3000);
    hllAdd(&good, "b", 1, 3000);
    const char *bad_tails[] = {"hello", "\x80", "\x00"};
    for (int i = 0; i < 5; i++) {
        sds bad = sdsdup(good);
        if (i < 3) bad = sdscatlen(bad, bad_tails[i], i == 1 || i == 2 ? 1 : 5);
        if (i == 3) sdsIncrLen(bad, -1);                      /* truncated */
        if (i == 4) sdsIncrLen(bad, -(ssize_t)(sdslen(bad) - 17)); /* lone XZERO byte */
        unsigned char *p = (unsigned char *)bad;
        uint8_t raw[HLL_REGISTERS] = {0};
        int invalid;
        CHECK(!hllIsWellFormed(p, sdslen(bad)));
        CHECK(hllIsValidHeader(p, sdslen(bad)));
        hllCount(p, sdslen(bad), &invalid);
        CHECK_EQ_INT(invalid, 1);
        CHECK_EQ_INT(hllMergeInto(raw, p, sdslen(bad)), HLL_CORRUPT);
        /* A change is refused and nothing is written. */
        sds before = sdsdup(bad);
        CHECK_EQ_INT(hllSetRegister(&bad, 3000, 7, 3000), HLL_CORRUPT);
        CHECK(sdslen(bad) == sdslen(before) && CHECK_EQ_MEM(bad, before, sdslen(bad)));
        CHECK_EQ_INT(hllToDense(&bad), HLL_CORRUPT);
        sdsfree(before);
        sdsfree(bad);
    }
    /* A lone XZERO byte: locating a register must not read past it. */
    sds lone = sdsnewlen(good, 17);
    lone = sdsRemoveFreeSpace(lone);
    CHECK_EQ_INT(hllSetRegister(&lone, 20000 % HLL_REGISTERS, 1, 3000), HLL_CORRUPT);
    sdsfree(lone);

    /* Headers. */
    CHECK(!hllIsValidHeader((const unsigned char *)"HYLL", 4));
    sds h = sdsdup(good);
    h[0] = 'h';
    CHECK(!hllIsValidHeader((unsigned char *)h, sdslen(h)));
    h[0] = 'H';
    h[4] = 0; /* dense label, sparse length */
    CHECK(!hllIsValidHeader((unsigned char *)h, sdslen(h)));
    h[4] = (char)HLL_RAW;
    CHECK(!hllIsValidHeader((unsigned char *)h, sdslen(h)));
    sdsfree(h);
    sdsfree(good);
}

TEST_MAIN(
    RUN(test_element_mapping_matches_redis);
    RUN(test_hash_ignores_alignment);
    RUN(test_sparse_bytes_match_redis);
    RUN(test_estimates_match_redis);
    RUN(test_dense_registers);
    RUN(test_sparse_and_dense_agree);
    RUN(test_promotion);
    RUN(test_estimator);
    RUN(test_damaged_streams_are_refused);
)
