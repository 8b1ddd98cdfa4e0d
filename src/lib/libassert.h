/* libassert.h -- the one assertion macro of the library layer (src/lib/).
 *
 * A library that finds its own invariant broken cannot go on, and must not
 * print to a stderr nobody reads: a daemonized server has closed it. So
 * every library asserts through libAssert(), which ends in one function,
 * libAssertFailed(), that calls a handler the program may install once at
 * start-up with libSetAssertHandler():
 *   - default (no handler): one line "assertion failed: EXPR (FILE:LINE)"
 *     on stderr, then abort();
 *   - the server installs a handler that writes the expression, file and
 *     line to its log, the way serverAssert() does, so the SIGABRT that
 *     follows produces the usual crash report.
 * If a handler returns, libAssertFailed() aborts all the same: an assert
 * never lets the caller continue. Assertions are checked whatever NDEBUG
 * says -- they guard memory safety, not debugging.
 *
 * libAssertMsg(cond, what) is the same with a sentence instead of the
 * expression text, for checks whose expression says little on its own.
 */
#ifndef REDIS_LIBASSERT_H
#define REDIS_LIBASSERT_H

typedef void libAssertHandler(const char *expr, const char *file, int line);

/* Installs fn as the handler (NULL restores the default). Meant to be
 * called once, before any other thread runs. */
void libSetAssertHandler(libAssertHandler *fn);

_Noreturn void libAssertFailed(const char *expr, const char *file, int line);

#define libAssert(cond) (__builtin_expect(!!(cond), 1) ? (void)0 : libAssertFailed(#cond, __FILE__, __LINE__))
#define libAssertMsg(cond, what) (__builtin_expect(!!(cond), 1) ? (void)0 : libAssertFailed(what, __FILE__, __LINE__))

#endif /* REDIS_LIBASSERT_H */
