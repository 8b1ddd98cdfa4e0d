/* test_sha256.c -- unit tests for src/lib/sha256.c.
 *
 * The expected digests are the FIPS 180-2 / NIST example vectors: "abc",
 * the empty message, the 448-bit message "abcdbcde...nopq" and one million
 * 'a'. Also: feeding a message in pieces of every size gives the digest of
 * the whole, and an input at an odd address hashes the same (alignment).
 */
#include <stdlib.h>
#include <string.h>

#include "sha256.h"
#include "test.h"

static void test_abc(void) {
    char hex[SHA256_HEX_LEN + 1];
    sha256Hex("abc", 3, hex);
    CHECK_EQ_STR(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

static void test_empty(void) {
    char hex[SHA256_HEX_LEN + 1];
    sha256Hex("", 0, hex);
    CHECK_EQ_STR(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

static void test_448_bits(void) {
    const char *msg = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    char hex[SHA256_HEX_LEN + 1];
    sha256Hex(msg, strlen(msg), hex);
    CHECK_EQ_STR(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

static void test_million_a(void) {
    sha256Ctx ctx;
    unsigned char chunk[1000], digest[SHA256_DIGEST_LEN];
    memset(chunk, 'a', sizeof chunk);
    sha256Init(&ctx);
    for (int j = 0; j < 1000; j++) sha256Update(&ctx, chunk, sizeof chunk);
    sha256Final(&ctx, digest);
    static const unsigned char expected[SHA256_DIGEST_LEN] = {
        0xcd, 0xc7, 0x6e, 0x5c, 0x99, 0x14, 0xfb, 0x92, 0x81, 0xa1, 0xc7, 0xe2, 0x84, 0xd7, 0x3e, 0x67,
        0xf1, 0x80, 0x9a, 0x48, 0xa4, 0x97, 0x20, 0x0e, 0x04, 0x6d, 0x39, 0xcc, 0xc7, 0x11, 0x2c, 0xd0};
    CHECK_EQ_MEM(digest, expected, SHA256_DIGEST_LEN);
}

/* Pieces of every size from 1 to 130 bytes, cutting across block borders. */
static void test_incremental_equals_whole(void) {
    unsigned char msg[300], whole[SHA256_DIGEST_LEN], parts[SHA256_DIGEST_LEN];
    for (size_t j = 0; j < sizeof msg; j++) msg[j] = (unsigned char)(j * 7 + 3);
    sha256(msg, sizeof msg, whole);
    for (size_t piece = 1; piece <= 130; piece++) {
        sha256Ctx ctx;
        sha256Init(&ctx);
        for (size_t off = 0; off < sizeof msg; off += piece)
            sha256Update(&ctx, msg + off, off + piece > sizeof msg ? sizeof msg - off : piece);
        sha256Final(&ctx, parts);
        CHECK_EQ_MEM(parts, whole, SHA256_DIGEST_LEN);
    }
}

static void test_unaligned_input(void) {
    char *buf = malloc(64 + 3);
    memcpy(buf + 3, "abc", 3);
    char hex[SHA256_HEX_LEN + 1];
    sha256Hex(buf + 3, 3, hex);
    CHECK_EQ_STR(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    free(buf);
}

TEST_MAIN(RUN(test_abc); RUN(test_empty); RUN(test_448_bits); RUN(test_million_a);
          RUN(test_incremental_equals_whole); RUN(test_unaligned_input);)
