/* crc64.h -- CRC-64/Jones, the checksum at the end of RDB files and DUMP
 * payloads.
 *
 * Parameters: polynomial 0xad93d23594c935a9, reflected input and output,
 * initial value 0, no final xor. Check value: crc64(0, "123456789", 9) ==
 * 0xe9c6d914c4b8d9ca. The result is a number; whoever stores it picks the
 * byte order (RDB stores it little-endian).
 *
 * Usage: call crc64_init() once at startup (idempotent; crc64() also calls
 * it on first use as a safety net, but that lazy path is not meant to race
 * between threads). Checksums chain: crc64(crc64(0, a, na), b, nb) equals
 * the checksum of a followed by b.
 */
#ifndef REDIS_CRC64_H
#define REDIS_CRC64_H

#include <stdint.h>

void crc64_init(void);
uint64_t crc64(uint64_t crc, const unsigned char *s, uint64_t l);

#endif /* REDIS_CRC64_H */
