/* test_osrandom.c -- unit tests for src/lib/osrandom.c.
 *
 * Randomness cannot be asserted exactly, so the checks are ones a broken
 * implementation fails with near certainty and a working one passes with
 * overwhelming probability: every byte of the buffer is written (filled
 * twice, over 0x00 and over 0xFF, almost no byte keeps the pre-fill), no byte
 * past the end is touched, two draws differ, and the share of one bits in
 * 64 KiB is within ~8 standard deviations of one half. Each source (getrandom,
 * a device file, the fallback) is tested on its own, including the device
 * failure cases (missing file, EOF, short file).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "osrandom.h"
#include "test.h"

typedef int (*fillFn)(unsigned char *buf, size_t len);

static int fillWithFallback(unsigned char *buf, size_t len) {
    osRandomBytesFallback(buf, len);
    return 0;
}

static int fillFromUrandom(unsigned char *buf, size_t len) {
    return osRandomBytesFromDevice(buf, len, "/dev/urandom");
}

static long countOneBits(const unsigned char *buf, size_t len) {
    long ones = 0;
    for (size_t i = 0; i < len; i++) ones += __builtin_popcount(buf[i]);
    return ones;
}

/* Fills len bytes twice, over two different pre-fills, and counts positions
 * that still hold the pre-fill. Random data matches it 1 time in 256. */
static void checkFillsWholeBuffer(fillFn fill, size_t len) {
    unsigned char *buf = malloc(len + 8);
    size_t unchanged = 0;
    for (int pass = 0; pass < 2; pass++) {
        unsigned char prefill = pass ? 0xFF : 0x00;
        memset(buf, prefill, len + 8);
        CHECK_EQ_INT(fill(buf, len), 0);
        for (size_t i = 0; i < len; i++) unchanged += buf[i] == prefill;
        for (size_t i = len; i < len + 8; i++) CHECK(buf[i] == prefill);
    }
    CHECK(unchanged <= 2 * len / 64 + 4);
    free(buf);
}

static void checkTwoDrawsDiffer(fillFn fill) {
    unsigned char a[32], b[32];
    CHECK_EQ_INT(fill(a, sizeof a), 0);
    CHECK_EQ_INT(fill(b, sizeof b), 0);
    CHECK(memcmp(a, b, sizeof a) != 0);
}

static void checkBitBalance(fillFn fill) {
    enum { LEN = 65536 };
    unsigned char *buf = malloc(LEN);
    CHECK_EQ_INT(fill(buf, LEN), 0);
    long ones = countOneBits(buf, LEN), half = LEN * 4L;
    CHECK(ones > half - 3000 && ones < half + 3000);
    free(buf);
}

static void checkSource(fillFn fill) {
    size_t lengths[] = {1, 7, 8, 9, 13, 255, 256, 257, 4096};
    for (size_t i = 0; i < sizeof lengths / sizeof lengths[0]; i++)
        checkFillsWholeBuffer(fill, lengths[i]);
    checkTwoDrawsDiffer(fill);
    checkBitBalance(fill);
}

static void test_os_random_bytes(void) { checkSource(osRandomBytes); }

static void test_zero_length_is_success(void) {
    unsigned char byte = 0x5A;
    CHECK_EQ_INT(osRandomBytes(&byte, 0), 0);
    CHECK_EQ_INT(osRandomBytes(NULL, 0), 0);
    osRandomBytesFallback(&byte, 0);
    osRandomBytesFallback(NULL, 0);
    CHECK(byte == 0x5A);
}

static void test_large_request(void) {
    size_t len = 1 << 20;
    unsigned char *buf = calloc(1, len);
    CHECK_EQ_INT(osRandomBytes(buf, len), 0);
    long ones = countOneBits(buf, len), half = (long)len * 4;
    CHECK(ones > half - 12000 && ones < half + 12000);
    free(buf);
}

/* getrandom() exists on every platform we build for today; where it does
 * not, the function must say so with -1 rather than pretend. */
static void test_getrandom_source(void) {
    unsigned char probe[16];
    int rc = osRandomBytesGetrandom(probe, sizeof probe);
    CHECK(rc == 0 || rc == -1);
    if (rc == 0) checkSource(osRandomBytesGetrandom);
    else printf("    getrandom(2) unavailable here: only its failure path was checked\n");
}

static void test_device_source(void) { checkSource(fillFromUrandom); }

static void test_device_failures(void) {
    unsigned char buf[16];
    CHECK_EQ_INT(osRandomBytesFromDevice(buf, sizeof buf, "/nonexistent/urandom"), -1);
    CHECK_EQ_INT(osRandomBytesFromDevice(buf, sizeof buf, "/dev/null"), -1);
    CHECK_EQ_INT(osRandomBytesFromDevice(buf, sizeof buf, "/"), -1);   /* a directory */
}

/* A regular file: exactly its bytes come back, and a file shorter than the
 * request is a failure, not a silently half-filled buffer. */
static void test_device_reads_exact_bytes(void) {
    char path[] = "/tmp/osrandom-test-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0) return;
    unsigned char content[100];
    for (int i = 0; i < 100; i++) content[i] = (unsigned char)(i * 37 + 11);
    CHECK_EQ_INT(write(fd, content, sizeof content), (long long)sizeof content);
    close(fd);
    unsigned char buf[101];
    CHECK_EQ_INT(osRandomBytesFromDevice(buf, 100, path), 0);
    CHECK_EQ_MEM(buf, content, 100);
    CHECK_EQ_INT(osRandomBytesFromDevice(buf, 101, path), -1);
    unlink(path);
}

static void test_fallback_source(void) { checkSource(fillWithFallback); }

/* Consecutive calls differ even when the clock has not moved. */
static void test_fallback_never_repeats(void) {
    enum { CALLS = 200 };
    static unsigned char draws[CALLS][16];
    for (int i = 0; i < CALLS; i++) osRandomBytesFallback(draws[i], 16);
    int repeats = 0;
    for (int i = 0; i < CALLS; i++)
        for (int j = i + 1; j < CALLS; j++) repeats += memcmp(draws[i], draws[j], 16) == 0;
    CHECK_EQ_INT(repeats, 0);
}

/* A forked child has the parent's memory, counter included, but another pid. */
static void test_fallback_differs_in_child_process(void) {
    int fds[2];
    CHECK(pipe(fds) == 0);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        unsigned char child[16];
        osRandomBytesFallback(child, sizeof child);
        _exit(write(fds[1], child, sizeof child) == (ssize_t)sizeof child ? 0 : 1);
    }
    unsigned char parent[16], child[16];
    osRandomBytesFallback(parent, sizeof parent);
    CHECK_EQ_INT(read(fds[0], child, sizeof child), (long long)sizeof child);
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK(memcmp(parent, child, sizeof parent) != 0);
    close(fds[0]);
    close(fds[1]);
}

TEST_MAIN(
    RUN(test_os_random_bytes);
    RUN(test_zero_length_is_success);
    RUN(test_large_request);
    RUN(test_getrandom_source);
    RUN(test_device_source);
    RUN(test_device_failures);
    RUN(test_device_reads_exact_bytes);
    RUN(test_fallback_source);
    RUN(test_fallback_never_repeats);
    RUN(test_fallback_differs_in_child_process);
)
