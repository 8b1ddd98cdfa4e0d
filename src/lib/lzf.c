/* lzf.c -- LZF blocks, the compression RDB files use for strings
 * (rdbcompression yes): decompression, so dumps written by Redis load here,
 * and compression, so ours are as small as Redis's.
 *
 * The format (LibLZF's, a public description): a sequence of chunks, each
 * starting with a control byte c.
 *   c < 32:  a literal run of c+1 bytes follows.
 *   c >= 32: a back reference. len = c >> 5 (7 means: add the next byte),
 *            then copy len+2 bytes from `distance` back in the output,
 *            where distance = ((c & 31) << 8) + next byte + 1.
 *
 * Design decision: every input read and output write is bounds-checked
 * against the caller's sizes, and a back reference must point inside what
 * was already produced: a corrupt blob from a file makes the function
 * return 0, never read or write out of bounds. Copies are byte by byte,
 * because a reference may overlap its own output (run-length style).
 *
 * The compressor is a greedy single pass: a table indexed by a hash of the
 * next 3 bytes remembers where they were last seen; a hit within 8 KB that
 * really matches becomes a back reference extended as far as it goes (264
 * bytes at most), anything else accumulates into literal runs. The table
 * (32 KB) lives on the stack, so the function is reentrant and allocates
 * nothing; it compares bytes, never wider loads, so it is alignment-safe.
 * Output that would not fit in the caller's buffer makes it return 0: the
 * RDB writer then stores the string uncompressed.
 */
#include "lzf.h"

#include <stdint.h>
#include <string.h>

size_t lzfDecompress(const unsigned char *in, size_t in_len, unsigned char *out, size_t out_len) {
    size_t ip = 0, op = 0;
    while (ip < in_len) {
        unsigned ctrl = in[ip++];
        if (ctrl < 32) { /* literal run */
            size_t run = ctrl + 1;
            if (run > in_len - ip || run > out_len - op) return 0;
            for (size_t k = 0; k < run; k++) out[op++] = in[ip++];
            continue;
        }
        size_t len = ctrl >> 5;
        if (len == 7) {
            if (ip >= in_len) return 0;
            len += in[ip++];
        }
        if (ip >= in_len) return 0;
        size_t distance = ((size_t)(ctrl & 31) << 8) + in[ip++] + 1;
        len += 2;
        if (distance > op || len > out_len - op) return 0;
        for (size_t k = 0; k < len; k++, op++) out[op] = out[op - distance];
    }
    return op;
}

/* ---- compression ------------------------------------------------------------------------------ */

#define LZF_HASH_BITS 13
#define LZF_MAX_LITERAL 32
#define LZF_MAX_DISTANCE 8192  /* 13 bits of offset, plus one */
#define LZF_MAX_MATCH 264      /* 7 + 255 + 2 */

typedef struct lzfOut {
    unsigned char *p;
    size_t len, cap;
    int full;
} lzfOut;

static void lzfPut(lzfOut *o, unsigned char b) {
    if (o->len == o->cap) o->full = 1;
    else o->p[o->len++] = b;
}

static unsigned lzfHash(const unsigned char *p) {
    uint32_t v = ((uint32_t)p[0] << 16) | ((uint32_t)p[1] << 8) | p[2];
    return (unsigned)((v * 2654435761u) >> (32 - LZF_HASH_BITS));
}

/* Emits in[from..to) as literal runs of at most 32 bytes. */
static void lzfLiterals(lzfOut *o, const unsigned char *in, size_t from, size_t to) {
    while (from < to && !o->full) {
        size_t run = to - from < LZF_MAX_LITERAL ? to - from : LZF_MAX_LITERAL;
        lzfPut(o, (unsigned char)(run - 1));
        for (size_t k = 0; k < run; k++) lzfPut(o, in[from++]);
    }
}

static void lzfBackref(lzfOut *o, size_t len, size_t distance) {
    size_t l = len - 2, d = distance - 1;
    lzfPut(o, (unsigned char)(((l < 7 ? l : 7) << 5) | (d >> 8)));
    if (l >= 7) lzfPut(o, (unsigned char)(l - 7));
    lzfPut(o, (unsigned char)(d & 0xFF));
}

/* Length of the match between in[ref..] and in[ip..], at most `max`. */
static size_t lzfMatchLen(const unsigned char *in, size_t ref, size_t ip, size_t max) {
    size_t len = 0;
    while (len < max && in[ref + len] == in[ip + len]) len++;
    return len;
}

size_t lzfCompress(const unsigned char *in, size_t in_len, unsigned char *out, size_t out_len) {
    uint32_t table[1 << LZF_HASH_BITS]; /* position + 1 of the last 3-byte sequence seen, 0 = none */
    lzfOut o = {.p = out, .cap = out_len};
    size_t ip = 0, lit = 0;
    if (in_len == 0 || in_len > UINT32_MAX - 1) return 0;
    memset(table, 0, sizeof table);
    while (ip + 2 < in_len && !o.full) {
        unsigned h = lzfHash(in + ip);
        size_t ref = table[h];
        table[h] = (uint32_t)(ip + 1);
        if (ref == 0 || ip - (ref - 1) > LZF_MAX_DISTANCE) {
            ip++;
            continue;
        }
        ref--;
        size_t max = in_len - ip < LZF_MAX_MATCH ? in_len - ip : LZF_MAX_MATCH;
        size_t len = lzfMatchLen(in, ref, ip, max);
        if (len < 3) {
            ip++;
            continue;
        }
        lzfLiterals(&o, in, lit, ip);
        lzfBackref(&o, len, ip - ref);
        for (size_t k = ip + 1; k < ip + len && k + 2 < in_len; k++) table[lzfHash(in + k)] = (uint32_t)(k + 1);
        ip += len;
        lit = ip;
    }
    lzfLiterals(&o, in, lit, in_len);
    return o.full ? 0 : o.len;
}
