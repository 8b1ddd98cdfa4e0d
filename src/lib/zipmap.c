/* zipmap.c -- validating and walking zipmap blobs (see zipmap.h).
 *
 * Design decisions:
 * - Read-only, like ziplist.c: the server turns a zipmap into a hash of its
 *   own encoding as it loads it.
 * - The iterator checks as it goes (each length field, the free byte and
 *   the bytes they cover must end before the final end byte); validation
 *   is a walk to the end plus the zmlen check. So walking an unvalidated
 *   blob is still safe.
 * - Strict where Redis never wrote anything else: zmlen 255, and a value
 *   length whose first byte is 255 (only a field position may hold the end
 *   byte), are corrupt.
 * - The 5-byte length is read with load32le (portable.h); the fields are at
 *   any offset.
 */
#include "zipmap.h"

#include <stdint.h>

#include "portable.h"

enum { ZM_ITER_OK, ZM_ITER_DONE, ZM_ITER_CORRUPT };

static int corrupt(zipmapIter *it) {
    it->state = ZM_ITER_CORRUPT;
    return -1;
}

/* A length field at p with `avail` bytes before the end byte: its size in
 * *field and value in *len. 0 if it is the end byte or does not fit. */
static int decodeLen(const unsigned char *p, size_t avail, size_t *field, size_t *len) {
    if (avail < 1 || p[0] == ZIPMAP_END) return 0;
    if (p[0] < ZIPMAP_BIGLEN) {
        *field = 1;
        *len = p[0];
        return 1;
    }
    if (avail < 5) return 0;
    *field = 5;
    *len = load32le(p + 1);
    return 1;
}

/* Takes a length field and then `extra` + that many bytes from *pos
 * (bounded by the end byte at size - 1); the string starts after `extra`. */
static int takeString(zipmapIter *it, size_t extra, const unsigned char **s, size_t *len) {
    size_t avail = it->size - 1 - it->pos, field;
    if (!decodeLen(it->zm + it->pos, avail, &field, len)) return 0;
    avail -= field;
    if (extra > avail) return 0;
    avail -= extra;
    size_t free_bytes = extra ? it->zm[it->pos + field] : 0;
    if (*len > avail || free_bytes > avail - *len) return 0;
    *s = it->zm + it->pos + field + extra;
    it->pos += field + extra + *len + free_bytes;
    return 1;
}

int zipmapIterInit(zipmapIter *it, const unsigned char *zm, size_t size) {
    it->zm = zm;
    it->size = size;
    it->pos = 1;
    it->count = 0;
    it->state = ZM_ITER_CORRUPT;
    if (zm == NULL || size < 2 || zm[0] == ZIPMAP_END || zm[size - 1] != ZIPMAP_END) return 0;
    it->state = ZM_ITER_OK;
    return 1;
}

int zipmapIterNext(zipmapIter *it, const unsigned char **field, size_t *flen, const unsigned char **value,
                   size_t *vlen) {
    if (it->state != ZM_ITER_OK) return it->state == ZM_ITER_DONE ? 0 : -1;
    if (it->zm[it->pos] == ZIPMAP_END) {
        if (it->pos != it->size - 1) return corrupt(it);
        if (it->zm[0] < ZIPMAP_BIGLEN && it->zm[0] != it->count) return corrupt(it);
        it->state = ZM_ITER_DONE;
        return 0;
    }
    if (!takeString(it, 0, field, flen) || !takeString(it, 1, value, vlen)) return corrupt(it);
    it->count++;
    return 1;
}

int zipmapValidateIntegrity(const unsigned char *zm, size_t size, unsigned long *pairs) {
    zipmapIter it;
    const unsigned char *f, *v;
    size_t flen, vlen;
    int r;
    if (!zipmapIterInit(&it, zm, size)) return 0;
    while ((r = zipmapIterNext(&it, &f, &flen, &v, &vlen)) == 1) continue;
    if (r != 0) return 0;
    if (pairs) *pairs = it.count;
    return 1;
}
