/* kvtable_private.h -- the layout of a kvtable (kvtable.h): two bucket
 * arrays and the rehash state. Included by kvtable.c and by its white-box
 * unit test (tests/c/test_kvtable.c) only; everything else goes through
 * kvtable.h's functions, so the bucket layout can change without touching
 * the server (utils/check-source-names.sh fails if a file in src/ other
 * than kvtable.c includes this header).
 */
#ifndef REDIS_KVTABLE_PRIVATE_H
#define REDIS_KVTABLE_PRIVATE_H

#include "kvtable.h"

struct kvtable {
    kvtableType *type;
    kvobj **buckets[2];
    unsigned long used[2];
    long rehashidx;          /* next bucket of table 0 to move; -1: not rehashing */
    int pauserehash;         /* > 0: rehash steps suspended (safe iterators, scan, cursors) */
    signed char sizeExp[2];  /* table i has 2^sizeExp[i] buckets, none when -1 */
    uint64_t randomState;    /* PRNG state for the sampling functions */
};

#define KVTABLE_SIZE(exp) ((exp) == -1 ? 0 : (unsigned long)1 << (exp))

#endif /* REDIS_KVTABLE_PRIVATE_H */
