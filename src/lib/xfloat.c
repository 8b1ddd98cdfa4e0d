/* xfloat.c -- software x87 80-bit extended floats (see xfloat.h).
 *
 * Design decisions:
 *  - Exactness over speed. Every conversion works on the exact value with a
 *    small fixed-capacity bignum (32-bit limbs, 64-bit intermediate
 *    products), so the results are the correctly rounded ones glibc and the
 *    x87 produce, with no table of powers and no floating point at all.
 *    Typical INCRBYFLOAT operands need a few limbs; the extreme ones
 *    (1e4932, subnormals, 5000-digit inputs) a thousand, still well under a
 *    millisecond.
 *  - One rounding routine (xf_round) turns "integer m times 2^e, plus maybe
 *    a little more" into an extended value: subnormals keep the bits down to
 *    2^-16445, ties go to even, overflow gives infinity. Parsing and adding
 *    both end there, so there is one place that has to be right.
 *  - Decimal parsing: value = D * 10^E. For E >= 0 the integer D*10^E is
 *    exact; for E < 0 a quotient of 66 or 67 bits of D*2^s / 10^-E plus
 *    "remainder is nonzero" carries everything rounding needs. Inputs too
 *    large or too small for any extended value are refused before any big
 *    power is built, which bounds the bignum size (see XF_BN_LIMBS).
 *  - Formatting: "%.17Lf" is round(|v| * 10^17) printed with a decimal
 *    point, "%.17Lg" is round(|v| * 10^(16-X)) for the decimal exponent X,
 *    both rounding half to even on the exact value as glibc does.
 *  - Addition aligns both significands exactly; an operand more than 128
 *    bits below the other is replaced by a single bit 128 bits below, which
 *    is still nonzero and still smaller than an eighth of the result's last
 *    place, so it rounds the same way as the true operand.
 * The bignum is private to this file; capacity overruns are bugs and are
 * asserted.
 */
#include "xfloat.h"

#include "libassert.h"
#include <string.h>

/* ========================================================================
 * Constants of the format
 * ======================================================================== */

#define XF_TOP_BIT ((uint64_t)1 << 63)
#define XF_QNAN_MANT ((uint64_t)3 << 62)  /* the x87 default NaN's significand */
#define XF_LSB_MIN (-16445)                /* weight of a subnormal's last bit */
#define XF_TOP_MAX 16383                   /* exponent of the largest binade */
#define XF_LSB_TO_BIASED 16446             /* biased exp = last-bit weight + this */

/* Decimal-exponent bounds beyond which a D*10^E (D of nd digits) surely
 * overflows (>= 1e4933 > max 1.19e4932) or underflows to zero
 * (< 1e-4953 < 2^-16446, half the smallest subnormal). */
#define XF_DEC_OVERFLOW 4933
#define XF_DEC_UNDERFLOW (-4953)

/* ========================================================================
 * Bignum: unsigned, little-endian array of 32-bit limbs, no leading zero
 * limb (len 0 is zero).
 *
 * Largest need: parsing a 5119-digit input with E = -(5119 + 4952):
 * 10^10071 is 33456 bits, plus the 67-bit quotient headroom.
 * ======================================================================== */

#define XF_BN_LIMBS 1100

typedef struct {
    uint32_t len;
    uint32_t w[XF_BN_LIMBS];
} xf_bn;

static void bn_trim(xf_bn *a) {
    while (a->len > 0 && a->w[a->len - 1] == 0) a->len--;
}

static void bn_set_u64(xf_bn *a, uint64_t v) {
    a->w[0] = (uint32_t)v;
    a->w[1] = (uint32_t)(v >> 32);
    a->len = 2;
    bn_trim(a);
}

static void bn_copy(xf_bn *dst, const xf_bn *src) {
    dst->len = src->len;
    memcpy(dst->w, src->w, src->len * sizeof src->w[0]);
}

static uint32_t bn_limb(const xf_bn *a, uint64_t i) {
    return i < a->len ? a->w[i] : 0;
}

static uint32_t bn_bitlen(const xf_bn *a) {
    if (a->len == 0) return 0;
    return (a->len - 1) * 32 + (32 - (uint32_t)__builtin_clz(a->w[a->len - 1]));
}

static int bn_bit(const xf_bn *a, uint64_t pos) {
    return (bn_limb(a, pos / 32) >> (pos % 32)) & 1;
}

/* Is any bit below position pos set? */
static int bn_any_below(const xf_bn *a, uint64_t pos) {
    uint64_t whole = pos / 32;
    for (uint64_t i = 0; i < whole && i < a->len; i++)
        if (a->w[i]) return 1;
    return (bn_limb(a, whole) & ((1u << (pos % 32)) - 1)) != 0;
}

/* The 64 bits starting at position pos (bits past the top read as 0). */
static uint64_t bn_bits64(const xf_bn *a, uint64_t pos) {
    uint64_t q = pos / 32;
    unsigned r = (unsigned)(pos % 32);
    uint64_t lo = bn_limb(a, q) | (uint64_t)bn_limb(a, q + 1) << 32;
    uint64_t hi = bn_limb(a, q + 2);
    return r ? (lo >> r) | (hi << (64 - r)) : lo;
}

/* a = a * m + add */
static void bn_mul_add_small(xf_bn *a, uint32_t m, uint32_t add) {
    uint64_t carry = add;
    for (uint32_t i = 0; i < a->len; i++) {
        uint64_t t = (uint64_t)a->w[i] * m + carry;
        a->w[i] = (uint32_t)t;
        carry = t >> 32;
    }
    if (carry) {
        libAssert(a->len < XF_BN_LIMBS);
        a->w[a->len++] = (uint32_t)carry;
    }
}

static const uint32_t xf_pow10_u32[10] = {
    1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000,
};

static void bn_mul_pow10(xf_bn *a, uint64_t n) {
    for (; n >= 9 && a->len > 0; n -= 9) bn_mul_add_small(a, 1000000000, 0);
    if (n % 9) bn_mul_add_small(a, xf_pow10_u32[n % 9], 0);
}

static void bn_shl(xf_bn *a, uint64_t bits) {
    if (a->len == 0 || bits == 0) return;
    uint32_t limbs = (uint32_t)(bits / 32), r = (uint32_t)(bits % 32), n = a->len;
    libAssert(bits / 32 + n + 1 <= XF_BN_LIMBS);
    a->w[n + limbs] = 0;
    for (uint32_t i = n; i-- > 0;) {
        uint32_t v = a->w[i];
        if (r) {
            a->w[i + limbs + 1] |= v >> (32 - r);
            a->w[i + limbs] = v << r;
        } else {
            a->w[i + limbs] = v;
        }
    }
    memset(a->w, 0, limbs * sizeof a->w[0]);
    a->len = n + limbs + 1;
    bn_trim(a);
}

static void bn_shr(xf_bn *a, uint64_t bits) {
    if (bits / 32 >= a->len) {
        a->len = 0;
        return;
    }
    uint32_t limbs = (uint32_t)(bits / 32), r = (uint32_t)(bits % 32);
    uint32_t n = a->len - limbs;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t lo = a->w[i + limbs] >> r;
        if (r && i + limbs + 1 < a->len) lo |= a->w[i + limbs + 1] << (32 - r);
        a->w[i] = lo;
    }
    a->len = n;
    bn_trim(a);
}

static int bn_cmp(const xf_bn *a, const xf_bn *b) {
    if (a->len != b->len) return a->len < b->len ? -1 : 1;
    for (uint32_t i = a->len; i-- > 0;)
        if (a->w[i] != b->w[i]) return a->w[i] < b->w[i] ? -1 : 1;
    return 0;
}

/* a -= b, requires a >= b */
static void bn_sub(xf_bn *a, const xf_bn *b) {
    uint64_t borrow = 0;
    for (uint32_t i = 0; i < a->len; i++) {
        uint64_t t = (uint64_t)a->w[i] - bn_limb(b, i) - borrow;
        a->w[i] = (uint32_t)t;
        borrow = (t >> 32) & 1;
    }
    bn_trim(a);
}

static void bn_add(xf_bn *a, const xf_bn *b) {
    uint32_t n = a->len > b->len ? a->len : b->len;
    uint64_t carry = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t t = (uint64_t)bn_limb(a, i) + bn_limb(b, i) + carry;
        a->w[i] = (uint32_t)t;
        carry = t >> 32;
    }
    a->len = n;
    if (carry) {
        libAssert(n < XF_BN_LIMBS);
        a->w[a->len++] = (uint32_t)carry;
    }
}

/* a /= d, returns the remainder */
static uint32_t bn_divmod_small(xf_bn *a, uint32_t d) {
    uint64_t rem = 0;
    for (uint32_t i = a->len; i-- > 0;) {
        uint64_t cur = rem << 32 | a->w[i];
        a->w[i] = (uint32_t)(cur / d);
        rem = cur % d;
    }
    bn_trim(a);
    return (uint32_t)rem;
}

/* q = num / den and num becomes the remainder; den must not be zero. One
 * compare-and-subtract per quotient bit: meant for quotients of a few dozen
 * bits, which is all this file needs. */
static void bn_divmod(xf_bn *num, const xf_bn *den, xf_bn *q) {
    uint32_t nbits = bn_bitlen(num), dbits = bn_bitlen(den);
    xf_bn shifted;

    q->len = 0;
    if (nbits < dbits) return;
    uint32_t k = nbits - dbits;
    q->len = k / 32 + 1;
    memset(q->w, 0, q->len * sizeof q->w[0]);
    bn_copy(&shifted, den);
    bn_shl(&shifted, k);
    for (uint32_t i = k + 1; i-- > 0;) {
        if (bn_cmp(num, &shifted) >= 0) {
            bn_sub(num, &shifted);
            q->w[i / 32] |= 1u << (i % 32);
        }
        bn_shr(&shifted, 1);
    }
    bn_trim(q);
}

/* a = round(a / 2^bits), ties to even */
static void bn_shr_round(xf_bn *a, uint64_t bits) {
    if (bits == 0) return;
    int half = bn_bit(a, bits - 1);
    int rest = bn_any_below(a, bits - 1);
    bn_shr(a, bits);
    if (half && (rest || (bn_limb(a, 0) & 1))) bn_mul_add_small(a, 1, 1);
}

/* ========================================================================
 * Values and rounding
 * ======================================================================== */

static xfloat xf_make(int neg, uint16_t exp, uint64_t mant) {
    xfloat v;
    v.mant = mant;
    v.exp = exp;
    v.neg = (uint8_t)(neg != 0);
    return v;
}

static xfloat xf_inf(int neg) { return xf_make(neg, XFLOAT_EXP_SPECIAL, XF_TOP_BIT); }
static xfloat xf_zero(int neg) { return xf_make(neg, 0, 0); }

int xfloatIsNan(xfloat v) { return v.exp == XFLOAT_EXP_SPECIAL && v.mant != XF_TOP_BIT; }
int xfloatIsInf(xfloat v) { return v.exp == XFLOAT_EXP_SPECIAL && v.mant == XF_TOP_BIT; }
int xfloatIsFinite(xfloat v) { return v.exp != XFLOAT_EXP_SPECIAL; }
int xfloatIsZero(xfloat v) { return v.exp == 0 && v.mant == 0; }

/* Weight of the last significand bit of a finite value: v = mant * 2^this. */
static int32_t xf_lsb_exp(xfloat v) {
    return (v.exp ? (int32_t)v.exp : 1) - XF_LSB_TO_BIASED;
}

/* The extended value nearest to (m + f) * 2^e, where f is 0 if !sticky and
 * some fraction strictly between 0 and 1 otherwise; ties to even. */
static xfloat xf_round(const xf_bn *m, int64_t e, int sticky, int neg) {
    uint32_t len = bn_bitlen(m);
    if (len == 0) return xf_zero(neg);

    int64_t top = (int64_t)len - 1 + e; /* 2^top <= value < 2^(top+1) */
    if (top > XF_TOP_MAX) return xf_inf(neg);
    if (top < XF_LSB_MIN - 2) return xf_zero(neg); /* below half the smallest subnormal */

    int64_t lsb = top - 63 < XF_LSB_MIN ? XF_LSB_MIN : top - 63;
    int64_t drop = lsb - e; /* low bits of m that do not fit */
    uint64_t mant;
    if (drop <= 0) {
        mant = bn_bits64(m, 0) << -drop;
    } else {
        int half = bn_bit(m, (uint64_t)drop - 1);
        int rest = sticky || bn_any_below(m, (uint64_t)drop - 1);
        mant = bn_bits64(m, (uint64_t)drop);
        if (half && (rest || (mant & 1))) {
            if (++mant == 0) {
                mant = XF_TOP_BIT;
                lsb++;
            }
        }
    }
    if (!(mant & XF_TOP_BIT)) return xf_make(neg, 0, mant); /* subnormal or 0 */
    if (lsb + XF_LSB_TO_BIASED >= XFLOAT_EXP_SPECIAL) return xf_inf(neg);
    return xf_make(neg, (uint16_t)(lsb + XF_LSB_TO_BIASED), mant);
}

xfloat xfloatFromLongLong(long long v) {
    uint64_t mag = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    if (mag == 0) return xf_zero(0);
    int shift = __builtin_clzll(mag);
    return xf_make(v < 0, (uint16_t)(XFLOAT_EXP_BIAS + 63 - shift), mag << shift);
}

/* ========================================================================
 * Addition
 * ======================================================================== */

/* Largest alignment shift kept exact (see the file comment). */
#define XF_ADD_MAX_SHIFT 128

static xfloat xf_add_specials(xfloat a, xfloat b) {
    if (xfloatIsNan(a)) return a;
    if (xfloatIsNan(b)) return b;
    if (xfloatIsInf(a) && xfloatIsInf(b) && a.neg != b.neg)
        return xf_make(1, XFLOAT_EXP_SPECIAL, XF_QNAN_MANT);
    return xfloatIsInf(a) ? a : b;
}

xfloat xfloatAdd(xfloat a, xfloat b) {
    if (!xfloatIsFinite(a) || !xfloatIsFinite(b)) return xf_add_specials(a, b);
    if (xfloatIsZero(a) && xfloatIsZero(b)) return xf_zero(a.neg && b.neg);
    if (xfloatIsZero(a)) return b;
    if (xfloatIsZero(b)) return a;

    int32_t ea = xf_lsb_exp(a), eb = xf_lsb_exp(b);
    if (ea < eb) {
        xfloat t = a; a = b; b = t;
        int32_t te = ea; ea = eb; eb = te;
    }
    /* now a has the larger (or equal) last-bit weight */
    uint64_t bmant = b.mant;
    if (ea - eb > XF_ADD_MAX_SHIFT) {
        eb = ea - XF_ADD_MAX_SHIFT;
        bmant = 1;
    }
    xf_bn big, small;
    bn_set_u64(&big, a.mant);
    bn_shl(&big, (uint64_t)(ea - eb));
    bn_set_u64(&small, bmant);

    int neg = a.neg;
    if (a.neg == b.neg) {
        bn_add(&big, &small);
    } else {
        int c = bn_cmp(&big, &small);
        if (c == 0) return xf_zero(0); /* x + -x is +0 when rounding to nearest */
        if (c > 0) {
            bn_sub(&big, &small);
        } else {
            bn_sub(&small, &big);
            bn_copy(&big, &small);
            neg = b.neg;
        }
    }
    return xf_round(&big, eb, 0, neg);
}

/* ========================================================================
 * Parsing
 * ======================================================================== */

/* Exponents beyond this are saturated: any of them already over- or
 * underflows, and int64 arithmetic on them cannot wrap. */
#define XF_EXP_SATURATE 1000000000

static int xf_is_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
static int xf_is_digit(char c) { return c >= '0' && c <= '9'; }

static int xf_hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    c = (char)(c | 0x20);
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

static int xf_digit_value(char c, int hex) {
    return hex ? xf_hex_value(c) : (xf_is_digit(c) ? c - '0' : -1);
}

static int xf_match_nocase(const char *p, const char *end, const char *word) {
    size_t n = strlen(word);
    if ((size_t)(end - p) != n) return 0;
    for (size_t i = 0; i < n; i++)
        if ((char)(p[i] | 0x20) != word[i]) return 0;
    return 1;
}

/* [sign] digits, all of [p,end), saturated to +-XF_EXP_SATURATE. */
static int xf_parse_exponent(const char *p, const char *end, int64_t *out) {
    int neg = 0;
    int64_t v = 0;
    if (p < end && (*p == '+' || *p == '-')) neg = *p++ == '-';
    if (p == end) return 0;
    for (; p < end; p++) {
        if (!xf_is_digit(*p)) return 0;
        if (v < XF_EXP_SATURATE) v = v * 10 + (*p - '0');
    }
    if (v > XF_EXP_SATURATE) v = XF_EXP_SATURATE;
    *out = neg ? -v : v;
    return 1;
}

/* The digits of a significand: the text between p and the exponent marker
 * (or end), with at most one '.'. Value = digits[first..last] * base^scale,
 * where `scale` counts places below the last significant digit. */
typedef struct {
    const char *p, *end;  /* the significand text */
    int hex;
    int64_t first, last;  /* indexes (among digits) of the first and last nonzero digit */
    int64_t int_digits;   /* digits before the '.' */
    int any_nonzero;
} xf_digits;

/* Scans digits [. digits] from p; returns the end of the significand, or
 * NULL if it has no digit at all. */
static const char *xf_scan_digits(const char *p, const char *end, int hex, xf_digits *d) {
    int64_t idx = 0;
    int seen_point = 0;
    memset(d, 0, sizeof *d);
    d->p = p;
    d->hex = hex;
    for (; p < end; p++) {
        if (*p == '.' && !seen_point) {
            seen_point = 1;
            d->int_digits = idx;
            continue;
        }
        int v = xf_digit_value(*p, hex);
        if (v < 0) break;
        if (v != 0) {
            if (!d->any_nonzero) d->first = idx;
            d->any_nonzero = 1;
            d->last = idx;
        }
        idx++;
    }
    if (!seen_point) d->int_digits = idx;
    d->end = p;
    return idx > 0 ? p : NULL;
}

/* Loads the significant digits (first..last) into n. */
static void xf_digits_value(const xf_digits *d, xf_bn *n) {
    const uint32_t chunk_digits = d->hex ? 7 : 9; /* 16^7 and 10^9 fit 32 bits */
    const uint32_t base = d->hex ? 16 : 10;
    uint32_t acc = 0, acc_mul = 1, count = 0;
    int64_t idx = 0;
    n->len = 0;
    for (const char *p = d->p; p < d->end; p++) {
        if (*p == '.') continue;
        if (idx >= d->first && idx <= d->last) {
            acc = acc * base + (uint32_t)xf_digit_value(*p, d->hex);
            acc_mul *= base;
            if (++count == chunk_digits) {
                bn_mul_add_small(n, acc_mul, acc);
                acc = 0, acc_mul = 1, count = 0;
            }
        }
        idx++;
    }
    if (count) bn_mul_add_small(n, acc_mul, acc);
}

/* D * 10^e10, D of nd digits, e10 < 0: rounded via a 66-67 bit quotient. */
static xfloat xf_from_decimal_fraction(xf_bn *d, int64_t e10, int neg) {
    xf_bn pow, q;
    bn_set_u64(&pow, 1);
    bn_mul_pow10(&pow, (uint64_t)-e10);
    int64_t s = (int64_t)bn_bitlen(&pow) - (int64_t)bn_bitlen(d) + 66;
    if (s > 0) bn_shl(d, (uint64_t)s);
    else bn_shl(&pow, (uint64_t)-s);
    bn_divmod(d, &pow, &q); /* q >= 2^65, d is now the remainder */
    return xf_round(&q, -s, d->len != 0, neg);
}

static int xf_parse_number(const char *p, const char *end, int hex, int neg, xfloat *out) {
    xf_digits d;
    int64_t exp = 0;
    const char *q = xf_scan_digits(p, end, hex, &d);
    if (q == NULL) return 0;
    if (q < end) {
        if ((*q | 0x20) != (hex ? 'p' : 'e')) return 0;
        if (!xf_parse_exponent(q + 1, end, &exp)) return 0;
    }
    if (!d.any_nonzero) {
        *out = xf_zero(neg);
        return 1;
    }
    /* value = digits[first..last] * base^scale */
    int64_t scale = d.int_digits - 1 - d.last;
    xf_bn n;
    if (hex) {
        xf_digits_value(&d, &n);
        *out = xf_round(&n, exp + 4 * scale, 0, neg);
    } else {
        int64_t nd = d.last - d.first + 1, e10 = exp + scale;
        if (nd - 1 + e10 >= XF_DEC_OVERFLOW) return 0;
        if (nd + e10 <= XF_DEC_UNDERFLOW) return 0;
        xf_digits_value(&d, &n);
        if (e10 >= 0) {
            bn_mul_pow10(&n, (uint64_t)e10);
            *out = xf_round(&n, 0, 0, neg);
        } else {
            *out = xf_from_decimal_fraction(&n, e10, neg);
        }
    }
    /* A finite nonzero text that rounds to 0 or inf is refused. */
    return !xfloatIsZero(*out) && xfloatIsFinite(*out);
}

int xfloatParse(const char *s, size_t len, xfloat *out) {
    const char *p = s, *end = s + len;
    int neg = 0, ok;
    xfloat v;

    if (len == 0 || len >= XFLOAT_MAX_CHARS || xf_is_space(s[0])) return 0;
    if (*p == '+' || *p == '-') neg = *p++ == '-';
    if (xf_match_nocase(p, end, "inf") || xf_match_nocase(p, end, "infinity")) {
        v = xf_inf(neg);
        ok = 1;
    } else if (end - p >= 2 && p[0] == '0' && (p[1] | 0x20) == 'x') {
        /* "0x" with no hex digit after it is refused: strtold reads the "0"
         * and stops at the 'x', which is not the whole input. */
        ok = xf_parse_number(p + 2, end, 1, neg, &v);
    } else {
        ok = xf_parse_number(p, end, 0, neg, &v);
    }
    if (ok && out) *out = v;
    return ok;
}

/* ========================================================================
 * Formatting
 * ======================================================================== */

/* Digits of a value with up to 4933 integer and 17 fractional digits. */
#define XF_MAX_DIGITS 4960

/* Writes the decimal digits of n (destroyed) to out, most significant
 * first, and returns how many ("0" for zero). */
static size_t bn_to_decimal(xf_bn *n, char *out) {
    uint32_t chunks[XF_MAX_DIGITS / 9 + 1];
    size_t count = 0, len = 0;
    do {
        libAssert(count < sizeof chunks / sizeof chunks[0]);
        chunks[count++] = bn_divmod_small(n, 1000000000);
    } while (n->len > 0);
    /* The top chunk without leading zeros, the others with all nine digits. */
    uint32_t top = chunks[count - 1];
    char tmp[10];
    size_t t = 0;
    do {
        tmp[t++] = (char)('0' + top % 10);
        top /= 10;
    } while (top);
    while (t) out[len++] = tmp[--t];
    for (size_t i = count - 1; i-- > 0;) {
        uint32_t c = chunks[i];
        for (int k = 8; k >= 0; k--) {
            out[len + (size_t)k] = (char)('0' + c % 10);
            c /= 10;
        }
        len += 9;
    }
    return len;
}

static int xf_no_room(char *buf, size_t len) {
    if (len > 0) buf[0] = '\0';
    return 0;
}

static int xf_emit(char *buf, size_t len, const char *text, size_t n) {
    if (n >= len) return xf_no_room(buf, len);
    memcpy(buf, text, n);
    buf[n] = '\0';
    return (int)n;
}

/* round(|v| * 10^prec) into n, v finite. */
static void xf_scaled_fixed(xfloat v, unsigned prec, xf_bn *n) {
    int32_t e = xf_lsb_exp(v);
    bn_set_u64(n, v.mant);
    bn_mul_pow10(n, prec);
    if (e >= 0) bn_shl(n, (uint64_t)e);
    else bn_shr_round(n, (uint64_t)-e);
}

/* printf("%.<prec>Lf") of a finite v, prec <= 17. */
static int xf_format_fixed(char *buf, size_t len, xfloat v, unsigned prec) {
    char digits[XF_MAX_DIGITS], text[XF_MAX_DIGITS + 4];
    xf_bn n;
    size_t nd, pos = 0;

    xf_scaled_fixed(v, prec, &n);
    nd = bn_to_decimal(&n, digits);
    if (nd < prec + 1) { /* at least one integer digit: left-pad with zeros */
        size_t pad = prec + 1 - nd;
        memmove(digits + pad, digits, nd);
        memset(digits, '0', pad);
        nd += pad;
    }
    size_t int_digits = nd - prec;
    if (v.neg) text[pos++] = '-';
    memcpy(text + pos, digits, int_digits);
    pos += int_digits;
    if (prec > 0) text[pos++] = '.';
    memcpy(text + pos, digits + int_digits, prec);
    pos += prec;
    return xf_emit(buf, len, text, pos);
}

/* The INCRBYFLOAT reply: "%.17Lf" minus trailing fractional zeros and a
 * bare '.', and "-0" as "0". */
static int xf_format_human(char *buf, size_t len, xfloat v) {
    char text[XF_MAX_DIGITS + 4];
    int n = xf_format_fixed(text, sizeof text, v, 17);
    while (text[n - 1] == '0') n--; /* stops at the '.' at the latest */
    if (text[n - 1] == '.') n--;
    if (n == 2 && text[0] == '-' && text[1] == '0') return xf_emit(buf, len, "0", 1);
    return xf_emit(buf, len, text, (size_t)n);
}

static uint64_t xf_pow10_u64(unsigned n) {
    uint64_t p = 1;
    while (n--) p *= 10;
    return p;
}

/* floor(log10(2^t)), or one less near powers of ten (callers correct). */
static int64_t xf_log10_pow2_estimate(int64_t t) {
    int64_t x = t * 1233; /* 1233 / 4096 ~ log10(2), a little under */
    return x >= 0 ? x / 4096 : -((-x + 4095) / 4096);
}

/* round(|v| * 10^scale), for v finite nonzero and a result < 2^64. */
static uint64_t xf_scaled_round(xfloat v, int64_t scale) {
    int32_t e = xf_lsb_exp(v);
    xf_bn num, den, q;
    if (scale >= 0) {
        xf_scaled_fixed(v, (unsigned)scale, &num);
        libAssert(bn_bitlen(&num) <= 64);
        return bn_bits64(&num, 0);
    }
    bn_set_u64(&num, v.mant);
    bn_set_u64(&den, 1);
    bn_mul_pow10(&den, (uint64_t)-scale);
    if (e >= 0) bn_shl(&num, (uint64_t)e);
    else bn_shl(&den, (uint64_t)-e);
    bn_divmod(&num, &den, &q);
    libAssert(bn_bitlen(&q) <= 64);
    uint64_t r = bn_bits64(&q, 0);
    bn_shl(&num, 1); /* twice the remainder against the divisor */
    int c = bn_cmp(&num, &den);
    if (c > 0 || (c == 0 && (r & 1))) r++;
    return r;
}

/* The 17 significant digits of a finite nonzero v, rounded, and the decimal
 * exponent X of the first one, as "%.16Le" would print them. */
static uint64_t xf_significant17(xfloat v, int64_t *exp10) {
    const uint64_t lo = xf_pow10_u64(16), hi = xf_pow10_u64(17);
    int64_t top = (int64_t)(64 - __builtin_clzll(v.mant)) - 1 + xf_lsb_exp(v);
    int64_t x = xf_log10_pow2_estimate(top);
    uint64_t r = 0;
    for (int tries = 0; tries < 4; tries++) {
        r = xf_scaled_round(v, 16 - x);
        if (r >= hi) x++;
        else if (r < lo) x--;
        else break;
    }
    libAssert(r >= lo && r < hi);
    *exp10 = x;
    return r;
}

/* printf("%.17Lg") of a finite v. */
static int xf_format_general(char *buf, size_t len, xfloat v) {
    char digits[24], text[48];
    size_t pos = 0, nd;
    int64_t x;

    if (v.neg) text[pos++] = '-';
    if (xfloatIsZero(v)) {
        text[pos++] = '0';
        return xf_emit(buf, len, text, pos);
    }
    uint64_t sig = xf_significant17(v, &x);
    for (int i = 16; i >= 0; i--, sig /= 10) digits[i] = (char)('0' + sig % 10);
    for (nd = 17; nd > 1 && digits[nd - 1] == '0'; nd--) continue; /* %g drops them */

    if (x < -4 || x >= 17) { /* d.ddd e+XX */
        text[pos++] = digits[0];
        if (nd > 1) text[pos++] = '.';
        memcpy(text + pos, digits + 1, nd - 1);
        pos += nd - 1;
        text[pos++] = 'e';
        text[pos++] = x < 0 ? '-' : '+';
        uint64_t ax = (uint64_t)(x < 0 ? -x : x);
        char ed[8];
        size_t en = 0;
        do {
            ed[en++] = (char)('0' + ax % 10);
            ax /= 10;
        } while (ax);
        if (en < 2) ed[en++] = '0';
        while (en) text[pos++] = ed[--en];
    } else if (x >= 0) { /* ddd.ddd */
        size_t int_digits = (size_t)x + 1;
        memcpy(text + pos, digits, int_digits);
        pos += int_digits;
        if (nd > int_digits) {
            text[pos++] = '.';
            memcpy(text + pos, digits + int_digits, nd - int_digits);
            pos += nd - int_digits;
        }
    } else { /* 0.000ddd */
        text[pos++] = '0';
        text[pos++] = '.';
        for (int64_t i = -1; i > x; i--) text[pos++] = '0';
        memcpy(text + pos, digits, nd);
        pos += nd;
    }
    return xf_emit(buf, len, text, pos);
}

int xfloatFormat(char *buf, size_t len, xfloat v, xfloat_format fmt) {
    if (xfloatIsNan(v)) return xf_emit(buf, len, "nan", 3);
    if (xfloatIsInf(v)) return v.neg ? xf_emit(buf, len, "-inf", 4) : xf_emit(buf, len, "inf", 3);
    switch (fmt) {
    case XFLOAT_FMT_FIXED17:
        return xf_format_fixed(buf, len, v, 17);
    case XFLOAT_FMT_HUMAN:
        return xf_format_human(buf, len, v);
    case XFLOAT_FMT_AUTO:
        return xf_format_general(buf, len, v);
    }
    return xf_no_room(buf, len);
}
