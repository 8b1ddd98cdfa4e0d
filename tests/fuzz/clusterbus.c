/* clusterbus.c -- fuzz harness: the cluster bus decoder (src/lib/clusterbus.c)
 * on a stream of bytes as a link delivers them.
 *
 * Why: any process that can reach a node's bus port can send it anything,
 * before any authentication. The framing and the decoder must refuse a
 * message whose lengths or counts don't add up, and never read past the
 * bytes they were given; what they accept must be safe to use as the
 * server uses it (every gossip entry, the hostname, a PUBLISH's channel and
 * message, an UPDATE's slots, a MODULE payload).
 *
 * Input: the bytes of a link. Frames are cut as the server cuts them
 * (clusterBusFrameLength, with a 1 MB limit); each whole frame is copied
 * into a heap block of exactly its size, so a read past it is caught, and
 * decoded. Oracle: an accepted PING/PONG/MEET (without extensions of
 * unknown types), FAIL, PUBLISH(SHARD) or UPDATE is encoded again from the
 * decoded fields, and that encoding decodes to the same fields.
 */
#include <string.h>

#include "clusterbus.h"
#include "fuzz.h"
#include "zmalloc.h"

#define MAX_FRAME (1024u * 1024u)

static volatile unsigned sink; /* what is read goes here, so the reads happen */

static void touch(const unsigned char *p, size_t len) {
    if (p && len) sink += p[0] + p[len - 1];
}

/* Everything the server reads of an accepted message. */
static void use(const clusterBusMsg *m) {
    clusterBusGossip g;
    if (m->type == CLUSTERBUS_PING || m->type == CLUSTERBUS_PONG || m->type == CLUSTERBUS_MEET) {
        for (int i = 0; i < m->count; i++) {
            clusterBusGossipAt(m, i, &g);
            FUZZ_CHECK(memchr(g.ip, '\0', sizeof g.ip) != NULL);
            sink += g.port + g.cport + g.flags + (unsigned)g.name[0];
        }
        touch((const unsigned char *)m->hostname, m->hostname_len);
    }
    FUZZ_CHECK(memchr(m->myip, '\0', sizeof m->myip) != NULL);
    if (m->type == CLUSTERBUS_FAIL) touch((const unsigned char *)m->about, CLUSTERBUS_NAMELEN);
    if (m->type == CLUSTERBUS_PUBLISH || m->type == CLUSTERBUS_PUBLISHSHARD) {
        touch(m->channel, m->channel_len);
        touch(m->message, m->message_len);
    }
    if (m->type == CLUSTERBUS_UPDATE) {
        touch((const unsigned char *)m->update_name, CLUSTERBUS_NAMELEN);
        touch(m->update_slots, CLUSTERBUS_SLOTS_BYTES);
    }
    if (m->type == CLUSTERBUS_MODULE) touch(m->module_payload, m->module_len);
    sink += (unsigned)clusterBusTypeName(m->type)[0];
}

/* The header fields an encoding must carry over. */
static void sameHeader(const clusterBusMsg *a, const clusterBusMsg *b) {
    FUZZ_CHECK(a->type == b->type && a->count == b->count && a->port == b->port && a->pport == b->pport);
    FUZZ_CHECK(a->cport == b->cport && a->flags == b->flags && a->state == b->state);
    FUZZ_CHECK(a->current_epoch == b->current_epoch && a->config_epoch == b->config_epoch && a->offset == b->offset);
    /* texts are written back NUL-terminated within their field: at most
     * 45 bytes of an address, as Redis reads it */
    FUZZ_CHECK(!memcmp(a->sender, b->sender, CLUSTERBUS_NAMELEN) && !strncmp(a->myip, b->myip, CLUSTERBUS_IPLEN - 1));
    FUZZ_CHECK(!memcmp(a->myslots, b->myslots, CLUSTERBUS_SLOTS_BYTES));
    FUZZ_CHECK(!memcmp(a->replicaof, b->replicaof, CLUSTERBUS_NAMELEN));
}

/* Encodes m again (the kinds the encoder writes) and checks the result
 * decodes to the same fields. */
static void roundTrip(const clusterBusMsg *m) {
    int t = m->type;
    size_t size;
    if (t == CLUSTERBUS_PING || t == CLUSTERBUS_PONG || t == CLUSTERBUS_MEET) {
        if (m->unknown_extensions || (m->hostname && m->hostname_len == 0)) return;
        size = clusterBusPingSize(m->count, m->hostname ? m->hostname_len : 0);
    } else if (t == CLUSTERBUS_PUBLISH || t == CLUSTERBUS_PUBLISHSHARD) {
        size = clusterBusPublishSize(m->channel_len, m->message_len);
    } else if (t == CLUSTERBUS_FAIL || t == CLUSTERBUS_UPDATE) {
        size = clusterBusPayloadSize(t); /* the whole message's size */
    } else {
        return;
    }
    if (size > MAX_FRAME) return;
    unsigned char *buf = zcalloc(size);
    clusterBusMsg hdr = *m;
    hdr.extensions = 0;
    memset(hdr.mflags, 0, sizeof hdr.mflags);
    clusterBusWriteHeader(buf, &hdr, (uint32_t)size);
    if (t == CLUSTERBUS_PING || t == CLUSTERBUS_PONG || t == CLUSTERBUS_MEET) {
        clusterBusGossip g;
        for (int i = 0; i < m->count; i++) {
            clusterBusGossipAt(m, i, &g);
            clusterBusWriteGossip(buf, i, &g);
        }
        if (m->hostname) clusterBusWriteHostname(buf, m->count, m->hostname, m->hostname_len);
    } else if (t == CLUSTERBUS_FAIL) {
        clusterBusWriteFail(buf, m->about);
    } else if (t == CLUSTERBUS_UPDATE) {
        clusterBusWriteUpdate(buf, m->update_epoch, m->update_name, m->update_slots);
    } else {
        clusterBusWritePublish(buf, m->channel, m->channel_len, m->message, m->message_len);
    }
    clusterBusMsg again;
    FUZZ_CHECK(clusterBusDecode(buf, size, &again) == CLUSTERBUS_OK);
    sameHeader(m, &again);
    if (t == CLUSTERBUS_PING || t == CLUSTERBUS_PONG || t == CLUSTERBUS_MEET) {
        clusterBusGossip g1, g2;
        for (int i = 0; i < m->count; i++) {
            clusterBusGossipAt(m, i, &g1);
            clusterBusGossipAt(&again, i, &g2);
            FUZZ_CHECK(!memcmp(g1.name, g2.name, CLUSTERBUS_NAMELEN) && !strncmp(g1.ip, g2.ip, CLUSTERBUS_IPLEN - 1));
            FUZZ_CHECK(g1.port == g2.port && g1.cport == g2.cport && g1.flags == g2.flags && g1.pport == g2.pport);
            FUZZ_CHECK(g1.ping_sent == g2.ping_sent && g1.pong_received == g2.pong_received);
        }
        FUZZ_CHECK((m->hostname == NULL) == (again.hostname == NULL));
    } else if (t == CLUSTERBUS_FAIL) {
        FUZZ_CHECK(!memcmp(m->about, again.about, CLUSTERBUS_NAMELEN));
    } else if (t == CLUSTERBUS_UPDATE) {
        FUZZ_CHECK(m->update_epoch == again.update_epoch);
        FUZZ_CHECK(!memcmp(m->update_slots, again.update_slots, CLUSTERBUS_SLOTS_BYTES));
    } else {
        FUZZ_CHECK(m->channel_len == again.channel_len && m->message_len == again.message_len);
        FUZZ_CHECK(!m->channel_len || !memcmp(m->channel, again.channel, m->channel_len));
        FUZZ_CHECK(!m->message_len || !memcmp(m->message, again.message, m->message_len));
    }
    zfree(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    while (size > 0) {
        uint32_t totlen = 0;
        int r = clusterBusFrameLength(data, size, MAX_FRAME, &totlen);
        if (r != CLUSTERBUS_OK) {
            /* the link is dropped (or waits for more): nothing else is read */
            FUZZ_CHECK(r == CLUSTERBUS_NEED_MORE || r == CLUSTERBUS_ERR_SIG || r == CLUSTERBUS_ERR_LENGTH);
            return 0;
        }
        FUZZ_CHECK(totlen >= 8 && totlen <= MAX_FRAME);
        if (totlen > size) return 0; /* the rest of the frame never came */
        unsigned char *frame = zmalloc(totlen);
        memcpy(frame, data, totlen);
        clusterBusMsg m;
        if (clusterBusDecode(frame, totlen, &m) == CLUSTERBUS_OK) {
            FUZZ_CHECK(m.totlen == totlen);
            use(&m);
            roundTrip(&m);
        }
        zfree(frame);
        data += totlen;
        size -= totlen;
    }
    return 0;
}
