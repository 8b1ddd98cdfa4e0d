/* shmring.c -- the shared-memory rings: segment creation and attachment,
 * SPSC copies with checked indexes, and the wait/wake handshake. The layout
 * and the protocol are described in shmring.h.
 *
 * Design decisions:
 *  - The control blocks are reached as _Atomic uint32_t at fixed offsets of
 *    a page-aligned mapping. That is the one place a byte buffer is viewed
 *    as wider words, and it can't go through portable.h (an atomic needs
 *    the object itself): the alignment is asserted when a ring is opened,
 *    not assumed. The static header fields go through load32/store32.
 *  - Nothing the peer can write is trusted: a ring's size and data pointer
 *    come from our own mapping, our own index is kept privately, and the
 *    peer's index is checked on every load (shmringLoadPeer).
 *  - Sealing: the creator seals the memfd against shrinking and growing,
 *    so the peer can't ftruncate it and make our accesses fault (SIGBUS).
 *    Without memfd_create (old kernels) the /dev/shm fallback can't be
 *    sealed; shmringSegmentIntact() checks its size with fstat, which is
 *    only a race against a peer that truncates it: the server refuses an
 *    unsealed segment (src/shm.c), the fallback serves tests and trusted
 *    peers.
 *  - Wake-ups: a datagram socketpair, one end per side, used with
 *    MSG_DONTWAIT (shmring.h: why not eventfds).
 */
#define _GNU_SOURCE
#include "shmring.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libassert.h"
#include "platform.h"
#include "portable.h"
#ifdef HAVE_MEMFD_CREATE
#include <sys/syscall.h>
#endif

_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "shared-memory rings need lock-free 32-bit atomics");

/* Control block offsets (shmring.h). */
#define CTL_HEAD 0
#define CTL_PRODUCER_WAKES 4
#define CTL_TAIL 64
#define CTL_CONSUMER_WAKES 68
#define CTL_CONSUMER_SLEEPING 128
#define CTL_PRODUCER_SLEEPING 192

static _Atomic uint32_t *ctlField(void *ctl, size_t off) {
    return (_Atomic uint32_t *)(void *)((unsigned char *)ctl + off);
}

/* ---- segments ------------------------------------------------------------------ */

uint32_t shmringRoundSize(unsigned long long requested) {
    if (requested <= SHMRING_MIN_SIZE) return SHMRING_MIN_SIZE;
    if (requested >= SHMRING_MAX_SIZE) return SHMRING_MAX_SIZE;
    uint32_t size = SHMRING_MIN_SIZE;
    while (size < requested) size <<= 1;
    return size;
}

static size_t segmentSize(uint32_t ring_size) {
    return (size_t)SHMRING_HEADER_SIZE + 2 * (size_t)ring_size;
}

/* A memfd, or an unlinked file in /dev/shm when the kernel has no memfd
 * (or the caller asked for the file). */
static int createBackingFile(int *sealed, shmringBacking backing) {
    *sealed = 0;
#if defined(HAVE_MEMFD_CREATE) && defined(SYS_memfd_create) && defined(MFD_ALLOW_SEALING)
    if (backing == SHMRING_BACKING_BEST) {
        int fd = (int)syscall(SYS_memfd_create, "redis-shm", MFD_CLOEXEC | MFD_ALLOW_SEALING);
        if (fd != -1) return fd;
        if (errno != ENOSYS && errno != EINVAL) return -1;
    }
#else
    (void)backing;
#endif
    char path[] = "/dev/shm/redis-shm-XXXXXX";
    int tmp = mkstemp(path);
    if (tmp == -1) return -1;
    unlink(path);
    if (fcntl(tmp, F_SETFD, FD_CLOEXEC) == -1) { /* best effort */ }
    return tmp;
}

static void writeHeader(unsigned char *base, uint32_t ring_size) {
    memcpy(base + SHMRING_OFF_MAGIC, SHMRING_MAGIC, 8);
    store32(base + SHMRING_OFF_VERSION, SHMRING_VERSION);
    store32(base + SHMRING_OFF_BOM, SHMRING_BOM);
    store32(base + SHMRING_OFF_HDRSIZE, SHMRING_HEADER_SIZE);
    store32(base + SHMRING_OFF_RINGSIZE, ring_size);
    store32(base + SHMRING_OFF_REQ_DATA, SHMRING_HEADER_SIZE);
    store32(base + SHMRING_OFF_REP_DATA, SHMRING_HEADER_SIZE + ring_size);
    store32(base + SHMRING_OFF_SEGSIZE, (uint32_t)segmentSize(ring_size));
}

int shmringSegmentCreate(shmringSegment *seg, uint32_t ring_size) {
    return shmringSegmentCreateBacked(seg, ring_size, SHMRING_BACKING_BEST);
}

int shmringSegmentCreateBacked(shmringSegment *seg, uint32_t ring_size, shmringBacking backing) {
    memset(seg, 0, sizeof(*seg));
    seg->fd = -1;
    if (ring_size < SHMRING_MIN_SIZE || ring_size > SHMRING_MAX_SIZE || (ring_size & (ring_size - 1))) {
        errno = EINVAL;
        return SHMRING_ERR;
    }
    size_t len = segmentSize(ring_size);
    int fd = createBackingFile(&seg->sealed, backing);
    if (fd == -1) return SHMRING_ERR;
    if (ftruncate(fd, (off_t)len) == -1) goto fail;
#if defined(F_ADD_SEALS) && defined(F_SEAL_SHRINK)
    if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) == 0) seg->sealed = 1;
#endif
    void *base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (base == MAP_FAILED) goto fail;
    seg->base = base;
    seg->len = len;
    seg->ring_size = ring_size;
    seg->fd = fd;
    writeHeader(seg->base, ring_size); /* the file starts zeroed: indexes and flags are 0 */
    return SHMRING_OK;
fail:;
    int saved = errno;
    close(fd);
    errno = saved;
    return SHMRING_ERR;
}

/* Checks the static header of a mapping of len bytes. NULL when valid. */
static const char *checkHeader(const unsigned char *base, size_t len) {
    if (memcmp(base + SHMRING_OFF_MAGIC, SHMRING_MAGIC, 8) != 0) return "bad magic";
    if (load32(base + SHMRING_OFF_BOM) != SHMRING_BOM) return "byte-order mark mismatch";
    if (load32(base + SHMRING_OFF_VERSION) != SHMRING_VERSION) return "unsupported version";
    uint32_t ring_size = load32(base + SHMRING_OFF_RINGSIZE);
    if (ring_size < SHMRING_MIN_SIZE || ring_size > SHMRING_MAX_SIZE || (ring_size & (ring_size - 1)))
        return "bad ring size";
    if (load32(base + SHMRING_OFF_HDRSIZE) != SHMRING_HEADER_SIZE ||
        load32(base + SHMRING_OFF_REQ_DATA) != SHMRING_HEADER_SIZE ||
        load32(base + SHMRING_OFF_REP_DATA) != SHMRING_HEADER_SIZE + ring_size ||
        load32(base + SHMRING_OFF_SEGSIZE) != segmentSize(ring_size) || segmentSize(ring_size) != len)
        return "inconsistent sizes";
    return NULL;
}

int shmringSegmentAttach(shmringSegment *seg, int fd, const char **why) {
    memset(seg, 0, sizeof(*seg));
    seg->fd = -1;
    struct stat st;
    if (fstat(fd, &st) == -1) { *why = strerror(errno); return SHMRING_ERR; }
    if (st.st_size < (off_t)(SHMRING_HEADER_SIZE + 2 * SHMRING_MIN_SIZE) ||
        (unsigned long long)st.st_size > segmentSize(SHMRING_MAX_SIZE)) {
        *why = "segment size out of bounds";
        return SHMRING_ERR;
    }
    size_t len = (size_t)st.st_size;
    void *base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (base == MAP_FAILED) { *why = strerror(errno); return SHMRING_ERR; }
    const char *bad = checkHeader(base, len);
    if (bad) {
        munmap(base, len);
        *why = bad;
        return SHMRING_ERR;
    }
    seg->base = base;
    seg->len = len;
    seg->ring_size = load32(seg->base + SHMRING_OFF_RINGSIZE);
    seg->fd = fd;
#if defined(F_GET_SEALS) && defined(F_SEAL_SHRINK)
    int seals = fcntl(fd, F_GET_SEALS);
    seg->sealed = seals != -1 && (seals & F_SEAL_SHRINK) && (seals & F_SEAL_GROW);
#endif
    return SHMRING_OK;
}

int shmringSegmentIntact(const shmringSegment *seg) {
    if (seg->sealed) return 1;
    struct stat st;
    return fstat(seg->fd, &st) == 0 && (size_t)st.st_size == seg->len;
}

void shmringSegmentRelease(shmringSegment *seg) {
    if (seg->base) munmap(seg->base, seg->len);
    if (seg->fd != -1) close(seg->fd);
    seg->base = NULL;
    seg->fd = -1;
}

/* ---- rings ---------------------------------------------------------------------- */

void shmringOpen(shmring *r, const shmringSegment *seg, shmringDirection dir, shmringRole role) {
    memset(r, 0, sizeof(*r));
    size_t ctl_off = dir == SHMRING_REQUESTS ? SHMRING_OFF_REQ_CTL : SHMRING_OFF_REP_CTL;
    size_t data_off = SHMRING_HEADER_SIZE + (dir == SHMRING_REQUESTS ? 0 : (size_t)seg->ring_size);
    r->ctl = seg->base + ctl_off;
    libAssertMsg(((uintptr_t)r->ctl & 63) == 0, "shmring control block not 64-byte aligned");
    r->data = seg->base + data_off;
    r->size = seg->ring_size;
    r->mask = seg->ring_size - 1;
    r->role = role;
    /* Start from what is published (0 for a fresh segment). */
    r->head = atomic_load_explicit(ctlField(r->ctl, CTL_HEAD), memory_order_acquire);
    r->tail = atomic_load_explicit(ctlField(r->ctl, CTL_TAIL), memory_order_acquire);
    if (r->head - r->tail > r->size) r->head = r->tail; /* a consumer re-checks on every load */
}

static int violation(shmring *r, const char *why) {
    r->violation = why;
    errno = EPROTO;
    return SHMRING_ERR;
}

/* Consumer: the producer's head, checked against our tail and the last head
 * we saw (it may only move forward, by at most what fits). */
static int loadPeerHead(shmring *r, uint32_t *head) {
    uint32_t h = atomic_load_explicit(ctlField(r->ctl, CTL_HEAD), memory_order_acquire);
    uint32_t used = h - r->tail;
    if (used > r->size) return violation(r, "head beyond the ring");
    if (h - r->head > r->size || used < r->head - r->tail)
        return violation(r, "head went backwards");
    r->head = h;
    *head = h;
    return SHMRING_OK;
}

/* Producer: the consumer's tail, which must lie between the last tail we
 * saw and our head. */
static int loadPeerTail(shmring *r, uint32_t *tail) {
    uint32_t t = atomic_load_explicit(ctlField(r->ctl, CTL_TAIL), memory_order_acquire);
    if (r->head - t > r->size) return violation(r, "tail beyond the ring");
    if (t - r->tail > r->head - r->tail) return violation(r, "tail went backwards");
    r->tail = t;
    *tail = t;
    return SHMRING_OK;
}

ssize_t shmringWritable(shmring *r) {
    uint32_t tail;
    if (loadPeerTail(r, &tail) == SHMRING_ERR) return SHMRING_ERR;
    return (ssize_t)(r->size - (r->head - tail));
}

ssize_t shmringReadable(shmring *r) {
    uint32_t head;
    if (loadPeerHead(r, &head) == SHMRING_ERR) return SHMRING_ERR;
    return (ssize_t)(head - r->tail);
}

ssize_t shmringWrite(shmring *r, const void *buf, size_t len) {
    ssize_t room = shmringWritable(r);
    if (room <= 0) return room;
    size_t n = len < (size_t)room ? len : (size_t)room;
    uint32_t at = r->head & r->mask;
    size_t first = n < r->size - at ? n : r->size - at;
    memcpy(r->data + at, buf, first);
    memcpy(r->data, (const unsigned char *)buf + first, n - first);
    r->head += (uint32_t)n;
    atomic_store_explicit(ctlField(r->ctl, CTL_HEAD), r->head, memory_order_release);
    return (ssize_t)n;
}

ssize_t shmringRead(shmring *r, void *buf, size_t len) {
    ssize_t avail = shmringReadable(r);
    if (avail <= 0) return avail;
    size_t n = len < (size_t)avail ? len : (size_t)avail;
    uint32_t at = r->tail & r->mask;
    size_t first = n < r->size - at ? n : r->size - at;
    memcpy(buf, r->data + at, first);
    memcpy((unsigned char *)buf + first, r->data, n - first);
    r->tail += (uint32_t)n;
    atomic_store_explicit(ctlField(r->ctl, CTL_TAIL), r->tail, memory_order_release);
    return (ssize_t)n;
}

/* ---- the wait/wake protocol --------------------------------------------------- */

/* The store-load fence of the handshake (shmring.h): a store of ours must
 * be visible before we load the peer's. QEMU user-mode emulation (Debian
 * 12's 7.2) translates ARMv6's barrier, the CP15 DMB, as a no-op, so on an
 * x86 host the emulated store could still sit in the store buffer when the
 * load runs, and both sides sleep: a lost wake-up, reproduced by
 * test_shmring's ping-pong under qemu-arm -cpu arm1176 (2 runs in 7 before
 * this, 0 in 8 after). An atomic read-modify-write is emulated with a
 * locked host instruction, which is a full fence on the host as well; on
 * a real ARMv6 it is one more atomic next to the barrier. ARMv7's DMB and
 * the other targets' fences are emulated faithfully (SPARC's MEMBAR is a
 * no-op in 7.2 too, but 7.2 orders every emulated SPARC load after earlier
 * stores). */
static void storeLoadFence(void) {
    atomic_thread_fence(memory_order_seq_cst);
#ifdef PLATFORM_ARM_CP15_BARRIER
    static _Atomic uint32_t fence_word;
    atomic_fetch_add_explicit(&fence_word, 1, memory_order_seq_cst);
#endif
}

int shmringConsumerPrepareSleep(shmring *r) {
    atomic_store_explicit(ctlField(r->ctl, CTL_CONSUMER_SLEEPING), 1, memory_order_seq_cst);
    storeLoadFence();
    ssize_t avail = shmringReadable(r);
    if (avail < 0) return SHMRING_ERR;
    return avail > 0;
}

void shmringConsumerStayAwake(shmring *r) {
    atomic_store_explicit(ctlField(r->ctl, CTL_CONSUMER_SLEEPING), 0, memory_order_relaxed);
}

int shmringProducerPrepareSleep(shmring *r) {
    atomic_store_explicit(ctlField(r->ctl, CTL_PRODUCER_SLEEPING), 1, memory_order_seq_cst);
    storeLoadFence();
    ssize_t room = shmringWritable(r);
    if (room < 0) return SHMRING_ERR;
    return room > 0;
}

int shmringTakeWakeRequest(shmring *r) {
    int producer = r->role == SHMRING_PRODUCER;
    _Atomic uint32_t *flag = ctlField(r->ctl, producer ? CTL_CONSUMER_SLEEPING : CTL_PRODUCER_SLEEPING);
    storeLoadFence();
    if (atomic_load_explicit(flag, memory_order_relaxed) == 0) return 0;
    if (atomic_exchange_explicit(flag, 0, memory_order_acq_rel) == 0) return 0;
    _Atomic uint32_t *count = ctlField(r->ctl, producer ? CTL_PRODUCER_WAKES : CTL_CONSUMER_WAKES);
    atomic_fetch_add_explicit(count, 1, memory_order_relaxed);
    return 1;
}

uint32_t shmringProducerWakes(const shmring *r) {
    return atomic_load_explicit(ctlField(r->ctl, CTL_PRODUCER_WAKES), memory_order_relaxed);
}

uint32_t shmringConsumerWakes(const shmring *r) {
    return atomic_load_explicit(ctlField(r->ctl, CTL_CONSUMER_WAKES), memory_order_relaxed);
}

/* ---- signalling ------------------------------------------------------------------ */

#ifndef MSG_NOSIGNAL
#define MSG_NOSIGNAL 0 /* where there is none, SIGPIPE is ignored by the caller */
#endif

/* Small: the kernel rounds it up to its minimum, room for a few datagrams. */
#define SHMRING_WAKE_SNDBUF 4096

static int wakeEndSetup(int fd) {
    int flags = fcntl(fd, F_GETFL);
    if (flags == -1 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) == -1) return -1;
    if (fcntl(fd, F_SETFD, FD_CLOEXEC) == -1) return -1;
    int sndbuf = SHMRING_WAKE_SNDBUF;
    (void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf)); /* best effort */
    return 0;
}

int shmringWakePair(int fds[2]) {
    if (socketpair(AF_UNIX, SOCK_DGRAM, 0, fds) == -1) return SHMRING_ERR;
    if (wakeEndSetup(fds[0]) == -1 || wakeEndSetup(fds[1]) == -1) {
        int saved = errno;
        close(fds[0]);
        close(fds[1]);
        errno = saved;
        return SHMRING_ERR;
    }
    return SHMRING_OK;
}

int shmringSignal(int fd) {
    unsigned char one[8];
    store64(one, 1);
    for (;;) {
        if (send(fd, one, sizeof(one), MSG_DONTWAIT | MSG_NOSIGNAL) == (ssize_t)sizeof(one)) return SHMRING_OK;
        if (errno == EINTR) continue;
        /* a full queue: the peer has unread wake-ups, this one is pending */
        return errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS ? SHMRING_OK : SHMRING_ERR;
    }
}

int shmringDrain(int fd) {
    unsigned char buf[8];
    int n = 0;
    while (n < SHMRING_DRAIN_MAX) {
        if (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) >= 0) { /* a longer datagram is truncated, 0 is an empty one */
            n++;
            continue;
        }
        if (errno == EINTR) continue;
        return errno == EAGAIN || errno == EWOULDBLOCK ? n : SHMRING_ERR;
    }
    return n;
}

/* ---- spinning --------------------------------------------------------------------- */

#define SHMRING_SPIN_MAX_US 20

unsigned shmringSpinBudgetUs(void) {
    static int cpus = 0;
    if (cpus == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        cpus = n > 0 ? (int)n : 1;
    }
    return cpus > 1 ? SHMRING_SPIN_MAX_US : 0;
}

void shmringCpuRelax(void) {
#if defined(PLATFORM_SPIN_PAUSE)
    __builtin_ia32_pause();
#elif defined(PLATFORM_SPIN_YIELD)
    __asm__ __volatile__("yield");
#else
    atomic_signal_fence(memory_order_seq_cst);
#endif
}
