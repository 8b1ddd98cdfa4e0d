/* test_ae.c -- unit tests for the event loop (src/lib/ae.c) with the backend the
 * build selects; test_ae_poll.c runs this same file against the poll()
 * backend.
 *
 * Timing: assertions are about order and "at least this late", never "at
 * most this late", so they hold under QEMU and on loaded CI machines. Every
 * wait loop is bounded (AE_TEST_DEADLINE_US) so a broken loop fails instead
 * of hanging the run. The spin tests use budgets far longer than the waits
 * they expect (seconds), so "the spin stopped before its budget" shows the
 * stop had another cause (events, a timer) even on a slow emulator.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ae.h"
#include "platform.h"
#include "test.h"

#define AE_TEST_DEADLINE_US (20ull * 1000 * 1000)

/* ---- helpers ------------------------------------------------------------- */

static void make_socketpair(int fds[2]) {
    int rc = socketpair(AF_UNIX, SOCK_STREAM, 0, fds);
    CHECK(rc == 0);
    fcntl(fds[0], F_SETFL, O_NONBLOCK);
    fcntl(fds[1], F_SETFL, O_NONBLOCK);
}

static void close_pair(int fds[2]) {
    close(fds[0]);
    close(fds[1]);
}

/* Runs iterations until *flag becomes nonzero or the deadline passes. */
static void run_until(aeEventLoop *el, int flags, const int *flag) {
    uint64_t start = aeMonotonicUs();
    while (!*flag && aeMonotonicUs() - start < AE_TEST_DEADLINE_US) aeProcessEvents(el, flags);
}

/* ---- timers ------------------------------------------------------------------ */

typedef struct timer_log {
    int order[16];
    uint64_t fired_at[16];
    int count;
    int finalized;
} timer_log;

static timer_log tlog;

static int log_timer(aeEventLoop *el, long long id, void *data) {
    (void)el;
    (void)id;
    if (tlog.count < 16) {
        tlog.order[tlog.count] = (int)(intptr_t)data;
        tlog.fired_at[tlog.count] = aeMonotonicUs();
    }
    tlog.count++;
    return AE_NOMORE;
}

static void count_finalizer(aeEventLoop *el, void *data) {
    (void)el;
    (void)data;
    tlog.finalized++;
}

static void test_create_and_api_name(void) {
    aeEventLoop *el = aeCreateEventLoop(32);
    CHECK(el != NULL);
    CHECK_EQ_INT(aeGetSetSize(el), 32);
#if defined(AE_FORCE_POLL)
    CHECK_EQ_STR(aeGetApiName(), "poll");
#elif defined(HAVE_EPOLL)
    CHECK_EQ_STR(aeGetApiName(), "epoll");
#elif defined(HAVE_KQUEUE)
    CHECK_EQ_STR(aeGetApiName(), "kqueue");
#else
    CHECK_EQ_STR(aeGetApiName(), "poll");
#endif
    CHECK_EQ_INT(aeProcessEvents(el, 0), 0);   /* no event kinds asked for */
    CHECK_EQ_INT(aeProcessEvents(el, AE_ALL_EVENTS | AE_DONT_WAIT), 0);
    aeDeleteEventLoop(el);
    aeDeleteEventLoop(NULL);   /* harmless */

    errno = 0;
    CHECK(aeCreateEventLoop(0) == NULL);
    CHECK_EQ_INT(errno, EINVAL);
    CHECK(aeCreateEventLoop(-5) == NULL);
#if SIZEOF_POINTER_BITS == 32
    /* On 32-bit targets INT_MAX entries overflow size_t: must fail cleanly. */
    errno = 0;
    CHECK(aeCreateEventLoop(INT_MAX) == NULL);
    CHECK_EQ_INT(errno, ENOMEM);
#endif
}

static void test_timers_fire_in_deadline_order(void) {
    aeEventLoop *el = aeCreateEventLoop(16);
    memset(&tlog, 0, sizeof(tlog));
    uint64_t start = aeMonotonicUs();
    /* Created out of order on purpose; also two with the same delay. */
    aeCreateTimeEvent(el, 60, log_timer, (void *)(intptr_t)60, count_finalizer);
    aeCreateTimeEvent(el, 20, log_timer, (void *)(intptr_t)20, count_finalizer);
    aeCreateTimeEvent(el, 40, log_timer, (void *)(intptr_t)40, count_finalizer);
    aeCreateTimeEvent(el, 1, log_timer, (void *)(intptr_t)1, count_finalizer);
    while (tlog.count < 4 && aeMonotonicUs() - start < AE_TEST_DEADLINE_US)
        aeProcessEvents(el, AE_TIME_EVENTS);
    CHECK_EQ_INT(tlog.count, 4);
    CHECK_EQ_INT(tlog.order[0], 1);
    CHECK_EQ_INT(tlog.order[1], 20);
    CHECK_EQ_INT(tlog.order[2], 40);
    CHECK_EQ_INT(tlog.order[3], 60);
    for (int i = 0; i < 4; i++) /* never early */
        CHECK(tlog.fired_at[i] - start >= (uint64_t)tlog.order[i] * 1000);
    CHECK_EQ_INT(tlog.finalized, 4);   /* AE_NOMORE timers are finalized */
    aeDeleteEventLoop(el);
}

static void test_timers_same_deadline_run_oldest_first(void) {
    aeEventLoop *el = aeCreateEventLoop(16);
    memset(&tlog, 0, sizeof(tlog));
    for (int i = 0; i < 5; i++) aeCreateTimeEvent(el, 0, log_timer, (void *)(intptr_t)i, NULL);
    int processed = aeProcessEvents(el, AE_TIME_EVENTS | AE_DONT_WAIT);
    /* Deadlines were taken at creation, so they may differ by microseconds;
     * either way creation order is deadline order. */
    CHECK_EQ_INT(processed, 5);
    CHECK_EQ_INT(tlog.count, 5);
    for (int i = 0; i < 5; i++) CHECK_EQ_INT(tlog.order[i], i);
    aeDeleteEventLoop(el);
}

static int repeat_runs;
static int repeat_timer(aeEventLoop *el, long long id, void *data) {
    (void)el;
    (void)id;
    (void)data;
    repeat_runs++;
    return repeat_runs < 4 ? 2 : AE_NOMORE;
}

static void test_timer_repeats_until_nomore(void) {
    aeEventLoop *el = aeCreateEventLoop(16);
    memset(&tlog, 0, sizeof(tlog));
    repeat_runs = 0;
    uint64_t start = aeMonotonicUs();
    long long id = aeCreateTimeEvent(el, 1, repeat_timer, NULL, count_finalizer);
    CHECK(id >= 0);
    while (tlog.finalized == 0 && aeMonotonicUs() - start < AE_TEST_DEADLINE_US)
        aeProcessEvents(el, AE_TIME_EVENTS);
    CHECK_EQ_INT(repeat_runs, 4);
    CHECK_EQ_INT(tlog.finalized, 1);
    CHECK(aeMonotonicUs() - start >= 1000 + 3 * 2000);   /* 1 ms, then 3 x 2 ms */
    /* Gone: deleting it now is an error. */
    CHECK_EQ_INT(aeDeleteTimeEvent(el, id), AE_ERR);
    aeDeleteEventLoop(el);
}

static int self_delete_runs;
static int self_deleting_timer(aeEventLoop *el, long long id, void *data) {
    (void)data;
    self_delete_runs++;
    CHECK_EQ_INT(aeDeleteTimeEvent(el, id), AE_OK);
    return 1;   /* ignored: the timer was deleted */
}

static void test_timer_deletes_itself(void) {
    aeEventLoop *el = aeCreateEventLoop(16);
    memset(&tlog, 0, sizeof(tlog));
    self_delete_runs = 0;
    aeCreateTimeEvent(el, 0, self_deleting_timer, NULL, count_finalizer);
    for (int i = 0; i < 5; i++) {
        usleep(2000);
        aeProcessEvents(el, AE_TIME_EVENTS | AE_DONT_WAIT);
    }
    CHECK_EQ_INT(self_delete_runs, 1);
    CHECK_EQ_INT(tlog.finalized, 1);
    aeDeleteEventLoop(el);
}

static long long victim_id;
static int killer_timer(aeEventLoop *el, long long id, void *data) {
    (void)id;
    (void)data;
    CHECK_EQ_INT(aeDeleteTimeEvent(el, victim_id), AE_OK);
    CHECK_EQ_INT(aeDeleteTimeEvent(el, victim_id), AE_ERR);   /* already deleted */
    tlog.order[tlog.count++] = -1;
    return AE_NOMORE;
}

static void test_timer_deletes_another_due_in_same_pass(void) {
    aeEventLoop *el = aeCreateEventLoop(16);
    memset(&tlog, 0, sizeof(tlog));
    /* The killer is due first; both are overdue when the pass starts. */
    aeCreateTimeEvent(el, -10, killer_timer, NULL, count_finalizer);
    victim_id = aeCreateTimeEvent(el, 0, log_timer, (void *)(intptr_t)7, count_finalizer);
    usleep(1000);
    aeProcessEvents(el, AE_TIME_EVENTS | AE_DONT_WAIT);
    aeProcessEvents(el, AE_TIME_EVENTS | AE_DONT_WAIT);
    CHECK_EQ_INT(tlog.count, 1);
    CHECK_EQ_INT(tlog.order[0], -1);
    CHECK_EQ_INT(tlog.finalized, 2);   /* the victim's finalizer still runs */
    aeDeleteEventLoop(el);
}

static int spawner_runs;
static int spawner_timer(aeEventLoop *el, long long id, void *data) {
    (void)id;
    (void)data;
    spawner_runs++;
    aeCreateTimeEvent(el, 0, log_timer, (void *)(intptr_t)99, NULL);
    return AE_NOMORE;
}

static void test_timer_created_in_callback_waits_for_next_pass(void) {
    aeEventLoop *el = aeCreateEventLoop(16);
    memset(&tlog, 0, sizeof(tlog));
    spawner_runs = 0;
    aeCreateTimeEvent(el, 0, spawner_timer, NULL, NULL);
    usleep(1000);
    CHECK_EQ_INT(aeProcessEvents(el, AE_TIME_EVENTS | AE_DONT_WAIT), 1);
    CHECK_EQ_INT(spawner_runs, 1);
    CHECK_EQ_INT(tlog.count, 0);
    usleep(1000);
    CHECK_EQ_INT(aeProcessEvents(el, AE_TIME_EVENTS | AE_DONT_WAIT), 1);
    CHECK_EQ_INT(tlog.count, 1);
    CHECK_EQ_INT(tlog.order[0], 99);
    aeDeleteEventLoop(el);
}

static int zero_delay_runs;
static int zero_delay_timer(aeEventLoop *el, long long id, void *data) {
    (void)el;
    (void)id;
    (void)data;
    zero_delay_runs++;
    return 0;   /* "again as soon as possible" -- but not in this same pass */
}

static void test_timer_returning_zero_runs_once_per_pass(void) {
    aeEventLoop *el = aeCreateEventLoop(16);
    zero_delay_runs = 0;
    long long id = aeCreateTimeEvent(el, 0, zero_delay_timer, NULL, NULL);
    usleep(1000);
    aeProcessEvents(el, AE_TIME_EVENTS | AE_DONT_WAIT);
    CHECK_EQ_INT(zero_delay_runs, 1);
    usleep(1000);
    aeProcessEvents(el, AE_TIME_EVENTS | AE_DONT_WAIT);
    CHECK_EQ_INT(zero_delay_runs, 2);
    CHECK_EQ_INT(aeDeleteTimeEvent(el, id), AE_OK);
    usleep(1000);
    aeProcessEvents(el, AE_TIME_EVENTS | AE_DONT_WAIT);
    CHECK_EQ_INT(zero_delay_runs, 2);
    aeDeleteEventLoop(el);
}

static void test_timer_edge_delays_and_ids(void) {
    aeEventLoop *el = aeCreateEventLoop(16);
    memset(&tlog, 0, sizeof(tlog));
    long long far = aeCreateTimeEvent(el, LLONG_MAX, log_timer, (void *)(intptr_t)1, count_finalizer);
    long long now = aeCreateTimeEvent(el, LLONG_MIN, log_timer, (void *)(intptr_t)2, count_finalizer);
    CHECK(now == far + 1);   /* ids increase */
    aeProcessEvents(el, AE_TIME_EVENTS | AE_DONT_WAIT);
    CHECK_EQ_INT(tlog.count, 1);          /* the saturated deadline is not "now" */
    CHECK_EQ_INT(tlog.order[0], 2);
    errno = 0;
    CHECK_EQ_INT(aeDeleteTimeEvent(el, 12345), AE_ERR);
    CHECK_EQ_INT(errno, ENOENT);
    CHECK_EQ_INT(aeDeleteTimeEvent(el, -1), AE_ERR);
    CHECK_EQ_INT(aeDeleteTimeEvent(el, far), AE_OK);
    aeProcessEvents(el, AE_TIME_EVENTS | AE_DONT_WAIT);
    CHECK_EQ_INT(tlog.finalized, 2);
    CHECK_EQ_INT(tlog.count, 1);
    aeDeleteEventLoop(el);
}

static void test_delete_loop_finalizes_pending_timers(void) {
    aeEventLoop *el = aeCreateEventLoop(16);
    memset(&tlog, 0, sizeof(tlog));
    aeCreateTimeEvent(el, 100000, log_timer, NULL, count_finalizer);
    long long id = aeCreateTimeEvent(el, 100000, log_timer, NULL, count_finalizer);
    aeCreateTimeEvent(el, 100000, log_timer, NULL, NULL);
    aeDeleteTimeEvent(el, id);   /* marked, not yet freed */
    aeDeleteEventLoop(el);
    CHECK_EQ_INT(tlog.finalized, 2);
    CHECK_EQ_INT(tlog.count, 0);
}

static int stop_after_runs;
static int stopping_timer(aeEventLoop *el, long long id, void *data) {
    (void)id;
    (void)data;
    if (++stop_after_runs == 3) aeStop(el);
    return 1;
}

static void test_main_until_stop(void) {
    aeEventLoop *el = aeCreateEventLoop(16);
    stop_after_runs = 0;
    aeCreateTimeEvent(el, 1, stopping_timer, NULL, NULL);
    aeMain(el);   /* sleeps in the poller between timer runs */
    CHECK_EQ_INT(stop_after_runs, 3);
    aeDeleteEventLoop(el);
}

/* ---- file events ---------------------------------------------------------------- */

typedef struct io_log {
    char seq[32];     /* 'R' / 'W' / 'B' (one handler, both bits) per call */
    int len;
    int last_mask;
    int last_fd;
    void *last_data;
} io_log;

static io_log iolog;

static void io_log_add(char c) {
    if (iolog.len < (int)sizeof(iolog.seq) - 1) iolog.seq[iolog.len++] = c;
    iolog.seq[iolog.len] = '\0';
}

static void read_proc(aeEventLoop *el, int fd, void *data, int mask) {
    (void)el;
    char buf[64];
    while (read(fd, buf, sizeof(buf)) > 0) { /* drain */ }
    iolog.last_fd = fd;
    iolog.last_data = data;
    iolog.last_mask = mask;
    io_log_add('R');
}

static void write_proc(aeEventLoop *el, int fd, void *data, int mask) {
    (void)el;
    (void)fd;
    iolog.last_data = data;
    iolog.last_mask = mask;
    io_log_add('W');
}

static void both_proc(aeEventLoop *el, int fd, void *data, int mask) {
    (void)el;
    (void)data;
    char buf[64];
    if (mask & AE_READABLE) while (read(fd, buf, sizeof(buf)) > 0) { /* drain */ }
    iolog.last_mask = mask;
    io_log_add('B');
}

static void test_file_event_on_pipe(void) {
    aeEventLoop *el = aeCreateEventLoop(64);
    int p[2];
    CHECK(pipe(p) == 0);
    fcntl(p[0], F_SETFL, O_NONBLOCK);
    memset(&iolog, 0, sizeof(iolog));
    int marker;
    CHECK_EQ_INT(aeCreateFileEvent(el, p[0], AE_READABLE, read_proc, &marker), AE_OK);
    CHECK_EQ_INT(aeGetFileEvents(el, p[0]), AE_READABLE);
    CHECK(aeGetFileClientData(el, p[0]) == &marker);
    CHECK(aeGetFileClientData(el, p[1]) == NULL);

    CHECK_EQ_INT(aeProcessEvents(el, AE_FILE_EVENTS | AE_DONT_WAIT), 0);
    CHECK_EQ_INT(iolog.len, 0);
    CHECK(write(p[1], "x", 1) == 1);
    CHECK_EQ_INT(aeProcessEvents(el, AE_FILE_EVENTS), 1);   /* blocks until ready */
    CHECK_EQ_STR(iolog.seq, "R");
    CHECK_EQ_INT(iolog.last_fd, p[0]);
    CHECK(iolog.last_data == &marker);
    CHECK_EQ_INT(iolog.last_mask, AE_READABLE);
    /* Drained: level-triggered, nothing more to report. */
    CHECK_EQ_INT(aeProcessEvents(el, AE_FILE_EVENTS | AE_DONT_WAIT), 0);

    aeDeleteFileEvent(el, p[0], AE_READABLE);
    CHECK_EQ_INT(aeGetFileEvents(el, p[0]), AE_NONE);
    CHECK(write(p[1], "y", 1) == 1);
    CHECK_EQ_INT(aeProcessEvents(el, AE_FILE_EVENTS | AE_DONT_WAIT), 0);
    CHECK_EQ_STR(iolog.seq, "R");
    aeDeleteFileEvent(el, p[0], AE_READABLE);   /* deleting twice is harmless */
    aeDeleteFileEvent(el, -1, AE_READABLE);
    aeDeleteFileEvent(el, 1000, AE_READABLE);
    close(p[0]);
    close(p[1]);
    aeDeleteEventLoop(el);
}

static void test_same_handler_called_once_with_both_bits(void) {
    aeEventLoop *el = aeCreateEventLoop(64);
    int sp[2];
    make_socketpair(sp);
    memset(&iolog, 0, sizeof(iolog));
    CHECK(write(sp[1], "data", 4) == 4);
    CHECK_EQ_INT(aeCreateFileEvent(el, sp[0], AE_READABLE | AE_WRITABLE, both_proc, NULL), AE_OK);
    CHECK_EQ_INT(aeProcessEvents(el, AE_FILE_EVENTS), 1);
    CHECK_EQ_STR(iolog.seq, "B");
    CHECK_EQ_INT(iolog.last_mask, AE_READABLE | AE_WRITABLE);
    close_pair(sp);
    aeDeleteEventLoop(el);
}

static void test_barrier_inverts_order(void) {
    aeEventLoop *el = aeCreateEventLoop(64);
    int sp[2];
    make_socketpair(sp);
    memset(&iolog, 0, sizeof(iolog));

    CHECK(write(sp[1], "a", 1) == 1);
    aeCreateFileEvent(el, sp[0], AE_READABLE, read_proc, NULL);
    aeCreateFileEvent(el, sp[0], AE_WRITABLE, write_proc, NULL);
    aeProcessEvents(el, AE_FILE_EVENTS);
    CHECK_EQ_STR(iolog.seq, "RW");
    /* Handlers see everything that fired among the fd's registered events. */
    CHECK_EQ_INT(iolog.last_mask, AE_READABLE | AE_WRITABLE);

    memset(&iolog, 0, sizeof(iolog));
    CHECK(write(sp[1], "b", 1) == 1);
    aeCreateFileEvent(el, sp[0], AE_WRITABLE | AE_BARRIER, write_proc, NULL);
    CHECK_EQ_INT(aeGetFileEvents(el, sp[0]), AE_READABLE | AE_WRITABLE | AE_BARRIER);
    aeProcessEvents(el, AE_FILE_EVENTS);
    CHECK_EQ_STR(iolog.seq, "WR");

    /* Removing the writable event removes the barrier with it. */
    aeDeleteFileEvent(el, sp[0], AE_WRITABLE);
    CHECK_EQ_INT(aeGetFileEvents(el, sp[0]), AE_READABLE);
    /* A barrier alone is not an event. */
    CHECK_EQ_INT(aeCreateFileEvent(el, sp[1], AE_BARRIER, write_proc, NULL), AE_ERR);
    CHECK_EQ_INT(aeGetFileEvents(el, sp[1]), AE_NONE);
    close_pair(sp);
    aeDeleteEventLoop(el);
}

static int pair_for_delete[2];
static void read_then_unregister_writer(aeEventLoop *el, int fd, void *data, int mask) {
    read_proc(el, fd, data, mask);
    aeDeleteFileEvent(el, fd, AE_WRITABLE);
}

static void read_then_close(aeEventLoop *el, int fd, void *data, int mask) {
    read_proc(el, fd, data, mask);
    aeDeleteFileEvent(el, fd, AE_READABLE | AE_WRITABLE);
    close(fd);
    pair_for_delete[0] = -1;
}

static void test_handler_changes_registration_mid_iteration(void) {
    aeEventLoop *el = aeCreateEventLoop(64);
    make_socketpair(pair_for_delete);
    memset(&iolog, 0, sizeof(iolog));
    CHECK(write(pair_for_delete[1], "a", 1) == 1);
    aeCreateFileEvent(el, pair_for_delete[0], AE_READABLE, read_then_unregister_writer, NULL);
    aeCreateFileEvent(el, pair_for_delete[0], AE_WRITABLE, write_proc, NULL);
    aeProcessEvents(el, AE_FILE_EVENTS);
    CHECK_EQ_STR(iolog.seq, "R");   /* the writer was removed before its turn */

    memset(&iolog, 0, sizeof(iolog));
    CHECK(write(pair_for_delete[1], "b", 1) == 1);
    aeCreateFileEvent(el, pair_for_delete[0], AE_READABLE, read_then_close, NULL);
    aeCreateFileEvent(el, pair_for_delete[0], AE_WRITABLE, write_proc, NULL);
    aeProcessEvents(el, AE_FILE_EVENTS);
    CHECK_EQ_STR(iolog.seq, "R");
    CHECK_EQ_INT(pair_for_delete[0], -1);
    CHECK_EQ_INT(aeProcessEvents(el, AE_FILE_EVENTS | AE_DONT_WAIT), 0);
    close(pair_for_delete[1]);
    aeDeleteEventLoop(el);
}

static int hup_calls;
static void hup_proc(aeEventLoop *el, int fd, void *data, int mask) {
    (void)data;
    (void)mask;
    char buf[8];
    hup_calls++;
    if (read(fd, buf, sizeof(buf)) == 0) {   /* EOF: the peer went away */
        aeDeleteFileEvent(el, fd, AE_READABLE);
        close(fd);
    }
}

static void test_peer_close_reported_as_readable(void) {
    aeEventLoop *el = aeCreateEventLoop(64);
    int sp[2];
    make_socketpair(sp);
    hup_calls = 0;
    aeCreateFileEvent(el, sp[0], AE_READABLE, hup_proc, NULL);
    close(sp[1]);
    aeProcessEvents(el, AE_FILE_EVENTS);
    CHECK_EQ_INT(hup_calls, 1);
    CHECK_EQ_INT(aeProcessEvents(el, AE_FILE_EVENTS | AE_DONT_WAIT), 0);
    aeDeleteEventLoop(el);
}

#define MANY 40
static int many_hits[MANY];
static void many_proc(aeEventLoop *el, int fd, void *data, int mask) {
    (void)el;
    (void)mask;
    char buf[16];
    while (read(fd, buf, sizeof(buf)) > 0) { /* drain */ }
    many_hits[(int)(intptr_t)data]++;
}

static void test_many_fds_and_removal_from_the_middle(void) {
    aeEventLoop *el = aeCreateEventLoop(256);
    int pairs[MANY][2];
    memset(many_hits, 0, sizeof(many_hits));
    for (int i = 0; i < MANY; i++) {
        make_socketpair(pairs[i]);
        CHECK_EQ_INT(aeCreateFileEvent(el, pairs[i][0], AE_READABLE, many_proc, (void *)(intptr_t)i), AE_OK);
    }
    for (int i = 0; i < MANY; i++) CHECK(write(pairs[i][1], "z", 1) == 1);
    int total = 0;
    for (int round = 0; round < 10 && total < MANY; round++)
        total += aeProcessEvents(el, AE_FILE_EVENTS | AE_DONT_WAIT);
    CHECK_EQ_INT(total, MANY);
    for (int i = 0; i < MANY; i++) CHECK_EQ_INT(many_hits[i], 1);

    /* Remove every third fd, then only the rest must fire. */
    for (int i = 0; i < MANY; i += 3) aeDeleteFileEvent(el, pairs[i][0], AE_READABLE);
    for (int i = 0; i < MANY; i++) CHECK(write(pairs[i][1], "z", 1) == 1);
    for (int round = 0; round < 10; round++) aeProcessEvents(el, AE_FILE_EVENTS | AE_DONT_WAIT);
    for (int i = 0; i < MANY; i++) CHECK_EQ_INT(many_hits[i], i % 3 == 0 ? 1 : 2);
    for (int i = 0; i < MANY; i++) close_pair(pairs[i]);
    aeDeleteEventLoop(el);
}

/* ---- hooks, dont-wait ------------------------------------------------------------ */

static char hook_seq[16];
static int hook_len;
static void hook_add(char c) {
    if (hook_len < (int)sizeof(hook_seq) - 1) hook_seq[hook_len++] = c;
    hook_seq[hook_len] = '\0';
}
static void before_hook(aeEventLoop *el) {
    (void)el;
    hook_add('b');
}
static void after_hook(aeEventLoop *el) {
    (void)el;
    hook_add('a');
}
static void before_hook_sets_dont_wait(aeEventLoop *el) {
    hook_add('b');
    aeSetDontWait(el, 1);
}
static int hook_timer(aeEventLoop *el, long long id, void *data) {
    (void)el;
    (void)id;
    (void)data;
    hook_add('t');
    return AE_NOMORE;
}

static void test_before_and_after_sleep_hooks(void) {
    aeEventLoop *el = aeCreateEventLoop(16);
    hook_len = 0;
    hook_seq[0] = '\0';
    aeSetBeforeSleepProc(el, before_hook);
    aeSetAfterSleepProc(el, after_hook);
    aeCreateTimeEvent(el, 1, hook_timer, NULL, NULL);
    /* Without the CALL flags the hooks stay quiet. */
    uint64_t start = aeMonotonicUs();
    while (!strchr(hook_seq, 't') && aeMonotonicUs() - start < AE_TEST_DEADLINE_US)
        aeProcessEvents(el, AE_ALL_EVENTS);
    CHECK_EQ_STR(hook_seq, "t");

    hook_len = 0;
    aeCreateTimeEvent(el, 1, hook_timer, NULL, NULL);
    aeProcessEvents(el, AE_ALL_EVENTS | AE_CALL_BEFORE_SLEEP | AE_CALL_AFTER_SLEEP);
    /* The iteration sleeps until the timer is due, so it ran in this one. */
    CHECK_EQ_STR(hook_seq, "bat");
    aeDeleteEventLoop(el);
}

static void test_before_sleep_can_cancel_the_sleep(void) {
    aeEventLoop *el = aeCreateEventLoop(16);
    hook_len = 0;
    hook_seq[0] = '\0';
    aeSetBeforeSleepProc(el, before_hook_sets_dont_wait);
    /* A timer an hour away: without dont-wait this iteration would sleep
     * for an hour (and the test would time out). */
    aeCreateTimeEvent(el, 3600 * 1000, hook_timer, NULL, NULL);
    uint64_t start = aeMonotonicUs();
    CHECK_EQ_INT(aeProcessEvents(el, AE_ALL_EVENTS | AE_CALL_BEFORE_SLEEP), 0);
    CHECK(aeMonotonicUs() - start < AE_TEST_DEADLINE_US);
    CHECK_EQ_STR(hook_seq, "b");
    aeSetDontWait(el, 0);
    aeDeleteEventLoop(el);
}

/* ---- spinning before sleeping ---------------------------------------------------- */

static int spin_reads;
static void spin_read_proc(aeEventLoop *el, int fd, void *data, int mask) {
    (void)el;
    (void)data;
    (void)mask;
    char buf[64];
    while (read(fd, buf, sizeof(buf)) > 0) { /* drain */ }
    spin_reads++;
}

/* One busy iteration: a byte is waiting on sp[0], so the pass dispatches it. */
static void busy_pass(aeEventLoop *el, int sp[2], int flags) {
    int before = spin_reads;
    CHECK(write(sp[1], "x", 1) == 1);
    CHECK_EQ_INT(aeProcessEvents(el, flags), 1);
    CHECK_EQ_INT(spin_reads, before + 1);
}

/* A child that writes one byte to fd after `us` microseconds and exits. */
static pid_t write_later(int fd, useconds_t us) {
    pid_t pid = fork();
    CHECK(pid != -1);
    if (pid == 0) {
        usleep(us);
        _exit(write(fd, "y", 1) == 1 ? 0 : 1);
    }
    return pid;
}

static void reap(pid_t pid) {
    int status = 0;
    CHECK(waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static void test_spin_off_by_default_and_after_idle_passes(void) {
    aeEventLoop *el = aeCreateEventLoop(16);
    int sp[2];
    make_socketpair(sp);
    aeSpinStats st;
    CHECK_EQ_INT(aeGetSpinBudget(el), 0);
    CHECK_EQ_INT(aeCreateFileEvent(el, sp[0], AE_READABLE, spin_read_proc, NULL), AE_OK);
    /* No budget: a busy pass is followed by a plain wait. */
    busy_pass(el, sp, AE_FILE_EVENTS);
    aeCreateTimeEvent(el, 1, log_timer, NULL, NULL);
    aeProcessEvents(el, AE_ALL_EVENTS);
    aeGetSpinStats(el, &st);
    CHECK(st.spins == 0);

    /* With a budget, a pass that found nothing (here: only a timer ran)
     * is followed by a plain wait: an idle loop never spins. */
    aeSetSpinBudget(el, 10 * 1000 * 1000);
    CHECK_EQ_INT(aeGetSpinBudget(el), 10 * 1000 * 1000);
    tlog.count = 0;
    aeCreateTimeEvent(el, 1, log_timer, NULL, NULL);
    while (tlog.count == 0) aeProcessEvents(el, AE_ALL_EVENTS);
    aeCreateTimeEvent(el, 1, log_timer, NULL, NULL);
    while (tlog.count == 1) aeProcessEvents(el, AE_ALL_EVENTS);
    aeGetSpinStats(el, &st);
    CHECK(st.spins == 0);

    /* A wait that would not block anyway (AE_DONT_WAIT) does not spin. */
    busy_pass(el, sp, AE_FILE_EVENTS);
    CHECK_EQ_INT(aeProcessEvents(el, AE_FILE_EVENTS | AE_DONT_WAIT), 0);
    aeGetSpinStats(el, &st);
    CHECK(st.spins == 0);
    close_pair(sp);
    aeDeleteEventLoop(el);
}

static void test_spin_catches_an_event_arriving_soon(void) {
    aeEventLoop *el = aeCreateEventLoop(16);
    int sp[2];
    make_socketpair(sp);
    spin_reads = 0;
    CHECK_EQ_INT(aeCreateFileEvent(el, sp[0], AE_READABLE, spin_read_proc, NULL), AE_OK);
    aeSetSpinBudget(el, 10 * 1000 * 1000);
    busy_pass(el, sp, AE_FILE_EVENTS);
    /* The byte comes 2 ms later, well inside the 10 s budget: the spin sees
     * it, and the loop never blocks. */
    pid_t child = write_later(sp[1], 2000);
    uint64_t start = aeMonotonicUs();
    CHECK_EQ_INT(aeProcessEvents(el, AE_FILE_EVENTS), 1);
    CHECK(aeMonotonicUs() - start < 10 * 1000 * 1000);
    CHECK_EQ_INT(spin_reads, 2);
    reap(child);
    aeSpinStats st;
    aeGetSpinStats(el, &st);
    CHECK(st.spins == 1);
    CHECK(st.hits == 1);
    close_pair(sp);
    aeDeleteEventLoop(el);
}

static void test_spin_gives_up_after_its_budget_then_blocks(void) {
    aeEventLoop *el = aeCreateEventLoop(16);
    int sp[2];
    make_socketpair(sp);
    spin_reads = 0;
    CHECK_EQ_INT(aeCreateFileEvent(el, sp[0], AE_READABLE, spin_read_proc, NULL), AE_OK);
    aeSetSpinBudget(el, 1000);
    busy_pass(el, sp, AE_FILE_EVENTS);
    /* The byte comes long after the 1 ms spin gave up (200 ms: even a slow
     * emulator starts the spin sooner): the blocking wait gets it. */
    pid_t child = write_later(sp[1], 200 * 1000);
    CHECK_EQ_INT(aeProcessEvents(el, AE_FILE_EVENTS), 1);
    CHECK_EQ_INT(spin_reads, 2);
    reap(child);
    aeSpinStats st;
    aeGetSpinStats(el, &st);
    CHECK(st.spins == 1);
    CHECK(st.hits == 0);
    CHECK(st.spinTimeUs >= 1000);
    close_pair(sp);
    aeDeleteEventLoop(el);
}

static void test_spin_stops_at_the_next_timer(void) {
    aeEventLoop *el = aeCreateEventLoop(16);
    int sp[2];
    make_socketpair(sp);
    hook_len = 0;
    hook_seq[0] = '\0';
    aeSetBeforeSleepProc(el, before_hook);
    aeSetAfterSleepProc(el, after_hook);
    CHECK_EQ_INT(aeCreateFileEvent(el, sp[0], AE_READABLE, spin_read_proc, NULL), AE_OK);
    aeSetSpinBudget(el, 10 * 1000 * 1000);
    busy_pass(el, sp, AE_FILE_EVENTS);
    /* A timer 200 ms (x the time factor) away ends the 10 s spin; the hooks
     * run once around the whole wait (beforesleep before the spin: it
     * writes the replies). The clock starts before the timer is made (its
     * delay counts from its creation). The timer was 5 ms away: on a busy
     * machine under QEMU a preemption before the spin made the wait look
     * short (s390x) or left the timer already due, so nothing spun
     * (sparc64: spins 0). */
    long long timer_ms = 200LL * test_time_factor();
    uint64_t start = aeMonotonicUs();
    aeCreateTimeEvent(el, timer_ms, hook_timer, NULL, NULL);
    while (!strchr(hook_seq, 't') && aeMonotonicUs() - start < AE_TEST_DEADLINE_US)
        aeProcessEvents(el, AE_ALL_EVENTS | AE_CALL_BEFORE_SLEEP | AE_CALL_AFTER_SLEEP);
    uint64_t elapsed = aeMonotonicUs() - start;
    CHECK(elapsed >= (uint64_t)timer_ms * 1000);
    CHECK(elapsed < 10 * 1000 * 1000);
    CHECK_EQ_STR(hook_seq, "bat");
    aeSpinStats st;
    aeGetSpinStats(el, &st);
    CHECK(st.spins == 1);
    CHECK(st.hits == 0);
    close_pair(sp);
    aeDeleteEventLoop(el);
}

static void test_spin_length_adapts(void) {
    aeEventLoop *el = aeCreateEventLoop(16);
    int sp[2];
    make_socketpair(sp);
    spin_reads = 0;
    CHECK_EQ_INT(aeCreateFileEvent(el, sp[0], AE_READABLE, spin_read_proc, NULL), AE_OK);
    aeSetSpinBudget(el, 400);
    aeSpinStats st;
    /* Spins that catch nothing halve the next one: 400, 200, ... 1, 0. A
     * timer 30 ms away ends each blocking wait. */
    unsigned long long expect = 400;
    for (int i = 0; expect > 0; i++) {
        busy_pass(el, sp, AE_FILE_EVENTS);
        aeCreateTimeEvent(el, 30, log_timer, NULL, NULL);
        aeProcessEvents(el, AE_ALL_EVENTS);
        expect /= 2;
        aeGetSpinStats(el, &st);
        CHECK(st.spins == (unsigned long long)i + 1);
        CHECK(st.nextSpinUs == expect);
    }
    /* At 0 only one busy wait in 16 spins (the full budget), a probe. */
    unsigned long long spins = st.spins;
    for (int i = 0; i < 16; i++) {
        busy_pass(el, sp, AE_FILE_EVENTS);
        aeCreateTimeEvent(el, 1, log_timer, NULL, NULL);
        aeProcessEvents(el, AE_ALL_EVENTS);
    }
    aeGetSpinStats(el, &st);
    CHECK(st.spins == spins + 1);
    CHECK(st.hits == 0);
    /* A spin that catches an event restores the full budget. */
    aeSetSpinBudget(el, 10 * 1000 * 1000);
    busy_pass(el, sp, AE_FILE_EVENTS);
    aeCreateTimeEvent(el, 30, log_timer, NULL, NULL);
    aeProcessEvents(el, AE_ALL_EVENTS);     /* ended by the timer: no change */
    aeGetSpinStats(el, &st);
    CHECK(st.nextSpinUs == 10 * 1000 * 1000);
    busy_pass(el, sp, AE_FILE_EVENTS);
    pid_t child = write_later(sp[1], 2000);
    CHECK_EQ_INT(aeProcessEvents(el, AE_FILE_EVENTS), 1);
    reap(child);
    aeGetSpinStats(el, &st);
    CHECK(st.hits == 1);
    CHECK(st.nextSpinUs == 10 * 1000 * 1000);
    close_pair(sp);
    aeDeleteEventLoop(el);
}

/* ---- set size ------------------------------------------------------------------------ */

static void test_fd_out_of_range(void) {
    aeEventLoop *el = aeCreateEventLoop(8);
    errno = 0;
    CHECK_EQ_INT(aeCreateFileEvent(el, 8, AE_READABLE, read_proc, NULL), AE_ERR);
    CHECK_EQ_INT(errno, ERANGE);
    errno = 0;
    CHECK_EQ_INT(aeCreateFileEvent(el, -1, AE_READABLE, read_proc, NULL), AE_ERR);
    CHECK_EQ_INT(errno, ERANGE);
    CHECK_EQ_INT(aeGetFileEvents(el, 8), AE_NONE);
    CHECK_EQ_INT(aeGetFileEvents(el, -3), AE_NONE);
    aeDeleteEventLoop(el);
}

static void test_resize_set_size(void) {
    aeEventLoop *el = aeCreateEventLoop(16);
    int sp[2];
    make_socketpair(sp);
    memset(&iolog, 0, sizeof(iolog));
    int high = 60;   /* beyond the initial set size */
    CHECK(dup2(sp[0], high) == high);
    CHECK_EQ_INT(aeCreateFileEvent(el, high, AE_READABLE, read_proc, NULL), AE_ERR);

    CHECK_EQ_INT(aeCreateFileEvent(el, sp[0], AE_READABLE, read_proc, NULL), AE_OK);
    errno = 0;
    CHECK_EQ_INT(aeResizeSetSize(el, sp[0]), AE_ERR);   /* would drop a registered fd */
    CHECK_EQ_INT(errno, ERANGE);
    CHECK_EQ_INT(aeResizeSetSize(el, 0), AE_ERR);
    CHECK_EQ_INT(aeGetSetSize(el), 16);
    CHECK_EQ_INT(aeResizeSetSize(el, 16), AE_OK);   /* no-op */

    CHECK_EQ_INT(aeResizeSetSize(el, 128), AE_OK);
    CHECK_EQ_INT(aeGetSetSize(el), 128);
    CHECK_EQ_INT(aeGetFileEvents(el, sp[0]), AE_READABLE);   /* survived the resize */
    CHECK_EQ_INT(aeGetFileEvents(el, 100), AE_NONE);         /* new slots empty */
    CHECK(write(sp[1], "q", 1) == 1);
    aeProcessEvents(el, AE_FILE_EVENTS);
    CHECK_EQ_STR(iolog.seq, "R");

    aeDeleteFileEvent(el, sp[0], AE_READABLE);
    CHECK_EQ_INT(aeCreateFileEvent(el, high, AE_READABLE, read_proc, NULL), AE_OK);
    CHECK(write(sp[1], "r", 1) == 1);
    aeProcessEvents(el, AE_FILE_EVENTS);
    CHECK_EQ_STR(iolog.seq, "RR");
    CHECK_EQ_INT(iolog.last_fd, high);

    CHECK_EQ_INT(aeResizeSetSize(el, high), AE_ERR);
    aeDeleteFileEvent(el, high, AE_READABLE);
    CHECK_EQ_INT(aeResizeSetSize(el, high), AE_OK);   /* shrink once it is free */
    CHECK_EQ_INT(aeGetSetSize(el), high);
    CHECK_EQ_INT(aeCreateFileEvent(el, high, AE_READABLE, read_proc, NULL), AE_ERR);
    /* A registration made before a shrink keeps working after it. */
    CHECK_EQ_INT(aeCreateFileEvent(el, sp[0], AE_READABLE, read_proc, NULL), AE_OK);
    CHECK_EQ_INT(aeResizeSetSize(el, sp[0] + 1), AE_OK);
    CHECK(write(sp[1], "s", 1) == 1);
    aeProcessEvents(el, AE_FILE_EVENTS);
    CHECK_EQ_STR(iolog.seq, "RRR");
#if SIZEOF_POINTER_BITS == 32
    errno = 0;
    CHECK_EQ_INT(aeResizeSetSize(el, INT_MAX), AE_ERR);   /* size_t overflow */
    CHECK_EQ_INT(errno, ENOMEM);
    CHECK_EQ_INT(aeGetSetSize(el), sp[0] + 1);
#endif
    close(high);
    close_pair(sp);
    aeDeleteEventLoop(el);
}

#define SHRINK_PAIRS 6
static int shrink_pairs[SHRINK_PAIRS][2];
static int shrink_high_fd, shrink_calls, shrink_high_calls, shrink_resize_rc;
static void shrink_low_proc(aeEventLoop *el, int fd, void *data, int mask) {
    (void)data;
    (void)mask;
    char buf[8];
    while (read(fd, buf, sizeof(buf)) > 0) { /* drain */ }
    if (shrink_calls++ == 0) {   /* the first handler shrinks the set */
        aeDeleteFileEvent(el, shrink_high_fd, AE_READABLE);
        int maxlow = 0;
        for (int i = 0; i < SHRINK_PAIRS; i++)
            if (shrink_pairs[i][0] > maxlow) maxlow = shrink_pairs[i][0];
        shrink_resize_rc = aeResizeSetSize(el, maxlow + 1);
    }
}
static void shrink_high_proc(aeEventLoop *el, int fd, void *data, int mask) {
    shrink_high_calls++;
    shrink_low_proc(el, fd, data, mask);
}

static void test_resize_from_inside_a_handler(void) {
    aeEventLoop *el = aeCreateEventLoop(256);
    shrink_calls = shrink_high_calls = 0;
    shrink_resize_rc = -2;
    for (int i = 0; i < SHRINK_PAIRS; i++) {
        make_socketpair(shrink_pairs[i]);
        aeCreateFileEvent(el, shrink_pairs[i][0], AE_READABLE, shrink_low_proc, NULL);
        CHECK(write(shrink_pairs[i][1], "s", 1) == 1);
    }
    shrink_high_fd = 200;
    CHECK(dup2(shrink_pairs[0][1], shrink_high_fd) == shrink_high_fd);
    CHECK(write(shrink_pairs[0][0], "h", 1) == 1);   /* makes fd 200 readable */
    aeCreateFileEvent(el, shrink_high_fd, AE_READABLE, shrink_high_proc, NULL);
    /* One iteration: whichever handler runs first shrinks the loop; the rest
     * of the already-fired entries must still be dispatched safely. */
    int processed = aeProcessEvents(el, AE_FILE_EVENTS);
    CHECK_EQ_INT(shrink_resize_rc, AE_OK);
    CHECK(aeGetSetSize(el) < shrink_high_fd);
    CHECK(shrink_high_calls <= 1);   /* only if it happened to run first */
    CHECK_EQ_INT(processed, SHRINK_PAIRS + shrink_high_calls);
    CHECK_EQ_INT(shrink_calls, SHRINK_PAIRS + shrink_high_calls);
    close(shrink_high_fd);
    for (int i = 0; i < SHRINK_PAIRS; i++) close_pair(shrink_pairs[i]);
    aeDeleteEventLoop(el);
}

/* ---- aeWait --------------------------------------------------------------------------- */

static void test_wait(void) {
    int sp[2];
    make_socketpair(sp);
    uint64_t start = aeMonotonicUs();
    CHECK_EQ_INT(aeWait(sp[0], AE_READABLE, 20), 0);   /* nothing to read: timeout */
    CHECK(aeMonotonicUs() - start >= 15000);
    CHECK_EQ_INT(aeWait(sp[0], AE_WRITABLE, 1000), AE_WRITABLE);
    CHECK(write(sp[1], "k", 1) == 1);
    CHECK_EQ_INT(aeWait(sp[0], AE_READABLE, -1), AE_READABLE);
    CHECK_EQ_INT(aeWait(sp[0], AE_READABLE | AE_WRITABLE, 0), AE_READABLE | AE_WRITABLE);
    close(sp[1]);
    char buf[4];
    CHECK(read(sp[0], buf, sizeof(buf)) == 1);
    CHECK(aeWait(sp[0], AE_READABLE, 1000) & AE_READABLE);   /* EOF is readable */
    close(sp[0]);
}

static void test_file_and_time_events_together(void) {
    aeEventLoop *el = aeCreateEventLoop(64);
    int sp[2];
    make_socketpair(sp);
    memset(&iolog, 0, sizeof(iolog));
    memset(&tlog, 0, sizeof(tlog));
    aeCreateFileEvent(el, sp[0], AE_READABLE, read_proc, NULL);
    aeCreateTimeEvent(el, 5, log_timer, (void *)(intptr_t)5, NULL);
    /* The poller must wake for the timer even though the fd stays idle. */
    run_until(el, AE_ALL_EVENTS, &tlog.count);
    CHECK_EQ_INT(tlog.count, 1);
    CHECK_EQ_INT(iolog.len, 0);
    /* AE_TIME_EVENTS alone sleeps but does not dispatch file events. */
    CHECK(write(sp[1], "v", 1) == 1);
    aeCreateTimeEvent(el, 2, log_timer, (void *)(intptr_t)2, NULL);
    while (tlog.count < 2) aeProcessEvents(el, AE_TIME_EVENTS);
    CHECK_EQ_INT(iolog.len, 0);
    aeProcessEvents(el, AE_FILE_EVENTS | AE_DONT_WAIT);
    CHECK_EQ_STR(iolog.seq, "R");
    close_pair(sp);
    aeDeleteEventLoop(el);
}

TEST_MAIN(
    signal(SIGPIPE, SIG_IGN);
    printf("event loop backend: %s\n", aeGetApiName());
    RUN(test_create_and_api_name);
    RUN(test_timers_fire_in_deadline_order);
    RUN(test_timers_same_deadline_run_oldest_first);
    RUN(test_timer_repeats_until_nomore);
    RUN(test_timer_deletes_itself);
    RUN(test_timer_deletes_another_due_in_same_pass);
    RUN(test_timer_created_in_callback_waits_for_next_pass);
    RUN(test_timer_returning_zero_runs_once_per_pass);
    RUN(test_timer_edge_delays_and_ids);
    RUN(test_delete_loop_finalizes_pending_timers);
    RUN(test_main_until_stop);
    RUN(test_file_event_on_pipe);
    RUN(test_same_handler_called_once_with_both_bits);
    RUN(test_barrier_inverts_order);
    RUN(test_handler_changes_registration_mid_iteration);
    RUN(test_peer_close_reported_as_readable);
    RUN(test_many_fds_and_removal_from_the_middle);
    RUN(test_before_and_after_sleep_hooks);
    RUN(test_before_sleep_can_cancel_the_sleep);
    RUN(test_spin_off_by_default_and_after_idle_passes);
    RUN(test_spin_catches_an_event_arriving_soon);
    RUN(test_spin_gives_up_after_its_budget_then_blocks);
    RUN(test_spin_stops_at_the_next_timer);
    RUN(test_spin_length_adapts);
    RUN(test_fd_out_of_range);
    RUN(test_resize_set_size);
    RUN(test_resize_from_inside_a_handler);
    RUN(test_wait);
    RUN(test_file_and_time_events_together);
)
