/* test.h -- the minimal C unit-test framework used by every tests/c/test_*.c.
 *
 * Each test file is its own program (so a port can run it under QEMU, and a
 * crash in one library does not hide results of another):
 *
 *     static void test_something(void) { CHECK(1 + 1 == 2); CHECK_EQ_INT(a, b); }
 *     TEST_MAIN(RUN(test_something); RUN(test_other);)
 *
 * A test passes when none of its CHECKs failed. The program prints one line
 * per failing check, one line per test, and ends with the line
 * "N passed, N failed"; its exit status is non-zero if anything failed.
 * tests/c/run-unit.sh sums these lines over all programs.
 */
#ifndef REDIS_TEST_H
#define REDIS_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <inttypes.h>

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

#define TEST_MAIN(body) \
    int main(int argc, char **argv) { \
        (void)argc; (void)argv; \
        body \
        printf("%d passed, %d failed\n", test_passed_count, test_failed_count); \
        return test_failed_count ? 1 : 0; \
    }

#endif /* REDIS_TEST_H */
