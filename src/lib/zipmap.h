/* zipmap.h -- reading (only) the zipmap blobs of RDB type 9: small hashes
 * in dumps written by Redis before 2.6.
 *
 * The layout:
 *
 *   <zmlen u8> <len>field <len><free u8>value<free bytes> ... <0xFF>
 *
 * zmlen is the number of pairs while below 254; 254 means "count them"
 * (Redis leaves it there even after deletions bring the count down). A
 * <len> is one byte if below 254, else 0xFE and a little-endian u32. The
 * free byte counts unused bytes after the value (slack left by updates).
 *
 * This library never builds or changes a zipmap; it has no server knowledge.
 */
#ifndef ZIPMAP_H
#define ZIPMAP_H

#include <stddef.h>

#define ZIPMAP_END 0xFF
#define ZIPMAP_BIGLEN 254

/* A forward walk that checks each pair before handing it out, and zmlen at
 * the end. Fields are private. */
typedef struct zipmapIter {
    const unsigned char *zm;
    size_t size;
    size_t pos;
    unsigned long count;
    int state;
} zipmapIter;

/* Checks the size and the end byte; 0 (and every Next returns -1) if bad. */
int zipmapIterInit(zipmapIter *it, const unsigned char *zm, size_t size);
/* 1 with the next pair (pointers into the blob); 0 at a valid end; -1 if
 * the blob is corrupt. */
int zipmapIterNext(zipmapIter *it, const unsigned char **field, size_t *flen, const unsigned char **value,
                   size_t *vlen);

/* Deep validation of an untrusted blob of `size` bytes; 1 if valid, with
 * *pairs (if not NULL) set to the number of pairs. Never reads outside the
 * blob. Duplicate fields are the caller's business. */
int zipmapValidateIntegrity(const unsigned char *zm, size_t size, unsigned long *pairs);

#endif /* ZIPMAP_H */
