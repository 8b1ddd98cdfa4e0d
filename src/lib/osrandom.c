/* osrandom.c -- OS randomness with a logged-by-the-caller weak fallback.
 *
 * Design decisions:
 *  - getrandom(2) first: no file descriptor, works in a chroot, and blocks
 *    only until the kernel pool is initialised at boot. It is used when the
 *    C library declares it (<sys/random.h>, glibc >= 2.25, musl, BSDs); a
 *    kernel without the system call answers ENOSYS and we move on.
 *  - /dev/urandom second, read in a loop (short reads and EINTR are retried).
 *  - The fallback never fails and never returns the same bytes twice in a
 *    process (a call counter is part of its input). Its entropy is weak, so
 *    osRandomBytes() reports its use with -1 instead of hiding it; as a
 *    library it does not log.
 *  - Fallback mixing is SipHash-2-4: the collected material is hashed under
 *    two fixed domain keys into a 128-bit key, which then hashes a block
 *    counter to produce the output 8 bytes at a time (counter mode).
 */
#include "osrandom.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if defined(__has_include)
#if __has_include(<sys/random.h>)
#include <sys/random.h>
#define OSRANDOM_HAVE_GETRANDOM 1
#endif
#endif

#include "portable.h"
#include "siphash.h"

#ifndef O_CLOEXEC
#define O_CLOEXEC 0
#endif

int osRandomBytesGetrandom(unsigned char *buf, size_t len) {
#if defined(OSRANDOM_HAVE_GETRANDOM)
    while (len > 0) {
        ssize_t got = getrandom(buf, len, 0);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return -1;
        buf += got;
        len -= (size_t)got;
    }
    return 0;
#else
    (void)buf;
    (void)len;
    return -1;
#endif
}

static int osRandomReadFully(int fd, unsigned char *buf, size_t len) {
    while (len > 0) {
        ssize_t got = read(fd, buf, len);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return -1;
        buf += got;
        len -= (size_t)got;
    }
    return 0;
}

int osRandomBytesFromDevice(unsigned char *buf, size_t len, const char *path) {
    int fd;
    do {
        fd = open(path, O_RDONLY | O_CLOEXEC);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0) return -1;
    int result = osRandomReadFully(fd, buf, len);
    close(fd);
    return result;
}

/* ---- fallback ---------------------------------------------------------- */

/* Everything that differs between processes and between calls, serialised
 * as little-endian words so the material is well defined on every host. */
enum { FALLBACK_WORDS = 10 };

static uint64_t osRandomClockNanos(clockid_t clock) {
    struct timespec ts;
    if (clock_gettime(clock, &ts) != 0) return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void osRandomCollectMaterial(unsigned char material[FALLBACK_WORDS * 8]) {
    /* 32 bits: a lock-free atomic everywhere, including ARMv6 (which has no
     * 64-bit atomics without libatomic). Wrapping after 2^32 calls is harmless
     * since the clocks are mixed in too. */
    static uint32_t callCounter;
    static const char dataAnchor = 0;
    unsigned char stackAnchor = 0;
    uint64_t words[FALLBACK_WORDS] = {
        __atomic_add_fetch(&callCounter, 1, __ATOMIC_RELAXED),
        osRandomClockNanos(CLOCK_REALTIME),
        osRandomClockNanos(CLOCK_MONOTONIC),
        (uint64_t)getpid(),
        (uint64_t)getppid(),
        (uint64_t)(uintptr_t)&stackAnchor,           /* stack ASLR */
        (uint64_t)(uintptr_t)&dataAnchor,            /* executable ASLR */
        (uint64_t)(uintptr_t)&osRandomCollectMaterial,
        (uint64_t)(uintptr_t)&errno,                 /* C library / TLS ASLR */
        osRandomClockNanos(CLOCK_MONOTONIC),         /* jitter of the above */
    };
    for (int i = 0; i < FALLBACK_WORDS; i++) store64le(material + i * 8, words[i]);
}

static void osRandomDeriveKey(uint8_t key[SIPHASH_KEY_LEN]) {
    static const uint8_t domainLow[SIPHASH_KEY_LEN] = "osrandom-key-lo";
    static const uint8_t domainHigh[SIPHASH_KEY_LEN] = "osrandom-key-hi";
    unsigned char material[FALLBACK_WORDS * 8];
    osRandomCollectMaterial(material);
    store64le(key, siphash_cd(material, sizeof material, domainLow, 2, 4));
    store64le(key + 8, siphash_cd(material, sizeof material, domainHigh, 2, 4));
}

void osRandomBytesFallback(unsigned char *buf, size_t len) {
    uint8_t key[SIPHASH_KEY_LEN];
    osRandomDeriveKey(key);
    for (uint64_t block = 0; len > 0; block++) {
        unsigned char counter[8], out[8];
        store64le(counter, block);
        store64le(out, siphash_cd(counter, sizeof counter, key, 2, 4));
        size_t n = len < sizeof out ? len : sizeof out;
        memcpy(buf, out, n);
        buf += n;
        len -= n;
    }
}

/* ---- the server's entry point ----------------------------------------- */

int osRandomBytes(unsigned char *buf, size_t len) {
    if (len == 0) return 0;
    if (osRandomBytesGetrandom(buf, len) == 0) return 0;
    if (osRandomBytesFromDevice(buf, len, "/dev/urandom") == 0) return 0;
    osRandomBytesFallback(buf, len);
    return -1;
}
