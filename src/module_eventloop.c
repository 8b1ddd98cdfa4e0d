/* module_eventloop.c -- the event loop API of Redis 7.0 modules:
 * EventLoopAdd and EventLoopDel (a module's own file descriptors watched
 * by the server's event loop, REDISMODULE_EVENTLOOP_READABLE/WRITABLE,
 * one callback per direction) and EventLoopAddOneShot (a callback queued
 * from any thread, run once on the main thread, the loop woken for it).
 *
 * Decisions:
 * - Errors as 7.0 documents them: ERANGE for an fd outside the loop's set,
 *   EINVAL for a NULL callback or an unknown mask bit; deleting what was
 *   never added succeeds.
 * - An fd's two callbacks share one record, ae's client data for that fd,
 *   with the user data of the latest EventLoopAdd, as in Redis.
 * - One-shots have their own wake-up pipe. It is made on the main thread
 *   when a module's RedisModule_Init looks EventLoopAddOneShot up
 *   (moduleEventLoopGetApi), so a module thread never registers an fd
 *   with the loop. A one-shot queued while the queue is non-empty writes
 *   no byte: a wake-up is pending anyway.
 * - Watches survive the module's unload, as in 7.0: the module must remove
 *   them in its OnUnload.
 */
#include "module_int.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#define EVLOOP_READABLE 1 /* REDISMODULE_EVENTLOOP_READABLE */
#define EVLOOP_WRITABLE 2 /* REDISMODULE_EVENTLOOP_WRITABLE */

typedef void (*moduleEvFunc)(int fd, void *user_data, int mask);
typedef void (*moduleOneShotFunc)(void *user_data);

typedef struct moduleFdWatch {
    moduleEvFunc on_read, on_write;
    void *user_data;
} moduleFdWatch;

typedef struct moduleOneShot {
    moduleOneShotFunc func;
    void *user_data;
} moduleOneShot;

static pthread_mutex_t oneshot_mutex = PTHREAD_MUTEX_INITIALIZER;
static list *oneshots; /* moduleOneShot *, under oneshot_mutex */
static int oneshot_pipe[2] = {-1, -1};

static void fdReadable(aeEventLoop *el, int fd, void *data, int mask) {
    (void)el, (void)mask;
    moduleFdWatch *w = data;
    if (w->on_read) w->on_read(fd, w->user_data, EVLOOP_READABLE);
}

static void fdWritable(aeEventLoop *el, int fd, void *data, int mask) {
    (void)el, (void)mask;
    moduleFdWatch *w = data;
    if (w->on_write) w->on_write(fd, w->user_data, EVLOOP_WRITABLE);
}

static int badFd(int fd) {
    if (fd >= 0 && fd < aeGetSetSize(server.el)) return 0;
    errno = ERANGE;
    return 1;
}

static int badMask(int mask) {
    if (!(mask & ~(EVLOOP_READABLE | EVLOOP_WRITABLE))) return 0;
    errno = EINVAL;
    return 1;
}

/* The fd's record, when the loop watches it for a module. */
static moduleFdWatch *fdWatch(int fd) {
    return aeGetFileEvents(server.el, fd) ? aeGetFileClientData(server.el, fd) : NULL;
}

static int RM_EventLoopAdd(int fd, int mask, moduleEvFunc func, void *user_data) {
    if (badFd(fd)) return MODAPI_ERR;
    if (func == NULL) {
        errno = EINVAL;
        return MODAPI_ERR;
    }
    if (badMask(mask)) return MODAPI_ERR;
    moduleFdWatch *w = fdWatch(fd);
    int fresh = w == NULL;
    if (fresh) w = zcalloc(sizeof *w);
    w->user_data = user_data;
    if ((mask & EVLOOP_READABLE) && aeCreateFileEvent(server.el, fd, AE_READABLE, fdReadable, w) == AE_ERR) goto fail;
    if (mask & EVLOOP_READABLE) w->on_read = func;
    if ((mask & EVLOOP_WRITABLE) && aeCreateFileEvent(server.el, fd, AE_WRITABLE, fdWritable, w) == AE_ERR) goto fail;
    if (mask & EVLOOP_WRITABLE) w->on_write = func;
    errno = 0; /* as Redis 7.0: success says so in errno too */
    return MODAPI_OK;
fail:
    if (fresh && aeGetFileEvents(server.el, fd) == 0) zfree(w);
    return MODAPI_ERR;
}

static int RM_EventLoopDel(int fd, int mask) {
    if (badFd(fd) || badMask(mask)) return MODAPI_ERR;
    moduleFdWatch *w = fdWatch(fd);
    int aemask = ((mask & EVLOOP_READABLE) ? AE_READABLE : 0) | ((mask & EVLOOP_WRITABLE) ? AE_WRITABLE : 0);
    if (aemask) aeDeleteFileEvent(server.el, fd, aemask);
    errno = 0; /* as Redis 7.0, also for an fd it did not watch */
    if (w == NULL) return MODAPI_OK;
    if (mask & EVLOOP_READABLE) w->on_read = NULL;
    if (mask & EVLOOP_WRITABLE) w->on_write = NULL;
    if (w->on_read == NULL && w->on_write == NULL) zfree(w);
    return MODAPI_OK;
}

/* Main thread: the queued one-shots run, each once, in queue order; one
 * queued by a callback runs in this same pass. */
static void oneshotsRun(aeEventLoop *el, int fd, void *data, int mask) {
    (void)el, (void)data, (void)mask;
    char buf[64];
    while (read(fd, buf, sizeof buf) > 0) {
    }
    pthread_mutex_lock(&oneshot_mutex);
    while (listLength(oneshots)) {
        listNode *ln = listFirst(oneshots);
        moduleOneShot *o = listNodeValue(ln);
        listDelNode(oneshots, ln);
        pthread_mutex_unlock(&oneshot_mutex);
        o->func(o->user_data);
        zfree(o);
        pthread_mutex_lock(&oneshot_mutex);
    }
    pthread_mutex_unlock(&oneshot_mutex);
}

/* Main thread only. */
static int oneshotPipeSetup(void) {
    if (oneshot_pipe[0] != -1) return C_OK;
    if (server.el == NULL || moduleWakePipeOpen(oneshot_pipe, oneshotsRun) != C_OK) return C_ERR;
    oneshots = listCreate();
    return C_OK;
}

static int RM_EventLoopAddOneShot(moduleOneShotFunc func, void *user_data) {
    if (func == NULL) {
        errno = EINVAL;
        return MODAPI_ERR;
    }
    if (oneshot_pipe[1] == -1) return MODAPI_ERR; /* no pipe could be made at the module's Init */
    moduleOneShot *o = zmalloc(sizeof *o);
    o->func = func;
    o->user_data = user_data;
    pthread_mutex_lock(&oneshot_mutex);
    int wake = listLength(oneshots) == 0;
    listAddNodeTail(oneshots, o);
    pthread_mutex_unlock(&oneshot_mutex);
    if (wake && write(oneshot_pipe[1], "1", 1) != 1) {
        /* the pipe is full: its reader runs soon anyway */
    }
    return MODAPI_OK;
}

static const moduleApiEntry eventloop_api[] = {
    MODULE_API(EventLoopAdd),
    MODULE_API(EventLoopDel),
    MODULE_API(EventLoopAddOneShot),
};

int moduleEventLoopGetApi(const char *name, void *target) {
    if (MODULE_API_LOOKUP(eventloop_api, name, target) != MODAPI_OK) return MODAPI_ERR;
    if (!strcmp(name, "RedisModule_EventLoopAddOneShot")) oneshotPipeSetup();
    return MODAPI_OK;
}
