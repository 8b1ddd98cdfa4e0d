/* shared_integers.c -- the shared integer objects 0..9999, built by the
 * compiler.
 *
 * Values in this range are never allocated per key: every key holding "42"
 * points at sharedIntegerObjects[42]. Building the table at compile time (a
 * macro expansion, no generator script) puts it in the data segment, which
 * the kernel pages in only when touched: a fresh server pays nothing for the
 * 10000 objects, where allocating them at start-up cost ~300 KB of RSS.
 * Reference counting leaves them alone (refcount OBJ_SHARED_REFCOUNT); only
 * their access clock is written, as in Redis, so OBJECT IDLETIME/FREQ work
 * for keys holding small integers.
 */
#include "server.h"

#define SHARED_INT(n) {.type = OBJ_STRING, .encoding = OBJ_ENCODING_INT, .lru = 0, \
    .refcount = OBJ_SHARED_REFCOUNT, .ptr = (void *)(intptr_t)(n)}
#define SHARED_INT10(n) SHARED_INT(n), SHARED_INT((n) + 1), SHARED_INT((n) + 2), SHARED_INT((n) + 3), \
    SHARED_INT((n) + 4), SHARED_INT((n) + 5), SHARED_INT((n) + 6), SHARED_INT((n) + 7), \
    SHARED_INT((n) + 8), SHARED_INT((n) + 9)
#define SHARED_INT100(n) SHARED_INT10(n), SHARED_INT10((n) + 10), SHARED_INT10((n) + 20), \
    SHARED_INT10((n) + 30), SHARED_INT10((n) + 40), SHARED_INT10((n) + 50), SHARED_INT10((n) + 60), \
    SHARED_INT10((n) + 70), SHARED_INT10((n) + 80), SHARED_INT10((n) + 90)
#define SHARED_INT1000(n) SHARED_INT100(n), SHARED_INT100((n) + 100), SHARED_INT100((n) + 200), \
    SHARED_INT100((n) + 300), SHARED_INT100((n) + 400), SHARED_INT100((n) + 500), \
    SHARED_INT100((n) + 600), SHARED_INT100((n) + 700), SHARED_INT100((n) + 800), \
    SHARED_INT100((n) + 900)

_Static_assert(OBJ_SHARED_INTEGERS == 10000, "the table below spells out 10000 entries");

robj sharedIntegerObjects[OBJ_SHARED_INTEGERS] = {
    SHARED_INT1000(0), SHARED_INT1000(1000), SHARED_INT1000(2000), SHARED_INT1000(3000),
    SHARED_INT1000(4000), SHARED_INT1000(5000), SHARED_INT1000(6000), SHARED_INT1000(7000),
    SHARED_INT1000(8000), SHARED_INT1000(9000),
};
