/* oom.c -- oom-score-adj and oom-score-adj-values: how willing the Linux
 * OOM killer should be to pick the server and its fork children.
 *
 * A fork child (BGSAVE, AOF rewrite) is the cheapest process to lose: the
 * save fails and is retried, the data stays in the parent. Redis therefore
 * lets the user give the main process and the fork children different
 * /proc/self/oom_score_adj values; this file does the same, with Redis's
 * names, values and defaults:
 *   oom-score-adj no|yes|relative|absolute   (default no: leave it alone)
 *   oom-score-adj-values <main> <replica> <bgchild>   (default 0 200 800)
 * `relative` (and its alias `yes`) adds the value to the score the process
 * had when the server first took control; `absolute` writes it as is. The
 * values accept -2000..2000 and the sum is clamped to the kernel's
 * -1000..1000. Going back to `no` restores the original score.
 *
 * Design decisions:
 * - The original score is read once, the first time the server takes
 *   control, and kept in a static: later changes are computed from it, not
 *   from whatever the previous setting wrote.
 * - The main process takes the "replica" value while it replicates from a
 *   primary (REPLICAOF host port; replica.c calls oomScoreApplyServer()
 *   when the primary is set and when it is dropped), the "main" value
 *   otherwise.
 * - A fork child sets its bgchild value right after fork() (from the child
 *   hook in cpuaffinity.c), so the parent's score never changes.
 * - Lowering the score below where it started needs CAP_SYS_RESOURCE. A
 *   failed write is logged; at CONFIG SET time it is an error (Redis's
 *   text), and the config layer rolls the setting back.
 * - Linux only (HAVE_PROC_OOM_SCORE_ADJ); elsewhere the directives are
 *   accepted and do nothing.
 */
#include "server.h"

#include <errno.h>
#include <fcntl.h>

#if defined(__linux__)
#define HAVE_PROC_OOM_SCORE_ADJ 1
#endif

#define OOM_SCORE_PATH "/proc/self/oom_score_adj"

#ifdef HAVE_PROC_OOM_SCORE_ADJ

static int oom_taken = 0; /* the server has written the score since start-up */
static int oom_base = 0;  /* the score before that */

static int oomRead(int *out) {
    char buf[32];
    int fd = open(OOM_SCORE_PATH, O_RDONLY);
    ssize_t n = fd == -1 ? -1 : read(fd, buf, sizeof buf - 1);
    if (fd != -1) close(fd);
    if (n <= 0) {
        serverLog(LL_WARNING, "Unable to read oom_score_adj: %s", n == 0 ? "empty" : strerror(errno));
        return C_ERR;
    }
    buf[n] = '\0';
    *out = atoi(buf);
    return C_OK;
}

static int oomWrite(int value) {
    char buf[32];
    int len = snprintf(buf, sizeof buf, "%d\n", value);
    int fd = open(OOM_SCORE_PATH, O_WRONLY);
    int ok = fd != -1 && write(fd, buf, (size_t)len) == len;
    if (!ok) serverLog(LL_WARNING, "Unable to write oom_score_adj: %s", strerror(errno));
    if (fd != -1) close(fd);
    return ok ? C_OK : C_ERR;
}

/* The score for a process of class `cls` (OOM_CLASS_*) under the current
 * settings, clamped to what the kernel accepts. */
static int oomTarget(int cls) {
    int v = server.oom_score_adj_values[cls];
    if (server.oom_score_adj == OOM_SCORE_RELATIVE) v += oom_base;
    return v < -1000 ? -1000 : v > 1000 ? 1000 : v;
}

int oomScoreApply(int cls) {
    if (server.oom_score_adj == OOM_SCORE_ADJ_NO) {
        if (!oom_taken) return C_OK;
        oom_taken = 0;
        return oomWrite(oom_base);
    }
    if (!oom_taken) {
        if (oomRead(&oom_base) == C_ERR) return C_ERR;
        oom_taken = 1;
    }
    return oomWrite(oomTarget(cls));
}

#else

int oomScoreApply(int cls) {
    (void)cls;
    return C_OK;
}

#endif

/* The main process's class: a replica's entry while it has a primary. */
int oomScoreApplyServer(void) { return oomScoreApply(replicationIsReplica() ? OOM_CLASS_REPLICA : OOM_CLASS_MAIN); }
