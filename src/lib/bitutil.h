/* bitutil.h -- bit operations on byte buffers, for the bitmap commands.
 *
 * Bit numbering is Redis's: bit 0 is the most significant bit of byte 0,
 * bit 8 the most significant bit of byte 1, and so on, on every
 * architecture. Bit ranges are inclusive [first, last] and must lie inside
 * the buffer; callers clamp user ranges first.
 *
 * These functions take any buffer address. Their word-at-a-time paths load
 * 64-bit words through portable.h; where the target needs aligned access
 * (USE_ALIGNED_ACCESS) they first step byte by byte to an 8-byte boundary,
 * so no word is ever loaded from an unaligned address there.
 */
#ifndef BITUTIL_H
#define BITUTIL_H

#include <stddef.h>
#include <stdint.h>

/* Number of set bits in bits [first, last] of p. */
uint64_t bitCountRange(const unsigned char *p, uint64_t first, uint64_t last);

/* Position of the first bit equal to `bit` (0 or 1) in bits [first, last]
 * of p, or -1 if there is none. */
int64_t bitFindFirst(const unsigned char *p, uint64_t first, uint64_t last, int bit);

#define BITOP_AND 0
#define BITOP_OR 1
#define BITOP_XOR 2
#define BITOP_NOT 3

/* dst[0..dstlen) = op over the n sources, each of srclen[j] bytes and read
 * as if zero-padded to dstlen. NOT takes exactly one source. */
void bitOperation(int op, unsigned char *dst, size_t dstlen, const unsigned char *const *src, const size_t *srclen,
                  int n);

/* Reads and writes `bits` (1..64) bits starting at bit `offset`, most
 * significant bit first. The bytes touched must exist. */
uint64_t bitfieldGetUnsigned(const unsigned char *p, uint64_t offset, int bits);
int64_t bitfieldGetSigned(const unsigned char *p, uint64_t offset, int bits);
void bitfieldSet(unsigned char *p, uint64_t offset, int bits, uint64_t value);

#endif /* BITUTIL_H */
