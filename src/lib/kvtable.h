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

/* The table's layout is private (kvtable_private.h): callers hold a pointer. */
typedef struct kvtable kvtable;

typedef struct kvtableIterator {
    kvtable *t;
    long index;
    int table, safe;
    kvobj *entry, *nextEntry;
    uint64_t fingerprint;    /* unsafe iterators: state of the table at start */
} kvtableIterator;

typedef void kvtableScanFunction(void *privdata, kvobj *o);

/* An ordered walk of the entries a table holds, bucket by bucket: every
 * bucket of table 0, then every bucket of table 1 when the table was
 * rehashing as the walk started. Not SCAN's cursor: the walk pauses the
 * table's rehashing from kvtableCursorStart() to kvtableCursorRelease(), so
 * an entry present at the start stays in its bucket and "the cursor has
 * passed the entry's bucket" means "the walk has handed out the entry".
 * The forkless snapshot (src/snapshot.c) builds its write barrier on that;
 * the guarantees are pinned by tests/c/test_kvtable.c:
 *  - every entry present at the start and not deleted is handed out exactly
 *    once, whatever is added, deleted or resized meanwhile (a grow or a
 *    shrink may start, but no entry moves until the release);
 *  - kvtableCursorPassed(o) is 0 until o's bucket has been handed out and
 *    stepped over (kvtableCursorNext), 1 from then on; 1 for an entry in
 *    no bucket the walk covers (added to a table 1 made since the start);
 *  - when kvtableCursorPassedNewKey(key) is 1, an entry added with that key
 *    now is never handed out (and kvtableCursorPassed says 1 for it); when
 *    it is 0 the entry may still be handed out, so the caller must be ready
 *    to skip it.
 * The fields are kvtable.c's: read them only through these functions. */
typedef struct kvtableCursor {
    int table;              /* the table the walk is in: 0, then 1 */
    unsigned long bucket;   /* the next bucket of that table to hand out */
    int walk_table1;        /* the table was rehashing at the start: table 1 is walked too */
} kvtableCursor;

unsigned long kvtableSize(const kvtable *t);   /* entries */
unsigned long kvtableSlots(const kvtable *t);  /* buckets, both tables */
int kvtableIsRehashing(const kvtable *t);
void kvtablePauseRehashing(kvtable *t);
void kvtableResumeRehashing(kvtable *t);
kvtableType *kvtableGetType(const kvtable *t);
/* The allocator's size of the bucket arrays (MEMORY STATS, INFO). */
size_t kvtableBucketArrayBytes(const kvtable *t);

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
/* Calls fn for every entry whose kvtableHashKey() has these low 32 bits
 * (a per-slot key index keeps only those bits: src/cluster_slotindex.c).
 * fn must not change the table. */
void kvtableForEachWithHashLow32(kvtable *t, uint32_t low, kvtableScanFunction *fn, void *privdata);
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

/* Starts a walk at the first bucket and pauses rehashing until the release. */
void kvtableCursorStart(kvtable *t, kvtableCursor *c);
/* The chain of the bucket under the cursor (may be NULL: an empty bucket)
 * in *chain, and 1; 0 once every bucket is handed out. The cursor stays on
 * that bucket until kvtableCursorNext(). */
int kvtableCursorBucket(const kvtable *t, kvtableCursor *c, kvobj **chain);
void kvtableCursorNext(kvtableCursor *c);
int kvtableCursorPassed(const kvtable *t, const kvtableCursor *c, const kvobj *o);
int kvtableCursorPassedNewKey(const kvtable *t, const kvtableCursor *c, const char *key, size_t len);
/* Ends the walk: rehashing resumes (unless kvtableEmpty() reset the pause). */
void kvtableCursorRelease(kvtable *t, kvtableCursor *c);

/* Active defragmentation: each bucket array is handed to move(), which
 * returns the block's new place (the old one already released) or NULL to
 * leave it. Entries are not touched. Call it between walks only: no
 * cursor or iterator may be open (the arrays' addresses change). */
void kvtableDefragTables(kvtable *t, void *(*move)(void *block));

unsigned long kvtableScan(kvtable *t, unsigned long cursor, kvtableScanFunction *fn, void *privdata);

void kvtableGetStats(char *buf, size_t bufsize, kvtable *t);

#endif /* REDIS_KVTABLE_H */
