/* test_siphash.c -- unit tests for src/lib/siphash.c.
 *
 * The reference outputs come from tests/c/vectors/siphash-{1-2,1-3,2-4}.txt
 * (key = bytes 00..0f, message i = bytes 00..i-1, 64 messages per file),
 * generated independently of this implementation. The directory is taken
 * from TEST_VECTORS_DIR when the build defines it, otherwise it is
 * "tests/c/vectors" relative to the working directory. A missing or short
 * vector file fails the test: silently checking nothing would prove nothing.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "siphash.h"
#include "test.h"

#ifndef TEST_VECTORS_DIR
#define TEST_VECTORS_DIR "tests/c/vectors"
#endif

#define VECTOR_COUNT 64

static uint8_t testKey[SIPHASH_KEY_LEN];
static uint8_t testMessage[VECTOR_COUNT];

static void setupKeyAndMessage(void) {
    for (int i = 0; i < SIPHASH_KEY_LEN; i++) testKey[i] = (uint8_t)i;
    for (int i = 0; i < VECTOR_COUNT; i++) testMessage[i] = (uint8_t)i;
}

/* Reads "<length> <hex u64>" lines into expected[length]. Returns how many
 * lines were read in order 0, 1, 2 ..., or -1 if the file cannot be opened. */
static int loadVectors(const char *name, uint64_t expected[VECTOR_COUNT]) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", TEST_VECTORS_DIR, name);
    FILE *fp = fopen(path, "r");
    if (!fp) {
        printf("    cannot open vector file %s\n", path);
        return -1;
    }
    char line[256];
    int count = 0;
    while (fgets(line, sizeof line, fp)) {
        if (line[0] == '#' || line[0] == '\n') continue;
        unsigned int len;
        unsigned long long value;
        if (sscanf(line, "%u %llx", &len, &value) != 2 || len != (unsigned)count ||
            count >= VECTOR_COUNT) {
            printf("    malformed line in %s: %s", path, line);
            break;
        }
        expected[count++] = value;
    }
    fclose(fp);
    return count;
}

static void checkVectorFile(const char *name, int c, int d) {
    uint64_t expected[VECTOR_COUNT];
    setupKeyAndMessage();
    int count = loadVectors(name, expected);
    CHECK_EQ_INT(count, VECTOR_COUNT);
    for (int len = 0; len < count; len++) {
        uint64_t got = siphash_cd(testMessage, (size_t)len, testKey, c, d);
        if (!CHECK(got == expected[len]))
            printf("      %s length %d: got %016llx expected %016llx\n", name, len,
                   (unsigned long long)got, (unsigned long long)expected[len]);
    }
}

static void test_vectors_siphash_2_4(void) { checkVectorFile("siphash-2-4.txt", 2, 4); }
static void test_vectors_siphash_1_3(void) { checkVectorFile("siphash-1-3.txt", 1, 3); }
static void test_vectors_siphash_1_2(void) { checkVectorFile("siphash-1-2.txt", 1, 2); }

/* The server's siphash() is the 1-2 variant and must match those vectors too. */
static void test_siphash_is_1_2(void) {
    uint64_t expected[VECTOR_COUNT];
    setupKeyAndMessage();
    int count = loadVectors("siphash-1-2.txt", expected);
    CHECK_EQ_INT(count, VECTOR_COUNT);
    for (int len = 0; len < count; len++)
        CHECK(siphash(testMessage, (size_t)len, testKey) == expected[len]);
}

static void test_empty_input_may_be_null(void) {
    setupKeyAndMessage();
    uint64_t fromNull = siphash(NULL, 0, testKey);
    CHECK(fromNull == siphash(testMessage, 0, testKey));
    CHECK(siphash_nocase(NULL, 0, testKey) == fromNull);
    CHECK(siphash_cd(NULL, 0, testKey, 2, 4) == siphash_cd(testMessage, 0, testKey, 2, 4));
}

static void test_key_changes_hash(void) {
    setupKeyAndMessage();
    uint64_t base = siphash(testMessage, 16, testKey);
    for (int bit = 0; bit < 128; bit++) {
        uint8_t key[SIPHASH_KEY_LEN];
        memcpy(key, testKey, sizeof key);
        key[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        CHECK(siphash(testMessage, 16, key) != base);
    }
}

static uint8_t asciiLower(uint8_t c) {
    return (c >= 'A' && c <= 'Z') ? (uint8_t)(c + ('a' - 'A')) : c;
}

static void checkNocaseMatchesLoweredCopy(const uint8_t *in, size_t len) {
    uint8_t lowered[512];
    for (size_t i = 0; i < len; i++) lowered[i] = asciiLower(in[i]);
    CHECK(siphash_nocase(in, len, testKey) == siphash(lowered, len, testKey));
}

/* Every byte value at every position in a word, including the boundaries of
 * the 'A'..'Z' range and bytes whose low 7 bits look like letters (0xC1). */
static void test_nocase_equals_hash_of_lowercased(void) {
    setupKeyAndMessage();
    uint8_t all[256];
    for (int i = 0; i < 256; i++) all[i] = (uint8_t)i;
    for (size_t len = 0; len <= 256; len++) checkNocaseMatchesLoweredCopy(all, len);
    for (int start = 0; start < 256; start += 3) {
        uint8_t rotated[256];
        for (int i = 0; i < 256; i++) rotated[i] = (uint8_t)(start + i * 7);
        checkNocaseMatchesLoweredCopy(rotated, 256 - (size_t)(start % 13));
    }
    const char *words[] = {"GET", "get", "GeT", "CLIENT|SETNAME", "@[`{Zz", "A", "ZZZZZZZZ"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        checkNocaseMatchesLoweredCopy((const uint8_t *)words[i], strlen(words[i]));
}

static void test_nocase_folds_only_ascii_letters(void) {
    setupKeyAndMessage();
    const uint8_t upper[] = "HELLO, WORLD";
    const uint8_t lower[] = "hello, world";
    CHECK(siphash_nocase(upper, 12, testKey) == siphash_nocase(lower, 12, testKey));
    CHECK(siphash_nocase(upper, 12, testKey) != siphash(upper, 12, testKey));
    /* 0xC1 has 'A' in its low 7 bits but is not a letter: no folding. */
    const uint8_t high[] = {0xC1, 0xDA, 0x80, 0xFF};
    CHECK(siphash_nocase(high, 4, testKey) == siphash(high, 4, testKey));
    /* '@' and '[' surround 'A'..'Z' and must stay distinct from '`'/'{'. */
    CHECK(siphash_nocase((const uint8_t *)"@", 1, testKey) !=
          siphash_nocase((const uint8_t *)"`", 1, testKey));
    CHECK(siphash_nocase((const uint8_t *)"[", 1, testKey) !=
          siphash_nocase((const uint8_t *)"{", 1, testKey));
}

/* The same bytes at every offset 0..7 from an 8-byte boundary hash the same:
 * on strict-alignment CPUs this is also the test that no word load traps. */
static void test_every_misalignment(void) {
    setupKeyAndMessage();
    union { uint64_t align; uint8_t bytes[VECTOR_COUNT + 16]; } buf;
    for (size_t len = 0; len < VECTOR_COUNT; len++) {
        uint64_t ref12 = siphash(testMessage, len, testKey);
        uint64_t ref24 = siphash_cd(testMessage, len, testKey, 2, 4);
        uint64_t refNocase = siphash_nocase(testMessage, len, testKey);
        for (size_t off = 0; off < 8; off++) {
            memset(buf.bytes, 0xAA, sizeof buf.bytes);
            memcpy(buf.bytes + off, testMessage, len);
            CHECK(siphash(buf.bytes + off, len, testKey) == ref12);
            CHECK(siphash_cd(buf.bytes + off, len, testKey, 2, 4) == ref24);
            CHECK(siphash_nocase(buf.bytes + off, len, testKey) == refNocase);
        }
    }
}

/* A misaligned key must work too. */
static void test_misaligned_key(void) {
    setupKeyAndMessage();
    union { uint64_t align; uint8_t bytes[SIPHASH_KEY_LEN + 8]; } buf;
    uint64_t ref = siphash(testMessage, 20, testKey);
    for (size_t off = 0; off < 8; off++) {
        memcpy(buf.bytes + off, testKey, SIPHASH_KEY_LEN);
        CHECK(siphash(testMessage, 20, buf.bytes + off) == ref);
    }
}

TEST_MAIN(
    RUN(test_vectors_siphash_2_4);
    RUN(test_vectors_siphash_1_3);
    RUN(test_vectors_siphash_1_2);
    RUN(test_siphash_is_1_2);
    RUN(test_empty_input_may_be_null);
    RUN(test_key_changes_hash);
    RUN(test_nocase_equals_hash_of_lowercased);
    RUN(test_nocase_folds_only_ascii_letters);
    RUN(test_every_misalignment);
    RUN(test_misaligned_key);
)
