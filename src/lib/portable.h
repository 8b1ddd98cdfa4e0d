/* portable.h -- the only place multi-byte values are loaded from or stored to
 * a byte buffer.
 *
 * THE RULE for the whole code base: a `char *`, `unsigned char *` or `void *`
 * is never cast to a pointer to a wider type and then dereferenced. Not for
 * "aligned by construction" buffers either: a distant change makes such
 * comments false, and 32-bit ARM and SPARC then die with SIGBUS. Every
 * 16/32/64-bit value in a byte buffer is reached through these helpers.
 *
 * Two families:
 *   loadN/storeN        host byte order, any alignment (in-memory encodings
 *                       that never leave the process, e.g. sds headers);
 *   loadNle/storeNle,   an explicit byte order, any alignment: everything that
 *   loadNbe/storeNbe    reaches disk or the wire names its order and uses these.
 *
 * All are memcpy-based: on CPUs with unaligned loads the compiler emits one
 * instruction; elsewhere it emits byte loads, which is exactly what a
 * strict-alignment CPU needs. The byte swap uses the compiler builtin where
 * there is one (plain shift-and-mask C otherwise) and is elided when the
 * host already has the requested order.
 *
 * Checked by: grep -nE '\*\s*\(\s*(const\s+)?u?int(16|32|64)_t\s*\*\s*\)' src/ tests/
 * which must find nothing outside this file.
 */
#ifndef REDIS_PORTABLE_H
#define REDIS_PORTABLE_H

#include <stdint.h>
#include <string.h>
#include "platform.h"

/* ---- host order, any alignment --------------------------------------- */
static inline uint16_t load16(const void *p) { uint16_t v; memcpy(&v, p, sizeof v); return v; }
static inline uint32_t load32(const void *p) { uint32_t v; memcpy(&v, p, sizeof v); return v; }
static inline uint64_t load64(const void *p) { uint64_t v; memcpy(&v, p, sizeof v); return v; }
static inline void store16(void *p, uint16_t v) { memcpy(p, &v, sizeof v); }
static inline void store32(void *p, uint32_t v) { memcpy(p, &v, sizeof v); }
static inline void store64(void *p, uint64_t v) { memcpy(p, &v, sizeof v); }

/* ---- byte swapping ----------------------------------------------------- */
/* Shift-and-mask swaps in plain C: what bswapN() uses on a compiler without
 * the __builtin_bswapN builtins (compilers recognise the pattern and still
 * emit one instruction). Always defined, so test_portable_fallback.c can
 * check them against the builtins on a compiler that has both. */
static inline uint16_t bswap16_portable(uint16_t v) { return (uint16_t)((v >> 8) | (v << 8)); }
static inline uint32_t bswap32_portable(uint32_t v) {
    v = ((v & 0x00FF00FFu) << 8) | ((v >> 8) & 0x00FF00FFu);
    return (v << 16) | (v >> 16);
}
static inline uint64_t bswap64_portable(uint64_t v) {
    v = ((v & 0x00FF00FF00FF00FFULL) << 8) | ((v >> 8) & 0x00FF00FF00FF00FFULL);
    v = ((v & 0x0000FFFF0000FFFFULL) << 16) | ((v >> 16) & 0x0000FFFF0000FFFFULL);
    return (v << 32) | (v >> 32);
}

/* The builtins when the compiler says it has them (__has_builtin: clang,
 * gcc >= 10) or is a gcc known to (4.8 added the last, bswap16); the plain C
 * versions otherwise, or when PORTABLE_FORCE_BSWAP_FALLBACK is defined (the
 * unit test of the fallback). PORTABLE_BSWAP_BUILTINS says which was taken. */
#if defined(PORTABLE_FORCE_BSWAP_FALLBACK)
#define PORTABLE_BSWAP_BUILTINS 0
#elif defined(__has_builtin)
#if __has_builtin(__builtin_bswap16) && __has_builtin(__builtin_bswap32) && __has_builtin(__builtin_bswap64)
#define PORTABLE_BSWAP_BUILTINS 1
#else
#define PORTABLE_BSWAP_BUILTINS 0
#endif
#elif defined(__GNUC__) && (__GNUC__ > 4 || (__GNUC__ == 4 && __GNUC_MINOR__ >= 8))
#define PORTABLE_BSWAP_BUILTINS 1
#else
#define PORTABLE_BSWAP_BUILTINS 0
#endif

#if PORTABLE_BSWAP_BUILTINS
static inline uint16_t bswap16(uint16_t v) { return __builtin_bswap16(v); }
static inline uint32_t bswap32(uint32_t v) { return __builtin_bswap32(v); }
static inline uint64_t bswap64(uint64_t v) { return __builtin_bswap64(v); }
#else
static inline uint16_t bswap16(uint16_t v) { return bswap16_portable(v); }
static inline uint32_t bswap32(uint32_t v) { return bswap32_portable(v); }
static inline uint64_t bswap64(uint64_t v) { return bswap64_portable(v); }
#endif

#if BYTE_ORDER_LITTLE
#define HOST_TO_LE_(bits, v) (v)
#define HOST_TO_BE_(bits, v) bswap##bits(v)
#else
#define HOST_TO_LE_(bits, v) bswap##bits(v)
#define HOST_TO_BE_(bits, v) (v)
#endif

/* ---- explicit little-endian ------------------------------------------ */
static inline uint16_t load16le(const void *p) { return HOST_TO_LE_(16, load16(p)); }
static inline uint32_t load32le(const void *p) { return HOST_TO_LE_(32, load32(p)); }
static inline uint64_t load64le(const void *p) { return HOST_TO_LE_(64, load64(p)); }
static inline void store16le(void *p, uint16_t v) { store16(p, HOST_TO_LE_(16, v)); }
static inline void store32le(void *p, uint32_t v) { store32(p, HOST_TO_LE_(32, v)); }
static inline void store64le(void *p, uint64_t v) { store64(p, HOST_TO_LE_(64, v)); }

/* ---- explicit big-endian --------------------------------------------- */
static inline uint16_t load16be(const void *p) { return HOST_TO_BE_(16, load16(p)); }
static inline uint32_t load32be(const void *p) { return HOST_TO_BE_(32, load32(p)); }
static inline uint64_t load64be(const void *p) { return HOST_TO_BE_(64, load64(p)); }
static inline void store16be(void *p, uint16_t v) { store16(p, HOST_TO_BE_(16, v)); }
static inline void store32be(void *p, uint32_t v) { store32(p, HOST_TO_BE_(32, v)); }
static inline void store64be(void *p, uint64_t v) { store64(p, HOST_TO_BE_(64, v)); }

/* ---- 24-bit little-endian (listpack/ziplist-style lengths) ------------ */
static inline uint32_t load24le(const void *p) {
    const unsigned char *b = (const unsigned char *)p;
    return (uint32_t)b[0] | ((uint32_t)b[1] << 8) | ((uint32_t)b[2] << 16);
}
static inline void store24le(void *p, uint32_t v) {
    unsigned char *b = (unsigned char *)p;
    b[0] = (unsigned char)v; b[1] = (unsigned char)(v >> 8); b[2] = (unsigned char)(v >> 16);
}

/* ---- alignment predicates for word-at-a-time loops --------------------
 * A loop that wants whole words goes: bytes until is_aligned(p, 8), then
 * aligned words (load through these helpers anyway), then the tail.
 * Under HAVE_UNALIGNED_WORD_ACCESS it may skip the head. */
static inline int is_aligned(const void *p, size_t alignment) {
    return ((uintptr_t)p & (alignment - 1)) == 0;
}
static inline size_t bytes_to_alignment(const void *p, size_t alignment) {
    return (alignment - ((uintptr_t)p & (alignment - 1))) & (alignment - 1);
}

#endif /* REDIS_PORTABLE_H */
