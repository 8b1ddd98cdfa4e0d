/* util.h -- strict string <-> number conversions, glob-style matching and
 * ASCII case folding.
 *
 * These functions decide what the server accepts as a number, so they follow
 * the reference server's observable rules exactly (checked against redis 7.0
 * with INCRBY, INCRBYFLOAT, ZADD and CONFIG SET maxmemory):
 *
 *   integers   string2ll: [-]digits, no '+', no spaces, no leading zeros
 *              ("0" only), no "-0", no overflow, not empty.
 *   floats     string2ld / string2d: whatever strtold/strtod parse, provided
 *              it is the whole buffer (no leading space, no trailing bytes,
 *              no embedded NUL), not NaN, and not an overflow or an
 *              underflow to zero. So "+1", "01", ".5", "1e5", "0x10" and
 *              "inf" are accepted (INCRBYFLOAT then refuses the infinite
 *              result itself; ZADD stores it).
 *
 * Every parser takes an explicit length and never reads past it. Every
 * formatter takes the destination size, always NUL-terminates on success and
 * returns the length written, or 0 if the buffer is too small.
 *
 * The long double functions depend on the platform's `long double`: 80-bit
 * x87 on x86, plain double on 32-bit ARM, IEEE quad on SPARC64. INCRBYFLOAT
 * does not use them for that reason: it computes with src/lib/xfloat.c, a
 * software x87 extended format, so every port replies as x86_64 Redis does.
 */
#ifndef REDIS_UTIL_H
#define REDIS_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* Buffer size that holds any ld2string() result: a long double printed with
 * %Lf can need about 4950 digits. Also the longest input string2ld accepts
 * (inputs must be strictly shorter). */
#define MAX_LONG_DOUBLE_CHARS (5 * 1024)

/* Buffer size that holds any d2string() result ("%.17g" needs at most 24). */
#define MAX_D2STRING_CHARS 128

/* Bytes needed for any long long in decimal plus the NUL ("-9223372036854775808"). */
#define LONG_STR_SIZE 21

typedef enum {
    LD_STR_AUTO,  /* "%.17Lg": shortest form, may use an exponent */
    LD_STR_HUMAN, /* "%.17Lf" without trailing zeros: what INCRBYFLOAT replies */
    LD_STR_HEX    /* "%La": exact, for replication/AOF round trips */
} ld2string_mode;

/* ---- glob matching -------------------------------------------------------- */

/* A pattern needing more runs of '*' than this (a final run not counted)
 * matches nothing, as on the reference server ("*a" x 1000 can match,
 * "*a" x 1001 cannot). The matcher itself is iterative and O(p * s). */
#define STRINGMATCH_MAX_NESTED_STARS 1000

int stringmatchlen(const char *pattern, int patternLen, const char *string,
                   int stringLen, int nocase);
int stringmatch(const char *pattern, const char *string, int nocase);

/* ---- string -> number: return 1 and set *value on success, 0 otherwise ----- */
/* (A yes/no answer -- "is this text a number?" -- not a status code: hence
 * 1/0 rather than the libraries' 0/-1, and callers write if (!string2ll(...)).) */
int string2ll(const char *s, size_t slen, long long *value);
int string2l(const char *s, size_t slen, long *value);
int string2ull(const char *s, size_t slen, unsigned long long *value);
int string2ld(const char *s, size_t slen, long double *dp);
int string2d(const char *s, size_t slen, double *dp);

/* Memory sizes as written in the config: "100", "1b", "1k" (1000), "1kb"
 * (1024), "1m", "1mb", "1g", "1gb", units case-insensitive. On a bad string
 * or an overflow *err is set to 1 (if err is not NULL) and 0 is returned. */
unsigned long long memtoull(const char *p, int *err);

/* ---- number -> string: return the length, or 0 if dst is too small -------- */
uint32_t digits10(uint64_t v);
uint32_t sdigits10(int64_t v);
int ll2string(char *dst, size_t dstlen, long long svalue);
int ull2string(char *dst, size_t dstlen, unsigned long long value);
int ld2string(char *buf, size_t len, long double value, ld2string_mode mode);
int d2string(char *buf, size_t len, double value);
int fixedpoint_d2string(char *dst, size_t dstlen, double dvalue, int fractional_digits);

/* dst[0..len) = src[0..len) with ASCII A-Z in lower case and every other
 * byte as it is; dst may be src. */
void memLowerAscii(char *dst, const char *src, size_t len);

#endif /* REDIS_UTIL_H */
