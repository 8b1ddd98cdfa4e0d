/* shmring.c -- fuzz harness: the shared-memory rings' index logic
 * (src/lib/shmring.c) against a peer that writes anything into the shared
 * control blocks.
 *
 * Why: the client maps the same segment as the server and can store any
 * value into head, tail and the sleeping flags at any time. The server's
 * side must never copy outside a data area, never report more than the
 * ring holds, and refuse (SHMRING_ERR, with a reason) an index that could
 * not come from an honest peer. Only the ring index and data logic is
 * fuzzed: the segment is plain memory laid out as shmringSegmentCreate()
 * lays it out, and the signalling (how a side is woken) is not involved.
 *
 * Input: a program of operations, one byte each plus arguments. The server
 * side consumes the request ring and produces the reply ring. The peer is
 * honest (it moves its indexes as a correct client would, writing a known
 * byte sequence) until an operation stores an arbitrary value; while it is
 * honest, every byte read must be the next of that sequence and nothing may
 * be refused.
 */
#include <string.h>

#include "fuzz.h"
#include "shmring.h"

#define RING 4096u
#define CTL_HEAD 0
#define CTL_TAIL 64
#define CTL_CONSUMER_SLEEPING 128
#define CTL_PRODUCER_SLEEPING 192

typedef struct program {
    const uint8_t *p;
    size_t left;
} program;

static uint32_t take(program *pg, int bytes) {
    uint32_t v = 0;
    for (int j = 0; j < bytes && pg->left; j++, pg->left--) v = v << 8 | *pg->p++;
    return v;
}

typedef struct world {
    shmringSegment seg;
    shmring req, rep;          /* the server: consumer of requests, producer of replies */
    uint32_t peer_head;        /* honest peer: what it has written into the request ring */
    uint32_t peer_tail;        /* honest peer: what it has read of the reply ring */
    uint32_t sent, received;   /* the byte sequence: next to write, next expected */
    int honest;
} world;

static void poke(world *w, size_t ctl, size_t field, uint32_t v) {
    memcpy(w->seg.base + ctl + field, &v, 4); /* host order, as the atomics store it */
}

static uint32_t peek(world *w, size_t ctl, size_t field) {
    uint32_t v;
    memcpy(&v, w->seg.base + ctl + field, 4);
    return v;
}

/* The honest peer writes up to n bytes of the sequence into the request ring. */
static void peerWrite(world *w, uint32_t n) {
    uint32_t tail = peek(w, SHMRING_OFF_REQ_CTL, CTL_TAIL);
    uint32_t room = RING - (w->peer_head - tail);
    if (!w->honest || room > RING) return;
    if (n > room) n = room;
    unsigned char *data = w->seg.base + SHMRING_HEADER_SIZE;
    for (uint32_t j = 0; j < n; j++) data[(w->peer_head + j) & (RING - 1)] = (unsigned char)(w->sent + j);
    w->sent += n;
    w->peer_head += n;
    poke(w, SHMRING_OFF_REQ_CTL, CTL_HEAD, w->peer_head);
}

/* The honest peer consumes up to n bytes of the reply ring. */
static void peerRead(world *w, uint32_t n) {
    uint32_t head = peek(w, SHMRING_OFF_REP_CTL, CTL_HEAD);
    uint32_t used = head - w->peer_tail;
    if (!w->honest || used > RING) return;
    w->peer_tail += n < used ? n : used;
    poke(w, SHMRING_OFF_REP_CTL, CTL_TAIL, w->peer_tail);
}

static void serverRead(world *w, uint32_t n) {
    unsigned char buf[2 * RING];
    if (n > sizeof buf) n = sizeof buf;
    ssize_t got = shmringRead(&w->req, buf, n);
    if (got == SHMRING_ERR) {
        FUZZ_CHECK(!w->honest && w->req.violation != NULL);
        return;
    }
    FUZZ_CHECK(got >= 0 && (size_t)got <= n && (size_t)got <= RING);
    if (w->honest) {
        for (ssize_t j = 0; j < got; j++) FUZZ_CHECK(buf[j] == (unsigned char)(w->received + (uint32_t)j));
        w->received += (uint32_t)got;
    }
}

static void serverWrite(world *w, uint32_t n) {
    unsigned char buf[2 * RING];
    if (n > sizeof buf) n = sizeof buf;
    memset(buf, 'r', n);
    ssize_t put = shmringWrite(&w->rep, buf, n);
    if (put == SHMRING_ERR) {
        FUZZ_CHECK(!w->honest && w->rep.violation != NULL);
        return;
    }
    FUZZ_CHECK(put >= 0 && (size_t)put <= n && (size_t)put <= RING);
}

static void step(world *w, program *pg) {
    uint32_t op = take(pg, 1);
    switch (op % 10) {
    case 0: peerWrite(w, take(pg, 2) % (RING + 1)); break;
    case 1: peerRead(w, take(pg, 2) % (RING + 1)); break;
    case 2: serverRead(w, take(pg, 2)); break;
    case 3: serverWrite(w, take(pg, 2)); break;
    case 4: /* the peer stores anything as the request ring's head */
        w->honest = 0;
        poke(w, SHMRING_OFF_REQ_CTL, CTL_HEAD, take(pg, 4));
        break;
    case 5: /* ... or as the reply ring's tail */
        w->honest = 0;
        poke(w, SHMRING_OFF_REP_CTL, CTL_TAIL, take(pg, 4));
        break;
    case 6: /* ... or as an index it does not own, or a flag */
        w->honest = 0;
        poke(w, take(pg, 1) & 1 ? SHMRING_OFF_REP_CTL : SHMRING_OFF_REQ_CTL, (take(pg, 1) % 4) * 64, take(pg, 4));
        break;
    case 7: { /* the wait/wake handshake, both roles */
        int r1 = shmringConsumerPrepareSleep(&w->req), r2 = shmringProducerPrepareSleep(&w->rep);
        if (w->honest) FUZZ_CHECK(r1 != SHMRING_ERR && r2 != SHMRING_ERR);
        shmringTakeWakeRequest(&w->req);
        shmringTakeWakeRequest(&w->rep);
        shmringConsumerStayAwake(&w->req);
        break;
    }
    case 8: { /* readable/writable agree with the ring's size */
        ssize_t a = shmringReadable(&w->req), b = shmringWritable(&w->rep);
        FUZZ_CHECK(a == SHMRING_ERR || (a >= 0 && a <= (ssize_t)RING));
        FUZZ_CHECK(b == SHMRING_ERR || (b >= 0 && b <= (ssize_t)RING));
        break;
    }
    default: /* the server side opens the rings again from what is published */
        shmringOpen(&w->req, &w->seg, SHMRING_REQUESTS, SHMRING_CONSUMER);
        shmringOpen(&w->rep, &w->seg, SHMRING_REPLIES, SHMRING_PRODUCER);
        w->honest = 0; /* a reopened side forgets what it had read: no sequence to check */
        break;
    }
    FUZZ_CHECK(w->req.head - w->req.tail <= RING && w->rep.head - w->rep.tail <= RING);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    world w;
    memset(&w, 0, sizeof w);
    w.seg.len = SHMRING_HEADER_SIZE + 2 * RING;
    w.seg.base = aligned_alloc(4096, w.seg.len);
    memset(w.seg.base, 0, w.seg.len);
    w.seg.ring_size = RING;
    w.seg.fd = -1;
    w.honest = 1;
    shmringOpen(&w.req, &w.seg, SHMRING_REQUESTS, SHMRING_CONSUMER);
    shmringOpen(&w.rep, &w.seg, SHMRING_REPLIES, SHMRING_PRODUCER);
    program pg = {data, size};
    for (int steps = 0; pg.left && steps < 4096; steps++) step(&w, &pg);
    free(w.seg.base);
    return 0;
}
