/* libassert.c -- where every library assertion ends (see libassert.h).
 *
 * The handler is a plain pointer, not an atomic: it is set once at start-up,
 * before threads exist, and only read afterwards. The default handler uses
 * fprintf(stderr) because nothing better is available to a bare library;
 * the server replaces it with one that reaches its log.
 */
#include "libassert.h"

#include <stdio.h>
#include <stdlib.h>

static void libDefaultAssertHandler(const char *expr, const char *file, int line) {
    fprintf(stderr, "assertion failed: %s (%s:%d)\n", expr, file, line);
    fflush(stderr);
}

static libAssertHandler *assertHandler = libDefaultAssertHandler;

void libSetAssertHandler(libAssertHandler *fn) {
    assertHandler = fn ? fn : libDefaultAssertHandler;
}

_Noreturn void libAssertFailed(const char *expr, const char *file, int line) {
    assertHandler(expr, file, line);
    abort();
}
