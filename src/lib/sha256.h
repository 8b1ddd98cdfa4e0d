/* sha256.h -- SHA-256 (FIPS 180-4), for ACL password hashes.
 *
 * ACL users keep only the SHA-256 of their passwords (as Redis does: ACL
 * LIST and the aclfile show "#<64 hex digits>"), so AUTH hashes what the
 * client sent and compares digests. An incremental interface (init,
 * update, final) plus one-call helpers.
 *
 * Byte order and alignment: message words are read as big-endian 32-bit
 * values through load32be() (portable.h), the length and digest written
 * through store64be()/store32be(), so input and output pointers may have
 * any alignment and the digest is the same on every CPU.
 */
#ifndef REDIS_SHA256_H
#define REDIS_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_DIGEST_LEN 32
#define SHA256_HEX_LEN 64

typedef struct sha256Ctx {
    uint32_t state[8];
    uint64_t total_len;      /* bytes hashed so far */
    unsigned char block[64]; /* the partial block */
    size_t block_len;
} sha256Ctx;

void sha256Init(sha256Ctx *ctx);
void sha256Update(sha256Ctx *ctx, const void *data, size_t len);
void sha256Final(sha256Ctx *ctx, unsigned char digest[SHA256_DIGEST_LEN]);

/* The digest of one buffer. */
void sha256(const void *data, size_t len, unsigned char digest[SHA256_DIGEST_LEN]);

/* The digest of one buffer as 64 lower-case hex digits and a NUL. */
void sha256Hex(const void *data, size_t len, char hex[SHA256_HEX_LEN + 1]);

#endif /* REDIS_SHA256_H */
