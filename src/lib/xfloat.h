/* xfloat.h -- the x87 80-bit extended float, in software, for every CPU.
 *
 * Why: INCRBYFLOAT (and HINCRBYFLOAT) on the reference server compute in C
 * `long double` and print with "%.17Lf". `long double` is 80-bit x87
 * extended on x86, plain double on 32-bit ARM and IEEE quad on aarch64,
 * SPARC64 and s390x, so the same command answers differently per CPU
 * (1.23 prints as "1.22999999999999998" with a 64-bit double). This module
 * reproduces the x86_64 answer bit for bit everywhere:
 *
 *   xfloatParse    decimal (or hex) text -> extended, correctly rounded as
 *                  glibc's strtold on x86_64, accepting exactly what
 *                  string2ld (util.h) accepts there;
 *   xfloatAdd      extended + extended as the x87 FPU in its default
 *                  64-bit precision, round to nearest even, overflow -> inf;
 *   xfloatFormat   exactly glibc's printf("%.17Lf") / ("%.17Lg") of the
 *                  value, plus the reply form INCRBYFLOAT uses.
 *
 * A value is the x87 memory format taken apart: a sign, the 15-bit biased
 * exponent and the 64-bit significand with its explicit integer bit. Finite
 * nonzero values are  mant * 2^(max(exp,1) - 16446): exp 1..0x7ffe with bit
 * 63 of mant set are normal, exp 0 is zero or subnormal, exp 0x7fff with
 * mant 1<<63 is infinity and anything else there is NaN. Only integer
 * arithmetic is used, so every target computes the same bits.
 */
#ifndef REDIS_XFLOAT_H
#define REDIS_XFLOAT_H

#include <stddef.h>
#include <stdint.h>

typedef struct xfloat {
    uint64_t mant; /* significand, explicit integer bit (bit 63) when normal */
    uint16_t exp;  /* biased exponent, 0 .. 0x7fff */
    uint8_t neg;   /* 1 if the sign bit is set (also for -0) */
} xfloat;

#define XFLOAT_EXP_BIAS 16383
#define XFLOAT_EXP_SPECIAL 0x7fff /* exponent of infinities and NaNs */

/* Buffer size that holds any xfloatFormat() result (the largest finite value
 * has 4933 integer digits) and one more than the longest input xfloatParse
 * accepts. Equal to MAX_LONG_DOUBLE_CHARS in util.h. */
#define XFLOAT_MAX_CHARS (5 * 1024)

typedef enum {
    XFLOAT_FMT_FIXED17, /* printf("%.17Lf") */
    XFLOAT_FMT_HUMAN,   /* "%.17Lf", trailing zeros and '.' dropped, "-0" -> "0":
                           the INCRBYFLOAT reply (util.h LD_STR_HUMAN) */
    XFLOAT_FMT_AUTO     /* printf("%.17Lg") (util.h LD_STR_AUTO) */
} xfloat_format;

/* Parses all of s[0..len) ("1.5", "-.5e3", "+1", "0x1p3", "inf", "-Infinity"
 * ...). A yes/no answer, not a status code: returns 1 and sets *out (if not
 * NULL) when the text is a number; returns 0 for text
 * strtold would not consume entirely, a leading space, NaN, len 0 or
 * len >= XFLOAT_MAX_CHARS, and for finite text that overflows to infinity or
 * underflows to zero (a subnormal result is accepted). */
int xfloatParse(const char *s, size_t len, xfloat *out);

/* The correctly rounded sum; inf + -inf is NaN, x + -x is +0. */
xfloat xfloatAdd(xfloat a, xfloat b);

/* The exact value of v (every long long is representable). */
xfloat xfloatFromLongLong(long long v);

/* Writes v as the format asks, NUL-terminated, and returns the length; or
 * returns 0 (leaving an empty string when len > 0) if buf is too small.
 * Infinities and NaN are written "inf", "-inf" and "nan" in every format. */
int xfloatFormat(char *buf, size_t len, xfloat v, xfloat_format fmt);

int xfloatIsNan(xfloat v);
int xfloatIsInf(xfloat v);
int xfloatIsFinite(xfloat v);
int xfloatIsZero(xfloat v);

#endif /* REDIS_XFLOAT_H */
