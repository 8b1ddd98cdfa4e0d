/* dicttype.c -- the dictType parts of dicttype.h.
 *
 * Design decisions:
 * - The case-insensitive compare is binary safe, like the case hash: equal
 *   lengths and equal bytes after folding A-Z to a-z (ASCII only, as
 *   siphash_nocase folds, whatever the C locale), so a name with a NUL byte
 *   never equals its prefix.
 * - dictPointerHash hashes the pointer's own bytes (not what it points to);
 *   with keyCompare left NULL the dict compares the pointers.
 */
#include "dicttype.h"

#include <string.h>

#include "sds.h"

uint64_t dictSdsHash(const void *key) { return dictGenHashFunction(key, sdslen((const sds)key)); }

int dictSdsKeyCompare(dict *d, const void *a, const void *b) {
    (void)d;
    size_t len = sdslen((const sds)a);
    return len == sdslen((const sds)b) && memcmp(a, b, len) == 0;
}

uint64_t dictSdsCaseHash(const void *key) { return dictGenCaseHashFunction(key, sdslen((const sds)key)); }

static unsigned char asciiLower(unsigned char c) { return c >= 'A' && c <= 'Z' ? (unsigned char)(c + ('a' - 'A')) : c; }

int dictSdsKeyCaseCompare(dict *d, const void *a, const void *b) {
    (void)d;
    size_t len = sdslen((const sds)a);
    if (len != sdslen((const sds)b)) return 0;
    const unsigned char *x = a, *y = b;
    for (size_t i = 0; i < len; i++)
        if (asciiLower(x[i]) != asciiLower(y[i])) return 0;
    return 1;
}

void dictSdsDestructor(dict *d, void *s) {
    (void)d;
    sdsfree(s);
}

uint64_t dictPointerHash(const void *key) { return dictGenHashFunction(&key, sizeof key); }
