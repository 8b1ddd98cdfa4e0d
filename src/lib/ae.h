/* ae.h -- the single-threaded event loop: file (socket) readiness events and
 * timers, multiplexed over one OS poller.
 *
 * The server runs one loop. Everything it does happens in a callback of this
 * loop: a socket became readable or writable, a timer expired, or the loop is
 * about to sleep (beforesleep) or just woke up (aftersleep).
 *
 * Design decisions:
 *  - One OS backend is chosen at build time from platform.h (epoll on Linux,
 *    kqueue on the BSDs and macOS, poll() everywhere else). A port that wants
 *    a new backend adds one file implementing the small aeApi* interface
 *    described at the top of ae.c. Define AE_FORCE_POLL to select poll().
 *  - File events live in an array indexed by fd, sized by `setsize` (the
 *    maximum number of fds plus a margin, decided by the caller). An fd at or
 *    beyond setsize is refused with errno ERANGE, never silently grown, so
 *    the server's "max number of clients" check has one source of truth.
 *  - Timers use a monotonic clock in microseconds; wall-clock jumps do not
 *    fire or starve them. Their callbacks return the next delay in ms, or
 *    AE_NOMORE to end. Deleting a timer only marks it; it is freed (and its
 *    finalizer called) when the loop next scans its timers and the timer is
 *    not running, so deleting from any callback, including its own, is safe.
 *  - When the same handler is registered for reading and writing, it is
 *    called once per loop iteration with both bits in `mask`. AE_BARRIER on
 *    an fd inverts the order (write before read) for distinct handlers.
 *  - The loop structure is opaque: use the accessors below.
 *  - Errors are AE_OK/AE_ERR with errno set; nothing here logs or exits.
 *  - Optionally, after a busy iteration the loop polls without blocking for
 *    a few microseconds before it sleeps (aeSetSpinBudget), so a peer that
 *    answers quickly does not have to wake it up.
 */
#ifndef REDIS_AE_H
#define REDIS_AE_H

#include <stdint.h>

#define AE_OK 0
#define AE_ERR (-1)

/* File event masks. */
#define AE_NONE 0
#define AE_READABLE 1
#define AE_WRITABLE 2
#define AE_BARRIER 4   /* fire the writable handler before the readable one */

/* aeProcessEvents flags. */
#define AE_FILE_EVENTS (1 << 0)
#define AE_TIME_EVENTS (1 << 1)
#define AE_ALL_EVENTS (AE_FILE_EVENTS | AE_TIME_EVENTS)
#define AE_DONT_WAIT (1 << 2)
#define AE_CALL_BEFORE_SLEEP (1 << 3)
#define AE_CALL_AFTER_SLEEP (1 << 4)

/* A time proc returning this ends its timer. */
#define AE_NOMORE -1
/* The id a deleted timer carries until it is freed. */
#define AE_DELETED_EVENT_ID -1

typedef struct aeEventLoop aeEventLoop;

typedef void aeFileProc(aeEventLoop *el, int fd, void *clientData, int mask);
typedef int aeTimeProc(aeEventLoop *el, long long id, void *clientData);
typedef void aeEventFinalizerProc(aeEventLoop *el, void *clientData);
typedef void aeBeforeSleepProc(aeEventLoop *el);

/* Returns NULL (errno set) when setsize is not positive, too large to
 * allocate, or the OS poller cannot be created. */
aeEventLoop *aeCreateEventLoop(int setsize);
/* Calls the finalizer of every pending timer, then frees the loop. */
void aeDeleteEventLoop(aeEventLoop *el);
/* Makes aeMain return after the current iteration. */
void aeStop(aeEventLoop *el);
void aeMain(aeEventLoop *el);

int aeCreateFileEvent(aeEventLoop *el, int fd, int mask, aeFileProc *proc, void *clientData);
void aeDeleteFileEvent(aeEventLoop *el, int fd, int mask);
int aeGetFileEvents(aeEventLoop *el, int fd);
void *aeGetFileClientData(aeEventLoop *el, int fd);

/* Returns the new timer's id (>= 0), first firing after `milliseconds`. */
long long aeCreateTimeEvent(aeEventLoop *el, long long milliseconds, aeTimeProc *proc,
                            void *clientData, aeEventFinalizerProc *finalizerProc);
/* AE_ERR (errno ENOENT) when no live timer has this id. */
int aeDeleteTimeEvent(aeEventLoop *el, long long id);

/* Runs one iteration; returns the number of events processed, or AE_ERR
 * (errno set) when the OS poller failed for a reason other than EINTR. */
int aeProcessEvents(aeEventLoop *el, int flags);

/* Blocks until fd is ready for `mask` or `milliseconds` pass (-1: forever).
 * Returns the ready mask (may include both bits), 0 on timeout, -1 on error. */
int aeWait(int fd, int mask, long long milliseconds);

const char *aeGetApiName(void);
void aeSetBeforeSleepProc(aeEventLoop *el, aeBeforeSleepProc *beforesleep);
void aeSetAfterSleepProc(aeEventLoop *el, aeBeforeSleepProc *aftersleep);
int aeGetSetSize(aeEventLoop *el);
/* AE_ERR if an fd >= the new size is registered (errno ERANGE) or memory for
 * the new size cannot be had (errno ENOMEM); the loop is unchanged then. */
int aeResizeSetSize(aeEventLoop *el, int setsize);
/* While set, iterations never sleep (e.g. work is pending in beforesleep). */
void aeSetDontWait(aeEventLoop *el, int noWait);

/* Spinning before sleeping (see the top of ae.c): after an iteration that
 * handled file events, the next one polls without blocking for up to `us`
 * microseconds before it sleeps (less after spins that caught nothing: the
 * length adapts below `us`). 0 (the default) never spins. */
void aeSetSpinBudget(aeEventLoop *el, unsigned int us);
unsigned int aeGetSpinBudget(aeEventLoop *el);
typedef struct aeSpinStats {
    unsigned long long spins;      /* waits that began with a spin */
    unsigned long long hits;       /* ... and found events while spinning */
    unsigned long long spinTimeUs; /* time spent spinning, in total */
    unsigned long long nextSpinUs; /* the next spin's length (0: a probe only) */
} aeSpinStats;
void aeGetSpinStats(aeEventLoop *el, aeSpinStats *stats);

/* Microseconds on a clock that never goes backwards; its origin is arbitrary. */
uint64_t aeMonotonicUs(void);

#endif /* REDIS_AE_H */
