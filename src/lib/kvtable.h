/* kvtable.h -- the keyspace hash table: kvobj entries (kvobj.h) chained
 * through their embedded next pointer, no per-entry allocation.
 *
 * It behaves like dict.h (read that first), specialised for the keyspace:
 *  - Entries are kvobj pointers; a bucket is a kvobj * and a chain is linked
 *    through kvobjGetNext(). The key is the kvobj's embedded sds. Lookups
 *    take the key as bytes + length; keys are hashed with
 *    dictGenHashFunction() (SipHash-1-2 with the server's seed) and compared
 *    by length and memcmp.
 *  - Two tables and incremental rehashing in both directions, one rehash
 *    step per lookup/insert/delete unless paused; grow at a load factor of
 *    1, shrink below 1/8; the global policy of dictSetResizeEnabled()
 *    (AVOID/FORBID while a fork child exists) applies to these tables too,
 *    and the type's expandAllowed callback can refuse a growth (maxmemory).
 *  - Safe iterators (pause rehashing; the entry just returned may be
 *    deleted), unsafe iterators (fingerprint checked at release), a
 *    stateless reverse-binary SCAN with dict's guarantee, random / fair
 *    random / some-keys sampling, statistics text.
 *  - The table owns its entries: deleting or emptying calls the type's
 *    entryDestructor (the server passes decrRefCount). An entry can be in
 *    one table at a time; kvtableUnlink() hands it back without freeing it.
 *  - When a kvobj is rebuilt elsewhere (kvobjSetExpire adding a slot),
 *    kvtableReplaceReallocated() swaps the stale pointer for the new one
 *    without dereferencing the stale one.
 * Functions that can fail return KVTABLE_OK (0) / KVTABLE_ERR (-1), the
 * status convention of every library in src/lib; kvtableRehash() answers
 * "more to do?" with 1/0 instead.
 */
#ifndef REDIS_KVTABLE_H
#define REDIS_KVTABLE_H

#include <stddef.h>
#include <stdint.h>

#define KVTABLE_OK 0
#define KVTABLE_ERR (-1)

typedef struct redisObject kvobj;

typedef struct kvtableType {
    void (*entryDestructor)(kvobj *o);  /* NULL: entries are not freed */
    /* Asked before a table grows: moreMem is the size of the new bucket
     * array, usedRatio the current load factor. Return 0 to refuse. */
    int (*expandAllowed)(size_t moreMem, double usedRatio);
} kvtableType;

typedef struct kvtable {
    kvtableType *type;
    kvobj **buckets[2];
    unsigned long used[2];
    long rehashidx;          /* next bucket of table 0 to move; -1: not rehashing */
    int pauserehash;         /* > 0: rehash steps suspended (safe iterators, scan) */
    signed char sizeExp[2];  /* table i has 2^sizeExp[i] buckets, none when -1 */
    uint64_t randomState;    /* PRNG state for the sampling functions */
} kvtable;

typedef struct kvtableIterator {
    kvtable *t;
    long index;
    int table, safe;
    kvobj *entry, *nextEntry;
    uint64_t fingerprint;    /* unsafe iterators: state of the table at start */
} kvtableIterator;

typedef void kvtableScanFunction(void *privdata, kvobj *o);

#define KVTABLE_SIZE(exp) ((exp) == -1 ? 0 : (unsigned long)1 << (exp))
#define kvtableSlots(t) (KVTABLE_SIZE((t)->sizeExp[0]) + KVTABLE_SIZE((t)->sizeExp[1]))
#define kvtableSize(t) ((t)->used[0] + (t)->used[1])
#define kvtableIsRehashing(t) ((t)->rehashidx != -1)
#define kvtablePauseRehashing(t) ((t)->pauserehash++)
#define kvtableResumeRehashing(t) ((t)->pauserehash--)

kvtable *kvtableCreate(kvtableType *type);
void kvtableRelease(kvtable *t);
/* Frees every entry; callback(t), if given, runs every 65536 buckets. */
void kvtableEmpty(kvtable *t, void(callback)(kvtable *));

int kvtableExpand(kvtable *t, unsigned long size);     /* aborts on out of memory */
int kvtableTryExpand(kvtable *t, unsigned long size);  /* KVTABLE_ERR on out of memory */
int kvtableResize(kvtable *t);                          /* shrink to fit kvtableSize() */
int kvtableExpandIfNeeded(kvtable *t);  /* KVTABLE_OK: resize started or under way */
int kvtableShrinkIfNeeded(kvtable *t);  /* KVTABLE_OK: resize started or under way */
int kvtableRehash(kvtable *t, int n);   /* 1: more to rehash, 0: done or cannot run now */
int kvtableRehashMilliseconds(kvtable *t, int ms);  /* returns buckets moved (x100) */

uint64_t kvtableHashKey(const char *key, size_t len);
kvobj *kvtableFind(kvtable *t, const char *key, size_t len);
/* Cache hints for a lookup of a key with this hash that is coming soon: the
 * bucket(s) it falls in; then, once those are cached, their first entries.
 * They read at most the buckets and change nothing. */
void kvtablePrefetchBuckets(const kvtable *t, uint64_t hash);
void kvtablePrefetchEntries(const kvtable *t, uint64_t hash);
/* Links o in; KVTABLE_ERR (o untouched, *existing set if given) when an
 * entry with the same key is present. */
int kvtableAdd(kvtable *t, kvobj *o, kvobj **existing);
/* Puts o in place of the entry with the same key and returns that entry,
 * unlinked but not freed; or adds o and returns NULL. */
kvobj *kvtableReplace(kvtable *t, kvobj *o);
/* After oldptr was rebuilt as newobj (same key): relinks the table to newobj.
 * oldptr is only compared, never read. KVTABLE_ERR if it was not found. */
int kvtableReplaceReallocated(kvtable *t, const kvobj *oldptr, kvobj *newobj);
/* Removes the entry with this key and returns it without freeing it. */
kvobj *kvtableUnlink(kvtable *t, const char *key, size_t len);
int kvtableDelete(kvtable *t, const char *key, size_t len);  /* unlink + destructor */

kvtableIterator *kvtableGetIterator(kvtable *t);
kvtableIterator *kvtableGetSafeIterator(kvtable *t);
kvobj *kvtableNext(kvtableIterator *iter);
void kvtableReleaseIterator(kvtableIterator *iter);

kvobj *kvtableGetRandomKey(kvtable *t);
kvobj *kvtableGetFairRandomKey(kvtable *t);
unsigned int kvtableGetSomeKeys(kvtable *t, kvobj **out, unsigned int count);

unsigned long kvtableScan(kvtable *t, unsigned long cursor, kvtableScanFunction *fn, void *privdata);

void kvtableGetStats(char *buf, size_t bufsize, kvtable *t);

#endif /* REDIS_KVTABLE_H */
