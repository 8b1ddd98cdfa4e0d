/* rclient_slot.c -- which cluster slot a key lives in: CRC-16/XMODEM
 * (polynomial 0x1021, initial value 0, no reflection) of the key, or of
 * its first non-empty {hash tag}, modulo 16384, as Redis Cluster computes it.
 *
 * The table is built on first use from the polynomial (256 entries of 16
 * bits, host order: it never leaves this file), so no magic numbers are
 * copied from anywhere; tests/c/test_rclient.c checks the check value of the
 * CRC catalogue ("123456789" -> 0x31C3) and slots Redis itself reports.
 */
#include "rclient.h"

static uint16_t crc_table[256];
static int crc_table_ready;

static void buildTable(void) {
    for (int byte = 0; byte < 256; byte++) {
        uint16_t crc = (uint16_t)(byte << 8);
        for (int bit = 0; bit < 8; bit++)
            crc = (uint16_t)((crc & 0x8000) ? (crc << 1) ^ 0x1021 : crc << 1);
        crc_table[byte] = crc;
    }
    crc_table_ready = 1;
}

uint16_t rcCrc16(const char *buf, size_t len) {
    if (!crc_table_ready) buildTable();
    uint16_t crc = 0;
    for (size_t i = 0; i < len; i++)
        crc = (uint16_t)((crc << 8) ^ crc_table[((crc >> 8) ^ (unsigned char)buf[i]) & 0xff]);
    return crc;
}

/* The hash tag: the bytes between the first '{' and the first '}' after
 * it, when there are some; otherwise the whole key. */
unsigned int rcKeyHashSlot(const char *key, size_t len) {
    size_t open, close;
    for (open = 0; open < len && key[open] != '{'; open++) {}
    if (open < len) {
        for (close = open + 1; close < len && key[close] != '}'; close++) {}
        if (close < len && close > open + 1) return rcCrc16(key + open + 1, close - open - 1) & 16383;
    }
    return rcCrc16(key, len) & 16383;
}
