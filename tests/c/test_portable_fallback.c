/* test_portable_fallback.c -- portable.h as a compiler without the
 * __builtin_bswapN builtins sees it.
 *
 * PORTABLE_FORCE_BSWAP_FALLBACK makes bswapN() (and so every explicit
 * byte-order helper on a host of the other order) use the shift-and-mask
 * versions. They are compared with the builtins of this compiler on edge
 * values and random ones, and the le/be helpers are checked against
 * hand-written byte sequences, as in test_portable.c.
 */
#define PORTABLE_FORCE_BSWAP_FALLBACK 1
#include "test.h"
#include "portable.h"

static void test_fallback_is_selected(void) { CHECK_EQ_INT(PORTABLE_BSWAP_BUILTINS, 0); }

static void test_fallback_matches_builtins(void) {
    static const uint64_t edges[] = {0, 1, 0xFF, 0xFF00, 0x0102030405060708ULL, 0x8000000000000000ULL,
                                     0xFFFFFFFFFFFFFFFFULL, 0xDEADBEEFCAFEBABEULL};
    int wrong = 0;
    for (size_t i = 0; i < sizeof edges / sizeof edges[0] + 100000; i++) {
        uint64_t v = i < sizeof edges / sizeof edges[0] ? edges[i] : test_rand();
        wrong += bswap16((uint16_t)v) != __builtin_bswap16((uint16_t)v);
        wrong += bswap32((uint32_t)v) != __builtin_bswap32((uint32_t)v);
        wrong += bswap64(v) != __builtin_bswap64(v);
        wrong += bswap64_portable(v) != __builtin_bswap64(v);
    }
    CHECK_EQ_INT(wrong, 0);
    CHECK(bswap16(0x1234) == 0x3412);
    CHECK(bswap32(0x12345678u) == 0x78563412u);
    CHECK(bswap64(0x0102030405060708ULL) == 0x0807060504030201ULL);
}

static void test_byte_order_helpers_on_fallback(void) {
    static _Alignas(16) unsigned char buf[24];
    for (size_t off = 0; off < 8; off++) {
        const unsigned char le[8] = {8, 7, 6, 5, 4, 3, 2, 1}, be[8] = {1, 2, 3, 4, 5, 6, 7, 8};
        store64le(buf + off, 0x0102030405060708ULL);
        CHECK_EQ_MEM(buf + off, le, 8);
        CHECK(load64le(buf + off) == 0x0102030405060708ULL);
        store64be(buf + off, 0x0102030405060708ULL);
        CHECK_EQ_MEM(buf + off, be, 8);
        CHECK(load64be(buf + off) == 0x0102030405060708ULL);
        store32be(buf + off, 0xA1B2C3D4u);
        CHECK(buf[off] == 0xA1 && buf[off + 3] == 0xD4 && load32be(buf + off) == 0xA1B2C3D4u);
        store16be(buf + off, 0xBEEF);
        CHECK(buf[off] == 0xBE && buf[off + 1] == 0xEF && load16be(buf + off) == 0xBEEF);
        store32le(buf + off, 0xA1B2C3D4u);
        CHECK(buf[off] == 0xD4 && buf[off + 3] == 0xA1 && load32le(buf + off) == 0xA1B2C3D4u);
        store16le(buf + off, 0xBEEF);
        CHECK(buf[off] == 0xEF && buf[off + 1] == 0xBE && load16le(buf + off) == 0xBEEF);
    }
}

TEST_MAIN(
    RUN(test_fallback_is_selected);
    RUN(test_fallback_matches_builtins);
    RUN(test_byte_order_helpers_on_fallback);
)
