/* redis-benchmark.c -- measures a server's throughput and latency with many
 * parallel clients, command-line compatible with Redis's redis-benchmark.
 *
 *   redis-benchmark [-h host] [-p port | -s socket | -u uri] [-c clients]
 *                   [-n requests] [-P pipeline] [--threads N] [-t tests]
 *                   [-q | --csv] [-I] [-x] [--enable-tracking] [--cluster] [COMMAND ARGS...]
 *
 * Design decisions:
 *  - Workers: one ae event loop each, and the -c non-blocking connections
 *    dealt out among them (client i to worker i % N). Without --threads one
 *    worker runs on the main thread; with --threads N each of N workers
 *    runs on its own thread, because one load generator thread saturates
 *    its core before a server does. The workers share only the request
 *    counts (atomics, added to once per read, not per reply) and the flag
 *    that a test failed; each keeps its own histogram, merged when the test
 *    ends, so the reports are the same whatever N.
 *  - A client sends a batch of -P requests, waits for all the replies, and
 *    sends the next batch straight from its read handler (no extra loop
 *    iteration); a worker's loop stops when none of its clients has
 *    anything left to send.
 *    Each reply's latency is measured from the start of its batch, as
 *    Redis's tool does, so figures are comparable.
 *  - Exactly -n requests are sent: batches are claimed from one shared
 *    count and the last ones shrink as needed, so INFO commandstats on the
 *    server shows exactly -n calls, threads or not.
 *  - -I opens the connections and waits; -x makes stdin the custom
 *    command's last argument; -u takes redis-cli's URI form;
 *    --enable-tracking sends CLIENT TRACKING on with each connection's
 *    setup.
 *  - No allocation per request: each test's command is formatted once, a
 *    client's buffer holds -P copies of it, and "__rand_int__" (12 bytes)
 *    is overwritten in place with a 12-digit random number before each
 *    batch. Replies are only validated and counted (rcParserSkipReply), in
 *    one pass over the bytes read straight into the parser's buffer.
 *  - Latencies go into a fixed-size log-linear histogram (bench_hist.c):
 *    bounded memory however long the run.
 *  - Output follows Redis's tool byte for byte where scripts parse it: -q
 *    ("SET: 123.45 requests per second, p50=0.183 msec") and --csv (same
 *    header and quoting). The live progress line is shown only on a
 *    terminal, so a pipe receives clean lines.
 *  - Setup (connect, AUTH, SELECT, HELLO) uses the blocking client library
 *    with a timeout, then the connection is handed to the event loop.
 *  - Errors stop the run with exit status 1 and Redis 7.0's messages: a
 *    refused password (or NOAUTH) on the first connection, which fetches
 *    the server's CONFIG in every mode, prints "Node <addr> replied with
 *    error:" and the error; any error reply during a test (or to a setup
 *    command) prints "Error from server: <error>". Rates measured on error
 *    replies would be false, and scripts need the exit status to notice.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "ae.h"
#include "bench_cluster.h"
#include "bench_hist.h"
#include "rclient.h"
#include "sds.h"
#include "util.h"
#include "version.h"
#include "zmalloc.h"

#define RAND_PLACEHOLDER "__rand_int__"
#define RAND_PLACEHOLDER_LEN 12
#define TAG_PLACEHOLDER "{tag}"
#define TAG_PLACEHOLDER_LEN 5
#define CONNECT_TIMEOUT_MS 10000
#define READ_CHUNK (16 * 1024)
#define PROGRESS_INTERVAL_MS 250

/* ---- configuration ---------------------------------------------------------------- */

static struct config {
    const char *host;
    int port;
    const char *socket;
    const char *password;
    const char *user;
    long long clients;
    long long requests;
    long long datasize;
    long long keyspace;     /* -r; 0 = no random keys */
    long long pipeline;
    long long dbnum;
    int resp3;
    int keepalive;
    int shm;              /* --shm: each connection moves to shared memory (CLIENT SHM) */
    int quiet;
    int csv;
    int loop;
    int precision;          /* decimals of latencies in the full report; 0 = 3 */
    int threads;            /* --threads: 0 = one event loop on the main thread */
    int idle;               /* -I: open the connections and wait */
    int stdin_lastarg;      /* -x: stdin is the custom command's last argument */
    int tracking;           /* --enable-tracking */
    sds tests;              /* -t as ",a,b,c," lowercased, or NULL for all */
    int custom_argc;        /* a command given after the options */
    char **custom_argv;
    int tty;                /* stdout is a terminal: show progress */
    int tls;                /* --tls: connections are upgraded (rclient_tls.c) */
    rcTlsOptions tls_options;
    int cluster;            /* --cluster: clients spread over the primaries */
} cfg = {
    .host = "127.0.0.1", .port = 6379, .clients = 50, .requests = 100000,
    .datasize = 3, .pipeline = 1, .keepalive = 1,
};

/* ---- the state of one test --------------------------------------------------------- */

struct benchWorker;

typedef struct benchClient {
    struct benchWorker *worker;
    rcConn *conn;
    char *req;              /* `pipeline` copies of the command */
    int own_req;            /* req is this client's (it has placeholders) */
    size_t req_len;         /* bytes of the current batch */
    size_t written;
    long long pending;      /* replies still expected for this batch */
    uint64_t start_us;      /* when the batch started */
    int master;             /* --cluster: its primary; -1 otherwise */
    int slots_gen;          /* --cluster: the slots_gen its tags were written at */
} benchClient;

/* One event loop and its share of the clients (client i belongs to worker
 * i % workers); with --threads each worker runs on a thread of its own. */
typedef struct benchWorker {
    aeEventLoop *el;
    benchClient *clients;
    long long nclients;
    long long idle;         /* clients with nothing left to send */
    benchHist hist;         /* merged into run.hist at the end of a test */
    uint64_t rng;
    pthread_t thread;
} benchWorker;

static struct run {
    benchWorker *workers;
    int nworkers;
    const char *title;
    sds cmd;                /* one command, formatted */
    size_t *randpos;        /* placeholder offsets within cmd */
    size_t nrand;
    char *shared_req;       /* `pipeline` copies of cmd, for commands without placeholders */
    _Atomic long long issued, done; /* shared by the workers */
    _Atomic uint64_t sum_us;        /* of the latencies done, for the progress line */
    uint64_t start_us, end_us;
    benchHist hist;                 /* the workers' histograms merged */
    long long progress_timer;
    long long last_done;
    uint64_t last_tick_us, last_sum_us;
    size_t progress_width;
    atomic_int failed;      /* a connection broke: abort the test */
    size_t *tagpos;         /* --cluster: "{tag}" offsets within cmd */
    size_t ntag;
} run;

/* --cluster: the primaries, client i talking to masters[i's master]. Their
 * tags change when a moved slot makes a worker re-read the slots: under
 * slots_lock, which also guards copying them, and slots_gen counts it. */
static benchMaster *masters;
static int nmasters;
static pthread_mutex_t slots_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic int slots_gen;

/* ---- small helpers -------------------------------------------------------------------- */

static void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void fatal(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}

static uint64_t nextRandom(benchWorker *w) {
    /* xorshift64*: fast, and good enough to spread keys */
    w->rng ^= w->rng >> 12;
    w->rng ^= w->rng << 25;
    w->rng ^= w->rng >> 27;
    return w->rng * 2685821657736338717ULL;
}

static double usToMs(uint64_t us) {
    return (double)us / 1000.0;
}

/* ---- connections ----------------------------------------------------------------------- */

/* The configured server, or (--cluster) primary `master` when >= 0. */
static rcConn *connectServer(int master) {
    rcConn *c = master >= 0 ? rcConnectTcp(masters[master].ip, masters[master].port, CONNECT_TIMEOUT_MS)
                : cfg.socket ? rcConnectUnix(cfg.socket, CONNECT_TIMEOUT_MS)
                             : rcConnectTcp(cfg.host, cfg.port, CONNECT_TIMEOUT_MS);
    if (c == NULL) fatal("Out of memory");
    if (c->err) fatal("Could not connect to Redis at %s: %s", rcConnAddr(c), c->errstr);
    if (cfg.tls && rcTlsUpgrade(c, &cfg.tls_options) != RC_OK) {
        if (rcTlsSetupError(c)) fatal("Could not negotiate a TLS connection: %s", c->errstr);
        fatal("Could not connect to Redis at %s: %s", rcConnAddr(c), c->errstr);
    }
    return c;
}

static void clearProgress(void);

/* Any error reply ends the run with status 1, as in Redis 7.0's tool (which
 * says "We now immediately exit on error to avoid false results"): figures
 * measured on error replies (NOAUTH, WRONGTYPE ...) would be meaningless. */
static void serverErrorExit(const char *msg) __attribute__((noreturn));
static void serverErrorExit(const char *msg) {
    clearProgress();
    fflush(stdout);
    fatal("Error from server: %s", msg);
}

/* --cluster: the same, naming the primary (after followRedirect). */
static void clusterErrorExit(int master, const char *msg) __attribute__((noreturn));
static void clusterErrorExit(int master, const char *msg) {
    clearProgress();
    fflush(stdout);
    fatal("Error from server %s:%d: %s", masters[master].ip, masters[master].port, msg);
}

/* Runs a setup command of a benchmark connection; an error reply ends the run. */
static void setupCommand(rcConn *c, int argc, const char **argv) {
    rcReply *r = rcCommandArgv(c, argc, argv, NULL);
    if (r == NULL) fatal("Error talking to Redis at %s: %s", rcConnAddr(c), c->errstr);
    if (r->type == RC_REPLY_ERROR) serverErrorExit(r->str);
    rcFreeReply(r);
}

/* AUTH [user] password into argv (3 slots); returns argc. */
static int authArgv(const char **argv) {
    argv[0] = "AUTH";
    argv[1] = cfg.user ? cfg.user : cfg.password;
    argv[2] = cfg.password;
    return cfg.user ? 3 : 2;
}

/* A connection ready for the benchmark: authenticated, database selected. */
static rcConn *openClientConnection(int master) {
    rcConn *c = connectServer(master);
    if (cfg.resp3) {
        const char *hello[] = { "HELLO", "3" };
        setupCommand(c, 2, hello);
    }
    if (cfg.password) {
        const char *auth[3];
        setupCommand(c, authArgv(auth), auth);
    }
    if (cfg.tracking) {
        const char *tracking[] = { "CLIENT", "TRACKING", "on" };
        setupCommand(c, 3, tracking);
    }
    if (cfg.dbnum) {
        char db[24];
        snprintf(db, sizeof(db), "%lld", cfg.dbnum);
        const char *select[] = { "SELECT", db };
        setupCommand(c, 2, select);
    }
    if (cfg.shm && rcUpgradeShm(c, 0) != RC_OK) fatal("CLIENT SHM failed: %s", c->errstr);
    return c;
}

/* The server refused the first connection: Redis's tool stops there. */
static void nodeErrorExit(rcConn *c, const char *msg) __attribute__((noreturn));
static void nodeErrorExit(rcConn *c, const char *msg) {
    fatal("Node %s replied with error:\n%s", rcConnAddr(c), msg);
}

/* A connection for the tool's own queries (--cluster): AUTH only. */
static rcConn *connectAuthenticated(int master) {
    rcConn *c = connectServer(master);
    if (cfg.password) {
        const char *auth[3];
        rcReply *r = rcCommandArgv(c, authArgv(auth), auth, NULL);
        if (r && r->type == RC_REPLY_ERROR) nodeErrorExit(c, r->str);
        rcFreeReply(r);
    }
    return c;
}

/* CONFIG GET name -> value (an sds), or NULL when not available. NOAUTH
 * (a password is needed) ends the run; other errors (CONFIG renamed or
 * not permitted) only lose the value. */
static sds fetchConfig(rcConn *c, const char *name) {
    const char *argv[] = { "CONFIG", "GET", name };
    rcReply *r = rcCommandArgv(c, 3, argv, NULL);
    if (r && r->type == RC_REPLY_ERROR && !strncmp(r->str, "NOAUTH", 6)) nodeErrorExit(c, r->str);
    sds value = NULL;
    if (r && (r->type == RC_REPLY_ARRAY || r->type == RC_REPLY_MAP) && r->elements == 2 &&
        r->element[1]->str)
        value = sdsnewlen(r->element[1]->str, r->element[1]->len);
    rcFreeReply(r);
    return value;
}

/* ---- requests ------------------------------------------------------------------------- */

/* Formats the command and finds its placeholders (with -r only). */
static void prepareCommand(int argc, const char **argv, const size_t *argvlen) {
    run.cmd = rcFormatCommandArgv(NULL, argc, argv, argvlen);
    run.nrand = 0;
    run.ntag = 0;
    for (size_t i = 0; cfg.cluster && i + TAG_PLACEHOLDER_LEN <= sdslen(run.cmd); i++) {
        if (memcmp(run.cmd + i, TAG_PLACEHOLDER, TAG_PLACEHOLDER_LEN) != 0) continue;
        run.tagpos = zrealloc(run.tagpos, sizeof(size_t) * (run.ntag + 1));
        run.tagpos[run.ntag++] = i;
        i += TAG_PLACEHOLDER_LEN - 1;
    }
    if (cfg.keyspace <= 0) return;
    size_t len = sdslen(run.cmd);
    for (size_t i = 0; i + RAND_PLACEHOLDER_LEN <= len; i++) {
        if (memcmp(run.cmd + i, RAND_PLACEHOLDER, RAND_PLACEHOLDER_LEN) != 0) continue;
        run.randpos = zrealloc(run.randpos, sizeof(size_t) * (run.nrand + 1));
        run.randpos[run.nrand++] = i;
        i += RAND_PLACEHOLDER_LEN - 1;
    }
}

/* An inline command is sent as typed (PING_INLINE). */
static void prepareInline(const char *line) {
    run.cmd = sdsnew(line);
    run.nrand = 0;
    run.ntag = 0;
}

/* --cluster: every copy of the command gets the hash tag of the client's
 * primary ("{tag}" -> "{xyz}", the same length). */
static void writeTags(benchClient *bc) {
    size_t len = sdslen(run.cmd);
    pthread_mutex_lock(&slots_lock);
    for (long long i = 0; i < cfg.pipeline; i++)
        for (size_t j = 0; j < run.ntag; j++)
            memcpy(bc->req + (size_t)i * len + run.tagpos[j] + 1, masters[bc->master].tag, 3);
    bc->slots_gen = slots_gen;
    pthread_mutex_unlock(&slots_lock);
}

static char *repeatCommand(void) {
    size_t len = sdslen(run.cmd);
    char *buf = zmalloc(len * (size_t)cfg.pipeline);
    for (long long i = 0; i < cfg.pipeline; i++) memcpy(buf + (size_t)i * len, run.cmd, len);
    return buf;
}

/* 12 decimal digits of a random number below -r, written over a placeholder. */
static void writeRandom(benchWorker *w, char *dst) {
    uint64_t v = nextRandom(w) % (uint64_t)cfg.keyspace;
    for (int i = RAND_PLACEHOLDER_LEN - 1; i >= 0; i--) {
        dst[i] = (char)('0' + v % 10);
        v /= 10;
    }
}

static void randomizeBatch(benchClient *bc, long long batch) {
    size_t len = sdslen(run.cmd);
    for (long long i = 0; i < batch; i++)
        for (size_t j = 0; j < run.nrand; j++) writeRandom(bc->worker, bc->req + (size_t)i * len + run.randpos[j]);
}

/* ---- the event loop side -------------------------------------------------------------- */

static void readHandler(aeEventLoop *el, int fd, void *data, int mask);
static void writeHandler(aeEventLoop *el, int fd, void *data, int mask);

static void abortTest(const char *why, benchClient *bc) {
    if (!run.failed) fprintf(stderr, "Error: %s (%s)\n", why, bc && bc->conn->errstr[0] ? bc->conn->errstr : strerror(errno));
    run.failed = 1;
    if (bc) aeStop(bc->worker->el);
}

/* Writes what the socket accepts; arms the writable event if it is full. */
static void writeBatch(benchClient *bc) {
    while (bc->written < bc->req_len) {
        ssize_t n = rcConnWrite(bc->conn, bc->req + bc->written, bc->req_len - bc->written);
        if (n > 0) {
            bc->written += (size_t)n;
        } else if (n == -1 && errno == EINTR) {
            continue;
        } else if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK) && rcConnUsesShm(bc->conn)) {
            if (rcConnWait(bc->conn, AE_WRITABLE, -1) < 0) abortTest("waiting for ring room failed", bc);
        } else if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (!(aeGetFileEvents(bc->worker->el, bc->conn->fd) & AE_WRITABLE))
                aeCreateFileEvent(bc->worker->el, bc->conn->fd, AE_WRITABLE, writeHandler, bc);
            return;
        } else {
            abortTest("writing to the server failed", bc);
            return;
        }
    }
    if (aeGetFileEvents(bc->worker->el, bc->conn->fd) & AE_WRITABLE)
        aeDeleteFileEvent(bc->worker->el, bc->conn->fd, AE_WRITABLE);
}

/* Starts the next batch, claimed from the shared count so that exactly -n
 * requests are sent whatever the threads; when none is left the client
 * goes idle, and the worker's loop stops with its last client. */
static void startBatch(benchClient *bc) {
    long long claimed = atomic_fetch_add(&run.issued, cfg.pipeline);
    long long batch = cfg.requests - claimed;
    if (batch <= 0) {
        benchWorker *w = bc->worker;
        if (++w->idle == w->nclients) aeStop(w->el);
        return;
    }
    if (batch > cfg.pipeline) batch = cfg.pipeline;
    if (run.ntag && bc->slots_gen != slots_gen) writeTags(bc);
    if (run.nrand) randomizeBatch(bc, batch);
    bc->req_len = sdslen(run.cmd) * (size_t)batch;
    bc->written = 0;
    bc->pending = batch;
    bc->start_us = aeMonotonicUs();
    writeBatch(bc);
}

static void writeHandler(aeEventLoop *el, int fd, void *data, int mask) {
    (void)el; (void)fd; (void)mask;
    writeBatch(data);
}

/* With --shm the wake-up socket and the unix socket (the server going away). */
static void attachClient(benchClient *bc) {
    int live = rcConnLivenessFd(bc->conn);
    if (aeCreateFileEvent(bc->worker->el, rcConnEventFd(bc->conn), AE_READABLE, readHandler, bc) == AE_ERR ||
        (live != -1 && aeCreateFileEvent(bc->worker->el, live, AE_READABLE, readHandler, bc) == AE_ERR))
        fatal("Cannot watch a connection: %s (raise the open files limit?)", strerror(errno));
}

static void detachClient(benchWorker *w, benchClient *bc) {
    int live = rcConnLivenessFd(bc->conn);
    aeDeleteFileEvent(w->el, rcConnEventFd(bc->conn), AE_READABLE | AE_WRITABLE);
    if (live != -1) aeDeleteFileEvent(w->el, live, AE_READABLE);
}

/* -k 0: a new connection for every batch. */
static void reconnect(benchClient *bc) {
    detachClient(bc->worker, bc);
    rcFree(bc->conn);
    bc->conn = openClientConnection(bc->master);
    attachClient(bc);
}

/* The replies of one read go into the shared counts at once: one atomic
 * addition per read, not per reply. The test ends with the -n-th reply. */
static void countDone(long long n, uint64_t latency_sum) {
    if (n == 0) return;
    atomic_fetch_add(&run.sum_us, latency_sum);
    long long before = atomic_fetch_add(&run.done, n);
    if (before < cfg.requests && before + n >= cfg.requests) run.end_us = aeMonotonicUs();
}

static rcConn *connectAuthenticated(int master);

/* --cluster: CLUSTER SLOTS from the first primary, as Redis 7.0's tool; a
 * failure ends the run. Only the first client to see a redirection since the
 * last update re-reads (a worker waiting here while another thread reads
 * finds the generation moved on and returns). */
static void refreshSlots(benchClient *bc) {
    pthread_mutex_lock(&slots_lock);
    if (bc->slots_gen != slots_gen) {
        pthread_mutex_unlock(&slots_lock);
        return;
    }
    fprintf(stderr, "WARNING: Cluster slots configuration changed, fetching new one...\n");
    rcConn *c = connectAuthenticated(0);
    rcReply *r = rcCommand(c, "CLUSTER", "SLOTS", NULL);
    if (r == NULL) fatal("Failed to update cluster slots configuration: %s", c->errstr);
    if (r->type == RC_REPLY_ERROR) fatal("Failed to update cluster slots configuration\nCLUSTER SLOTS ERROR: %s", r->str);
    sds err;
    if (benchClusterApplySlots(masters, nmasters, r, &err) != 0) fatal("%s", err);
    rcFreeReply(r);
    rcFree(c);
    slots_gen++;
    pthread_mutex_unlock(&slots_lock);
}

/* --cluster: an error reply. With "{tag}" keys, a moved slot (-MOVED, -ASK)
 * or a cluster that is down (-CLUSTERDOWN, after a second) makes the tool
 * re-read the slots and go on, the reply counted as done, as Redis 7.0's
 * tool does; any other error, or a command without tags, ends the run. */
static void followRedirect(benchClient *bc, const char *err) {
    int kind = run.ntag ? benchClusterRedirect(err) : BENCH_REDIRECT_NONE;
    if (kind == BENCH_REDIRECT_NONE) clusterErrorExit(bc->master, err);
    if (kind == BENCH_REDIRECT_DOWN) {
        fprintf(stderr, "Error from server %s:%d: %s.\n", masters[bc->master].ip, masters[bc->master].port, err);
        sleep(1);
    }
    refreshSlots(bc);
}

/* Consumes complete replies; 1 when the batch is finished. */
static int consumeReplies(benchClient *bc, uint64_t now) {
    rcReplyType type;
    char errbuf[128];
    int rc;
    long long n = 0;
    while (bc->pending > 0 && (rc = rcParserSkipReply(bc->conn->parser, &type, errbuf, sizeof(errbuf))) == 1) {
        if (type == RC_REPLY_PUSH) continue; /* out-of-band (RESP3) */
        if (type == RC_REPLY_ERROR && bc->master >= 0) followRedirect(bc, errbuf);
        else if (type == RC_REPLY_ERROR) serverErrorExit(errbuf);
        benchHistRecord(&bc->worker->hist, now - bc->start_us);
        bc->pending--;
        n++;
    }
    countDone(n, (uint64_t)n * (now - bc->start_us));
    if (bc->pending > 0 && rcParserError(bc->conn->parser)) {
        snprintf(bc->conn->errstr, sizeof(bc->conn->errstr), "%s", rcParserError(bc->conn->parser));
        abortTest("bad reply from the server", bc);
        return 0;
    }
    return bc->pending == 0;
}

/* --shm, the worker's only client: like a blocking client, wait for the
 * reply with the transport's brief adaptive spin (rcConnWait, never on a
 * single CPU) rather than sleep in the loop; with more clients the loop
 * serves them all. 1 when the reply is there to read. */
static int shmAwaitReply(benchClient *bc) {
    if (!rcConnUsesShm(bc->conn) || bc->worker->nclients != 1 || bc->pending == 0 || run.failed) return 0;
    return rcConnWait(bc->conn, AE_READABLE, 0) > 0;
}

static void readHandler(aeEventLoop *el, int fd, void *data, int mask) {
    (void)mask;
    (void)fd;
    benchClient *bc = data;
    if (run.failed) { /* another worker's connection broke */
        aeStop(el);
        return;
    }
    do { /* once, or while shmAwaitReply finds the next reply there */
        size_t avail;
        char *space = rcParserSpace(bc->conn->parser, READ_CHUNK, &avail);
        if (space == NULL) fatal("Out of memory");
        ssize_t n = rcConnRead(bc->conn, space, avail);
        if (n <= 0) {
            if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return;
            if (n == 0) snprintf(bc->conn->errstr, sizeof(bc->conn->errstr), "Server closed the connection");
            abortTest("reading from the server failed", bc);
            return;
        }
        rcParserCommit(bc->conn->parser, (size_t)n);
        while (rcConnHasBufferedInput(bc->conn)) { /* TLS: the rest of a decrypted record */
            space = rcParserSpace(bc->conn->parser, READ_CHUNK, &avail);
            if (space == NULL) fatal("Out of memory");
            n = rcConnRead(bc->conn, space, avail);
            if (n <= 0) break;
            rcParserCommit(bc->conn->parser, (size_t)n);
        }
        /* A batch not complete yet: wait for the rest (shmAwaitReply, which
         * arms the wake-up when it does not find it, or the loop). */
        if (!consumeReplies(bc, aeMonotonicUs())) continue;
        if (!cfg.keepalive && run.issued < cfg.requests) reconnect(bc);
        startBatch(bc);
    } while (shmAwaitReply(bc));
}

/* ---- progress --------------------------------------------------------------------------- */

static void clearProgress(void) {
    if (run.progress_width == 0) return;
    printf("\r%*s\r", (int)run.progress_width, "");
    run.progress_width = 0;
}

static int progressTimer(aeEventLoop *el, long long id, void *data) {
    (void)el; (void)id; (void)data;
    uint64_t now = aeMonotonicUs();
    double since_tick = (double)(now - run.last_tick_us) / 1e6;
    double since_start = (double)(now - run.start_us) / 1e6;
    long long done = run.done;
    uint64_t sum_us = run.sum_us;
    long long count = done - run.last_done;
    double rps = since_tick > 0 ? (double)count / since_tick : 0;
    double overall = since_start > 0 ? (double)done / since_start : 0;
    double avg = count ? usToMs(sum_us - run.last_sum_us) / (double)count : 0;
    double overall_avg = done ? usToMs(sum_us) / (double)done : 0;
    char line[512];
    int len = snprintf(line, sizeof(line), "%s: rps=%.1f (overall: %.1f) avg_msec=%.3f (overall: %.3f)",
                       run.title, rps, overall, avg, overall_avg);
    if (len < 0) len = 0;
    if ((size_t)len >= sizeof(line)) len = (int)sizeof(line) - 1;
    printf("\r%-*s", (int)run.progress_width, line);
    if ((size_t)len > run.progress_width) run.progress_width = (size_t)len;
    fflush(stdout);
    run.last_tick_us = now;
    run.last_done = done;
    run.last_sum_us = sum_us;
    return PROGRESS_INTERVAL_MS;
}

/* ---- reports ---------------------------------------------------------------------------- */

static double requestsPerSecond(void) {
    double secs = (double)(run.end_us - run.start_us) / 1e6;
    return secs > 0 ? (double)run.done / secs : 0;
}

static void reportQuiet(void) {
    printf("%s: %.2f requests per second, p50=%.3f msec\n", run.title, requestsPerSecond(),
           usToMs(benchHistPercentile(&run.hist, 50)));
}

static void reportCsv(void) {
    static int header_done;
    if (!header_done) {
        printf("\"test\",\"rps\",\"avg_latency_ms\",\"min_latency_ms\",\"p50_latency_ms\","
               "\"p95_latency_ms\",\"p99_latency_ms\",\"max_latency_ms\"\n");
        header_done = 1;
    }
    const benchHist *h = &run.hist;
    printf("\"%s\",\"%.2f\",\"%.3f\",\"%.3f\",\"%.3f\",\"%.3f\",\"%.3f\",\"%.3f\"\n", run.title,
           requestsPerSecond(), benchHistAverage(h) / 1000.0, usToMs(h->min_us),
           usToMs(benchHistPercentile(h, 50)), usToMs(benchHistPercentile(h, 95)),
           usToMs(benchHistPercentile(h, 99)), usToMs(h->max_us));
}

static sds server_save, server_appendonly;

static void reportPercentiles(int prec) {
    const benchHist *h = &run.hist;
    printf("Latency by percentile distribution:\n");
    /* 0%, 50%, 75%, 87.5%, ... halving the remainder until every sample is in */
    double pct = 0;
    for (int step = 0; step < 64; step++) {
        uint64_t v = benchHistPercentile(h, pct);
        uint64_t below = pct == 0 ? 1 : benchHistCountAtOrBelow(h, v);
        if (below > h->count) below = h->count;
        printf("%.3f%% <= %.*f milliseconds (cumulative count %llu)\n", pct, prec, usToMs(v),
               (unsigned long long)below);
        if (below >= h->count) break;
        pct = pct == 0 ? 50 : pct + (100 - pct) / 2;
    }
    printf("100.000%% <= %.*f milliseconds (cumulative count %llu)\n\n", prec, usToMs(h->max_us),
           (unsigned long long)h->count);
}

static void reportCumulative(int prec) {
    const benchHist *h = &run.hist;
    printf("Cumulative distribution of latencies:\n");
    /* 0.1 ms steps up to 1 ms, then 1 ms steps up to 10 ms, then 10 ms... */
    uint64_t step = 100;
    for (uint64_t edge = 100;; edge += step) {
        uint64_t below = benchHistCountAtOrBelow(h, edge);
        if (below == 0 && h->count > 0) goto next; /* start at the first non-empty step */
        printf("%.3f%% <= %.*f milliseconds (cumulative count %llu)\n",
               h->count ? 100.0 * (double)below / (double)h->count : 100.0, prec, usToMs(edge),
               (unsigned long long)below);
        if (below >= h->count) break;
    next:
        if (edge >= step * 10) step *= 10;
    }
    printf("\n");
}

static void reportFull(void) {
    int prec = cfg.precision > 0 ? cfg.precision : 3;
    const benchHist *h = &run.hist;
    printf("====== %s ======\n", run.title);
    printf("  %lld requests completed in %.2f seconds\n", run.done, (double)(run.end_us - run.start_us) / 1e6);
    printf("  %lld parallel clients\n", cfg.clients);
    printf("  %lld bytes payload\n", cfg.datasize);
    printf("  keep alive: %d\n", cfg.keepalive);
    if (cfg.cluster) {
        printf("  cluster mode: yes (%d masters)\n", nmasters);
        for (int m = 0; m < nmasters; m++) {
            if (!masters[m].save || !masters[m].appendonly) continue;
            printf("  node [%d] configuration:\n", m);
            printf("    save: %s\n", sdslen(masters[m].save) ? masters[m].save : "NONE");
            printf("    appendonly: %s\n", masters[m].appendonly);
        }
    } else {
        if (server_save) printf("  host configuration \"save\": %s\n", server_save);
        if (server_appendonly) printf("  host configuration \"appendonly\": %s\n", server_appendonly);
    }
    if (cfg.threads > 0) printf("  multi-thread: yes\n  threads: %d\n\n", cfg.threads);
    else printf("  multi-thread: no\n\n");
    reportPercentiles(prec);
    reportCumulative(prec);
    printf("Summary:\n");
    printf("  throughput summary: %.2f requests per second\n", requestsPerSecond());
    printf("  latency summary (msec):\n");
    printf("    %9s %9s %9s %9s %9s %9s\n", "avg", "min", "p50", "p95", "p99", "max");
    printf("    %9.*f %9.*f %9.*f %9.*f %9.*f %9.*f\n\n", prec, benchHistAverage(h) / 1000.0, prec,
           usToMs(h->min_us), prec, usToMs(benchHistPercentile(h, 50)), prec,
           usToMs(benchHistPercentile(h, 95)), prec, usToMs(benchHistPercentile(h, 99)), prec,
           usToMs(h->max_us));
}

/* ---- running one test -------------------------------------------------------------------- */

/* --cluster: Redis's placement: client i of thread i % threads goes to that
 * thread's primary, or round-robin when there are fewer threads than
 * primaries. */
static int clientMaster(long long i) {
    if (!cfg.cluster) return -1;
    if (run.nworkers < nmasters) return (int)(i % nmasters);
    return (int)((i % run.nworkers) % nmasters);
}

/* Connects every client and deals them out to the workers. */
static void createClients(void) {
    run.shared_req = run.nrand || run.ntag ? NULL : repeatCommand();
    for (int t = 0; t < run.nworkers; t++) {
        benchWorker *w = &run.workers[t];
        w->nclients = cfg.clients / run.nworkers + (t < cfg.clients % run.nworkers);
        w->clients = w->nclients ? zcalloc(sizeof(benchClient) * (size_t)w->nclients) : NULL;
        w->idle = 0;
        benchHistReset(&w->hist);
    }
    for (long long i = 0; i < cfg.clients; i++) {
        benchWorker *w = &run.workers[i % run.nworkers];
        benchClient *bc = &w->clients[i / run.nworkers];
        bc->worker = w;
        bc->master = clientMaster(i);
        bc->conn = openClientConnection(bc->master);
        bc->own_req = run.nrand > 0 || run.ntag > 0;
        bc->req = bc->own_req ? repeatCommand() : run.shared_req;
        if (run.ntag) writeTags(bc);
        attachClient(bc);
    }
}

static void freeClients(void) {
    for (int t = 0; t < run.nworkers; t++) {
        benchWorker *w = &run.workers[t];
        for (long long i = 0; i < w->nclients; i++) {
            benchClient *bc = &w->clients[i];
            detachClient(w, bc);
            rcFree(bc->conn);
            if (bc->own_req) zfree(bc->req);
        }
        zfree(w->clients);
        w->clients = NULL;
        w->nclients = 0;
    }
    zfree(run.shared_req);
    run.shared_req = NULL;
}

/* One worker's part of a test: start its clients, then serve them until
 * each has nothing left to send (or the test failed). */
static void *workerMain(void *arg) {
    benchWorker *w = arg;
    for (long long i = 0; i < w->nclients && !run.failed; i++) startBatch(&w->clients[i]);
    if (!run.failed && w->idle < w->nclients) aeMain(w->el);
    return NULL;
}

/* Worker 0 runs on the calling thread (and alone without --threads). */
static void runWorkers(void) {
    for (int t = 1; t < run.nworkers; t++)
        if (pthread_create(&run.workers[t].thread, NULL, workerMain, &run.workers[t]) != 0)
            fatal("Cannot start a thread: %s", strerror(errno));
    workerMain(&run.workers[0]);
    for (int t = 1; t < run.nworkers; t++) pthread_join(run.workers[t].thread, NULL);
    benchHistReset(&run.hist);
    for (int t = 0; t < run.nworkers; t++) benchHistMerge(&run.hist, &run.workers[t].hist);
}

/* Runs the prepared command (run.cmd) as a test called title. */
static void runTest(const char *title) {
    run.title = title;
    run.issued = run.done = 0;
    run.sum_us = 0;
    run.failed = 0;
    createClients();
    run.start_us = run.last_tick_us = aeMonotonicUs();
    run.end_us = 0;
    run.last_done = 0;
    run.last_sum_us = 0;
    aeEventLoop *el0 = run.workers[0].el;
    run.progress_timer = cfg.tty && !cfg.csv ? aeCreateTimeEvent(el0, PROGRESS_INTERVAL_MS, progressTimer, NULL, NULL) : -1;
    runWorkers();
    if (run.end_us == 0) run.end_us = aeMonotonicUs();
    if (run.progress_timer != -1) aeDeleteTimeEvent(el0, run.progress_timer);
    freeClients();
    sdsfree(run.cmd);
    run.cmd = NULL;
    zfree(run.randpos);
    run.randpos = NULL;
    zfree(run.tagpos);
    run.tagpos = NULL;
    clearProgress();
    if (run.failed) exit(1);
    if (cfg.csv) reportCsv();
    else if (cfg.quiet) reportQuiet();
    else reportFull();
    fflush(stdout);
}

/* ---- the default tests --------------------------------------------------------------------- */

/* Whether a test named `name` (lowercase) is selected by -t. */
static int selected(const char *name) {
    if (cfg.tests == NULL) return 1;
    char pattern[64];
    snprintf(pattern, sizeof(pattern), ",%s,", name);
    return strstr(cfg.tests, pattern) != NULL;
}

static void runArgs(const char *title, int argc, const char **argv) {
    prepareCommand(argc, argv, NULL);
    runTest(title);
}

/* A key name: NAME, or with --cluster NAME:{tag} (the tag placeholder that
 * sends it to the client's primary), then SUFFIX. */
static sds keyName(const char *name, const char *suffix) {
    return sdscatprintf(sdsempty(), "%s%s%s", name, cfg.cluster ? ":" TAG_PLACEHOLDER : "", suffix);
}

static void runDefaultTests(void) {
    sds data = sdsgrowzero(sdsempty(), (size_t)cfg.datasize);
    memset(data, 'x', (size_t)cfg.datasize);
    const char *score = cfg.keyspace > 0 ? RAND_PLACEHOLDER : "0";
    sds key = keyName("key", ":" RAND_PLACEHOLDER), counter = keyName("counter", ":" RAND_PLACEHOLDER);
    sds mylist = keyName("mylist", ""), myset = keyName("myset", ""), myhash = keyName("myhash", "");
    sds myzset = keyName("myzset", "");
    if (selected("ping_inline") || selected("ping")) {
        prepareInline("PING\r\n");
        runTest("PING_INLINE");
    }
    if (selected("ping_mbulk") || selected("ping")) runArgs("PING_MBULK", 1, (const char *[]){ "PING" });
    if (selected("set")) runArgs("SET", 3, (const char *[]){ "SET", key, data });
    if (selected("get")) runArgs("GET", 2, (const char *[]){ "GET", key });
    if (selected("incr")) runArgs("INCR", 2, (const char *[]){ "INCR", counter });
    if (selected("lpush")) runArgs("LPUSH", 3, (const char *[]){ "LPUSH", mylist, data });
    if (selected("rpush")) runArgs("RPUSH", 3, (const char *[]){ "RPUSH", mylist, data });
    if (selected("lpop")) runArgs("LPOP", 2, (const char *[]){ "LPOP", mylist });
    if (selected("rpop")) runArgs("RPOP", 2, (const char *[]){ "RPOP", mylist });
    if (selected("sadd")) runArgs("SADD", 3, (const char *[]){ "SADD", myset, "element:" RAND_PLACEHOLDER });
    if (selected("hset"))
        runArgs("HSET", 4, (const char *[]){ "HSET", myhash, "element:" RAND_PLACEHOLDER, data });
    if (selected("spop")) runArgs("SPOP", 2, (const char *[]){ "SPOP", myset });
    if (selected("zadd"))
        runArgs("ZADD", 4, (const char *[]){ "ZADD", myzset, score, "element:" RAND_PLACEHOLDER });
    if (selected("zpopmin")) runArgs("ZPOPMIN", 2, (const char *[]){ "ZPOPMIN", myzset });
    static const struct { const char *name, *title, *last; } lranges[] = {
        { "lrange_100", "LRANGE_100 (first 100 elements)", "99" },
        { "lrange_300", "LRANGE_300 (first 300 elements)", "299" },
        { "lrange_500", "LRANGE_500 (first 500 elements)", "499" },
        { "lrange_600", "LRANGE_600 (first 600 elements)", "599" },
    };
    int any_lrange = selected("lrange");
    for (size_t i = 0; i < sizeof(lranges) / sizeof(lranges[0]); i++) any_lrange |= selected(lranges[i].name);
    if (any_lrange)
        runArgs("LPUSH (needed to benchmark LRANGE)", 3, (const char *[]){ "LPUSH", mylist, data });
    for (size_t i = 0; i < sizeof(lranges) / sizeof(lranges[0]); i++)
        if (selected(lranges[i].name) || selected("lrange"))
            runArgs(lranges[i].title, 4, (const char *[]){ "LRANGE", mylist, "0", lranges[i].last });

    if (selected("mset")) {
        const char *argv[21] = { "MSET" };
        for (int i = 0; i < 10; i++) {
            argv[1 + 2 * i] = key;
            argv[2 + 2 * i] = data;
        }
        runArgs("MSET (10 keys)", 21, argv);
    }
    sdsfree(data);
    sdsfree(key);
    sdsfree(counter);
    sdsfree(mylist);
    sdsfree(myset);
    sdsfree(myhash);
    sdsfree(myzset);
}

/* An idle connection that became readable: the server can only have
 * refused it (maxclients' error, a timeout closing it). As Redis's tool,
 * that ends the run with "Error..." and status 1 -- waiting on would hide
 * that the connections asked for are not there. */
static void idleCheck(rcConn *c) {
    rcReply *reply = NULL;
    if (rcTryReadReply(c, &reply) != RC_OK) {
        fprintf(stderr, "Error: %s\n", c->errstr);
        exit(1);
    }
    if (reply && reply->type == RC_REPLY_ERROR) {
        fprintf(stderr, "Error from server: %.*s\n", (int)reply->len, reply->str);
        exit(1);
    }
    if (reply) rcFreeReply(reply);
}

/* -I: the connections are opened and kept, nothing is sent; the count is
 * redrawn every PROGRESS_INTERVAL_MS until the process is stopped, and
 * the connections are watched meanwhile (idleCheck). */
static void idleMode(void) __attribute__((noreturn));
static void idleMode(void) {
    printf("Creating %lld idle connections and waiting forever (Ctrl+C when done)\n", cfg.clients);
    fflush(stdout);
    rcConn **conns = zcalloc(sizeof(rcConn *) * (size_t)cfg.clients);
    struct pollfd *fds = zcalloc(sizeof(struct pollfd) * (size_t)cfg.clients);
    long long opened = 0;
    for (; opened < cfg.clients; opened++) {
        conns[opened] = openClientConnection(clientMaster(opened));
        fds[opened].fd = rcConnEventFd(conns[opened]);
        fds[opened].events = POLLIN;
    }
    for (;;) {
        printf("clients: %lld\r", opened);
        fflush(stdout);
        if (poll(fds, (nfds_t)opened, PROGRESS_INTERVAL_MS) <= 0) continue;
        for (long long j = 0; j < opened; j++)
            if (fds[j].revents) idleCheck(conns[j]);
    }
}

/* -x: everything on stdin becomes one more argument of the custom command
 * (not of its title, as in Redis's tool). */
static void readStdinArgument(void) {
    sds arg = sdsempty();
    char buf[16384];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), stdin)) > 0) arg = sdscatlen(arg, buf, n);
    char **argv = zmalloc(sizeof(char *) * (size_t)(cfg.custom_argc + 1));
    for (int i = 0; i < cfg.custom_argc; i++) argv[i] = cfg.custom_argv[i];
    argv[cfg.custom_argc] = arg;
    cfg.custom_argv = argv;
    cfg.custom_argc++;
}

static void runCustomCommand(void) {
    sds title = sdsjoin(cfg.custom_argv, cfg.custom_argc - (cfg.stdin_lastarg ? 1 : 0), " ");
    runArgs(title, cfg.custom_argc, (const char **)cfg.custom_argv);
    sdsfree(title);
}

/* ---- options ------------------------------------------------------------------------------ */

/* Redis 7.0's text for the options this tool has (no --cluster). */
static void usage(FILE *out) {
    fprintf(out,
"Usage: redis-benchmark [OPTIONS] [COMMAND ARGS...]\n"
"\n"
"Options:\n"
" -h <hostname>      Server hostname (default 127.0.0.1)\n"
" -p <port>          Server port (default 6379)\n"
" -s <socket>        Server socket (overrides host and port)\n"
" --shm              Move each -s connection to shared memory (CLIENT SHM)\n"
" -a <password>      Password for Redis Auth\n"
" --user <username>  Used to send ACL style 'AUTH username pass'. Needs -a.\n"
" -u <uri>           Server URI.\n"
" -c <clients>       Number of parallel connections (default 50)\n"
" -n <requests>      Total number of requests (default 100000)\n"
" -d <size>          Data size of SET/GET value in bytes (default 3)\n"
" --dbnum <db>       SELECT the specified db number (default 0)\n"
" -3                 Start session in RESP3 protocol mode.\n"
" --threads <num>    Enable multi-thread mode.\n"
" --cluster          Enable cluster mode.\n"
"                    If the command is supplied on the command line in cluster\n"
"                    mode, the key must contain \"{tag}\". Otherwise, the\n"
"                    command will not be sent to the right cluster node.\n"
" --enable-tracking  Send CLIENT TRACKING on before starting benchmark.\n"
" -k <boolean>       1=keep alive 0=reconnect (default 1)\n"
" -r <keyspacelen>   Use random keys for SET/GET/INCR, random values for SADD,\n"
"                    random members and scores for ZADD.\n"
"                    Using this option the benchmark will expand the string\n"
"                    __rand_int__ inside an argument with a 12 digits number in\n"
"                    the specified range from 0 to keyspacelen-1. The\n"
"                    substitution changes every time a command is executed.\n"
"                    Default tests use this to hit random keys in the specified\n"
"                    range.\n"
"                    Note: If -r is omitted, all commands in a benchmark will\n"
"                    use the same key.\n"
" -P <numreq>        Pipeline <numreq> requests. Default 1 (no pipeline).\n"
" -q                 Quiet. Just show query/sec values\n"
" --precision        Number of decimal places to display in latency output (default 3)\n"
" --csv              Output in CSV format\n"
" -l                 Loop. Run the tests forever\n"
" -t <tests>         Only run the comma separated list of tests. The test\n"
"                    names are the same as the ones produced as output.\n"
"                    The -t option is ignored if a specific command is supplied\n"
"                    on the command line.\n"
" -I                 Idle mode. Just open N idle connections and wait.\n"
" -x                 Read last argument from STDIN.\n"
" --tls              Establish a secure TLS connection.\n"
" --sni <host>       Server name indication for TLS.\n"
" --cacert <file>    CA Certificate file to verify with.\n"
" --cacertdir <dir>  Directory where trusted CA certificates are stored.\n"
"                    If neither cacert nor cacertdir are specified, the default\n"
"                    system-wide trusted root certs configuration will apply.\n"
" --insecure         Allow insecure TLS connection by skipping cert validation.\n"
" --cert <file>      Client certificate to authenticate with.\n"
" --key <file>       Private key file to authenticate with.\n"
" --tls-ciphers <list> Sets the list of preferred ciphers (TLSv1.2 and below)\n"
"                    in order of preference from highest to lowest separated by colon (\":\").\n"
"                    See the ciphers(1ssl) manpage for more information about the syntax of this string.\n"
" --tls-ciphersuites <list> Sets the list of preferred ciphersuites (TLSv1.3)\n"
"                    in order of preference from highest to lowest separated by colon (\":\").\n"
"                    See the ciphers(1ssl) manpage for more information about the syntax of this string,\n"
"                    and specifically for TLSv1.3 ciphersuites.\n"
" --help             Output this help and exit.\n"
" --version          Output version and exit.\n"
"\n"
"Examples:\n"
"\n"
" Run the benchmark with the default configuration against 127.0.0.1:6379:\n"
"   $ redis-benchmark\n"
"\n"
" Use 20 parallel clients, for a total of 100k requests, against 192.168.1.1:\n"
"   $ redis-benchmark -h 192.168.1.1 -p 6379 -n 100000 -c 20\n"
"\n"
" Fill 127.0.0.1:6379 with about 1 million keys only using the SET test:\n"
"   $ redis-benchmark -t set -n 1000000 -r 100000000\n"
"\n"
" Benchmark 127.0.0.1:6379 for a few commands producing CSV output:\n"
"   $ redis-benchmark -t ping,set,get -n 100000 --csv\n"
"\n"
" Benchmark a specific command line:\n"
"   $ redis-benchmark -r 10000 -n 10000 incrby counter:__rand_int__ 1\n"
"\n"
" Fill a list with 10000 random elements:\n"
"   $ redis-benchmark -r 10000 -n 10000 lpush mylist __rand_int__\n"
"\n"
" On user specified command lines __rand_int__ is replaced with a random integer\n"
" with a range of values selected by the -r option.\n");
}

static void badOption(const char *opt) __attribute__((noreturn));
static void badOption(const char *opt) {
    fprintf(stderr, "Invalid option \"%s\" or option argument missing\n\n", opt);
    usage(stderr);
    exit(1);
}

/* The argument of option argv[*i]; exits when it is missing. */
static const char *optionArg(int argc, char **argv, int *i) {
    if (*i + 1 >= argc) badOption(argv[*i]);
    return argv[++*i];
}

static long long numberArg(int argc, char **argv, int *i, long long min, long long max) {
    const char *opt = argv[*i];
    const char *arg = optionArg(argc, argv, i);
    long long v;
    if (!string2ll(arg, strlen(arg), &v) || v < min || v > max)
        fatal("Invalid value \"%s\" for option \"%s\" (expected an integer from %lld to %lld)", arg, opt, min, max);
    return v;
}

/* -u redis://[[user]:password@]host[:port][/db], as redis-cli's -u. The
 * parts are kept for the whole run (they back cfg's strings). */
static void parseUri(const char *uri) {
    static rcUri parts;
    const char *err;
    if (rcParseUri(uri, &parts, &err) != RC_OK) fatal("%s", err);
    if (parts.password) {
        cfg.user = parts.user;
        cfg.password = parts.password;
    }
    if (parts.host) cfg.host = parts.host;
    if (parts.port) cfg.port = parts.port;
    if (parts.dbnum >= 0) cfg.dbnum = parts.dbnum;
    if (parts.tls) cfg.tls = 1;
}

static void setTests(const char *list) {
    sds t = sdscatprintf(sdsempty(), ",%s,", list);
    sdstolower(t);
    sdsfree(cfg.tests);
    cfg.tests = t;
}

/* -e (show errors) of older versions; errors now always end the run. */
#define EXIT_ON_ERROR_WARNING \
    "WARNING: -e option has no effect. We now immediately exit on error to avoid false results.\n"

/* Parses the options; a first non-option argument starts the custom command. */
static void parseOptions(int argc, char **argv) {
    int i;
    for (i = 1; i < argc; i++) {
        const char *o = argv[i];
        if (o[0] != '-') break;
        if (!strcmp(o, "-h")) cfg.host = optionArg(argc, argv, &i);
        else if (!strcmp(o, "-p")) cfg.port = (int)numberArg(argc, argv, &i, 1, 65535);
        else if (!strcmp(o, "-s")) cfg.socket = optionArg(argc, argv, &i);
        else if (!strcmp(o, "--shm")) cfg.shm = 1;
        else if (!strcmp(o, "-a")) cfg.password = optionArg(argc, argv, &i);
        else if (!strcmp(o, "--user")) cfg.user = optionArg(argc, argv, &i);
        else if (!strcmp(o, "-u")) parseUri(optionArg(argc, argv, &i));
        else if (!strcmp(o, "-c")) cfg.clients = numberArg(argc, argv, &i, 1, 100000);
        else if (!strcmp(o, "-n")) cfg.requests = numberArg(argc, argv, &i, 1, LLONG_MAX / 2);
        else if (!strcmp(o, "-d")) cfg.datasize = numberArg(argc, argv, &i, 0, 1024LL * 1024 * 1024);
        else if (!strcmp(o, "-r")) cfg.keyspace = numberArg(argc, argv, &i, 0, 1000000000000LL);
        else if (!strcmp(o, "-P")) cfg.pipeline = numberArg(argc, argv, &i, 1, 1000000);
        else if (!strcmp(o, "-k")) cfg.keepalive = (int)numberArg(argc, argv, &i, 0, 1);
        else if (!strcmp(o, "--dbnum")) cfg.dbnum = numberArg(argc, argv, &i, 0, INT32_MAX);
        else if (!strcmp(o, "--precision")) cfg.precision = (int)numberArg(argc, argv, &i, 0, 6);
        else if (!strcmp(o, "--threads")) cfg.threads = (int)numberArg(argc, argv, &i, 1, 500);
        else if (!strcmp(o, "-t")) setTests(optionArg(argc, argv, &i));
        else if (!strcmp(o, "-q")) cfg.quiet = 1;
        else if (!strcmp(o, "--csv")) cfg.csv = 1;
        else if (!strcmp(o, "-l")) cfg.loop = 1;
        else if (!strcmp(o, "-I")) cfg.idle = 1;
        else if (!strcmp(o, "-x")) cfg.stdin_lastarg = 1;
        else if (!strcmp(o, "--enable-tracking")) cfg.tracking = 1;
        else if (!strcmp(o, "--cluster")) cfg.cluster = 1;
        else if (!strcmp(o, "-3")) cfg.resp3 = 1;
        else if (!strcmp(o, "--tls")) cfg.tls = 1;
        else if (!strcmp(o, "--insecure")) cfg.tls_options.insecure = 1;
        else if (!strcmp(o, "--sni")) cfg.tls_options.sni = optionArg(argc, argv, &i);
        else if (!strcmp(o, "--cacert")) cfg.tls_options.cacert = optionArg(argc, argv, &i);
        else if (!strcmp(o, "--cacertdir")) cfg.tls_options.cacertdir = optionArg(argc, argv, &i);
        else if (!strcmp(o, "--cert")) cfg.tls_options.cert = optionArg(argc, argv, &i);
        else if (!strcmp(o, "--key")) cfg.tls_options.key = optionArg(argc, argv, &i);
        else if (!strcmp(o, "--tls-ciphers")) cfg.tls_options.ciphers = optionArg(argc, argv, &i);
        else if (!strcmp(o, "--tls-ciphersuites")) cfg.tls_options.ciphersuites = optionArg(argc, argv, &i);
        else if (!strcmp(o, "-e")) fputs(EXIT_ON_ERROR_WARNING, stderr);
        else if (!strcmp(o, "--help")) { usage(stdout); exit(0); }
        else if (!strcmp(o, "--version") || !strcmp(o, "-v")) { printf("redis-benchmark %s\n", REDIS_VERSION); exit(0); }
        else badOption(o);
    }
    if (cfg.user && !cfg.password) fatal("--user needs -a <password>");
    cfg.custom_argc = argc - i;
    cfg.custom_argv = argv + i;
    if (cfg.stdin_lastarg && cfg.custom_argc > 0) readStdinArgument();
    if (cfg.clients > cfg.requests) cfg.clients = cfg.requests; /* idle clients measure nothing */
}

/* The server's persistence settings, shown in the full report. Fetched in
 * every mode, on a connection of its own that only authenticates, so a
 * wrong or missing password stops the run before any test, with Redis's
 * message. */
static void fetchConfigOf(int master, sds *save, sds *appendonly) {
    rcConn *c = connectServer(master);
    if (cfg.password) {
        const char *auth[3];
        rcReply *r = rcCommandArgv(c, authArgv(auth), auth, NULL);
        if (r == NULL) fatal("Error talking to Redis at %s: %s", rcConnAddr(c), c->errstr);
        if (r->type == RC_REPLY_ERROR) nodeErrorExit(c, r->str);
        rcFreeReply(r);
    }
    *save = fetchConfig(c, "save");
    *appendonly = fetchConfig(c, "appendonly");
    rcFree(c);
}

static void fetchServerConfig(void) {
    fetchConfigOf(-1, &server_save, &server_appendonly);
    if (!server_save || !server_appendonly) fprintf(stderr, "WARNING: Could not fetch server CONFIG\n");
}

static void clusterFetchFailed(void) __attribute__((noreturn));
static void clusterFetchFailed(void) {
    if (cfg.socket) fprintf(stderr, "Failed to fetch cluster configuration from %s\n", cfg.socket);
    else fprintf(stderr, "Failed to fetch cluster configuration from %s:%d\n", cfg.host, cfg.port);
    exit(1);
}

/* --cluster: the primaries from the configured node's CLUSTER NODES, each
 * with its persistence settings for the report; Redis's lines and errors. */
static void fetchClusterConfig(void) {
    rcConn *c = connectAuthenticated(-1);
    rcReply *r = rcCommand(c, "CLUSTER", "NODES", NULL);
    if (!r) clusterFetchFailed();
    if (r->type == RC_REPLY_ERROR) {
        fprintf(stderr, "Cluster node %s replied with error:\n%s\n", rcConnAddr(c), r->str);
        clusterFetchFailed();
    }
    sds err = NULL;
    nmasters = benchClusterParse(r->str, r->len, &masters, &err);
    rcFreeReply(r);
    rcFree(c);
    if (nmasters < 0) {
        fprintf(stderr, "%s\n", err);
        clusterFetchFailed();
    }
    if (nmasters <= 1) {
        fprintf(stderr, "Invalid cluster: %d node(s).\n", nmasters);
        exit(1);
    }
    printf("Cluster has %d master nodes:\n\n", nmasters);
    for (int m = 0; m < nmasters; m++) {
        if (sdslen(masters[m].ip) == 0) masters[m].ip = sdscpy(masters[m].ip, cfg.host);
        printf("Master %d: %s %s:%d\n", m, masters[m].name, masters[m].ip, masters[m].port);
        fetchConfigOf(m, &masters[m].save, &masters[m].appendonly);
        if (!masters[m].save || !masters[m].appendonly)
            fprintf(stderr, "WARNING: Could not fetch node CONFIG %s:%d\n", masters[m].ip, masters[m].port);
    }
    printf("\n");
    fflush(stdout);
    if (cfg.threads == 0) cfg.threads = nmasters;
}

/* Descriptors one connection may hold: the socket; with --shm also the
 * segment and the wake-up end, plus its duplicate during the handshake
 * (rclient_shm.c closes it). */
#define BENCH_FDS_PER_CLIENT 1
#define BENCH_FDS_PER_SHM_CLIENT 4
#define BENCH_FDS_SPARE 128 /* stdio, the config connection, libraries */

/* One worker per --threads (one without). Every loop is sized for every
 * descriptor the process may use, since descriptors are process-wide and
 * the loop indexes its events by descriptor: with --shm a client holds up
 * to four ("Cannot watch a connection" at -c 50 when it was sized for one). */
static void createWorkers(void) {
    run.nworkers = cfg.threads > 0 ? cfg.threads : 1;
    run.workers = zcalloc(sizeof(benchWorker) * (size_t)run.nworkers);
    uint64_t seed = aeMonotonicUs() ^ ((uint64_t)getpid() << 32) ^ 0x9e3779b97f4a7c15ULL;
    for (int t = 0; t < run.nworkers; t++) {
        benchWorker *w = &run.workers[t];
        int per_client = cfg.shm ? BENCH_FDS_PER_SHM_CLIENT : BENCH_FDS_PER_CLIENT;
        w->el = aeCreateEventLoop((int)cfg.clients * per_client + BENCH_FDS_SPARE);
        if (w->el == NULL) fatal("Cannot create the event loop: %s", strerror(errno));
        w->rng = seed + 0x9e3779b97f4a7c15ULL * (uint64_t)(t + 1);
    }
}

static void freeWorkers(void) {
    for (int t = 0; t < run.nworkers; t++) aeDeleteEventLoop(run.workers[t].el);
    zfree(run.workers);
}

int main(int argc, char **argv) {
    signal(SIGPIPE, SIG_IGN);
    parseOptions(argc, argv);
    cfg.tty = isatty(STDOUT_FILENO);
    if (cfg.cluster) fetchClusterConfig();
    createWorkers();
    if (!cfg.cluster) fetchServerConfig();
    if (cfg.idle) idleMode();
    do {
        if (cfg.custom_argc > 0) runCustomCommand();
        else runDefaultTests();
    } while (cfg.loop);
    freeWorkers();
    sdsfree(cfg.tests);
    sdsfree(server_save);
    sdsfree(server_appendonly);
    benchClusterFree(masters, nmasters);
    return 0;
}
