/* lzf.c -- decompression of LZF blocks, the compression RDB files use for
 * strings (rdbcompression yes in Redis), so dumps written by Redis load here.
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
 */
#include "lzf.h"

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
