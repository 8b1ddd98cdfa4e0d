/* test_crc64.c -- CRC-64/Jones against its published check value, against a
 * DUMP payload checksummed by the reference server, and against a naive
 * bit-at-a-time implementation written here, for every split point, every
 * start misalignment and long buffers, so the slicing-by-8 word path, its
 * aligned head and its byte tail are all compared with an independent
 * definition (on big-endian SPARC too).
 */
#include "test.h"
#include "crc64.h"

#define REFLECTED_POLY 0x95ac9329ac4bc9b5ULL /* 0xad93d23594c935a9 bit-reversed */

static uint64_t crc64_bitwise(uint64_t crc, const unsigned char *s, size_t len) {
    for (size_t i = 0; i < len; i++) {
        crc ^= s[i];
        for (int bit = 0; bit < 8; bit++)
            crc = (crc & 1) ? (crc >> 1) ^ REFLECTED_POLY : crc >> 1;
    }
    return crc;
}

/* Deterministic pseudo-random bytes (xorshift64), so failures reproduce. */
static void fill_pattern(unsigned char *buf, size_t len, uint64_t seed) {
    uint64_t x = seed | 1;
    for (size_t i = 0; i < len; i++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        buf[i] = (unsigned char)(x >> 24);
    }
}

#define CHECK_EQ_U64(a, b) do { \
    uint64_t a_ = (a), b_ = (b); \
    if (!CHECK(a_ == b_)) printf("      got 0x%016" PRIx64 ", expected 0x%016" PRIx64 "\n", a_, b_); \
} while (0)

static void test_check_value(void) {
    const unsigned char *check = (const unsigned char *)"123456789";
    crc64_init();
    CHECK_EQ_U64(crc64(0, check, 9), 0xe9c6d914c4b8d9caULL);
    CHECK_EQ_U64(crc64_bitwise(0, check, 9), 0xe9c6d914c4b8d9caULL);
}

/* DUMP payload of the string "hello world, this is a dump payload" from the
 * reference server (redis 7.0): type 0, length-prefixed value, RDB version
 * 10 (2 bytes LE), then the CRC-64 of everything before it, little-endian. */
static void test_reference_dump_payload(void) {
    static const unsigned char payload[] =
        "\x00\x23hello world, this is a dump payload\x0a\x00"
        "\xea\x3a\xdb\xed\x30\x4a\x24\xda";
    size_t body = sizeof payload - 1 - 8;
    uint64_t stored = 0;
    for (int i = 7; i >= 0; i--) stored = (stored << 8) | payload[body + (size_t)i];
    CHECK_EQ_U64(crc64(0, payload, body), stored);
}

static void test_init_is_idempotent(void) {
    const unsigned char *check = (const unsigned char *)"123456789";
    crc64_init();
    crc64_init();
    CHECK_EQ_U64(crc64(0, check, 9), 0xe9c6d914c4b8d9caULL);
}

static void test_empty_input(void) {
    unsigned char byte = 0x5a;
    CHECK_EQ_U64(crc64(0, &byte, 0), 0);
    CHECK_EQ_U64(crc64(0x0123456789abcdefULL, &byte, 0), 0x0123456789abcdefULL);
    CHECK_EQ_U64(crc64(0, (const unsigned char *)"", 0), 0);
}

static void test_single_bytes(void) {
    for (unsigned b = 0; b < 256; b++) {
        unsigned char byte = (unsigned char)b;
        CHECK_EQ_U64(crc64(0, &byte, 1), crc64_bitwise(0, &byte, 1));
        CHECK_EQ_U64(crc64(~0ULL, &byte, 1), crc64_bitwise(~0ULL, &byte, 1));
    }
}

/* Splitting the input anywhere and chaining gives the one-shot result. */
static void test_incremental_every_split(void) {
    unsigned char buf[203];
    fill_pattern(buf, sizeof buf, 7);
    uint64_t whole = crc64(0, buf, sizeof buf);
    CHECK_EQ_U64(whole, crc64_bitwise(0, buf, sizeof buf));
    int bad = 0;
    for (size_t cut = 0; cut <= sizeof buf; cut++) {
        uint64_t part = crc64(crc64(0, buf, cut), buf + cut, sizeof buf - cut);
        bad += part != whole;
    }
    CHECK_EQ_INT(bad, 0);
}

/* The same bytes at every offset 0..7 from an 8-byte boundary, and every
 * length 0..64 (all combinations of head, words and tail). */
static void test_every_misalignment(void) {
    union { uint64_t align; unsigned char bytes[8 + 80]; } storage;
    unsigned char data[80];
    int bad = 0;
    fill_pattern(data, sizeof data, 99);
    for (size_t offset = 0; offset < 8; offset++) {
        unsigned char *p = storage.bytes + offset;
        memcpy(p, data, sizeof data);
        for (size_t len = 0; len <= 64; len++)
            bad += crc64(0, p, len) != crc64_bitwise(0, data, len);
    }
    CHECK_EQ_INT(bad, 0);
}

static void test_long_buffer(void) {
    size_t len = 256 * 1024;
    unsigned char *buf = malloc(len + 8);
    CHECK(buf != NULL);
    if (!buf) return;
    fill_pattern(buf, len + 8, 12345);
    for (size_t offset = 0; offset < 8; offset += 3) {
        uint64_t expect = crc64_bitwise(0, buf + offset, len);
        CHECK_EQ_U64(crc64(0, buf + offset, len), expect);
    }
    free(buf);
}

/* With init 0 and no final xor, zero bytes leave a zero CRC at zero; a
 * CRC-64/XZ-style parameter set (init and xorout ~0) would not. */
static void test_zero_bytes_keep_zero(void) {
    unsigned char zeros[37] = {0};
    CHECK_EQ_U64(crc64(0, zeros, sizeof zeros), 0);
    CHECK(crc64(1, zeros, sizeof zeros) != 1);
    CHECK_EQ_U64(crc64(1, zeros, sizeof zeros), crc64_bitwise(1, zeros, sizeof zeros));
}

TEST_MAIN(
    RUN(test_check_value);
    RUN(test_reference_dump_payload);
    RUN(test_init_is_idempotent);
    RUN(test_empty_input);
    RUN(test_single_bytes);
    RUN(test_incremental_every_split);
    RUN(test_every_misalignment);
    RUN(test_long_buffer);
    RUN(test_zero_bytes_keep_zero);
)
