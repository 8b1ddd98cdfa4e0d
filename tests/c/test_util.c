/* test_util.c -- conversions and glob matching from util.c.
 *
 * Where a rule is observable on the reference server, the expected values in
 * these tables were checked against redis 7.0 (INCRBY, INCRBYFLOAT, ZADD /
 * ZSCORE, CONFIG SET maxmemory, KEYS). Float formatting depends on what
 * `long double` is: 80-bit x87 (the reference host), plain double (32-bit
 * ARM) or IEEE quad (SPARC64); rows carry the expected text for each, the
 * non-x87 columns derived with exact rational arithmetic.
 */
#include <float.h>
#include <limits.h>
#include <math.h>

#include "test.h"
#include "util.h"

/* ---- helpers ------------------------------------------------------------ */

/* A random value of random magnitude, so short and long numbers both occur. */
static long long rng_ll(void) {
    uint64_t v = test_rand() >> (test_rand() % 64);
    return (test_rand() & 1) ? -(long long)(v >> 1) : (long long)(v >> 1);
}

/* 'c' repeated n times after prefix, NUL-terminated; caller frees. */
static char *repeat_string(const char *prefix, char c, size_t n) {
    size_t plen = strlen(prefix);
    char *s = malloc(plen + n + 1);
    memcpy(s, prefix, plen);
    memset(s + plen, c, n);
    s[plen + n] = '\0';
    return s;
}

/* ---- string2ll / string2l / string2ull ---------------------------------- */

static void test_string2ll_accepts(void) {
    static const struct { const char *s; long long v; } ok[] = {
        {"0", 0}, {"1", 1}, {"-1", -1}, {"10", 10}, {"-100", -100},
        {"123456789", 123456789}, {"9223372036854775807", LLONG_MAX},
        {"-9223372036854775808", LLONG_MIN}, {"9223372036854775806", LLONG_MAX - 1},
        {"-9223372036854775807", LLONG_MIN + 1},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        long long v = 42;
        CHECK(string2ll(ok[i].s, strlen(ok[i].s), &v) == 1);
        CHECK_EQ_INT(v, ok[i].v);
        CHECK(string2ll(ok[i].s, strlen(ok[i].s), NULL) == 1);
    }
}

static void test_string2ll_rejects(void) {
    static const char *bad[] = {
        "", "-", "-0", "00", "01", "-01", "+1", "+0", " 1", "1 ", "\t1", "1\n",
        "1a", "a1", "0x10", "1.0", "1e3", "--1", "1-", "9223372036854775808",
        "-9223372036854775809", "18446744073709551615", "18446744073709551616",
        "99999999999999999999", "-99999999999999999999", "123456789012345678901",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        long long v = 42;
        if (!CHECK(string2ll(bad[i], strlen(bad[i]), &v) == 0)) printf("      input \"%s\"\n", bad[i]);
        CHECK_EQ_INT(v, 42); /* untouched on failure */
    }
}

static void test_string2ll_uses_length_not_nul(void) {
    long long v = 0;
    CHECK(string2ll("123abc", 3, &v) == 1);
    CHECK_EQ_INT(v, 123);
    CHECK(string2ll("-5xyz", 2, &v) == 1);
    CHECK_EQ_INT(v, -5);
    CHECK(string2ll("1234", 0, &v) == 0);
    CHECK(string2ll("-123", 1, &v) == 0);
    CHECK(string2ll("1\0", 2, &v) == 0);     /* embedded NUL is garbage */
    CHECK(string2ll("\0" "1", 2, &v) == 0);
    CHECK(string2ll("12\0" "3", 4, &v) == 0);
}

static void test_string2l_range(void) {
    char buf[32];
    long v = 0;
    snprintf(buf, sizeof buf, "%ld", LONG_MAX);
    CHECK(string2l(buf, strlen(buf), &v) == 1);
    CHECK(v == LONG_MAX);
    snprintf(buf, sizeof buf, "%ld", LONG_MIN);
    CHECK(string2l(buf, strlen(buf), &v) == 1);
    CHECK(v == LONG_MIN);
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)LONG_MAX + 1);
    CHECK(string2l(buf, strlen(buf), &v) == 0);
    snprintf(buf, sizeof buf, "-%llu", (unsigned long long)LONG_MAX + 2);
    CHECK(string2l(buf, strlen(buf), &v) == 0);
    CHECK(string2l("-0", 2, &v) == 0);
    CHECK(string2l("77", 2, &v) == 1);
    CHECK_EQ_INT(v, 77);
}

static void test_string2ull(void) {
    unsigned long long v = 0;
    CHECK(string2ull("18446744073709551615", 20, &v) == 1);
    CHECK(v == ULLONG_MAX);
    CHECK(string2ull("10000000000000000000", 20, &v) == 1);
    CHECK(v == 10000000000000000000ULL);
    CHECK(string2ull("0", 1, &v) == 1);
    CHECK(v == 0);
    static const char *bad[] = {"", "18446744073709551616", "99999999999999999999", "-1",
                                "+1", "01", "00", " 1", "1 ", "1x", "-0"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        v = 7;
        if (!CHECK(string2ull(bad[i], strlen(bad[i]), &v) == 0)) printf("      input \"%s\"\n", bad[i]);
        CHECK(v == 7);
    }
    CHECK(string2ull("55x", 2, &v) == 1);
    CHECK(v == 55);
}

/* ---- string2ld / string2d ----------------------------------------------- */

static void test_string2ld_accepts(void) {
    static const struct { const char *s; long double v; } ok[] = {
        {"1", 1}, {"+1", 1}, {"01", 1}, {"1.0", 1}, {"1e5", 100000}, {"1E5", 100000},
        {".5", 0.5}, {"5.", 5}, {"-1.5", -1.5}, {"0x10", 16}, {"0x1p3", 8}, {"1e+2", 100},
        {"10.50", 10.5}, {"-0", 0},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        long double v = 42;
        if (!CHECK(string2ld(ok[i].s, strlen(ok[i].s), &v) == 1)) printf("      input \"%s\"\n", ok[i].s);
        CHECK(v == ok[i].v);
    }
    long double v = 0;
    CHECK(string2ld("-0", 2, &v) == 1 && signbit(v));
    /* Infinities parse (INCRBYFLOAT then refuses the result, not the input). */
    CHECK(string2ld("inf", 3, &v) == 1 && isinf(v) && v > 0);
    CHECK(string2ld("-inf", 4, &v) == 1 && isinf(v) && v < 0);
    CHECK(string2ld("+inf", 4, &v) == 1 && isinf(v) && v > 0);
    CHECK(string2ld("infinity", 8, &v) == 1 && isinf(v));
}

static void test_string2ld_rejects(void) {
    static const char *bad[] = {
        "", " 1", "1 ", "\t1", "\n1", "nan", "NaN", "-nan", "nan(1)", "1.5e", "1_0", "abc",
        "1e99999", "-1e99999", "1e-99999", "--1", ".", "e5", "0x",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        long double v = 42;
        if (!CHECK(string2ld(bad[i], strlen(bad[i]), &v) == 0)) printf("      input \"%s\"\n", bad[i]);
        CHECK(v == 42);
    }
    CHECK(string2ld("1\0", 2, NULL) == 0);
    CHECK(string2ld("\0" "1", 2, NULL) == 0);
}

/* What overflows or underflows to zero depends on the long double range. */
static void test_string2ld_platform_range(void) {
    long double v = 0;
    CHECK(string2ld("1e400", 5, &v) == (LDBL_MAX_10_EXP >= 400));
    CHECK(string2ld("1e-400", 6, &v) == (LDBL_MAX_10_EXP >= 400)); /* zero, or a normal value */
    CHECK(string2ld("1.7976931348623157e308", 22, &v) == 1);
}

static void test_string2ld_length(void) {
    long double v = 0;
    /* Inputs must be shorter than MAX_LONG_DOUBLE_CHARS (5119 bytes pass). */
    char *longest = repeat_string("1.", '0', MAX_LONG_DOUBLE_CHARS - 3);
    CHECK(strlen(longest) == MAX_LONG_DOUBLE_CHARS - 1);
    CHECK(string2ld(longest, strlen(longest), &v) == 1);
    CHECK(v == 1);
    char *too_long = repeat_string("1.", '0', MAX_LONG_DOUBLE_CHARS - 2);
    CHECK(string2ld(too_long, strlen(too_long), &v) == 0);
    free(longest);
    free(too_long);
    CHECK(string2ld("1.5xyz", 3, &v) == 1);
    CHECK(v == 1.5);
}

static void test_string2d(void) {
    static const struct { const char *s; double v; } ok[] = {
        {"1", 1}, {"+1", 1}, {"01", 1}, {"0x10", 16}, {"-2.5", -2.5}, {"1e5", 1e5},
        {"1.7976931348623157e308", DBL_MAX},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        double v = 42;
        if (!CHECK(string2d(ok[i].s, strlen(ok[i].s), &v) == 1)) printf("      input \"%s\"\n", ok[i].s);
        CHECK(v == ok[i].v);
    }
    double v = 0;
    CHECK(string2d("inf", 3, &v) == 1 && isinf(v) && v > 0);
    CHECK(string2d("+inf", 4, &v) == 1 && isinf(v) && v > 0);
    CHECK(string2d("-inf", 4, &v) == 1 && isinf(v) && v < 0);
    CHECK(string2d("-0", 2, &v) == 1 && v == 0 && signbit(v));
    CHECK(string2d("1e-320", 6, &v) == 1 && v > 0); /* denormal: accepted */
    static const char *bad[] = {"", "nan", "-nan", "1e400", "-1e400", "1e-400", " 1", "1 ", "x", "1e"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        v = 42;
        if (!CHECK(string2d(bad[i], strlen(bad[i]), &v) == 0)) printf("      input \"%s\"\n", bad[i]);
        CHECK(v == 42);
    }
    CHECK(string2d("2\0", 2, &v) == 0);
    CHECK(string2d("2.25junk", 4, &v) == 1 && v == 2.25);
}

/* Long inputs take the heap path and have no length limit (as ZADD). */
static void test_string2d_long_input(void) {
    double v = 0;
    char *s = repeat_string("1.", '0', 6000);
    CHECK(string2d(s, strlen(s), &v) == 1);
    CHECK(v == 1);
    s[strlen(s) - 1] = 'x';
    CHECK(string2d(s, strlen(s), &v) == 0);
    free(s);
    s = repeat_string("-0.", '0', 200);
    CHECK(string2d(s, strlen(s), &v) == 1 && v == 0);
    free(s);
}

/* ---- memtoull ------------------------------------------------------------ */

static void test_memtoull_accepts(void) {
    static const struct { const char *s; unsigned long long v; } ok[] = {
        {"0", 0}, {"1", 1}, {"01", 1}, {"1b", 1}, {"1B", 1}, {"1k", 1000}, {"1K", 1000},
        {"1kb", 1024}, {"1kB", 1024}, {"1KB", 1024}, {"2m", 2000000}, {"2mb", 2ULL << 20},
        {"3g", 3000000000ULL}, {"3gb", 3ULL << 30}, {"3GB", 3ULL << 30},
        {"18446744073709551615", ULLONG_MAX}, {"18446744073709551615b", ULLONG_MAX},
        {"17179869183gb", ((1ULL << 34) - 1) << 30},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        int err = 1;
        unsigned long long v = memtoull(ok[i].s, &err);
        if (!CHECK(err == 0 && v == ok[i].v)) printf("      input \"%s\" -> %llu err %d\n", ok[i].s, v, err);
    }
    CHECK(memtoull("5kb", NULL) == 5120);
}

static void test_memtoull_rejects(void) {
    static const char *bad[] = {
        "", "kb", "b", "1t", "1tb", " 1", "1 ", "+1", "-1", "1 kb", "0x10", "1.5k", "1kbb",
        "1bb", "k1", "18446744073709551616", "17179869184gb", "18446744073709551616b",
        "99999999999999999999999999", "18446744073709552k",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int err = 0;
        unsigned long long v = memtoull(bad[i], &err);
        if (!CHECK(err == 1 && v == 0)) printf("      input \"%s\"\n", bad[i]);
    }
    CHECK(memtoull("1x", NULL) == 0);
}

/* ---- digits10 / ll2string / ull2string ----------------------------------- */

static void test_digits10(void) {
    uint64_t pow10 = 1;
    CHECK_EQ_INT(digits10(0), 1);
    for (uint32_t k = 1; k <= 19; k++) {
        pow10 *= 10;
        CHECK_EQ_INT(digits10(pow10 - 1), k);
        CHECK_EQ_INT(digits10(pow10), k + 1);
    }
    CHECK_EQ_INT(digits10(UINT64_MAX), 20);
    CHECK_EQ_INT(sdigits10(0), 1);
    CHECK_EQ_INT(sdigits10(-1), 2);
    CHECK_EQ_INT(sdigits10(-9), 2);
    CHECK_EQ_INT(sdigits10(-10), 3);
    CHECK_EQ_INT(sdigits10(INT64_MAX), 19);
    CHECK_EQ_INT(sdigits10(INT64_MIN), 20);
}

/* ll2string must agree with printf and round-trip through string2ll. */
static int ll2string_agrees(long long v) {
    char mine[LONG_STR_SIZE], libc[32];
    long long back = 0;
    int n = ll2string(mine, sizeof mine, v);
    int expect = snprintf(libc, sizeof libc, "%lld", v);
    int ok = n == expect && strcmp(mine, libc) == 0 && n == (int)sdigits10(v) &&
             string2ll(mine, (size_t)n, &back) && back == v;
    if (!ok) printf("      ll2string(%s) -> \"%s\" (%d)\n", libc, mine, n);
    return ok;
}

static void test_ll2string_boundaries(void) {
    long long pow10 = 1;
    CHECK(ll2string_agrees(0));
    CHECK(ll2string_agrees(LLONG_MAX));
    CHECK(ll2string_agrees(LLONG_MIN));
    CHECK(ll2string_agrees(LLONG_MIN + 1));
    for (int k = 1; k <= 18; k++) {
        pow10 *= 10;
        CHECK(ll2string_agrees(pow10 - 1) && ll2string_agrees(pow10) && ll2string_agrees(pow10 + 1));
        CHECK(ll2string_agrees(-pow10 + 1) && ll2string_agrees(-pow10) && ll2string_agrees(-pow10 - 1));
    }
}

static void test_ll2string_random(void) {
    int bad = 0;
    for (int i = 0; i < 100000; i++) bad += !ll2string_agrees(rng_ll());
    CHECK_EQ_INT(bad, 0);
}

static void test_ull2string(void) {
    char buf[32];
    CHECK_EQ_INT(ull2string(buf, sizeof buf, ULLONG_MAX), 20);
    CHECK_EQ_STR(buf, "18446744073709551615");
    CHECK_EQ_INT(ull2string(buf, sizeof buf, 0), 1);
    CHECK_EQ_STR(buf, "0");
    CHECK_EQ_INT(ull2string(buf, sizeof buf, 10000000000000000000ULL), 20);
    CHECK_EQ_STR(buf, "10000000000000000000");
    for (int i = 0; i < 1000; i++) {
        unsigned long long v = test_rand() >> (test_rand() % 64);
        char libc[32];
        int expect = snprintf(libc, sizeof libc, "%llu", v);
        CHECK(ull2string(buf, sizeof buf, v) == expect && strcmp(buf, libc) == 0);
    }
}

/* A buffer of exactly the length (no room for the NUL) fails and is left
 * empty; length + 1 succeeds; nothing past dstlen is ever written. */
static void check_small_buffers(long long v) {
    char buf[40];
    int need = (int)sdigits10(v);
    for (int size = 0; size <= need + 1; size++) {
        memset(buf, 'x', sizeof buf);
        int n = ll2string(buf, (size_t)size, v);
        CHECK_EQ_INT(n, size > need ? need : 0);
        if (size > 0 && size <= need) CHECK(buf[0] == '\0');
        for (int i = size; i < (int)sizeof buf; i++)
            if (buf[i] != 'x') { CHECK(!"byte written past dstlen"); break; }
    }
}

static void test_ll2string_buffer_too_small(void) {
    check_small_buffers(0);
    check_small_buffers(7);
    check_small_buffers(-7);
    check_small_buffers(12345);
    check_small_buffers(LLONG_MIN);
    check_small_buffers(LLONG_MAX);
    char buf[4];
    CHECK_EQ_INT(ull2string(buf, sizeof buf, 1234), 0);
    CHECK_EQ_INT(ull2string(NULL, 0, 5), 0);
    CHECK_EQ_INT(ll2string(NULL, 0, -5), 0);
}

/* ---- ld2string ---------------------------------------------------------- */

/* INCRBYFLOAT: parse both operands, add in long double, reply in HUMAN mode.
 * x87 column: replies of the reference server; others derived exactly. NULL
 * means "same as x87". */
static const struct {
    const char *value, *incr, *x87, *dbl, *quad;
} incrbyfloat_cases[] = {
    {"10.50", "0.1", "10.6", "10.59999999999999964", NULL},
    {"5.0e3", "2.0e2", "5200", NULL, NULL},
    {"3", "0", "3", NULL, NULL},
    {"0", "-0", "0", NULL, NULL},
    {"0", "1e20", "100000000000000000000", NULL, NULL},
    {"0", "1.1", "1.1", "1.10000000000000009", NULL},
    {"0", "0.1", "0.1", "0.10000000000000001", NULL},
    {"0", "-1.5", "-1.5", NULL, NULL},
    {"0", "1e-5", "0.00001", NULL, NULL},
    {"0", "0.3", "0.3", "0.29999999999999999", NULL},
    {"1", "-1", "0", NULL, NULL},
    {"0", "-0.00000000000000001", "-0.00000000000000001", NULL, NULL},
    {"0", "1e-17", "0.00000000000000001", NULL, NULL},
    {"0", "123456789.123456789", "123456789.12345678899873747",
     "123456789.12345679104328156", "123456789.123456789"},
};

static const char *expected_for_this_long_double(const char *x87, const char *dbl,
                                                 const char *quad) {
    if (LDBL_MANT_DIG == 53 && dbl) return dbl;
    if (LDBL_MANT_DIG == 113 && quad) return quad;
    return x87;
}

static void test_ld2string_human_incrbyfloat(void) {
    CHECK(LDBL_MANT_DIG == 64 || LDBL_MANT_DIG == 53 || LDBL_MANT_DIG == 113);
    for (size_t i = 0; i < sizeof incrbyfloat_cases / sizeof incrbyfloat_cases[0]; i++) {
        long double a = 0, b = 0;
        char buf[MAX_LONG_DOUBLE_CHARS];
        const char *expect = expected_for_this_long_double(
            incrbyfloat_cases[i].x87, incrbyfloat_cases[i].dbl, incrbyfloat_cases[i].quad);
        CHECK(string2ld(incrbyfloat_cases[i].value, strlen(incrbyfloat_cases[i].value), &a));
        CHECK(string2ld(incrbyfloat_cases[i].incr, strlen(incrbyfloat_cases[i].incr), &b));
        int n = ld2string(buf, sizeof buf, a + b, LD_STR_HUMAN);
        CHECK_EQ_STR(buf, expect);
        CHECK_EQ_INT(n, strlen(expect));
    }
}

/* Numbers with hundreds of integer digits. 1e400 needs a range wider than
 * double; the reference host (x87) replies with these 401 digits. */
static void test_ld2string_human_huge(void) {
    static const char *x87_1e400 =
        "1000000000000000000028188068394758651458645343362905203862591069353968553400862986203936399484"
        "8324160522094053927317616200295822777259255734023828976593340661017797447434546173917862448116"
        "6749717237789438243915933380474706750262466844013592375136038303437354855052449559649790218250"
        "3828009106841494740245689865304095101751265809261582758892018347251164331659136266413817630973"
        "4806343732497430221946880";
    long double v = 0;
    char buf[MAX_LONG_DOUBLE_CHARS];
    CHECK(string2ld("1.7976931348623157e308", 22, &v));
    CHECK_EQ_INT(ld2string(buf, sizeof buf, v, LD_STR_HUMAN), 309);
    CHECK(strncmp(buf, "1797693134862315", 16) == 0);
    if (!string2ld("1e400", 5, &v)) {
        CHECK(LDBL_MAX_10_EXP < 400);
        printf("    (1e400 out of range for this long double: skipped)\n");
        return;
    }
    CHECK_EQ_INT(ld2string(buf, sizeof buf, v, LD_STR_HUMAN), 401);
    CHECK(buf[0] == '1' && strspn(buf, "0123456789") == 401);
    if (LDBL_MANT_DIG == 64) CHECK_EQ_STR(buf, x87_1e400);
}

static void test_ld2string_human_edges(void) {
    char buf[64];
    CHECK_EQ_INT(ld2string(buf, sizeof buf, -0.0L, LD_STR_HUMAN), 1);
    CHECK_EQ_STR(buf, "0");
    CHECK_EQ_INT(ld2string(buf, sizeof buf, -1e-30L, LD_STR_HUMAN), 1); /* "-0.000..." */
    CHECK_EQ_STR(buf, "0");
    CHECK_EQ_INT(ld2string(buf, sizeof buf, 100.0L, LD_STR_HUMAN), 3); /* zeros before '.' stay */
    CHECK_EQ_STR(buf, "100");
    CHECK_EQ_INT(ld2string(buf, sizeof buf, -0.25L, LD_STR_HUMAN), 5);
    CHECK_EQ_STR(buf, "-0.25");
    CHECK_EQ_INT(ld2string(buf, sizeof buf, (long double)INFINITY, LD_STR_HUMAN), 3);
    CHECK_EQ_STR(buf, "inf");
    CHECK_EQ_INT(ld2string(buf, sizeof buf, -(long double)INFINITY, LD_STR_HUMAN), 4);
    CHECK_EQ_STR(buf, "-inf");
    CHECK_EQ_INT(ld2string(buf, sizeof buf, (long double)NAN, LD_STR_AUTO), 3);
    CHECK_EQ_STR(buf, "nan");
    CHECK_EQ_INT(ld2string(buf, sizeof buf, -(long double)NAN, LD_STR_HUMAN), 3);
    CHECK_EQ_STR(buf, "nan");
}

static void test_ld2string_auto(void) {
    char buf[64];
    long double tenth = 0;
    CHECK(string2ld("0.1", 3, &tenth));
    CHECK_EQ_INT(ld2string(buf, sizeof buf, 1.5L, LD_STR_AUTO), 3);
    CHECK_EQ_STR(buf, "1.5");
    CHECK(ld2string(buf, sizeof buf, 100000.0L, LD_STR_AUTO) > 0);
    CHECK_EQ_STR(buf, "100000");
    CHECK(ld2string(buf, sizeof buf, 1e20L, LD_STR_AUTO) > 0);
    CHECK_EQ_STR(buf, "1e+20");
    CHECK(ld2string(buf, sizeof buf, -0.0L, LD_STR_AUTO) > 0);
    CHECK_EQ_STR(buf, "-0");
    CHECK(ld2string(buf, sizeof buf, tenth, LD_STR_AUTO) > 0);
    CHECK_EQ_STR(buf, expected_for_this_long_double("0.1", "0.10000000000000001", NULL));
}

/* Hex is exact: every value must come back bit for bit. */
static void test_ld2string_hex_round_trip(void) {
    char buf[128];
    long double values[] = {1.0L, -2.5L, 0.1L, 1e-300L, 12345.6789L, LDBL_MAX, LDBL_MIN, -0.0L};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        long double back = 0;
        int n = ld2string(buf, sizeof buf, values[i], LD_STR_HEX);
        CHECK(n > 0);
        CHECK(strstr(buf, "0x") == buf || strstr(buf, "-0x") == buf);
        CHECK(string2ld(buf, (size_t)n, &back) == 1);
        CHECK(back == values[i] && signbit(back) == signbit(values[i]));
    }
    for (int i = 0; i < 1000; i++) {
        long double v = (long double)rng_ll() / (long double)(test_rand() | 1), back = 0;
        int n = ld2string(buf, sizeof buf, v, LD_STR_HEX);
        CHECK(n > 0 && string2ld(buf, (size_t)n, &back) && back == v);
    }
}

static void test_ld2string_buffer_too_small(void) {
    char buf[32];
    /* HUMAN needs room for the untrimmed "%.17Lf" text: 10.5 -> 20 chars. */
    CHECK_EQ_INT(ld2string(buf, 20, 10.5L, LD_STR_HUMAN), 0);
    CHECK(buf[0] == '\0');
    CHECK_EQ_INT(ld2string(buf, 21, 10.5L, LD_STR_HUMAN), 4);
    CHECK_EQ_STR(buf, "10.5");
    CHECK_EQ_INT(ld2string(buf, 3, 1.5L, LD_STR_AUTO), 0);
    CHECK_EQ_INT(ld2string(buf, 4, 1.5L, LD_STR_AUTO), 3);
    CHECK_EQ_INT(ld2string(buf, 4, -(long double)INFINITY, LD_STR_AUTO), 0);
    CHECK_EQ_INT(ld2string(buf, 5, -(long double)INFINITY, LD_STR_AUTO), 4);
    CHECK_EQ_INT(ld2string(buf, 3, 1.0L, LD_STR_HEX), 0);
    CHECK_EQ_INT(ld2string(NULL, 0, 1.0L, LD_STR_AUTO), 0);
}

/* ---- d2string / fixedpoint_d2string --------------------------------------- */

static void test_d2string_values(void) {
    static const struct { double v; const char *s; } cases[] = {
        {0.0, "0"}, {1.5, "1.5"}, {3.0, "3"}, {-3.0, "-3"}, {100.0, "100"},
        {4503599627370495.0, "4503599627370495"}, {-4503599627370495.0, "-4503599627370495"},
        {4503599627370496.0, "4503599627370496"},
        /* as ZSCORE replies on the reference server: */
        {0.1, "0.10000000000000001"}, {1e17, "1e+17"}, {1e-320, "9.9998886718268301e-321"},
        {16.0, "16"},
    };
    char buf[MAX_D2STRING_CHARS];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int n = d2string(buf, sizeof buf, cases[i].v);
        CHECK_EQ_STR(buf, cases[i].s);
        CHECK_EQ_INT(n, strlen(cases[i].s));
    }
    CHECK(d2string(buf, sizeof buf, -0.0) == 2);
    CHECK_EQ_STR(buf, "-0");
    CHECK(d2string(buf, sizeof buf, INFINITY) == 3);
    CHECK_EQ_STR(buf, "inf");
    CHECK(d2string(buf, sizeof buf, -INFINITY) == 4);
    CHECK_EQ_STR(buf, "-inf");
    CHECK(d2string(buf, sizeof buf, -NAN) == 3);
    CHECK_EQ_STR(buf, "nan");
}

/* Every finite double must come back identical through string2d. */
static void test_d2string_round_trip(void) {
    char buf[MAX_D2STRING_CHARS];
    int bad = 0;
    for (int i = 0; i < 20000; i++) {
        uint64_t bits = test_rand();
        double v, back = 0;
        memcpy(&v, &bits, sizeof v);
        if (!isfinite(v)) continue;
        int n = d2string(buf, sizeof buf, v);
        bad += !(n > 0 && string2d(buf, (size_t)n, &back) && back == v);
    }
    for (int i = 0; i < 20000; i++) { /* integers and short decimals */
        double v = (double)rng_ll() / (double)(1 << (test_rand() % 8)), back = 0;
        int n = d2string(buf, sizeof buf, v);
        bad += !(n > 0 && string2d(buf, (size_t)n, &back) && back == v);
    }
    CHECK_EQ_INT(bad, 0);
}

static void test_d2string_buffer_too_small(void) {
    char buf[32];
    CHECK_EQ_INT(d2string(buf, 3, 1.5), 0);
    CHECK(buf[0] == '\0');
    CHECK_EQ_INT(d2string(buf, 4, 1.5), 3);
    CHECK_EQ_INT(d2string(buf, 3, 123.0), 0);
    CHECK_EQ_INT(d2string(buf, 4, -INFINITY), 0);
    CHECK_EQ_INT(d2string(buf, 2, -0.0), 0);
    CHECK_EQ_INT(d2string(buf, 19, 0.1), 0);
    CHECK_EQ_INT(d2string(buf, 20, 0.1), 19);
}

static void test_fixedpoint_d2string(void) {
    char buf[64];
    CHECK_EQ_INT(fixedpoint_d2string(buf, sizeof buf, 3.14159, 4), 6);
    CHECK_EQ_STR(buf, "3.1416");
    CHECK_EQ_INT(fixedpoint_d2string(buf, sizeof buf, 0.0, 2), 4);
    CHECK_EQ_STR(buf, "0.00");
    CHECK_EQ_INT(fixedpoint_d2string(buf, sizeof buf, -12.5, 1), 5);
    CHECK_EQ_STR(buf, "-12.5");
    CHECK_EQ_INT(fixedpoint_d2string(buf, sizeof buf, 1.0, 17), 19);
    CHECK_EQ_STR(buf, "1.00000000000000000");
    CHECK_EQ_INT(fixedpoint_d2string(buf, sizeof buf, 1.0, 0), 0);
    CHECK_EQ_INT(fixedpoint_d2string(buf, sizeof buf, 1.0, 18), 0);
    CHECK_EQ_INT(fixedpoint_d2string(buf, sizeof buf, NAN, 4), 0);
    CHECK_EQ_INT(fixedpoint_d2string(buf, sizeof buf, INFINITY, 4), 0);
    CHECK_EQ_INT(fixedpoint_d2string(buf, 6, 3.14159, 4), 0);
    CHECK_EQ_INT(fixedpoint_d2string(buf, 7, 3.14159, 4), 6);
}

/* ---- glob matching ----------------------------------------------------- */

/* Case-sensitive rows were all checked with KEYS on the reference server. */
static const struct { const char *pattern, *string; int match; } glob_cases[] = {
    {"*", "anything", 1}, {"**", "a", 1}, {"a*", "a", 1}, {"a**", "a", 1}, {"a*?", "a", 0},
    {"h?llo", "hello", 1}, {"h?llo", "hallo", 1}, {"h?llo", "hllo", 0},
    {"h*llo", "hllo", 1}, {"h*llo", "heeeello", 1}, {"h*llo", "hellox", 0},
    {"h[ae]llo", "hello", 1}, {"h[ae]llo", "hillo", 0},
    {"h[^e]llo", "hallo", 1}, {"h[^e]llo", "hello", 0},
    {"h[a-b]llo", "hbllo", 1}, {"h[a-b]llo", "hcllo", 0}, {"h[b-a]llo", "hallo", 1},
    {"h\\*llo", "h*llo", 1}, {"h\\*llo", "hello", 0}, {"\\?", "?", 1}, {"\\?", "a", 0},
    {"a\\", "a\\", 1}, {"[\\]]", "]", 1}, {"[\\^a]", "^", 1}, {"[\\-]", "-", 1},
    {"[]a]", "a]", 0}, {"[]", "x", 0}, {"[^]", "x", 1},
    {"[abc", "b", 1}, {"[abc", "bc", 0}, {"[a-", "a", 1}, {"[a-", "-", 1},
    {"[a-]", "-", 0}, {"[a-]", "_", 1}, /* "a-]" is the range ']'..'a', class unclosed */
    {"[^a-c]x", "dx", 1}, {"[^a-c]x", "bx", 0},
    {"*a*b*c", "xaybzc", 1}, {"*a*b*c", "xaybzcd", 0}, {"a*b*c*d", "abcd", 1},
    {"a*b", "ab", 1}, {"*?*", "x", 1}, {"?*?", "x", 0},
    {"[[]", "[", 1}, {"[a-z0-9]*", "q9", 1}, {"\\[x\\]", "[x]", 1}, {"*\\", "ab\\", 1},
    /* empty strings: only the empty pattern matches (reference behaviour) */
    {"", "", 1}, {"*", "", 0}, {"", "a", 0}, {"?", "", 0},
};

static void test_glob_table(void) {
    for (size_t i = 0; i < sizeof glob_cases / sizeof glob_cases[0]; i++) {
        int got = stringmatch(glob_cases[i].pattern, glob_cases[i].string, 0);
        if (!CHECK(got == glob_cases[i].match))
            printf("      pattern \"%s\" string \"%s\"\n", glob_cases[i].pattern, glob_cases[i].string);
    }
}

static void test_glob_nocase(void) {
    CHECK(stringmatch("HELLO", "hello", 1) == 1);
    CHECK(stringmatch("HELLO", "hello", 0) == 0);
    CHECK(stringmatch("h*O", "HellO", 1) == 1);
    CHECK(stringmatch("[A-Z]", "q", 1) == 1);
    CHECK(stringmatch("[A-Z]", "q", 0) == 0);
    CHECK(stringmatch("[a-z]", "Q", 1) == 1);
    CHECK(stringmatch("h[^E]llo", "hello", 1) == 0);
    CHECK(stringmatch("h[^E]llo", "hello", 0) == 1);
    CHECK(stringmatch("\\A", "a", 1) == 1);
    CHECK(stringmatch("[xyZ]", "z", 1) == 1);
    CHECK(stringmatch("\xc3\xa9", "\xc3\x89", 1) == 0); /* only ASCII folds */
}

static void test_glob_lengths_and_bytes(void) {
    CHECK(stringmatchlen("abc*", 3, "abc", 3, 0) == 1);   /* pattern cut before '*' */
    CHECK(stringmatchlen("abc", 3, "abcdef", 3, 0) == 1); /* string cut */
    CHECK(stringmatchlen("abc", 2, "abc", 3, 0) == 0);
    CHECK(stringmatchlen("a?c", 3, "a\0c", 3, 0) == 1);   /* embedded NUL */
    CHECK(stringmatchlen("a\0c", 3, "a\0c", 3, 0) == 1);
    CHECK(stringmatchlen("a\0c", 3, "abc", 3, 0) == 0);
    CHECK(stringmatchlen("[", 1, "[", 1, 0) == 0);       /* empty unclosed class */
    CHECK(stringmatchlen("[\\", 2, "\\", 1, 0) == 1);    /* lone backslash in class */
    CHECK(stringmatchlen("*", 1, "x", -1, 0) == 0);
    CHECK(stringmatchlen("*", -1, "x", 1, 0) == 0);
    CHECK(stringmatch("[\x80-\xff]", "\xc3", 0) == 1);   /* bytes are unsigned */
    CHECK(stringmatch("[\x01-\x7f]", "\xc3", 0) == 0);
    CHECK(stringmatch("?", "\xff", 0) == 1);
}

/* Independent reference: recursion straight from the definition, with the
 * class parsed into a 256-entry membership table first. Exponential, so only
 * for short inputs. */
static int naive_class(const char *p, int plen, int nocase, unsigned char member[256]) {
    int i = 0;
    memset(member, 0, 256);
    while (i < plen && p[i] != ']') {
        int lo, hi, step = 1;
        if (p[i] == '\\' && i + 1 < plen) { lo = hi = (unsigned char)p[i + 1]; step = 2; }
        else if (i + 2 < plen && p[i + 1] == '-') {
            lo = (unsigned char)p[i]; hi = (unsigned char)p[i + 2]; step = 3;
            if (nocase) { if (lo >= 'A' && lo <= 'Z') lo += 32; if (hi >= 'A' && hi <= 'Z') hi += 32; }
            if (lo > hi) { int t = lo; lo = hi; hi = t; }
        } else lo = hi = (unsigned char)p[i];
        if (nocase && step != 3 && lo >= 'A' && lo <= 'Z') lo = hi = lo + 32;
        for (int c = lo; c <= hi; c++) member[c] = 1;
        i += step;
    }
    return i < plen ? i + 1 : i;
}

static int naive_match(const char *p, int plen, const char *s, int slen, int nocase) {
    unsigned char member[256];
    int used = 1, ok;
    if (plen == 0) return slen == 0;
    if (p[0] == '*') {
        for (int k = 0; k <= slen; k++)
            if (naive_match(p + 1, plen - 1, s + k, slen - k, nocase)) return 1;
        return 0;
    }
    if (slen == 0) return 0;
    int c = (unsigned char)s[0];
    if (nocase && c >= 'A' && c <= 'Z') c += 32;
    if (p[0] == '?') ok = 1;
    else if (p[0] == '[') {
        int neg = plen > 1 && p[1] == '^';
        used = 1 + neg + naive_class(p + 1 + neg, plen - 1 - neg, nocase, member);
        ok = member[c] != neg;
    } else {
        int lit = (unsigned char)p[0];
        if (p[0] == '\\' && plen > 1) { lit = (unsigned char)p[1]; used = 2; }
        if (nocase && lit >= 'A' && lit <= 'Z') lit += 32;
        ok = lit == c;
    }
    return ok && naive_match(p + used, plen - used, s + 1, slen - 1, nocase);
}

static void test_glob_against_naive(void) {
    static const char pattern_alphabet[] = "ab*?[]^-\\A";
    static const char string_alphabet[] = "abAB-]^\\";
    char p[10], s[10];
    int bad = 0;
    for (int i = 0; i < 200000; i++) {
        int plen = (int)(test_rand() % 9), slen = 1 + (int)(test_rand() % 8);
        int nocase = (int)(test_rand() & 1);
        for (int k = 0; k < plen; k++) p[k] = pattern_alphabet[test_rand() % (sizeof pattern_alphabet - 1)];
        for (int k = 0; k < slen; k++) s[k] = string_alphabet[test_rand() % (sizeof string_alphabet - 1)];
        int expect = naive_match(p, plen, s, slen, nocase);
        if (stringmatchlen(p, plen, s, slen, nocase) != expect && bad++ < 5)
            printf("      pattern \"%.*s\" string \"%.*s\" nocase %d: expected %d\n",
                   plen, p, slen, s, nocase, expect);
    }
    CHECK_EQ_INT(bad, 0);
}

/* Patterns that make a backtracking matcher exponential (or recurse once
 * per star) must finish quickly here; if they did not, this test would hang
 * and the runner's timeout would fail it. */
static void test_glob_pathological(void) {
    size_t slen = 20000;
    char *s = repeat_string("", 'a', slen);
    char *p = malloc(4 * 1000 + 2);
    size_t n = 0;
    for (int i = 0; i < 1000; i++) { p[n++] = 'a'; p[n++] = '*'; }
    p[n++] = 'b';
    CHECK(stringmatchlen(p, (int)n, s, (int)slen, 0) == 0);
    p[n - 1] = 'a';                                  /* "a*a*...a*a" */
    CHECK(stringmatchlen(p, (int)n, s, (int)slen, 0) == 1);
    n = 0;                                           /* "*?" x 1000: at the star limit */
    for (int i = 0; i < 1000; i++) { p[n++] = '*'; p[n++] = '?'; }
    CHECK(stringmatchlen(p, (int)n, s, (int)slen, 0) == 1);
    CHECK(stringmatchlen(p, (int)n, s, 999, 0) == 0);
    n = 0;                                           /* worst case for one backtrack point */
    p[n++] = '*';
    for (int i = 0; i < 500; i++) p[n++] = 'a';
    p[n++] = 'b';
    CHECK(stringmatchlen(p, (int)n, s, (int)slen, 0) == 0);
    free(p);
    char *stars = repeat_string("", '*', 100000); /* consecutive stars collapse */
    stars[99999] = 'b';
    CHECK(stringmatchlen(stars, 100000, s, (int)slen, 1) == 0);
    free(stars);
    free(s);
}

/* Builds `unit` repeated n times followed by tail; caller frees. */
static char *repeat_unit(const char *unit, int n, const char *tail) {
    size_t ulen = strlen(unit), tlen = strlen(tail);
    char *p = malloc(ulen * (size_t)n + tlen + 1);
    for (int i = 0; i < n; i++) memcpy(p + ulen * (size_t)i, unit, ulen);
    memcpy(p + ulen * (size_t)n, tail, tlen + 1);
    return p;
}

/* Boundaries of STRINGMATCH_MAX_NESTED_STARS, all checked with KEYS on the
 * reference server. Escaped stars and stars inside classes are not runs. */
static void test_glob_star_limit(void) {
    static const struct { const char *unit; int count; const char *tail; char key; int match; } cases[] = {
        {"*a", 1000, "", 'a', 1}, {"*a", 1001, "", 'a', 0},
        {"a*", 1001, "", 'a', 1}, {"a*", 1002, "", 'a', 0},   /* a final run is free */
        {"*a", 1000, "*", 'a', 1}, {"*a", 1000, "**", 'a', 1},
        {"*a", 999, "***a", 'a', 1},                          /* a run counts once */
        {"*[*]", 1000, "", '*', 1}, {"*[*]", 1001, "", '*', 0},
        {"[*]*", 1001, "", '*', 1},
        {"*\\*", 1000, "", '*', 1}, {"*\\*", 1001, "", '*', 0},
    };
    CHECK_EQ_INT(STRINGMATCH_MAX_NESTED_STARS, 1000);
    char *key_a = repeat_string("", 'a', 1200), *key_star = repeat_string("", '*', 1200);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *pat = repeat_unit(cases[i].unit, cases[i].count, cases[i].tail);
        const char *key = cases[i].key == 'a' ? key_a : key_star;
        if (!CHECK(stringmatch(pat, key, 0) == cases[i].match))
            printf("      \"%s\" x %d + \"%s\"\n", cases[i].unit, cases[i].count, cases[i].tail);
        free(pat);
    }
    free(key_a);
    free(key_star);
}

/* ---- memLowerAscii ------------------------------------------------------------------ */

static void test_mem_lower_ascii(void) {
    char src[300], dst[300];
    /* every byte value, at every alignment and length of the tail */
    for (int off = 0; off < 8; off++) {
        for (int i = 0; i < 256; i++) src[off + i] = (char)i;
        for (size_t len = 250; len <= 256; len++) {
            memset(dst, 0x55, sizeof(dst));
            memLowerAscii(dst + off, src + off, len);
            for (size_t i = 0; i < len; i++) {
                int want = i >= 'A' && i <= 'Z' ? (int)i + 32 : (int)i;
                CHECK_EQ_INT((unsigned char)dst[off + i], want);
            }
            CHECK_EQ_INT((unsigned char)dst[off + len], 0x55); /* nothing past len */
        }
    }
    /* in place, and a sha1 in capitals */
    char sha[] = "0123456789ABCDEFabcdef@[`{Z\x80\xc1\xda" "Az";
    memLowerAscii(sha, sha, strlen(sha));
    CHECK(memcmp(sha, "0123456789abcdefabcdef@[`{z\x80\xc1\xda" "az", strlen(sha)) == 0);
}

TEST_MAIN(
    RUN(test_string2ll_accepts);
    RUN(test_string2ll_rejects);
    RUN(test_string2ll_uses_length_not_nul);
    RUN(test_string2l_range);
    RUN(test_string2ull);
    RUN(test_string2ld_accepts);
    RUN(test_string2ld_rejects);
    RUN(test_string2ld_platform_range);
    RUN(test_string2ld_length);
    RUN(test_string2d);
    RUN(test_string2d_long_input);
    RUN(test_memtoull_accepts);
    RUN(test_memtoull_rejects);
    RUN(test_digits10);
    RUN(test_ll2string_boundaries);
    RUN(test_ll2string_random);
    RUN(test_ull2string);
    RUN(test_ll2string_buffer_too_small);
    RUN(test_ld2string_human_incrbyfloat);
    RUN(test_ld2string_human_huge);
    RUN(test_ld2string_human_edges);
    RUN(test_ld2string_auto);
    RUN(test_ld2string_hex_round_trip);
    RUN(test_ld2string_buffer_too_small);
    RUN(test_d2string_values);
    RUN(test_d2string_round_trip);
    RUN(test_d2string_buffer_too_small);
    RUN(test_fixedpoint_d2string);
    RUN(test_glob_table);
    RUN(test_glob_nocase);
    RUN(test_glob_lengths_and_bytes);
    RUN(test_glob_against_naive);
    RUN(test_glob_star_limit);
    RUN(test_glob_pathological);
    RUN(test_mem_lower_ascii);
)
