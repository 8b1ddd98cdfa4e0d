/* intset.c -- a sorted set of integers in one byte blob (see intset.h).
 *
 * Layout: <encoding u32 LE> <length u32 LE> <length values of `encoding`
 * bytes each, LE two's complement, strictly ascending>. This is Redis's
 * format byte for byte, so an RDB intset blob is used as it is.
 *
 * Design decisions:
 * - The intset type is opaque and never dereferenced as a struct: every
 *   header field and value goes through portable.h (load32le, store64le ...),
 *   so a blob handed over by the RDB loader at an odd address works on
 *   strict-alignment CPUs.
 * - All values share the width of the widest one. Adding a value that does
 *   not fit upgrades the blob in place: it is grown first, then the values
 *   are widened from the last to the first so no value is overwritten before
 *   it is read. A value that forced an upgrade is either below or above every
 *   existing value, so it goes at one end without a search.
 * - Removing never downgrades (Redis does not either): the encoding is a
 *   property of the blob's history as well as its contents, and matching
 *   Redis byte for byte matters more than a few bytes.
 * - Lengths are u32 by format; the blob size is computed in size_t so that
 *   32-bit builds cannot overflow silently (an add that would overflow the
 *   length aborts through zmalloc's out-of-memory path first).
 */
#include <stdlib.h>

#include "intset.h"
#include "portable.h"
#include "zmalloc.h"

#define INTSET_HEADER_SIZE 8 /* encoding u32 + length u32 */
#define INTSET_ENC_INT16 2u
#define INTSET_ENC_INT32 4u
#define INTSET_ENC_INT64 8u

/* ---- raw field access -------------------------------------------------- */

static inline unsigned char *bytesOf(intset *is) { return (unsigned char *)is; }
static inline const unsigned char *constBytesOf(const intset *is) { return (const unsigned char *)is; }

static inline unsigned encodingOf(const intset *is) { return load32le(constBytesOf(is)); }
static inline uint32_t lengthOf(const intset *is) { return load32le(constBytesOf(is) + 4); }
static inline void setEncoding(intset *is, unsigned enc) { store32le(bytesOf(is), enc); }
static inline void setLength(intset *is, uint32_t len) { store32le(bytesOf(is) + 4, len); }

/* The width (2, 4 or 8) needed to hold v. */
static unsigned widthFor(int64_t v) {
    if (v < INT32_MIN || v > INT32_MAX) return INTSET_ENC_INT64;
    if (v < INT16_MIN || v > INT16_MAX) return INTSET_ENC_INT32;
    return INTSET_ENC_INT16;
}

/* Value number pos of a contents area whose values are `enc` bytes wide. */
static int64_t loadValue(const unsigned char *contents, uint32_t pos, unsigned enc) {
    const unsigned char *p = contents + (size_t)pos * enc;
    switch (enc) {
    case INTSET_ENC_INT64: return (int64_t)load64le(p);
    case INTSET_ENC_INT32: return (int32_t)load32le(p);
    default: return (int16_t)load16le(p);
    }
}

static void storeValue(unsigned char *contents, uint32_t pos, unsigned enc, int64_t v) {
    unsigned char *p = contents + (size_t)pos * enc;
    switch (enc) {
    case INTSET_ENC_INT64: store64le(p, (uint64_t)v); break;
    case INTSET_ENC_INT32: store32le(p, (uint32_t)(int32_t)v); break;
    default: store16le(p, (uint16_t)(int16_t)v); break;
    }
}

static inline unsigned char *contentsOf(intset *is) { return bytesOf(is) + INTSET_HEADER_SIZE; }
static inline const unsigned char *constContentsOf(const intset *is) {
    return constBytesOf(is) + INTSET_HEADER_SIZE;
}

static inline int64_t getAt(const intset *is, uint32_t pos) {
    return loadValue(constContentsOf(is), pos, encodingOf(is));
}
static inline void setAt(intset *is, uint32_t pos, int64_t v) {
    storeValue(contentsOf(is), pos, encodingOf(is), v);
}

static size_t blobSize(unsigned enc, uint32_t len) { return INTSET_HEADER_SIZE + (size_t)len * enc; }

/* Resizes the blob to hold len values of its current encoding. */
static intset *resizeTo(intset *is, uint32_t len) {
    return zrealloc(is, blobSize(encodingOf(is), len));
}

/* ---- search --------------------------------------------------------------- */

/* Binary search. Returns 1 and sets *pos to value's position if present;
 * otherwise returns 0 and sets *pos to where it would be inserted. */
static int search(const intset *is, int64_t value, uint32_t *pos) {
    uint32_t len = lengthOf(is);
    if (len == 0) {
        *pos = 0;
        return 0;
    }
    /* The ends first: appends of increasing values are common. */
    if (value > getAt(is, len - 1)) {
        *pos = len;
        return 0;
    }
    if (value < getAt(is, 0)) {
        *pos = 0;
        return 0;
    }
    uint32_t lo = 0, hi = len; /* the answer is in [lo, hi) */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        int64_t cur = getAt(is, mid);
        if (cur == value) {
            *pos = mid;
            return 1;
        }
        if (cur < value) lo = mid + 1;
        else hi = mid;
    }
    *pos = lo;
    return 0;
}

/* ---- public API -------------------------------------------------------------- */

intset *intsetNew(void) {
    intset *is = zmalloc(INTSET_HEADER_SIZE);
    setEncoding(is, INTSET_ENC_INT16);
    setLength(is, 0);
    return is;
}

void intsetFree(intset *is) { zfree(is); }

intset *intsetDup(const intset *is) {
    size_t size = intsetBlobLen(is);
    intset *copy = zmalloc(size);
    memcpy(copy, is, size);
    return copy;
}

/* Widens every value to newEnc (back to front, in place) and adds value,
 * which does not fit the old encoding and so belongs at one end. */
static intset *upgradeAndAdd(intset *is, int64_t value) {
    unsigned oldEnc = encodingOf(is);
    unsigned newEnc = widthFor(value);
    uint32_t len = lengthOf(is);
    int atStart = value < 0; /* too small for the old width: below everything */

    is = zrealloc(is, blobSize(newEnc, len + 1));
    setEncoding(is, newEnc);
    unsigned char *contents = contentsOf(is);
    for (uint32_t i = len; i-- > 0;)
        storeValue(contents, i + (uint32_t)atStart, newEnc, loadValue(contents, i, oldEnc));
    storeValue(contents, atStart ? 0 : len, newEnc, value);
    setLength(is, len + 1);
    return is;
}

/* Opens a gap of one value at pos by moving [pos, len) one slot up. */
static void openGap(intset *is, uint32_t pos, uint32_t len) {
    unsigned enc = encodingOf(is);
    unsigned char *contents = contentsOf(is);
    memmove(contents + (size_t)(pos + 1) * enc, contents + (size_t)pos * enc, (size_t)(len - pos) * enc);
}

intset *intsetAdd(intset *is, int64_t value, int *added) {
    if (added) *added = 0;
    if (widthFor(value) > encodingOf(is)) {
        if (added) *added = 1;
        return upgradeAndAdd(is, value);
    }
    uint32_t pos;
    if (search(is, value, &pos)) return is;
    uint32_t len = lengthOf(is);
    is = resizeTo(is, len + 1);
    if (pos < len) openGap(is, pos, len);
    setAt(is, pos, value);
    setLength(is, len + 1);
    if (added) *added = 1;
    return is;
}

intset *intsetRemove(intset *is, int64_t value, int *removed) {
    if (removed) *removed = 0;
    uint32_t pos;
    if (widthFor(value) > encodingOf(is) || !search(is, value, &pos)) return is;
    uint32_t len = lengthOf(is);
    unsigned enc = encodingOf(is);
    unsigned char *contents = contentsOf(is);
    memmove(contents + (size_t)pos * enc, contents + (size_t)(pos + 1) * enc, (size_t)(len - pos - 1) * enc);
    setLength(is, len - 1);
    is = resizeTo(is, len - 1);
    if (removed) *removed = 1;
    return is;
}

int intsetFind(const intset *is, int64_t value) {
    uint32_t pos;
    return widthFor(value) <= encodingOf(is) && search(is, value, &pos);
}

int intsetGet(const intset *is, uint32_t pos, int64_t *value) {
    if (pos >= lengthOf(is)) return 0;
    *value = getAt(is, pos);
    return 1;
}

int64_t intsetRandom(const intset *is) {
    uint32_t len = lengthOf(is);
    /* random() gives 31 bits; combine two draws for sets beyond 2^31. */
    uint64_t r = ((uint64_t)random() << 31) ^ (uint64_t)random();
    return getAt(is, (uint32_t)(r % len));
}

int64_t intsetMin(const intset *is) { return getAt(is, 0); }

int64_t intsetMax(const intset *is) { return getAt(is, lengthOf(is) - 1); }

uint32_t intsetLen(const intset *is) { return lengthOf(is); }

size_t intsetBlobLen(const intset *is) { return blobSize(encodingOf(is), lengthOf(is)); }

unsigned intsetEncoding(const intset *is) { return encodingOf(is); }

int intsetValidateIntegrity(const unsigned char *blob, size_t size, int deep) {
    if (blob == NULL || size < INTSET_HEADER_SIZE) return 0;
    uint32_t enc = load32le(blob);
    if (enc != INTSET_ENC_INT16 && enc != INTSET_ENC_INT32 && enc != INTSET_ENC_INT64) return 0;
    uint32_t len = load32le(blob + 4);
    /* (size - header) / enc avoids computing len * enc, which could wrap
     * a 32-bit size_t. */
    size_t payload = size - INTSET_HEADER_SIZE;
    if (payload % enc != 0 || payload / enc != len) return 0;
    if (len == 0) return 0; /* an empty set is never stored, so never dumped */
    if (!deep) return 1;
    const unsigned char *contents = blob + INTSET_HEADER_SIZE;
    for (uint32_t i = 1; i < len; i++)
        if (loadValue(contents, i - 1, enc) >= loadValue(contents, i, enc)) return 0;
    return 1;
}
