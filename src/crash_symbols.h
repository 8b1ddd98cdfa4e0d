/* crash_symbols.h -- function names for crash-report frames, from the
 * executable's own .symtab (see crash_symbols.c). */
#ifndef CRASH_SYMBOLS_H
#define CRASH_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

#define CRASH_SYMBOLS_MAX 128 /* addresses per call */

typedef struct crashSymbol {
    int found;        /* 0: not in a function of the executable (or no .symtab) */
    uintptr_t offset; /* from the function's start */
    char name[96];    /* cut to fit */
} crashSymbol;

/* For each of the n addresses (at most CRASH_SYMBOLS_MAX), the function of
 * the executable that holds it; exe gets the executable's path. Returns how
 * many were found. Safe in a signal handler. */
int crashSymbolsFind(void *const *addrs, int n, crashSymbol *out, char *exe, size_t exe_cap);

#endif
