/* test_xfloat.c -- the software x87 extended float (xfloat.c).
 *
 * What must hold: every target parses, adds and prints exactly as x86_64
 * hardware does (strtold, the x87 '+', glibc printf "%.17Lf"/"%.17Lg"),
 * and accepts exactly what util.c's string2ld accepts there.
 *
 * How it is proved:
 *  - On x86 and x86_64 the host's `long double` IS the reference. Every
 *    table case and more than a million random ones (decimal and hex
 *    strings of varied lengths and exponents, exact halfway points between
 *    adjacent values and their neighbours, random bit patterns including
 *    subnormals, sums with and without cancellation) are compared bit for
 *    bit and string for string against the hardware; mismatches are printed.
 *  - Everywhere, the table cases are checked against golden values recorded
 *    from the x86 hardware in xfloat_golden.inc, so armv7, sparc64 & co.
 *    prove they give x86's answers. On x86 the golden file is itself checked
 *    against the hardware, so a stale file fails.
 *
 * Regenerating the golden file (x86_64 only, after changing the tables):
 *   make MALLOC=libc && gcc -std=gnu11 -DXFLOAT_GOLDEN_GENERATOR -Isrc \
 *     -Itests/c tests/c/test_xfloat.c build/native-libc/libredis.a -lm \
 *     -o /tmp/xfloat-gen && /tmp/xfloat-gen > tests/c/xfloat_golden.inc
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "portable.h"
#ifndef XFLOAT_GOLDEN_GENERATOR
#include "test.h"
#endif
#include "util.h"
#include "xfloat.h"

/* The oracle is the x87 plus glibc's strtold and printf: musl (PORT=musl)
 * parses and prints long doubles by other rules, so it is no oracle. */
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GLIBC__)
#define XF_HAVE_X87 1
#else
#define XF_HAVE_X87 0
#endif

/* ---- the table cases -------------------------------------------------------- */

/* Parsed alone (acceptance, bits, the three formats). */
static const char *const xf_table_values[] = {
    /* everyday INCRBYFLOAT operands */
    "1.23", "0.1", "0.2", "0.3", "10.5", "10.6", "3.0", "-3", "1.5", "2.5", "-2.5",
    "123456789.123456789", "3.14159265358979323846264338327950288",
    "2.7182818284590452353602874713527", "00000123.4500000e0", "1.", ".5", "+.5", "0.1e1",
    "5.0e3", "-5.0E+3", "1e-10", "1e-5", "1e16", "1e17", "1e20", "1e30", "-1e-30",
    /* zeros */
    "0", "-0", "+0", "-0.0", "0e99999999999999999999", "-0.0000e-99999", "0x0p0", "-0x0",
    /* around the 17th fractional digit that %.17Lf rounds at */
    "1e-17", "5e-18", "-5e-18", "4.9999999999999999e-18", "0.000000000000000005",
    "0.000000000000000015", "0.000000000000000025", "0.999999999999999995",
    "9.999999999999999995", "99999999999999999.5", "0.30000000000000000001",
    "0.000003814697265625", "0.000001907348632812", "-0.0000019073486328125",
    /* integers near 2^53, 2^63, 2^64, 2^65: exact, rounded, halfway cases */
    "9007199254740993", "9223372036854775807", "9223372036854775808",
    "18446744073709551615", "18446744073709551616", "18446744073709551617",
    "18446744073709551618", "18446744073709551619", "18446744073709551621",
    "36893488147419103231", "36893488147419103233", "18446744073709551615.5",
    "-18446744073709551617.0000000000000000000000001", "12345678901234567890123456789",
    "340282366920938463463374607431768211455",
    /* double limits, which are ordinary extended values */
    "5e-324", "4.9406564584124654e-324", "2.2250738585072014e-308",
    "1.7976931348623157e308", "-1.7976931348623157e308", "1e308", "1e-320",
    /* extended limits: largest, overflow, smallest normal, subnormals, underflow */
    "1e400", "-1e400", "1e-400", "1e4932", "-1e4932", "1.18973149535723176502e+4932",
    "1.189731495357231765085759326628007e4932", "1.18973149535723176509e4932", "1e4933",
    "3.36210314311209350626e-4932", "3.3621031431120935062e-4932", "1e-4940", "123e-4950",
    "3.64519953188247460253e-4951", "3.6e-4951", "1.8225997659412373012e-4951",
    "1.8225997659412373013e-4951", "1.82259976594123730126e-4951", "1e-4951", "2e-4951",
    "6.5e-4951", "1e-4952", "1e-99999999999999999999", "1e99999999999999999999",
    "-1e-4951",
    /* hex floats */
    "0x10", "0x1p3", "0X1.8P1", "0x.8", "0x1.0000000000000001p0", "0x1.0000000000000003p0",
    "0x1.00000000000000008p0", "0x1.00000000000000018p0", "0xffffffffffffffff8p0",
    "0x1p16383", "0x1.fffffffffffffffep16383", "0x1.ffffffffffffffffp16383", "0x1p16384",
    "-0x1p-16445", "0x1p-16446", "0x1.8p-16446", "0x1p-16382", "0x0.fffffffffffffffep-16382",
    "-0X1P-1",
    /* infinities */
    "inf", "-inf", "+Infinity", "INF", "-InFiNiTy",
    /* refused: not a whole number, NaN, spaces */
    "nan", "NaN", "-nan", "nan(1)", "", " 1", "1 ", "\t1", "1e", "1e+", "1.5e-", ".", "-.",
    "e5", "0x", "0x.", "0xp1", "0x1p", "--1", "+-1", "1_0", "1,5", "abc", "infinit",
    "infinityy", "1.2.3", "1e5.5", "0x1e5p", "1d5", "0b1",
};

/* Summed as INCRBYFLOAT does: value + increment. */
static const char *const xf_table_sums[][2] = {
    {"0", "1.23"}, {"0.1", "0.2"}, {"10.5", "0.1"}, {"1e400", "1"}, {"1.5", "-3"},
    {"-0", "0"}, {"-0", "-0"}, {"0", "-0"}, {"5", "-5"}, {"1.23", "-1.23"}, {"3", "-0.1"},
    {"0.1", "-0.3"}, {"1.1", "2.2"}, {"0.1", "0.7"}, {"17179869184", "0.1"},
    {"123456789.123456789", "0.000000001"}, {"18446744073709551615", "1"},
    {"9223372036854775807", "1"}, {"1e17", "0.5"}, {"-1", "0.99999999999999999"},
    {"1e20", "-1e20"}, {"1e20", "1"}, {"1", "1e-20"}, {"1", "-1e-20"}, {"5e-324", "5e-324"},
    {"1e308", "1e308"}, {"1e-17", "0"}, {"-5e-18", "0"}, {"1e4932", "1e4932"},
    {"-1e4932", "-1e4932"}, {"1.18973149535723176502e4932", "1e4913"},
    {"1.18973149535723176502e4932", "-1e4913"}, {"1e-4950", "1e-4950"},
    {"3.64519953188247460253e-4951", "-3.64519953188247460253e-4951"},
    {"3.36210314311209350626e-4932", "-3.64519953188247460253e-4951"},
    {"1", "1e-4000"}, {"1", "-1e-4000"}, {"-1e4000", "1"}, {"inf", "1"}, {"inf", "-inf"},
    {"-inf", "-inf"}, {"0x1p64", "-0x1p-64"}, {"0x1p63", "-0x1p-1"}, {"0x1p63", "0x1p-1"},
    {"0x1p63", "0x1.8p-1"}, {"0x1p63", "0x1p0"}, {"0x1.fffffffffffffffep0", "0x1p-64"},
};

/* ---- helpers ---------------------------------------------------------------------- */

#define XF_TABLE_VALUES (sizeof xf_table_values / sizeof xf_table_values[0])
#define XF_TABLE_SUMS (sizeof xf_table_sums / sizeof xf_table_sums[0])

static xfloat xf_from_parts(uint16_t sign_exp, uint64_t mant) {
    xfloat v;
    v.mant = mant;
    v.exp = sign_exp & 0x7fff;
    v.neg = (uint8_t)(sign_exp >> 15);
    return v;
}

#if XF_HAVE_X87
static uint16_t xf_sign_exp(xfloat v) { return (uint16_t)(v.exp | (v.neg ? 0x8000 : 0)); }

/* The hardware value <-> xfloat, through the x87 memory layout (64-bit
 * little-endian significand, then 16 bits of sign and exponent). */
static __attribute__((unused)) long double xf_to_ld(xfloat v) {
    unsigned char b[sizeof(long double)];
    long double ld;
    memset(b, 0, sizeof b);
    store64le(b, v.mant);
    store16le(b + 8, xf_sign_exp(v));
    memcpy(&ld, b, sizeof ld);
    return ld;
}

static xfloat ld_to_xf(long double ld) {
    unsigned char b[sizeof(long double)];
    memcpy(b, &ld, sizeof ld);
    return xf_from_parts(load16le(b + 8), load64le(b));
}

/* The hardware's answers for one value, as the golden file records them. */
typedef struct {
    int ok;
    xfloat v;
    char fixed[XFLOAT_MAX_CHARS], human[XFLOAT_MAX_CHARS], autofmt[64];
} xf_hw_result;

static void xf_hw_format(long double ld, xf_hw_result *r) {
    r->v = ld_to_xf(ld);
    if (isnan(ld) || isinf(ld)) {
        /* util.c spells these itself; so does xfloatFormat */
        ld2string(r->fixed, sizeof r->fixed, ld, LD_STR_HUMAN);
    } else {
        snprintf(r->fixed, sizeof r->fixed, "%.17Lf", ld);
    }
    ld2string(r->human, sizeof r->human, ld, LD_STR_HUMAN);
    ld2string(r->autofmt, sizeof r->autofmt, ld, LD_STR_AUTO);
}

static void xf_hw_parse(const char *s, xf_hw_result *r) {
    long double ld = 0;
    r->ok = string2ld(s, strlen(s), &ld);
    xf_hw_format(r->ok ? ld : 0.0L, r);
}

static void xf_hw_sum(const char *a, const char *b, xf_hw_result *r) {
    long double x = 0, y = 0;
    r->ok = string2ld(a, strlen(a), &x) && string2ld(b, strlen(b), &y);
    xf_hw_format(x + y, r);
}
#endif

/* ---- the golden file generator (x86 only, see the top comment) -------------- */

#ifdef XFLOAT_GOLDEN_GENERATOR
#if !XF_HAVE_X87
#error "golden values must come from x86 hardware"
#endif
static void xf_print_c_string(const char *s) {
    putchar('"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') printf("\\%c", *s);
        else if ((unsigned char)*s < 32) printf("\\%03o", (unsigned char)*s);
        else putchar(*s);
    }
    putchar('"');
}

static void xf_print_result(const xf_hw_result *r) {
    printf("%d, 0x%04x, 0x%016llxULL, ", r->ok, xf_sign_exp(r->v), (unsigned long long)r->v.mant);
    xf_print_c_string(r->fixed);
    printf(", ");
    xf_print_c_string(r->human);
    printf(", ");
    xf_print_c_string(r->autofmt);
}

int main(void) {
    static xf_hw_result r;
    printf("/* xfloat_golden.inc -- x86_64 hardware answers for the table cases of\n"
           " * test_xfloat.c: strtold through string2ld, the x87 '+', glibc\n"
           " * printf \"%%.17Lf\" and util.c's ld2string. GENERATED by test_xfloat.c\n"
           " * built with -DXFLOAT_GOLDEN_GENERATOR on x86_64: do not edit by hand.\n"
           " * Fields: input(s), accepted, sign+exponent, significand, \"%%.17Lf\",\n"
           " * INCRBYFLOAT reply, \"%%.17Lg\". */\n");
    printf("static const xf_golden xf_golden_values[] = {\n");
    for (size_t i = 0; i < XF_TABLE_VALUES; i++) {
        xf_hw_parse(xf_table_values[i], &r);
        printf("    {");
        xf_print_c_string(xf_table_values[i]);
        printf(", NULL, ");
        xf_print_result(&r);
        printf("},\n");
    }
    printf("};\n\nstatic const xf_golden xf_golden_sums[] = {\n");
    for (size_t i = 0; i < XF_TABLE_SUMS; i++) {
        xf_hw_sum(xf_table_sums[i][0], xf_table_sums[i][1], &r);
        printf("    {");
        xf_print_c_string(xf_table_sums[i][0]);
        printf(", ");
        xf_print_c_string(xf_table_sums[i][1]);
        printf(", ");
        xf_print_result(&r);
        printf("},\n");
    }
    printf("};\n");
    return 0;
}
#else /* the tests */

typedef struct {
    const char *a, *b; /* b is NULL for a value, the increment for a sum */
    int ok;
    uint16_t sign_exp;
    uint64_t mant;
    const char *fixed, *human, *autofmt;
} xf_golden;

#include "xfloat_golden.inc"

static int xf_same_bits(xfloat a, xfloat b) {
    if (xfloatIsNan(a) && xfloatIsNan(b)) return 1;
    return a.mant == b.mant && a.exp == b.exp && a.neg == b.neg;
}

/* Parses like the server: the bytes of a NUL-free C string. */
static int xf_parse_cstr(const char *s, xfloat *v) {
    return xfloatParse(s, strlen(s), v);
}


#define XF_GOLDEN_VALUES (sizeof xf_golden_values / sizeof xf_golden_values[0])
#define XF_GOLDEN_SUMS (sizeof xf_golden_sums / sizeof xf_golden_sums[0])

/* Checks one computed result against a golden row; prints the row on failure. */
static void xf_check_golden(const xf_golden *g, int ok, xfloat v) {
    char fixed[XFLOAT_MAX_CHARS], human[XFLOAT_MAX_CHARS], autofmt[64];
    int failures = test_current_failures;
    CHECK_EQ_INT(ok, g->ok);
    if (ok && g->ok) {
        CHECK(xf_same_bits(v, xf_from_parts(g->sign_exp, g->mant)));
        CHECK(xfloatFormat(fixed, sizeof fixed, v, XFLOAT_FMT_FIXED17) > 0);
        CHECK(xfloatFormat(human, sizeof human, v, XFLOAT_FMT_HUMAN) > 0);
        CHECK(xfloatFormat(autofmt, sizeof autofmt, v, XFLOAT_FMT_AUTO) > 0);
        CHECK_EQ_STR(fixed, g->fixed);
        CHECK_EQ_STR(human, g->human);
        CHECK_EQ_STR(autofmt, g->autofmt);
    }
    if (test_current_failures != failures)
        printf("      case \"%s\"%s%s%s\n", g->a, g->b ? " + \"" : "", g->b ? g->b : "", g->b ? "\"" : "");
}

/* The tables and the golden file must describe the same cases. */
static void test_golden_matches_tables(void) {
    CHECK_EQ_INT(XF_GOLDEN_VALUES, XF_TABLE_VALUES);
    CHECK_EQ_INT(XF_GOLDEN_SUMS, XF_TABLE_SUMS);
    for (size_t i = 0; i < XF_GOLDEN_VALUES && i < XF_TABLE_VALUES; i++)
        CHECK_EQ_STR(xf_golden_values[i].a, xf_table_values[i]);
    for (size_t i = 0; i < XF_GOLDEN_SUMS && i < XF_TABLE_SUMS; i++) {
        CHECK_EQ_STR(xf_golden_sums[i].a, xf_table_sums[i][0]);
        CHECK_EQ_STR(xf_golden_sums[i].b, xf_table_sums[i][1]);
    }
}

static void test_golden_values(void) {
    for (size_t i = 0; i < XF_GOLDEN_VALUES; i++) {
        xfloat v = {0, 0, 0};
        int ok = xf_parse_cstr(xf_golden_values[i].a, &v);
        xf_check_golden(&xf_golden_values[i], ok, v);
    }
}

static void test_golden_sums(void) {
    for (size_t i = 0; i < XF_GOLDEN_SUMS; i++) {
        xfloat a = {0, 0, 0}, b = {0, 0, 0};
        int ok = xf_parse_cstr(xf_golden_sums[i].a, &a) && xf_parse_cstr(xf_golden_sums[i].b, &b);
        xf_check_golden(&xf_golden_sums[i], ok, xfloatAdd(a, b));
    }
}

/* Spot checks written out, so a reader sees the point without the file. */
static void test_incrbyfloat_examples(void) {
    static const struct { const char *a, *b, *reply; } cases[] = {
        {"0", "1.23", "1.23"}, {"0.1", "0.2", "0.3"}, {"10.5", "0.1", "10.6"},
        {"-0", "0", "0"}, {"1.5", "-3", "-1.5"}, {"5", "-5", "0"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        xfloat a, b;
        char buf[XFLOAT_MAX_CHARS];
        CHECK(xf_parse_cstr(cases[i].a, &a) && xf_parse_cstr(cases[i].b, &b));
        CHECK(xfloatFormat(buf, sizeof buf, xfloatAdd(a, b), XFLOAT_FMT_HUMAN) > 0);
        CHECK_EQ_STR(buf, cases[i].reply);
    }
}

static void test_special_values(void) {
    xfloat inf, minf, zero, mzero, one, nan;
    CHECK(xf_parse_cstr("inf", &inf) && xfloatIsInf(inf) && !inf.neg);
    CHECK(xf_parse_cstr("-inf", &minf) && xfloatIsInf(minf) && minf.neg);
    CHECK(xf_parse_cstr("0", &zero) && xfloatIsZero(zero) && !zero.neg);
    CHECK(xf_parse_cstr("-0", &mzero) && xfloatIsZero(mzero) && mzero.neg);
    CHECK(xf_parse_cstr("1", &one) && xfloatIsFinite(one) && !xfloatIsZero(one));
    nan = xfloatAdd(inf, minf);
    CHECK(xfloatIsNan(nan) && !xfloatIsFinite(nan) && !xfloatIsInf(nan));
    CHECK(xfloatIsNan(xfloatAdd(nan, one)) && xfloatIsNan(xfloatAdd(one, nan)));
    CHECK(xfloatIsInf(xfloatAdd(inf, one)) && xfloatIsInf(xfloatAdd(one, minf)));
    CHECK(xf_same_bits(xfloatAdd(mzero, mzero), mzero));
    CHECK(xf_same_bits(xfloatAdd(zero, mzero), zero));
    CHECK(xf_same_bits(xfloatAdd(mzero, one), one));

    char buf[8];
    CHECK_EQ_INT(xfloatFormat(buf, sizeof buf, nan, XFLOAT_FMT_HUMAN), 3);
    CHECK_EQ_STR(buf, "nan");
    CHECK_EQ_INT(xfloatFormat(buf, sizeof buf, minf, XFLOAT_FMT_AUTO), 4);
    CHECK_EQ_STR(buf, "-inf");
    CHECK_EQ_INT(xfloatFormat(buf, sizeof buf, inf, XFLOAT_FMT_FIXED17), 3);
    CHECK_EQ_STR(buf, "inf");
}

static void test_from_long_long(void) {
    static const long long values[] = {0, 1, -1, 10, -10, 1LL << 62, 123456789012345678LL,
                                       9223372036854775807LL, -9223372036854775807LL - 1};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        char text[32];
        xfloat parsed;
        snprintf(text, sizeof text, "%lld", values[i]);
        CHECK(xf_parse_cstr(text, &parsed));
        if (!CHECK(xf_same_bits(xfloatFromLongLong(values[i]), parsed))) printf("      %s\n", text);
        char back[64];
        CHECK(xfloatFormat(back, sizeof back, parsed, XFLOAT_FMT_HUMAN) > 0);
        CHECK_EQ_STR(back, text);
    }
}

/* The bytes passed are the input: no NUL needed, nothing read past len. */
static void test_parse_length(void) {
    xfloat v;
    char *buf = malloc(XFLOAT_MAX_CHARS + 1);
    xfloat three_halves;
    CHECK(xfloatParse("1.5xyz", 3, &v));
    CHECK(xf_parse_cstr("1.5", &three_halves) && xf_same_bits(v, three_halves));
    CHECK(!xfloatParse("1\0", 2, &v));
    CHECK(!xfloatParse("\0" "1", 2, &v));
    CHECK(!xfloatParse("1", 0, &v));
    CHECK(xfloatParse("12", 1, NULL));
    /* The longest accepted input is XFLOAT_MAX_CHARS-1 bytes, as string2ld. */
    CHECK_EQ_INT(XFLOAT_MAX_CHARS, MAX_LONG_DOUBLE_CHARS);
    buf[0] = '1';
    buf[1] = '.';
    memset(buf + 2, '0', XFLOAT_MAX_CHARS - 1);
    buf[XFLOAT_MAX_CHARS - 2] = '1';
    CHECK(xfloatParse(buf, XFLOAT_MAX_CHARS - 1, &v));
    CHECK(!xfloatParse(buf, XFLOAT_MAX_CHARS, &v));
    free(buf);
}

/* A buffer too small yields 0 and an empty string, never a truncation. */
static void test_format_buffer_sizes(void) {
    xfloat v;
    char buf[XFLOAT_MAX_CHARS];
    CHECK(xf_parse_cstr("1.25", &v));
    CHECK_EQ_INT(xfloatFormat(buf, 5, v, XFLOAT_FMT_HUMAN), 4);
    CHECK_EQ_STR(buf, "1.25");
    CHECK_EQ_INT(xfloatFormat(buf, 4, v, XFLOAT_FMT_HUMAN), 0);
    CHECK_EQ_STR(buf, "");
    CHECK_EQ_INT(xfloatFormat(buf, 0, v, XFLOAT_FMT_HUMAN), 0);
    CHECK_EQ_INT(xfloatFormat(buf, 19, v, XFLOAT_FMT_FIXED17), 0);
    CHECK_EQ_INT(xfloatFormat(buf, 20, v, XFLOAT_FMT_FIXED17), 19);
    CHECK_EQ_STR(buf, "1.25000000000000000");
    /* the largest value prints 4933 integer digits + '.' + 17 */
    CHECK(xf_parse_cstr("0x1.fffffffffffffffep16383", &v));
    CHECK_EQ_INT(xfloatFormat(buf, sizeof buf, v, XFLOAT_FMT_FIXED17), 4933 + 1 + 17);
    CHECK_EQ_INT(xfloatFormat(buf, sizeof buf, v, XFLOAT_FMT_HUMAN), 4933);
    CHECK(xfloatFormat(buf, 4933, v, XFLOAT_FMT_HUMAN) == 0 && buf[0] == '\0');
}

/* ---- x86: more than a million random cases against the hardware ------------ */

#if XF_HAVE_X87
static uint64_t xf_rng_below(uint64_t n) { return test_rand() % n; }

static long xf_random_count, xf_mismatch_count;

/* Rounds of a random comparison: all of them natively; one in 50 under an
 * emulator (tests/c/run-unit.sh sets UNIT_UNDER_EMULATOR). There the "x87"
 * is QEMU's software model, not the hardware this test takes as its oracle,
 * and a million cases took 217 s of the i386 lane under qemu-i386-static:
 * the emulated run is a smoke test of the same code, the native x86 run
 * the proof. The golden tables run whole everywhere. */
static int xf_rounds(int n) {
    static int divisor;
    if (divisor == 0) {
        const char *emulated = getenv("UNIT_UNDER_EMULATOR");
        divisor = emulated && strcmp(emulated, "yes") == 0 ? 50 : 1;
    }
    return n / divisor;
}

static void xf_report(const char *what, const char *a, const char *b, const char *got,
                      const char *want) {
    if (++xf_mismatch_count <= 20)
        printf("    MISMATCH %s: \"%s\"%s%s%s: got %s, hardware %s\n", what, a, b ? " + \"" : "",
               b ? b : "", b ? "\"" : "", got, want);
}

static void xf_describe(xfloat v, char *buf, size_t len) {
    snprintf(buf, len, "%04x:%016llx", xf_sign_exp(v), (unsigned long long)v.mant);
}

/* Compares the three formats of v with the hardware's. */
static void xf_compare_formats(xfloat v, const char *label) {
    static char want[XFLOAT_MAX_CHARS], got[XFLOAT_MAX_CHARS];
    long double ld = xf_to_ld(v);
    xf_random_count++;
    if (isnan(ld) || isinf(ld)) return;
    snprintf(want, sizeof want, "%.17Lf", ld);
    xfloatFormat(got, sizeof got, v, XFLOAT_FMT_FIXED17);
    if (strcmp(got, want) != 0) xf_report("%.17Lf", label, NULL, got, want);
    ld2string(want, sizeof want, ld, LD_STR_HUMAN);
    xfloatFormat(got, sizeof got, v, XFLOAT_FMT_HUMAN);
    if (strcmp(got, want) != 0) xf_report("human", label, NULL, got, want);
    ld2string(want, sizeof want, ld, LD_STR_AUTO);
    xfloatFormat(got, sizeof got, v, XFLOAT_FMT_AUTO);
    if (strcmp(got, want) != 0) xf_report("%.17Lg", label, NULL, got, want);
}

/* Compares acceptance and bits of one input with string2ld/strtold. */
static void xf_compare_parse(const char *s, size_t len) {
    long double ld = 0;
    xfloat v = {0, 0, 0};
    int want = string2ld(s, len, &ld);
    int got = xfloatParse(s, len, &v);
    xf_random_count++;
    if (got != want) {
        xf_report("accepted", s, NULL, got ? "yes" : "no", want ? "yes" : "no");
    } else if (want && !xf_same_bits(v, ld_to_xf(ld))) {
        char g[40], w[40];
        xf_describe(v, g, sizeof g);
        xf_describe(ld_to_xf(ld), w, sizeof w);
        xf_report("bits", s, NULL, g, w);
    }
}

static void xf_compare_add(xfloat a, xfloat b) {
    xfloat got = xfloatAdd(a, b), want = ld_to_xf(xf_to_ld(a) + xf_to_ld(b));
    xf_random_count++;
    if (!xf_same_bits(got, want)) {
        char sa[40], sb[40], g[40], w[40];
        xf_describe(a, sa, sizeof sa);
        xf_describe(b, sb, sizeof sb);
        xf_describe(got, g, sizeof g);
        xf_describe(want, w, sizeof w);
        xf_report("sum", sa, sb, g, w);
    }
}

/* Appends n random digits; the first is nonzero when lead is set. */
static size_t xf_random_digits(char *p, size_t n, int lead) {
    for (size_t i = 0; i < n; i++) p[i] = (char)('0' + xf_rng_below(10));
    if (lead && n) p[0] = (char)('1' + xf_rng_below(9));
    return n;
}

/* A digit count: mostly short, sometimes long, rarely very long. */
static size_t xf_random_length(void) {
    uint64_t r = xf_rng_below(100);
    if (r < 70) return xf_rng_below(21);
    if (r < 95) return xf_rng_below(45);
    if (r < 99) return xf_rng_below(400);
    return xf_rng_below(4000);
}

/* A decimal exponent from a mix of ranges, boundary zones included. */
static long xf_random_exponent(void) {
    uint64_t r = xf_rng_below(100);
    if (r < 50) return (long)xf_rng_below(61) - 30;
    if (r < 70) return (long)xf_rng_below(801) - 400;
    if (r < 90) return (long)xf_rng_below(9901) - 4950;
    if (r < 95) return 4900 + (long)xf_rng_below(60);
    return -4990 + (long)xf_rng_below(80);
}

/* A random decimal string, sometimes made invalid on purpose. */
static size_t xf_random_decimal(char *buf) {
    size_t pos = 0, nint = xf_random_length(), nfrac = xf_random_length();
    uint64_t shape = xf_rng_below(100);
    if (shape < 20) buf[pos++] = '-';
    else if (shape < 23) buf[pos++] = '+';
    pos += xf_random_digits(buf + pos, nint, xf_rng_below(4) != 0);
    if (nfrac || xf_rng_below(10) == 0 || nint == 0) {
        buf[pos++] = '.';
        pos += xf_random_digits(buf + pos, nfrac, 0);
    }
    if (xf_rng_below(3) != 0) {
        long e = xf_random_exponent() - (long)nint;
        pos += (size_t)sprintf(buf + pos, "%c%s%ld", xf_rng_below(2) ? 'e' : 'E',
                               e >= 0 && xf_rng_below(3) == 0 ? "+" : "", e);
    }
    if (xf_rng_below(50) == 0) { /* damage it */
        static const char junk[] = " .eE+-xp0i5\t";
        buf[xf_rng_below(pos + 1)] = junk[xf_rng_below(sizeof junk - 1)];
    }
    buf[pos] = '\0';
    return pos;
}

static size_t xf_random_hex(char *buf) {
    static const char hex[] = "0123456789abcdefABCDEF";
    size_t pos = 0, nint = xf_rng_below(20), nfrac = xf_rng_below(20);
    if (xf_rng_below(4) == 0) buf[pos++] = '-';
    buf[pos++] = '0';
    buf[pos++] = xf_rng_below(2) ? 'x' : 'X';
    for (size_t i = 0; i < nint; i++) buf[pos++] = hex[xf_rng_below(sizeof hex - 1)];
    if (nfrac || nint == 0) {
        buf[pos++] = '.';
        for (size_t i = 0; i < nfrac; i++) buf[pos++] = hex[xf_rng_below(sizeof hex - 1)];
    }
    if (xf_rng_below(4) != 0)
        pos += (size_t)sprintf(buf + pos, "p%ld", (long)xf_rng_below(33000) - 16500 - 4 * (long)nint);
    buf[pos] = '\0';
    return pos;
}

/* A random finite value: any binade, subnormals and extreme significands. */
static xfloat xf_random_value(int exp_span) {
    xfloat v;
    uint64_t kind = xf_rng_below(100);
    v.neg = (uint8_t)(test_rand() & 1);
    v.mant = test_rand();
    if (kind < 5) v.mant |= ~(uint64_t)0 >> xf_rng_below(64); /* runs of ones */
    if (kind >= 5 && kind < 10) v.mant &= ~(~(uint64_t)0 >> xf_rng_below(64));
    if (kind >= 10 && kind < 14) {
        v.exp = 0; /* subnormal */
        v.mant >>= 1 + xf_rng_below(63);
        return v;
    }
    v.mant |= (uint64_t)1 << 63;
    long e = 16383 + (long)xf_rng_below(2 * (uint64_t)exp_span + 1) - exp_span;
    if (e < 1) e = 1;
    if (e > 0x7ffe) e = 0x7ffe;
    v.exp = (uint16_t)e;
    return v;
}

static int xf_random_span(void) {
    uint64_t r = xf_rng_below(10);
    return r < 5 ? 70 : r < 8 ? 1100 : 16383;
}

/* Sum of two fixed-point decimal strings with the same number of fraction
 * digits (both nonnegative), into out. */
static void xf_decimal_add(const char *a, const char *b, char *out) {
    size_t la = strlen(a), lb = strlen(b), n = la > lb ? la : lb;
    int carry = 0;
    out[n + 1] = '\0';
    for (size_t i = 0; i < n; i++) {
        char ca = i < la ? a[la - 1 - i] : '0', cb = i < lb ? b[lb - 1 - i] : '0';
        if (ca == '.') {
            out[n - i] = '.';
            continue;
        }
        int d = (ca - '0') + (cb - '0') + carry;
        carry = d >= 10;
        out[n - i] = (char)('0' + d % 10);
    }
    out[0] = (char)('0' + carry);
}

/* Exact decimal text of the midpoint between v and its upper neighbour,
 * and of numbers a hair above and below it. */
static void test_random_halfway_points(void) {
    static char lo[8192], half[8192], mid[8192 + 2], probe[8192 + 16];
    long before = xf_random_count;
    for (int i = 0; i < xf_rounds(50000); i++) {
        xfloat v = xf_random_value(1000);
        v.neg = 0;
        if (v.exp == 0) continue;
        int lsb = v.exp - 16446; /* weight of the last bit */
        int prec = lsb - 1 < 0 ? 1 - lsb : 0;
        snprintf(lo, sizeof lo, "%.*Lf", prec, xf_to_ld(v));
        snprintf(half, sizeof half, "%.*Lf", prec, ldexpl(1.0L, lsb - 1));
        xf_decimal_add(lo, half, mid);
        if (strlen(mid) >= XFLOAT_MAX_CHARS - 12) continue;
        xf_compare_parse(mid, strlen(mid));
        snprintf(probe, sizeof probe, "%s%s1", mid, prec ? "" : ".");
        xf_compare_parse(probe, strlen(probe));
        if (prec) { /* the exact midpoint ends in 5: replace it by 4999... */
            snprintf(probe, sizeof probe, "%s", mid);
            probe[strlen(probe) - 1] = '4';
            strcat(probe, "999999999");
            xf_compare_parse(probe, strlen(probe));
        }
    }
    printf("    halfway points: %ld cases\n", xf_random_count - before);
    CHECK(xf_random_count - before > 2L * xf_rounds(50000));
}

static void test_random_parse(void) {
    static char buf[16384];
    long before = xf_random_count, mismatches = xf_mismatch_count;
    for (int i = 0; i < xf_rounds(500000); i++) {
        size_t len = xf_rng_below(10) == 0 ? xf_random_hex(buf) : xf_random_decimal(buf);
        if (len >= XFLOAT_MAX_CHARS + 2) len = XFLOAT_MAX_CHARS + 2;
        xf_compare_parse(buf, len);
    }
    printf("    parse: %ld cases, %ld mismatches\n", xf_random_count - before,
           xf_mismatch_count - mismatches);
    CHECK_EQ_INT(xf_mismatch_count, 0);
}

static void test_random_add(void) {
    long before = xf_random_count;
    for (int i = 0; i < xf_rounds(400000); i++) {
        xfloat a = xf_random_value(xf_random_span()), b;
        if (xf_rng_below(2)) { /* close exponents: carries and cancellation */
            b = xf_random_value(0);
            long e = (long)a.exp + (long)xf_rng_below(141) - 70;
            b.exp = (uint16_t)(e < 1 ? 1 : e > 0x7ffe ? 0x7ffe : e);
            b.mant |= (uint64_t)1 << 63; /* normal (an "unnormal" is invalid) */
            if (xf_rng_below(4) == 0 && a.exp != 0) { /* same binade, opposite sign */
                b.mant = a.mant ^ (test_rand() >> xf_rng_below(64));
                b.mant |= (uint64_t)1 << 63;
                b.exp = a.exp;
                b.neg = (uint8_t)!a.neg;
            }
        } else {
            b = xf_random_value(xf_random_span());
        }
        xf_compare_add(a, b);
    }
    printf("    add: %ld cases\n", xf_random_count - before);
    CHECK_EQ_INT(xf_mismatch_count, 0);
}

static void test_random_format(void) {
    long before = xf_random_count;
    for (int i = 0; i < xf_rounds(250000); i++) {
        xfloat v = xf_random_value(i % 20 == 0 ? 16383 : i % 4 == 0 ? 1100 : 70);
        char label[40];
        xf_describe(v, label, sizeof label);
        xf_compare_formats(v, label);
    }
    printf("    format: %ld cases (3 formats each)\n", xf_random_count - before);
    CHECK_EQ_INT(xf_mismatch_count, 0);
}

/* What INCRBYFLOAT sees: short decimals, parsed, added, printed. */
static void test_random_incrbyfloat(void) {
    static char a[64], b[64], want[XFLOAT_MAX_CHARS], got[XFLOAT_MAX_CHARS];
    long before = xf_random_count;
    for (int i = 0; i < xf_rounds(200000); i++) {
        long double la, lb;
        xfloat xa, xb;
        snprintf(a, sizeof a, "%s%llu.%0*llu", xf_rng_below(3) ? "" : "-",
                 (unsigned long long)(test_rand() >> xf_rng_below(64)), (int)xf_rng_below(19),
                 (unsigned long long)(xf_rng_below(1000000000000000000ULL)));
        snprintf(b, sizeof b, "%s%llu.%llue%d", xf_rng_below(2) ? "" : "-",
                 (unsigned long long)xf_rng_below(1000), (unsigned long long)xf_rng_below(100000),
                 (int)xf_rng_below(41) - 20);
        int want_ok = string2ld(a, strlen(a), &la) && string2ld(b, strlen(b), &lb);
        int got_ok = xf_parse_cstr(a, &xa) && xf_parse_cstr(b, &xb);
        xf_random_count++;
        if (want_ok != got_ok) {
            xf_report("accepted", a, b, got_ok ? "yes" : "no", want_ok ? "yes" : "no");
            continue;
        }
        ld2string(want, sizeof want, la + lb, LD_STR_HUMAN);
        xfloatFormat(got, sizeof got, xfloatAdd(xa, xb), XFLOAT_FMT_HUMAN);
        if (strcmp(got, want) != 0) xf_report("reply", a, b, got, want);
    }
    printf("    incrbyfloat: %ld cases\n", xf_random_count - before);
    CHECK_EQ_INT(xf_mismatch_count, 0);
}

static void test_random_total(void) {
    printf("    compared %ld random cases with the x87 hardware: %ld mismatches\n",
           xf_random_count, xf_mismatch_count);
    CHECK(xf_random_count >= xf_rounds(1000000));
    CHECK_EQ_INT(xf_mismatch_count, 0);
}
#endif /* XF_HAVE_X87 */

#if XF_HAVE_X87
/* The golden file must still be what the hardware says. */
static void test_golden_is_hardware(void) {
    static xf_hw_result r;
    for (size_t i = 0; i < XF_GOLDEN_VALUES + XF_GOLDEN_SUMS; i++) {
        const xf_golden *g = i < XF_GOLDEN_VALUES ? &xf_golden_values[i]
                                                  : &xf_golden_sums[i - XF_GOLDEN_VALUES];
        if (g->b) xf_hw_sum(g->a, g->b, &r);
        else xf_hw_parse(g->a, &r);
        int failures = test_current_failures;
        CHECK_EQ_INT(r.ok, g->ok);
        if (r.ok && g->ok) {
            CHECK(xf_same_bits(r.v, xf_from_parts(g->sign_exp, g->mant)));
            CHECK_EQ_STR(r.fixed, g->fixed);
            CHECK_EQ_STR(r.human, g->human);
            CHECK_EQ_STR(r.autofmt, g->autofmt);
        }
        if (test_current_failures != failures) printf("      case \"%s\"\n", g->a);
    }
}
#else
static void test_golden_is_hardware(void) {
    printf("    [skip] not x86 with glibc: no x87 + glibc oracle to compare with; golden values only\n");
}
#endif

TEST_MAIN(
    test_rand_seed(0x243f6a8885a308d3ULL);
    RUN(test_golden_matches_tables);
    RUN(test_golden_is_hardware);
    RUN(test_golden_values);
    RUN(test_golden_sums);
    RUN(test_incrbyfloat_examples);
    RUN(test_special_values);
    RUN(test_from_long_long);
    RUN(test_parse_length);
    RUN(test_format_buffer_sizes);
#if XF_HAVE_X87
    RUN(test_random_halfway_points);
    RUN(test_random_parse);
    RUN(test_random_add);
    RUN(test_random_format);
    RUN(test_random_incrbyfloat);
    RUN(test_random_total);
#endif
)
#endif /* XFLOAT_GOLDEN_GENERATOR */
