/* intset.h -- a sorted set of integers in one byte array.
 *
 * The blob layout is Redis's intset format, byte for byte:
 *
 *   <encoding u32 LE> <length u32 LE> <contents: length values>
 *
 * where encoding is the width of every value in bytes (2, 4 or 8) and the
 * values are little-endian two's complement, sorted ascending, unique.
 * Adding a value that needs a wider encoding upgrades the whole set in
 * place (back to front, so no temporary copy). Lookups are binary searches.
 *
 * The type is opaque: every field is reached through portable.h's load and
 * store helpers, so an intset may start at any address.
 *
 * Functions that change the set may reallocate it and return the new
 * pointer; the old one is invalid afterwards.
 */
#ifndef INTSET_H
#define INTSET_H

#include <stddef.h>
#include <stdint.h>

typedef struct intset intset; /* a byte blob; never dereferenced as a struct */

intset *intsetNew(void);
void intsetFree(intset *is);
intset *intsetDup(const intset *is);
intset *intsetAdd(intset *is, int64_t value, int *added);    /* *added: 1 if new */
intset *intsetRemove(intset *is, int64_t value, int *removed); /* *removed: 1 if it was there */
int intsetFind(const intset *is, int64_t value);
int intsetGet(const intset *is, uint32_t pos, int64_t *value); /* 0 if pos is out of range */
int64_t intsetRandom(const intset *is);                        /* the set must not be empty */
int64_t intsetMin(const intset *is);
int64_t intsetMax(const intset *is);
uint32_t intsetLen(const intset *is);
size_t intsetBlobLen(const intset *is);
unsigned intsetEncoding(const intset *is); /* 2, 4 or 8 */

/* Validation of an untrusted blob of `size` bytes: encoding is 2/4/8, the
 * length matches the size exactly and is not 0 (empty sets are never
 * stored, so never dumped), and -- when deep -- the values are
 * strictly ascending. Returns 1 if valid. Never reads outside the blob. */
int intsetValidateIntegrity(const unsigned char *blob, size_t size, int deep);

#endif /* INTSET_H */
