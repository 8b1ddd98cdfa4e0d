/* mevloop.c -- a test module for the event loop API (EventLoopAdd,
 * EventLoopDel, EventLoopAddOneShot), used by tests/unit/moduleapi-eventloop.tcl.
 * Built against Redis 7.0's redismodule.h by utils/build-test-modules.sh, so
 * the same .so runs in Redis 7.0.15.
 *
 * MEVLOOP.BADARGS: the errno names of the refused calls, in this order:
 *   Add(-1), Add(1<<30), Add(-1 with a NULL callback), Add(NULL callback),
 *   Add(mask 4), Del(-1), Del(mask 4), AddOneShot(NULL); then "OK" for Del
 *   of an fd never added.
 * MEVLOOP.PIPE n: a pipe whose read end is watched (READABLE); its write
 *   end is watched (WRITABLE) and its callback writes one byte per call,
 *   n times, then removes its watch. OK.
 * MEVLOOP.STATS: {bytes read, write callbacks, last read mask, last write mask,
 *   read callbacks' user data right (1/0)}.
 * MEVLOOP.UNWATCH: EventLoopDel of both ends (READABLE|WRITABLE), pipe closed.
 * MEVLOOP.ONESHOT n: a thread queues n one-shots; MEVLOOP.ONESHOTS:
 *   {one-shots run, how many ran on the main thread}.
 * MEVLOOP.SLEEPS: {EventLoop BEFORE_SLEEP events, AFTER_SLEEP events} so far. */
#include "redismodule.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

static int fds[2] = {-1, -1};
static long long bytes_read, writes, writes_left;
static int last_read_mask, last_write_mask, data_right = 1;
static pthread_t main_thread;
static long long oneshots_run, oneshots_on_main;
static const char tag_read[] = "r", tag_write[] = "w";

static const char *errnoName(int e) {
    switch (e) {
    case ERANGE: return "ERANGE";
    case EINVAL: return "EINVAL";
    default: return "other";
    }
}

static void noop(int fd, void *user_data, int mask) {
    (void)fd, (void)user_data, (void)mask;
}

static void replyRefusal(RedisModuleCtx *ctx, int res) {
    if (res == REDISMODULE_OK) RedisModule_ReplyWithSimpleString(ctx, "OK");
    else RedisModule_ReplyWithSimpleString(ctx, errnoName(errno));
}

static int badArgsCmd(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv, (void)argc;
    int p[2];
    if (pipe(p) == -1) return RedisModule_ReplyWithError(ctx, "ERR pipe");
    RedisModule_ReplyWithArray(ctx, 9);
    errno = 0;
    replyRefusal(ctx, RedisModule_EventLoopAdd(-1, REDISMODULE_EVENTLOOP_READABLE, noop, NULL));
    errno = 0;
    replyRefusal(ctx, RedisModule_EventLoopAdd(1 << 30, REDISMODULE_EVENTLOOP_READABLE, noop, NULL));
    errno = 0;
    replyRefusal(ctx, RedisModule_EventLoopAdd(-1, REDISMODULE_EVENTLOOP_READABLE, NULL, NULL));
    errno = 0;
    replyRefusal(ctx, RedisModule_EventLoopAdd(p[0], REDISMODULE_EVENTLOOP_READABLE, NULL, NULL));
    errno = 0;
    replyRefusal(ctx, RedisModule_EventLoopAdd(p[0], 4, noop, NULL));
    errno = 0;
    replyRefusal(ctx, RedisModule_EventLoopDel(-1, REDISMODULE_EVENTLOOP_READABLE));
    errno = 0;
    replyRefusal(ctx, RedisModule_EventLoopDel(p[0], 4));
    errno = 0;
    replyRefusal(ctx, RedisModule_EventLoopAddOneShot(NULL, NULL));
    errno = EINTR; /* a success clears errno, as in Redis 7.0 */
    int res = RedisModule_EventLoopDel(p[0], REDISMODULE_EVENTLOOP_READABLE | REDISMODULE_EVENTLOOP_WRITABLE);
    if (res == REDISMODULE_OK && errno != 0) RedisModule_ReplyWithSimpleString(ctx, "OK-but-errno-set");
    else replyRefusal(ctx, res);
    close(p[0]);
    close(p[1]);
    return REDISMODULE_OK;
}

static void onReadable(int fd, void *user_data, int mask) {
    char buf[64];
    ssize_t n = read(fd, buf, sizeof buf);
    if (n > 0) bytes_read += n;
    last_read_mask = mask;
    if (user_data != tag_read) data_right = 0;
}

static void onWritable(int fd, void *user_data, int mask) {
    last_write_mask = mask;
    writes++;
    if (user_data != tag_write) data_right = 0;
    if (write(fd, "x", 1) != 1) return;
    if (--writes_left == 0) RedisModule_EventLoopDel(fd, REDISMODULE_EVENTLOOP_WRITABLE);
}

static int pipeCmd(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 2 || RedisModule_StringToLongLong(argv[1], &writes_left) != REDISMODULE_OK || writes_left < 1)
        return RedisModule_WrongArity(ctx);
    if (fds[0] != -1 || pipe(fds) == -1) return RedisModule_ReplyWithError(ctx, "ERR pipe");
    bytes_read = writes = 0;
    if (RedisModule_EventLoopAdd(fds[0], REDISMODULE_EVENTLOOP_READABLE, onReadable, (void *)tag_read) != REDISMODULE_OK ||
        RedisModule_EventLoopAdd(fds[1], REDISMODULE_EVENTLOOP_WRITABLE, onWritable, (void *)tag_write) != REDISMODULE_OK)
        return RedisModule_ReplyWithError(ctx, "ERR add");
    return RedisModule_ReplyWithSimpleString(ctx, "OK");
}

static int statsCmd(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv, (void)argc;
    RedisModule_ReplyWithArray(ctx, 5);
    RedisModule_ReplyWithLongLong(ctx, bytes_read);
    RedisModule_ReplyWithLongLong(ctx, writes);
    RedisModule_ReplyWithLongLong(ctx, last_read_mask);
    RedisModule_ReplyWithLongLong(ctx, last_write_mask);
    return RedisModule_ReplyWithLongLong(ctx, data_right);
}

static int unwatchCmd(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv, (void)argc;
    int all = REDISMODULE_EVENTLOOP_READABLE | REDISMODULE_EVENTLOOP_WRITABLE;
    for (int j = 0; j < 2; j++) {
        if (fds[j] == -1) continue;
        RedisModule_EventLoopDel(fds[j], all);
        close(fds[j]);
        fds[j] = -1;
    }
    return RedisModule_ReplyWithSimpleString(ctx, "OK");
}

static void oneShot(void *user_data) {
    (void)user_data;
    oneshots_run++;
    if (pthread_equal(pthread_self(), main_thread)) oneshots_on_main++;
}

static void *oneShotThread(void *arg) {
    long long n = (long long)(size_t)arg;
    for (long long j = 0; j < n; j++) RedisModule_EventLoopAddOneShot(oneShot, NULL);
    return NULL;
}

static int oneShotCmd(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    long long n;
    if (argc != 2 || RedisModule_StringToLongLong(argv[1], &n) != REDISMODULE_OK) return RedisModule_WrongArity(ctx);
    pthread_t t;
    if (pthread_create(&t, NULL, oneShotThread, (void *)(size_t)n) != 0) return RedisModule_ReplyWithError(ctx, "ERR thread");
    pthread_detach(t);
    return RedisModule_ReplyWithSimpleString(ctx, "OK");
}

static int oneShotsCmd(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv, (void)argc;
    RedisModule_ReplyWithArray(ctx, 2);
    RedisModule_ReplyWithLongLong(ctx, oneshots_run);
    return RedisModule_ReplyWithLongLong(ctx, oneshots_on_main);
}

static long long before_sleeps, after_sleeps;

static void onEventLoop(RedisModuleCtx *ctx, RedisModuleEvent e, uint64_t sub, void *data) {
    (void)ctx, (void)e, (void)data;
    if (sub == REDISMODULE_SUBEVENT_EVENTLOOP_BEFORE_SLEEP) before_sleeps++;
    else if (sub == REDISMODULE_SUBEVENT_EVENTLOOP_AFTER_SLEEP) after_sleeps++;
}

static int sleepsCmd(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv, (void)argc;
    RedisModule_ReplyWithArray(ctx, 2);
    RedisModule_ReplyWithLongLong(ctx, before_sleeps);
    return RedisModule_ReplyWithLongLong(ctx, after_sleeps);
}

int RedisModule_OnLoad(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv, (void)argc;
    if (RedisModule_Init(ctx, "mevloop", 1, REDISMODULE_APIVER_1) == REDISMODULE_ERR) return REDISMODULE_ERR;
    main_thread = pthread_self();
    struct {
        const char *name;
        RedisModuleCmdFunc fn;
    } cmds[] = {{"mevloop.badargs", badArgsCmd}, {"mevloop.pipe", pipeCmd},       {"mevloop.stats", statsCmd},
                {"mevloop.unwatch", unwatchCmd}, {"mevloop.oneshot", oneShotCmd}, {"mevloop.oneshots", oneShotsCmd},
                {"mevloop.sleeps", sleepsCmd}};
    for (size_t j = 0; j < sizeof cmds / sizeof cmds[0]; j++)
        if (RedisModule_CreateCommand(ctx, cmds[j].name, cmds[j].fn, "", 0, 0, 0) == REDISMODULE_ERR)
            return REDISMODULE_ERR;
    if (RedisModule_SubscribeToServerEvent(ctx, RedisModuleEvent_EventLoop, onEventLoop) == REDISMODULE_ERR)
        return REDISMODULE_ERR;
    return REDISMODULE_OK;
}
