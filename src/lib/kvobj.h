/* kvobj.h -- a keyspace entry: the value object and its key in ONE allocation.
 *
 * Every key of a database is one kvobj, linked into the keyspace hash table
 * (kvtable.h) through a pointer embedded in it, so a key costs one
 * allocation plus its bucket slot -- no dictEntry, no separate key sds, and
 * for short strings no separate value either. Layout of the block:
 *
 *     robj           type, encoding, lru, refcount + 3 flags, ptr
 *     next           kvobj *: the next entry of the same hash chain
 *     [expire]       int64 unix time in ms; present when hasexpire
 *     keyhdr         1 byte: size of the key's sds header
 *     key            sds header (type 5 below 32 bytes, type 8 below 256,
 *                    wider types beyond) + bytes + NUL
 *     [value]        hasembval: sds header (type 5 below 32 bytes, else
 *                    type 8) + bytes + NUL; o->ptr points at its bytes
 *
 * Design decisions:
 *  - The head is an ordinary robj, so every robj function (replies,
 *    encodings, OBJECT, decrRefCount, ...) works on a kvobj unchanged.
 *    decrRefCount frees it like any object: the value's payload by type
 *    (nothing for an embedded string), then the block with zfree.
 *  - The flags live in 3 bits taken from the refcount (29 bits remain).
 *  - `next` and `expire` are reached through struct members (kvobjHead,
 *    kvobjHeadExpire below), so they are naturally aligned on every target
 *    (the block comes from zmalloc, >= 8-byte aligned); the byte-granular
 *    tail is only touched through sds accessors, which use portable.h.
 *  - The key's header size is stored in one byte in front of it: the key is
 *    then found with one load, whatever its sds type. Keys are read-only.
 *  - Exactly the values whose encoding is EMBSTR are embedded (the rules of
 *    object.c decide it: strings up to OBJ_ENCODING_EMBSTR_SIZE_LIMIT, 44
 *    bytes, created whole), so OBJECT ENCODING answers what Redis answers
 *    for the same commands, and a 16-byte key with a short value fits one
 *    48-byte allocator class on 64-bit targets (40 on 32-bit). Longer
 *    strings (RAW) and every other type keep ptr to their own allocation;
 *    integers (INT) keep the number in ptr. A kvobj never shares its value
 *    with another object.
 *  - Adding an expire slot to a block without one re-creates the block: the
 *    object moves and the caller must use the returned pointer (and re-link
 *    it in the hash table: kvtableReplaceReallocated()).
 *  - No server state is used: this file is a library with unit tests.
 */
#ifndef REDIS_KVOBJ_H
#define REDIS_KVOBJ_H

#include <stddef.h>
#include <stdint.h>

#include "sds.h"
#include "object.h"

typedef struct redisObject kvobj;

/* The fixed part of every kvobj, and of those with an expire slot. */
typedef struct kvobjHead {
    robj obj;
    kvobj *next;
} kvobjHead;

typedef struct kvobjHeadExpire {
    robj obj;
    kvobj *next;
    int64_t expire;
} kvobjHeadExpire;

/* Creates the entry for key[0..keylen) with the value `val`, and an expire
 * time in ms (-1: none, no slot is allocated).
 *
 * Ownership: the caller's reference to val is consumed. If val's refcount
 * is 1 it is taken apart: an embedded string is copied into the block, an
 * integer copied, any other payload (a RAW sds, a list ...) moves into the
 * kvobj, and val's own block is freed -- val may itself be a kvobj (RENAME
 * passes the unlinked old entry). If val is shared or referenced elsewhere,
 * it is left intact minus one reference (shared objects are never touched)
 * and its value is copied; only strings can be copied that way, anything
 * else is a programming error and aborts. The type, encoding and access
 * clock (lru) of val carry over. The new entry's next pointer is NULL. */
kvobj *kvobjCreate(const char *key, size_t keylen, robj *val, long long expire);

/* Puts val in place of o's string value, reusing the block: the old value
 * is freed (a RAW sds) or overwritten (embedded), val is consumed exactly as
 * by kvobjCreate, and o is returned. Returns NULL, changing nothing, when o
 * is not a string, is referenced more than once or is val itself, or when
 * val is an embedded string longer than the room left in the block: the
 * caller then builds a new entry with kvobjCreate. The access clock comes
 * from val. */
kvobj *kvobjReplaceValue(kvobj *o, robj *val);

/* The expire time in ms, -1 when the key has none. */
long long kvobjGetExpire(const kvobj *o);

/* Sets the expire time (-1 removes it). Returns the object, which has moved
 * when a slot had to be added: the old pointer is then invalid, and the
 * object must have been referenced only once (refcount 1). Its next
 * pointer carries over, so only the link to it needs updating. */
kvobj *kvobjSetExpire(kvobj *o, long long expire);

/* Bytes the block occupies in the allocator, excluding a separate payload. */
size_t kvobjAllocSize(const kvobj *o);

/* ---- inline accessors (hot paths) ---------------------------------------- */

static inline int kvobjHasExpire(const kvobj *o) {
    return o->hasexpire && ((const kvobjHeadExpire *)o)->expire != -1;
}

static inline size_t kvobjKeyAreaOffset(const kvobj *o) {
    return o->hasexpire ? sizeof(kvobjHeadExpire) : sizeof(kvobjHead);
}

/* The key, an sds inside the block: valid as long as the object, never to be
 * modified or freed. */
static inline sds kvobjGetKey(const kvobj *o) {
    const unsigned char *area = (const unsigned char *)o + kvobjKeyAreaOffset(o);
    return (sds)(uintptr_t)(area + 1 + area[0]);
}

static inline kvobj *kvobjGetNext(const kvobj *o) { return ((const kvobjHead *)o)->next; }
static inline void kvobjSetNext(kvobj *o, kvobj *next) { ((kvobjHead *)o)->next = next; }

#endif /* REDIS_KVOBJ_H */
