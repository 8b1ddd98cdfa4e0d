/* siphash.h -- SipHash, the keyed hash behind every hash table in the server.
 *
 * SipHash-c-d (Aumasson & Bernstein) is a pseudo-random function keyed by 128
 * bits: an attacker who does not know the key cannot craft keys that collide,
 * so hash tables stay O(1) against hostile input. The server uses the cheap
 * SipHash-1-2 variant (1 compression round per 8-byte word, 2 finalization
 * rounds), like Redis; siphash_cd() exposes any c/d so the published 2-4
 * vectors can check the implementation and so other users can pick 2-4.
 *
 * Byte order and alignment: the message is read as little-endian 64-bit words
 * through load64le() from portable.h, so the output is the same on every CPU
 * and the input pointer may have any alignment. The 64-bit result is the
 * value SipHash defines (the reference code's 8 output bytes read as a
 * little-endian integer).
 */
#ifndef REDIS_SIPHASH_H
#define REDIS_SIPHASH_H

#include <stddef.h>
#include <stdint.h>

#define SIPHASH_KEY_LEN 16

/* SipHash with `c` compression and `d` finalization rounds (both >= 1). */
uint64_t siphash_cd(const uint8_t *in, size_t len, const uint8_t key[SIPHASH_KEY_LEN],
                    int c, int d);

/* SipHash-1-2: the hash the server uses for its tables. */
uint64_t siphash(const uint8_t *in, size_t len, const uint8_t key[SIPHASH_KEY_LEN]);

/* SipHash-1-2 of the input with ASCII 'A'..'Z' mapped to 'a'..'z' (other
 * bytes unchanged): equal to siphash() of the lowercased copy, without making
 * one. Used for case-insensitive lookups such as command names. */
uint64_t siphash_nocase(const uint8_t *in, size_t len, const uint8_t key[SIPHASH_KEY_LEN]);

#endif /* REDIS_SIPHASH_H */
