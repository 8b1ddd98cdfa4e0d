/* sha1.c -- SHA-1 as FIPS 180-4 defines it (see sha1.h).
 *
 * A straightforward 80-round compression over a 16-word schedule kept in a
 * ring (w[t & 15]), which is small enough for every port and fast enough for
 * hashing script bodies. Words are loaded big-endian through portable.h, so
 * the block buffer needs no alignment.
 */
#include "sha1.h"
#include "portable.h"

#include <string.h>

static uint32_t rotl32(uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }

/* f(t) and K(t) of the four 20-round stages. */
static uint32_t roundMix(int t, uint32_t b, uint32_t c, uint32_t d) {
    if (t < 20) return ((b & c) | (~b & d)) + 0x5a827999u;
    if (t < 40) return (b ^ c ^ d) + 0x6ed9eba1u;
    if (t < 60) return ((b & c) | (b & d) | (c & d)) + 0x8f1bbcdcu;
    return (b ^ c ^ d) + 0xca62c1d6u;
}

static void sha1Compress(uint32_t state[5], const unsigned char block[64]) {
    uint32_t w[16];
    for (int t = 0; t < 16; t++) w[t] = load32be(block + 4 * t);
    uint32_t a = state[0], b = state[1], c = state[2], d = state[3], e = state[4];
    for (int t = 0; t < 80; t++) {
        if (t >= 16)
            w[t & 15] = rotl32(w[(t - 3) & 15] ^ w[(t - 8) & 15] ^ w[(t - 14) & 15] ^ w[t & 15], 1);
        uint32_t tmp = rotl32(a, 5) + roundMix(t, b, c, d) + e + w[t & 15];
        e = d;
        d = c;
        c = rotl32(b, 30);
        b = a;
        a = tmp;
    }
    state[0] += a;
    state[1] += b;
    state[2] += c;
    state[3] += d;
    state[4] += e;
}

void sha1Init(sha1Ctx *ctx) {
    static const uint32_t initial[5] = {0x67452301u, 0xefcdab89u, 0x98badcfeu, 0x10325476u, 0xc3d2e1f0u};
    memcpy(ctx->state, initial, sizeof initial);
    ctx->total_bytes = 0;
    ctx->block_used = 0;
}

void sha1Update(sha1Ctx *ctx, const void *data, size_t len) {
    const unsigned char *p = data;
    ctx->total_bytes += len;
    while (len > 0) {
        size_t n = 64 - ctx->block_used;
        if (n > len) n = len;
        memcpy(ctx->block + ctx->block_used, p, n);
        ctx->block_used += n;
        p += n;
        len -= n;
        if (ctx->block_used == 64) {
            sha1Compress(ctx->state, ctx->block);
            ctx->block_used = 0;
        }
    }
}

/* Padding: 0x80, zeros up to 56 mod 64, then the length in bits, big-endian. */
void sha1Final(sha1Ctx *ctx, unsigned char digest[SHA1_DIGEST_LEN]) {
    uint64_t bits = ctx->total_bytes * 8;
    unsigned char pad[72];
    size_t padlen = (ctx->block_used < 56 ? 56 : 120) - ctx->block_used;
    memset(pad, 0, sizeof pad);
    pad[0] = 0x80;
    store64be(pad + padlen, bits);
    sha1Update(ctx, pad, padlen + 8);
    for (int i = 0; i < 5; i++) store32be(digest + 4 * i, ctx->state[i]);
}

void sha1Hex(char out[SHA1_HEX_LEN + 1], const void *data, size_t len) {
    static const char digits[] = "0123456789abcdef";
    unsigned char digest[SHA1_DIGEST_LEN];
    sha1Ctx ctx;
    sha1Init(&ctx);
    sha1Update(&ctx, data, len);
    sha1Final(&ctx, digest);
    for (int i = 0; i < SHA1_DIGEST_LEN; i++) {
        out[2 * i] = digits[digest[i] >> 4];
        out[2 * i + 1] = digits[digest[i] & 15];
    }
    out[SHA1_HEX_LEN] = '\0';
}
