/* test_lzf.c -- LZF (lzf.c): decompression of a block compressed by the
 * reference server (Redis 7.0's DUMP of a 54-byte string), and round trips
 * of our compressor over repetitive, random and mixed inputs of many sizes,
 * through output buffers that are too small by one byte or exactly right,
 * so every literal-run and back-reference length class is exercised.
 */
#include "test.h"
#include "lzf.h"

static const char plain_ref[] = "abcabcabcabcabcabcabcabcabcabc-hello-hello-hello-hello";

static void test_reference_block(void) {
    /* The LZF body of `DUMP k` from redis 7.0.15 (after 0xC3, clen 21, len 54). */
    static const unsigned char block[] = "\x03" "abca" "\xe0\x11\x02" "\x05-hello" "\xe0\x07\x05" "\x01lo";
    unsigned char out[64];
    CHECK_EQ_INT(sizeof block - 1, 21);
    CHECK_EQ_INT(lzfDecompress(block, sizeof block - 1, out, sizeof out), 54);
    CHECK_EQ_MEM(out, plain_ref, 54);
    CHECK_EQ_INT(lzfDecompress(block, sizeof block - 1, out, 53), 0); /* doesn't fit */
}

/* Compresses and decompresses `in`, checking the result and that a buffer
 * one byte shorter than the compressed size is refused. */
static int roundtrip(const unsigned char *in, size_t len, size_t *clen_out) {
    size_t cap = len + len / 16 + 64;
    unsigned char *c = malloc(cap), *d = malloc(len + 1);
    size_t clen = lzfCompress(in, len, c, cap);
    int ok = clen > 0 && lzfDecompress(c, clen, d, len) == len && memcmp(d, in, len) == 0;
    if (ok && clen > 1) ok = lzfCompress(in, len, c, clen - 1) == 0 && lzfCompress(in, len, c, clen) == clen;
    if (clen_out) *clen_out = clen;
    free(c);
    free(d);
    return ok;
}

static void test_compresses_reference_string(void) {
    size_t clen;
    CHECK(roundtrip((const unsigned char *)plain_ref, 54, &clen));
    CHECK(clen < 54 - 4); /* saves enough for the RDB writer to use it */
}

static void test_runs_and_lengths(void) {
    static unsigned char buf[70000];
    int bad = 0;
    memset(buf, 'x', sizeof buf);
    for (size_t len = 1; len < 600; len++) bad += !roundtrip(buf, len, NULL);
    size_t clen;
    bad += !roundtrip(buf, sizeof buf, &clen);
    CHECK_EQ_INT(bad, 0);
    CHECK(clen < sizeof buf / 50); /* long runs: ~3 bytes per 264 */
}

static void test_random_and_mixed(void) {
    static unsigned char buf[40000];
    int bad = 0;
    for (int round = 0; round < 40; round++) {
        size_t len = 1 + test_rand() % sizeof buf;
        unsigned alphabet = 1 + (unsigned)(test_rand() % 256);
        for (size_t i = 0; i < len; i++) {
            if (i > 20 && test_rand() % 4 == 0) { /* copy from up to 10000 back: far and near references */
                size_t back = 1 + test_rand() % (i < 10000 ? i : 10000);
                buf[i] = buf[i - back];
            } else {
                buf[i] = (unsigned char)(test_rand() % alphabet);
            }
        }
        bad += !roundtrip(buf, len, NULL);
    }
    CHECK_EQ_INT(bad, 0);
}

static void test_incompressible_does_not_fit(void) {
    unsigned char in[100], out[100];
    for (size_t i = 0; i < sizeof in; i++) in[i] = (unsigned char)test_rand();
    CHECK_EQ_INT(lzfCompress(in, sizeof in, out, sizeof in - 4), 0);
    CHECK_EQ_INT(lzfCompress(in, 0, out, sizeof out), 0);
}

TEST_MAIN(RUN(test_reference_block); RUN(test_compresses_reference_string); RUN(test_runs_and_lengths);
          RUN(test_random_and_mixed); RUN(test_incompressible_does_not_fit);)
