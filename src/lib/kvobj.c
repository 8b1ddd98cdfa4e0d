/* kvobj.c -- building keyspace entries: a value object and its key in one
 * allocation (layout and ownership rules in kvobj.h).
 *
 * Design decisions:
 *  - One constructor does all the work. Adding an expire slot to a block
 *    that has none simply builds the entry again from itself (the key is
 *    copied before the old block is freed), so there is no second copy of
 *    the layout logic to keep in sync; it costs a copy of at most a few
 *    dozen bytes plus the key, on a path (the first EXPIRE of a key) that
 *    already does a hash-table update.
 *  - An embedded string keeps the layout of a normal sds, with the
 *    smallest header that fits (type 5 has no capacity field, so it is
 *    read-only, which is what an embstr is anyway). Its sds type is only
 *    known through o->ptr; nothing needs to find the embedded area from the
 *    block start, so a value converted in place from EMBSTR to another
 *    encoding just leaves dead bytes until the block is rebuilt or freed.
 *  - Overwriting a string key reuses its block when the new value fits
 *    (kvobjReplaceValue): no allocation, and the hash table is untouched.
 *  - Invariant violations (copying a shared non-string value, moving an
 *    object someone else still references) are programming errors: libAssert()
 *    reports them through the program's assert handler and aborts, whatever
 *    NDEBUG says, as in dict.c.
 */
#include "kvobj.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libassert.h"
#include "zmalloc.h"

/* ---- embedded strings ------------------------------------------------------ */

/* The smallest sds header type for len; the two short cases inline, as
 * they are on the SET path. */
static inline unsigned kvobjSdsType(size_t len) {
    if (len < 32) return SDS_TYPE_5;
    if (len < 256) return SDS_TYPE_8;
    return sdsReqType(len);
}

/* Bytes taken by an embedded sds of this length: header, bytes, NUL. */
static size_t kvobjSdsSize(size_t len) {
    return sdsHdrSize(kvobjSdsType(len)) + len + 1;
}

/* Writes an sds with the smallest header for len at `at` and returns it.
 * Capacity equals length: embedded strings never grow in place. */
static sds kvobjWriteSds(char *at, const char *bytes, size_t len) {
    unsigned type = kvobjSdsType(len);
    sds s = at + sdsHdrSize(type);
    if (type == SDS_TYPE_5) {
        s[-1] = (char)(unsigned char)(SDS_TYPE_5 | (len << SDS_TYPE_BITS));
    } else {
        s[-1] = (char)type;
        sdssetlen(s, len);
        sdssetalloc(s, len);
    }
    memcpy(s, bytes, len);
    s[len] = '\0';
    return s;
}

static int kvobjIsEmbeddedString(const robj *val) {
    return val->type == OBJ_STRING && val->encoding == OBJ_ENCODING_EMBSTR;
}

/* ---- the value's payload ------------------------------------------------------ */

/* The payload for the new entry's ptr when it is not embedded: an integer
 * is copied, anything else moves when val is referenced only by the caller.
 * A shared string is duplicated. A shared collection can't be copied
 * cheaply: its payload moves and the caller's object is left an empty
 * string, which its other holders may still release (setKey() callers keep
 * a reference and drop it afterwards; they use the stored object, never
 * theirs, from then on). */
static void *kvobjAdoptPayload(robj *val) {
    if (val->type == OBJ_STRING && val->encoding == OBJ_ENCODING_INT) return val->ptr;
    if (val->refcount == 1) return val->ptr;
    if (val->type == OBJ_STRING) return sdsdup(val->ptr);
    void *payload = val->ptr;
    val->type = OBJ_STRING;
    val->encoding = OBJ_ENCODING_RAW;
    val->ptr = sdsempty();
    return payload;
}

/* Drops the caller's reference to val once its value lives in the entry. */
static void kvobjReleaseTemplate(robj *val) {
    if (val->refcount == OBJ_SHARED_REFCOUNT) return;
    libAssert(val->refcount >= 1);
    if (val->refcount == 1) zfree(val); /* its payload was copied or moved */
    else val->refcount--;
}

/* ---- construction ------------------------------------------------------------------ */

static size_t kvobjBlockSize(size_t keylen, const robj *val, int withExpire) {
    /* The key is an existing buffer, so this sum cannot really overflow;
     * asserting it keeps 32-bit builds honest anyway. */
    libAssert(keylen < SIZE_MAX / 2);
    size_t size = withExpire ? sizeof(kvobjHeadExpire) : sizeof(kvobjHead);
    size += 1 + kvobjSdsSize(keylen);
    if (kvobjIsEmbeddedString(val)) {
        size_t vlen = sdslen(val->ptr);
        libAssert(vlen < SIZE_MAX / 2 - size);
        size += kvobjSdsSize(vlen);
    }
    return size;
}

/* Writes the key-size byte and the key; returns the first byte after it. */
static char *kvobjWriteKey(char *area, const char *key, size_t keylen) {
    area[0] = (char)(unsigned char)sdsHdrSize(kvobjSdsType(keylen));
    sds s = kvobjWriteSds(area + 1, key, keylen);
    return s + keylen + 1;
}

kvobj *kvobjCreate(const char *key, size_t keylen, robj *val, long long expire) {
    int withExpire = expire != -1, embed = kvobjIsEmbeddedString(val);
    kvobj *o = zmalloc(kvobjBlockSize(keylen, val, withExpire));
    o->type = val->type;
    o->encoding = val->encoding;
    o->lru = val->lru;
    o->refcount = 1;
    o->hasexpire = (unsigned)withExpire;
    o->hasembkey = 1;
    o->hasembval = (unsigned)embed;
    kvobjSetNext(o, NULL);
    if (withExpire) ((kvobjHeadExpire *)o)->expire = expire;

    char *tail = kvobjWriteKey((char *)o + kvobjKeyAreaOffset(o), key, keylen);
    if (embed) o->ptr = kvobjWriteSds(tail, val->ptr, sdslen(val->ptr));
    else o->ptr = kvobjAdoptPayload(val);
    kvobjReleaseTemplate(val);
    return o;
}

/* ---- replacing the value in place ------------------------------------------------------ */

/* First byte after the key: where an embedded value starts. While the value
 * is embedded, its header starts there, which is the cheaper way to find it. */
static char *kvobjValueArea(kvobj *o) {
    if (o->hasembval && o->encoding == OBJ_ENCODING_EMBSTR) {
        sds cur = o->ptr;
        return cur - sdsHdrSize(sdsType(cur));
    }
    sds key = kvobjGetKey(o);
    return key + sdslen(key) + 1;
}

/* Whether an embedded string of `need` bytes (header, bytes, NUL) fits at
 * `area`. The current embedded value's size answers most cases (SET of a
 * same-sized value) without asking the allocator; otherwise its usable size
 * counts, so a block rounded up to its size class can take a longer string. */
static int kvobjValueFits(kvobj *o, const char *area, size_t need) {
    if (o->hasembval && o->encoding == OBJ_ENCODING_EMBSTR) {
        sds cur = o->ptr;
        if (need <= (size_t)(cur + sdslen(cur) + 1 - area)) return 1;
    }
    return need <= zmalloc_size(o) - (size_t)(area - (char *)o);
}

kvobj *kvobjReplaceValue(kvobj *o, robj *val) {
    if (o == val || o->refcount != 1 || o->type != OBJ_STRING) return NULL;
    int embed = kvobjIsEmbeddedString(val);
    size_t vlen = embed ? sdslen(val->ptr) : 0;
    char *area = embed ? kvobjValueArea(o) : NULL;
    if (embed && !kvobjValueFits(o, area, kvobjSdsSize(vlen))) return NULL;
    if (o->encoding == OBJ_ENCODING_RAW) sdsfree(o->ptr);
    o->type = val->type;
    o->encoding = val->encoding;
    o->lru = val->lru;
    o->hasembval = (unsigned)embed;
    if (embed) o->ptr = kvobjWriteSds(area, val->ptr, vlen);
    else o->ptr = kvobjAdoptPayload(val);
    kvobjReleaseTemplate(val);
    return o;
}

/* ---- expire ---------------------------------------------------------------------- */

long long kvobjGetExpire(const kvobj *o) {
    return o->hasexpire ? ((const kvobjHeadExpire *)o)->expire : -1;
}

kvobj *kvobjSetExpire(kvobj *o, long long expire) {
    if (o->hasexpire) {
        ((kvobjHeadExpire *)o)->expire = expire;
        return o;
    }
    if (expire == -1) return o;
    libAssert(o->refcount == 1);
    sds key = kvobjGetKey(o);
    kvobj *next = kvobjGetNext(o); /* the hash chain continues after the new block */
    kvobj *moved = kvobjCreate(key, sdslen(key), o, expire);
    kvobjSetNext(moved, next);
    return moved;
}

size_t kvobjAllocSize(const kvobj *o) { return zmalloc_size(o); }
