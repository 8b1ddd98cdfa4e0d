/* shmring.h -- two single-producer/single-consumer byte rings in one shared
 * memory segment: the shared-memory transport's wire format, with no server
 * knowledge (the server side is connection_shm.c, the client side
 * src/tools/rclient_shm.c, a standalone example utils/shm-example.c).
 *
 * THE SEGMENT (one memfd, or an unlinked /dev/shm file; host byte order: it
 * never leaves the machine, and the byte-order mark catches a peer that
 * sees the host differently, e.g. a big-endian program under qemu-user):
 *
 *   offset  size  field (static: written once by the creator, before the
 *                 descriptor is passed, read through portable.h helpers)
 *        0     8  magic "RSHMRING"
 *        8     4  version (1)
 *       12     4  byte-order mark 0x01020304 as the creator's host stores it
 *       16     4  header size (4096: the data areas start page-aligned)
 *       20     4  ring size: bytes in each data area, a power of two
 *       24     4  offset of the request ring's data  (client -> server)
 *       28     4  offset of the reply ring's data    (server -> client)
 *       32     4  segment size (header + 2 x ring size)
 *      256   256  request ring's control block
 *      512   256  reply ring's control block
 *     4096  size  request data, then reply data
 *
 *   control block (each 32-bit field on its own 64-byte line, so producer
 *   and consumer never write the same cache line):
 *       +0  head              bytes ever written, mod 2^32 (producer)
 *       +4  producer_wakes    how many times the producer woke the consumer
 *      +64  tail              bytes ever read, mod 2^32 (consumer)
 *      +68  consumer_wakes    how many times the consumer woke the producer
 *     +128  consumer_sleeping 1: the consumer found the ring empty and is
 *                             about to sleep -- wake it (producer sets 0)
 *     +192  producer_sleeping 1: the producer found the ring full and is
 *                             about to sleep -- wake it (consumer sets 0)
 *
 * Indexes are free-running 32-bit counters (ARMv6 has no 64-bit atomics):
 * used = head - tail (mod 2^32) and the ring size is at most 2^30, so a
 * valid pair always has used <= size. Each side keeps its own index in
 * private memory and only publishes it; it never reads its own index back
 * from the segment, and checks every index of the peer it reads
 * (shmringRead/Write return SHMRING_ERR with a reason on a violation: an
 * index beyond the ring, going backwards, or wrapped past the other).
 *
 * ORDERING: a producer copies the bytes, then stores head with release; a
 * consumer loads head with acquire, then copies (and the mirror for tail:
 * the producer may reuse room only after the consumer's release store of
 * tail). All atomics are 32-bit and lock-free (asserted at compile time),
 * so they work between processes.
 *
 * WAITING WITHOUT LOST WAKE-UPS: a consumer that finds the ring empty sets
 * consumer_sleeping, issues a full fence and looks at head again
 * (shmringConsumerPrepareSleep); a producer publishes head, issues a full
 * fence and then looks at consumer_sleeping (shmringTakeWakeRequest). With
 * both fences at least one of them sees the other's store: either the
 * consumer sees the new head and does not sleep, or the producer sees the
 * flag and signals. The same holds for a producer waiting for room. A
 * producer signals only when asked, so a busy pipeline makes no system
 * calls. How to signal is the caller's business (the transport uses one
 * datagram socketpair per connection: shmringWakePair, shmringSignal,
 * shmringDrain).
 *
 * WAKE-UP SOCKETS, NOT EVENTFDS: a descriptor passed to the peer shares its
 * open file description -- O_NONBLOCK included -- with the sender's copy,
 * so the peer can make any descriptor the two share blocking. An eventfd
 * needs both sides on one descriptor, so the peer could clear O_NONBLOCK,
 * fill the counter (or empty it) and block the other side in write() (or
 * read()) for good. A socketpair gives each side an end of its own: the
 * creator keeps one and passes the other, the peer sends to it and reads
 * from it as it did with the eventfds ("write 8 bytes" signals, "read 8
 * bytes" takes one signal), and the owner of the end kept uses send/recv
 * with MSG_DONTWAIT, non-blocking per call whatever any descriptor's
 * flags. A full send queue means the peer has wake-ups it has not read
 * yet: the signal is already pending (shmringSignal's EAGAIN is success).
 *
 * SPINNING CONSUMER: a consumer that polls the ring for a while instead of
 * sleeping (the server, right after it answered) first withdraws its
 * announcement (shmringConsumerStayAwake), so the producer publishes with
 * no system call, and announces again with shmringConsumerPrepareSleep
 * (store, fence, look again) before it really sleeps: the same handshake
 * as above, so a request published while the flag was down is seen by that
 * last look.
 */
#ifndef REDIS_SHMRING_H
#define REDIS_SHMRING_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define SHMRING_OK 0
#define SHMRING_ERR (-1)

#define SHMRING_VERSION 1
#define SHMRING_BOM 0x01020304u
#define SHMRING_HEADER_SIZE 4096u
#define SHMRING_MIN_SIZE 4096u
#define SHMRING_MAX_SIZE (1u << 30)

/* Static header offsets (see the table above). */
#define SHMRING_OFF_MAGIC 0
#define SHMRING_OFF_VERSION 8
#define SHMRING_OFF_BOM 12
#define SHMRING_OFF_HDRSIZE 16
#define SHMRING_OFF_RINGSIZE 20
#define SHMRING_OFF_REQ_DATA 24
#define SHMRING_OFF_REP_DATA 28
#define SHMRING_OFF_SEGSIZE 32
#define SHMRING_OFF_REQ_CTL 256
#define SHMRING_OFF_REP_CTL 512
#define SHMRING_MAGIC "RSHMRING"

typedef enum { SHMRING_REQUESTS = 0, SHMRING_REPLIES = 1 } shmringDirection;
typedef enum { SHMRING_PRODUCER = 0, SHMRING_CONSUMER = 1 } shmringRole;
/* What backs a new segment: a sealed memfd when the kernel has one (else
 * the /dev/shm file), or always the unlinked /dev/shm file (tests of the
 * fallback). */
typedef enum { SHMRING_BACKING_BEST = 0, SHMRING_BACKING_DEVSHM = 1 } shmringBacking;

/* A mapped segment. */
typedef struct shmringSegment {
    unsigned char *base;
    size_t len;          /* the whole mapping */
    uint32_t ring_size;
    int fd;              /* the memfd (or /dev/shm file), -1 once closed */
    int sealed;          /* 1: the size can't change (F_SEAL_SHRINK|GROW) */
} shmringSegment;

/* One side's view of one ring. */
typedef struct shmring {
    unsigned char *data;
    void *ctl;            /* the shared control block */
    uint32_t size, mask;
    shmringRole role;
    uint32_t head;        /* producer: own index; consumer: last head seen */
    uint32_t tail;        /* consumer: own index; producer: last tail seen */
    const char *violation;/* why the last call returned SHMRING_ERR */
} shmring;

/* ---- segments ------------------------------------------------------------------ */
/* The ring size a request asks for: rounded up to a power of two and
 * clamped to [SHMRING_MIN_SIZE, SHMRING_MAX_SIZE]. */
uint32_t shmringRoundSize(unsigned long long requested);
/* Creator (server): a memfd (sealed against shrinking and growing) or,
 * without memfd_create, an unlinked file in /dev/shm; writes the header.
 * SHMRING_ERR with errno set. */
int shmringSegmentCreate(shmringSegment *seg, uint32_t ring_size);
/* The same with the backing chosen (shmringSegmentCreate: BEST). */
int shmringSegmentCreateBacked(shmringSegment *seg, uint32_t ring_size, shmringBacking backing);
/* Peer (client): checks the file's size with fstat, maps it, checks magic,
 * version, byte-order mark and sizes. Takes ownership of fd on success.
 * SHMRING_ERR with a reason in *why. */
int shmringSegmentAttach(shmringSegment *seg, int fd, const char **why);
/* 1 while the file still has the size it was mapped with (for an unsealed
 * segment, whose peer could truncate it). */
int shmringSegmentIntact(const shmringSegment *seg);
/* Unmaps and closes the fd (if still open). */
void shmringSegmentRelease(shmringSegment *seg);

/* ---- rings ---------------------------------------------------------------------- */
void shmringOpen(shmring *r, const shmringSegment *seg, shmringDirection dir, shmringRole role);

/* Producer: copies up to len bytes (what fits) and publishes them. Returns
 * the count (0: full), or SHMRING_ERR on a violation (r->violation). */
ssize_t shmringWrite(shmring *r, const void *buf, size_t len);
/* Consumer: copies up to len bytes out and frees their room. Returns the
 * count (0: empty), or SHMRING_ERR on a violation. */
ssize_t shmringRead(shmring *r, void *buf, size_t len);
/* Producer: free room now (0 when full), SHMRING_ERR on a violation. */
ssize_t shmringWritable(shmring *r);
/* Consumer: bytes waiting now, SHMRING_ERR on a violation. */
ssize_t shmringReadable(shmring *r);

/* ---- the wait/wake protocol --------------------------------------------------- */
/* Consumer about to sleep: announces it, then looks again. 1 when data is
 * there after all (don't sleep), 0 when armed (sleep until signalled),
 * SHMRING_ERR on a violation. */
int shmringConsumerPrepareSleep(shmring *r);
/* Consumer about to poll the ring instead of sleeping: withdraws the
 * announcement, so the producer publishes without signalling. The caller
 * must call shmringConsumerPrepareSleep before it sleeps. */
void shmringConsumerStayAwake(shmring *r);
/* Producer about to wait for room: the same, 1 when there is room. */
int shmringProducerPrepareSleep(shmring *r);
/* After publishing (producer) or freeing room (consumer): 1 when the peer
 * asked to be woken -- the request is taken, the caller must signal. */
int shmringTakeWakeRequest(shmring *r);
/* The counters of the header, for tests and INFO: how many wake-ups each
 * side of this ring has sent. */
uint32_t shmringProducerWakes(const shmring *r);
uint32_t shmringConsumerWakes(const shmring *r);

/* The wake-up channel: an AF_UNIX datagram socketpair, both ends
 * non-blocking and close-on-exec, with small send buffers (a handful of
 * wake-ups in flight is all the protocol needs, so a peer that never reads
 * its end ties up little kernel memory). SHMRING_OK, or SHMRING_ERR with
 * errno. */
int shmringWakePair(int fds[2]);
/* One 8-byte datagram to the other end, never blocking (MSG_DONTWAIT):
 * SHMRING_OK also when the other end's queue is full (a wake-up is
 * pending), SHMRING_ERR (errno) when the other end is gone. */
int shmringSignal(int fd);
/* Reads at most SHMRING_DRAIN_MAX datagrams of any size, never blocking:
 * how many, or SHMRING_ERR (errno) on an error other than "empty". More
 * may be left: the descriptor then stays readable (a level-triggered
 * caller comes back), so a peer that floods it costs bounded work per
 * wake-up. */
#define SHMRING_DRAIN_MAX 64
int shmringDrain(int fd);

/* ---- spinning --------------------------------------------------------------------- */
/* Microseconds a waiter may spin before sleeping: 0 on a single-CPU
 * machine (spinning there only delays the peer it waits for). */
unsigned shmringSpinBudgetUs(void);
/* One pause of a spin loop (a CPU hint where there is one). */
void shmringCpuRelax(void);

#endif /* REDIS_SHMRING_H */
