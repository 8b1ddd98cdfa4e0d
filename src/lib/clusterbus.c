/* clusterbus.c -- the cluster bus codec (format and rules in clusterbus.h).
 *
 * Decisions:
 * - Offsets are named constants and every field is reached through
 *   portable.h's big-endian loads and stores: the buffer may sit at any
 *   address, and the same bytes mean the same on every CPU.
 * - The decoder checks, before reading each part, that the part lies
 *   inside the message (sizes are computed in 64 bits, so no count or
 *   length can wrap a 32-bit sum), then that the total is exactly the
 *   message's length, as Redis requires: a message too long is refused as
 *   firmly as one too short.
 * - Payloads are not copied: the decoded message points into the buffer
 *   (gossip entries are decoded one at a time by clusterBusGossipAt).
 * - A hostname extension must hold a NUL inside its own bytes; extensions
 *   of other types (newer Redis versions send some) are skipped by their
 *   length and counted, as Redis 7.0 skips them.
 */
#include "clusterbus.h"

#include <string.h>

#include "portable.h"

/* header offsets */
#define OFF_SIG 0
#define OFF_TOTLEN 4
#define OFF_VER 8
#define OFF_PORT 10
#define OFF_TYPE 12
#define OFF_COUNT 14
#define OFF_CURRENT_EPOCH 16
#define OFF_CONFIG_EPOCH 24
#define OFF_OFFSET 32
#define OFF_SENDER 40
#define OFF_MYSLOTS 80
#define OFF_REPLICAOF 2128
#define OFF_MYIP 2168
#define OFF_EXTENSIONS 2214
#define OFF_PPORT 2246
#define OFF_CPORT 2248
#define OFF_FLAGS 2250
#define OFF_STATE 2252
#define OFF_MFLAGS 2253

/* gossip entry offsets */
#define G_NAME 0
#define G_PING_SENT 40
#define G_PONG_RECEIVED 44
#define G_IP 48
#define G_PORT 94
#define G_CPORT 96
#define G_FLAGS 98
#define G_PPORT 100

#define FAIL_LEN CLUSTERBUS_NAMELEN
#define PUBLISH_FIXED 8
#define UPDATE_LEN (8 + CLUSTERBUS_NAMELEN + CLUSTERBUS_SLOTS_BYTES)
#define MODULE_FIXED 13

static const char *type_names[CLUSTERBUS_TYPE_COUNT] = {
    "ping", "pong", "meet", "fail", "publish", "auth-req", "auth-ack", "update", "mfstart", "module", "publishshard",
};

const char *clusterBusTypeName(int type) {
    return type >= 0 && type < CLUSTERBUS_TYPE_COUNT ? type_names[type] : "unknown";
}

/* ---- decoding ------------------------------------------------------------------------ */

int clusterBusFrameLength(const unsigned char *buf, size_t len, uint32_t max_len, uint32_t *totlen) {
    if (len < 8) return CLUSTERBUS_NEED_MORE;
    if (memcmp(buf + OFF_SIG, "RCmb", 4) != 0) return CLUSTERBUS_ERR_SIG;
    uint32_t n = load32be(buf + OFF_TOTLEN);
    if (n < CLUSTERBUS_HEADER_LEN || n > max_len) return CLUSTERBUS_ERR_LENGTH;
    *totlen = n;
    return CLUSTERBUS_OK;
}

/* Copies a fixed-size text field, stopping at its first NUL. */
static void copyText(char *dst, const unsigned char *src, size_t size) {
    size_t n = 0;
    while (n < size && src[n]) n++;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

static void decodeHeader(const unsigned char *buf, clusterBusMsg *m) {
    m->totlen = load32be(buf + OFF_TOTLEN);
    m->port = load16be(buf + OFF_PORT);
    m->type = load16be(buf + OFF_TYPE);
    m->count = load16be(buf + OFF_COUNT);
    m->current_epoch = load64be(buf + OFF_CURRENT_EPOCH);
    m->config_epoch = load64be(buf + OFF_CONFIG_EPOCH);
    m->offset = load64be(buf + OFF_OFFSET);
    memcpy(m->sender, buf + OFF_SENDER, CLUSTERBUS_NAMELEN);
    memcpy(m->myslots, buf + OFF_MYSLOTS, CLUSTERBUS_SLOTS_BYTES);
    memcpy(m->replicaof, buf + OFF_REPLICAOF, CLUSTERBUS_NAMELEN);
    copyText(m->myip, buf + OFF_MYIP, CLUSTERBUS_IPLEN);
    m->extensions = load16be(buf + OFF_EXTENSIONS);
    m->pport = load16be(buf + OFF_PPORT);
    m->cport = load16be(buf + OFF_CPORT);
    m->flags = load16be(buf + OFF_FLAGS);
    m->state = buf[OFF_STATE];
    memcpy(m->mflags, buf + OFF_MFLAGS, 3);
}

/* The extensions after the gossip section, from pos to len exactly. */
static int decodeExtensions(const unsigned char *buf, uint64_t pos, uint64_t len, clusterBusMsg *m) {
    for (uint16_t e = 0; e < m->extensions; e++) {
        if (len - pos < CLUSTERBUS_EXT_HEADER_LEN) return CLUSTERBUS_ERR_EXT;
        uint32_t extlen = load32be(buf + pos);
        uint16_t type = load16be(buf + pos + 4);
        if (extlen % 8 != 0 || extlen < CLUSTERBUS_EXT_HEADER_LEN || extlen > len - pos) return CLUSTERBUS_ERR_EXT;
        const unsigned char *data = buf + pos + CLUSTERBUS_EXT_HEADER_LEN;
        size_t datalen = extlen - CLUSTERBUS_EXT_HEADER_LEN;
        if (type == CLUSTERBUS_EXT_HOSTNAME) {
            const unsigned char *nul = memchr(data, 0, datalen);
            if (nul == NULL) return CLUSTERBUS_ERR_EXT;
            m->hostname = (const char *)data;
            m->hostname_len = (size_t)(nul - data);
        } else {
            m->unknown_extensions++;
        }
        pos += extlen;
    }
    return pos == len ? CLUSTERBUS_OK : CLUSTERBUS_ERR_LENGTH;
}

static int decodePing(const unsigned char *buf, uint64_t len, clusterBusMsg *m) {
    uint64_t pos = CLUSTERBUS_HEADER_LEN + (uint64_t)m->count * CLUSTERBUS_GOSSIP_LEN;
    if (pos > len) return CLUSTERBUS_ERR_LENGTH;
    m->gossip = buf + CLUSTERBUS_HEADER_LEN;
    if (!(m->mflags[0] & CLUSTERBUS_MFLAG0_EXT_DATA)) return pos == len ? CLUSTERBUS_OK : CLUSTERBUS_ERR_LENGTH;
    return decodeExtensions(buf, pos, len, m);
}

static int decodePublish(const unsigned char *p, uint64_t room, clusterBusMsg *m) {
    if (room < PUBLISH_FIXED) return CLUSTERBUS_ERR_LENGTH;
    m->channel_len = load32be(p);
    m->message_len = load32be(p + 4);
    if ((uint64_t)PUBLISH_FIXED + m->channel_len + m->message_len != room) return CLUSTERBUS_ERR_LENGTH;
    m->channel = p + PUBLISH_FIXED;
    m->message = m->channel + m->channel_len;
    return CLUSTERBUS_OK;
}

static int decodeModule(const unsigned char *p, uint64_t room, clusterBusMsg *m) {
    if (room < MODULE_FIXED) return CLUSTERBUS_ERR_LENGTH;
    m->module_id = load64le(p); /* host order on Redis's side: see clusterbus.h */
    m->module_len = load32be(p + 8);
    m->module_type = p[12];
    if ((uint64_t)MODULE_FIXED + m->module_len != room) return CLUSTERBUS_ERR_LENGTH;
    m->module_payload = p + MODULE_FIXED;
    return CLUSTERBUS_OK;
}

/* The payload of the fixed-size types must fill the message exactly. */
static int decodeFixed(const unsigned char *p, uint64_t room, clusterBusMsg *m) {
    switch (m->type) {
    case CLUSTERBUS_FAIL:
        if (room != FAIL_LEN) return CLUSTERBUS_ERR_LENGTH;
        m->about = (const char *)p;
        return CLUSTERBUS_OK;
    case CLUSTERBUS_UPDATE:
        if (room != UPDATE_LEN) return CLUSTERBUS_ERR_LENGTH;
        m->update_epoch = load64be(p);
        m->update_name = (const char *)p + 8;
        m->update_slots = p + 8 + CLUSTERBUS_NAMELEN;
        return CLUSTERBUS_OK;
    default: /* FAILOVER_AUTH_REQUEST, FAILOVER_AUTH_ACK, MFSTART */
        return room == 0 ? CLUSTERBUS_OK : CLUSTERBUS_ERR_LENGTH;
    }
}

int clusterBusDecode(const unsigned char *buf, size_t len, clusterBusMsg *m) {
    if (len < 8) return CLUSTERBUS_ERR_LENGTH;
    if (memcmp(buf + OFF_SIG, "RCmb", 4) != 0) return CLUSTERBUS_ERR_SIG;
    if (len < CLUSTERBUS_HEADER_LEN || load32be(buf + OFF_TOTLEN) != len) return CLUSTERBUS_ERR_LENGTH;
    if (load16be(buf + OFF_VER) != CLUSTERBUS_VERSION) return CLUSTERBUS_ERR_VERSION;
    memset(m, 0, sizeof(*m));
    decodeHeader(buf, m);
    const unsigned char *payload = buf + CLUSTERBUS_HEADER_LEN;
    uint64_t room = (uint64_t)len - CLUSTERBUS_HEADER_LEN;
    switch (m->type) {
    case CLUSTERBUS_PING:
    case CLUSTERBUS_PONG:
    case CLUSTERBUS_MEET: return decodePing(buf, len, m);
    case CLUSTERBUS_PUBLISH:
    case CLUSTERBUS_PUBLISHSHARD: return decodePublish(payload, room, m);
    case CLUSTERBUS_MODULE: return decodeModule(payload, room, m);
    case CLUSTERBUS_FAIL:
    case CLUSTERBUS_UPDATE:
    case CLUSTERBUS_FAILOVER_AUTH_REQUEST:
    case CLUSTERBUS_FAILOVER_AUTH_ACK:
    case CLUSTERBUS_MFSTART: return decodeFixed(payload, room, m);
    default: return CLUSTERBUS_ERR_TYPE;
    }
}

void clusterBusGossipAt(const clusterBusMsg *m, int i, clusterBusGossip *g) {
    const unsigned char *e = m->gossip + (size_t)i * CLUSTERBUS_GOSSIP_LEN;
    memcpy(g->name, e + G_NAME, CLUSTERBUS_NAMELEN);
    g->ping_sent = load32be(e + G_PING_SENT);
    g->pong_received = load32be(e + G_PONG_RECEIVED);
    copyText(g->ip, e + G_IP, CLUSTERBUS_IPLEN);
    g->port = load16be(e + G_PORT);
    g->cport = load16be(e + G_CPORT);
    g->flags = load16be(e + G_FLAGS);
    g->pport = load16be(e + G_PPORT);
}

/* ---- encoding -------------------------------------------------------------------------- */

static size_t hostnameExtSize(size_t hostname_len) {
    if (hostname_len == 0) return 0;
    return CLUSTERBUS_EXT_HEADER_LEN + ((hostname_len + 1 + 7) / 8) * 8;
}

size_t clusterBusPingSize(int gossip_count, size_t hostname_len) {
    return CLUSTERBUS_HEADER_LEN + (size_t)gossip_count * CLUSTERBUS_GOSSIP_LEN + hostnameExtSize(hostname_len);
}

size_t clusterBusPublishSize(uint32_t channel_len, uint32_t message_len) {
    return CLUSTERBUS_HEADER_LEN + PUBLISH_FIXED + (size_t)channel_len + message_len;
}

size_t clusterBusModuleSize(uint32_t payload_len) {
    return CLUSTERBUS_HEADER_LEN + MODULE_FIXED + (size_t)payload_len;
}

size_t clusterBusPayloadSize(int type) {
    if (type == CLUSTERBUS_FAIL) return CLUSTERBUS_HEADER_LEN + FAIL_LEN;
    if (type == CLUSTERBUS_UPDATE) return CLUSTERBUS_HEADER_LEN + UPDATE_LEN;
    return CLUSTERBUS_HEADER_LEN;
}

/* A text field, NUL-padded to its size (cut to size - 1 bytes). */
static void writeText(unsigned char *dst, const char *src, size_t size) {
    memset(dst, 0, size);
    size_t n = strlen(src);
    if (n > size - 1) n = size - 1;
    memcpy(dst, src, n);
}

void clusterBusWriteHeader(unsigned char *buf, const clusterBusMsg *m, uint32_t totlen) {
    memset(buf, 0, CLUSTERBUS_HEADER_LEN);
    memcpy(buf + OFF_SIG, "RCmb", 4);
    store32be(buf + OFF_TOTLEN, totlen);
    store16be(buf + OFF_VER, CLUSTERBUS_VERSION);
    store16be(buf + OFF_PORT, m->port);
    store16be(buf + OFF_TYPE, m->type);
    store16be(buf + OFF_COUNT, m->count);
    store64be(buf + OFF_CURRENT_EPOCH, m->current_epoch);
    store64be(buf + OFF_CONFIG_EPOCH, m->config_epoch);
    store64be(buf + OFF_OFFSET, m->offset);
    memcpy(buf + OFF_SENDER, m->sender, CLUSTERBUS_NAMELEN);
    memcpy(buf + OFF_MYSLOTS, m->myslots, CLUSTERBUS_SLOTS_BYTES);
    memcpy(buf + OFF_REPLICAOF, m->replicaof, CLUSTERBUS_NAMELEN);
    writeText(buf + OFF_MYIP, m->myip, CLUSTERBUS_IPLEN);
    store16be(buf + OFF_EXTENSIONS, m->extensions);
    store16be(buf + OFF_PPORT, m->pport);
    store16be(buf + OFF_CPORT, m->cport);
    store16be(buf + OFF_FLAGS, m->flags);
    buf[OFF_STATE] = m->state;
    memcpy(buf + OFF_MFLAGS, m->mflags, 3);
}

void clusterBusWriteGossip(unsigned char *buf, int i, const clusterBusGossip *g) {
    unsigned char *e = buf + CLUSTERBUS_HEADER_LEN + (size_t)i * CLUSTERBUS_GOSSIP_LEN;
    memset(e, 0, CLUSTERBUS_GOSSIP_LEN);
    memcpy(e + G_NAME, g->name, CLUSTERBUS_NAMELEN);
    store32be(e + G_PING_SENT, g->ping_sent);
    store32be(e + G_PONG_RECEIVED, g->pong_received);
    writeText(e + G_IP, g->ip, CLUSTERBUS_IPLEN);
    store16be(e + G_PORT, g->port);
    store16be(e + G_CPORT, g->cport);
    store16be(e + G_FLAGS, g->flags);
    store16be(e + G_PPORT, g->pport);
}

size_t clusterBusWriteHostname(unsigned char *buf, int count, const char *hostname, size_t len) {
    size_t size = hostnameExtSize(len);
    if (size == 0) return 0;
    unsigned char *e = buf + CLUSTERBUS_HEADER_LEN + (size_t)count * CLUSTERBUS_GOSSIP_LEN;
    memset(e, 0, size);
    store32be(e, (uint32_t)size);
    store16be(e + 4, CLUSTERBUS_EXT_HOSTNAME);
    memcpy(e + CLUSTERBUS_EXT_HEADER_LEN, hostname, len);
    buf[OFF_MFLAGS] |= CLUSTERBUS_MFLAG0_EXT_DATA;
    store16be(buf + OFF_EXTENSIONS, 1);
    return size;
}

void clusterBusWriteFail(unsigned char *buf, const char *name) {
    memcpy(buf + CLUSTERBUS_HEADER_LEN, name, CLUSTERBUS_NAMELEN);
}

void clusterBusWritePublish(unsigned char *buf, const void *channel, uint32_t channel_len, const void *message,
                            uint32_t message_len) {
    unsigned char *p = buf + CLUSTERBUS_HEADER_LEN;
    store32be(p, channel_len);
    store32be(p + 4, message_len);
    if (channel_len) memcpy(p + PUBLISH_FIXED, channel, channel_len);
    if (message_len) memcpy(p + PUBLISH_FIXED + channel_len, message, message_len);
}

void clusterBusWriteModule(unsigned char *buf, uint64_t module_id, uint8_t type, const void *payload, uint32_t len) {
    unsigned char *p = buf + CLUSTERBUS_HEADER_LEN;
    store64le(p, module_id);
    store32be(p + 8, len);
    p[12] = type;
    if (len) memcpy(p + MODULE_FIXED, payload, len);
}

void clusterBusWriteUpdate(unsigned char *buf, uint64_t config_epoch, const char *name, const unsigned char *slots) {
    unsigned char *p = buf + CLUSTERBUS_HEADER_LEN;
    store64be(p, config_epoch);
    memcpy(p + 8, name, CLUSTERBUS_NAMELEN);
    memcpy(p + 8 + CLUSTERBUS_NAMELEN, slots, CLUSTERBUS_SLOTS_BYTES);
}
