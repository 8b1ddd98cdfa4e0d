/* sds.h -- binary-safe dynamic strings.
 *
 * An `sds` is a plain `char *` to a NUL-terminated buffer, so it can be handed
 * to any function that takes a C string, yet it also knows its length (which
 * may include embedded NULs) and its capacity. Both live in a header stored
 * immediately before the buffer:
 *
 *     type   header bytes (offsets relative to the buffer s)      max length
 *     5      s[-1] flags: type in bits 0-2, length in bits 3-7          31
 *     8      s[-3] len   s[-2] alloc                s[-1] flags        255
 *     16     s[-5] len   s[-3] alloc (2 bytes each) s[-1] flags      65535
 *     32     s[-9] len   s[-5] alloc (4 bytes each) s[-1] flags     2^32-1
 *     64     s[-17] len  s[-9] alloc (8 bytes each) s[-1] flags   SIZE_MAX
 *
 * Design decisions:
 *   - The header has no padding, so the buffer sits at an odd offset from the
 *     allocation for every type, and a header copied to an arbitrary address
 *     must still work. Header fields are therefore never reached through a
 *     struct pointer: they are loaded and stored with the load16/store32...
 *     helpers of portable.h at computed byte offsets, which is safe on CPUs
 *     that trap on unaligned access (32-bit ARM, SPARC).
 *   - Multi-byte fields are in host byte order: headers never leave the
 *     process.
 *   - Type 5 keeps no capacity: it is meant for short strings that are not
 *     appended to. Anything that grows a type 5 string turns it into type 8.
 *   - Capacity ("alloc") counts usable bytes excluding the header and the
 *     terminator; the allocator's slack is folded into it, clamped to what the
 *     header type can represent.
 *   - Sizes are overflow-checked: a request that cannot be represented in a
 *     size_t goes to zmalloc's out-of-memory handler (or NULL from the try
 *     variant), it never wraps to a small allocation.
 *   - Functions that may reallocate return the (possibly moved) string; the
 *     caller must replace its pointer: s = sdscat(s, "x").
 */
#ifndef REDIS_SDS_H
#define REDIS_SDS_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "platform.h"
#include "portable.h"

/* Growth stops doubling at this capacity and goes up by this much instead. */
#define SDS_MAX_PREALLOC (1024 * 1024)

typedef char *sds;

/* Pass as `init` to sdsnewlen/sdstrynewlen to leave the buffer uninitialised. */
extern const char *SDS_NOINIT;

#define SDS_TYPE_5 0
#define SDS_TYPE_8 1
#define SDS_TYPE_16 2
#define SDS_TYPE_32 3
#define SDS_TYPE_64 4
#define SDS_TYPE_MASK 7
#define SDS_TYPE_BITS 3

/* ---- header access (inline: these are on every hot path) ---------------- */

static inline unsigned sdsType(const sds s) {
    return (unsigned char)s[-1] & SDS_TYPE_MASK;
}

/* Width in bytes of the len and alloc fields: 0 for type 5, else 1/2/4/8. */
static inline size_t sdsFieldWidth(unsigned type) {
    return type == SDS_TYPE_5 ? 0 : (size_t)1 << (type - 1);
}

/* Header size: len + alloc + the flags byte. */
static inline size_t sdsHdrSize(unsigned type) {
    return 2 * sdsFieldWidth(type) + 1;
}

static inline size_t sdsLoadField_(const char *p, unsigned type) {
    switch (type) {
    case SDS_TYPE_8: return (unsigned char)*p;
    case SDS_TYPE_16: return load16(p);
    case SDS_TYPE_32: return load32(p);
    default: return (size_t)load64(p);
    }
}

static inline void sdsStoreField_(char *p, unsigned type, size_t v) {
    switch (type) {
    case SDS_TYPE_8: *p = (char)(unsigned char)v; break;
    case SDS_TYPE_16: store16(p, (uint16_t)v); break;
    case SDS_TYPE_32: store32(p, (uint32_t)v); break;
    default: store64(p, (uint64_t)v); break;
    }
}

static inline char *sdsLenField_(const sds s, unsigned type) {
    return s - sdsHdrSize(type);
}

static inline char *sdsAllocField_(const sds s, unsigned type) {
    return s - 1 - sdsFieldWidth(type);
}

static inline size_t sdslen(const sds s) {
    unsigned type = sdsType(s);
    if (type == SDS_TYPE_5) return (unsigned char)s[-1] >> SDS_TYPE_BITS;
    return sdsLoadField_(sdsLenField_(s, type), type);
}

/* Capacity excluding header and terminator; a type 5 string has none spare. */
static inline size_t sdsalloc(const sds s) {
    unsigned type = sdsType(s);
    if (type == SDS_TYPE_5) return sdslen(s);
    return sdsLoadField_(sdsAllocField_(s, type), type);
}

static inline size_t sdsavail(const sds s) {
    return sdsalloc(s) - sdslen(s);
}

/* Sets the length field only; the caller keeps the buffer terminated. For a
 * type 5 string newlen must stay below 32. */
static inline void sdssetlen(sds s, size_t newlen) {
    unsigned type = sdsType(s);
    if (type == SDS_TYPE_5)
        s[-1] = (char)(unsigned char)(SDS_TYPE_5 | (newlen << SDS_TYPE_BITS));
    else
        sdsStoreField_(sdsLenField_(s, type), type, newlen);
}

static inline void sdsinclen(sds s, size_t inc) {
    sdssetlen(s, sdslen(s) + inc);
}

/* No-op for type 5, which has no capacity field. */
static inline void sdssetalloc(sds s, size_t newalloc) {
    unsigned type = sdsType(s);
    if (type != SDS_TYPE_5) sdsStoreField_(sdsAllocField_(s, type), type, newalloc);
}

/* ---- header types ---------------------------------------------------------- */

/* The smallest header type whose length field can hold string_size. */
unsigned sdsReqType(size_t string_size);
/* The largest length (and capacity) a header type can represent. */
size_t sdsTypeMaxSize(unsigned type);

/* ---- creation and destruction ------------------------------------------------ */

sds sdsnewlen(const void *init, size_t initlen);
sds sdstrynewlen(const void *init, size_t initlen); /* NULL instead of OOM abort */
sds sdsnew(const char *init);
sds sdsempty(void);
sds sdsdup(const sds s);
void sdsfree(sds s);
sds sdsfromlonglong(long long value);

/* ---- capacity ------------------------------------------------------------------ */

sds sdsMakeRoomFor(sds s, size_t addlen);
sds sdsMakeRoomForNonGreedy(sds s, size_t addlen);
/* The capacity sdsMakeRoomForNonGreedy(s, addlen) would leave s with, the
 * allocator's size class included, without allocating anything. */
size_t sdsNonGreedyCapacity(const sds s, size_t addlen);
void sdsIncrLen(sds s, ssize_t incr);
sds sdsRemoveFreeSpace(sds s);
sds sdsResize(sds s, size_t size, int would_regrow);
size_t sdsAllocSize(const sds s);
void *sdsAllocPtr(const sds s);
sds sdsgrowzero(sds s, size_t len);

/* ---- appending and copying ---------------------------------------------------- */

sds sdscatlen(sds s, const void *t, size_t len);
sds sdscat(sds s, const char *t);
sds sdscatsds(sds s, const sds t);
sds sdscpylen(sds s, const char *t, size_t len);
sds sdscpy(sds s, const char *t);
sds sdscatvprintf(sds s, const char *fmt, va_list ap);
sds sdscatprintf(sds s, const char *fmt, ...) PRINTF_FMT(2, 3);
sds sdscatfmt(sds s, const char *fmt, ...);
sds sdscatrepr(sds s, const char *p, size_t len);
sds sdsjoin(char **argv, int argc, const char *sep);
sds sdsjoinsds(sds *argv, int argc, const char *sep, size_t seplen);

/* ---- in-place edits --------------------------------------------------------------- */

sds sdstrim(sds s, const char *cset);
void sdssubstr(sds s, size_t start, size_t len);
void sdsrange(sds s, ssize_t start, ssize_t end);
void sdsupdatelen(sds s);
void sdsclear(sds s);
void sdstolower(sds s);
void sdstoupper(sds s);
sds sdsmapchars(sds s, const char *from, const char *to, size_t setlen);

/* ---- inspection --------------------------------------------------------------------- */

int sdscmp(const sds s1, const sds s2);
int sdsneedsrepr(const sds s);

/* ---- splitting ------------------------------------------------------------------------ */

sds *sdssplitlen(const char *s, ssize_t len, const char *sep, int seplen, int *count);
void sdsfreesplitres(sds *tokens, int count);
sds *sdssplitargs(const char *line, int *argc);

#endif /* REDIS_SDS_H */
