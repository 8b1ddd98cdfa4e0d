/* listpack.c -- a packed list of strings and integers in one byte array.
 *
 * The contract and the byte layout are described in listpack.h. This file is
 * organised bottom-up:
 *
 *   1. header access (total bytes, element count);
 *   2. entry encoding: choosing and writing an encoding for an integer or a
 *      string, and the backlen that follows every entry;
 *   3. entry decoding: the size of an entry and its value;
 *   4. walking (first/next/prev/last/seek) and reading;
 *   5. the one primitive that changes a list, lpSplice() (replace a run of
 *      bytes by a new entry or by nothing), and everything built on it;
 *   6. validation of untrusted blobs.
 *
 * Design decisions:
 *   - Every multi-byte field goes through portable.h: a listpack may start at
 *     any address (it is often embedded in an RDB buffer) and entries are
 *     not aligned at all.
 *   - The encoding thresholds, including the backlen size thresholds (a
 *     2-byte backlen covers sizes 128..16382, not 16383), follow the
 *     reference server exactly so the bytes are identical; the unit tests
 *     hold byte vectors taken from Redis 7.0's DUMP output.
 *   - A change that shrinks the blob reallocates it to the exact new size; one
 *     that grows it reallocates only when the allocation's usable size is
 *     exceeded (a stream appends several elements per entry: the allocator's
 *     in-place realloc, repeated, was most of XADD's cost). So a blob keeps
 *     its lpNew() capacity while it grows; lpShrinkToFit gives it back.
 *   - Walking functions trust the blob (it was built here or validated with
 *     lpValidateIntegrity(deep=1)); they still abort, rather than read
 *     outside the blob, if an entry's size points past the header's total.
 *   - A string argument may point into the listpack being changed (e.g. an
 *     entry copied to another position): lpSplice() copies it first.
 */
#include "listpack.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libassert.h"
#include "portable.h"
#include "util.h"
#include "zmalloc.h"

#define LP_NUMELE_UNKNOWN 65535u
#define LP_MAX_SAFE_SIZE (1u << 30) /* 1 GB: callers convert past this */
#define LP_MAX_ENTRY_HDR 9          /* encoding byte + 8 bytes of integer */
#define LP_MAX_BACKLEN 5

/* Encoding bytes (or their fixed high bits). */
#define LP_ENC_7BIT_UINT 0x00      /* 0xxxxxxx */
#define LP_ENC_6BIT_STR 0x80       /* 10xxxxxx */
#define LP_ENC_13BIT_INT 0xC0      /* 110xxxxx yyyyyyyy */
#define LP_ENC_12BIT_STR 0xE0      /* 1110xxxx yyyyyyyy */
#define LP_ENC_32BIT_STR 0xF0
#define LP_ENC_16BIT_INT 0xF1
#define LP_ENC_24BIT_INT 0xF2
#define LP_ENC_32BIT_INT 0xF3
#define LP_ENC_64BIT_INT 0xF4

/* ---- 1. header --------------------------------------------------------- */

size_t lpBytes(const unsigned char *lp) { return load32le(lp); }
static void lpSetBytes(unsigned char *lp, size_t bytes) { store32le(lp, (uint32_t)bytes); }
static unsigned lpHeaderCount(const unsigned char *lp) { return load16le(lp + 4); }
static void lpSetHeaderCount(unsigned char *lp, unsigned long count) {
    store16le(lp + 4, (uint16_t)(count < LP_NUMELE_UNKNOWN ? count : LP_NUMELE_UNKNOWN));
}
static unsigned char *lpEof(unsigned char *lp) { return lp + lpBytes(lp) - 1; }

/* Adds delta (+1 / -n) to a known count; an unknown count stays unknown. */
static void lpAdjustCount(unsigned char *lp, long delta) {
    unsigned count = lpHeaderCount(lp);
    if (count == LP_NUMELE_UNKNOWN) return;
    lpSetHeaderCount(lp, (unsigned long)((long)count + delta));
}

/* ---- 2. encoding ------------------------------------------------------- */

/* The full encoding of an entry without its backlen: a small header (the
 * encoding byte and either an integer or a string length) and, for strings,
 * the string bytes, which stay where the caller has them. */
typedef struct {
    unsigned char hdr[LP_MAX_ENTRY_HDR];
    size_t hdrlen;
    const unsigned char *data;
    size_t datalen;
} lpEncoded;

static size_t lpEncodedSize(const lpEncoded *e) { return e->hdrlen + e->datalen; }

static void lpEncodeInteger(lpEncoded *e, long long v) {
    unsigned char *h = e->hdr;
    e->data = NULL;
    e->datalen = 0;
    if (v >= 0 && v <= 127) {
        h[0] = (unsigned char)v;
        e->hdrlen = 1;
    } else if (v >= -4096 && v <= 4095) {
        unsigned u = (unsigned)(v & 0x1FFF);
        h[0] = (unsigned char)(LP_ENC_13BIT_INT | (u >> 8));
        h[1] = (unsigned char)(u & 0xFF);
        e->hdrlen = 2;
    } else if (v >= INT16_MIN && v <= INT16_MAX) {
        h[0] = LP_ENC_16BIT_INT;
        store16le(h + 1, (uint16_t)v);
        e->hdrlen = 3;
    } else if (v >= -8388608 && v <= 8388607) {
        h[0] = LP_ENC_24BIT_INT;
        store24le(h + 1, (uint32_t)v & 0xFFFFFFu);
        e->hdrlen = 4;
    } else if (v >= INT32_MIN && v <= INT32_MAX) {
        h[0] = LP_ENC_32BIT_INT;
        store32le(h + 1, (uint32_t)v);
        e->hdrlen = 5;
    } else {
        h[0] = LP_ENC_64BIT_INT;
        store64le(h + 1, (uint64_t)v);
        e->hdrlen = 9;
    }
}

static void lpEncodeRawString(lpEncoded *e, const unsigned char *s, size_t len) {
    unsigned char *h = e->hdr;
    if (len < 64) {
        h[0] = (unsigned char)(LP_ENC_6BIT_STR | len);
        e->hdrlen = 1;
    } else if (len < 4096) {
        h[0] = (unsigned char)(LP_ENC_12BIT_STR | (len >> 8));
        h[1] = (unsigned char)(len & 0xFF);
        e->hdrlen = 2;
    } else {
        h[0] = LP_ENC_32BIT_STR;
        store32le(h + 1, (uint32_t)len);
        e->hdrlen = 5;
    }
    e->data = s;
    e->datalen = len;
}

/* Strings that are canonical integers are stored as integers. */
static void lpEncodeString(lpEncoded *e, const unsigned char *s, size_t len) {
    long long v;
    if (len <= LP_INTBUF_SIZE && string2ll((const char *)s, len, &v))
        lpEncodeInteger(e, v);
    else
        lpEncodeRawString(e, s, len);
}

/* Bytes the backlen for an entry of `size` bytes takes (the reference
 * server's thresholds, which are one short of the 7-bit powers). */
static size_t lpBacklenSize(uint64_t size) {
    if (size <= 127) return 1;
    if (size < 16383) return 2;
    if (size < 2097151) return 3;
    if (size < 268435455) return 4;
    return 5;
}

/* Writes the backlen at buf: most significant group first, every byte but
 * the first flagged 0x80, so that reading right to left yields the least
 * significant group first and stops at the byte without the flag. */
static size_t lpWriteBacklen(unsigned char *buf, uint64_t size) {
    size_t n = lpBacklenSize(size);
    for (size_t i = n; i-- > 0;) {
        unsigned char group = (unsigned char)(size & 127);
        buf[i] = (unsigned char)(i == 0 ? group : (group | 128));
        size >>= 7;
    }
    return n;
}

/* Reads a backlen whose last byte is at p, reading at most `avail` bytes
 * (p and the avail-1 bytes before it). Returns the value and sets *nbytes,
 * or returns UINT64_MAX if it is malformed. */
static uint64_t lpReadBacklen(const unsigned char *p, size_t avail, size_t *nbytes) {
    uint64_t value = 0;
    for (size_t i = 0; i < LP_MAX_BACKLEN && i < avail; i++) {
        unsigned char b = *(p - i);
        value |= (uint64_t)(b & 127) << (7 * i);
        if (!(b & 128)) {
            *nbytes = i + 1;
            return value;
        }
    }
    return UINT64_MAX;
}

/* ---- 3. decoding ------------------------------------------------------- */

static int lpIsString(unsigned char enc) {
    return (enc & 0xC0) == LP_ENC_6BIT_STR || (enc & 0xF0) == LP_ENC_12BIT_STR || enc == LP_ENC_32BIT_STR;
}

/* Bytes of the encoding header (encoding byte plus integer or length field)
 * given the first byte; 0 for an invalid encoding byte. */
static size_t lpHeaderSize(unsigned char enc) {
    if ((enc & 0x80) == LP_ENC_7BIT_UINT) return 1;
    if ((enc & 0xC0) == LP_ENC_6BIT_STR) return 1;
    if ((enc & 0xE0) == LP_ENC_13BIT_INT) return 2;
    if ((enc & 0xF0) == LP_ENC_12BIT_STR) return 2;
    switch (enc) {
    case LP_ENC_32BIT_STR: return 5;
    case LP_ENC_16BIT_INT: return 3;
    case LP_ENC_24BIT_INT: return 4;
    case LP_ENC_32BIT_INT: return 5;
    case LP_ENC_64BIT_INT: return 9;
    default: return 0;
    }
}

/* String length of a string entry whose full header is at p. */
static uint64_t lpStringLength(const unsigned char *p) {
    if ((p[0] & 0xC0) == LP_ENC_6BIT_STR) return p[0] & 0x3F;
    if ((p[0] & 0xF0) == LP_ENC_12BIT_STR) return ((uint64_t)(p[0] & 0x0F) << 8) | p[1];
    return load32le(p + 1);
}

/* Size of <encoding+data> of the entry at p (trusted). */
static uint64_t lpEncodedSizeAt(const unsigned char *p) {
    size_t hdr = lpHeaderSize(p[0]);
    libAssertMsg(hdr != 0, "invalid entry encoding");
    return lpIsString(p[0]) ? hdr + lpStringLength(p) : hdr;
}

/* Whole entry size, backlen included. */
static uint64_t lpEntrySize(const unsigned char *p) {
    uint64_t size = lpEncodedSizeAt(p);
    return size + lpBacklenSize(size);
}

/* Sign-extends the low `bits` bits of u. */
static long long lpSignExtend(uint64_t u, unsigned bits) {
    uint64_t sign = (uint64_t)1 << (bits - 1);
    if (bits < 64) u &= ((uint64_t)1 << bits) - 1;
    if (!(u & sign)) return (long long)u;
    /* Negative: -(2^bits - u), computed without overflow. */
    uint64_t magnitude = (bits < 64 ? ((uint64_t)1 << bits) - u : (~u + 1));
    if (magnitude == (uint64_t)1 << 63) return LLONG_MIN;
    return -(long long)magnitude;
}

static long long lpIntegerValue(const unsigned char *p) {
    unsigned char enc = p[0];
    if ((enc & 0x80) == LP_ENC_7BIT_UINT) return enc;
    if ((enc & 0xE0) == LP_ENC_13BIT_INT) return lpSignExtend(((uint64_t)(enc & 0x1F) << 8) | p[1], 13);
    switch (enc) {
    case LP_ENC_16BIT_INT: return lpSignExtend(load16le(p + 1), 16);
    case LP_ENC_24BIT_INT: return lpSignExtend(load24le(p + 1), 24);
    case LP_ENC_32BIT_INT: return lpSignExtend(load32le(p + 1), 32);
    case LP_ENC_64BIT_INT: return lpSignExtend(load64le(p + 1), 64);
    default: libAssertFailed("invalid integer encoding", __FILE__, __LINE__);
    }
}

/* ---- 4. walking and reading -------------------------------------------- */

unsigned char *lpFirst(unsigned char *lp) {
    unsigned char *p = lp + LP_HDR_SIZE;
    return p[0] == LP_EOF ? NULL : p;
}

/* The byte after the entry at p (the next entry or the terminator). */
static unsigned char *lpSkip(unsigned char *lp, unsigned char *p) {
    uint64_t size = lpEntrySize(p);
    libAssertMsg(size < lpBytes(lp) && (size_t)(p - lp) + size < lpBytes(lp), "entry runs past the end");
    return p + size;
}

unsigned char *lpNext(unsigned char *lp, unsigned char *p) {
    libAssertMsg(p[0] != LP_EOF, "lpNext at the terminator");
    p = lpSkip(lp, p);
    return p[0] == LP_EOF ? NULL : p;
}

unsigned char *lpPrev(unsigned char *lp, unsigned char *p) {
    if (p == lp + LP_HDR_SIZE) return NULL;
    size_t nbytes = 0;
    uint64_t size = lpReadBacklen(p - 1, (size_t)(p - lp - LP_HDR_SIZE), &nbytes);
    libAssertMsg(size != UINT64_MAX && size + nbytes <= (uint64_t)(p - lp - LP_HDR_SIZE), "bad backlen");
    return p - nbytes - size;
}

unsigned char *lpLast(unsigned char *lp) { return lpPrev(lp, lpEof(lp)); }

unsigned long lpLength(const unsigned char *lp) {
    unsigned count = lpHeaderCount(lp);
    if (count != LP_NUMELE_UNKNOWN) return count;
    unsigned char *mlp = (unsigned char *)lp; /* caching the count is not a visible change */
    unsigned long n = 0;
    for (unsigned char *p = lpFirst(mlp); p; p = lpNext(mlp, p)) n++;
    if (n < LP_NUMELE_UNKNOWN) lpSetHeaderCount(mlp, n);
    return n;
}

unsigned char *lpSeek(unsigned char *lp, long index) {
    unsigned long len = lpLength(lp);
    if (index < 0) {
        if ((unsigned long)-(index + 1) >= len) return NULL;
        index = (long)(len - (unsigned long)-(index + 1) - 1);
    }
    if ((unsigned long)index >= len) return NULL;
    unsigned char *p;
    if ((unsigned long)index <= len / 2) {
        p = lpFirst(lp);
        for (long i = 0; i < index; i++) p = lpNext(lp, p);
    } else {
        p = lpLast(lp);
        for (unsigned long i = len - 1; i > (unsigned long)index; i--) p = lpPrev(lp, p);
    }
    return p;
}

const unsigned char *lpGetValue(const unsigned char *p, size_t *len, long long *ll) {
    if (lpIsString(p[0])) {
        *len = (size_t)lpStringLength(p);
        return p + lpHeaderSize(p[0]);
    }
    *ll = lpIntegerValue(p);
    return NULL;
}

const unsigned char *lpGetString(const unsigned char *p, size_t *len, unsigned char *buf) {
    long long v;
    const unsigned char *s = lpGetValue(p, len, &v);
    if (s) return s;
    *len = (size_t)ll2string((char *)buf, LP_INTBUF_SIZE, v);
    return buf;
}

/* The string s as an integer, if it is a canonical one (how it would be
 * stored), so integer entries compare by value instead of by text. */
static int lpStringAsInteger(const unsigned char *s, size_t len, long long *v) {
    return len <= LP_INTBUF_SIZE && string2ll((const char *)s, len, v);
}

/* Entry at p equals s; s_is_int/s_int describe s as an integer. */
static int lpEquals(const unsigned char *p, const unsigned char *s, size_t len, int s_is_int, long long s_int) {
    size_t elen;
    long long ev;
    const unsigned char *e = lpGetValue(p, &elen, &ev);
    if (e) return elen == len && (len == 0 || memcmp(e, s, len) == 0);
    return s_is_int && ev == s_int;
}

int lpCompare(const unsigned char *p, const unsigned char *s, size_t len) {
    long long v = 0;
    int is_int = lpStringAsInteger(s, len, &v);
    return lpEquals(p, s, len, is_int, v);
}

unsigned char *lpFind(unsigned char *lp, unsigned char *p, const unsigned char *s, size_t len, unsigned int skip) {
    long long v = 0;
    int is_int = lpStringAsInteger(s, len, &v);
    unsigned int to_skip = 0;
    while (p && p[0] != LP_EOF) {
        if (to_skip == 0) {
            if (lpEquals(p, s, len, is_int, v)) return p;
            to_skip = skip;
        } else {
            to_skip--;
        }
        p = lpSkip(lp, p);
    }
    return NULL;
}

/* ---- 5. changing ------------------------------------------------------- */

unsigned char *lpNew(size_t capacity) {
    size_t size = capacity > LP_HDR_SIZE + 1 ? capacity : LP_HDR_SIZE + 1;
    unsigned char *lp = zmalloc(size);
    lpSetBytes(lp, LP_HDR_SIZE + 1);
    lpSetHeaderCount(lp, 0);
    lp[LP_HDR_SIZE] = LP_EOF;
    return lp;
}

void lpFree(unsigned char *lp) { zfree(lp); }

unsigned char *lpDup(const unsigned char *lp) {
    size_t bytes = lpBytes(lp);
    unsigned char *copy = zmalloc(bytes);
    memcpy(copy, lp, bytes);
    return copy;
}

unsigned char *lpShrinkToFit(unsigned char *lp) {
    size_t bytes = lpBytes(lp);
    if (zmalloc_size(lp) > bytes) lp = zrealloc(lp, bytes);
    return lp;
}

int lpSafeToAdd(const unsigned char *lp, size_t add) {
    size_t bytes = lp ? lpBytes(lp) : 0;
    return add <= LP_MAX_SAFE_SIZE && bytes + add <= LP_MAX_SAFE_SIZE;
}

/* Replaces the `old_len` bytes at offset `off` with `e` (plus its backlen)
 * or with nothing (e == NULL). Returns the new listpack, or NULL (lp
 * untouched) if the result would not fit the 32-bit total. */
static unsigned char *lpSplice(unsigned char *lp, size_t off, size_t old_len, const lpEncoded *e) {
    size_t total = lpBytes(lp);
    uint64_t enc_size = e ? lpEncodedSize(e) : 0;
    uint64_t new_len = e ? enc_size + lpBacklenSize(enc_size) : 0;
    uint64_t new_total = (uint64_t)total - old_len + new_len;
    if (new_total > UINT32_MAX || new_total > SIZE_MAX) return NULL;

    /* The string may live inside lp: copy it before anything moves. */
    unsigned char *copy = NULL;
    lpEncoded local;
    if (e && e->data && e->data >= lp && e->data < lp + total) {
        copy = zmalloc(e->datalen);
        memcpy(copy, e->data, e->datalen);
        local = *e;
        local.data = copy;
        e = &local;
    }

    size_t tail = total - off - old_len;
    if (new_total > total && new_total > zmalloc_size(lp)) lp = zrealloc(lp, (size_t)new_total);
    memmove(lp + off + new_len, lp + off + old_len, tail);
    if (new_total < total) lp = zrealloc(lp, (size_t)new_total);
    if (e) {
        unsigned char *dst = lp + off;
        memcpy(dst, e->hdr, e->hdrlen);
        if (e->datalen) memcpy(dst + e->hdrlen, e->data, e->datalen);
        lpWriteBacklen(dst + enc_size, enc_size);
    }
    lpSetBytes(lp, (size_t)new_total);
    zfree(copy);
    return lp;
}

/* Inserts/replaces with an encoded entry; the shared body of the insert
 * functions. */
static unsigned char *lpInsertEncoded(unsigned char *lp, const lpEncoded *e, unsigned char *p, int where,
                                      unsigned char **newp) {
    libAssertMsg(p >= lp + LP_HDR_SIZE && p <= lpEof(lp), "insert position outside the listpack");
    libAssertMsg(where == LP_BEFORE || p[0] != LP_EOF, "after/replace at the terminator");
    if (where == LP_AFTER) p = lpSkip(lp, p);
    size_t off = (size_t)(p - lp);
    size_t old_len = where == LP_REPLACE ? (size_t)lpEntrySize(p) : 0;
    unsigned char *nlp = lpSplice(lp, off, old_len, e);
    if (!nlp) return NULL;
    if (where != LP_REPLACE) lpAdjustCount(nlp, +1);
    if (newp) *newp = nlp + off;
    return nlp;
}

unsigned char *lpInsertString(unsigned char *lp, const unsigned char *s, size_t len, unsigned char *p, int where,
                              unsigned char **newp) {
    lpEncoded e;
    lpEncodeString(&e, s, len);
    return lpInsertEncoded(lp, &e, p, where, newp);
}

unsigned char *lpInsertInteger(unsigned char *lp, long long value, unsigned char *p, int where, unsigned char **newp) {
    lpEncoded e;
    lpEncodeInteger(&e, value);
    return lpInsertEncoded(lp, &e, p, where, newp);
}

unsigned char *lpAppend(unsigned char *lp, const unsigned char *s, size_t len) {
    return lpInsertString(lp, s, len, lpEof(lp), LP_BEFORE, NULL);
}

unsigned char *lpPrepend(unsigned char *lp, const unsigned char *s, size_t len) {
    return lpInsertString(lp, s, len, lp + LP_HDR_SIZE, LP_BEFORE, NULL);
}

unsigned char *lpAppendInteger(unsigned char *lp, long long value) {
    return lpInsertInteger(lp, value, lpEof(lp), LP_BEFORE, NULL);
}

unsigned char *lpPrependInteger(unsigned char *lp, long long value) {
    return lpInsertInteger(lp, value, lp + LP_HDR_SIZE, LP_BEFORE, NULL);
}

unsigned char *lpReplace(unsigned char *lp, unsigned char **p, const unsigned char *s, size_t len) {
    return lpInsertString(lp, s, len, *p, LP_REPLACE, p);
}

unsigned char *lpReplaceInteger(unsigned char *lp, unsigned char **p, long long value) {
    return lpInsertInteger(lp, value, *p, LP_REPLACE, p);
}

/* Removes `nbytes` bytes holding `count` entries at offset off. */
static unsigned char *lpRemoveBytes(unsigned char *lp, size_t off, size_t nbytes, unsigned long count) {
    lp = lpSplice(lp, off, nbytes, NULL);
    lpAdjustCount(lp, -(long)count);
    return lp;
}

unsigned char *lpDelete(unsigned char *lp, unsigned char *p, unsigned char **newp) {
    libAssertMsg(p >= lp + LP_HDR_SIZE && p < lpEof(lp), "delete position outside the listpack");
    size_t off = (size_t)(p - lp);
    lp = lpRemoveBytes(lp, off, (size_t)lpEntrySize(p), 1);
    if (newp) *newp = lp[off] == LP_EOF ? NULL : lp + off;
    return lp;
}

unsigned char *lpDeleteRangeWithEntry(unsigned char *lp, unsigned char **p, unsigned long count) {
    unsigned char *start = *p, *end = start;
    unsigned long n = 0;
    if (!start) return lp;
    while (n < count && end[0] != LP_EOF) {
        end = lpSkip(lp, end);
        n++;
    }
    size_t off = (size_t)(start - lp);
    if (n) lp = lpRemoveBytes(lp, off, (size_t)(end - start), n);
    *p = lp[off] == LP_EOF ? NULL : lp + off;
    return lp;
}

unsigned char *lpDeleteRange(unsigned char *lp, long index, unsigned long count) {
    unsigned char *p = lpSeek(lp, index);
    if (!p || count == 0) return lp;
    return lpDeleteRangeWithEntry(lp, &p, count);
}

/* Entries of `src` (between header and terminator) copied to dst. */
static size_t lpEntriesBytes(const unsigned char *lp) { return lpBytes(lp) - LP_HDR_SIZE - 1; }

unsigned char *lpMerge(unsigned char **first, unsigned char **second) {
    if (!first || !second || !*first || !*second || *first == *second) return NULL;
    unsigned char *a = *first, *b = *second;
    size_t a_entries = lpEntriesBytes(a), b_entries = lpEntriesBytes(b);
    uint64_t total = (uint64_t)LP_HDR_SIZE + a_entries + b_entries + 1;
    if (total > UINT32_MAX) return NULL;
    unsigned long a_count = lpHeaderCount(a), b_count = lpHeaderCount(b);
    unsigned long count = (a_count == LP_NUMELE_UNKNOWN || b_count == LP_NUMELE_UNKNOWN) ? LP_NUMELE_UNKNOWN
                                                                                       : a_count + b_count;
    unsigned char *merged;
    if (lpBytes(a) >= lpBytes(b)) {
        merged = zrealloc(a, (size_t)total);
        memcpy(merged + LP_HDR_SIZE + a_entries, b + LP_HDR_SIZE, b_entries);
        zfree(b);
        *first = merged;
        *second = NULL;
    } else {
        merged = zrealloc(b, (size_t)total);
        memmove(merged + LP_HDR_SIZE + a_entries, merged + LP_HDR_SIZE, b_entries);
        memcpy(merged + LP_HDR_SIZE, a + LP_HDR_SIZE, a_entries);
        zfree(a);
        *first = NULL;
        *second = merged;
    }
    merged[total - 1] = LP_EOF;
    lpSetBytes(merged, (size_t)total);
    lpSetHeaderCount(merged, count);
    return merged;
}

/* ---- 6. validation ------------------------------------------------------ */

/* Checks the entry at p, which must end before `end` (the terminator's
 * position). Returns the entry's total size, or 0 if it is invalid. Reads
 * nothing at or past end. */
static uint64_t lpValidateEntry(const unsigned char *p, const unsigned char *end) {
    size_t avail = (size_t)(end - p);
    size_t hdr = lpHeaderSize(p[0]);
    if (hdr == 0 || hdr > avail) return 0;
    uint64_t size = lpIsString(p[0]) ? hdr + lpStringLength(p) : hdr;
    uint64_t backlen_size = lpBacklenSize(size);
    if (size > avail || backlen_size > avail - size) return 0;
    size_t nbytes = 0;
    uint64_t stored = lpReadBacklen(p + size + backlen_size - 1, (size_t)backlen_size, &nbytes);
    if (stored != size || nbytes != backlen_size) return 0;
    return size + backlen_size;
}

int lpValidateIntegrity(unsigned char *lp, size_t size, int deep, lpValidateEntryCB *entry_cb, void *userdata) {
    if (size < LP_HDR_SIZE + 1) return 0;
    if (lpBytes(lp) != size || lp[size - 1] != LP_EOF) return 0;
    if (!deep) return 1;

    unsigned head_count = lpHeaderCount(lp);
    const unsigned char *end = lp + size - 1;
    unsigned char *p = lp + LP_HDR_SIZE;
    unsigned long count = 0;
    while (p < end) {
        uint64_t entry = lpValidateEntry(p, end);
        if (entry == 0) return 0;
        if (entry_cb && !entry_cb(p, head_count, userdata)) return 0;
        p += entry;
        count++;
    }
    if (head_count != LP_NUMELE_UNKNOWN && head_count != count) return 0;
    return 1;
}
