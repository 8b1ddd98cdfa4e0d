/* sha1.h -- SHA-1 (FIPS 180-4), for the script cache: a script is named by
 * the SHA-1 of its body (EVALSHA, SCRIPT LOAD, redis.sha1hex), so the digest
 * must be the standard one, bit for bit, on every byte order.
 *
 * Usage: sha1Init, any number of sha1Update, sha1Final (20 bytes, the
 * standard big-endian digest); sha1Hex for the 40 lower-case hex digits the
 * scripting commands show. The message bytes are read one at a time and the
 * words assembled big-endian with portable.h, so no alignment is assumed.
 */
#ifndef REDIS_SHA1_H
#define REDIS_SHA1_H

#include <stddef.h>
#include <stdint.h>

#define SHA1_DIGEST_LEN 20
#define SHA1_HEX_LEN 40

typedef struct sha1Ctx {
    uint32_t state[5];
    uint64_t total_bytes;
    unsigned char block[64];
    size_t block_used;
} sha1Ctx;

void sha1Init(sha1Ctx *ctx);
void sha1Update(sha1Ctx *ctx, const void *data, size_t len);
void sha1Final(sha1Ctx *ctx, unsigned char digest[SHA1_DIGEST_LEN]);
/* out gets SHA1_HEX_LEN digits and a terminating NUL. */
void sha1Hex(char out[SHA1_HEX_LEN + 1], const void *data, size_t len);

#endif /* REDIS_SHA1_H */
