/* test_libassert.c -- unit tests for src/lib/libassert.h.
 *
 * The default handler must print one line naming the expression, file and
 * line on stderr and abort, even with no handler installed (checked in a
 * child whose stderr is a pipe). An installed handler must receive exactly
 * those three values: one that longjmps out proves the call, one that
 * returns proves libAssertFailed() still aborts afterwards. A library's
 * own assertion (dict's unsafe-iterator check) must reach the installed
 * handler too, so the server's handler sees every library's failures.
 * The whole file is compiled with NDEBUG: library asserts never go away.
 */
#define NDEBUG 1
#include "test.h"
#include "dict.h"
#include "libassert.h"
#include "zmalloc.h"

#include <setjmp.h>
#include <signal.h>

/* Runs body in a child with stderr on a pipe; returns the wait status and
 * copies the first line the child wrote to stderr into out (an emulator
 * such as qemu-user adds a line of its own about the signal). */
static int runCapturingStderr(void (*body)(void), char *out, size_t outlen) {
    int fds[2];
    if (pipe(fds) != 0) return -1;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        dup2(fds[1], 2);
        body();
        _exit(0);
    }
    close(fds[1]);
    size_t used = 0;
    ssize_t n;
    while (used + 1 < outlen && (n = read(fds[0], out + used, outlen - 1 - used)) > 0) used += (size_t)n;
    out[used] = '\0';
    char *newline = strchr(out, '\n');
    if (newline) newline[1] = '\0';
    close(fds[0]);
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid) return -1;
    return status;
}

static int diedOfAbort(int status) { return status != -1 && WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT; }

enum { FAIL_DEFAULT_LINE = __LINE__ + 2 }; /* the line of the libAssert below */
static void failDefault(void) {
    libAssert(1 + 1 == 3);
}

static void test_default_prints_one_line_and_aborts(void) {
    char err[512], want[512];
    int status = runCapturingStderr(failDefault, err, sizeof err);
    CHECK(diedOfAbort(status));
    snprintf(want, sizeof want, "assertion failed: 1 + 1 == 3 (%s:%d)\n", __FILE__, FAIL_DEFAULT_LINE);
    CHECK_EQ_STR(err, want);
}

static void test_passing_assert_does_nothing(void) {
    int calls = 0;
    libAssert(calls == 0);
    libAssertMsg(calls == 0, "never printed");
    CHECK_EQ_INT(calls, 0);
}

static jmp_buf escape;
static const char *seenExpr, *seenFile;
static int seenLine, seenCalls;

static void recordAndEscape(const char *expr, const char *file, int line) {
    seenExpr = expr;
    seenFile = file;
    seenLine = line;
    seenCalls++;
    longjmp(escape, 1);
}

static void test_installed_handler_gets_expr_file_line(void) {
    libSetAssertHandler(recordAndEscape);
    seenCalls = 0;
    volatile int line = 0; /* set after setjmp, read after longjmp: must be volatile */
    if (setjmp(escape) == 0) {
        line = __LINE__ + 1;
        libAssert(seenCalls == 42);
    }
    CHECK_EQ_INT(seenCalls, 1);
    CHECK_EQ_STR(seenExpr, "seenCalls == 42");
    CHECK_EQ_STR(seenFile, __FILE__);
    CHECK_EQ_INT(seenLine, line);

    if (setjmp(escape) == 0) libAssertMsg(0, "a sentence instead");
    CHECK_EQ_INT(seenCalls, 2);
    CHECK_EQ_STR(seenExpr, "a sentence instead");
    libSetAssertHandler(NULL);
}

static uint64_t hashPointer(const void *key) { return (uint64_t)(uintptr_t)key * 0x9E3779B97F4A7C15ULL; }

static void test_library_asserts_reach_the_handler(void) {
    dictType type = {.hashFunction = hashPointer};
    dict *d = dictCreate(&type);
    for (long i = 1; i <= 20; i++) dictAdd(d, (void *)i, NULL);
    libSetAssertHandler(recordAndEscape);
    seenCalls = 0;
    dictIterator *it = dictGetIterator(d); /* unsafe: the dict must not change */
    if (setjmp(escape) == 0) {
        dictNext(it);
        dictAdd(d, (void *)100L, NULL);
        dictReleaseIterator(it);
    }
    libSetAssertHandler(NULL);
    zfree(it); /* the release was cut short by the longjmp */
    dictRelease(d);
    CHECK_EQ_INT(seenCalls, 1);
    CHECK(seenFile != NULL && strstr(seenFile, "dict.c") != NULL);
    CHECK(seenExpr != NULL && strstr(seenExpr, "fingerprint") != NULL);
}

static void writeMarker(const char *expr, const char *file, int line) {
    (void)file;
    dprintf(2, "handler: %s @%d\n", expr, line > 0);
}

static void failWithReturningHandler(void) {
    libSetAssertHandler(writeMarker);
    libAssert(!"returning handler");
}

static void test_returning_handler_still_aborts(void) {
    char err[512];
    int status = runCapturingStderr(failWithReturningHandler, err, sizeof err);
    CHECK(diedOfAbort(status));
    CHECK_EQ_STR(err, "handler: !\"returning handler\" @1\n");
}

static void failAfterRestore(void) {
    libSetAssertHandler(writeMarker);
    libSetAssertHandler(NULL);
    libAssertMsg(0, "back to default");
}

static void test_null_restores_the_default(void) {
    char err[512];
    int status = runCapturingStderr(failAfterRestore, err, sizeof err);
    CHECK(diedOfAbort(status));
    CHECK(strncmp(err, "assertion failed: back to default (", 35) == 0);
}

TEST_MAIN(
    RUN(test_default_prints_one_line_and_aborts);
    RUN(test_passing_assert_does_nothing);
    RUN(test_installed_handler_gets_expr_file_line);
    RUN(test_library_asserts_reach_the_handler);
    RUN(test_returning_handler_still_aborts);
    RUN(test_null_restores_the_default);
)
