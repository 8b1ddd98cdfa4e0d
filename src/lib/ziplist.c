/* ziplist.c -- validating and walking ziplist blobs (see ziplist.h).
 *
 * Design decisions:
 * - Read-only. Redis 7 stopped writing ziplists; we only need to read the
 *   ones old dumps hold, and the server rebuilds them as its own encodings.
 *   So there is no insertion, deletion or cascade update here at all.
 * - One code path: the iterator checks every entry before handing it out
 *   (prevlen equal to the previous entry's size, a known encoding, data
 *   inside the blob and before the end byte) and the whole-blob facts
 *   (end byte where zlbytes says, zltail, zllen) when it reaches the end.
 *   Validation is "iterate to the end"; a caller that validated first and
 *   then iterates cannot see different answers, and an iterator used on an
 *   unvalidated blob still never reads outside it.
 * - Strict where Redis never wrote anything else: an encoding byte 10xxxxxx
 *   with low bits set, and the 11xxxxxx values that name no encoding, are
 *   corrupt. The 5-byte prevlen form holding a value below 254 is accepted:
 *   Redis's cascade update leaves such entries behind.
 * - Every multi-byte field goes through portable.h: entries sit at any
 *   offset, and the blob itself usually lives inside an RDB read buffer.
 * - Sizes are size_t and every bound is checked by subtraction from what is
 *   left, so a 32-bit length near 4 GB cannot wrap a 32-bit size_t.
 */
#include "ziplist.h"

#include <stdint.h>

#include "portable.h"

#define ZL_PREVLEN_BIG 0xFE /* then a u32: the 5-byte prevlen form */

#define ZL_STR_06B 0        /* 00xxxxxx */
#define ZL_STR_14B 1        /* 01xxxxxx yyyyyyyy */
#define ZL_STR_32B 2        /* 10000000 + u32 BE */
#define ZL_STR_32B_BYTE 0x80
#define ZL_INT16 0xC0
#define ZL_INT32 0xD0
#define ZL_INT64 0xE0
#define ZL_INT24 0xF0
#define ZL_INT8 0xFE
#define ZL_IMM_MIN 0xF1     /* 0xF1..0xFD hold 0..12 */
#define ZL_IMM_MAX 0xFD

enum { ZL_ITER_OK, ZL_ITER_DONE, ZL_ITER_CORRUPT };

/* ---- one entry ----------------------------------------------------------- */

/* The prevlen field at p, with `avail` bytes before the end byte: its size
 * in *field and its value in *value. 0 if it does not fit. */
static int decodePrevlen(const unsigned char *p, size_t avail, size_t *field, size_t *value) {
    if (avail < 1) return 0;
    if (p[0] < ZL_PREVLEN_BIG) {
        *field = 1;
        *value = p[0];
        return 1;
    }
    if (p[0] != ZL_PREVLEN_BIG || avail < 5) return 0;
    *field = 5;
    *value = load32le(p + 1);
    return 1;
}

/* An integer encoding byte: the data size in *data, or 0 if unknown. */
static int intDataSize(unsigned char enc, size_t *data) {
    switch (enc) {
    case ZL_INT8: *data = 1; return 1;
    case ZL_INT16: *data = 2; return 1;
    case ZL_INT24: *data = 3; return 1;
    case ZL_INT32: *data = 4; return 1;
    case ZL_INT64: *data = 8; return 1;
    default:
        *data = 0;
        return enc >= ZL_IMM_MIN && enc <= ZL_IMM_MAX;
    }
}

static long long intValue(unsigned char enc, const unsigned char *d) {
    switch (enc) {
    case ZL_INT8: return (int8_t)d[0];
    case ZL_INT16: return (int16_t)load16le(d);
    case ZL_INT24: {
        int32_t v = (int32_t)load24le(d);
        return v & 0x800000 ? v - 0x1000000 : v;
    }
    case ZL_INT32: return (int32_t)load32le(d);
    case ZL_INT64: return (int64_t)load64le(d);
    default: return enc - ZL_IMM_MIN;
    }
}

/* The encoding field at p (avail bytes before the end byte): its size in
 * *field, the data size in *data, and the value in *v. 0 if the encoding
 * is unknown or the entry does not end before the end byte. */
static int decodeEncoding(const unsigned char *p, size_t avail, size_t *field, size_t *data, ziplistValue *v) {
    if (avail < 1) return 0;
    unsigned char b = p[0];
    switch (b >> 6) {
    case ZL_STR_06B: *field = 1; *data = b & 0x3F; break;
    case ZL_STR_14B:
        if (avail < 2) return 0;
        *field = 2;
        *data = ((size_t)(b & 0x3F) << 8) | p[1];
        break;
    case ZL_STR_32B:
        if (b != ZL_STR_32B_BYTE || avail < 5) return 0;
        *field = 5;
        *data = load32be(p + 1);
        break;
    default:
        *field = 1;
        if (!intDataSize(b, data)) return 0;
    }
    if (*data > avail - *field) return 0;
    if (b >> 6 == 3) {
        v->s = NULL;
        v->len = 0;
        v->ll = intValue(b, p + 1);
    } else {
        v->s = p + *field;
        v->len = *data;
        v->ll = 0;
    }
    return 1;
}

/* ---- walking ------------------------------------------------------------- */

static int corrupt(ziplistIter *it) {
    it->state = ZL_ITER_CORRUPT;
    return -1;
}

/* At an end byte: it must be the blob's last, and zltail and zllen must
 * agree with what was walked. */
static int finish(ziplistIter *it) {
    if (it->pos != it->size - 1) return corrupt(it);
    size_t tail = load32le(it->zl + 4);
    unsigned zllen = load16le(it->zl + 8);
    if (tail != (it->count ? it->last : ZIPLIST_HEADER_SIZE)) return corrupt(it);
    if (zllen != ZIPLIST_COUNT_UNKNOWN && zllen != it->count) return corrupt(it);
    it->state = ZL_ITER_DONE;
    return 0;
}

int ziplistIterInit(ziplistIter *it, const unsigned char *zl, size_t size) {
    it->zl = zl;
    it->size = size;
    it->pos = ZIPLIST_HEADER_SIZE;
    it->prev_size = 0;
    it->last = 0;
    it->count = 0;
    it->state = ZL_ITER_CORRUPT;
    if (zl == NULL || size < ZIPLIST_HEADER_SIZE + 1) return 0;
    if ((uint64_t)load32le(zl) != (uint64_t)size || zl[size - 1] != ZIPLIST_END) return 0;
    it->state = ZL_ITER_OK;
    return 1;
}

int ziplistIterNext(ziplistIter *it, ziplistValue *v) {
    if (it->state != ZL_ITER_OK) return it->state == ZL_ITER_DONE ? 0 : -1;
    const unsigned char *p = it->zl + it->pos;
    size_t avail = it->size - 1 - it->pos; /* bytes before the end byte */
    if (p[0] == ZIPLIST_END) return finish(it);
    size_t pfield, prev, efield, data;
    if (!decodePrevlen(p, avail, &pfield, &prev) || prev != it->prev_size) return corrupt(it);
    if (!decodeEncoding(p + pfield, avail - pfield, &efield, &data, v)) return corrupt(it);
    it->last = it->pos;
    it->prev_size = pfield + efield + data;
    it->pos += it->prev_size;
    it->count++;
    return 1;
}

int ziplistValidateIntegrity(const unsigned char *zl, size_t size, unsigned long *count) {
    ziplistIter it;
    ziplistValue v;
    int r;
    if (!ziplistIterInit(&it, zl, size)) return 0;
    while ((r = ziplistIterNext(&it, &v)) == 1) continue;
    if (r != 0) return 0;
    if (count) *count = it.count;
    return 1;
}
