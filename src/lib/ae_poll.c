/* ae_poll.c -- portable poll(2) backend for the event loop: the fallback on
 * any POSIX system without epoll or kqueue (and selectable anywhere with
 * -DAE_FORCE_POLL, which is how the tests exercise it on Linux).
 *
 * Included by ae.c only (it defines AE_BACKEND_INCLUDED first); compiled on
 * its own this file is empty. The interface is described at the top of ae.c.
 *
 * The pollfd array is kept dense (one entry per registered fd, removal
 * swaps the last entry into the hole) so each poll() call passes exactly the
 * registered fds; slotOf[fd] finds an fd's entry in O(1). Unlike select(),
 * poll() has no FD_SETSIZE ceiling. Each wait costs O(registered fds), which
 * is the price of portability.
 */
#ifdef AE_BACKEND_INCLUDED

#include <poll.h>

typedef struct aeApiState {
    struct pollfd *pfds;   /* dense, `count` used entries, setsize capacity */
    int *slotOf;           /* fd -> index in pfds, or -1 */
    int count;
} aeApiState;

static short aePollEventsFor(int mask) {
    short events = 0;
    if (mask & AE_READABLE) events |= POLLIN;
    if (mask & AE_WRITABLE) events |= POLLOUT;
    return events;
}

/* Fresh arrays for `setsize` fds holding the current registrations (all of
 * whose fds are < setsize, which aeResizeSetSize guarantees). */
static int aePollAllocArrays(aeApiState *state, int setsize,
                             struct pollfd **pfds, int **slotOf) {
    *pfds = aeTryAllocArray(setsize, sizeof(struct pollfd));
    *slotOf = aeTryAllocArray(setsize, sizeof(int));
    if (*pfds == NULL || *slotOf == NULL) {
        zfree(*pfds);
        zfree(*slotOf);
        errno = ENOMEM;
        return -1;
    }
    for (int fd = 0; fd < setsize; fd++) (*slotOf)[fd] = -1;
    for (int i = 0; i < state->count; i++) {
        (*pfds)[i] = state->pfds[i];
        (*slotOf)[state->pfds[i].fd] = i;
    }
    return 0;
}

static int aeApiCreate(aeEventLoop *el) {
    aeApiState *state = zcalloc(sizeof(*state));
    if (aePollAllocArrays(state, el->setsize, &state->pfds, &state->slotOf) == -1) {
        zfree(state);
        return -1;
    }
    el->apidata = state;
    return 0;
}

static int aeApiResize(aeEventLoop *el, int setsize) {
    aeApiState *state = el->apidata;
    struct pollfd *pfds;
    int *slotOf;
    if (aePollAllocArrays(state, setsize, &pfds, &slotOf) == -1) return -1;
    zfree(state->pfds);
    zfree(state->slotOf);
    state->pfds = pfds;
    state->slotOf = slotOf;
    return 0;
}

static void aeApiFree(aeEventLoop *el) {
    aeApiState *state = el->apidata;
    zfree(state->pfds);
    zfree(state->slotOf);
    zfree(state);
}

static int aeApiSetEvents(aeEventLoop *el, int fd, int oldmask, int newmask) {
    aeApiState *state = el->apidata;
    int slot = state->slotOf[fd];
    if (oldmask == AE_NONE || slot < 0) {
        slot = state->count++;
        state->pfds[slot].fd = fd;
        state->pfds[slot].revents = 0;
        state->slotOf[fd] = slot;
    }
    if (newmask != AE_NONE) {
        state->pfds[slot].events = aePollEventsFor(newmask);
        return 0;
    }
    int last = --state->count;
    state->pfds[slot] = state->pfds[last];
    state->slotOf[state->pfds[slot].fd] = slot;
    state->slotOf[fd] = -1;
    return 0;
}

static int aeApiPoll(aeEventLoop *el, int64_t timeoutUs) {
    aeApiState *state = el->apidata;
    int n = poll(state->pfds, (nfds_t)state->count, aeTimeoutMs(timeoutUs));
    if (n == -1) return errno == EINTR ? 0 : -1;
    int fired = 0;
    for (int i = 0; i < state->count && fired < n; i++) {
        short re = state->pfds[i].revents;
        if (re == 0) continue;
        int mask = 0;
        if (re & POLLIN) mask |= AE_READABLE;
        if (re & POLLOUT) mask |= AE_WRITABLE;
        /* POLLNVAL: the fd was closed while registered; handlers learn it
         * from their next read or write, as with an error. */
        if (re & (POLLERR | POLLHUP | POLLNVAL)) mask |= AE_READABLE | AE_WRITABLE;
        el->fired[fired].fd = state->pfds[i].fd;
        el->fired[fired].mask = mask;
        fired++;
    }
    return fired;
}

static const char *aeApiName(void) {
    return "poll";
}

#endif /* AE_BACKEND_INCLUDED */
