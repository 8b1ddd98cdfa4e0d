/* test_bitutil.c -- the bitmap primitives against a bit-by-bit model.
 *
 * The property test: random strings (random density: all-zero, all-one,
 * sparse and dense runs, so the word-skipping paths are taken and left),
 * placed at every start offset 0..15 from an aligned base, with random bit
 * ranges; BITCOUNT, BITPOS (both bits) and BITOP (all four operations,
 * sources of different lengths and alignments) must equal a naive model
 * that reads one bit at a time. Run natively, with ALIGNED_ACCESS=yes plus
 * the alignment sanitizer, and under QEMU on armv6/armv7/sparc64 (where an
 * unaligned word load would trap), this is the proof that the word paths
 * align first.
 */
#include "test.h"
#include "bitutil.h"

/* Bytes with a random character: runs of zeros, of ones, or noise. */
static void fill_random(unsigned char *p, size_t len) {
    size_t i = 0;
    while (i < len) {
        size_t run = 1 + test_rand() % 40;
        int kind = (int)(test_rand() % 4);
        for (size_t k = 0; k < run && i < len; k++, i++)
            p[i] = kind == 0 ? 0x00 : kind == 1 ? 0xFF : kind == 2 ? (unsigned char)(1u << (test_rand() % 8)) : (unsigned char)test_rand();
    }
}

static int model_bit(const unsigned char *p, uint64_t pos) { return (p[pos / 8] >> (7 - pos % 8)) & 1; }

static uint64_t model_count(const unsigned char *p, uint64_t first, uint64_t last) {
    uint64_t n = 0;
    for (uint64_t pos = first; pos <= last; pos++) n += (uint64_t)model_bit(p, pos);
    return n;
}

static int64_t model_find(const unsigned char *p, uint64_t first, uint64_t last, int bit) {
    for (uint64_t pos = first; pos <= last; pos++)
        if (model_bit(p, pos) == bit) return (int64_t)pos;
    return -1;
}

#define MAXLEN 300
static unsigned char arena[4][MAXLEN + 64] __attribute__((aligned(16)));

static void random_range(size_t len, uint64_t *first, uint64_t *last) {
    uint64_t bits = (uint64_t)len * 8;
    uint64_t a = test_rand() % bits, b = test_rand() % bits;
    if (test_rand() % 4 == 0) { a = 0; b = bits - 1; } /* whole string often */
    *first = a < b ? a : b;
    *last = a < b ? b : a;
}

static void test_count_and_find_every_offset(void) {
    unsigned long rounds = test_scaled(3000) / 16;
    for (unsigned long r = 0; r < rounds; r++) {
        size_t len = 1 + test_rand() % MAXLEN;
        for (size_t off = 0; off < 16; off++) {
            unsigned char *p = arena[0] + off;
            fill_random(p, len);
            uint64_t first, last;
            random_range(len, &first, &last);
            if (!CHECK(bitCountRange(p, first, last) == model_count(p, first, last))) return;
            if (!CHECK(bitFindFirst(p, first, last, 1) == model_find(p, first, last, 1))) return;
            if (!CHECK(bitFindFirst(p, first, last, 0) == model_find(p, first, last, 0))) return;
        }
    }
}

static void test_find_in_uniform_strings(void) {
    for (size_t off = 0; off < 16; off++) {
        for (size_t len = 1; len < 80; len++) {
            unsigned char *p = arena[0] + off;
            memset(p, 0xFF, len);
            CHECK(bitFindFirst(p, 0, len * 8 - 1, 0) == -1);
            CHECK(bitFindFirst(p, 0, len * 8 - 1, 1) == 0);
            p[len - 1] = 0xFE; /* the very last bit clear */
            CHECK(bitFindFirst(p, 0, len * 8 - 1, 0) == (int64_t)(len * 8 - 1));
            memset(p, 0, len);
            CHECK(bitFindFirst(p, 0, len * 8 - 1, 1) == -1);
            CHECK(bitCountRange(p, 0, len * 8 - 1) == 0);
        }
    }
}

static unsigned char model_op_byte(int op, unsigned char *const *src, const size_t *len, int n, size_t i) {
    unsigned char acc = i < len[0] ? src[0][i] : 0;
    if (op == BITOP_NOT) return (unsigned char)~acc;
    for (int j = 1; j < n; j++) {
        unsigned char b = i < len[j] ? src[j][i] : 0;
        acc = op == BITOP_AND ? acc & b : op == BITOP_OR ? acc | b : acc ^ b;
    }
    return acc;
}

static void test_bitop_every_offset(void) {
    unsigned long rounds = test_scaled(2000) / 16;
    unsigned char expected[MAXLEN];
    for (unsigned long r = 0; r < rounds; r++) {
        int op = (int)(test_rand() % 4);
        int n = op == BITOP_NOT ? 1 : 1 + (int)(test_rand() % 3);
        unsigned char *src[3];
        size_t len[3], maxlen = 0;
        int same_offsets = test_rand() % 2; /* equal alignments take the word path */
        size_t base_off = test_rand() % 16;
        for (int j = 0; j < n; j++) {
            len[j] = test_rand() % MAXLEN;
            size_t off = same_offsets ? base_off : test_rand() % 16;
            src[j] = arena[j + 1] + off;
            fill_random(src[j], len[j]);
            if (len[j] > maxlen) maxlen = len[j];
        }
        if (maxlen == 0) continue;
        unsigned char *dst = arena[0] + (same_offsets ? base_off : test_rand() % 16);
        for (size_t i = 0; i < maxlen; i++) expected[i] = model_op_byte(op, src, len, n, i);
        bitOperation(op, dst, maxlen, (const unsigned char *const *)src, len, n);
        if (!CHECK_EQ_MEM(dst, expected, maxlen)) return;
    }
}

static void test_bitfields(void) {
    unsigned char buf[16] = {0};
    bitfieldSet(buf, 3, 5, 0x1F);
    CHECK(buf[0] == 0x1F);
    CHECK(bitfieldGetUnsigned(buf, 3, 5) == 0x1F);
    CHECK(bitfieldGetSigned(buf, 3, 5) == -1);
    bitfieldSet(buf + 1, 4, 64, 0x8000000000000001ULL);
    CHECK(bitfieldGetUnsigned(buf + 1, 4, 64) == 0x8000000000000001ULL);
    CHECK(bitfieldGetSigned(buf + 1, 4, 64) == INT64_MIN + 1);
    CHECK(buf[1] == 0x08 && buf[9] == 0x10);
    /* every width at every bit offset round-trips */
    for (int bits = 1; bits <= 64; bits++)
        for (uint64_t off = 0; off < 16; off++) {
            uint64_t v = test_rand() & (bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1);
            memset(buf, 0xA5, sizeof buf);
            bitfieldSet(buf, off, bits, v);
            if (!CHECK(bitfieldGetUnsigned(buf, off, bits) == v)) return;
        }
}

TEST_MAIN({
    RUN(test_count_and_find_every_offset);
    RUN(test_find_in_uniform_strings);
    RUN(test_bitop_every_offset);
    RUN(test_bitfields);
})
