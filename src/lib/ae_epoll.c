/* ae_epoll.c -- Linux epoll(7) backend for the event loop.
 *
 * Included by ae.c only (it defines AE_BACKEND_INCLUDED first); compiled on
 * its own, as the build does for every .c file in src/, this file is empty. The
 * interface it implements is described at the top of ae.c.
 *
 * Level-triggered: a socket that still has data after a handler ran is
 * reported again on the next iteration, which is what the server's "read at
 * most N bytes per client per iteration" fairness relies on. Errors and
 * hangups are reported as both readable and writable so whichever handler is
 * installed sees the condition on its next read or write.
 */
#ifdef AE_BACKEND_INCLUDED

#include <sys/epoll.h>

typedef struct aeApiState {
    int epfd;
    struct epoll_event *events;   /* el->setsize entries for epoll_wait */
} aeApiState;

static int aeApiCreate(aeEventLoop *el) {
    aeApiState *state = zmalloc(sizeof(*state));
    state->events = aeTryAllocArray(el->setsize, sizeof(struct epoll_event));
    if (state->events == NULL) {
        zfree(state);
        return -1;
    }
    state->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (state->epfd == -1) {
        int saved = errno;
        zfree(state->events);
        zfree(state);
        errno = saved;
        return -1;
    }
    el->apidata = state;
    return 0;
}

static int aeApiResize(aeEventLoop *el, int setsize) {
    aeApiState *state = el->apidata;
    struct epoll_event *events = aeTryAllocArray(setsize, sizeof(struct epoll_event));
    if (events == NULL) return -1;
    zfree(state->events);
    state->events = events;
    return 0;
}

static void aeApiFree(aeEventLoop *el) {
    aeApiState *state = el->apidata;
    close(state->epfd);
    zfree(state->events);
    zfree(state);
}

static int aeApiSetEvents(aeEventLoop *el, int fd, int oldmask, int newmask) {
    aeApiState *state = el->apidata;
    struct epoll_event ee;
    memset(&ee, 0, sizeof(ee));
    ee.data.fd = fd;
    if (newmask & AE_READABLE) ee.events |= EPOLLIN;
    if (newmask & AE_WRITABLE) ee.events |= EPOLLOUT;
    int op = oldmask == AE_NONE ? EPOLL_CTL_ADD : newmask == AE_NONE ? EPOLL_CTL_DEL : EPOLL_CTL_MOD;
    /* ee is ignored by DEL but must be non-NULL before Linux 2.6.9. */
    if (epoll_ctl(state->epfd, op, fd, &ee) == 0) return 0;
    /* The kernel drops a registration when its fd is closed; if the fd
     * number was reused without telling the loop, MOD must become ADD. */
    if (op == EPOLL_CTL_MOD && errno == ENOENT) return epoll_ctl(state->epfd, EPOLL_CTL_ADD, fd, &ee);
    return -1;
}

static int aeApiPoll(aeEventLoop *el, int64_t timeoutUs) {
    aeApiState *state = el->apidata;
    int n = epoll_wait(state->epfd, state->events, el->setsize, aeTimeoutMs(timeoutUs));
    if (n == -1) return errno == EINTR ? 0 : -1;
    for (int j = 0; j < n; j++) {
        uint32_t ev = state->events[j].events;
        int mask = 0;
        if (ev & EPOLLIN) mask |= AE_READABLE;
        if (ev & EPOLLOUT) mask |= AE_WRITABLE;
        if (ev & (EPOLLERR | EPOLLHUP)) mask |= AE_READABLE | AE_WRITABLE;
        el->fired[j].fd = state->events[j].data.fd;
        el->fired[j].mask = mask;
    }
    return n;
}

static const char *aeApiName(void) {
    return "epoll";
}

#endif /* AE_BACKEND_INCLUDED */
