/* ae_kqueue.c -- kqueue(2) backend for the event loop (macOS and the BSDs).
 *
 * Included by ae.c only (it defines AE_BACKEND_INCLUDED first); compiled on
 * its own this file is empty. The interface is described at the top of ae.c.
 *
 * kqueue reports reading and writing as separate filters, so one fd can come
 * back as two kevents; they are merged into one fired entry per fd (the
 * loop's contract) through firedSlot[fd], an fd -> fired-index map that is
 * reset after every wait. EV_EOF and EV_ERROR keep the filter's direction:
 * the handler sees the condition on its next read or write.
 */
#ifdef AE_BACKEND_INCLUDED

#include <fcntl.h>
#include <sys/types.h>
#include <sys/event.h>
#include <sys/time.h>

typedef struct aeApiState {
    int kqfd;
    struct kevent *events;   /* setsize entries for kevent() */
    int *firedSlot;          /* fd -> index in el->fired during a poll, or -1 */
} aeApiState;

static int aeKqueueAllocArrays(int setsize, struct kevent **events, int **firedSlot) {
    *events = aeTryAllocArray(setsize, sizeof(struct kevent));
    *firedSlot = aeTryAllocArray(setsize, sizeof(int));
    if (*events == NULL || *firedSlot == NULL) {
        zfree(*events);
        zfree(*firedSlot);
        errno = ENOMEM;
        return -1;
    }
    for (int fd = 0; fd < setsize; fd++) (*firedSlot)[fd] = -1;
    return 0;
}

static int aeApiCreate(aeEventLoop *el) {
    aeApiState *state = zmalloc(sizeof(*state));
    if (aeKqueueAllocArrays(el->setsize, &state->events, &state->firedSlot) == -1) {
        zfree(state);
        return -1;
    }
    state->kqfd = kqueue();
    if (state->kqfd == -1) {
        int saved = errno;
        zfree(state->events);
        zfree(state->firedSlot);
        zfree(state);
        errno = saved;
        return -1;
    }
    fcntl(state->kqfd, F_SETFD, FD_CLOEXEC);
    el->apidata = state;
    return 0;
}

static int aeApiResize(aeEventLoop *el, int setsize) {
    aeApiState *state = el->apidata;
    struct kevent *events;
    int *firedSlot;
    if (aeKqueueAllocArrays(setsize, &events, &firedSlot) == -1) return -1;
    zfree(state->events);
    zfree(state->firedSlot);
    state->events = events;
    state->firedSlot = firedSlot;
    return 0;
}

static void aeApiFree(aeEventLoop *el) {
    aeApiState *state = el->apidata;
    close(state->kqfd);
    zfree(state->events);
    zfree(state->firedSlot);
    zfree(state);
}

/* Queues an EV_ADD or EV_DELETE for one filter when its bit changes. */
static int aeKqueueChange(struct kevent *changes, int n, int fd, int filter,
                          int bit, int oldmask, int newmask) {
    int was = oldmask & bit, will = newmask & bit;
    if (was == will) return n;
    EV_SET(&changes[n], fd, filter, will ? EV_ADD : EV_DELETE, 0, 0, 0);
    return n + 1;
}

static int aeApiSetEvents(aeEventLoop *el, int fd, int oldmask, int newmask) {
    aeApiState *state = el->apidata;
    struct kevent changes[2];
    int n = 0;
    n = aeKqueueChange(changes, n, fd, EVFILT_READ, AE_READABLE, oldmask, newmask);
    n = aeKqueueChange(changes, n, fd, EVFILT_WRITE, AE_WRITABLE, oldmask, newmask);
    if (n == 0) return 0;
    return kevent(state->kqfd, changes, n, NULL, 0, NULL) == -1 ? -1 : 0;
}

static int aeApiPoll(aeEventLoop *el, int64_t timeoutUs) {
    aeApiState *state = el->apidata;
    struct timespec ts, *tsp = NULL;
    if (timeoutUs >= 0) {
        ts.tv_sec = (time_t)(timeoutUs / 1000000);
        ts.tv_nsec = (long)(timeoutUs % 1000000) * 1000;
        tsp = &ts;
    }
    int n = kevent(state->kqfd, NULL, 0, state->events, el->setsize, tsp);
    if (n == -1) return errno == EINTR ? 0 : -1;
    int fired = 0;
    for (int j = 0; j < n; j++) {
        int fd = (int)state->events[j].ident;
        if (fd < 0 || fd >= el->setsize) continue;
        int bit = state->events[j].filter == EVFILT_READ ? AE_READABLE : AE_WRITABLE;
        if (state->firedSlot[fd] < 0) {
            state->firedSlot[fd] = fired;
            el->fired[fired].fd = fd;
            el->fired[fired].mask = 0;
            fired++;
        }
        el->fired[state->firedSlot[fd]].mask |= bit;
    }
    for (int j = 0; j < fired; j++) state->firedSlot[el->fired[j].fd] = -1;
    return fired;
}

static const char *aeApiName(void) {
    return "kqueue";
}

#endif /* AE_BACKEND_INCLUDED */
