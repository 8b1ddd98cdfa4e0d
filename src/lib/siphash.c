/* siphash.c -- SipHash-c-d, written from the algorithm's specification.
 *
 * Design decisions:
 *  - One generic core, siphashCore(), parameterised by the round counts and a
 *    "lowercase the input" flag. It is forced inline into its three callers,
 *    so siphash() and siphash_nocase() get fixed 1/2 rounds and no flag tests
 *    at run time, while siphash_cd() keeps the counts as loop bounds.
 *  - Message words come from load64le(): any alignment, any host byte order.
 *    The final partial word is copied into a zeroed 8-byte buffer first, so
 *    we never read past the end of the input.
 *  - Case folding works on whole words (SWAR): each byte in 'A'..'Z' gets
 *    0x20 added, all other bytes (including non-ASCII) stay as they are. This
 *    is exactly what hashing an ASCII-lowercased copy would see.
 */
#include "siphash.h"

#include "portable.h"

#if defined(__GNUC__)
#define SIP_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define SIP_ALWAYS_INLINE inline
#endif

typedef struct sipState {
    uint64_t v0, v1, v2, v3;
} sipState;

static inline uint64_t sipRotl(uint64_t x, int bits) {
    return (x << bits) | (x >> (64 - bits));
}

static SIP_ALWAYS_INLINE void sipRound(sipState *s) {
    s->v0 += s->v1; s->v1 = sipRotl(s->v1, 13); s->v1 ^= s->v0; s->v0 = sipRotl(s->v0, 32);
    s->v2 += s->v3; s->v3 = sipRotl(s->v3, 16); s->v3 ^= s->v2;
    s->v0 += s->v3; s->v3 = sipRotl(s->v3, 21); s->v3 ^= s->v0;
    s->v2 += s->v1; s->v1 = sipRotl(s->v1, 17); s->v1 ^= s->v2; s->v2 = sipRotl(s->v2, 32);
}

/* The initial state: the key halves XORed into the constants
 * "somepseudorandomlygeneratedbytes". */
static SIP_ALWAYS_INLINE void sipInit(sipState *s, const uint8_t *key) {
    uint64_t k0 = load64le(key), k1 = load64le(key + 8);
    s->v0 = k0 ^ UINT64_C(0x736f6d6570736575);
    s->v1 = k1 ^ UINT64_C(0x646f72616e646f6d);
    s->v2 = k0 ^ UINT64_C(0x6c7967656e657261);
    s->v3 = k1 ^ UINT64_C(0x7465646279746573);
}

static SIP_ALWAYS_INLINE void sipCompress(sipState *s, uint64_t m, int c) {
    s->v3 ^= m;
    for (int i = 0; i < c; i++) sipRound(s);
    s->v0 ^= m;
}

static SIP_ALWAYS_INLINE uint64_t sipFinalize(sipState *s, int d) {
    s->v2 ^= 0xff;
    for (int i = 0; i < d; i++) sipRound(s);
    return s->v0 ^ s->v1 ^ s->v2 ^ s->v3;
}

/* Adds 0x20 to every byte of `w` that is an ASCII upper-case letter.
 * Working on the low 7 bits of each byte keeps the additions from carrying
 * into the neighbouring byte; bytes >= 0x80 are excluded explicitly. */
static inline uint64_t sipLowercaseWord(uint64_t w) {
    const uint64_t ones = UINT64_C(0x0101010101010101);
    const uint64_t highBits = ones * 0x80;
    uint64_t low7 = w & (ones * 0x7f);
    uint64_t atLeastA = low7 + ones * (0x80 - 'A');     /* high bit: byte >= 'A' */
    uint64_t aboveZ = low7 + ones * (0x80 - 'Z' - 1);   /* high bit: byte > 'Z' */
    uint64_t isUpper = atLeastA & ~aboveZ & ~w & highBits;
    return w | (isUpper >> 2);                          /* 0x80 >> 2 == 0x20 */
}

/* The last message word: the 0..7 bytes after the whole words, zero padded,
 * with the total length (mod 256) in the top byte. `in` may be NULL when
 * len is 0, so it is only touched when there is a tail to copy. */
static SIP_ALWAYS_INLINE uint64_t sipLastWord(const uint8_t *in, size_t totalLen, int lowercase) {
    uint8_t buf[8] = {0};
    size_t tailLen = totalLen % 8;
    if (tailLen) memcpy(buf, in + (totalLen - tailLen), tailLen);
    uint64_t m = load64le(buf);
    if (lowercase) m = sipLowercaseWord(m);
    return m | ((uint64_t)totalLen << 56);
}

static SIP_ALWAYS_INLINE uint64_t siphashCore(const uint8_t *in, size_t len, const uint8_t *key,
                                              int c, int d, int lowercase) {
    sipState s;
    sipInit(&s, key);
    size_t wholeWords = len / 8;
    for (size_t i = 0; i < wholeWords; i++) {
        uint64_t m = load64le(in + i * 8);
        if (lowercase) m = sipLowercaseWord(m);
        sipCompress(&s, m, c);
    }
    sipCompress(&s, sipLastWord(in, len, lowercase), c);
    return sipFinalize(&s, d);
}

uint64_t siphash_cd(const uint8_t *in, size_t len, const uint8_t key[SIPHASH_KEY_LEN],
                    int c, int d) {
    return siphashCore(in, len, key, c, d, 0);
}

uint64_t siphash(const uint8_t *in, size_t len, const uint8_t key[SIPHASH_KEY_LEN]) {
    return siphashCore(in, len, key, 1, 2, 0);
}

uint64_t siphash_nocase(const uint8_t *in, size_t len, const uint8_t key[SIPHASH_KEY_LEN]) {
    return siphashCore(in, len, key, 1, 2, 1);
}
