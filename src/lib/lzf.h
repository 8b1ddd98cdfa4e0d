/* lzf.h -- LZF compression and decompression (lzf.c), for strings in RDB
 * files and DUMP payloads. */
#ifndef LZF_H
#define LZF_H

#include <stddef.h>

/* Decompresses in[0..in_len) into out (out_len bytes available). Returns the
 * number of bytes produced, or 0 if the input is corrupt or doesn't fit. */
size_t lzfDecompress(const unsigned char *in, size_t in_len, unsigned char *out, size_t out_len);

/* Compresses in[0..in_len) into out (out_len bytes available). Returns the
 * compressed length, or 0 if it doesn't fit in out_len (or in_len is 0). */
size_t lzfCompress(const unsigned char *in, size_t in_len, unsigned char *out, size_t out_len);

#endif /* LZF_H */
