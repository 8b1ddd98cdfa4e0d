/* test_crc16.c -- CRC-16/XMODEM against its published check value and a
 * bit-at-a-time definition, and keyHashSlot against slots Redis 7.0.15's
 * CLUSTER KEYSLOT gave for the same keys (hash-tag edge cases included).
 */
#include "test.h"
#include "crc16.h"

static uint16_t crc16_bitwise(const unsigned char *s, size_t len) {
    uint16_t crc = 0;
    for (size_t i = 0; i < len; i++) {
        crc ^= (uint16_t)(s[i] << 8);
        for (int b = 0; b < 8; b++) crc = (crc & 0x8000) ? (uint16_t)((crc << 1) ^ 0x1021) : (uint16_t)(crc << 1);
    }
    return crc;
}

static void test_check_value(void) {
    CHECK_EQ_INT(crc16("123456789", 9), 0x31c3);
    CHECK_EQ_INT(crc16("", 0), 0);
}

static void test_table_matches_bitwise(void) {
    unsigned char buf[300];
    for (size_t i = 0; i < sizeof buf; i++) buf[i] = (unsigned char)(i * 7 + 3);
    for (size_t len = 0; len <= sizeof buf; len += 13)
        CHECK_EQ_INT(crc16((const char *)buf, len), crc16_bitwise(buf, len));
    for (int b = 0; b < 256; b++) {
        unsigned char c = (unsigned char)b;
        CHECK_EQ_INT(crc16((const char *)&c, 1), crc16_bitwise(&c, 1));
    }
}

/* Slots from Redis 7.0.15 (CLUSTER KEYSLOT). */
static void test_slots_match_redis(void) {
    static const struct { const char *key; unsigned slot; } v[] = {
        {"foo", 12182}, {"bar", 5061}, {"", 0}, {"{}", 15257}, {"{", 4092}, {"}", 12090},
        {"{}{a}", 13650}, {"a{b}c", 3300}, {"foo{}{bar}", 8363}, {"foo{{bar}}zap", 4015},
        {"foo{bar}{zap}", 5061}, {"{user1000}.following", 3443}, {"{user1000}.followers", 3443},
        {"{bar", 4015}, {"x}{y}", 12222}, {"123456789", 12739},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        unsigned got = keyHashSlot(v[i].key, strlen(v[i].key));
        if (!CHECK(got == v[i].slot)) printf("      key \"%s\": got %u, expected %u\n", v[i].key, got, v[i].slot);
    }
}

/* Binary keys: the tag search stops at the length, not at a NUL. */
static void test_binary_keys(void) {
    const char k[] = {'a', '\0', '{', 'x', '}', 'b'};
    CHECK_EQ_INT(keyHashSlot(k, sizeof k), keyHashSlot("x", 1));
    CHECK_EQ_INT(keyHashSlot(k, 3), crc16(k, 3) & 16383); /* '{' with no '}' within the length */
}

TEST_MAIN(
    RUN(test_check_value);
    RUN(test_table_matches_bitwise);
    RUN(test_slots_match_redis);
    RUN(test_binary_keys);
)
