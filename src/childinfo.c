/* childinfo.c -- what a fork child (BGSAVE, AOF rewrite) tells its parent
 * while it runs: how many keys it has written and how much memory
 * copy-on-write has duplicated so far, for INFO persistence's current_*
 * fields, and the final copy-on-write size (rdb_last_cow_size,
 * aof_last_cow_size) with Redis's "Fork CoW for ..." log line.
 *
 * How it works, as Redis does it:
 * - Before forking, the parent opens a pipe (childInfoPrepare); the child
 *   keeps the write end (childInfoChildStart), the parent the read end,
 *   non-blocking (childInfoParentStarted).
 * - The child counts the keys it writes (childInfoKeySaved, called next to
 *   keySaveDelay() in both writers) and, at most once a second, measures
 *   its Private_Dirty memory from /proc/self/smaps_rollup (summing
 *   /proc/self/smaps where there is no rollup) and sends a progress
 *   message. At the end childInfoSendFinal measures once more, logs the
 *   current/peak/average and sends the final size.
 * - The parent drains the pipe from its cron while a child runs
 *   (childInfoPoll) and once more when the child has exited
 *   (childInfoFinish, which returns the final size and resets the current_*
 *   figures).
 *
 * Design decisions:
 * - One child at a time (BGSAVE and the AOF rewrite exclude each other), so
 *   the state is one static struct.
 * - Messages are a fixed struct written with one write() (smaller than
 *   PIPE_BUF, so never split) and read into a local struct: the two ends are
 *   the same program on the same machine. A full pipe drops the message
 *   (the child must never block on its parent); a lost progress message
 *   only delays a figure.
 * - Without /proc (not Linux) every size is 0: the fields exist, as in
 *   Redis on such systems.
 */
#include "server.h"
#include "monotonic.h"
#include "snapshot.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>

#define CHILDINFO_REPORT_US 1000000 /* the child measures at most once a second */

typedef enum { CHILDINFO_PROGRESS, CHILDINFO_FINAL } childInfoKind;

typedef struct childInfoMessage {
    int kind;                /* childInfoKind */
    size_t keys;             /* keys written so far */
    size_t cow;              /* Private_Dirty bytes */
    double progress;         /* a module child's SendChildHeartbeat (0..1), -1: none */
} childInfoMessage;

static struct {
    int fds[2];              /* the pipe; -1 when closed */
    /* parent */
    size_t keys_total;       /* keys in the dataset at the fork */
    size_t keys_processed;
    size_t cow, cow_peak;
    long long cow_updated_ms; /* when the last size arrived; 0 = none yet */
    size_t final_cow;
    double module_progress;  /* a module child's last heartbeat (0..1) */
    /* child */
    int reporting;
    long long last_report_us;
    size_t keys_saved;
    size_t child_cow_peak;
    unsigned long long child_cow_sum;
    unsigned long long child_cow_samples;
} childinfo = {.fds = {-1, -1}};

static void closeFd(int *fd) {
    if (*fd != -1) close(*fd);
    *fd = -1;
}

/* ---- measuring ----------------------------------------------------------------------------- */

static size_t sumPrivateDirty(const char *path) {
    FILE *fp = fopen(path, "r");
    if (fp == NULL) return (size_t)-1;
    char line[256];
    unsigned long long kb = 0, v;
    while (fgets(line, sizeof line, fp))
        if (sscanf(line, "Private_Dirty: %llu kB", &v) == 1) kb += v;
    fclose(fp);
    return (size_t)(kb * 1024);
}

/* Bytes of this process's memory that copy-on-write has duplicated. */
static size_t privateDirtyBytes(void) {
    size_t bytes = sumPrivateDirty("/proc/self/smaps_rollup");
    if (bytes == (size_t)-1) bytes = sumPrivateDirty("/proc/self/smaps");
    return bytes == (size_t)-1 ? 0 : bytes;
}

/* ---- the parent ---------------------------------------------------------------------------- */

static void resetCurrent(void) {
    childinfo.keys_total = childinfo.keys_processed = 0;
    childinfo.cow = childinfo.cow_peak = 0;
    childinfo.cow_updated_ms = 0;
    childinfo.module_progress = 0;
}

/* Before fork(). Without a pipe the child simply reports nothing. */
void childInfoPrepare(void) {
    closeFd(&childinfo.fds[0]);
    closeFd(&childinfo.fds[1]);
    resetCurrent();
    childinfo.final_cow = 0;
    childinfo.keys_total = (size_t)dbTotalServerKeyCount();
    if (pipe(childinfo.fds) == -1) {
        childinfo.fds[0] = childinfo.fds[1] = -1;
        return;
    }
    fcntl(childinfo.fds[0], F_SETFL, O_NONBLOCK);
    fcntl(childinfo.fds[1], F_SETFL, O_NONBLOCK);
}

/* In the parent after fork() (also when it failed). */
void childInfoParentStarted(void) { closeFd(&childinfo.fds[1]); }

static void receiveMessage(const childInfoMessage *m) {
    if (m->kind == CHILDINFO_FINAL) {
        childinfo.final_cow = m->cow;
        return;
    }
    childinfo.keys_processed = m->keys;
    if (m->progress >= 0) childinfo.module_progress = m->progress;
    childinfo.cow = m->cow;
    if (m->cow > childinfo.cow_peak) childinfo.cow_peak = m->cow;
    childinfo.cow_updated_ms = mstime();
}

void childInfoPoll(void) {
    childInfoMessage m;
    while (childinfo.fds[0] != -1 && read(childinfo.fds[0], &m, sizeof m) == (ssize_t)sizeof m) receiveMessage(&m);
}

/* The child has exited: its last messages, then the pipe closes. Returns
 * the copy-on-write size it reported at the end (0 if it did not). */
size_t childInfoFinish(void) {
    childInfoPoll();
    closeFd(&childinfo.fds[0]);
    resetCurrent();
    return childinfo.final_cow;
}

/* Stops a fork child (BGSAVE, AOF rewrite) and reaps it. SIGUSR1 first:
 * the child exits at once without finishing its file, and the exit is not
 * counted as a failure (as Redis does). Redis then waits for it without
 * limit; here a child still there after CHILD_KILL_GRACE_MS gets SIGKILL,
 * because a child that cannot act on SIGUSR1 (seen once under QEMU's user
 * mode: a child stuck inside the emulator after fork() in a process with
 * threads) otherwise hangs the parent in waitpid() -- through SHUTDOWN,
 * FLUSHALL and every other caller -- until someone kills it by hand. */
#define CHILD_KILL_GRACE_MS 5000
void childKill(pid_t pid) {
    kill(pid, SIGUSR1);
    int status;
    long long start = monotonicUs();
    for (;;) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid || (r == -1 && errno != EINTR)) return;
        if (monotonicUs() - start >= (long long)CHILD_KILL_GRACE_MS * 1000) break;
        usleep(1000);
    }
    serverLog(LL_WARNING, "Child %ld did not exit %d ms after SIGUSR1: killing it with SIGKILL", (long)pid,
              CHILD_KILL_GRACE_MS);
    kill(pid, SIGKILL);
    while (waitpid(pid, &status, 0) == -1 && errno == EINTR) {}
}

/* The current_* fields of INFO persistence, in Redis's order. A forkless
 * snapshot (snapshot.c) reports its progress in the same fields, with no
 * copy-on-write; a module's child (module_fork.c) its own heartbeat's
 * progress as the percentage, as 7.0 does. */
sds childInfoString(sds info) {
    long long age = childinfo.cow_updated_ms ? (mstime() - childinfo.cow_updated_ms) / 1000 : 0;
    size_t processed = childinfo.keys_processed, total = childinfo.keys_total;
    if (snapshotInProgress()) snapshotProgress(&processed, &total);
    double perc = total ? (double)processed * 100 / (double)total : 0.0;
    if (moduleForkInProgress()) perc = childinfo.module_progress * 100;
    return sdscatprintf(info,
                        "current_cow_peak:%zu\r\n"
                        "current_cow_size:%zu\r\n"
                        "current_cow_size_age:%lld\r\n"
                        "current_fork_perc:%.2f\r\n"
                        "current_save_keys_processed:%zu\r\n"
                        "current_save_keys_total:%zu\r\n",
                        childinfo.cow_peak, childinfo.cow, age, perc, processed, total);
}

/* ---- the child ----------------------------------------------------------------------------- */

static void sendMessage(childInfoKind kind, size_t cow, double progress) {
    if (childinfo.fds[1] == -1) return;
    childInfoMessage m = {.kind = kind, .keys = childinfo.keys_saved, .cow = cow, .progress = progress};
    ssize_t ignored = write(childinfo.fds[1], &m, sizeof m); /* a full pipe drops it: see the top comment */
    (void)ignored;
}

static size_t measure(void) {
    size_t cow = privateDirtyBytes();
    if (cow > childinfo.child_cow_peak) childinfo.child_cow_peak = cow;
    childinfo.child_cow_sum += cow;
    childinfo.child_cow_samples++;
    return cow;
}

/* First thing in the child after fork(). */
void childInfoChildStart(void) {
    closeFd(&childinfo.fds[0]);
    childinfo.reporting = 1;
    childinfo.keys_saved = 0;
    childinfo.child_cow_peak = 0;
    childinfo.child_cow_sum = childinfo.child_cow_samples = 0;
    childinfo.last_report_us = monotonicUs();
}

/* After each key a writer has written; a no-op outside a reporting child
 * (SAVE, DEBUG RELOAD write in the parent). */
void childInfoKeySaved(void) {
    if (!childinfo.reporting) return;
    childinfo.keys_saved++;
    long long now = monotonicUs();
    if (now - childinfo.last_report_us < CHILDINFO_REPORT_US) return;
    sendMessage(CHILDINFO_PROGRESS, measure(), -1);
    childinfo.last_report_us = monotonicUs(); /* after measuring: a slow /proc read doesn't eat the next interval */
}

/* A module's child, SendChildHeartbeat(progress): the progress goes at
 * once; copy-on-write is measured at most once a second (a module may call
 * this often), else the last figure is sent again. */
void childInfoHeartbeat(double progress) {
    if (!childinfo.reporting) return;
    static size_t last_cow;
    long long now = monotonicUs();
    if (childinfo.child_cow_samples == 0 || now - childinfo.last_report_us >= CHILDINFO_REPORT_US) {
        last_cow = measure();
        childinfo.last_report_us = monotonicUs();
    }
    sendMessage(CHILDINFO_PROGRESS, last_cow, progress < 0 ? 0 : progress);
}

/* The child is done writing; `what` names it in the log ("RDB", "AOF
 * rewrite"). */
void childInfoSendFinal(const char *what) {
    size_t cow = measure();
    serverLog(LL_NOTICE, "Fork CoW for %s: current %zu MB, peak %zu MB, average %llu MB", what, cow >> 20,
              childinfo.child_cow_peak >> 20, (childinfo.child_cow_sum / childinfo.child_cow_samples) >> 20);
    sendMessage(CHILDINFO_FINAL, cow, -1);
}
