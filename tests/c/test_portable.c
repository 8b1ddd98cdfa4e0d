/* test_portable.c -- unit tests for src/lib/portable.h and src/lib/platform.h.
 *
 * Every helper is exercised at every offset 0..7 of a buffer, so on a
 * strict-alignment port (armv6/armv7/sparc64 under QEMU) any helper that
 * compiled to a wide unaligned load would die with SIGBUS here. Explicit
 * byte-order helpers are checked against hand-written byte sequences, which
 * makes the same test meaningful on little- and big-endian hosts.
 */
#include "test.h"
#include "portable.h"

static _Alignas(16) unsigned char buf[32];

static void test_explicit_le_layout(void) {
    for (size_t off = 0; off < 8; off++) {
        store64le(buf + off, 0x0102030405060708ULL);
        const unsigned char want[8] = {8, 7, 6, 5, 4, 3, 2, 1};
        CHECK_EQ_MEM(buf + off, want, 8);
        CHECK(load64le(buf + off) == 0x0102030405060708ULL);
        store32le(buf + off, 0xA1B2C3D4u);
        CHECK(buf[off] == 0xD4 && buf[off + 3] == 0xA1);
        CHECK(load32le(buf + off) == 0xA1B2C3D4u);
        store16le(buf + off, 0xBEEF);
        CHECK(buf[off] == 0xEF && buf[off + 1] == 0xBE);
        CHECK(load16le(buf + off) == 0xBEEF);
    }
}

static void test_explicit_be_layout(void) {
    for (size_t off = 0; off < 8; off++) {
        store64be(buf + off, 0x0102030405060708ULL);
        const unsigned char want[8] = {1, 2, 3, 4, 5, 6, 7, 8};
        CHECK_EQ_MEM(buf + off, want, 8);
        CHECK(load64be(buf + off) == 0x0102030405060708ULL);
        store32be(buf + off, 0xA1B2C3D4u);
        CHECK(buf[off] == 0xA1 && buf[off + 3] == 0xD4);
        CHECK(load32be(buf + off) == 0xA1B2C3D4u);
        store16be(buf + off, 0xBEEF);
        CHECK(buf[off] == 0xBE && buf[off + 1] == 0xEF);
        CHECK(load16be(buf + off) == 0xBEEF);
    }
}

static void test_host_order_roundtrip(void) {
    for (size_t off = 0; off < 8; off++) {
        store64(buf + off, 0xFEDCBA9876543210ULL);
        CHECK(load64(buf + off) == 0xFEDCBA9876543210ULL);
        store32(buf + off, 0x89ABCDEFu);
        CHECK(load32(buf + off) == 0x89ABCDEFu);
        store16(buf + off, 0x1234);
        CHECK(load16(buf + off) == 0x1234);
    }
}

static void test_host_order_matches_config(void) {
    store32(buf + 1, 0x11223344u);
    if (BYTE_ORDER_LITTLE) CHECK(buf[1] == 0x44);
    else CHECK(buf[1] == 0x11);
    CHECK(BYTE_ORDER_LITTLE + BYTE_ORDER_BIG == 1);
}

static void test_24bit(void) {
    for (size_t off = 0; off < 8; off++) {
        store24le(buf + off, 0xABCDEFu);
        CHECK(buf[off] == 0xEF && buf[off + 1] == 0xCD && buf[off + 2] == 0xAB);
        CHECK(load24le(buf + off) == 0xABCDEFu);
        store24le(buf + off, 0xFF123456u); /* high byte is dropped */
        CHECK(load24le(buf + off) == 0x123456u);
    }
}

static void test_bswap(void) {
    CHECK(bswap16(0x1234) == 0x3412);
    CHECK(bswap32(0x12345678u) == 0x78563412u);
    CHECK(bswap64(0x0102030405060708ULL) == 0x0807060504030201ULL);
}

static void test_alignment_predicates(void) {
    for (size_t off = 0; off < 16; off++) {
        CHECK(is_aligned(buf + off, 8) == (off % 8 == 0));
        size_t skip = bytes_to_alignment(buf + off, 8);
        CHECK(skip < 8);
        CHECK(is_aligned(buf + off + skip, 8));
    }
}

static void test_aligned_access_decision(void) {
#if defined(__arm__) || defined(__sparc__) || defined(__mips__)
    int must_be_aligned = 1;
#else
    int must_be_aligned = 0;
#endif
#ifdef USE_ALIGNED_ACCESS
    int aligned = 1;
#else
    int aligned = 0;
#endif
#ifdef HAVE_UNALIGNED_WORD_ACCESS
    CHECK(!aligned);
#endif
    if (must_be_aligned) CHECK(aligned);
    printf("    USE_ALIGNED_ACCESS=%d, %d-bit, %s-endian\n", aligned, SIZEOF_POINTER_BITS,
           BYTE_ORDER_BIG ? "big" : "little");
}

TEST_MAIN(
    RUN(test_explicit_le_layout);
    RUN(test_explicit_be_layout);
    RUN(test_host_order_roundtrip);
    RUN(test_host_order_matches_config);
    RUN(test_24bit);
    RUN(test_bswap);
    RUN(test_alignment_predicates);
    RUN(test_aligned_access_decision);
)
