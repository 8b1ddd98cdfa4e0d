/* crc64.c -- table-driven CRC-64/Jones (see crc64.h for the parameters).
 *
 * Design decisions:
 *  - Slicing-by-8: eight 256-entry tables (16 KiB) let the loop fold eight
 *    input bytes per step with eight independent lookups, several times
 *    faster than the byte-at-a-time loop on every CPU we target.
 *  - The CRC is reflected, so input words are read as little-endian values
 *    through load64le(): big-endian hosts (SPARC) produce the same result.
 *  - The word loop starts only once the pointer is 8-byte aligned (bytes
 *    before that go through the byte loop), so strict-alignment CPUs get real
 *    aligned word loads instead of trapping or byte-assembling; the trailing
 *    bytes again go through the byte loop.
 *  - Tables are computed at start-up rather than spelled out as 2048
 *    constants: the generator below is the specification.
 */
#include "crc64.h"

#include "libassert.h"
#include <stddef.h>

#include "portable.h"

/* 0xad93d23594c935a9 with its bits reversed, for the LSB-first algorithm. */
#define CRC64_JONES_POLY_REFLECTED 0x95ac9329ac4bc9b5ULL

static uint64_t crc64_table[8][256];
static int crc64_ready;

/* CRC of the single byte b starting from 0, one bit at a time. */
static uint64_t crc64_byte_entry(unsigned b) {
    uint64_t crc = b;
    for (int bit = 0; bit < 8; bit++)
        crc = (crc & 1) ? (crc >> 1) ^ CRC64_JONES_POLY_REFLECTED : crc >> 1;
    return crc;
}

/* Table k advances a byte through k further zero bytes, so eight bytes can
 * be folded at once: table[k][b] = table[0] applied once more to table[k-1][b]. */
void crc64_init(void) {
    if (crc64_ready) return;
    for (unsigned b = 0; b < 256; b++) crc64_table[0][b] = crc64_byte_entry(b);
    for (int k = 1; k < 8; k++) {
        for (unsigned b = 0; b < 256; b++) {
            uint64_t prev = crc64_table[k - 1][b];
            crc64_table[k][b] = crc64_table[0][prev & 0xff] ^ (prev >> 8);
        }
    }
    crc64_ready = 1;
}

static inline uint64_t crc64_step_byte(uint64_t crc, unsigned char byte) {
    return crc64_table[0][(crc ^ byte) & 0xff] ^ (crc >> 8);
}

/* Folds eight bytes, already xor-ed into crc as a little-endian word. */
static inline uint64_t crc64_step_word(uint64_t x) {
    return crc64_table[7][x & 0xff] ^ crc64_table[6][(x >> 8) & 0xff] ^
           crc64_table[5][(x >> 16) & 0xff] ^ crc64_table[4][(x >> 24) & 0xff] ^
           crc64_table[3][(x >> 32) & 0xff] ^ crc64_table[2][(x >> 40) & 0xff] ^
           crc64_table[1][(x >> 48) & 0xff] ^ crc64_table[0][x >> 56];
}

/* Aligned words only: the caller reached an 8-byte boundary first. */
static uint64_t crc64_words(uint64_t crc, const unsigned char *p, uint64_t nwords) {
    libAssert(is_aligned(p, 8));
#if defined(__GNUC__)
    p = __builtin_assume_aligned(p, 8);
#endif
    for (uint64_t i = 0; i < nwords; i++, p += 8) crc = crc64_step_word(crc ^ load64le(p));
    return crc;
}

uint64_t crc64(uint64_t crc, const unsigned char *s, uint64_t l) {
    if (unlikely(!crc64_ready)) crc64_init();
    for (; l > 0 && !is_aligned(s, 8); l--) crc = crc64_step_byte(crc, *s++);
    if (l >= 8) { /* the head loop stopped at a boundary, not at the end */
        crc = crc64_words(crc, s, l / 8);
        s += l & ~(uint64_t)7;
        l &= 7;
    }
    for (; l > 0; l--) crc = crc64_step_byte(crc, *s++);
    return crc;
}
