/* snapshot.c -- persistence without fork(): a point-in-time RDB stream (or
 * AOF rewrite base) of the dataset, built by the main thread in slices of
 * about 1 ms between event-loop passes while clients keep reading and
 * writing, and written to disk by a thread of this file.
 *
 * Why: a fork child may need as much memory again as the dataset, and some
 * platforms have no usable fork(). `persistence-mode forkless`, a build
 * with HAVE_FORK=0 and a failed fork() use this for BGSAVE, the save
 * points, BGREWRITEAOF and a replica's full sync (rdb.c, aof_rewrite.c,
 * replication.c call snapshotStart()).
 *
 * How the file stays the dataset as of the start:
 * - Each database's table is walked bucket by bucket by a kvtable cursor
 *   (kvtable.h), which pauses the table's rehashing: a key present at the
 *   start stays in its bucket, so "the cursor has passed the key" is "the
 *   key has been written".
 * - A write barrier (snapshotBeforeKeyWrite), called by db.c and expire.c
 *   before any key changes, writes a key still ahead of the cursor at once,
 *   with the value it had at the start, and puts it in the table's `done`
 *   set for the cursor to skip.
 * - Nothing is copied on write. What the snapshot holds -- the done sets,
 *   the format's buffer, the bytes queued for the writer thread -- is
 *   capped by forkless-max-pending-memory.
 *
 * The file: the writer thread; writing and the done sets; big values,
 * written in parts; the cursor and the barrier; the formats; slices, start
 * and end. Each decision is described next to the code it concerns.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/resource.h>
#include <time.h>
#if defined(__linux__) && !defined(RUSAGE_THREAD)
#define RUSAGE_THREAD 1
#endif

#include "snapshot.h"
#include "aof.h"
#include "dicttype.h"
#include "listpack.h"
#include "persistio.h"
#include "quicklist.h"
#include "zset_skiplist.h"

#define SLICE_US 1000                       /* the time one slice may take */
#define FLUSH_AT_BYTES (64 * 1024)          /* the format's bytes go to the writer thread at this size */
#define DONE_ENTRY_OVERHEAD 48              /* dict entry + sds header, roughly, per key in a done set */
#define DONE_FREED_PER_STEP 256             /* done-set entries freed between two looks at the clock, at the end */
#define QUEUE_LIMIT_BYTES (16 * 1024 * 1024) /* slices wait while the writer thread has more than this queued */
#define BIG_VALUE_ELEMENTS 1024             /* a collection with more elements is written in parts */
#define ELEMENTS_PER_CLOCK_CHECK 64         /* elements of a big value written between two looks at the clock */

typedef struct tableCursor {
    kvtable *t;          /* the table as of the start (it may since have moved to another db: SWAPDB) */
    int dbid;            /* the database it was then: the SELECTDB written */
    int adopted;         /* a flush gave it to the snapshot: nobody else sees it any more */
    kvtableCursor walk;  /* where the cursor is in t (kvtable.h: its ordering guarantees) */
    int finished;
    dict *done;          /* keys ahead of the cursor that it must skip */
    size_t done_bytes;   /* roughly what `done` takes */
} tableCursor;

/* The big value being written in parts: its head is written, `left`
 * elements are still to come, and no write has reached it (the barrier
 * writes the rest first). Between slices it is only read, so the walk
 * stays valid: a dict's safe iterator (which also pauses its rehashing),
 * or the next quicklist node.
 *
 * A set, hash or sorted set in a dict, or a list in a quicklist, with more
 * than BIG_VALUE_ELEMENTS elements is written ELEMENTS_PER_CLOCK_CHECK
 * elements (or one list node) at a time, over as many slices as it takes:
 * its head (key, expire, count) first, the elements as the slices come. The
 * key is marked done when it starts. The barrier, before a write to it,
 * writes the rest at once (INFO forkless_longest_barrier_us says how long
 * that took); a key the barrier writes meanwhile is held by the format and
 * follows the big value in the file. A big value ahead of the cursor that a
 * write reaches is written whole by the barrier, in parts too so its bytes
 * go out 64 KB at a time. Strings and streams are written whole. */
typedef struct bigValue {
    tableCursor *c;      /* NULL: none open */
    kvobj *o;
    dictIterator *it;    /* set, hash, sorted set */
    quicklistNode *node; /* list */
    unsigned long left;
} bigValue;

static dictType doneSetType = {
    .hashFunction = dictSdsHash,
    .keyCompare = dictSdsKeyCompare,
    .keyDestructor = dictSdsDestructor,
};

/* The writer thread: chunks of the file, in order, written and fsynced
 * (every 4 MB with rdb-save- / aof-rewrite-incremental-fsync, and at the
 * end) through persistio, off the main thread: serialization of live data
 * stays on the thread that owns it, only the bytes cross. With
 * snapshotRenameWhenDone (BGSAVE) the thread also moves the file into place
 * and fsyncs its directory, as a fork child does. It runs on a fork child's
 * CPUs (bgsave_cpulist: cpuaffinity.c) but keeps the server's priority: a
 * niced writer measured longer slices and more pending bytes, since the
 * main thread must then wait for it at the cap.
 *
 * The main thread never waits for it inside a slice or a barrier (but for
 * the cap: below). It stages chunks on a list of its own and hands them
 * over with a trylock, once per event-loop pass (writerPoll, at the top of
 * each slice) and not in the middle of a slice: waking the thread there
 * let it preempt the slice on a shared core (it had slept, so the
 * scheduler favours it), which made a 1 ms slice take 1.5-2 ms of wall
 * time. A busy lock (the thread holds it for a few list operations, but
 * may be descheduled meanwhile) only means the hand-over waits for the
 * next pass. What the thread has written, failed or finished is read at
 * the same moment, so the main thread's view of the queue may be a pass
 * late, never early. */
typedef struct chunk {
    sds bytes;
    struct chunk *next;
    int last;                 /* fsync after it, then the thread ends */
} chunk;

static struct {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t cond;      /* a chunk came, or one was written */
    /* shared, under the lock */
    chunk *head, *tail;       /* handed over, not written yet */
    size_t written;           /* bytes written (or dropped after a failure) */
    int failed, err;          /* the first error, and its errno */
    int finished;             /* the last chunk is written and fsynced (or failed) */
    char *rename_from, *rename_to; /* snapshotRenameWhenDone: moved into place by the thread */
    int rename_failed;
    long long cpu_us;         /* the thread's CPU time, set as it ends */
    /* set before the thread starts */
    int fd;
    int incremental_fsync;
    char cpulist[128];        /* bgsave_cpulist when the snapshot started */
    /* the main thread's own */
    chunk *staged_head, *staged_tail; /* built, not handed over yet */
    size_t pushed;            /* bytes built so far */
    size_t written_seen;      /* `written`, `failed`, `finished` as of the last hand-over */
    int failed_seen, finished_seen;
} writer = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER, .fd = -1};

/* What a slice used, or the sum over slices (usageRead). */
typedef struct sliceUsage {
    long long wall_us, cpu_us, run_delay_us;
    long long minflt, majflt, vol_switches, invol_switches;
} sliceUsage;

static struct {
    int active;
    int finishing;            /* everything is handed to the writer thread: waiting for it */
    int in_slice;             /* sliceProc is running: nothing may wait for the writer thread */
    dictIterator *free_it;    /* freeDoneSets: the walk of done set free_j */
    int free_j;
    int fd;
    const snapshotFormat *fmt;
    void *out;                /* fmt's writer */
    tableCursor *cursors;     /* one per database, in database order */
    int ncursors;
    long long timer_id;
    snapshotDoneFn *done;
    void *privdata;
    size_t done_bytes;        /* what the done sets hold */
    long long paced_until_us; /* rdb-key-save-delay: no bucket before this */
    long long slice_end_us, slice_len_us, commands_at_slice_end; /* the last slice, for clientsNeedTheTime */
    long long start_us;
    long long keys_written, barrier_keys;
    long long keys_total;           /* keys in the dataset at the start (INFO progress) */
    bigValue big;
    long long big_values;     /* written in parts */
    long long big_barrier;    /* of which the barrier finished at once */
    /* INFO, across snapshots */
    long long snapshots, last_duration_us;
    size_t peak_bytes;        /* of the running or the last snapshot */
    long long longest_slice_us;
    long long longest_slice_cpu_us; /* the same in CPU time: a slice the scheduler paused shows here as short */
    long long longest_barrier_us;   /* the longest write barrier: a big value's rest, or everything at the cap */
    long long cap_hits;
    long long slices;         /* of the running or the last snapshot; and what they used: */
    sliceUsage slices_usage, longest_slice_usage;
    long long writer_cpu_us;  /* the last snapshot's writer thread */
    int schedstat_fd;         /* the main thread's /proc/thread-self/schedstat while a snapshot runs */
} snap = {.fd = -1, .timer_id = -1, .schedstat_fd = -1};

static long long threadCpuUs(void);

static void writeChunk(chunk *ch, size_t *since_fsync) {
    size_t len = sdslen(ch->bytes);
    int fail = 0;
    if (len && persistWriteFully(writer.fd, ch->bytes, len, NULL) != (ssize_t)len) fail = 1;
    else if (persistIncrementalFsync(writer.fd, since_fsync, len, writer.incremental_fsync) == -1) fail = 1;
    else if (ch->last && persistio.fsync(writer.fd) == -1) fail = 1;
    if (fail) {
        pthread_mutex_lock(&writer.lock);
        if (!writer.failed) writer.err = errno;
        writer.failed = 1;
        pthread_mutex_unlock(&writer.lock);
    }
}

/* After the last chunk: the file into place, and its directory fsynced
 * (both can take milliseconds the event loop would otherwise wait for). */
static void renameIntoPlace(void) {
    pthread_mutex_lock(&writer.lock);
    int go = !writer.failed && writer.rename_from != NULL;
    pthread_mutex_unlock(&writer.lock);
    if (!go) return;
    if (persistio.rename(writer.rename_from, writer.rename_to) == -1) {
        pthread_mutex_lock(&writer.lock);
        writer.err = errno;
        writer.failed = writer.rename_failed = 1;
        pthread_mutex_unlock(&writer.lock);
        return;
    }
    char *slash = strrchr(writer.rename_to, '/');
    sds dir = slash ? sdsnewlen(writer.rename_to, (size_t)(slash - writer.rename_to + 1)) : sdsnew(".");
    persistFsyncDir(dir);
    sdsfree(dir);
}

static void *writerMain(void *arg) {
    (void)arg;
    watchdogBlockInThisThread();
    cpuAffinitySnapshotThread(writer.cpulist, "snapshot_writer");
    size_t since_fsync = 0;
    for (;;) {
        pthread_mutex_lock(&writer.lock);
        while (writer.head == NULL) pthread_cond_wait(&writer.cond, &writer.lock);
        chunk *ch = writer.head;
        writer.head = ch->next;
        if (writer.head == NULL) writer.tail = NULL;
        int failed = writer.failed;
        pthread_mutex_unlock(&writer.lock);
        if (!failed) writeChunk(ch, &since_fsync); /* after a failure the rest is only dropped */
        if (ch->last) renameIntoPlace();
        pthread_mutex_lock(&writer.lock);
        writer.written += sdslen(ch->bytes);
        int last = ch->last;
        if (last) writer.finished = 1;
        pthread_cond_broadcast(&writer.cond);
        pthread_mutex_unlock(&writer.lock);
        sdsfree(ch->bytes);
        zfree(ch);
        if (last) {
            writer.cpu_us = threadCpuUs(); /* read after the join */
            return NULL;
        }
    }
}

static void writerForgetRename(void) {
    zfree(writer.rename_from);
    zfree(writer.rename_to);
    writer.rename_from = writer.rename_to = NULL;
    writer.rename_failed = 0;
}

static void writerStart(int fd, int incremental_fsync) {
    writer.fd = fd;
    writer.incremental_fsync = incremental_fsync;
    writer.failed = writer.err = writer.finished = 0;
    writerForgetRename();
    writer.head = writer.tail = writer.staged_head = writer.staged_tail = NULL;
    writer.written = writer.pushed = writer.written_seen = 0;
    writer.failed_seen = writer.finished_seen = 0;
    writer.cpu_us = 0;
    snprintf(writer.cpulist, sizeof writer.cpulist, "%s", server.bgsave_cpulist ? server.bgsave_cpulist : "");
    if (pthread_create(&writer.thread, NULL, writerMain, NULL) != 0) serverPanic("Can't start the forkless snapshot writer");
}

/* Stages a chunk: the thread gets it at the next hand-over. */
static void writerPush(sds bytes, int last) {
    chunk *ch = zmalloc(sizeof(*ch));
    ch->bytes = bytes;
    ch->next = NULL;
    ch->last = last;
    if (writer.staged_tail) writer.staged_tail->next = ch;
    else writer.staged_head = ch;
    writer.staged_tail = ch;
    writer.pushed += sdslen(bytes);
}

/* Under the lock: the staged chunks go to the thread (woken if there were
 * any), and its progress is read. */
static void handOverLocked(void) {
    if (writer.staged_head) {
        if (writer.tail) writer.tail->next = writer.staged_head;
        else writer.head = writer.staged_head;
        writer.tail = writer.staged_tail;
        writer.staged_head = writer.staged_tail = NULL;
        pthread_cond_signal(&writer.cond);
    }
    writer.written_seen = writer.written;
    writer.failed_seen = writer.failed;
    writer.finished_seen = writer.finished;
}

/* The hand-over, unless the thread holds the lock right now: then at the
 * next call. Never waits. */
static void writerPoll(void) {
    if (pthread_mutex_trylock(&writer.lock) != 0) return;
    handOverLocked();
    pthread_mutex_unlock(&writer.lock);
}

/* Bytes built and not written yet, as of the last hand-over (never less
 * than what is really waiting). */
static size_t writerQueued(void) { return writer.pushed - writer.written_seen; }

static int writerFailed(void) { return writer.failed_seen; }

static int writerFinished(void) { return writer.finished_seen; }

/* The cap's long pause (not a slice's): hands everything over and waits
 * until the thread has no more than `bytes` queued. */
static void writerWaitBelow(size_t bytes) {
    pthread_mutex_lock(&writer.lock);
    handOverLocked();
    while (writer.pushed - writer.written > bytes && !writer.failed) pthread_cond_wait(&writer.cond, &writer.lock);
    handOverLocked();
    pthread_mutex_unlock(&writer.lock);
}

/* The hand-over, waiting for the lock if need be (abort, stop). */
static void writerHandOver(void) {
    pthread_mutex_lock(&writer.lock);
    handOverLocked();
    pthread_mutex_unlock(&writer.lock);
}

/* Ends the thread: `tail` (may be an empty sds) is the last chunk. Waits
 * for it. */
static void writerStop(sds tail) {
    writerPush(tail, 1);
    writerHandOver();
    pthread_join(writer.thread, NULL);
}

/* ---- writing ------------------------------------------------------------------------------- */

/* What the snapshot holds: the done sets (one sds per key ahead of the
 * cursor that the barrier wrote or that was created since the start; an
 * entry goes when the cursor passes its key), the format's buffer and the
 * bytes queued for the writer thread. Past forkless-max-pending-memory the
 * barrier writes the rest of the dataset at once (one long pause) instead of
 * letting it grow; while the thread has more than sliceQueueLimit() queued,
 * slices wait for the next passes. Nothing else is kept: tables may resize
 * and lookups may update access times while the snapshot runs
 * (snapshotForkChildExists: only a fork child makes them hold back). */
static size_t pendingBytes(void) {
    return snap.done_bytes + (snap.out ? snap.fmt->buffered(snap.out) : 0) + writerQueued();
}

static void notePeak(void) {
    size_t now = pendingBytes();
    if (now > snap.peak_bytes) snap.peak_bytes = now;
}

/* Stages the format's bytes for the writer thread. A barrier outside a
 * slice, past the cap, waits for the disk rather than let the queue grow
 * (a slice instead stops early and the next ones wait: sliceProc). */
static void flushOutput(void) {
    if (snap.fmt->buffered(snap.out) == 0) return;
    writerPush(snap.fmt->take(snap.out), 0);
    size_t cap = server.forkless_max_pending_memory;
    if (!snap.in_slice && cap && writerQueued() > cap) writerWaitBelow(cap / 2);
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

/* The cursor is passing o's bucket: if o is in the done set, it is skipped
 * and its entry is no longer needed (keys never leave their bucket while the
 * snapshot runs, and the barrier doesn't look at the set for a bucket the
 * cursor has passed). Keeps the set to the keys still ahead. 1 if it was. */
static int passDone(tableCursor *c, kvobj *o) {
    if (dictSize(c->done) == 0) return 0;
    sds key = kvobjGetKey(o);
    if (dictDelete(c->done, key) != DICT_OK) return 0;
    c->done_bytes -= sdslen(key) + DONE_ENTRY_OVERHEAD;
    snap.done_bytes -= sdslen(key) + DONE_ENTRY_OVERHEAD;
    return 1;
}

/* The done set is freed later, a bounded part per slice (freeDoneSets):
 * freeing 100k keys at once would be a 10 ms pause. */
static void finishCursor(tableCursor *c) { c->finished = 1; }

/* Frees up to `max` entries of the (finished) done sets: 1 while some are
 * left. One safe iterator walks each set across calls (deleting the entry
 * it returned is allowed), so every bucket is looked at once in all:
 * starting a walk at bucket 0 on each call would scan the emptied front
 * of a big set again and again. */
static int freeDoneSets(int max) {
    while (max > 0 && snap.free_j < snap.ncursors) {
        tableCursor *c = &snap.cursors[snap.free_j];
        if (snap.free_it == NULL) snap.free_it = dictGetSafeIterator(c->done);
        dictEntry *de = dictNext(snap.free_it);
        if (de == NULL) {
            dictReleaseIterator(snap.free_it);
            snap.free_it = NULL;
            snap.free_j++;
            continue;
        }
        size_t bytes = sdslen(dictGetKey(de)) + DONE_ENTRY_OVERHEAD;
        dictDelete(c->done, dictGetKey(de));
        c->done_bytes -= bytes;
        snap.done_bytes -= bytes;
        max--;
    }
    return snap.free_j < snap.ncursors;
}

static void freeDoneSetsStop(void) {
    if (snap.free_it) dictReleaseIterator(snap.free_it);
    snap.free_it = NULL;
    snap.free_j = 0;
}

/* ---- big values, in parts ------------------------------------------------------------------- */

/* A collection too big for a slice, in an encoding that can be walked a
 * part at a time (a listpack or intset is small by its limits and goes
 * whole; so do strings and streams), when the format can write parts. */
static int writtenInParts(kvobj *o) {
    if (snap.fmt->keyHead == NULL) return 0;
    switch (o->type) {
    case OBJ_SET: return o->encoding == OBJ_ENCODING_HT && setTypeSize(o) > BIG_VALUE_ELEMENTS;
    case OBJ_HASH: return o->encoding == OBJ_ENCODING_HT && hashTypeLength(o) > BIG_VALUE_ELEMENTS;
    case OBJ_ZSET: return o->encoding == OBJ_ENCODING_SKIPLIST && zsetLength(o) > BIG_VALUE_ELEMENTS;
    case OBJ_LIST: return o->encoding == OBJ_ENCODING_QUICKLIST && listTypeLength(o) > BIG_VALUE_ELEMENTS;
    default: return 0;
    }
}

static void bigBegin(tableCursor *c, kvobj *o) {
    bigValue *b = &snap.big;
    b->c = c;
    b->o = o;
    snap.fmt->keyHead(snap.out, c->dbid, o);
    if (o->type == OBJ_LIST) b->node = ((quicklist *)o->ptr)->head;
    else b->it = dictGetSafeIterator(o->type == OBJ_ZSET ? zsetDictOf(o) : o->ptr);
    snap.big_values++;
}

static void elemOfSds(sds s, elemRef *e) {
    e->s = (const unsigned char *)s;
    e->len = sdslen(s);
    e->ll = 0;
}

/* The next entry of a set, hash or sorted set: 0 when there is none. */
static int bigDictStep(bigValue *b) {
    dictEntry *de = dictNext(b->it);
    if (de == NULL) return 0;
    elemRef e;
    elemOfSds(dictGetKey(de), &e);
    if (b->o->type == OBJ_ZSET) {
        snap.fmt->scored(snap.out, &e, ((zskiplistNode *)dictGetVal(de))->score);
        return 1;
    }
    snap.fmt->elem(snap.out, &e);
    if (b->o->type == OBJ_HASH) {
        elemOfSds(dictGetVal(de), &e);
        snap.fmt->elem(snap.out, &e);
    }
    return 1;
}

typedef struct listWalk {
    bigValue *b;
    long budget; /* elements */
} listWalk;

/* quicklistVisitNodes' visitor: one node (decompressed for the call, if
 * it was compressed), whole. */
static int writeListNode(const unsigned char *data, size_t sz, int container, void *ud) {
    listWalk *lw = ud;
    elemRef e = {.s = data, .len = sz};
    if (container == QUICKLIST_NODE_CONTAINER_PLAIN) {
        snap.fmt->elem(snap.out, &e);
        lw->budget--;
    } else {
        unsigned char *lp = (unsigned char *)data;
        for (unsigned char *p = lpFirst(lp); p; p = lpNext(lp, p), lw->budget--) {
            e.s = lpGetValue(p, &e.len, &e.ll);
            snap.fmt->elem(snap.out, &e);
        }
    }
    lw->b->node = lw->b->node->next;
    return lw->budget > 0;
}

/* Nodes of a list from b->node on, until about `budget` elements are
 * written: a view of the list that starts at that node. */
static int bigListStep(bigValue *b, long budget) {
    quicklist view = *(quicklist *)b->o->ptr;
    view.head = b->node;
    listWalk lw = {b, budget};
    if (b->node) quicklistVisitNodes(&view, writeListNode, &lw);
    return b->node != NULL;
}

/* Writes about n more elements of the big value (LONG_MAX: all); 1 when
 * it is complete. */
static int bigContinue(long n) {
    bigValue *b = &snap.big;
    if (b->o->type == OBJ_LIST) return !bigListStep(b, n);
    while (n-- > 0)
        if (!bigDictStep(b)) return 1;
    return 0;
}

static void bigRelease(void) {
    if (snap.big.it) dictReleaseIterator(snap.big.it);
    memset(&snap.big, 0, sizeof(snap.big));
}

static void bigEnd(void) {
    bigRelease();
    snap.fmt->keyEnd(snap.out);
    snap.keys_written++;
    notePeak();
    if (snap.fmt->buffered(snap.out) >= FLUSH_AT_BYTES) flushOutput();
}

static void noteBarrier(long long start_us) {
    long long took = ustime() - start_us;
    LATENCY_SAMPLE("forkless-barrier", took / 1000);
    if (took > snap.longest_barrier_us) snap.longest_barrier_us = took;
}

/* The barrier's case: the rest of the big value, now. */
static void bigFinishNow(void) {
    long long start = ustime();
    snap.big_barrier++;
    while (!bigContinue(ELEMENTS_PER_CLOCK_CHECK * 16))
        if (snap.fmt->buffered(snap.out) >= FLUSH_AT_BYTES) flushOutput();
    bigEnd();
    noteBarrier(start);
}

/* The first big value of the chain not written yet, or NULL. */
static kvobj *bigValueIn(tableCursor *c, kvobj *chain) {
    for (kvobj *o = chain; o; o = kvobjGetNext(o))
        if (writtenInParts(o) && !isDone(c, o)) return o;
    return NULL;
}

/* Writes the cursor's current bucket and moves past it: 0 when there is
 * nothing left to write in this table. Returns the keys written in *n.
 * A big value in the bucket is started instead (and marked done): the
 * bucket is taken again once it is complete. */
static int cursorStep(tableCursor *c, int *n) {
    *n = 0;
    if (c->finished) return 0;
    kvobj *chain;
    if (!kvtableCursorBucket(c->t, &c->walk, &chain)) {
        finishCursor(c);
        return 0;
    }
    kvobj *big = bigValueIn(c, chain);
    if (big) {
        markDone(c, kvobjGetKey(big));
        bigBegin(c, big);
        *n = 1;
        return 1;
    }
    for (kvobj *o = chain; o; o = kvobjGetNext(o)) {
        if (passDone(c, o)) continue;
        writeKey(c, o);
        (*n)++;
    }
    kvtableCursorNext(&c->walk);
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

/* Has the cursor passed o's bucket (so o is written, or newer than the
 * snapshot)? */
static int keyPassed(tableCursor *c, kvobj *o) { return kvtableCursorPassed(c->t, &c->walk, o); }

/* Will a key created now land in a bucket the cursor has passed? When the
 * answer is no, the barrier marks the key done, so the cursor skips
 * whatever is created under that name. */
static int newKeyPassed(tableCursor *c, sds key) {
    return kvtableCursorPassedNewKey(c->t, &c->walk, key, sdslen(key));
}

/* One step: some elements of the open big value, or the next bucket. 0
 * when everything is written. */
static int step(int *n) {
    if (snap.big.c == NULL) return advance(n);
    if (bigContinue(ELEMENTS_PER_CLOCK_CHECK)) bigEnd();
    else if (snap.fmt->buffered(snap.out) >= FLUSH_AT_BYTES) flushOutput(); /* a big value's bytes go out as they come */
    *n = 1; /* rdb-key-save-delay paces the parts as keys */
    return 1;
}

static void writeEverythingNow(void) {
    int n;
    while (step(&n)) {}
    flushOutput();
}

/* The barrier: db.c and expire.c call it before any key is looked up for
 * writing, created, replaced, deleted or given/stripped of a TTL. When the
 * key is still ahead of the cursor, its current value (the value at the
 * start: nothing changed it yet) is written at once, and the key goes into
 * the done set. A key that doesn't exist goes there too (whatever is
 * created under that name is newer than the snapshot), unless it would be
 * created in a bucket the cursor has passed. Everything that modifies a key
 * reaches db.c (commands, expiry, eviction, MOVE, RENAME, COPY, RESTORE,
 * scripts), so the barrier sits in a few central functions there, not in
 * commands. Each key carries its expire time: a key that expires while the
 * snapshot runs is written before expiry deletes it. */
void snapshotBeforeKeyWrite(redisDb *db, sds key) {
    if (!snap.active) return;
    tableCursor *c = cursorOf(db->keys);
    if (c == NULL || c->finished) return;
    if (snap.big.c == c && sdscmp(kvobjGetKey(snap.big.o), key) == 0) {
        bigFinishNow(); /* it is marked done already */
        return;
    }
    if (dictSize(c->done) && dictFind(c->done, key)) return;
    kvobj *o = kvtableFind(c->t, key, sdslen(key));
    if (o ? keyPassed(c, o) : newKeyPassed(c, key)) return;
    if (o && writtenInParts(o)) { /* in parts all the same: its bytes go out as they come */
        if (snap.big.c) bigFinishNow();
        bigBegin(c, o);
        bigFinishNow();
        snap.barrier_keys++;
    } else if (o) {
        long long start = ustime();
        writeKey(c, o);
        snap.barrier_keys++;
        noteBarrier(start);
    }
    markDone(c, key);
    notePeak();
    if (server.forkless_max_pending_memory && pendingBytes() > server.forkless_max_pending_memory) {
        serverLog(LL_WARNING, "Forkless snapshot: pending memory over forkless-max-pending-memory (%zu bytes): "
                              "writing the rest of the dataset at once", pendingBytes());
        snap.cap_hits++;
        long long start = ustime();
        writeEverythingNow(); /* the timer completes it at its next tick */
        noteBarrier(start);
    }
}

/* Whole-database changes: a cursor belongs to the table, not to the
 * database number, so SWAPDB (which swaps the tables of two databases)
 * needs nothing. A flush of a database (FLUSHDB, emptyData) hands the table
 * to the snapshot, which writes the rest and frees it at the end, and gives
 * the database a new empty table. FLUSHALL and SHUTDOWN stop the snapshot
 * (rdb.c), as they stop a fork child. A table that leaves the dataset
 * otherwise (a replica's swapdb load frees the old dataset, replica.c) is
 * handed over the same way (snapshotAdoptTable). */
int snapshotAdoptTable(kvtable *t) {
    if (!snap.active) return 0;
    tableCursor *c = cursorOf(t);
    if (c == NULL || c->finished) return 0;
    c->adopted = 1;
    return 1;
}

void snapshotBeforeEmpty(redisDb *db) {
    if (snapshotAdoptTable(db->keys)) db->keys = kvtableCreate(kvtableGetType(db->keys));
}

/* ---- start, slices, end ---------------------------------------------------------------------- */

/* Where a slice's wall time goes: its CPU time, the time it was runnable
 * but another thread ran (run delay, Linux's schedstat), page faults and
 * context switches (voluntary: it slept, waiting for something;
 * involuntary: preempted). What is left of the wall time beyond CPU and
 * run delay, with no switch, is time the machine took from it (a
 * hypervisor's steal). INFO shows the longest slice's and the sum of all. */
static void usageRead(sliceUsage *u) {
    u->wall_us = ustime();
    u->cpu_us = threadCpuUs();
    u->run_delay_us = 0;
    if (snap.schedstat_fd != -1) {
        char buf[128];
        ssize_t n = pread(snap.schedstat_fd, buf, sizeof buf - 1, 0);
        unsigned long long ran_ns, waited_ns;
        if (n > 0) {
            buf[n] = 0;
            if (sscanf(buf, "%llu %llu", &ran_ns, &waited_ns) == 2) u->run_delay_us = (long long)(waited_ns / 1000);
        }
    }
    u->minflt = u->majflt = u->vol_switches = u->invol_switches = 0;
#ifdef RUSAGE_THREAD
    struct rusage ru;
    if (getrusage(RUSAGE_THREAD, &ru) == 0) {
        u->minflt = ru.ru_minflt;
        u->majflt = ru.ru_majflt;
        u->vol_switches = ru.ru_nvcsw;
        u->invol_switches = ru.ru_nivcsw;
    }
#endif
}

/* *u becomes what was used since *u was read; added to the sum. */
static void usageEnd(sliceUsage *u) {
    sliceUsage now;
    usageRead(&now);
    u->wall_us = now.wall_us - u->wall_us;
    u->cpu_us = now.cpu_us - u->cpu_us;
    u->run_delay_us = now.run_delay_us - u->run_delay_us;
    u->minflt = now.minflt - u->minflt;
    u->majflt = now.majflt - u->majflt;
    u->vol_switches = now.vol_switches - u->vol_switches;
    u->invol_switches = now.invol_switches - u->invol_switches;
    sliceUsage *t = &snap.slices_usage;
    t->wall_us += u->wall_us, t->cpu_us += u->cpu_us, t->run_delay_us += u->run_delay_us;
    t->minflt += u->minflt, t->majflt += u->majflt;
    t->vol_switches += u->vol_switches, t->invol_switches += u->invol_switches;
    if (u->wall_us > snap.longest_slice_usage.wall_us) snap.longest_slice_usage = *u;
}

static void usageStart(void) {
    memset(&snap.slices_usage, 0, sizeof(sliceUsage));
    memset(&snap.longest_slice_usage, 0, sizeof(sliceUsage));
    snap.slices = 0;
#ifdef __linux__
    snap.schedstat_fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
#endif
}

static void usageStop(void) {
    if (snap.schedstat_fd != -1) close(snap.schedstat_fd);
    snap.schedstat_fd = -1;
}

static sds usageInfo(sds info, const char *name, const sliceUsage *u) {
    return sdscatprintf(info,
                        "%s:wall_us=%lld,cpu_us=%lld,run_delay_us=%lld,minflt=%lld,majflt=%lld,"
                        "vol_switches=%lld,invol_switches=%lld\r\n",
                        name, u->wall_us, u->cpu_us, u->run_delay_us, u->minflt, u->majflt, u->vol_switches,
                        u->invol_switches);
}

static void releaseCursors(void) {
    freeDoneSetsStop(); /* its iterator before the sets */
    for (int j = 0; j < snap.ncursors; j++) {
        tableCursor *c = &snap.cursors[j];
        dictRelease(c->done);
        if (c->adopted) kvtableRelease(c->t);
        else kvtableCursorRelease(c->t, &c->walk);
    }
    zfree(snap.cursors);
    snap.cursors = NULL;
    snap.ncursors = 0;
    snap.done_bytes = 0;
}

static void stop(void) {
    if (snap.timer_id != -1) aeDeleteTimeEvent(server.el, snap.timer_id);
    snap.timer_id = -1;
    bigRelease(); /* before the tables it walks may be freed */
    releaseCursors();
    close(snap.fd);
    snap.fd = -1;
    usageStop();
    snap.active = snap.finishing = 0;
    snapshotForkStateChanged(); /* an rdb/aof flag still set now counts as a fork child until its done callback */
    snap.last_duration_us = ustime() - snap.start_us;
}

/* The writer thread has written and fsynced everything (or failed). */
static void complete(void) {
    pthread_join(writer.thread, NULL);
    snap.writer_cpu_us = writer.cpu_us;
    int ok = !writer.failed;
    if (writer.rename_failed)
        serverLog(LL_WARNING, "Error moving the temp DB file %s on the final destination %s: %s", writer.rename_from,
                  writer.rename_to, strerror(writer.err));
    else if (!ok) serverLog(LL_WARNING, "Forkless snapshot: write error: %s", strerror(writer.err));
    writerForgetRename();
    stop();
    serverLog(LL_NOTICE, "Forkless snapshot %s: %lld keys (%lld by the write barrier) in %lld ms, longest slice %lld us",
              ok ? "done" : "failed", snap.keys_written, snap.barrier_keys, snap.last_duration_us / 1000,
              snap.longest_slice_us);
    snap.done(ok, snap.privdata);
}

/* Every key is written: the last bytes go to the writer thread. */
static void startFinishing(void) {
    writerPush(snap.fmt->finish(snap.out), 1);
    snap.out = NULL;
    snap.finishing = 1;
    writerPoll();
}

/* rdb-key-save-delay: the delay per key in microseconds, 0 for none. Tests
 * use it to keep a snapshot running; it paces the cursor instead of
 * sleeping: after a bucket of n keys the next one waits n times the delay. */
static long long keyDelayUs(void) { return server.rdb_key_save_delay > 0 ? server.rdb_key_save_delay : 0; }

static long long threadCpuUs(void) {
#ifdef CLOCK_THREAD_CPUTIME_ID
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0) return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
#endif
    return 0;
}


/* While clients are served (commands ran since the last slice), they get
 * at least as much time between two slices as the last slice took: the
 * snapshot takes at most about half of a busy server, all of an idle one. */
static int clientsNeedTheTime(void) {
    if (server.stat_numcommands == snap.commands_at_slice_end) return 0;
    return ustime() - snap.slice_end_us < snap.slice_len_us;
}

/* While the writer thread has more than this queued, slices wait for it
 * (they never wait inside: the next one just starts later). */
static size_t sliceQueueLimit(void) {
    size_t cap = server.forkless_max_pending_memory;
    return cap && cap / 2 < QUEUE_LIMIT_BYTES ? cap / 2 : QUEUE_LIMIT_BYTES;
}

/* Up to SLICE_US of work from `start`: buckets (or parts of a big value),
 * then, once everything is written, the done sets' entries. 1 while
 * something is left. The clock is read after every bucket (a few keys) or
 * every part of a big value; freeing the done sets at the end is bounded by
 * the same clock. INFO's forkless_longest_slice_us / _cpu_us say how long
 * the longest slice took (also the latency monitor's "forkless-slice",
 * "-barrier" and "-end" events), forkless_longest_slice_usage /
 * forkless_slices_usage where its wall time went (usageRead). */
static int sliceWork(long long start, int *steps) {
    long long now = start;
    int more = 1, n;
    while (now - start < SLICE_US && writerQueued() <= sliceQueueLimit()) {
        if (keyDelayUs() && now < snap.paced_until_us) break;
        if (more) more = step(&n);
        else if (!freeDoneSets(DONE_FREED_PER_STEP)) return 0;
        (*steps)++;
        now = ustime();
        if (more && n && keyDelayUs()) snap.paced_until_us += n * keyDelayUs(); /* on average one key per delay */
    }
    return 1;
}

static void noteSlice(long long start, long long cpu, int steps) {
    long long now = ustime();
    if (now - start > snap.longest_slice_us) snap.longest_slice_us = now - start;
    LATENCY_SAMPLE("forkless-slice", (now - start) / 1000);
    snap.slice_end_us = now;
    snap.slice_len_us = now - start;
    snap.commands_at_slice_end = server.stat_numcommands;
    if (cpu > snap.longest_slice_cpu_us) snap.longest_slice_cpu_us = cpu;
    if (cpu > 5 * SLICE_US) /* one step took that long: say which kind, for whoever chases it */
        serverLog(LL_VERBOSE, "Forkless snapshot: a slice took %lld us of CPU in %d steps (%s, done sets %zu bytes)", cpu,
                  steps, snap.big.c ? "in a big value" : "key by key", snap.done_bytes);
}

static int sliceProc(struct aeEventLoop *el, long long id, void *data) {
    (void)el, (void)id, (void)data;
    writerPoll(); /* what the last slice or barriers built goes to the writer thread */
    if (snap.finishing) {
        if (!writerFinished()) return 1;
        snap.timer_id = -1; /* AE_NOMORE deletes it */
        LATENCY_START(done_latency);
        complete();
        LATENCY_END("forkless-end", done_latency);
        return AE_NOMORE;
    }
    if (writerFailed()) { /* after a write error the rest is not worth building */
        startFinishing();
        return 1;
    }
    if (writerQueued() > sliceQueueLimit()) return 1; /* the disk is behind: let it catch up */
    if (clientsNeedTheTime()) return 0;
    sliceUsage usage;
    usageRead(&usage);
    long long start = ustime(), cpu = threadCpuUs();
    int steps = 0;
    snap.in_slice = 1;
    int more = sliceWork(start, &steps);
    snap.in_slice = 0;
    cpu = threadCpuUs() - cpu;
    noteSlice(start, cpu, steps);
    snap.slices++;
    usageEnd(&usage);
    if (!more) {
        startFinishing();
        return 1;
    }
    return keyDelayUs() ? 1 : 0; /* 0: again at the next event-loop pass */
}

void snapshotStart(int fd, const snapshotFormat *format, int aof_base, snapshotDoneFn *done, void *privdata) {
    serverAssert(!snap.active);
    snap.active = 1;
    snapshotForkStateChanged(); /* snap.active is part of snapshotForkChildCheck()'s answer */
    snap.finishing = 0;
    snap.fd = fd;
    snap.fmt = format;
    snap.out = format->open(aof_base);
    snap.done = done;
    snap.privdata = privdata;
    snap.ncursors = server.dbnum;
    snap.cursors = zcalloc(sizeof(tableCursor) * (size_t)server.dbnum);
    for (int j = 0; j < server.dbnum; j++) {
        tableCursor *c = &snap.cursors[j];
        c->t = server.db[j].keys;
        c->dbid = j;
        c->done = dictCreate(&doneSetType);
        kvtableCursorStart(c->t, &c->walk);
    }
    snap.done_bytes = 0;
    snap.keys_written = snap.barrier_keys = 0;
    snap.keys_total = dbTotalServerKeyCount();
    snap.peak_bytes = 0;
    snap.longest_slice_us = snap.longest_slice_cpu_us = snap.longest_barrier_us = 0;
    snap.big_values = snap.big_barrier = 0;
    snap.in_slice = 0;
    usageStart();
    snap.start_us = ustime();
    snap.paced_until_us = snap.start_us;
    snap.snapshots++;
    writerStart(fd, aof_base ? server.aof_rewrite_incremental_fsync : server.rdb_save_incremental_fsync);
    snap.timer_id = aeCreateTimeEvent(server.el, 0, sliceProc, NULL, NULL);
    if (snap.timer_id == AE_ERR) serverPanic("Can't create the forkless snapshot timer");
}

void snapshotRenameWhenDone(const char *tmp, const char *final) {
    pthread_mutex_lock(&writer.lock);
    writerForgetRename();
    writer.rename_from = zstrdup(tmp);
    writer.rename_to = zstrdup(final);
    pthread_mutex_unlock(&writer.lock);
}

int snapshotInProgress(void) { return snap.active; }

void snapshotProgress(size_t *keys_processed, size_t *keys_total) {
    *keys_processed = snap.active ? (size_t)snap.keys_written : 0;
    *keys_total = snap.active ? (size_t)snap.keys_total : 0;
}

void snapshotAbort(void) {
    if (!snap.active) return;
    if (!snap.finishing) {
        snap.fmt->discard(snap.out);
        snap.out = NULL;
        pthread_mutex_lock(&writer.lock);
        writer.failed = 1; /* what is queued is dropped, not written */
        pthread_mutex_unlock(&writer.lock);
        writerStop(sdsempty());
    } else {
        writerHandOver(); /* the last chunk may still be staged */
        pthread_join(writer.thread, NULL);
    }
    writerForgetRename();
    stop();
    serverLog(LL_NOTICE, "Forkless snapshot stopped after %lld keys", snap.keys_written);
}

/* ---- mode, fork, INFO ---------------------------------------------------------------------- */

int snapshotForkChildNow; /* snapshot.h: snapshotForkChildCheck()'s answer when last asked */

int snapshotForkChildCheck(void) {
    if (replicationChildActive() || moduleForkInProgress()) return 1;
    return (aofRewriteInProgress() || rdbBgsaveInProgress()) && !snap.active;
}

void snapshotForkStateChanged(void) { snapshotForkChildNow = snapshotForkChildCheck(); }

int snapshotForklessWanted(void) {
#if HAVE_FORK
    return server.persistence_mode == PERSISTENCE_MODE_FORKLESS;
#else
    return 1;
#endif
}

/* 1 in a child snapshotFork made (a module's GetContextFlags IS_CHILD):
 * a variable instead of comparing getpid() with the server's pid, a system
 * call a module may make on every command. */
int snapshotInForkChild;

pid_t snapshotFork(void) {
#if HAVE_FORK
    pid_t pid = fork();
    if (pid == 0) snapshotInForkChild = 1;
    return pid;
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
    info = sdscatprintf(info,
                        "persistence_mode:%s\r\n"
                        "forkless_snapshot_in_progress:%d\r\n"
                        "forkless_snapshots:%lld\r\n"
                        "forkless_snapshot_keys_written:%lld\r\n"
                        "forkless_snapshot_barrier_keys:%lld\r\n"
                        "forkless_snapshot_pending_bytes:%zu\r\n"
                        "forkless_snapshot_peak_bytes:%zu\r\n"
                        "forkless_longest_slice_us:%lld\r\n"
                        "forkless_longest_slice_cpu_us:%lld\r\n"
                        "forkless_longest_barrier_us:%lld\r\n"
                        "forkless_big_values:%lld\r\n"
                        "forkless_big_values_finished_by_barrier:%lld\r\n"
                        "forkless_last_snapshot_time_ms:%lld\r\n"
                        "forkless_pending_cap_hits:%lld\r\n"
                        "forkless_slices:%lld\r\n"
                        "forkless_writer_cpu_us:%lld\r\n",
                        snapshotForklessWanted() ? "forkless" : "fork", snap.active, snap.snapshots,
                        snap.keys_written, snap.barrier_keys, snap.active ? pendingBytes() : (size_t)0,
                        snap.peak_bytes, snap.longest_slice_us, snap.longest_slice_cpu_us, snap.longest_barrier_us,
                        snap.big_values, snap.big_barrier, snap.last_duration_us / 1000, snap.cap_hits,
                        snap.slices, snap.writer_cpu_us);
    info = usageInfo(info, "forkless_slices_usage", &snap.slices_usage);
    return usageInfo(info, "forkless_longest_slice_usage", &snap.longest_slice_usage);
}
