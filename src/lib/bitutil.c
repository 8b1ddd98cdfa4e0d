/* bitutil.c -- bit counting, bit search, BITOP and bitfield access on byte
 * buffers (see bitutil.h for the bit numbering).
 *
 * Design decisions:
 * - Every routine has a plain byte loop that is the reference behaviour;
 *   the word loops only skip or combine whole bytes faster, so the two can
 *   be tested against each other at every start alignment.
 * - Word loads go through loadWord(): under USE_ALIGNED_ACCESS callers step
 *   to an 8-byte boundary first and loadWord tells the compiler the address
 *   is aligned (one load instruction, checked by the alignment sanitizer);
 *   elsewhere it is an unaligned-safe memcpy load. Words are only counted,
 *   compared with all-zeros/all-ones or combined bytewise, so their byte
 *   order never matters.
 * - Bitfields are read and written one bit at a time, most significant
 *   first: at most 64 steps, and no byte order to get wrong.
 */
#include "bitutil.h"

#include "platform.h"
#include "portable.h"

static inline uint64_t loadWord(const unsigned char *p) {
#ifdef USE_ALIGNED_ACCESS
    return load64(__builtin_assume_aligned(p, 8));
#else
    return load64(p);
#endif
}

static inline void storeWord(unsigned char *p, uint64_t v) {
#ifdef USE_ALIGNED_ACCESS
    store64(__builtin_assume_aligned(p, 8), v);
#else
    store64(p, v);
#endif
}

/* Bytes to consume one at a time before word loads may start at p. */
static inline size_t headBytes(const unsigned char *p, size_t n) {
#ifdef USE_ALIGNED_ACCESS
    size_t head = bytes_to_alignment(p, 8);
    return head < n ? head : n;
#else
    (void)p;
    (void)n;
    return 0;
#endif
}

static inline unsigned popcount8(unsigned char b) { return (unsigned)__builtin_popcount(b); }

/* Bits k..7 of a byte (bit 0 = most significant). */
static inline unsigned char maskFrom(unsigned k) { return (unsigned char)(0xFFu >> k); }
/* Bits 0..k of a byte. */
static inline unsigned char maskTo(unsigned k) { return (unsigned char)(0xFFu << (7 - k)); }

/* ---- counting -------------------------------------------------------------------------------- */

static uint64_t popcountBytes(const unsigned char *p, size_t n) {
    uint64_t count = 0;
    size_t head = headBytes(p, n);
    for (size_t i = 0; i < head; i++) count += popcount8(p[i]);
    p += head;
    n -= head;
    for (; n >= 32; p += 32, n -= 32)
        count += (uint64_t)(__builtin_popcountll(loadWord(p)) + __builtin_popcountll(loadWord(p + 8)) +
                            __builtin_popcountll(loadWord(p + 16)) + __builtin_popcountll(loadWord(p + 24)));
    for (; n >= 8; p += 8, n -= 8) count += (uint64_t)__builtin_popcountll(loadWord(p));
    for (size_t i = 0; i < n; i++) count += popcount8(p[i]);
    return count;
}

uint64_t bitCountRange(const unsigned char *p, uint64_t first, uint64_t last) {
    uint64_t fb = first >> 3, lb = last >> 3;
    unsigned fk = (unsigned)(first & 7), lk = (unsigned)(last & 7);
    if (fb == lb) return popcount8(p[fb] & maskFrom(fk) & maskTo(lk));
    uint64_t count = popcount8(p[fb] & maskFrom(fk)) + popcount8(p[lb] & maskTo(lk));
    return count + popcountBytes(p + fb + 1, (size_t)(lb - fb - 1));
}

/* ---- searching ----------------------------------------------------------------------------- */

static inline int bitAt(const unsigned char *p, uint64_t pos) { return (p[pos >> 3] >> (7 - (pos & 7))) & 1; }

/* Skips whole bytes equal to `skip` from byte index `byte` while fewer than
 * `limit` bytes; returns the first byte index that differs (or limit). */
static uint64_t skipBytes(const unsigned char *p, uint64_t byte, uint64_t limit, unsigned char skip) {
    uint64_t skipword = skip ? UINT64_MAX : 0;
    uint64_t head = headBytes(p + byte, (size_t)(limit - byte));
    for (uint64_t end = byte + head; byte < end; byte++)
        if (p[byte] != skip) return byte;
    while (limit - byte >= 8 && loadWord(p + byte) == skipword) byte += 8;
    while (byte < limit && p[byte] == skip) byte++;
    return byte;
}

int64_t bitFindFirst(const unsigned char *p, uint64_t first, uint64_t last, int bit) {
    uint64_t pos = first;
    for (; pos <= last && (pos & 7); pos++)
        if (bitAt(p, pos) == bit) return (int64_t)pos;
    if (pos > last) return -1;
    /* pos is at a byte boundary: skip the bytes holding no wanted bit */
    uint64_t whole_bytes_end = (last + 1) >> 3; /* bytes entirely inside the range */
    uint64_t byte = skipBytes(p, pos >> 3, whole_bytes_end, bit ? 0x00 : 0xFF);
    for (pos = byte << 3; pos <= last; pos++)
        if (bitAt(p, pos) == bit) return (int64_t)pos;
    return -1;
}

/* ---- BITOP --------------------------------------------------------------------------------- */

static inline unsigned char byteOrZero(const unsigned char *s, size_t len, size_t i) { return i < len ? s[i] : 0; }

static unsigned char combineByte(int op, const unsigned char *const *src, const size_t *srclen, int n, size_t i) {
    unsigned char acc = byteOrZero(src[0], srclen[0], i);
    if (op == BITOP_NOT) return (unsigned char)~acc;
    for (int j = 1; j < n; j++) {
        unsigned char b = byteOrZero(src[j], srclen[j], i);
        if (op == BITOP_AND) acc &= b;
        else if (op == BITOP_OR) acc |= b;
        else acc ^= b;
    }
    return acc;
}

/* The common case, two sources: one tight loop per operation, four words
 * per step. */
#define COMBINE_TWO(expr)                                                          \
    do {                                                                           \
        for (; end - i >= 32; i += 32)                                             \
            for (size_t k = 0; k < 32; k += 8) {                                   \
                uint64_t x = loadWord(a + i + k), y = loadWord(b + i + k);         \
                storeWord(dst + i + k, (expr));                                    \
            }                                                                      \
        for (; i < end; i += 8) {                                                  \
            uint64_t x = loadWord(a + i), y = loadWord(b + i);                     \
            storeWord(dst + i, (expr));                                            \
        }                                                                          \
    } while (0)

static void combineTwoWords(int op, unsigned char *dst, const unsigned char *a, const unsigned char *b, size_t i,
                            size_t end) {
    if (op == BITOP_AND) COMBINE_TWO(x & y);
    else if (op == BITOP_OR) COMBINE_TWO(x | y);
    else COMBINE_TWO(x ^ y);
}

/* dst[i..end) word by word (end - i a multiple of 8); the operation is
 * chosen once, outside the loop. */
static void combineWords(int op, unsigned char *dst, const unsigned char *const *src, int n, size_t i, size_t end) {
    if (n == 2 && op != BITOP_NOT) {
        combineTwoWords(op, dst, src[0], src[1], i, end);
        return;
    }
    for (; i < end; i += 8) {
        uint64_t acc = loadWord(src[0] + i);
        switch (op) {
        case BITOP_AND:
            for (int j = 1; j < n; j++) acc &= loadWord(src[j] + i);
            break;
        case BITOP_OR:
            for (int j = 1; j < n; j++) acc |= loadWord(src[j] + i);
            break;
        case BITOP_XOR:
            for (int j = 1; j < n; j++) acc ^= loadWord(src[j] + i);
            break;
        default: acc = ~acc; break;
        }
        storeWord(dst + i, acc);
    }
}

/* Where the target needs aligned words, they are usable only if every
 * buffer reaches an 8-byte boundary after the same number of bytes. */
static int sameAlignment(const unsigned char *dst, const unsigned char *const *src, int n) {
#ifdef USE_ALIGNED_ACCESS
    size_t d = bytes_to_alignment(dst, 8);
    for (int j = 0; j < n; j++)
        if (bytes_to_alignment(src[j], 8) != d) return 0;
#else
    (void)dst;
    (void)src;
    (void)n;
#endif
    return 1;
}

void bitOperation(int op, unsigned char *dst, size_t dstlen, const unsigned char *const *src, const size_t *srclen,
                  int n) {
    size_t minlen = dstlen;
    for (int j = 0; j < n; j++)
        if (srclen[j] < minlen) minlen = srclen[j];
    size_t i = 0;
    if (sameAlignment(dst, src, n)) {
        for (size_t head = headBytes(dst, minlen); i < head; i++) dst[i] = combineByte(op, src, srclen, n, i);
        size_t words_end = i + (minlen - i) / 8 * 8;
        combineWords(op, dst, src, n, i, words_end);
        i = words_end;
    }
    for (; i < dstlen; i++) dst[i] = combineByte(op, src, srclen, n, i);
}

/* ---- bitfields ----------------------------------------------------------------------------- */

uint64_t bitfieldGetUnsigned(const unsigned char *p, uint64_t offset, int bits) {
    uint64_t value = 0;
    for (int i = 0; i < bits; i++) value = (value << 1) | (uint64_t)bitAt(p, offset + (uint64_t)i);
    return value;
}

int64_t bitfieldGetSigned(const unsigned char *p, uint64_t offset, int bits) {
    uint64_t value = bitfieldGetUnsigned(p, offset, bits);
    if (bits < 64 && (value >> (bits - 1)) & 1) value |= UINT64_MAX << bits; /* sign-extend */
    return (int64_t)value;
}

void bitfieldSet(unsigned char *p, uint64_t offset, int bits, uint64_t value) {
    for (int i = 0; i < bits; i++) {
        uint64_t pos = offset + (uint64_t)i;
        unsigned char mask = (unsigned char)(0x80u >> (pos & 7));
        if ((value >> (bits - 1 - i)) & 1) p[pos >> 3] |= mask;
        else p[pos >> 3] &= (unsigned char)~mask;
    }
}
