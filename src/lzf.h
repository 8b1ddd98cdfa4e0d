/* lzf.h -- LZF decompression (lzf.c), for strings in RDB files. */
#ifndef LZF_H
#define LZF_H

#include <stddef.h>

/* Decompresses in[0..in_len) into out (out_len bytes available). Returns the
 * number of bytes produced, or 0 if the input is corrupt or doesn't fit. */
size_t lzfDecompress(const unsigned char *in, size_t in_len, unsigned char *out, size_t out_len);

#endif /* LZF_H */
