/* dict.h -- the server's hash table: chained buckets, power-of-two sizes,
 * incremental rehashing.
 *
 * The API and its semantics are those of Redis 7's dict, because the rest of
 * the server (keyspace, hashes, sets, command table, pubsub ...) is written
 * against them. In short:
 *
 *  - A dict owns two tables. Growing or shrinking allocates table 1 and then
 *    moves one bucket at a time from table 0 (a "rehash step" on every add,
 *    find and delete, plus dictRehash()/dictRehashMilliseconds() from a cron),
 *    so no single call pays for moving millions of entries.
 *  - Growth happens when the load factor reaches 1 (checked before every
 *    insert) and shrinking when it falls below 1/8 (checked after every
 *    delete and when a shrink completes; never below 4 buckets). A cron may
 *    also call dictShrinkIfNeeded()/dictResize() on idle dicts. While a fork
 *    child exists the server calls dictSetResizeEnabled(DICT_RESIZE_AVOID):
 *    tables then grow only when used/size (integer division) exceeds 4,
 *    shrink only below a fill of 1/32, and a rehash in progress moves on only
 *    if it changes the size more than 4-fold, to spare copy-on-write pages;
 *    DICT_RESIZE_FORBID stops resizing and rehashing altogether.
 *  - Keys are hashed by the dictType's hashFunction; the generic helpers
 *    dictGenHashFunction()/dictGenCaseHashFunction() are SipHash-1-2 keyed by
 *    a process-wide seed the server sets from osRandomBytes() at start-up.
 *  - Iterators: a safe iterator pauses rehashing, so the table may be
 *    modified while iterating (deleting the entry just returned is fine); an
 *    unsafe one only allows dictNext() and aborts at release if the dict was
 *    changed under it. dictScan() is stateless: a cursor guarantees that
 *    every element present for the whole scan is returned at least once,
 *    however the table is resized between calls (some may come twice).
 *    Rehashing is paused during each call, and the callback may delete the
 *    entry it is given.
 *
 * Functions that can fail return DICT_OK (0) / DICT_ERR (-1), the status
 * convention of every library in src/lib. dictRehash() and dictReplace()
 * answer a yes/no question instead (1/0), as their comments say.
 */
#ifndef REDIS_DICT_H
#define REDIS_DICT_H

#include <stddef.h>
#include <stdint.h>

#define DICT_OK 0
#define DICT_ERR (-1)

typedef struct dict dict;

typedef struct dictEntry {
    void *key;
    union {
        void *val;
        uint64_t u64;
        int64_t s64;
        double d;
    } v;
    struct dictEntry *next; /* the next entry in the same bucket */
} dictEntry;

typedef struct dictType {
    uint64_t (*hashFunction)(const void *key);
    void *(*keyDup)(dict *d, const void *key);              /* NULL: store as is */
    void *(*valDup)(dict *d, const void *obj);              /* NULL: store as is */
    int (*keyCompare)(dict *d, const void *key1, const void *key2); /* NULL: pointer == */
    void (*keyDestructor)(dict *d, void *key);
    void (*valDestructor)(dict *d, void *obj);
    /* Asked before a table grows: moreMem is the size of the new bucket
     * array, usedRatio the current load factor. Return 0 to refuse. */
    int (*expandAllowed)(size_t moreMem, double usedRatio);
} dictType;

/* Table i has 2^ht_size_exp[i] buckets, or none when the exponent is -1. */
#define DICTHT_SIZE(exp) ((exp) == -1 ? 0 : (unsigned long)1 << (exp))
#define DICTHT_SIZE_MASK(exp) ((exp) == -1 ? 0 : DICTHT_SIZE(exp) - 1)

struct dict {
    dictType *type;
    dictEntry **ht_table[2];
    unsigned long ht_used[2];
    long rehashidx;          /* next bucket of table 0 to move; -1: not rehashing */
    int pauserehash;         /* > 0: rehash steps are suspended (safe iterators, scan) */
    signed char ht_size_exp[2];
    uint64_t randomState;    /* per-dict PRNG for the random-key functions */
};

typedef struct dictIterator {
    dict *d;
    long index;
    int table, safe;
    dictEntry *entry, *nextEntry;
    uint64_t fingerprint;    /* unsafe iterators: state of the dict at start */
} dictIterator;

typedef void(dictScanFunction)(void *privdata, const dictEntry *de);

typedef enum {
    DICT_RESIZE_ENABLE,
    DICT_RESIZE_AVOID,
    DICT_RESIZE_FORBID,
} dictResizeEnable;

#define DICT_HT_INITIAL_EXP 2
#define DICT_HT_INITIAL_SIZE (1 << (DICT_HT_INITIAL_EXP))
/* Under DICT_RESIZE_AVOID: grow only when used/size > this, shrink only when
 * the fill is below 1/(8 * this). */
#define DICT_FORCE_RESIZE_RATIO 4
/* Shrink when fewer than 1 in this many buckets would be used. */
#define DICT_HT_MIN_FILL 8

/* ---- entry access ------------------------------------------------------ */
static inline void *dictGetKey(const dictEntry *de) { return de->key; }
static inline void *dictGetVal(const dictEntry *de) { return de->v.val; }
static inline int64_t dictGetSignedIntegerVal(const dictEntry *de) { return de->v.s64; }
static inline uint64_t dictGetUnsignedIntegerVal(const dictEntry *de) { return de->v.u64; }
static inline double dictGetDoubleVal(const dictEntry *de) { return de->v.d; }
static inline double *dictGetDoubleValPtr(dictEntry *de) { return &de->v.d; }

static inline void dictSetSignedIntegerVal(dictEntry *de, int64_t val) { de->v.s64 = val; }
static inline void dictSetUnsignedIntegerVal(dictEntry *de, uint64_t val) { de->v.u64 = val; }
static inline void dictSetDoubleVal(dictEntry *de, double val) { de->v.d = val; }
static inline int64_t dictIncrSignedIntegerVal(dictEntry *de, int64_t by) {
    /* Wraps like the unsigned arithmetic it is done in, never undefined. */
    de->v.s64 = (int64_t)((uint64_t)de->v.s64 + (uint64_t)by);
    return de->v.s64;
}
static inline uint64_t dictIncrUnsignedIntegerVal(dictEntry *de, uint64_t by) {
    return de->v.u64 += by;
}
static inline double dictIncrDoubleVal(dictEntry *de, double by) { return de->v.d += by; }

/* Stores val (through the type's valDup if any); does not free the old one. */
static inline void dictSetVal(dict *d, dictEntry *de, void *val) {
    de->v.val = d->type->valDup ? d->type->valDup(d, val) : val;
}
/* Stores key (through the type's keyDup if any). */
static inline void dictSetKey(dict *d, dictEntry *de, void *key) {
    de->key = d->type->keyDup ? d->type->keyDup(d, key) : key;
}
static inline void dictFreeKey(dict *d, dictEntry *de) {
    if (d->type->keyDestructor) d->type->keyDestructor(d, de->key);
}
static inline void dictFreeVal(dict *d, dictEntry *de) {
    if (d->type->valDestructor) d->type->valDestructor(d, de->v.val);
}
static inline int dictCompareKeys(dict *d, const void *key1, const void *key2) {
    return d->type->keyCompare ? d->type->keyCompare(d, key1, key2) : key1 == key2;
}
static inline uint64_t dictHashKey(dict *d, const void *key) {
    return d->type->hashFunction(key);
}

/* ---- dict state -------------------------------------------------------- */
#define dictSlots(d) (DICTHT_SIZE((d)->ht_size_exp[0]) + DICTHT_SIZE((d)->ht_size_exp[1]))
#define dictSize(d) ((d)->ht_used[0] + (d)->ht_used[1])
#define dictIsRehashing(d) ((d)->rehashidx != -1)
#define dictPauseRehashing(d) ((d)->pauserehash++)
#define dictResumeRehashing(d) ((d)->pauserehash--)

/* ---- API ----------------------------------------------------------------- */
dict *dictCreate(dictType *type);
void dictRelease(dict *d);
/* Removes every entry; callback(d), if given, is called every 65536 buckets
 * so a long emptying can keep serving events. */
void dictEmpty(dict *d, void(callback)(dict *));

int dictExpand(dict *d, unsigned long size);     /* aborts on out of memory */
int dictTryExpand(dict *d, unsigned long size);  /* DICT_ERR on out of memory */
int dictResize(dict *d);                         /* shrink to fit dictSize() */
int dictExpandIfNeeded(dict *d);   /* DICT_OK: resize started or under way */
int dictShrinkIfNeeded(dict *d);   /* DICT_OK: resize started or under way */
void dictSetResizeEnabled(dictResizeEnable enable);
dictResizeEnable dictGetResizeEnabled(void);
int dictRehash(dict *d, int n);    /* 1: more to rehash, 0: done or cannot run now */
int dictRehashMilliseconds(dict *d, int ms);    /* returns buckets moved */

int dictAdd(dict *d, void *key, void *val);
dictEntry *dictAddRaw(dict *d, void *key, dictEntry **existing);
dictEntry *dictAddOrFind(dict *d, void *key);
int dictReplace(dict *d, void *key, void *val);  /* 1: added, 0: replaced */
int dictDelete(dict *d, const void *key);
dictEntry *dictUnlink(dict *d, const void *key);
void dictFreeUnlinkedEntry(dict *d, dictEntry *de);
dictEntry *dictFind(dict *d, const void *key);
void *dictFetchValue(dict *d, const void *key);
uint64_t dictGetHash(dict *d, const void *key);
dictEntry **dictFindEntryRefByPtrAndHash(dict *d, const void *oldptr, uint64_t hash);

dictIterator *dictGetIterator(dict *d);
dictIterator *dictGetSafeIterator(dict *d);
dictEntry *dictNext(dictIterator *iter);
void dictReleaseIterator(dictIterator *iter);

dictEntry *dictGetRandomKey(dict *d);
dictEntry *dictGetFairRandomKey(dict *d);
unsigned int dictGetSomeKeys(dict *d, dictEntry **des, unsigned int count);

/* Active defragmentation: each bucket array is handed to move(), which
 * returns the block's new place (the old one already released) or NULL to
 * leave it. Entries are not touched (dictFindEntryRefByPtrAndHash gives the
 * link to repoint for one). No iterator may be open. */
void dictDefragTables(dict *d, void *(*move)(void *block));

unsigned long dictScan(dict *d, unsigned long cursor, dictScanFunction *fn, void *privdata);
/* For a collection kept in another encoding that must page as a dict
 * would: the table size a dict that grew to `entries` entries one insert at
 * a time has (a power of two, at least the initial size; 0 when too big),
 * and the cursor dictScan() returns after visiting `cursor`'s bucket of a
 * table of that size. */
unsigned long dictTableSizeFor(unsigned long entries);
unsigned long dictScanCursorAfter(unsigned long cursor, unsigned long size);

extern unsigned dictHashSeedGeneration; /* bumped by dictSetHashFunctionSeed() */
void dictSetHashFunctionSeed(uint8_t *seed);
uint8_t *dictGetHashFunctionSeed(void);
uint64_t dictGenHashFunction(const void *key, size_t len);
uint64_t dictGenCaseHashFunction(const unsigned char *buf, size_t len);

void dictGetStats(char *buf, size_t bufsize, dict *d);

#endif /* REDIS_DICT_H */
