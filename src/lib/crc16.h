/* crc16.h -- CRC-16/XMODEM and Redis Cluster's key -> hash slot mapping.
 *
 * A cluster node and every cluster-aware client must agree on the slot of
 * each key bit for bit, so the mapping is Redis's: CRC-16/XMODEM (poly
 * 0x1021, init 0, no reflection, no final xor) of the key, or of its hash
 * tag, modulo 16384. No server state: a library with unit tests
 * (tests/c/test_crc16.c).
 */
#ifndef REDIS_CRC16_H
#define REDIS_CRC16_H

#include <stddef.h>
#include <stdint.h>

#define CLUSTER_SLOTS 16384

uint16_t crc16(const char *buf, size_t len);

/* The hash slot of key[0..len). A key holding a '{' followed later by a '}'
 * with at least one byte between them hashes only those bytes (its "hash
 * tag": the first '{' and the first '}' after it); any other key -- no '{',
 * no '}' after it, or "{}" -- hashes whole. */
unsigned int keyHashSlot(const char *key, size_t len);

#endif /* REDIS_CRC16_H */
