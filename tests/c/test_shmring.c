/* test_shmring.c -- unit tests of the shared-memory rings (src/lib/shmring.c):
 * sizes, header checks, wrap-around, every index violation a peer can commit,
 * the sleep/wake handshake (and a spinning consumer's withdrawal), sealing,
 * the /dev/shm fallback, and stress runs between two threads and
 * between two processes that move random-sized writes (1 byte to several
 * ring lengths) through a small ring and check every byte, and a ping-pong
 * of single bytes in which every round trip goes through the sleep/wake
 * handshake (the race a lost wake-up comes from).
 *
 * The stress volume scales with TEST_SCALE (test_scaled); a QEMU run may
 * shrink it. The waits use the real protocol (the wake-up socketpair, poll), so a lost
 * wake-up shows as a hang, which run-unit.sh's timeout turns into a failure;
 * a 10-second (x TIME_FACTOR) poll limit per wait reports it sooner.
 */
#include "test.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "shmring.h"

/* ---- basics ------------------------------------------------------------------------ */

static void test_round_size(void) {
    CHECK_EQ_INT(shmringRoundSize(0), SHMRING_MIN_SIZE);
    CHECK_EQ_INT(shmringRoundSize(4097), 8192);
    CHECK_EQ_INT(shmringRoundSize(1 << 20), 1 << 20);
    CHECK_EQ_INT(shmringRoundSize(1ULL << 40), SHMRING_MAX_SIZE);
}

static void test_create_and_attach(void) {
    shmringSegment seg, peer;
    const char *why = NULL;
    CHECK(shmringSegmentCreate(&seg, 8192) == SHMRING_OK);
    CHECK(seg.sealed);
    CHECK(shmringSegmentIntact(&seg));
    CHECK(shmringSegmentAttach(&peer, dup(seg.fd), &why) == SHMRING_OK);
    CHECK_EQ_INT(peer.ring_size, 8192);
    CHECK(peer.base != seg.base);
    shmringSegmentRelease(&peer);
    /* a sealed memfd can't be truncated or grown by the peer */
    CHECK(ftruncate(seg.fd, 4096) == -1);
    CHECK(ftruncate(seg.fd, (off_t)seg.len * 2) == -1);
    /* header checks */
    seg.base[SHMRING_OFF_BOM] ^= 0xff;
    int fd = dup(seg.fd);
    CHECK(shmringSegmentAttach(&peer, fd, &why) == SHMRING_ERR);
    CHECK_EQ_STR(why, "byte-order mark mismatch");
    seg.base[SHMRING_OFF_BOM] ^= 0xff;
    seg.base[0] = 'X';
    CHECK(shmringSegmentAttach(&peer, fd, &why) == SHMRING_ERR);
    CHECK_EQ_STR(why, "bad magic");
    seg.base[0] = 'R';
    seg.base[SHMRING_OFF_RINGSIZE] ^= 1;
    CHECK(shmringSegmentAttach(&peer, fd, &why) == SHMRING_ERR);
    seg.base[SHMRING_OFF_RINGSIZE] ^= 1;
    close(fd);
    CHECK(shmringSegmentCreate(&peer, 5000) == SHMRING_ERR && errno == EINVAL);
    shmringSegmentRelease(&seg);
}

/* The fallback backing: an unlinked /dev/shm file, unsealed (so the owner
 * checks its size), that a peer attaches like a memfd. */
static void test_devshm_backing(void) {
    struct stat st;
    if (stat("/dev/shm", &st) != 0 || !S_ISDIR(st.st_mode)) {
        printf("  (no /dev/shm: skipped)\n");
        return;
    }
    shmringSegment seg, peer;
    const char *why = NULL;
    CHECK(shmringSegmentCreateBacked(&seg, 8192, SHMRING_BACKING_DEVSHM) == SHMRING_OK);
    CHECK(!seg.sealed);
    CHECK(fstat(seg.fd, &st) == 0 && st.st_nlink == 0); /* unlinked: nothing left in /dev/shm */
    CHECK(shmringSegmentIntact(&seg));
    CHECK(shmringSegmentAttach(&peer, dup(seg.fd), &why) == SHMRING_OK);
    CHECK(!peer.sealed);
    shmring p, c;
    shmringOpen(&p, &peer, SHMRING_REQUESTS, SHMRING_PRODUCER);
    shmringOpen(&c, &seg, SHMRING_REQUESTS, SHMRING_CONSUMER);
    char out[8];
    CHECK_EQ_INT(shmringWrite(&p, "ping", 4), 4);
    CHECK_EQ_INT(shmringRead(&c, out, sizeof(out)), 4);
    CHECK(memcmp(out, "ping", 4) == 0);
    /* the peer can truncate an unsealed file: the owner notices */
    CHECK(ftruncate(peer.fd, 4096) == 0);
    CHECK(!shmringSegmentIntact(&seg));
    shmringSegmentRelease(&peer);
    shmringSegmentRelease(&seg);
}

static void test_wraparound(void) {
    shmringSegment seg;
    CHECK(shmringSegmentCreate(&seg, 4096) == SHMRING_OK);
    shmring p, c;
    shmringOpen(&p, &seg, SHMRING_REQUESTS, SHMRING_PRODUCER);
    shmringOpen(&c, &seg, SHMRING_REQUESTS, SHMRING_CONSUMER);
    char in[6000], out[6000];
    for (size_t i = 0; i < sizeof(in); i++) in[i] = (char)(i * 7);
    CHECK_EQ_INT(shmringWrite(&p, in, 3000), 3000);
    CHECK_EQ_INT(shmringWrite(&p, in + 3000, 3000), 1096); /* full */
    CHECK_EQ_INT(shmringWrite(&p, in, 1), 0);
    CHECK_EQ_INT(shmringRead(&c, out, 2500), 2500);
    CHECK_EQ_INT(shmringWrite(&p, in + 4096, 1904), 1904); /* wraps */
    CHECK_EQ_INT(shmringReadable(&c), 4096 - 2500 + 1904);
    CHECK_EQ_INT(shmringRead(&c, out + 2500, sizeof(out)), 3500);
    CHECK(memcmp(in, out, 6000) == 0);
    CHECK_EQ_INT(shmringRead(&c, out, 10), 0);
    /* the other ring is independent */
    shmring rp;
    shmringOpen(&rp, &seg, SHMRING_REPLIES, SHMRING_PRODUCER);
    CHECK_EQ_INT(shmringWritable(&rp), 4096);
    shmringSegmentRelease(&seg);
}

/* The peer's index is stored raw in the control block, as a liar would. */
static void pokeIndex(shmringSegment *seg, size_t ctl, size_t field, uint32_t v) {
    memcpy(seg->base + ctl + field, &v, sizeof(v));
}

static void test_consumer_rejects_bad_heads(void) {
    shmringSegment seg;
    CHECK(shmringSegmentCreate(&seg, 4096) == SHMRING_OK);
    shmring c;
    char buf[16];
    shmringOpen(&c, &seg, SHMRING_REQUESTS, SHMRING_CONSUMER);
    pokeIndex(&seg, SHMRING_OFF_REQ_CTL, 0, 4097); /* beyond the ring */
    CHECK_EQ_INT(shmringRead(&c, buf, sizeof(buf)), SHMRING_ERR);
    CHECK_EQ_STR(c.violation, "head beyond the ring");
    pokeIndex(&seg, SHMRING_OFF_REQ_CTL, 0, 2 * 4096); /* wrapped twice */
    CHECK_EQ_INT(shmringRead(&c, buf, sizeof(buf)), SHMRING_ERR);
    pokeIndex(&seg, SHMRING_OFF_REQ_CTL, 0, 100);
    CHECK_EQ_INT(shmringRead(&c, buf, sizeof(buf)), 16);
    pokeIndex(&seg, SHMRING_OFF_REQ_CTL, 0, 50); /* backwards, behind our tail */
    CHECK_EQ_INT(shmringRead(&c, buf, sizeof(buf)), SHMRING_ERR);
    pokeIndex(&seg, SHMRING_OFF_REQ_CTL, 0, 90); /* backwards, still ahead of the tail */
    CHECK_EQ_INT(shmringRead(&c, buf, sizeof(buf)), SHMRING_ERR);
    CHECK_EQ_STR(c.violation, "head went backwards");
    pokeIndex(&seg, SHMRING_OFF_REQ_CTL, 0, 0xFFFFFFF0u); /* "negative" */
    CHECK_EQ_INT(shmringReadable(&c), SHMRING_ERR);
    CHECK_EQ_INT(shmringConsumerPrepareSleep(&c), SHMRING_ERR);
    shmringSegmentRelease(&seg);
}

static void test_producer_rejects_bad_tails(void) {
    shmringSegment seg;
    CHECK(shmringSegmentCreate(&seg, 4096) == SHMRING_OK);
    shmring p;
    char buf[200] = {0};
    shmringOpen(&p, &seg, SHMRING_REPLIES, SHMRING_PRODUCER);
    CHECK_EQ_INT(shmringWrite(&p, buf, 200), 200);
    pokeIndex(&seg, SHMRING_OFF_REP_CTL, 64, 300); /* ahead of our head */
    CHECK_EQ_INT(shmringWrite(&p, buf, 1), SHMRING_ERR);
    CHECK_EQ_STR(p.violation, "tail beyond the ring");
    pokeIndex(&seg, SHMRING_OFF_REP_CTL, 64, 150);
    CHECK_EQ_INT(shmringWritable(&p), 4096 - 50);
    pokeIndex(&seg, SHMRING_OFF_REP_CTL, 64, 100); /* backwards */
    CHECK_EQ_INT(shmringWritable(&p), SHMRING_ERR);
    CHECK_EQ_STR(p.violation, "tail went backwards");
    pokeIndex(&seg, SHMRING_OFF_REP_CTL, 64, 150u - 2 * 4096u); /* wrapped twice */
    CHECK_EQ_INT(shmringWritable(&p), SHMRING_ERR);
    shmringSegmentRelease(&seg);
}

/* A flood of random indexes never makes a read or write go out of bounds
 * (the data area is followed by the reply ring in the same mapping, so a
 * stray copy would not fault: checked by the counts returned). */
static void test_random_indexes(void) {
    shmringSegment seg;
    CHECK(shmringSegmentCreate(&seg, 4096) == SHMRING_OK);
    char buf[8192];
    int bad = 0;
    for (int i = 0; i < 20000; i++) {
        shmring c, p;
        shmringOpen(&c, &seg, SHMRING_REQUESTS, SHMRING_CONSUMER);
        shmringOpen(&p, &seg, SHMRING_REQUESTS, SHMRING_PRODUCER);
        pokeIndex(&seg, SHMRING_OFF_REQ_CTL, 0, (uint32_t)test_rand());
        pokeIndex(&seg, SHMRING_OFF_REQ_CTL, 64, (uint32_t)test_rand());
        ssize_t n = shmringRead(&c, buf, sizeof(buf));
        if (n > 4096) bad++;
        n = shmringWrite(&p, buf, sizeof(buf));
        if (n > 4096) bad++;
    }
    CHECK_EQ_INT(bad, 0);
    shmringSegmentRelease(&seg);
}

static void test_wake_handshake(void) {
    shmringSegment seg;
    CHECK(shmringSegmentCreate(&seg, 4096) == SHMRING_OK);
    shmring p, c;
    shmringOpen(&p, &seg, SHMRING_REQUESTS, SHMRING_PRODUCER);
    shmringOpen(&c, &seg, SHMRING_REQUESTS, SHMRING_CONSUMER);
    char buf[4096] = {0};
    /* nobody asleep: writing asks for no signal (a busy pipeline) */
    CHECK_EQ_INT(shmringWrite(&p, "a", 1), 1);
    CHECK_EQ_INT(shmringTakeWakeRequest(&p), 0);
    CHECK_EQ_INT(shmringConsumerPrepareSleep(&c), 1); /* data: don't sleep */
    CHECK_EQ_INT(shmringRead(&c, buf, 10), 1);
    CHECK_EQ_INT(shmringConsumerPrepareSleep(&c), 0); /* armed */
    CHECK_EQ_INT(shmringWrite(&p, "b", 1), 1);
    CHECK_EQ_INT(shmringTakeWakeRequest(&p), 1);
    CHECK_EQ_INT(shmringTakeWakeRequest(&p), 0); /* taken once */
    CHECK_EQ_INT(shmringProducerWakes(&p), 1);
    /* the producer waiting for room */
    CHECK_EQ_INT(shmringWrite(&p, buf, sizeof(buf)), 4095);
    CHECK_EQ_INT(shmringProducerPrepareSleep(&p), 0);
    CHECK_EQ_INT(shmringTakeWakeRequest(&c), 1); /* reading frees room: signal */
    CHECK_EQ_INT(shmringConsumerWakes(&c), 1);
    CHECK_EQ_INT(shmringRead(&c, buf, 1), 1);
    CHECK_EQ_INT(shmringProducerPrepareSleep(&p), 1);
    /* a spinning consumer withdraws its announcement: the producer
     * publishes without a signal, and the next announcement sees the data */
    CHECK_EQ_INT(shmringRead(&c, buf, sizeof(buf)), 4095);
    CHECK_EQ_INT(shmringTakeWakeRequest(&c), 1); /* the producer's flag from above */
    CHECK_EQ_INT(shmringConsumerPrepareSleep(&c), 0); /* armed */
    shmringConsumerStayAwake(&c);
    CHECK_EQ_INT(shmringWrite(&p, "c", 1), 1);
    CHECK_EQ_INT(shmringTakeWakeRequest(&p), 0);
    CHECK_EQ_INT(shmringConsumerPrepareSleep(&c), 1); /* don't sleep: it is there */
    CHECK_EQ_INT(shmringRead(&c, buf, 10), 1);
    /* signalling through the wake-up socketpair: a datagram sent on one end
     * makes the other readable */
    int w[2];
    CHECK(shmringWakePair(w) == SHMRING_OK);
    struct pollfd pfd = {.fd = w[1], .events = POLLIN};
    CHECK_EQ_INT(poll(&pfd, 1, 0), 0);
    CHECK(shmringSignal(w[0]) == SHMRING_OK);
    CHECK(shmringSignal(w[0]) == SHMRING_OK);
    CHECK_EQ_INT(poll(&pfd, 1, 0), 1);
    CHECK_EQ_INT(shmringDrain(w[1]), 2);
    CHECK_EQ_INT(poll(&pfd, 1, 0), 0);
    CHECK_EQ_INT(shmringDrain(w[1]), 0); /* empty: not an error */
    pfd.fd = w[0];
    CHECK_EQ_INT(poll(&pfd, 1, 0), 0); /* our own signals never wake us */
    close(w[0]);
    close(w[1]);
    shmringSegmentRelease(&seg);
}

static void setBlocking(int fd) {
    int fl = fcntl(fd, F_GETFL);
    CHECK(fl != -1 && fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) == 0);
}

/* The peer owns the other end and may do anything to it (and to the flags
 * of the descriptors it got): signalling and draining our end never block.
 * This is what the eventfds of the first design failed (a passed
 * descriptor shares O_NONBLOCK with the sender's copy). */
static void test_wake_never_blocks(void) {
    int w[2];
    CHECK(shmringWakePair(w) == SHMRING_OK);
    setBlocking(w[0]);
    setBlocking(w[1]);
    CHECK_EQ_INT(shmringDrain(w[0]), 0); /* empty and blocking: returns at once */
    /* the peer never reads: our signals fill its queue, then are "pending" */
    for (int i = 0; i < 10000; i++) CHECK(shmringSignal(w[0]) == SHMRING_OK);
    /* the peer floods us (with as big a send buffer as it may have): a
     * drain takes a bounded number, the rest stays readable */
    int big = 1 << 20;
    CHECK(setsockopt(w[1], SOL_SOCKET, SO_SNDBUF, &big, sizeof(big)) == 0);
    unsigned char b[64] = {0};
    int sent = 0;
    while (sent < 10000 && send(w[1], b, sizeof(b), MSG_DONTWAIT) > 0) sent++;
    CHECK(sent > SHMRING_DRAIN_MAX);
    CHECK_EQ_INT(shmringDrain(w[0]), SHMRING_DRAIN_MAX);
    struct pollfd pfd = {.fd = w[0], .events = POLLIN};
    CHECK_EQ_INT(poll(&pfd, 1, 0), 1);
    while (shmringDrain(w[0]) > 0) {}
    CHECK_EQ_INT(poll(&pfd, 1, 0), 0);
    /* the peer closed its end: an error, not a hang */
    close(w[1]);
    CHECK(shmringSignal(w[0]) == SHMRING_ERR);
    CHECK_EQ_INT(shmringDrain(w[0]), 0);
    close(w[0]);
}

/* ---- stress: two threads, then two processes ------------------------------------- */

/* The byte at stream position i: any function of i the consumer can recompute. */
static unsigned char streamByte(uint64_t i) {
    uint64_t x = i * 0x9E3779B97F4A7C15ULL;
    return (unsigned char)(x >> 56 ^ x >> 29);
}

typedef struct stressSide {
    shmringSegment *seg;
    int my_efd, peer_efd;   /* wait on mine, signal the peer's */
    uint64_t total;
    uint32_t ring_size;
    uint64_t seed;
    uint64_t sum;           /* Fletcher-like checksum of the bytes moved */
    int errors;             /* wrong bytes, violations, timeouts */
    unsigned sleeps;
} stressSide;

static uint64_t checksumStep(uint64_t sum, const unsigned char *p, size_t n) {
    uint32_t a = (uint32_t)sum, b = (uint32_t)(sum >> 32);
    for (size_t i = 0; i < n; i++) { a += p[i]; b += a; }
    return (uint64_t)b << 32 | a;
}

/* Sleeps until signalled (after a short spin), with the protocol's re-check.
 * Returns 0, or -1 after a 10 s (x TIME_FACTOR) silence: a lost wake-up. */
static int waitTurn(stressSide *s, shmring *r, int consumer) {
    unsigned budget = shmringSpinBudgetUs() * 50;
    for (unsigned i = 0; i < budget; i++) {
        ssize_t v = consumer ? shmringReadable(r) : shmringWritable(r);
        if (v != 0) return 0;
        shmringCpuRelax();
    }
    shmringDrain(s->my_efd);
    int ready = consumer ? shmringConsumerPrepareSleep(r) : shmringProducerPrepareSleep(r);
    if (ready != 0) return 0;
    s->sleeps++;
    struct pollfd pfd = {.fd = s->my_efd, .events = POLLIN};
    int rc;
    do rc = poll(&pfd, 1, 10000 * test_time_factor());
    while (rc == -1 && errno == EINTR);
    return rc == 1 ? 0 : -1;
}

static void *stressProducer(void *arg) {
    stressSide *s = arg;
    shmring r;
    shmringOpen(&r, s->seg, SHMRING_REQUESTS, SHMRING_PRODUCER);
    uint64_t rng = s->seed, pos = 0;
    size_t cap = (size_t)s->ring_size * 3 + 1;
    unsigned char *buf = malloc(cap);
    while (pos < s->total && !s->errors) {
        rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
        size_t len = (rng & 3) == 0 ? 1 + (size_t)(rng >> 8) % cap : 1 + (size_t)(rng >> 8) % 64;
        if (len > s->total - pos) len = (size_t)(s->total - pos);
        for (size_t i = 0; i < len; i++) buf[i] = streamByte(pos + i);
        s->sum = checksumStep(s->sum, buf, len);
        size_t done = 0;
        while (done < len) {
            ssize_t n = shmringWrite(&r, buf + done, len - done);
            if (n < 0) { s->errors++; break; }
            if (n > 0 && shmringTakeWakeRequest(&r)) shmringSignal(s->peer_efd);
            done += (size_t)n;
            if (n == 0 && waitTurn(s, &r, 0) == -1) { s->errors++; break; }
        }
        pos += len;
    }
    free(buf);
    return NULL;
}

static void *stressConsumer(void *arg) {
    stressSide *s = arg;
    shmring r;
    shmringOpen(&r, s->seg, SHMRING_REQUESTS, SHMRING_CONSUMER);
    uint64_t rng = s->seed ^ 0x5555, pos = 0;
    unsigned char *buf = malloc((size_t)s->ring_size * 2);
    while (pos < s->total && !s->errors) {
        rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
        size_t want = 1 + (size_t)(rng >> 8) % ((size_t)s->ring_size * 2);
        ssize_t n = shmringRead(&r, buf, want);
        if (n < 0) { s->errors++; break; }
        if (n == 0) {
            if (waitTurn(s, &r, 1) == -1) s->errors++;
            continue;
        }
        if (shmringTakeWakeRequest(&r)) shmringSignal(s->peer_efd);
        for (ssize_t i = 0; i < n; i++)
            if (buf[i] != streamByte(pos + (uint64_t)i)) s->errors++;
        s->sum = checksumStep(s->sum, buf, (size_t)n);
        pos += (uint64_t)n;
    }
    free(buf);
    return NULL;
}

static void runThreadStress(uint32_t ring_size, uint64_t total, uint64_t seed) {
    shmringSegment seg;
    CHECK(shmringSegmentCreate(&seg, ring_size) == SHMRING_OK);
    int w[2]; /* each side signals and waits on its own end */
    CHECK(shmringWakePair(w) == SHMRING_OK);
    int efd_p = w[0], efd_c = w[1];
    stressSide prod = {.seg = &seg, .my_efd = efd_p, .peer_efd = efd_p, .total = total, .ring_size = ring_size, .seed = seed};
    stressSide cons = prod;
    cons.my_efd = efd_c;
    cons.peer_efd = efd_c;
    pthread_t tp, tc;
    pthread_create(&tc, NULL, stressConsumer, &cons);
    pthread_create(&tp, NULL, stressProducer, &prod);
    pthread_join(tp, NULL);
    if (prod.errors) cons.errors++; /* the consumer would wait forever otherwise... */
    pthread_join(tc, NULL);
    CHECK_EQ_INT(prod.errors, 0);
    CHECK_EQ_INT(cons.errors, 0);
    CHECK(prod.sum == cons.sum);
    printf("    ring %u: %llu bytes, producer slept %u times, consumer %u times\n", ring_size,
           (unsigned long long)total, prod.sleeps, cons.sleeps);
    close(efd_p);
    close(efd_c);
    shmringSegmentRelease(&seg);
}

static void test_stress_threads(void) {
    uint64_t total = test_scaled(16UL << 20);
    runThreadStress(4096, total, 42);
    runThreadStress(65536, total, 7);
}

/* The producer in a forked child that attaches the segment through its own
 * mapping, as a real client does; the checksum comes back through a pipe. */
static void test_stress_processes(void) {
    shmringSegment seg;
    uint32_t ring_size = 4096;
    uint64_t total = test_scaled(4UL << 20);
    CHECK(shmringSegmentCreate(&seg, ring_size) == SHMRING_OK);
    int w[2], result[2];
    CHECK(shmringWakePair(w) == SHMRING_OK);
    int efd_p = w[0], efd_c = w[1];
    CHECK(pipe(result) == 0);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        shmringSegment mine;
        const char *why;
        if (shmringSegmentAttach(&mine, dup(seg.fd), &why) != SHMRING_OK) _exit(2);
        stressSide prod = {.seg = &mine, .my_efd = efd_p, .peer_efd = efd_p, .total = total, .ring_size = ring_size, .seed = 99};
        stressProducer(&prod);
        if (write(result[1], &prod.sum, sizeof(prod.sum)) != sizeof(prod.sum)) _exit(3);
        _exit(prod.errors ? 1 : 0);
    }
    stressSide cons = {.seg = &seg, .my_efd = efd_c, .peer_efd = efd_c, .total = total, .ring_size = ring_size, .seed = 99};
    stressConsumer(&cons);
    int status = -1;
    waitpid(pid, &status, 0);
    uint64_t child_sum = 0;
    CHECK(read(result[0], &child_sum, sizeof(child_sum)) == sizeof(child_sum));
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK_EQ_INT(cons.errors, 0);
    CHECK(child_sum == cons.sum);
    close(result[0]);
    close(result[1]);
    close(efd_p);
    close(efd_c);
    shmringSegmentRelease(&seg);
}

/* ---- ping-pong: every round trip goes through the sleep/wake handshake --------- */

/* One side of a ping-pong over a segment: it sends one byte on `out`, then
 * waits for the peer's byte on `in` the way the transport does -- either
 * asleep at once (announce, look again, poll the wake-up end), or like the
 * server's spin (withdraw the announcement, poll the ring a little, then
 * announce and look again before sleeping). A lost wake-up leaves both
 * sides asleep with a byte in a ring: the poll limit turns it into an
 * error instead of a hang. */
typedef struct pingSide {
    shmringSegment *seg;
    shmringDirection out_dir;  /* the ring this side produces into */
    int my_efd, peer_efd;
    unsigned rounds;
    int serve_first;           /* 1: wait for a byte before sending one */
    int spin;                  /* 1: the server's stay-awake spin before sleeping */
    int errors;
    unsigned sleeps;
} pingSide;

static int pingAwait(pingSide *s, shmring *in) {
    if (s->spin) {
        shmringConsumerStayAwake(in);
        for (int i = 0; i < 64; i++) {
            if (shmringReadable(in) != 0) return 0;
            shmringCpuRelax();
        }
    }
    for (;;) {
        shmringDrain(s->my_efd);
        int ready = shmringConsumerPrepareSleep(in);
        if (ready != 0) return ready < 0 ? -1 : 0;
        s->sleeps++;
        struct pollfd pfd = {.fd = s->my_efd, .events = POLLIN};
        int rc;
        do rc = poll(&pfd, 1, 2000 * test_time_factor());
        while (rc == -1 && errno == EINTR);
        if (rc != 1) return -1; /* two seconds without the peer's byte */
        if (shmringReadable(in) != 0) return 0;
    }
}

static void *pingRun(void *arg) {
    pingSide *s = arg;
    shmring out, in;
    shmringOpen(&out, s->seg, s->out_dir, SHMRING_PRODUCER);
    shmringOpen(&in, s->seg, s->out_dir == SHMRING_REQUESTS ? SHMRING_REPLIES : SHMRING_REQUESTS, SHMRING_CONSUMER);
    unsigned char byte;
    for (unsigned i = 0; i < s->rounds && !s->errors; i++) {
        for (int step = 0; step < 2; step++) {
            if ((step == 0) == (s->serve_first != 0)) {
                if (pingAwait(s, &in) == -1 || shmringRead(&in, &byte, 1) != 1 || byte != (unsigned char)i) {
                    s->errors++;
                    break;
                }
                if (shmringTakeWakeRequest(&in)) shmringSignal(s->peer_efd);
            } else {
                byte = (unsigned char)i;
                if (shmringWrite(&out, &byte, 1) != 1) { s->errors++; break; }
                if (shmringTakeWakeRequest(&out)) shmringSignal(s->peer_efd);
            }
        }
    }
    return NULL;
}

static void runPingPong(int server_spins) {
    shmringSegment seg;
    CHECK(shmringSegmentCreate(&seg, 4096) == SHMRING_OK);
    int w[2];
    CHECK(shmringWakePair(w) == SHMRING_OK);
    int efd_client = w[0], efd_server = w[1];
    unsigned rounds = (unsigned)test_scaled(20000);
    pingSide client = {.seg = &seg, .out_dir = SHMRING_REQUESTS, .my_efd = efd_client,
                       .peer_efd = efd_client, .rounds = rounds};
    pingSide server = {.seg = &seg, .out_dir = SHMRING_REPLIES, .my_efd = efd_server,
                       .peer_efd = efd_server, .rounds = rounds, .serve_first = 1, .spin = server_spins};
    pthread_t tc, ts;
    pthread_create(&ts, NULL, pingRun, &server);
    pthread_create(&tc, NULL, pingRun, &client);
    pthread_join(tc, NULL);
    if (client.errors) shmringSignal(efd_client); /* the server may be waiting for a byte that won't come */
    pthread_join(ts, NULL);
    CHECK_EQ_INT(client.errors, 0);
    CHECK_EQ_INT(server.errors, 0);
    printf("    %u round trips (server %s): client slept %u times, server %u times\n", rounds,
           server_spins ? "spinning" : "sleeping at once", client.sleeps, server.sleeps);
    close(efd_client);
    close(efd_server);
    shmringSegmentRelease(&seg);
}

static void test_pingpong_wakeups(void) {
    runPingPong(0);
    runPingPong(1);
}

TEST_MAIN(
    RUN(test_round_size);
    RUN(test_create_and_attach);
    RUN(test_devshm_backing);
    RUN(test_wraparound);
    RUN(test_consumer_rejects_bad_heads);
    RUN(test_producer_rejects_bad_tails);
    RUN(test_random_indexes);
    RUN(test_wake_handshake);
    RUN(test_wake_never_blocks);
    RUN(test_stress_threads);
    RUN(test_stress_processes);
    RUN(test_pingpong_wakeups);
)
