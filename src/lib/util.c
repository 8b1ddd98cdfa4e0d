/* util.c -- strict number parsing/formatting and glob matching (see util.h).
 *
 * Design decisions:
 *  - Integer parsing is hand-written (strtoll accepts spaces, '+', leading
 *    zeros and stops at garbage); float parsing delegates the hard part to
 *    strtold/strtod on a NUL-terminated copy and then applies the reference
 *    server's acceptance rules. The copy lives on the stack for short inputs
 *    and on the heap otherwise, so no input length reads past its buffer.
 *  - Formatters never depend on libc for inf/nan spelling (some libcs print
 *    "Inf" or "-nan"): those are written explicitly.
 *  - ull2string writes two digits per division, right to left, after sizing
 *    the output exactly with digits10().
 *  - Glob matching is iterative with one backtrack point (see the comment
 *    above stringmatchlen), so no pattern can recurse deeply or take
 *    exponential time.
 * All functions are reentrant and never log; only string2ld/string2d
 * allocate (inputs of 128 bytes or more, through zmalloc).
 *
 * Deliberate differences from the reference server, all on inputs no client
 * relies on: memtoull rejects "" / "kb" and overflow (the reference reads 0,
 * wraps or saturates); string2ull has no strtoull() fallback; glob classes
 * compare bytes unsigned on every CPU, fold case before ordering a range and
 * fold escaped class members too under nocase.
 */
#include "util.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "portable.h"
#include "zmalloc.h"

/* ========================================================================
 * Glob matching
 *
 * Tokens (the grammar the reference server uses for KEYS, SCAN MATCH,
 * PSUBSCRIBE, CONFIG GET ...):
 *   *       any run of bytes, possibly empty
 *   ?       any one byte
 *   [...]   one byte from the class, [^...] one byte not in it. Inside a
 *           class: \x is the byte x, a-z a range (z-a is the same range),
 *           ']' ends the class. "[]" is an empty class; a class never closed
 *           runs to the end of the pattern.
 *   \x      the byte x (a backslash ending the pattern is a plain backslash)
 *   other   itself; with nocase ASCII letters compare case-insensitively.
 * Bytes compare as unsigned values (0..255) on every platform.
 * As in the reference server, an empty string matches only an empty pattern
 * ("*" does not match "").
 *
 * Algorithm: every token but '*' consumes exactly one byte, so a pattern is a
 * list of fixed-length segments separated by stars, and placing each segment
 * at its leftmost possible position is never worse than any other placement.
 * So only the most recent star is remembered: on a mismatch that star absorbs
 * one more byte and the segment after it is retried. There is no recursion,
 * hence no stack to exhaust, and the work is bounded by
 * O(patternLen * stringLen) pattern-byte reads whatever the pattern
 * ("a*a*a*...b" against a long run of 'a' included).
 *
 * Star limit: the reference server recurses once per run of stars and gives
 * up (no match) beyond 1000 levels. Every match has to pass each run of
 * stars that is not at the very end of the pattern, exactly once and in
 * order, so counting runs as we enter them reproduces that: entering run
 * number STRINGMATCH_MAX_NESTED_STARS + 1 means no match.
 * ======================================================================== */

static unsigned char glob_fold(unsigned char c, int nocase) {
    return (nocase && c >= 'A' && c <= 'Z') ? (unsigned char)(c - 'A' + 'a') : c;
}

/* Tests byte c (already folded) against a class body p[0..plen) that follows
 * "[" or "[^". Sets *used to the bytes consumed, closing ']' included. */
static int glob_class_match(const unsigned char *p, int plen, unsigned char c,
                            int nocase, int *used) {
    int i = 0, match = 0;
    while (i < plen && p[i] != ']') {
        if (p[i] == '\\' && i + 1 < plen) {
            match |= glob_fold(p[i + 1], nocase) == c;
            i += 2;
        } else if (i + 2 < plen && p[i + 1] == '-') {
            unsigned char lo = glob_fold(p[i], nocase), hi = glob_fold(p[i + 2], nocase);
            match |= lo <= hi ? (c >= lo && c <= hi) : (c >= hi && c <= lo);
            i += 3;
        } else {
            match |= glob_fold(p[i], nocase) == c;
            i++;
        }
    }
    *used = i < plen ? i + 1 : i;
    return match;
}

/* Tests byte c against the one-byte token at p (never '*'); sets *used to
 * the token's length in the pattern. */
static int glob_token_match(const unsigned char *p, int plen, unsigned char c,
                            int nocase, int *used) {
    c = glob_fold(c, nocase);
    if (p[0] == '?') {
        *used = 1;
        return 1;
    }
    if (p[0] == '[') {
        int skip = (plen > 1 && p[1] == '^') ? 2 : 1, body;
        int match = glob_class_match(p + skip, plen - skip, c, nocase, &body);
        *used = skip + body;
        return skip == 2 ? !match : match;
    }
    if (p[0] == '\\' && plen >= 2) {
        *used = 2;
        return glob_fold(p[1], nocase) == c;
    }
    *used = 1;
    return glob_fold(p[0], nocase) == c;
}

int stringmatchlen(const char *pattern, int patternLen, const char *string,
                   int stringLen, int nocase) {
    const unsigned char *p = (const unsigned char *)pattern;
    const unsigned char *s = (const unsigned char *)string;
    int pi = 0, si = 0, star_pi = -1, star_si = 0, star_runs = 0, used;

    if (patternLen < 0 || stringLen < 0) return 0;
    if (stringLen == 0) return patternLen == 0;
    while (si < stringLen) {
        if (pi < patternLen && p[pi] == '*') {
            while (pi < patternLen && p[pi] == '*') pi++;
            if (pi == patternLen) return 1;
            if (++star_runs > STRINGMATCH_MAX_NESTED_STARS) return 0;
            star_pi = pi;
            star_si = si;
        } else if (pi < patternLen &&
                   glob_token_match(p + pi, patternLen - pi, s[si], nocase, &used)) {
            pi += used;
            si++;
        } else if (star_pi >= 0) {
            pi = star_pi;
            si = ++star_si;
        } else {
            return 0;
        }
    }
    while (pi < patternLen && p[pi] == '*') pi++;
    return pi == patternLen;
}

int stringmatch(const char *pattern, const char *string, int nocase) {
    size_t plen = strlen(pattern), slen = strlen(string);
    if (plen > INT_MAX || slen > INT_MAX) return 0;
    return stringmatchlen(pattern, (int)plen, string, (int)slen, nocase);
}

/* ========================================================================
 * String -> integer
 * ======================================================================== */

/* Accumulates slen decimal digits into *out; 0 on a non-digit or overflow. */
static int decimal_value(const char *s, size_t slen, unsigned long long *out) {
    unsigned long long v = 0;
    for (size_t i = 0; i < slen; i++) {
        unsigned d = (unsigned)(unsigned char)s[i] - '0';
        if (d > 9 || v > (ULLONG_MAX - d) / 10) return 0;
        v = v * 10 + d;
    }
    *out = v;
    return 1;
}

/* Unsigned canonical decimal: non-empty, no sign, no leading zero but "0". */
static int canonical_decimal(const char *s, size_t slen, unsigned long long *out) {
    if (slen == 0 || (s[0] == '0' && slen > 1)) return 0;
    return decimal_value(s, slen, out);
}

int string2ll(const char *s, size_t slen, long long *value) {
    size_t neg = (slen > 0 && s[0] == '-');
    unsigned long long mag;
    long long v;

    if (!canonical_decimal(s + neg, slen - neg, &mag)) return 0;
    if (neg) {
        if (mag == 0 || mag > (unsigned long long)LLONG_MAX + 1) return 0;
        v = (mag == (unsigned long long)LLONG_MAX + 1) ? LLONG_MIN : -(long long)mag;
    } else {
        if (mag > (unsigned long long)LLONG_MAX) return 0;
        v = (long long)mag;
    }
    if (value) *value = v;
    return 1;
}

int string2l(const char *s, size_t slen, long *value) {
    long long ll;
    if (!string2ll(s, slen, &ll) || ll < LONG_MIN || ll > LONG_MAX) return 0;
    if (value) *value = (long)ll;
    return 1;
}

/* Same canonical form as string2ll, without any sign. Note: the reference
 * server falls back to strtoull() (accepting "+1", " 1", "01") in some
 * callers such as stream IDs; those callers must do that themselves. */
int string2ull(const char *s, size_t slen, unsigned long long *value) {
    unsigned long long v;
    if (!canonical_decimal(s, slen, &v)) return 0;
    if (value) *value = v;
    return 1;
}

/* ========================================================================
 * String -> floating point
 * ======================================================================== */

/* A NUL-terminated copy of a length-delimited string for strtod & co. */
typedef struct {
    char small[128];
    char *str;
} cstr_copy;

static char *cstr_copy_make(cstr_copy *c, const char *s, size_t slen) {
    c->str = slen < sizeof c->small ? c->small : zmalloc(slen + 1);
    memcpy(c->str, s, slen);
    c->str[slen] = '\0';
    return c->str;
}

static void cstr_copy_free(cstr_copy *c) {
    if (c->str != c->small) zfree(c->str);
}

/* isspace() in the C locale, whatever the process locale is. */
static int is_c_space(char c) {
    return c == ' ' || (c >= '\t' && c <= '\r');
}

/* The reference acceptance rule once strto*d consumed `consumed` of slen
 * bytes: all consumed, not NaN, no overflow, no underflow to zero (a
 * denormal result is accepted). */
static int float_parse_ok(size_t consumed, size_t slen, int err, int is_nan,
                          int is_inf, int is_zero) {
    if (consumed != slen || is_nan) return 0;
    return !(err == ERANGE && (is_inf || is_zero));
}

int string2ld(const char *s, size_t slen, long double *dp) {
    cstr_copy copy;
    char *buf, *end;
    long double v;
    int ok;

    if (slen == 0 || slen >= MAX_LONG_DOUBLE_CHARS || is_c_space(s[0])) return 0;
    buf = cstr_copy_make(&copy, s, slen);
    errno = 0;
    v = strtold(buf, &end);
    ok = float_parse_ok((size_t)(end - buf), slen, errno, isnan(v), isinf(v), v == 0);
    cstr_copy_free(&copy);
    if (ok && dp) *dp = v;
    return ok;
}

int string2d(const char *s, size_t slen, double *dp) {
    cstr_copy copy;
    char *buf, *end;
    double v;
    int ok;

    if (slen == 0 || slen == SIZE_MAX || is_c_space(s[0])) return 0;
    buf = cstr_copy_make(&copy, s, slen);
    errno = 0;
    v = strtod(buf, &end);
    ok = float_parse_ok((size_t)(end - buf), slen, errno, isnan(v), isinf(v), v == 0);
    cstr_copy_free(&copy);
    if (ok && dp) *dp = v;
    return ok;
}

/* ========================================================================
 * Memory sizes
 * ======================================================================== */

static const struct {
    const char *unit;
    unsigned long long multiplier;
} memtoull_units[] = {
    {"", 1},          {"b", 1},
    {"k", 1000},      {"kb", 1024},
    {"m", 1000000},   {"mb", 1024 * 1024},
    {"g", 1000000000}, {"gb", 1024ULL * 1024 * 1024},
};

static int memtoull_multiplier(const char *unit, unsigned long long *mul) {
    for (size_t i = 0; i < sizeof memtoull_units / sizeof memtoull_units[0]; i++) {
        if (strcasecmp(unit, memtoull_units[i].unit) == 0) {
            *mul = memtoull_units[i].multiplier;
            return 1;
        }
    }
    return 0;
}

/* Unlike the reference server (which reads "" and "kb" as 0 and wraps or
 * saturates on overflow), a missing number and any overflow are errors. */
unsigned long long memtoull(const char *p, int *err) {
    size_t ndigits = strspn(p, "0123456789");
    unsigned long long value, mul;
    int ok = ndigits > 0 && memtoull_multiplier(p + ndigits, &mul) &&
             decimal_value(p, ndigits, &value) && value <= ULLONG_MAX / mul;

    if (err) *err = !ok;
    return ok ? value * mul : 0;
}

/* ========================================================================
 * Integer -> string
 * ======================================================================== */

uint32_t digits10(uint64_t v) {
    uint32_t n = 1;
    for (; v >= 10000; v /= 10000) n += 4;
    return n + (v >= 10) + (v >= 100) + (v >= 1000);
}

uint32_t sdigits10(int64_t v) {
    return v < 0 ? 1 + digits10(0 - (uint64_t)v) : digits10((uint64_t)v);
}

/* "00" "01" ... "99": entry n is at offset 2n. */
static const char digit_pairs[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

/* Empties dst (when it has room for anything) and reports "did not fit". */
static int no_room(char *dst, size_t dstlen) {
    if (dstlen > 0) dst[0] = '\0';
    return 0;
}

int ull2string(char *dst, size_t dstlen, unsigned long long value) {
    uint32_t len = digits10(value);
    char *p;

    if (len >= dstlen) return no_room(dst, dstlen);
    p = dst + len;
    *p = '\0';
    while (value >= 100) {
        unsigned pair = (unsigned)(value % 100) * 2;
        value /= 100;
        *--p = digit_pairs[pair + 1];
        *--p = digit_pairs[pair];
    }
    if (value >= 10) {
        *--p = digit_pairs[value * 2 + 1];
        *--p = digit_pairs[value * 2];
    } else {
        *--p = (char)('0' + value);
    }
    return (int)len;
}

int ll2string(char *dst, size_t dstlen, long long svalue) {
    int n;
    if (svalue >= 0) return ull2string(dst, dstlen, (unsigned long long)svalue);
    if (dstlen < 2) return no_room(dst, dstlen);
    n = ull2string(dst + 1, dstlen - 1, 0 - (unsigned long long)svalue);
    if (n == 0) return no_room(dst, dstlen);
    dst[0] = '-';
    return n + 1;
}

/* ========================================================================
 * Floating point -> string
 * ======================================================================== */

/* Turns an snprintf() result into our convention: the length, or 0 (and an
 * empty buffer) if it failed or was truncated. */
static int snprintf_fitted(int n, char *buf, size_t len) {
    if (n < 0 || (size_t)n >= len) return no_room(buf, len);
    return n;
}

static int copy_literal(char *buf, size_t len, const char *lit) {
    size_t n = strlen(lit);
    if (n >= len) return no_room(buf, len);
    memcpy(buf, lit, n + 1);
    return (int)n;
}

/* "%.17Lf" with trailing fractional zeros (and a bare '.') removed, and
 * "-0" written as "0": 3.0 -> "3", 10.50 -> "10.5". 17 digits keep most short
 * decimal inputs printing back as typed with 80- and 128-bit long doubles. */
static int ld2string_human(char *buf, size_t len, long double value) {
    int n = snprintf_fitted(snprintf(buf, len, "%.17Lf", value), buf, len);
    if (n == 0) return 0;
    while (buf[n - 1] == '0') n--; /* stops at the '.' at the latest */
    if (buf[n - 1] == '.') n--;
    if (n == 2 && buf[0] == '-' && buf[1] == '0') {
        buf[0] = '0';
        n = 1;
    }
    buf[n] = '\0';
    return n;
}

int ld2string(char *buf, size_t len, long double value, ld2string_mode mode) {
    if (isnan(value)) return copy_literal(buf, len, "nan");
    if (isinf(value)) return copy_literal(buf, len, value > 0 ? "inf" : "-inf");
    switch (mode) {
    case LD_STR_AUTO:
        return snprintf_fitted(snprintf(buf, len, "%.17Lg", value), buf, len);
    case LD_STR_HEX:
        return snprintf_fitted(snprintf(buf, len, "%La", value), buf, len);
    case LD_STR_HUMAN:
        return ld2string_human(buf, len, value);
    }
    return no_room(buf, len);
}

/* Scores: "inf", "-inf", "nan", "-0" spelled explicitly; integral values
 * below 2^52 in magnitude through the integer printer; the rest "%.17g",
 * which round-trips every double through strtod. */
int d2string(char *buf, size_t len, double value) {
    if (isnan(value)) return copy_literal(buf, len, "nan");
    if (isinf(value)) return copy_literal(buf, len, value > 0 ? "inf" : "-inf");
    if (value == 0) return copy_literal(buf, len, signbit(value) ? "-0" : "0");
    if (fabs(value) < 4503599627370496.0 && value == trunc(value))
        return ll2string(buf, len, (long long)value);
    return snprintf_fitted(snprintf(buf, len, "%.17g", value), buf, len);
}

/* Exactly fractional_digits (1..17) digits after the point, rounded; used for
 * GEO replies. Non-finite values are refused. */
int fixedpoint_d2string(char *dst, size_t dstlen, double dvalue, int fractional_digits) {
    if (fractional_digits < 1 || fractional_digits > 17 || !isfinite(dvalue))
        return no_room(dst, dstlen);
    return snprintf_fitted(snprintf(dst, dstlen, "%.*f", fractional_digits, dvalue), dst, dstlen);
}

/* Eight bytes at a time: in each byte,
 * bit 7 of (b & 0x7f) + (0x80 - 'A') says b >= 'A', of (b & 0x7f) +
 * (0x80 - 'Z' - 1) says b > 'Z' (no sum carries into the next byte), and
 * bytes >= 0x80 are left alone; the flag, moved to bit 5, is 0x20. */
void memLowerAscii(char *dst, const char *src, size_t len) {
    const uint64_t ones = 0x0101010101010101ULL, high = 0x8080808080808080ULL;
    size_t j = 0;
    for (; j + 8 <= len; j += 8) {
        uint64_t w = load64(src + j), low7 = w & ~high;
        uint64_t ge_a = (low7 + ones * (0x80 - 'A')) & high;
        uint64_t gt_z = (low7 + ones * (0x80 - 'Z' - 1)) & high;
        store64(dst + j, w | ((ge_a & ~gt_z & ~w) >> 2));
    }
    for (; j < len; j++) dst[j] = src[j] >= 'A' && src[j] <= 'Z' ? (char)(src[j] - 'A' + 'a') : src[j];
}
