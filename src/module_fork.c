/* module_fork.c -- the fork API of Redis 7.0 modules: Fork (a child of
 * the module's own, its done handler called with the exit code and the
 * signal once it has gone), SendChildHeartbeat, ExitFromChild and
 * KillForkChild; INFO persistence's module_fork_in_progress and
 * module_fork_last_cow_size.
 *
 * Decisions:
 * - One child at a time, as in Redis: Fork fails with errno EEXIST while
 *   a BGSAVE, AOF rewrite or replication child (hasActiveChildProcess) or
 *   another module child runs. Without fork() (HAVE_FORK=0, a seccomp
 *   filter) it fails with snapshotFork()'s errno, ENOSYS.
 *   While it runs the module child counts as a fork child
 *   (hasActiveChildProcess, snapshotForkChildExists): BGSAVE is refused
 *   or scheduled, BGREWRITEAOF and the save rules wait for it.
 * - The child is reaped by a timer of its own (every 100 ms, as rdb.c's
 *   cron reaps a BGSAVE child), which also drains childinfo.c's pipe; the
 *   done handler gets the exit status (-1 when killed) and the signal (0
 *   when it exited). Exit status 255 is reported as exit code 1 by
 *   SIGUSR1, as 7.0 reports its children's "terminated by SIGUSR1" exit.
 * - KillForkChild sends SIGUSR1 and reaps the child (childKill) without
 *   calling the done handler, as 7.0 does.
 * - ExitFromChild sends the final copy-on-write size first, so the parent
 *   reports it in module_fork_last_cow_size. SendChildHeartbeat sends its
 *   progress (and the copy-on-write size, measured at most once a second)
 *   through childinfo.c: INFO's current_fork_perc is progress x 100 while
 *   the module's child runs, as in 7.0.
 */
#include "module_int.h"

#include "snapshot.h"

#include <errno.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

typedef void (*moduleForkDoneFunc)(int exitcode, int bysignal, void *user_data);

pid_t moduleForkChild = -1; /* server.h: moduleForkInProgress() reads it inline */
static moduleForkDoneFunc fork_done;
static void *fork_done_data;
static long long fork_timer = -1;
static size_t fork_last_cow;

static void forkForget(void) {
    fork_last_cow = childInfoFinish();
    moduleForkChild = -1;
    fork_done = NULL;
    fork_done_data = NULL;
    updateDictResizePolicy();
}

static int forkReap(aeEventLoop *el, long long id, void *data) {
    (void)el, (void)id, (void)data;
    int status;
    if (moduleForkChild == -1 || waitpid(moduleForkChild, &status, WNOHANG) != moduleForkChild) {
        if (moduleForkChild != -1) {
            childInfoPoll();
            return 100;
        }
        fork_timer = -1;
        return AE_NOMORE;
    }
    int exitcode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    int bysignal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    if (exitcode == 255) { /* a child's "killed by SIGUSR1" exit, as Redis reports it */
        exitcode = 1;
        bysignal = SIGUSR1;
    }
    moduleForkDoneFunc done = fork_done;
    void *done_data = fork_done_data;
    serverLog(LL_NOTICE, "Module fork child %ld exited (code %d, signal %d)", (long)moduleForkChild, exitcode, bysignal);
    forkForget();
    fork_timer = -1;
    if (done) done(exitcode, bysignal, done_data);
    return AE_NOMORE;
}

/* The module child's SIGUSR1 (KillForkChild, or its parent gone): Redis
 * 7.0's log line, then the exit status the parent reports as "killed by
 * SIGUSR1" (forkReap). */
static void moduleChildKilled(int sig) {
    (void)sig;
    serverLogFromHandler(LL_VERBOSE, "Received SIGUSR1 in child, exiting now.");
    _exit(255);
}

static int RM_Fork(moduleForkDoneFunc cb, void *user_data) {
    if (moduleForkChild != -1 || hasActiveChildProcess()) {
        serverLog(LL_WARNING, "Can't fork for module: %s", strerror(EEXIST)); /* Redis 7.0's line */
        errno = EEXIST;
        return -1;
    }
    childInfoPrepare();
    pid_t pid = snapshotFork();
    if (pid == 0) {
        childInfoChildStart();
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = moduleChildKilled;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGUSR1, &sa, NULL);
        setupForkChild(NULL, "the module fork child", "redis-module-fork");
        return 0;
    }
    childInfoParentStarted();
    if (pid == -1) {
        int err = errno;
        childInfoFinish();
        serverLog(LL_WARNING, "Can't fork for module: %s", strerror(err));
        errno = err;
        return -1;
    }
    moduleForkChild = pid;
    fork_done = cb;
    fork_done_data = user_data;
    updateDictResizePolicy();
    if (fork_timer == -1) fork_timer = aeCreateTimeEvent(server.el, 100, forkReap, NULL, NULL);
    serverLog(LL_NOTICE, "Module fork started pid: %ld", (long)pid);
    return (int)pid;
}

static int RM_SendChildHeartbeat(double progress) {
    childInfoHeartbeat(progress);
    return MODAPI_OK;
}

static int RM_ExitFromChild(int retcode) {
    childInfoSendFinal("Module fork");
    _exit(retcode);
}

static int RM_KillForkChild(int child_pid) {
    if (moduleForkChild == -1 || child_pid != (int)moduleForkChild) return MODAPI_ERR;
    childKill(moduleForkChild);
    forkForget();
    return MODAPI_OK;
}

size_t moduleForkLastCowSize(void) { return fork_last_cow; }

static const moduleApiEntry fork_api[] = {
    MODULE_API(Fork),
    MODULE_API(SendChildHeartbeat),
    MODULE_API(ExitFromChild),
    MODULE_API(KillForkChild),
};

int moduleForkGetApi(const char *name, void *target) {
    return MODULE_API_LOOKUP(fork_api, name, target);
}
