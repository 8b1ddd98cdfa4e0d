/* ae.c -- the event loop: file events, timers, and the iteration that ties
 * them to one OS poller. See ae.h for the public contract.
 *
 * Backend interface. Exactly one of ae_epoll.c, ae_kqueue.c, ae_poll.c is
 * #included below (each compiles to nothing on its own; the Makefile also
 * leaves ae_*.c out of the library's sources). A backend provides, all static:
 *
 *   int  aeApiCreate(aeEventLoop *el)         0, or -1 with errno set
 *   int  aeApiResize(aeEventLoop *el, int n)  0, or -1 leaving state intact
 *   void aeApiFree(aeEventLoop *el)
 *   int  aeApiSetEvents(aeEventLoop *el, int fd, int oldmask, int newmask)
 *        moves fd from oldmask to newmask (AE_READABLE|AE_WRITABLE bits
 *        only; AE_NONE means not registered); 0, or -1 with errno set
 *   int  aeApiPoll(aeEventLoop *el, int64_t timeoutUs)
 *        waits (timeoutUs -1: forever), stores ready fds in el->fired and
 *        returns how many (at most el->setsize, one entry per fd); EINTR
 *        counts as 0; -1 with errno on any other failure
 *   const char *aeApiName(void)
 *
 * Backend state hangs off el->apidata. Arrays sized by setsize are allocated
 * with aeTryAllocArray so that a huge setsize fails cleanly (ENOMEM) instead
 * of overflowing a size computation on 32-bit targets.
 *
 * Timers are an unsorted doubly-linked list: the server has a handful, so
 * every operation is a short scan, and there is no ordering to repair when
 * a callback reschedules, deletes or creates timers. Within one pass due
 * timers run earliest deadline first (ties: oldest first); each runs at most
 * once per pass, and timers created during a pass wait for the next one.
 *
 * Spinning before sleeping (aeSetSpinBudget). A busy peer often sends its
 * next request a few microseconds after the server finished a batch; if the
 * server is asleep by then, waking it costs the peer a scheduler wake-up,
 * which can be dearer than the request itself. So after a pass that
 * dispatched at least one file event, the next wait first polls with a zero
 * timeout, re-reading the monotonic clock, until events arrive or the budget
 * is used, and only then blocks. The spin starts after beforesleep (which
 * writes the replies: they must be on the wire before we wait for the next
 * request), never runs when the previous pass found nothing (an idle loop
 * blocks at once and costs no CPU), never when the wait would not block
 * anyway (AE_DONT_WAIT), and never past the earliest timer's deadline.
 * The length adapts below the budget: a spin that catches events restores
 * the full budget for the next one, a spin that runs its whole length in
 * vain halves the next (so clients whose requests come too far apart for
 * the spin to catch soon stop costing it), and at 0 one busy wait in 16
 * spins the full budget again to find out whether it would now pay. The
 * backends need nothing for it: aeApiPoll with a zero timeout is a poll. No
 * CPU relax hint between polls: each poll is a system call, far longer
 * than a hint's pause.
 */
#include "ae.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "platform.h"
#include "zmalloc.h"

typedef struct aeFileEvent {
    int mask;                 /* AE_READABLE|AE_WRITABLE|AE_BARRIER, or AE_NONE */
    aeFileProc *rfileProc;
    aeFileProc *wfileProc;
    void *clientData;
} aeFileEvent;

typedef struct aeFiredEvent {
    int fd;
    int mask;
} aeFiredEvent;

typedef struct aeTimeEvent {
    long long id;             /* AE_DELETED_EVENT_ID once deleted */
    uint64_t when;            /* deadline, aeMonotonicUs() units */
    aeTimeProc *timeProc;
    aeEventFinalizerProc *finalizerProc;
    void *clientData;
    struct aeTimeEvent *prev;
    struct aeTimeEvent *next;
    int refcount;             /* > 0 while its callback runs: never freed then */
    unsigned long pass;       /* the timer pass that last ran it */
} aeTimeEvent;

struct aeEventLoop {
    int maxfd;                /* highest registered fd, -1 if none */
    int setsize;              /* fds must be < setsize */
    long long timeEventNextId;
    aeFileEvent *events;      /* indexed by fd, setsize entries */
    aeFiredEvent *fired;      /* filled by aeApiPoll; firedSize >= setsize entries */
    int firedSize;            /* never shrinks: see aeResizeSetSize */
    aeTimeEvent *timeEventHead;
    unsigned long timerPass;
    int stop;
    int flags;                /* AE_DONT_WAIT when set by aeSetDontWait */
    void *apidata;            /* backend state */
    aeBeforeSleepProc *beforesleep;
    aeBeforeSleepProc *aftersleep;
    uint64_t spinBudgetUs;    /* aeSetSpinBudget; 0: never spin */
    uint64_t spinNextUs;      /* the next spin's length, adapted, <= budget */
    unsigned spinSkipped;     /* busy waits without a spin, for the probes */
    int spinArmed;            /* the last pass dispatched a file event */
    aeSpinStats spinStats;
};

#define AE_IO_MASK (AE_READABLE | AE_WRITABLE)

/* ---- helpers shared with the backends ----------------------------------- */

/* An uninitialised array of `count` elements, or NULL with errno ENOMEM when
 * count is not positive, the size overflows, or memory is short. */
static void *aeTryAllocArrayWith(void *(*alloc)(size_t), int count, size_t elemSize) {
    if (count <= 0 || (size_t)count > SIZE_MAX / elemSize) {
        errno = ENOMEM;
        return NULL;
    }
    void *p = alloc((size_t)count * elemSize);
    if (p == NULL) errno = ENOMEM;
    return p;
}

static void *aeTryAllocArray(int count, size_t elemSize) {
    return aeTryAllocArrayWith(ztrymalloc, count, elemSize);
}

/* A poll()/epoll timeout in ms from microseconds, rounded up so a wait for a
 * timer never returns just before its deadline and spins. */
static int aeTimeoutMs(int64_t timeoutUs) {
    if (timeoutUs < 0) return -1;
    int64_t ms = (timeoutUs + 999) / 1000;
    return ms > INT_MAX ? INT_MAX : (int)ms;
}

#define AE_BACKEND_INCLUDED 1
#if defined(AE_FORCE_POLL)
#include "ae_poll.c"
#elif defined(HAVE_EPOLL)
#include "ae_epoll.c"
#elif defined(HAVE_KQUEUE)
#include "ae_kqueue.c"
#else
#include "ae_poll.c"
#endif

/* ---- clock ------------------------------------------------------------- */

uint64_t aeMonotonicUs(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* now + ms, saturating; negative delays mean "as soon as possible". */
static uint64_t aeDeadlineAfterMs(long long milliseconds) {
    uint64_t now = aeMonotonicUs();
    if (milliseconds <= 0) return now;
    if ((uint64_t)milliseconds > (UINT64_MAX - now) / 1000u) return UINT64_MAX;
    return now + (uint64_t)milliseconds * 1000u;
}

/* ---- loop lifecycle ------------------------------------------------------ */

/* A fresh fd-indexed event array of `setsize` entries, the first `keep`
 * copied from `old` and the rest empty. Zeroed memory already is an empty
 * entry (AE_NONE is 0, asserted below, and NULL is all-zero bits on every
 * target we build for; test_ae checks a new loop reports no events), so the array comes from calloc and is never written
 * here: a loop sized for 10000 clients costs no resident memory until fds
 * are actually used -- it matters on a 512 MB board. */
_Static_assert(AE_NONE == 0, "empty events must be all-zero bits");

static aeFileEvent *aeAllocFileEvents(const aeFileEvent *old, int setsize, int keep) {
    aeFileEvent *events = aeTryAllocArrayWith(ztrycalloc, setsize, sizeof(aeFileEvent));
    if (events == NULL) return NULL;
    if (keep > 0) memcpy(events, old, (size_t)keep * sizeof(aeFileEvent));
    return events;
}

aeEventLoop *aeCreateEventLoop(int setsize) {
    if (setsize <= 0) {
        errno = EINVAL;
        return NULL;
    }
    aeEventLoop *el = zcalloc(sizeof(*el));
    el->events = aeAllocFileEvents(NULL, setsize, 0);
    el->fired = aeTryAllocArray(setsize, sizeof(aeFiredEvent));
    if (el->events == NULL || el->fired == NULL) {
        zfree(el->events);
        zfree(el->fired);
        zfree(el);
        errno = ENOMEM;
        return NULL;
    }
    el->setsize = el->firedSize = setsize;
    el->maxfd = -1;
    if (aeApiCreate(el) == -1) {
        int saved = errno;
        zfree(el->events);
        zfree(el->fired);
        zfree(el);
        errno = saved;
        return NULL;
    }
    return el;
}

static void aeFreeTimeEvent(aeEventLoop *el, aeTimeEvent *te) {
    if (te->prev) te->prev->next = te->next;
    else el->timeEventHead = te->next;
    if (te->next) te->next->prev = te->prev;
    if (te->finalizerProc) te->finalizerProc(el, te->clientData);
    zfree(te);
}

void aeDeleteEventLoop(aeEventLoop *el) {
    if (el == NULL) return;
    /* Finalizers first, while the loop is still whole: they may delete
     * file events or other timers. */
    while (el->timeEventHead) aeFreeTimeEvent(el, el->timeEventHead);
    aeApiFree(el);
    zfree(el->events);
    zfree(el->fired);
    zfree(el);
}

void aeStop(aeEventLoop *el) {
    el->stop = 1;
}

int aeGetSetSize(aeEventLoop *el) {
    return el->setsize;
}

/* el->fired grown to `size` entries (contents kept), or NULL. */
static aeFiredEvent *aeGrowFired(aeEventLoop *el, int size) {
    aeFiredEvent *fired = aeTryAllocArray(size, sizeof(aeFiredEvent));
    if (fired) memcpy(fired, el->fired, (size_t)el->firedSize * sizeof(aeFiredEvent));
    return fired;
}

/* May be called from a file handler, while the loop still walks el->fired:
 * so that array only ever grows (keeping its entries), and dispatch skips
 * fired fds beyond a shrunk set. All-or-nothing: on failure the loop is
 * exactly as before. */
int aeResizeSetSize(aeEventLoop *el, int setsize) {
    if (setsize == el->setsize) return AE_OK;
    if (setsize <= 0 || el->maxfd >= setsize) {
        errno = ERANGE;
        return AE_ERR;
    }
    int keep = setsize < el->setsize ? setsize : el->setsize;
    aeFileEvent *events = aeAllocFileEvents(el->events, setsize, keep);
    aeFiredEvent *fired = setsize > el->firedSize ? aeGrowFired(el, setsize) : el->fired;
    int failed = events == NULL || fired == NULL ? ENOMEM : 0;
    if (!failed && aeApiResize(el, setsize) == -1) failed = errno;
    if (failed) {
        zfree(events);
        if (fired != el->fired) zfree(fired);
        errno = failed;
        return AE_ERR;
    }
    zfree(el->events);
    el->events = events;
    if (fired != el->fired) {
        zfree(el->fired);
        el->fired = fired;
        el->firedSize = setsize;
    }
    el->setsize = setsize;
    return AE_OK;
}

void aeSetDontWait(aeEventLoop *el, int noWait) {
    if (noWait) el->flags |= AE_DONT_WAIT;
    else el->flags &= ~AE_DONT_WAIT;
}

void aeSetSpinBudget(aeEventLoop *el, unsigned int us) {
    el->spinBudgetUs = el->spinNextUs = us;
    el->spinStats.nextSpinUs = us;
}

unsigned int aeGetSpinBudget(aeEventLoop *el) {
    return (unsigned int)el->spinBudgetUs;
}

void aeGetSpinStats(aeEventLoop *el, aeSpinStats *stats) {
    *stats = el->spinStats;
}

void aeSetBeforeSleepProc(aeEventLoop *el, aeBeforeSleepProc *beforesleep) {
    el->beforesleep = beforesleep;
}

void aeSetAfterSleepProc(aeEventLoop *el, aeBeforeSleepProc *aftersleep) {
    el->aftersleep = aftersleep;
}

const char *aeGetApiName(void) {
    return aeApiName();
}

/* ---- file events ----------------------------------------------------------- */

int aeCreateFileEvent(aeEventLoop *el, int fd, int mask, aeFileProc *proc, void *clientData) {
    if (fd < 0 || fd >= el->setsize) {
        errno = ERANGE;
        return AE_ERR;
    }
    aeFileEvent *fe = &el->events[fd];
    int oldIO = fe->mask & AE_IO_MASK;
    int newIO = oldIO | (mask & AE_IO_MASK);
    if (newIO == AE_NONE) {   /* AE_BARRIER alone registers nothing */
        errno = EINVAL;
        return AE_ERR;
    }
    if (newIO != oldIO && aeApiSetEvents(el, fd, oldIO, newIO) == -1) return AE_ERR;
    fe->mask |= mask & (AE_IO_MASK | AE_BARRIER);
    if (mask & AE_READABLE) fe->rfileProc = proc;
    if (mask & AE_WRITABLE) fe->wfileProc = proc;
    fe->clientData = clientData;
    if (fd > el->maxfd) el->maxfd = fd;
    return AE_OK;
}

void aeDeleteFileEvent(aeEventLoop *el, int fd, int mask) {
    if (fd < 0 || fd >= el->setsize) return;
    aeFileEvent *fe = &el->events[fd];
    if (fe->mask == AE_NONE) return;
    if (mask & AE_WRITABLE) mask |= AE_BARRIER;   /* the barrier orders writes */
    int oldIO = fe->mask & AE_IO_MASK;
    int newmask = fe->mask & ~mask;
    int newIO = newmask & AE_IO_MASK;
    /* A failure here means the fd was already closed, which the OS poller
     * forgets by itself; nothing to undo. */
    if (newIO != oldIO) (void)aeApiSetEvents(el, fd, oldIO, newIO);
    fe->mask = newIO == AE_NONE ? AE_NONE : newmask;
    if (fd == el->maxfd && fe->mask == AE_NONE) {
        while (el->maxfd >= 0 && el->events[el->maxfd].mask == AE_NONE) el->maxfd--;
    }
}

int aeGetFileEvents(aeEventLoop *el, int fd) {
    if (fd < 0 || fd >= el->setsize) return AE_NONE;
    return el->events[fd].mask;
}

void *aeGetFileClientData(aeEventLoop *el, int fd) {
    if (fd < 0 || fd >= el->setsize || el->events[fd].mask == AE_NONE) return NULL;
    return el->events[fd].clientData;
}

/* The handler for `which` (one of AE_READABLE/AE_WRITABLE) when fd is still
 * registered for it and it fired; re-read every time because an earlier
 * handler may have changed the registration or resized the loop. */
static aeFileProc *aeReadyHandler(aeEventLoop *el, int fd, int firedMask, int which) {
    if (fd >= el->setsize) return NULL;
    aeFileEvent *fe = &el->events[fd];
    if (!(fe->mask & firedMask & which)) return NULL;
    return which == AE_READABLE ? fe->rfileProc : fe->wfileProc;
}

/* Calls fd's handlers for the fired mask: read then write, or write then read
 * under AE_BARRIER; a handler serving both directions is called once with
 * both bits. Returns 1 if any handler ran. */
static int aeDispatchFileEvent(aeEventLoop *el, int fd, int firedMask) {
    if (fd >= el->setsize) return 0;
    int barrier = el->events[fd].mask & AE_BARRIER;
    int order[2] = { barrier ? AE_WRITABLE : AE_READABLE, barrier ? AE_READABLE : AE_WRITABLE };
    aeFileProc *called = NULL;
    for (int i = 0; i < 2; i++) {
        aeFileProc *proc = aeReadyHandler(el, fd, firedMask, order[i]);
        if (proc == NULL || proc == called) continue;
        called = proc;
        aeFileEvent *fe = &el->events[fd];
        proc(el, fd, fe->clientData, firedMask & fe->mask & AE_IO_MASK);
    }
    return called != NULL;
}

/* ---- time events ------------------------------------------------------------- */

long long aeCreateTimeEvent(aeEventLoop *el, long long milliseconds, aeTimeProc *proc,
                            void *clientData, aeEventFinalizerProc *finalizerProc) {
    aeTimeEvent *te = zcalloc(sizeof(*te));
    te->id = el->timeEventNextId++;
    te->when = aeDeadlineAfterMs(milliseconds);
    te->timeProc = proc;
    te->finalizerProc = finalizerProc;
    te->clientData = clientData;
    te->next = el->timeEventHead;
    if (te->next) te->next->prev = te;
    el->timeEventHead = te;
    return te->id;
}

int aeDeleteTimeEvent(aeEventLoop *el, long long id) {
    if (id >= 0) {
        for (aeTimeEvent *te = el->timeEventHead; te; te = te->next) {
            if (te->id == id) {
                te->id = AE_DELETED_EVENT_ID;
                return AE_OK;
            }
        }
    }
    errno = ENOENT;
    return AE_ERR;
}

/* Frees deleted timers that are not running, calling their finalizers. A
 * finalizer may create or delete timers (both only touch the list head or
 * mark), but must not run the loop. */
static void aeReapDeletedTimers(aeEventLoop *el) {
    aeTimeEvent *te = el->timeEventHead;
    while (te) {
        aeTimeEvent *next = te->next;
        if (te->id == AE_DELETED_EVENT_ID && te->refcount == 0) aeFreeTimeEvent(el, te);
        te = next;
    }
}

/* A live, not running timer that may run in this pass. */
static int aeTimerRunnable(const aeTimeEvent *te, long long maxId, unsigned long pass) {
    return te->id != AE_DELETED_EVENT_ID && te->id <= maxId &&
           te->refcount == 0 && te->pass != pass;
}

/* The runnable timer due at `now` with the earliest deadline, or NULL. */
static aeTimeEvent *aeNextDueTimer(aeEventLoop *el, uint64_t now, long long maxId,
                                   unsigned long pass) {
    aeTimeEvent *best = NULL;
    for (aeTimeEvent *te = el->timeEventHead; te; te = te->next) {
        if (!aeTimerRunnable(te, maxId, pass) || te->when > now) continue;
        if (best == NULL || te->when < best->when ||
            (te->when == best->when && te->id < best->id))
            best = te;
    }
    return best;
}

static void aeRunTimer(aeEventLoop *el, aeTimeEvent *te, unsigned long pass) {
    te->pass = pass;
    te->refcount++;
    int next = te->timeProc(el, te->id, te->clientData);
    te->refcount--;
    if (te->id == AE_DELETED_EVENT_ID) return;   /* deleted by a callback */
    if (next == AE_NOMORE) te->id = AE_DELETED_EVENT_ID;
    else te->when = aeDeadlineAfterMs(next);
}

static int aeProcessTimeEvents(aeEventLoop *el) {
    unsigned long pass = ++el->timerPass;
    long long maxId = el->timeEventNextId - 1;
    int processed = 0;
    aeReapDeletedTimers(el);
    uint64_t now = aeMonotonicUs();
    aeTimeEvent *te;
    while ((te = aeNextDueTimer(el, now, maxId, pass)) != NULL) {
        aeRunTimer(el, te, pass);
        processed++;
    }
    aeReapDeletedTimers(el);   /* AE_NOMORE timers get finalized promptly */
    return processed;
}

/* Microseconds until the earliest live timer is due (0 if overdue), or -1
 * when there is none. */
static int64_t aeUsUntilEarliestTimer(aeEventLoop *el) {
    uint64_t earliest = UINT64_MAX;
    int found = 0;
    for (aeTimeEvent *te = el->timeEventHead; te; te = te->next) {
        if (te->id == AE_DELETED_EVENT_ID || te->refcount > 0) continue;
        if (te->when < earliest) earliest = te->when;
        found = 1;
    }
    if (!found) return -1;
    uint64_t now = aeMonotonicUs();
    if (earliest <= now) return 0;
    uint64_t wait = earliest - now;
    return wait > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)wait;
}

/* ---- the iteration ------------------------------------------------------------ */

static int64_t aeSleepTimeoutUs(aeEventLoop *el, int flags) {
    if ((flags & AE_DONT_WAIT) || (el->flags & AE_DONT_WAIT)) return 0;
    if (flags & AE_TIME_EVENTS) return aeUsUntilEarliestTimer(el);
    return -1;
}

/* Polls with a zero timeout until events arrive or `limitUs` (> 0) pass.
 * Returns what the last poll returned: > 0 events, 0 none within the limit,
 * -1 a poller error. */
static int aeSpinPoll(aeEventLoop *el, uint64_t limitUs) {
    uint64_t start = aeMonotonicUs(), now = start;
    int numevents = 0;
    el->spinStats.spins++;
    while (numevents == 0 && now - start < limitUs) {
        numevents = aeApiPoll(el, 0);
        now = aeMonotonicUs();
    }
    el->spinStats.spinTimeUs += now - start;
    if (numevents > 0) el->spinStats.hits++;
    return numevents;
}

/* The length of this wait's spin, 0 for none (see the top of this file):
 * the adapted length, or at 0 the full budget once in AE_SPIN_PROBE_EVERY
 * busy waits, to notice when spinning pays again. */
#define AE_SPIN_PROBE_EVERY 16

static uint64_t aeSpinLength(aeEventLoop *el) {
    if (el->spinNextUs > el->spinBudgetUs) el->spinNextUs = el->spinBudgetUs; /* budget lowered */
    if (el->spinNextUs > 0) return el->spinNextUs;
    return ++el->spinSkipped % AE_SPIN_PROBE_EVERY == 0 ? el->spinBudgetUs : 0;
}

/* After a spin of `lengthUs`: a hit restores the full budget, a spin that
 * ran its whole length in vain halves the next one. A spin cut short by a
 * timer says nothing about the clients and changes nothing. */
static void aeSpinAdapt(aeEventLoop *el, uint64_t lengthUs, uint64_t limitUs, int numevents) {
    if (numevents > 0) el->spinNextUs = el->spinBudgetUs;
    else if (numevents == 0 && limitUs == lengthUs) el->spinNextUs = lengthUs / 2;
    el->spinStats.nextSpinUs = el->spinNextUs;
}

/* The wait of one iteration: a spin first when the last pass was busy (see
 * the top of this file), then the normal wait for the rest of the timeout.
 * Returns aeApiPoll's result. */
static int aeWaitForEvents(aeEventLoop *el, int flags) {
    int64_t timeoutUs = aeSleepTimeoutUs(el, flags);
    if (!el->spinArmed || el->spinBudgetUs == 0 || timeoutUs == 0 || !(flags & AE_FILE_EVENTS))
        return aeApiPoll(el, timeoutUs);
    uint64_t lengthUs = aeSpinLength(el);
    if (lengthUs == 0) return aeApiPoll(el, timeoutUs);
    uint64_t limitUs = lengthUs;
    if (timeoutUs > 0 && (uint64_t)timeoutUs < limitUs) limitUs = (uint64_t)timeoutUs;
    int numevents = aeSpinPoll(el, limitUs);
    aeSpinAdapt(el, lengthUs, limitUs, numevents);
    if (numevents != 0) return numevents;
    return aeApiPoll(el, aeSleepTimeoutUs(el, flags)); /* the timer is now that much nearer */
}

int aeProcessEvents(aeEventLoop *el, int flags) {
    int processed = 0, pollErrno = 0;
    if (!(flags & AE_ALL_EVENTS)) return 0;

    /* Sleep in the poller even with no fds when a timer is pending, so the
     * process does not spin waiting for it. */
    if (el->maxfd != -1 || ((flags & AE_TIME_EVENTS) && !(flags & AE_DONT_WAIT))) {
        /* Before computing the timeout: beforesleep may add timers, write
         * replies, or call aeSetDontWait. */
        if (el->beforesleep && (flags & AE_CALL_BEFORE_SLEEP)) el->beforesleep(el);
        int numevents = aeWaitForEvents(el, flags);
        if (numevents < 0) {
            pollErrno = errno;
            numevents = 0;
        }
        if (!(flags & AE_FILE_EVENTS)) numevents = 0;
        if (el->aftersleep && (flags & AE_CALL_AFTER_SLEEP)) el->aftersleep(el);
        int dispatched = 0;
        for (int j = 0; j < numevents; j++)
            dispatched += aeDispatchFileEvent(el, el->fired[j].fd, el->fired[j].mask);
        el->spinArmed = dispatched > 0;
        processed += dispatched;
    }
    if (flags & AE_TIME_EVENTS) processed += aeProcessTimeEvents(el);
    if (pollErrno) {
        errno = pollErrno;
        return AE_ERR;
    }
    return processed;
}

void aeMain(aeEventLoop *el) {
    el->stop = 0;
    while (!el->stop)
        aeProcessEvents(el, AE_ALL_EVENTS | AE_CALL_BEFORE_SLEEP | AE_CALL_AFTER_SLEEP);
}

int aeWait(int fd, int mask, long long milliseconds) {
    struct pollfd pfd = { .fd = fd, .events = 0, .revents = 0 };
    if (mask & AE_READABLE) pfd.events |= POLLIN;
    if (mask & AE_WRITABLE) pfd.events |= POLLOUT;
    int timeout = milliseconds < 0 ? -1 : milliseconds > INT_MAX ? INT_MAX : (int)milliseconds;
    int rc = poll(&pfd, 1, timeout);
    if (rc <= 0) return rc;
    int ready = 0;
    if (pfd.revents & POLLIN) ready |= AE_READABLE;
    if (pfd.revents & POLLOUT) ready |= AE_WRITABLE;
    /* Errors and hangups: the caller's next read or write reports them. */
    if (pfd.revents & (POLLERR | POLLHUP | POLLNVAL)) ready |= mask & AE_IO_MASK;
    return ready;
}
