/* osrandom.h -- seed material from the operating system.
 *
 * The server needs a few unpredictable bytes at start-up: the SipHash key of
 * every hash table (so clients cannot force collisions), the run id, and the
 * seed of its own PRNG. osRandomBytes() asks the kernel (getrandom(2) where
 * the C library has it, otherwise /dev/urandom). It never leaves the buffer
 * unfilled: if the OS cannot deliver, it falls back to a mix of weak local
 * entropy and returns -1, so the caller can log that the seed is weak.
 *
 * The individual sources are public so tests reach every path, including the
 * fallback, without having to break the machine's random device.
 */
#ifndef REDIS_OSRANDOM_H
#define REDIS_OSRANDOM_H

#include <stddef.h>

/* Fills buf[0..len) with OS randomness. Returns 0 on success; -1 if the OS
 * sources failed and osRandomBytesFallback() filled the buffer instead. */
int osRandomBytes(unsigned char *buf, size_t len);

/* getrandom(2) only. Returns 0 on success, -1 if it is unavailable (not
 * compiled in, or ENOSYS) or failed; buf content is then unspecified. */
int osRandomBytesGetrandom(unsigned char *buf, size_t len);

/* Reads exactly len bytes from a device such as "/dev/urandom". Returns 0 on
 * success, -1 if it cannot be opened or delivers fewer bytes. */
int osRandomBytesFromDevice(unsigned char *buf, size_t len, const char *path);

/* Weak fallback, always succeeds: wall and monotonic clocks, pids, stack,
 * code, data and C-library addresses (ASLR) and a call counter, hashed with SipHash-2-4 into a key
 * that then runs SipHash in counter mode over the output. Two calls in the
 * same process never return the same bytes. Not suitable for secrets. */
void osRandomBytesFallback(unsigned char *buf, size_t len);

#endif /* REDIS_OSRANDOM_H */
