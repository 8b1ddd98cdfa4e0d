/* test_sha1.c -- SHA-1 against the FIPS 180 example vectors ("abc", the
 * empty message, the 448-bit two-block message, one million 'a'), the
 * digest of a script body as Redis 7.0 names it in its cache, and the same
 * digest whatever the split of the input into updates or its alignment.
 */
#include "test.h"
#include "sha1.h"

static int hexOf(const char *msg, size_t len, const char *expected) {
    char hex[SHA1_HEX_LEN + 1];
    sha1Hex(hex, msg, len);
    if (strcmp(hex, expected) != 0) printf("      got %s, expected %s\n", hex, expected);
    return strcmp(hex, expected) == 0;
}

static void test_fips_abc(void) { CHECK(hexOf("abc", 3, "a9993e364706816aba3e25717850c26c9cd0d89d")); }

static void test_fips_empty(void) { CHECK(hexOf("", 0, "da39a3ee5e6b4b0d3255bfef95601890afd80709")); }

static void test_fips_448_bits(void) {
    const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    CHECK(hexOf(m, strlen(m), "84983e441c3bd26ebaae4aa1f95129e5e54670f1"));
}

static void test_fips_million_a(void) {
    char chunk[1000];
    memset(chunk, 'a', sizeof chunk);
    sha1Ctx ctx;
    unsigned char d[SHA1_DIGEST_LEN];
    sha1Init(&ctx);
    for (int i = 0; i < 1000; i++) sha1Update(&ctx, chunk, sizeof chunk);
    sha1Final(&ctx, d);
    static const unsigned char expected[SHA1_DIGEST_LEN] = {
        0x34, 0xaa, 0x97, 0x3c, 0xd4, 0xc4, 0xda, 0xa4, 0xf6, 0x1e,
        0xeb, 0x2b, 0xdb, 0xad, 0x27, 0x31, 0x65, 0x34, 0x01, 0x6f};
    CHECK(memcmp(d, expected, sizeof d) == 0);
}

/* SCRIPT LOAD "return 1" on Redis 7.0.15. */
static void test_script_name(void) {
    CHECK(hexOf("return 1", 8, "e0e1f9fabfc9d4800c877a703b823ac0578ff8db"));
}

/* Every split point and start offset gives the digest of the whole. */
static void test_splits_and_offsets(void) {
    unsigned char buf[200 + 8];
    for (size_t i = 0; i < sizeof buf; i++) buf[i] = (unsigned char)(i * 31 + 7);
    char whole[SHA1_HEX_LEN + 1];
    sha1Hex(whole, buf, 200);
    int bad = 0;
    for (size_t off = 0; off < 8; off++) {
        unsigned char copy[208];
        memcpy(copy + off, buf, 200);
        for (size_t split = 0; split <= 200; split += 7) {
            sha1Ctx ctx;
            unsigned char d[SHA1_DIGEST_LEN];
            char hex[SHA1_HEX_LEN + 1];
            sha1Init(&ctx);
            sha1Update(&ctx, copy + off, split);
            sha1Update(&ctx, copy + off + split, 200 - split);
            sha1Final(&ctx, d);
            for (int i = 0; i < SHA1_DIGEST_LEN; i++) snprintf(hex + 2 * i, 3, "%02x", d[i]);
            if (strcmp(hex, whole) != 0) bad++;
        }
    }
    CHECK_EQ_INT(bad, 0);
}

/* Lengths around the padding boundary, digests from coreutils' sha1sum. */
static void test_padding_boundaries(void) {
    static const struct { size_t len; const char *hex; } v[] = {
        {55, "cef734ba81a024479e09eb5a75b6ddae62e6abf1"}, {56, "901305367c259952f4e7af8323f480d59f81335b"},
        {63, "0ddc4e0cccd9a12850deb5abb0853a4425559fec"}, {64, "bb2fa3ee7afb9f54c6dfb5d021f14b1ffe40c163"},
        {65, "78c741ddc482e4cdf8c474a0876347a0905b6233"}};
    char m[65];
    memset(m, 'x', sizeof m);
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) CHECK(hexOf(m, v[i].len, v[i].hex));
}

TEST_MAIN(
    RUN(test_fips_abc);
    RUN(test_fips_empty);
    RUN(test_fips_448_bits);
    RUN(test_fips_million_a);
    RUN(test_script_name);
    RUN(test_splits_and_offsets);
    RUN(test_padding_boundaries);
)
