/* ziplist.h -- reading (only) the ziplist blobs of RDB files written by
 * Redis 2.6 to 6.2: list, hash and sorted-set values (RDB types 10, 12, 13)
 * and the nodes of a version-1 quicklist (type 14).
 *
 * The layout, all integers little-endian unless said otherwise:
 *
 *   <zlbytes u32> <zltail u32> <zllen u16> <entry> ... <entry> <0xFF>
 *
 * zlbytes is the blob size, zltail the offset of the last entry (of the end
 * byte when empty), zllen the entry count, 65535 meaning "count them".
 * Each entry is <prevlen> <encoding> <data>:
 *
 *   prevlen   the previous entry's size (0 for the first): one byte if
 *             below 254, else 0xFE and a u32 (the 5-byte form may also
 *             hold a small value);
 *   00xxxxxx                       string, 6-bit length
 *   01xxxxxx yyyyyyyy              string, 14-bit length, BIG-endian
 *   10000000 + 4 bytes             string, 32-bit length, BIG-endian
 *   0xC0 / 0xD0 / 0xE0             int16 / int32 / int64
 *   0xF0 / 0xFE                    int24 / int8
 *   0xF1 .. 0xFD                   the integers 0 .. 12, no data
 *
 * This library never builds or changes a ziplist: the server converts what
 * it reads into its own encodings. It has no server knowledge.
 */
#ifndef ZIPLIST_H
#define ZIPLIST_H

#include <stddef.h>

#define ZIPLIST_HEADER_SIZE 10
#define ZIPLIST_END 0xFF
#define ZIPLIST_COUNT_UNKNOWN 65535u

/* One entry: a string (s != NULL, len bytes, pointing into the blob) or,
 * when s is NULL, the integer ll. */
typedef struct ziplistValue {
    const unsigned char *s;
    size_t len;
    long long ll;
} ziplistValue;

/* A forward walk that checks as it goes: each entry's encoding, size and
 * prevlen before it is handed out, and at the end the terminator, zltail
 * and the count. Fields are private. */
typedef struct ziplistIter {
    const unsigned char *zl;
    size_t size;
    size_t pos;        /* offset of the next entry */
    size_t prev_size;  /* size of the entry before pos (0 at the head) */
    size_t last;       /* offset of the last entry handed out */
    unsigned long count;
    int state;
} ziplistIter;

/* Checks the header against `size`; 0 (and every Next returns -1) if bad. */
int ziplistIterInit(ziplistIter *it, const unsigned char *zl, size_t size);
/* 1 with the next entry in *v; 0 at a valid end; -1 if the blob is corrupt. */
int ziplistIterNext(ziplistIter *it, ziplistValue *v);

/* Deep validation of an untrusted blob of `size` bytes: everything the
 * iterator checks, over the whole blob. Returns 1 if valid, setting *count
 * (if not NULL) to the number of entries. Never reads outside the blob. */
int ziplistValidateIntegrity(const unsigned char *zl, size_t size, unsigned long *count);

#endif /* ZIPLIST_H */
