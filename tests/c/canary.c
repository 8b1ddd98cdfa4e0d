/* canary.c -- proves that unaligned-access traps are live on this target.
 *
 * This is the one file in the tree that breaks the rule in src/lib/portable.h on
 * purpose: it loads a 64-bit word from an address that is 1 byte past an
 * 8-byte boundary. On a strict-alignment target (32-bit ARM under QEMU, where
 * LDRD/LDM trap; SPARC64, where every unaligned load traps) it must die with
 * SIGBUS; natively, the alignment sanitizer must report it. If it survives
 * where a trap is expected, a green test run proves nothing, so
 * tests/c/run-unit.sh fails the port.
 *
 * The compiler must not see the misalignment, or it quietly emits byte loads:
 * the offset comes from a volatile read at run time and the load sits in a
 * noinline function reached through a volatile function pointer.
 *
 * Exit codes: killed by SIGBUS (trap live), 0 if the load completed ("no
 * trap" printed), sanitizer's own exit status if it reported the load.
 */
#include <stdint.h>
#include <stdio.h>
#include "platform.h"

/* CANARY_OFFSET=0 makes the load aligned: used to show that a run whose
 * trap is not live fails (see utils/demo-dead-canary.sh). */
#ifndef CANARY_OFFSET
#define CANARY_OFFSET 1
#endif
static volatile size_t runtime_offset = CANARY_OFFSET;

NOINLINE static uint64_t load_word_unchecked(const unsigned char *p) {
    return *(const volatile uint64_t *)(const volatile void *)p;
}

static uint64_t (*volatile load_fn)(const unsigned char *) = load_word_unchecked;

int main(void) {
    static _Alignas(16) unsigned char buf[32];
    for (size_t i = 0; i < sizeof buf; i++) buf[i] = (unsigned char)i;
    const unsigned char *p = buf + runtime_offset;
    printf("canary: loading 64 bits from %p (offset %zu from an 8-byte boundary)\n",
           (const void *)p, (size_t)((uintptr_t)p & 7));
    fflush(stdout);
    uint64_t v = load_fn(p);
    printf("canary: no trap (value %016llx)\n", (unsigned long long)v);
    return 0;
}
