/* clusterbus.h -- the Redis Cluster bus message format (protocol version 1,
 * Redis 7.0), encoded and decoded byte by byte: no struct is ever laid over
 * a buffer, so the code is the same on big-endian and strict-alignment CPUs.
 *
 * Byte order: every multi-byte field of a message is big-endian (network
 * order), read and written only through portable.h's load*be/store*be --
 * but MODULE's module_id. Redis 7.0 copies that one in its host's order
 * (its own "already endian adjusted" id, compared as it arrives), so every
 * Redis node on x86 or ARM sends it little-endian; we read and write it
 * little-endian on every CPU, the order our nodes and those share.
 *
 * Layout (offsets in bytes, from Redis 7.0's clusterMsg):
 *
 *     0 sig "RCmb"      4 totlen u32     8 ver u16 (1)   10 port u16
 *    12 type u16       14 count u16     16 currentEpoch u64
 *    24 configEpoch u64                 32 offset u64   40 sender[40]
 *    80 myslots[2048] 2128 replicaof[40] 2168 myip[46]  2214 extensions u16
 *  2216 reserved[30]  2246 pport u16   2248 cport u16  2250 flags u16
 *  2252 state u8      2253 mflags[3]   2256 payload, by type:
 *
 *    PING, PONG, MEET  count gossip entries of 104 bytes (name[40]
 *                      ping_sent u32, pong_received u32, ip[46], port u16,
 *                      cport u16, flags u16, pport u16, reserved u16), then,
 *                      when mflags[0] has CLUSTERBUS_MFLAG0_EXT_DATA,
 *                      `extensions` extensions: length u32 (whole extension,
 *                      a multiple of 8), type u16, reserved u16, data
 *                      (type 0: the hostname, NUL-terminated, zero-padded)
 *    FAIL              name[40]
 *    PUBLISH(SHARD)    channel_len u32, message_len u32, channel, message
 *    UPDATE            configEpoch u64, name[40], slots[2048]
 *    MODULE            module_id u64 (little-endian, see below), len u32,
 *                      type u8, payload[len]
 *    FAILOVER_AUTH_REQUEST / _ACK, MFSTART: nothing
 *
 * The decoder is given untrusted bytes: every length and count is checked
 * against the buffer before anything is read, and a message whose length
 * does not match what its type and counts say is refused (as Redis refuses
 * it), never read past its end. Library rules: no server state, results
 * through CLUSTERBUS_* codes, unit tests in tests/c/test_clusterbus.c.
 */
#ifndef REDIS_CLUSTERBUS_H
#define REDIS_CLUSTERBUS_H

#include <stddef.h>
#include <stdint.h>

#define CLUSTERBUS_NAMELEN 40
#define CLUSTERBUS_IPLEN 46
#define CLUSTERBUS_SLOTS_BYTES 2048
#define CLUSTERBUS_HEADER_LEN 2256
#define CLUSTERBUS_GOSSIP_LEN 104
#define CLUSTERBUS_EXT_HEADER_LEN 8
#define CLUSTERBUS_VERSION 1

enum {
    CLUSTERBUS_PING = 0,
    CLUSTERBUS_PONG = 1,
    CLUSTERBUS_MEET = 2,
    CLUSTERBUS_FAIL = 3,
    CLUSTERBUS_PUBLISH = 4,
    CLUSTERBUS_FAILOVER_AUTH_REQUEST = 5,
    CLUSTERBUS_FAILOVER_AUTH_ACK = 6,
    CLUSTERBUS_UPDATE = 7,
    CLUSTERBUS_MFSTART = 8,
    CLUSTERBUS_MODULE = 9,
    CLUSTERBUS_PUBLISHSHARD = 10,
    CLUSTERBUS_TYPE_COUNT = 11
};

#define CLUSTERBUS_MFLAG0_PAUSED (1 << 0)
#define CLUSTERBUS_MFLAG0_FORCEACK (1 << 1)
#define CLUSTERBUS_MFLAG0_EXT_DATA (1 << 2)

#define CLUSTERBUS_EXT_HOSTNAME 0

/* Results. */
#define CLUSTERBUS_OK 0
#define CLUSTERBUS_NEED_MORE 1   /* a frame is not complete yet */
#define CLUSTERBUS_ERR_SIG -1    /* not "RCmb" */
#define CLUSTERBUS_ERR_LENGTH -2 /* totlen too small, too large, or not what the content says */
#define CLUSTERBUS_ERR_VERSION -3
#define CLUSTERBUS_ERR_TYPE -4   /* unknown message type */
#define CLUSTERBUS_ERR_EXT -5    /* an extension not padded to 8 bytes or past the end */

/* One entry of a gossip section; ip is NUL-terminated. */
typedef struct clusterBusGossip {
    char name[CLUSTERBUS_NAMELEN];
    uint32_t ping_sent, pong_received;
    char ip[CLUSTERBUS_IPLEN + 1];
    uint16_t port, cport, flags, pport;
} clusterBusGossip;

/* A decoded message: the header's fields, and views into the buffer for
 * the payload (valid while the buffer is). */
typedef struct clusterBusMsg {
    uint32_t totlen;
    uint16_t type, count, port, pport, cport, flags, extensions;
    uint64_t current_epoch, config_epoch, offset;
    char sender[CLUSTERBUS_NAMELEN];
    unsigned char myslots[CLUSTERBUS_SLOTS_BYTES];
    char replicaof[CLUSTERBUS_NAMELEN];
    char myip[CLUSTERBUS_IPLEN + 1]; /* NUL-terminated */
    unsigned char state;
    unsigned char mflags[3];
    /* PING / PONG / MEET */
    const unsigned char *gossip;     /* count entries: clusterBusGossipAt() */
    const char *hostname;            /* the hostname extension, NULL if none */
    size_t hostname_len;
    int unknown_extensions;          /* extensions of types not known here (skipped) */
    /* FAIL */
    const char *about;               /* CLUSTERBUS_NAMELEN bytes */
    /* PUBLISH, PUBLISHSHARD */
    const unsigned char *channel, *message;
    uint32_t channel_len, message_len;
    /* UPDATE */
    uint64_t update_epoch;
    const char *update_name;         /* CLUSTERBUS_NAMELEN bytes */
    const unsigned char *update_slots; /* CLUSTERBUS_SLOTS_BYTES bytes */
    /* MODULE */
    uint64_t module_id;
    uint8_t module_type;
    const unsigned char *module_payload;
    uint32_t module_len;
} clusterBusMsg;

/* Framing: with the first len bytes of a stream, the length of the message
 * they start in *totlen and CLUSTERBUS_OK; CLUSTERBUS_NEED_MORE below 8
 * bytes; CLUSTERBUS_ERR_SIG or CLUSTERBUS_ERR_LENGTH (shorter than a
 * header, or longer than max_len) when the link must be dropped. */
int clusterBusFrameLength(const unsigned char *buf, size_t len, uint32_t max_len, uint32_t *totlen);

/* Decodes one whole message of exactly len bytes into *m. Any result but
 * CLUSTERBUS_OK means the message is to be dropped; *m is then undefined. */
int clusterBusDecode(const unsigned char *buf, size_t len, clusterBusMsg *m);

/* The i-th gossip entry (0 <= i < m->count) of a decoded PING/PONG/MEET. */
void clusterBusGossipAt(const clusterBusMsg *m, int i, clusterBusGossip *g);

/* The name of a message type ("ping", "pong" ..., "unknown"), as Redis's
 * CLUSTER INFO statistics call it. */
const char *clusterBusTypeName(int type);

/* ---- encoding: the caller sizes the buffer with the *Size function, then
 * writes the header and the payload; every function returns bytes written. */

size_t clusterBusPingSize(int gossip_count, size_t hostname_len); /* hostname_len 0: no extension */
size_t clusterBusPublishSize(uint32_t channel_len, uint32_t message_len);
size_t clusterBusModuleSize(uint32_t payload_len);
size_t clusterBusPayloadSize(int type); /* FAIL, UPDATE, AUTH_*, MFSTART: fixed sizes */

/* The header, from m's header fields (type, count, epochs, ...) and totlen. */
void clusterBusWriteHeader(unsigned char *buf, const clusterBusMsg *m, uint32_t totlen);
void clusterBusWriteGossip(unsigned char *buf, int i, const clusterBusGossip *g);
/* The hostname extension after count gossip entries; sets EXT_DATA and
 * extensions = 1 in the header already written. */
size_t clusterBusWriteHostname(unsigned char *buf, int count, const char *hostname, size_t len);
void clusterBusWriteFail(unsigned char *buf, const char *name);
void clusterBusWritePublish(unsigned char *buf, const void *channel, uint32_t channel_len, const void *message,
                            uint32_t message_len);
void clusterBusWriteModule(unsigned char *buf, uint64_t module_id, uint8_t type, const void *payload, uint32_t len);
void clusterBusWriteUpdate(unsigned char *buf, uint64_t config_epoch, const char *name, const unsigned char *slots);

#endif /* REDIS_CLUSTERBUS_H */
