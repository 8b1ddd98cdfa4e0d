/* snapshot.c -- persistence without fork(): a point-in-time RDB stream of
 * the dataset, written by the main thread in time slices of about 1 ms
 * between event-loop passes, while clients keep reading and writing.
 *
 * How the file stays exactly the dataset as of the start:
 * - Each database's table (kvtable) is walked bucket by bucket by a cursor:
 *   table 0, then table 1 when the table was rehashing at the start. While
 *   the snapshot runs, rehashing of these tables is paused, so a key that
 *   existed at the start stays in its bucket: "the cursor has passed the
 *   key's bucket" is the same as "the key has been written". A bucket is
 *   written whole within one slice.
 * - The write barrier (snapshotBeforeKeyWrite), called by db.c and
 *   expire.c before any key is looked up for writing, created, replaced,
 *   deleted or given/stripped of a TTL: when the key is still ahead of the
 *   cursor, its current value (the value at the start: nothing changed it
 *   yet) is written at once, and the key goes into the table's `done` set
 *   of keys the cursor must skip. A key that doesn't exist goes there too
 *   (whatever is created under that name is newer than the snapshot),
 *   unless it would be created in a bucket the cursor has passed.
 *   Everything that modifies a key reaches db.c (commands, expiry,
 *   eviction, MOVE, RENAME, COPY, RESTORE, scripts), so the barrier is in
 *   a few central functions there, not in commands.
 * - Whole-database changes: the state of a cursor is attached to the table,
 *   not to the database number, so SWAPDB (which swaps the tables between
 *   two databases) needs nothing; a flush of a database (FLUSHDB,
 *   emptyData) hands the table to the snapshot, which writes the rest and
 *   frees it at the end, and gives the database a new empty table. FLUSHALL
 *   and SHUTDOWN stop the snapshot (rdb.c), as they stop a fork child.
 * - Keys are written by a snapshotFormat (snapshot.h): the RDB format is
 *   rdb.c's own writer (rdbStream: the per-type value writer of rdb.c, so
 *   a new data type written there is written here too), the AOF rewrite's
 *   command base is aof_rewrite.c's. Each key carries its expire time; a
 *   key that expires while the snapshot runs is written before expiry
 *   deletes it.
 *
 * Memory: what the snapshot adds is the `done` sets (one sds per key
 * written by the barrier or created since the start) and the writer's
 * buffer. forkless-max-pending-memory caps it: past the cap the rest of the
 * dataset is written at once (one long pause) instead of letting it grow.
 * A single big value is written within one slice: INFO's
 * forkless_longest_slice_us says how long the longest slice took.
 *
 * The file is written with write() in the main thread (into the page
 * cache); fsyncs every 4 MB go to the background thread (bio), the last
 * one runs at the end, before the caller renames the file into place.
 * rdb-key-save-delay (tests) paces the cursor instead of sleeping: after a
 * bucket of n keys the next one waits n times the delay.
 */
#include <errno.h>

#include "snapshot.h"
#include "bio.h"
#include "dicttype.h"
#include "persistio.h"

#define SLICE_US 1000                       /* the time one slice may take */
#define FSYNC_EVERY_BYTES (4 * 1024 * 1024) /* a background fsync each time this much was written */
#define FLUSH_AT_BYTES (64 * 1024)          /* the writer's buffer goes to the file at this size */
#define DONE_ENTRY_OVERHEAD 48              /* dict entry + sds header, roughly, per key in a done set */

typedef struct tableCursor {
    kvtable *t;          /* the table as of the start (it may since have moved to another db: SWAPDB) */
    int dbid;            /* the database it was then: the SELECTDB written */
    int adopted;         /* a flush gave it to the snapshot: nobody else sees it any more */
    int table;           /* the cursor: table 0 or 1, bucket */
    unsigned long bucket;
    int walk_table1;     /* the table was rehashing at the start: table 1 holds keys to write */
    int finished;
    dict *done;          /* keys ahead of the cursor that it must skip */
    size_t done_bytes;   /* roughly what `done` takes */
} tableCursor;

static dictType doneSetType = {
    .hashFunction = dictSdsHash,
    .keyCompare = dictSdsKeyCompare,
    .keyDestructor = dictSdsDestructor,
};

static struct {
    int active;
    int fd;
    const snapshotFormat *fmt;
    void *out;                /* fmt's writer */
    tableCursor *cursors;     /* one per database, in database order */
    int ncursors;
    long long timer_id;
    snapshotDoneFn *done;
    void *privdata;
    size_t done_bytes;        /* what the done sets hold */
    size_t since_fsync;
    long long paced_until_us; /* rdb-key-save-delay: no bucket before this */
    long long start_us;
    long long keys_written, barrier_keys;
    /* INFO, across snapshots */
    long long snapshots, last_duration_us;
    size_t peak_bytes;        /* of the running or the last snapshot */
    long long longest_slice_us;
    long long cap_hits;
} snap = {.fd = -1, .timer_id = -1};

/* ---- writing ------------------------------------------------------------------------------- */

static size_t pendingBytes(void) { return snap.done_bytes + snap.fmt->buffered(snap.out); }

static void notePeak(void) {
    size_t now = pendingBytes();
    if (now > snap.peak_bytes) snap.peak_bytes = now;
}

static void flushOutput(void) {
    size_t n = snap.fmt->buffered(snap.out);
    if (n == 0) return;
    snap.fmt->flush(snap.out);
    snap.since_fsync += n;
    if (snap.since_fsync >= FSYNC_EVERY_BYTES) {
        bioSubmitFsync(snap.fd, persistio.fsync);
        snap.since_fsync = 0;
    }
}

static void writeKey(tableCursor *c, kvobj *o) {
    snap.fmt->key(snap.out, c->dbid, o);
    snap.keys_written++;
    notePeak();
    if (snap.fmt->buffered(snap.out) >= FLUSH_AT_BYTES) flushOutput();
}

static int isDone(tableCursor *c, kvobj *o) {
    if (dictSize(c->done) == 0) return 0;
    return dictFind(c->done, kvobjGetKey(o)) != NULL;
}

static void markDone(tableCursor *c, sds key) {
    if (dictAdd(c->done, sdsdup(key), NULL) != DICT_OK) return;
    c->done_bytes += sdslen(key) + DONE_ENTRY_OVERHEAD;
    snap.done_bytes += sdslen(key) + DONE_ENTRY_OVERHEAD;
}

static void finishCursor(tableCursor *c) {
    c->finished = 1;
    snap.done_bytes -= c->done_bytes;
    c->done_bytes = 0;
    dictEmpty(c->done, NULL);
}

/* Writes the cursor's current bucket and moves past it: 0 when there is
 * nothing left to write in this table. Returns the keys written in *n. */
static int cursorStep(tableCursor *c, int *n) {
    *n = 0;
    if (c->finished) return 0;
    kvtable *t = c->t;
    if (c->bucket >= KVTABLE_SIZE(t->sizeExp[c->table])) {
        if (c->table == 0 && c->walk_table1) {
            c->table = 1;
            c->bucket = 0;
            return 1;
        }
        finishCursor(c);
        return 0;
    }
    for (kvobj *o = t->buckets[c->table][c->bucket]; o; o = kvobjGetNext(o)) {
        if (isDone(c, o)) continue;
        writeKey(c, o);
        (*n)++;
    }
    c->bucket++;
    return 1;
}

/* One bucket of the first table with something left; 0 when all are done. */
static int advance(int *n) {
    for (int j = 0; j < snap.ncursors; j++)
        if (cursorStep(&snap.cursors[j], n)) return 1;
    return 0;
}

/* ---- the barrier ---------------------------------------------------------------------------- */

static tableCursor *cursorOf(kvtable *t) {
    for (int j = 0; j < snap.ncursors; j++)
        if (snap.cursors[j].t == t && !snap.cursors[j].adopted) return &snap.cursors[j];
    return NULL;
}

/* Has the cursor passed o's bucket? o is found by pointer in the bucket
 * its hash selects in either table (rehashing is paused: it is where it
 * was at the start). A key in neither is newer than the snapshot. */
static int keyPassed(tableCursor *c, kvobj *o) {
    kvtable *t = c->t;
    sds key = kvobjGetKey(o);
    uint64_t hash = kvtableHashKey(key, sdslen(key));
    for (int i = 0; i <= 1; i++) {
        if (t->sizeExp[i] == -1) continue;
        unsigned long idx = hash & (KVTABLE_SIZE(t->sizeExp[i]) - 1);
        for (kvobj *e = t->buckets[i][idx]; e; e = kvobjGetNext(e))
            if (e == o) return i < c->table || (i == c->table && idx < c->bucket) || (i == 1 && !c->walk_table1);
    }
    return 1;
}

/* Will a key created now land in a bucket the cursor has passed? It goes
 * to table 1 while the table is rehashing (a table 1 made since the start
 * is never walked), else to table 0; an unallocated table 0 is allocated
 * by the insertion, at a size the cursor has not seen. */
static int newKeyPassed(tableCursor *c, sds key) {
    kvtable *t = c->t;
    int i = kvtableIsRehashing(t) ? 1 : 0;
    if (i == 1 && !c->walk_table1) return 1;
    if (t->sizeExp[i] == -1) return 0;
    unsigned long idx = kvtableHashKey(key, sdslen(key)) & (KVTABLE_SIZE(t->sizeExp[i]) - 1);
    return i < c->table || (i == c->table && idx < c->bucket);
}

static void writeEverythingNow(void) {
    int n;
    while (advance(&n)) {}
    flushOutput();
}

void snapshotBeforeKeyWrite(redisDb *db, sds key) {
    if (!snap.active) return;
    tableCursor *c = cursorOf(db->keys);
    if (c == NULL || c->finished) return;
    if (dictSize(c->done) && dictFind(c->done, key)) return;
    kvobj *o = kvtableFind(c->t, key, sdslen(key));
    if (o ? keyPassed(c, o) : newKeyPassed(c, key)) return;
    if (o) {
        writeKey(c, o);
        snap.barrier_keys++;
    }
    markDone(c, key);
    notePeak();
    if (server.forkless_max_pending_memory && pendingBytes() > server.forkless_max_pending_memory) {
        serverLog(LL_WARNING, "Forkless snapshot: pending memory over forkless-max-pending-memory (%zu bytes): "
                              "writing the rest of the dataset at once", pendingBytes());
        snap.cap_hits++;
        writeEverythingNow(); /* the timer completes it at its next tick */
    }
}

void snapshotBeforeEmpty(redisDb *db) {
    if (!snap.active) return;
    tableCursor *c = cursorOf(db->keys);
    if (c == NULL) return;
    if (c->finished) return;
    c->adopted = 1;
    db->keys = kvtableCreate(c->t->type);
}

/* ---- the RDB format: rdb.c's writer ---------------------------------------------------------- */

static void *rdbOpen(int fd, int aof_base) { return rdbStreamOpen(fd, aof_base); }
static void rdbKey(void *w, int dbid, kvobj *o) { rdbStreamKey(w, dbid, o); }
static size_t rdbBuffered(const void *w) { return rdbStreamBuffered(w); }
static void rdbFlush(void *w) { rdbStreamFlush(w); }
static int rdbFailed(const void *w) { return rdbStreamFailed(w); }
static int rdbClose(void *w, int finish) { return rdbStreamClose(w, finish); }

const snapshotFormat snapshotRdbFormat = {rdbOpen, rdbKey, rdbBuffered, rdbFlush, rdbFailed, rdbClose};

/* ---- start, slices, end ---------------------------------------------------------------------- */

static void releaseCursors(void) {
    for (int j = 0; j < snap.ncursors; j++) {
        tableCursor *c = &snap.cursors[j];
        dictRelease(c->done);
        if (c->adopted) kvtableRelease(c->t);
        else if (c->t->pauserehash > 0) kvtableResumeRehashing(c->t);
    }
    zfree(snap.cursors);
    snap.cursors = NULL;
    snap.ncursors = 0;
    snap.done_bytes = 0;
}

static void stop(void) {
    if (snap.timer_id != -1) aeDeleteTimeEvent(server.el, snap.timer_id);
    snap.timer_id = -1;
    releaseCursors();
    snap.active = 0;
    snap.last_duration_us = ustime() - snap.start_us;
}

/* Everything is written: trailer, last fsync, close, the caller's turn. */
static void complete(int ok) {
    ok = snap.fmt->close(snap.out, ok) == C_OK && ok;
    snap.out = NULL;
    if (ok && persistio.fsync(snap.fd) == -1) {
        serverLog(LL_WARNING, "Forkless snapshot: fsync failed: %s", strerror(errno));
        ok = 0;
    }
    bioSubmitClose(snap.fd); /* after the background fsyncs queued on it */
    snap.fd = -1;
    stop();
    serverLog(LL_NOTICE, "Forkless snapshot %s: %lld keys (%lld by the write barrier) in %lld ms, longest slice %lld us",
              ok ? "done" : "failed", snap.keys_written, snap.barrier_keys, snap.last_duration_us / 1000,
              snap.longest_slice_us);
    snap.done(ok, snap.privdata);
}

/* rdb-key-save-delay: the delay per key in microseconds, 0 for none. */
static long long keyDelayUs(void) { return server.rdb_key_save_delay > 0 ? server.rdb_key_save_delay : 0; }

static int sliceProc(struct aeEventLoop *el, long long id, void *data) {
    (void)el, (void)id, (void)data;
    long long start = ustime(), now = start;
    int more = 1, n;
    while (more && now - start < SLICE_US && !snap.fmt->failed(snap.out)) {
        if (keyDelayUs() && now < snap.paced_until_us) break;
        more = advance(&n);
        now = ustime();
        if (n && keyDelayUs()) snap.paced_until_us += n * keyDelayUs(); /* on average one key per delay */
    }
    if (now - start > snap.longest_slice_us) snap.longest_slice_us = now - start;
    if (snap.fmt->failed(snap.out)) {
        serverLog(LL_WARNING, "Forkless snapshot: write error: %s", strerror(errno));
        snap.timer_id = -1; /* AE_NOMORE deletes it */
        complete(0);
        return AE_NOMORE;
    }
    if (!more) {
        flushOutput();
        snap.timer_id = -1; /* AE_NOMORE deletes it */
        complete(!snap.fmt->failed(snap.out));
        return AE_NOMORE;
    }
    return keyDelayUs() ? 1 : 0; /* 0: again at the next event-loop pass */
}

void snapshotStart(int fd, const snapshotFormat *format, int aof_base, snapshotDoneFn *done, void *privdata) {
    serverAssert(!snap.active);
    snap.active = 1;
    snap.fd = fd;
    snap.fmt = format;
    snap.out = format->open(fd, aof_base);
    snap.done = done;
    snap.privdata = privdata;
    snap.ncursors = server.dbnum;
    snap.cursors = zcalloc(sizeof(tableCursor) * (size_t)server.dbnum);
    for (int j = 0; j < server.dbnum; j++) {
        tableCursor *c = &snap.cursors[j];
        c->t = server.db[j].keys;
        c->dbid = j;
        c->walk_table1 = kvtableIsRehashing(c->t);
        c->done = dictCreate(&doneSetType);
        kvtablePauseRehashing(c->t);
    }
    snap.done_bytes = snap.since_fsync = 0;
    snap.keys_written = snap.barrier_keys = 0;
    snap.peak_bytes = 0;
    snap.longest_slice_us = 0;
    snap.start_us = ustime();
    snap.paced_until_us = snap.start_us;
    snap.snapshots++;
    snap.timer_id = aeCreateTimeEvent(server.el, 0, sliceProc, NULL, NULL);
    if (snap.timer_id == AE_ERR) serverPanic("Can't create the forkless snapshot timer");
}

int snapshotInProgress(void) { return snap.active; }

void snapshotAbort(void) {
    if (!snap.active) return;
    snap.fmt->close(snap.out, 0);
    snap.out = NULL;
    close(snap.fd);
    snap.fd = -1;
    stop();
    serverLog(LL_NOTICE, "Forkless snapshot stopped after %lld keys", snap.keys_written);
}

/* ---- mode, fork, INFO ---------------------------------------------------------------------- */

int snapshotForklessWanted(void) {
#if HAVE_FORK
    return server.persistence_mode == PERSISTENCE_MODE_FORKLESS;
#else
    return 1;
#endif
}

pid_t snapshotFork(void) {
#if HAVE_FORK
    return fork();
#else
    errno = ENOSYS;
    return -1;
#endif
}

int snapshotForkFailedFallback(int err, const char *what) {
    if (err != ENOSYS && err != EPERM && err != ENOMEM) return 0;
    serverLog(LL_WARNING, "Can't fork for the %s (%s): taking a forkless snapshot instead", what, strerror(err));
    return 1;
}

sds snapshotInfoString(sds info) {
    return sdscatprintf(info,
                        "persistence_mode:%s\r\n"
                        "forkless_snapshot_in_progress:%d\r\n"
                        "forkless_snapshots:%lld\r\n"
                        "forkless_snapshot_keys_written:%lld\r\n"
                        "forkless_snapshot_barrier_keys:%lld\r\n"
                        "forkless_snapshot_pending_bytes:%zu\r\n"
                        "forkless_snapshot_peak_bytes:%zu\r\n"
                        "forkless_longest_slice_us:%lld\r\n"
                        "forkless_last_snapshot_time_ms:%lld\r\n"
                        "forkless_pending_cap_hits:%lld\r\n",
                        snapshotForklessWanted() ? "forkless" : "fork", snap.active, snap.snapshots,
                        snap.keys_written, snap.barrier_keys, snap.active ? pendingBytes() : (size_t)0,
                        snap.peak_bytes, snap.longest_slice_us, snap.last_duration_us / 1000, snap.cap_hits);
}
