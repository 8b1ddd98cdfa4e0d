/* sha256.c -- SHA-256 as FIPS 180-4 defines it (see sha256.h).
 *
 * Written from the standard: the message is processed in 64-byte blocks,
 * each expanded into a 64-word schedule and mixed into the eight-word state
 * by 64 rounds; the last block is padded with 0x80, zeros and the bit
 * length as a big-endian 64-bit number. Words are loaded with load32be(),
 * so the buffer's alignment never matters.
 */
#include "sha256.h"

#include <string.h>

#include "portable.h"

/* The first 32 bits of the fractional parts of the cube roots of the first
 * 64 primes (FIPS 180-4, 4.2.2). */
static const uint32_t round_constants[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

static uint32_t rotr(uint32_t x, unsigned n) { return (x >> n) | (x << (32 - n)); }

static void expandSchedule(const unsigned char *block, uint32_t w[64]) {
    for (int t = 0; t < 16; t++) w[t] = load32be(block + 4 * t);
    for (int t = 16; t < 64; t++) {
        uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
        uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
        w[t] = w[t - 16] + s0 + w[t - 7] + s1;
    }
}

static void compressBlock(uint32_t state[8], const unsigned char *block) {
    uint32_t w[64], v[8];
    expandSchedule(block, w);
    memcpy(v, state, sizeof v);
    for (int t = 0; t < 64; t++) {
        uint32_t big1 = rotr(v[4], 6) ^ rotr(v[4], 11) ^ rotr(v[4], 25);
        uint32_t choose = (v[4] & v[5]) ^ (~v[4] & v[6]);
        uint32_t t1 = v[7] + big1 + choose + round_constants[t] + w[t];
        uint32_t big0 = rotr(v[0], 2) ^ rotr(v[0], 13) ^ rotr(v[0], 22);
        uint32_t majority = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]);
        memmove(v + 1, v, sizeof(uint32_t) * 7);
        v[4] += t1;
        v[0] = t1 + big0 + majority;
    }
    for (int j = 0; j < 8; j++) state[j] += v[j];
}

void sha256Init(sha256Ctx *ctx) {
    static const uint32_t initial[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                        0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    memcpy(ctx->state, initial, sizeof initial);
    ctx->total_len = 0;
    ctx->block_len = 0;
}

void sha256Update(sha256Ctx *ctx, const void *data, size_t len) {
    const unsigned char *p = data;
    ctx->total_len += len;
    while (len > 0) {
        size_t take = 64 - ctx->block_len;
        if (take > len) take = len;
        memcpy(ctx->block + ctx->block_len, p, take);
        ctx->block_len += take;
        p += take;
        len -= take;
        if (ctx->block_len == 64) {
            compressBlock(ctx->state, ctx->block);
            ctx->block_len = 0;
        }
    }
}

void sha256Final(sha256Ctx *ctx, unsigned char digest[SHA256_DIGEST_LEN]) {
    uint64_t bits = ctx->total_len * 8;
    static const unsigned char pad_start = 0x80, zero = 0;
    sha256Update(ctx, &pad_start, 1);
    while (ctx->block_len != 56) sha256Update(ctx, &zero, 1);
    unsigned char length[8];
    store64be(length, bits);
    sha256Update(ctx, length, 8);
    for (int j = 0; j < 8; j++) store32be(digest + 4 * j, ctx->state[j]);
}

void sha256(const void *data, size_t len, unsigned char digest[SHA256_DIGEST_LEN]) {
    sha256Ctx ctx;
    sha256Init(&ctx);
    sha256Update(&ctx, data, len);
    sha256Final(&ctx, digest);
}

void sha256Hex(const void *data, size_t len, char hex[SHA256_HEX_LEN + 1]) {
    static const char digits[] = "0123456789abcdef";
    unsigned char digest[SHA256_DIGEST_LEN];
    sha256(data, len, digest);
    for (int j = 0; j < SHA256_DIGEST_LEN; j++) {
        hex[2 * j] = digits[digest[j] >> 4];
        hex[2 * j + 1] = digits[digest[j] & 15];
    }
    hex[SHA256_HEX_LEN] = '\0';
}
