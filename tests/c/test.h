/* test.h -- the minimal C unit-test framework used by every tests/c/test_*.c.
 *
 * Each test file is its own program (so a port can run it under QEMU, and a
 * crash in one library does not hide results of another):
 *
 *     static void test_something(void) { CHECK(1 + 1 == 2); CHECK_EQ_INT(a, b); }
 *     TEST_MAIN(RUN(test_something); RUN(test_other);)
 *
 * Helpers: test_scaled(n) for sizes that TEST_SCALE can shrink under slow
 * emulators, test_run_in_child(fn) for checks that a misuse aborts.
 *
 * A test passes when none of its CHECKs failed. The program prints one line
 * per failing check, one line per test, and ends with the line
 * "N passed, N failed"; its exit status is non-zero if anything failed.
 * tests/c/run-unit.sh sums these lines over all programs.
 */
#ifndef REDIS_TEST_H
#define REDIS_TEST_H

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int test_passed_count, test_failed_count, test_current_failures;

static inline int test_check_(int ok, const char *expr, const char *file, int line) {
    if (!ok) {
        test_current_failures++;
        printf("    check failed: %s (%s:%d)\n", expr, file, line);
    }
    return ok;
}

#define CHECK(cond) test_check_(!!(cond), #cond, __FILE__, __LINE__)

#define CHECK_EQ_INT(a, b) do { \
    long long a_ = (long long)(a), b_ = (long long)(b); \
    if (!test_check_(a_ == b_, #a " == " #b, __FILE__, __LINE__)) \
        printf("      got %lld, expected %lld\n", a_, b_); \
} while (0)

#define CHECK_EQ_STR(a, b) do { \
    const char *a_ = (a), *b_ = (b); \
    if (!test_check_(a_ && b_ && strcmp(a_, b_) == 0, #a " == " #b, __FILE__, __LINE__)) \
        printf("      got \"%s\", expected \"%s\"\n", a_ ? a_ : "(null)", b_ ? b_ : "(null)"); \
} while (0)

#define CHECK_EQ_MEM(a, b, len) \
    test_check_(memcmp((a), (b), (len)) == 0, "memcmp(" #a ", " #b ") == 0", __FILE__, __LINE__)

#define RUN(fn) do { \
    test_current_failures = 0; \
    fn(); \
    if (test_current_failures == 0) { test_passed_count++; printf("[ok] %s\n", #fn); } \
    else { test_failed_count++; printf("[FAIL] %s\n", #fn); } \
    fflush(stdout); \
} while (0)

/* Deterministic pseudo-random numbers (xorshift64), so a failure reproduces
 * run after run; test_rand_seed() picks another sequence. */
static uint64_t test_rng_state = 0x9e3779b97f4a7c15ULL;

static inline void test_rand_seed(uint64_t seed) { test_rng_state = seed ? seed : 1; }

static inline uint64_t test_rand(void) {
    test_rng_state ^= test_rng_state << 13;
    test_rng_state ^= test_rng_state >> 7;
    test_rng_state ^= test_rng_state << 17;
    return test_rng_state;
}

/* n scaled by the TEST_SCALE environment variable (a factor, default 1;
 * slow emulators may set e.g. 0.2), never below 1000. */
static inline unsigned long test_scaled(unsigned long n) {
    const char *env = getenv("TEST_SCALE");
    double factor = env ? atof(env) : 1.0;
    if (factor <= 0) factor = 1.0;
    unsigned long result = (unsigned long)((double)n * factor);
    return result < 1000 ? 1000 : result;
}

/* The port's time factor (TIME_FACTOR, set by tests/c/run-unit.sh: 1
 * natively, 4-6 under QEMU): a wait a test times is scaled by it. */
static inline int test_time_factor(void) {
    const char *env = getenv("TIME_FACTOR");
    int f = env ? atoi(env) : 1;
    return f > 0 ? f : 1;
}

/* Runs body in a child process with stderr silenced and returns its wait
 * status (-1 if it could not run): for checks that a misuse aborts. */
static inline int test_run_in_child(void (*body)(void)) {
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        int devnull = open("/dev/null", O_WRONLY);
        if (devnull >= 0) dup2(devnull, 2);
        body();
        _exit(0);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid) return -1;
    return status;
}

#define TEST_MAIN(body) \
    int main(int argc, char **argv) { \
        (void)argc; (void)argv; \
        body \
        printf("%d passed, %d failed\n", test_passed_count, test_failed_count); \
        return test_failed_count ? 1 : 0; \
    }

#endif /* REDIS_TEST_H */
