/* bio.c -- one background thread for the slow system calls of persistence:
 * fsync() of the AOF (appendfsync everysec) and close() of a replaced file,
 * so the event loop never waits on the disk.
 *
 * Design decisions:
 * - A single worker and a FIFO of jobs: an fsync submitted after a close
 *   can't overtake it, and jobs on one file never race each other.
 * - The main thread only needs to know whether an fsync is still pending
 *   (to postpone the next AOF write, as Redis does); that counter is read
 *   under the same mutex as the queue.
 * - Jobs carry the fsync function to use, so the AOF's replaceable system
 *   call table (fault injection in tests) applies to background fsyncs too.
 *   A failed background fsync is recorded and reported to the main thread.
 */
#include <errno.h>

#include "server.h"
#include "bio.h"

#include <pthread.h>

typedef struct bioJob {
    int type;
    int fd;
    int (*fsync_fn)(int fd);
    struct bioJob *next;
} bioJob;

static pthread_t worker;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t newjob = PTHREAD_COND_INITIALIZER;
static bioJob *head, *tail;
static unsigned long pending_fsyncs;
static int started;
static int last_fsync_errno; /* 0 = the last background fsync worked */
static long long fsync_calls, fsync_total_us, fsync_max_us;

static void runJob(bioJob *job) {
    if (job->type == BIO_JOB_CLOSE) {
        close(job->fd);
        return;
    }
    long long start = ustime();
    int err = job->fsync_fn(job->fd) == -1 ? errno : 0;
    long long took = ustime() - start;
    pthread_mutex_lock(&lock);
    last_fsync_errno = err;
    fsync_calls++;
    fsync_total_us += took;
    if (took > fsync_max_us) fsync_max_us = took;
    pthread_mutex_unlock(&lock);
}

static void *workerMain(void *arg) {
    (void)arg;
    watchdogBlockInThisThread();
    cpuAffinityBioThread("bio_aof_fsync");
    for (;;) {
        pthread_mutex_lock(&lock);
        while (head == NULL) pthread_cond_wait(&newjob, &lock);
        bioJob *job = head;
        pthread_mutex_unlock(&lock);

        runJob(job);

        pthread_mutex_lock(&lock);
        head = job->next;
        if (head == NULL) tail = NULL;
        if (job->type == BIO_JOB_FSYNC) pending_fsyncs--;
        pthread_mutex_unlock(&lock);
        zfree(job);
    }
    return NULL;
}

static void bioStart(void) {
    if (started) return;
    if (pthread_create(&worker, NULL, workerMain, NULL) != 0) serverPanic("Can't create the background I/O thread");
    started = 1;
}

static void submit(int type, int fd, int (*fsync_fn)(int)) {
    bioStart();
    bioJob *job = zmalloc(sizeof(*job));
    job->type = type;
    job->fd = fd;
    job->fsync_fn = fsync_fn;
    job->next = NULL;
    pthread_mutex_lock(&lock);
    if (tail) tail->next = job;
    else head = job;
    tail = job;
    if (type == BIO_JOB_FSYNC) pending_fsyncs++;
    pthread_cond_signal(&newjob);
    pthread_mutex_unlock(&lock);
}

void bioSubmitFsync(int fd, int (*fsync_fn)(int fd)) { submit(BIO_JOB_FSYNC, fd, fsync_fn); }
void bioSubmitClose(int fd) { submit(BIO_JOB_CLOSE, fd, NULL); }

unsigned long bioPendingFsyncs(void) {
    pthread_mutex_lock(&lock);
    unsigned long n = pending_fsyncs;
    pthread_mutex_unlock(&lock);
    return n;
}

/* Waits until every queued job has run (used before a file is switched or
 * the server exits). */
void bioDrain(void) {
    for (;;) {
        pthread_mutex_lock(&lock);
        int empty = head == NULL;
        pthread_mutex_unlock(&lock);
        if (empty) return;
        usleep(1000);
    }
}

int bioLastFsyncErrno(void) {
    pthread_mutex_lock(&lock);
    int err = last_fsync_errno;
    pthread_mutex_unlock(&lock);
    return err;
}

void bioFsyncStats(long long *calls, long long *total_us, long long *max_us) {
    pthread_mutex_lock(&lock);
    *calls = fsync_calls;
    *total_us = fsync_total_us;
    *max_us = fsync_max_us;
    pthread_mutex_unlock(&lock);
}
