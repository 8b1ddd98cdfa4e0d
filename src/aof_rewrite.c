/* aof_rewrite.c -- BGREWRITEAOF and the automatic rewrite: a forked child
 * writes the dataset as the shortest command stream into a new base file
 * while the parent keeps serving.
 *
 * How no write is lost (the multi-part design, as Redis 7 has it):
 *   1. At the start the parent closes the current incremental file and opens
 *      a new one, recording it in the manifest (old base + old incrementals +
 *      new incremental). Everything written from now on goes there.
 *   2. The child writes the dataset as of the fork into a temporary file,
 *      fsyncs it (and fsyncs as it goes with aof-rewrite-incremental-fsync,
 *      so the disk isn't hit by one huge flush at the end) and exits.
 *   3. The parent renames it to the new base, writes a manifest naming the
 *      new base + the incremental files opened since step 1, atomically
 *      (rename + directory fsync), and deletes the old files.
 * A crash or a failed child at any point leaves a manifest that names a
 * complete, consistent set of files; a failed rewrite is logged and retried.
 *
 * With persistence-mode forkless (or without fork()) step 2 is snapshot.c
 * writing the base in the server itself, in the RDB format or as commands
 * (commandFormat below); steps 1 and 3 are the same.
 *
 * The command stream is variadic (RPUSH/SADD/HSET/ZADD with up to 64 items
 * each), followed by PEXPIREAT for keys with a TTL; a stream is one XADD
 * per entry, XSETID and its groups' XGROUP / XCLAIM commands.
 *
 * The child reports its progress and copy-on-write size to the parent
 * through childinfo.c, as the BGSAVE child does, and logs Redis's lines
 * ("Successfully created the temporary AOF base file ...", "Fork CoW for AOF
 * rewrite: ...").
 */
#include <errno.h>

#include "server.h"
#include "aof.h"
#include "persistio.h"
#include "stream.h"
#include "snapshot.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#define REWRITE_BATCH 64
#define REWRITE_RETRY_MS 5000

static struct {
    pid_t child;
    long long start_ms;
    long long boundary_seq;   /* incremental files below this seq are in the new base */
    int scheduled;
    int last_status;          /* C_OK / C_ERR */
    long long last_time_sec;  /* duration of the last rewrite, -1 = none */
    long long last_failure_ms;
    long long rewrites;
    long long latest_fork_usec;
    long long total_forks;
    long long consecutive_failures; /* reset by a successful rewrite */
    long long last_cow_bytes;       /* the last successful child's copy-on-write (childinfo.c) */
    int preamble;             /* this rewrite writes the base as an RDB snapshot */
    int limit_delay_min;      /* rewriteLimited(): the current back-off, 0 = not limited */
    time_t limit_until;       /* ... and when the next try may start, 0 = may try now */
    int forkless;             /* a forkless rewrite is running (snapshot.c) */
    int forkless_fault;       /* DEBUG AOF-FAULT child-write hit this forkless rewrite: it fails */
} aof_rewrite = {.child = -1, .last_status = C_OK, .last_time_sec = -1};

static sds tempName(pid_t pid) { return sdscatfmt(sdsempty(), "temp-rewriteaof-bg-%i.aof", (int)pid); }

/* ---- the child: writing the dataset ---------------------------------------------------------- */

typedef struct rewriteWriter {
    int fd;
    sds buf;
    size_t since_fsync;
    int failed;
} rewriteWriter;

static void writerFlush(rewriteWriter *w) {
    size_t len = sdslen(w->buf);
    if (!w->failed && len && (persistChildWriteFault() || persistWriteFully(w->fd, w->buf, len, NULL) != (ssize_t)len))
        w->failed = 1;
    sdsclear(w->buf);
    if (!w->failed && persistIncrementalFsync(w->fd, &w->since_fsync, len, server.aof_rewrite_incremental_fsync) == -1)
        w->failed = 1;
}

static void writerMaybeFlush(rewriteWriter *w) {
    if (w->fd != -1 && sdslen(w->buf) >= 64 * 1024) writerFlush(w); /* fd -1: in memory (commandFormat) */
}

static sds catBulk(sds buf, const char *p, size_t len) {
    buf = sdscatfmt(buf, "$%U\r\n", (unsigned long long)len);
    buf = sdscatlen(buf, p, len);
    return sdscatlen(buf, "\r\n", 2);
}

static sds catElem(sds buf, const elemRef *e) {
    if (e->s) return catBulk(buf, (const char *)e->s, e->len);
    char num[LONG_STR_SIZE];
    int n = ll2string(num, sizeof num, e->ll);
    return catBulk(buf, num, (size_t)n);
}

/* A variadic command over a collection, in batches: "*<n>\r\n$..CMD..key" is
 * written when a batch starts, items as they come. */
typedef struct batchState {
    rewriteWriter *w;
    const char *cmd;
    sds key;
    unsigned long remaining;   /* items left in the collection */
    int per_item;              /* arguments per item (1, or 2 for pairs) */
    int in_batch;              /* items left in the current batch */
} batchState;

static void batchItemStart(batchState *b) {
    if (b->in_batch == 0) {
        int items = b->remaining > REWRITE_BATCH ? REWRITE_BATCH : (int)b->remaining;
        b->w->buf = sdscatfmt(b->w->buf, "*%i\r\n", 2 + items * b->per_item);
        b->w->buf = catBulk(b->w->buf, b->cmd, strlen(b->cmd));
        b->w->buf = catBulk(b->w->buf, b->key, sdslen(b->key));
        b->in_batch = items;
    }
}

static void batchItemEnd(batchState *b) {
    b->in_batch--;
    b->remaining--;
    writerMaybeFlush(b->w);
}

static int rewriteElem(void *ud, const elemRef *e) {
    batchState *b = ud;
    batchItemStart(b);
    b->w->buf = catElem(b->w->buf, e);
    batchItemEnd(b);
    return 0;
}

static int rewritePair(void *ud, const elemRef *field, const elemRef *value) {
    batchState *b = ud;
    batchItemStart(b);
    b->w->buf = catElem(b->w->buf, field);
    b->w->buf = catElem(b->w->buf, value);
    batchItemEnd(b);
    return 0;
}

static int rewriteScored(void *ud, const elemRef *member, double score) {
    batchState *b = ud;
    char num[MAX_D2STRING_CHARS];
    int n = d2string(num, sizeof num, score);
    batchItemStart(b);
    b->w->buf = catBulk(b->w->buf, num, (size_t)n);
    b->w->buf = catElem(b->w->buf, member);
    batchItemEnd(b);
    return 0;
}

static void rewriteString(rewriteWriter *w, sds key, robj *o) {
    robj *value = getDecodedObject(o);
    w->buf = sdscat(w->buf, "*3\r\n$3\r\nSET\r\n");
    w->buf = catBulk(w->buf, key, sdslen(key));
    w->buf = catBulk(w->buf, value->ptr, sdslen(value->ptr));
    decrRefCount(value);
}

/* ---- streams: XADD per entry, XSETID, XGROUP CREATE ... ENTRIESREAD, and per
 * pending entry an XCLAIM ... TIME RETRYCOUNT JUSTID FORCE (a consumer with
 * nothing pending: XGROUP CREATECONSUMER), as Redis 7.0 rewrites them. An
 * empty stream is made with XADD MAXLEN 0 0-1 x y. ---- */

static sds catStr(sds buf, const char *s) { return catBulk(buf, s, strlen(s)); }

static sds catID(sds buf, const streamID *id) {
    char num[64];
    int n = snprintf(num, sizeof num, "%llu-%llu", (unsigned long long)id->ms, (unsigned long long)id->seq);
    return catBulk(buf, num, (size_t)n);
}

static sds catLongLong(sds buf, long long v) {
    char num[LONG_STR_SIZE];
    int n = ll2string(num, sizeof num, v);
    return catBulk(buf, num, (size_t)n);
}

static void rewriteStreamEntries(rewriteWriter *w, sds key, stream *s) {
    streamIter it;
    streamID id, min = {0, 0}, max = {UINT64_MAX, UINT64_MAX};
    int nfields;
    streamIterStart(&it, s, &min, &max, 0);
    while (streamIterNext(&it, &id, &nfields)) {
        w->buf = sdscatfmt(w->buf, "*%i\r\n", 3 + nfields * 2);
        w->buf = catStr(w->buf, "XADD");
        w->buf = catBulk(w->buf, key, sdslen(key));
        w->buf = catID(w->buf, &id);
        slpString f, v;
        while (streamIterField(&it, &f, &v)) {
            w->buf = catBulk(w->buf, (const char *)f.ptr, f.len);
            w->buf = catBulk(w->buf, (const char *)v.ptr, v.len);
        }
        writerMaybeFlush(w);
    }
    streamIterStop(&it);
    if (s->length) return;
    w->buf = sdscat(w->buf, "*7\r\n");
    w->buf = catStr(w->buf, "XADD");
    w->buf = catBulk(w->buf, key, sdslen(key));
    w->buf = catStr(w->buf, "MAXLEN");
    w->buf = catStr(w->buf, "0");
    w->buf = catStr(w->buf, "0-1");
    w->buf = catStr(w->buf, "x");
    w->buf = catStr(w->buf, "y");
}

static void rewriteStreamConsumer(rewriteWriter *w, sds key, const unsigned char *group, size_t glen,
                                  streamConsumer *consumer) {
    if (raxSize(consumer->pel) == 0) {
        w->buf = sdscat(w->buf, "*5\r\n");
        w->buf = catStr(w->buf, "XGROUP");
        w->buf = catStr(w->buf, "CREATECONSUMER");
        w->buf = catBulk(w->buf, key, sdslen(key));
        w->buf = catBulk(w->buf, (const char *)group, glen);
        w->buf = catBulk(w->buf, consumer->name, sdslen(consumer->name));
        return;
    }
    raxIterator pi;
    raxStart(&pi, consumer->pel);
    raxSeek(&pi, "^", NULL, 0);
    while (raxNext(&pi)) {
        streamNACK *nack = pi.data;
        streamID id;
        streamIDDecode(pi.key, &id);
        w->buf = sdscat(w->buf, "*12\r\n");
        w->buf = catStr(w->buf, "XCLAIM");
        w->buf = catBulk(w->buf, key, sdslen(key));
        w->buf = catBulk(w->buf, (const char *)group, glen);
        w->buf = catBulk(w->buf, consumer->name, sdslen(consumer->name));
        w->buf = catStr(w->buf, "0");
        w->buf = catID(w->buf, &id);
        w->buf = catStr(w->buf, "TIME");
        w->buf = catLongLong(w->buf, nack->delivery_time);
        w->buf = catStr(w->buf, "RETRYCOUNT");
        w->buf = catLongLong(w->buf, (long long)nack->delivery_count);
        w->buf = catStr(w->buf, "JUSTID");
        w->buf = catStr(w->buf, "FORCE");
        writerMaybeFlush(w);
    }
    raxStop(&pi);
}

static void rewriteStreamGroup(rewriteWriter *w, sds key, const unsigned char *name, size_t len, streamCG *cg) {
    w->buf = sdscat(w->buf, "*7\r\n");
    w->buf = catStr(w->buf, "XGROUP");
    w->buf = catStr(w->buf, "CREATE");
    w->buf = catBulk(w->buf, key, sdslen(key));
    w->buf = catBulk(w->buf, (const char *)name, len);
    w->buf = catID(w->buf, &cg->last_id);
    w->buf = catStr(w->buf, "ENTRIESREAD");
    w->buf = catLongLong(w->buf, cg->entries_read);
    raxIterator ci;
    raxStart(&ci, cg->consumers);
    raxSeek(&ci, "^", NULL, 0);
    while (raxNext(&ci)) rewriteStreamConsumer(w, key, name, len, ci.data);
    raxStop(&ci);
}

static void rewriteStream(rewriteWriter *w, sds key, stream *s) {
    rewriteStreamEntries(w, key, s);
    w->buf = sdscat(w->buf, "*7\r\n");
    w->buf = catStr(w->buf, "XSETID");
    w->buf = catBulk(w->buf, key, sdslen(key));
    w->buf = catID(w->buf, &s->last_id);
    w->buf = catStr(w->buf, "ENTRIESADDED");
    w->buf = catLongLong(w->buf, (long long)s->entries_added);
    w->buf = catStr(w->buf, "MAXDELETEDID");
    w->buf = catID(w->buf, &s->max_deleted_entry_id);
    if (s->cgroups == NULL) return;
    raxIterator gi;
    raxStart(&gi, s->cgroups);
    raxSeek(&gi, "^", NULL, 0);
    while (raxNext(&gi)) rewriteStreamGroup(w, key, gi.key, gi.key_len, gi.data);
    raxStop(&gi);
}

static void rewriteObject(rewriteWriter *w, sds key, robj *o, int dbid) {
    batchState b = {w, NULL, key, 0, 1, 0};
    switch (o->type) {
    case OBJ_STRING: rewriteString(w, key, o); break;
    case OBJ_LIST:
        b.cmd = "RPUSH", b.remaining = listTypeLength(o);
        listTypeForEach(o, rewriteElem, &b);
        break;
    case OBJ_SET:
        b.cmd = "SADD", b.remaining = setTypeSize(o);
        setTypeForEach(o, rewriteElem, &b);
        break;
    case OBJ_HASH:
        b.cmd = "HSET", b.remaining = hashTypeLength(o), b.per_item = 2;
        hashTypeForEach(o, rewritePair, &b);
        break;
    case OBJ_ZSET:
        b.cmd = "ZADD", b.remaining = zsetLength(o), b.per_item = 2;
        zsetTypeForEach(o, 0, rewriteScored, &b);
        break;
    case OBJ_STREAM: rewriteStream(w, key, o->ptr); break;
    case OBJ_MODULE: w->buf = moduleRewriteValue(w->buf, key, o, dbid); break;
    default: serverPanic("Unknown object type %d in the AOF rewrite", o->type);
    }
}

static void rewriteExpire(rewriteWriter *w, sds key, long long when) {
    char num[LONG_STR_SIZE];
    int n = ll2string(num, sizeof num, when);
    w->buf = sdscat(w->buf, "*3\r\n$9\r\nPEXPIREAT\r\n");
    w->buf = catBulk(w->buf, key, sdslen(key));
    w->buf = catBulk(w->buf, num, (size_t)n);
}

static void rewriteSelect(rewriteWriter *w, int dbid) {
    char id[LONG_STR_SIZE];
    int n = ll2string(id, sizeof id, dbid);
    w->buf = sdscat(w->buf, "*2\r\n$6\r\nSELECT\r\n");
    w->buf = catBulk(w->buf, id, (size_t)n);
}

static void rewriteDb(rewriteWriter *w, int dbid) {
    redisDb *db = &server.db[dbid];
    if (kvtableSize(db->keys) == 0) return;
    rewriteSelect(w, dbid);
    kvtableIterator *it = kvtableGetIterator(db->keys);
    kvobj *o;
    while ((o = kvtableNext(it)) != NULL && !w->failed) {
        sds key = kvobjGetKey(o);
        rewriteObject(w, key, o, dbid);
        if (kvobjHasExpire(o)) rewriteExpire(w, key, kvobjGetExpire(o));
        writerMaybeFlush(w);
        keySaveDelay();
        childInfoKeySaved();
    }
    kvtableReleaseIterator(it);
}

static int rewriteToFile(const char *path) {
    rewriteWriter w = {persistio.open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644), sdsempty(), 0, 0};
    if (w.fd == -1) return C_ERR;
    moduleFirePersistence(1, 0, 0);
    if (aof_rewrite.preamble) {
        w.failed = persistChildWriteFault() || rdbSaveToFd(w.fd, 1) != C_OK;
    } else {
        /* aof-timestamp-enabled: a command base opens with the rewrite's time, as in Redis */
        if (server.aof_timestamp_enabled) w.buf = sdscatfmt(w.buf, "#TS:%I\r\n", (long long)time(NULL));
        sds functions = functionsAofCommands(); /* FUNCTION LOAD per library, before the keys (Redis 7.0) */
        w.buf = sdscatsds(w.buf, functions);
        sdsfree(functions);
        for (int j = 0; j < server.dbnum && !w.failed; j++) rewriteDb(&w, j);
        writerFlush(&w);
    }
    int ok = !w.failed && persistio.fsync(w.fd) == 0;
    close(w.fd);
    sdsfree(w.buf);
    moduleFirePersistence(1, 1, ok);
    return ok ? C_OK : C_ERR;
}

/* Redis 7.0 starts an AOF that has no files at all by writing a base of
 * the (empty) dataset at once, in the main process: the first files are
 * base 1 + incr 1 and the first rewrite makes base 2 + incr 2, the names
 * operators and Redis's tests see. The base is written under a temporary
 * name, fsynced and renamed, so a power cut leaves either no base (and no
 * manifest naming it: the next start begins again) or a whole one; the
 * caller's manifest write makes it part of the AOF. */
int aofRewriteBaseAtStartup(const char *name) {
    aof_rewrite.preamble = server.aof_use_rdb_preamble;
    sds tmp = tempName(getpid());
    sds tmppath = aofPathJoin(server.aof_dirname, tmp), path = aofPathJoin(server.aof_dirname, name);
    int ok = rewriteToFile(tmppath) == C_OK;
    if (ok && persistio.rename(tmppath, path) != 0) {
        serverLog(LL_WARNING, "Can't rename the AOF base %s to %s: %s", tmppath, path, strerror(errno));
        ok = 0;
    } else if (!ok) {
        serverLog(LL_WARNING, "Can't write the AOF base file %s: %s", tmppath, strerror(errno));
    }
    if (!ok) unlink(tmppath);
    sdsfree(tmp), sdsfree(tmppath), sdsfree(path);
    return ok ? C_OK : C_ERR;
}

static void childMain(void) {
    childInfoChildStart();
    setupForkChild(server.aof_rewrite_cpulist, "the AOF rewrite child (aof_rewrite_cpulist)", "redis-aof-rewrite");
    sds dir = aofDirPath(), name = tempName(getpid());
    sds path = aofPathJoin(dir, name);
    if (rewriteToFile(path) != C_OK) _exit(1);
    serverLog(LL_NOTICE, "Successfully created the temporary AOF base file %s", name);
    childInfoSendFinal("AOF rewrite");
    _exit(0);
}

/* ---- the forkless rewrite: the command stream key by key (snapshot.c) ----------------------- */

typedef struct commandStream {
    rewriteWriter w;
    int dbid; /* of the last key written, -1 at first */
} commandStream;

static void *commandOpen(int aof_base) {
    (void)aof_base;
    commandStream *s = zcalloc(sizeof(*s));
    s->w.fd = -1;
    s->w.buf = sdsempty();
    s->dbid = -1;
    if (server.aof_timestamp_enabled) s->w.buf = sdscatfmt(s->w.buf, "#TS:%I\r\n", (long long)time(NULL));
    return s;
}

static void commandKey(void *p, int dbid, kvobj *o) {
    commandStream *s = p;
    if (dbid != s->dbid) rewriteSelect(&s->w, dbid);
    s->dbid = dbid;
    sds key = kvobjGetKey(o);
    rewriteObject(&s->w, key, o, dbid);
    if (kvobjHasExpire(o)) rewriteExpire(&s->w, key, kvobjGetExpire(o));
}

static size_t commandBuffered(const void *p) {
    const commandStream *s = p;
    return sdslen(s->w.buf);
}

static sds commandTake(void *p) {
    commandStream *s = p;
    sds out = s->w.buf;
    s->w.buf = sdsempty();
    return out;
}

static void commandDiscard(void *p) {
    commandStream *s = p;
    sdsfree(s->w.buf);
    zfree(s);
}

static sds commandFinish(void *p) {
    sds out = commandTake(p);
    commandDiscard(p);
    return out;
}

static const snapshotFormat commandFormat = {
    .open = commandOpen,
    .key = commandKey,
    .buffered = commandBuffered,
    .take = commandTake,
    .finish = commandFinish,
    .discard = commandDiscard, /* no keyHead ...: every key is written whole */
};

static void rewriteFinished(pid_t pid, int exited_ok, int termsig);

static void rewriteForklessDone(int ok, void *privdata) {
    (void)privdata;
    aof_rewrite.forkless = 0;
    updateDictResizePolicy();
    ok = ok && !aof_rewrite.forkless_fault;
    if (ok) serverLog(LL_NOTICE, "Successfully created the temporary AOF base file (forkless)");
    rewriteFinished(getpid(), ok, 0);
}

static int rewriteStartForkless(void) {
    sds dir = aofDirPath(), name = tempName(getpid());
    sds path = aofPathJoin(dir, name);
    int fd = persistio.open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd == -1) serverLog(LL_WARNING, "Can't open the temporary AOF base file %s: %s", path, strerror(errno));
    sdsfree(dir), sdsfree(name), sdsfree(path);
    if (fd == -1) {
        aof_rewrite.last_status = C_ERR;
        aof_rewrite.last_failure_ms = mstime();
        return C_ERR;
    }
    /* DEBUG AOF-FAULT child-write: the rewrite's writes fail */
    aof_rewrite.forkless_fault = persistChildWriteFault() != 0;
    snapshotStart(fd, aof_rewrite.preamble ? &snapshotRdbFormat : &commandFormat, 1, rewriteForklessDone, NULL);
    aof_rewrite.forkless = 1;
    updateDictResizePolicy();
    aof_rewrite.start_ms = mstime();
    aof_rewrite.scheduled = 0;
    serverLog(LL_NOTICE, "Background append only file rewriting started (forkless)");
    return C_OK;
}

/* ---- the parent --------------------------------------------------------------------------- */

int aofRewriteInProgress(void) { return aof_rewrite.child != -1 || aof_rewrite.forkless; }

/* With the AOF on, writes from now on go to a new incremental file and the
 * new base replaces everything before it. With it off (BGREWRITEAOF, as
 * Redis allows) there is no incremental file: the new base replaces all of
 * them, and the directory and manifest are made if they don't exist. */
static int prepareFiles(void) {
    if (!server.aof_enabled) {
        if (aofPrepareDirAndManifest() != C_OK) return C_ERR;
        aof_rewrite.boundary_seq = LLONG_MAX;
        return C_OK;
    }
    if (aofAwaitingFirstBase()) {
        /* the AOF's first base: it replaces every file an older manifest names */
        if (aofOpenTempIncr() != C_OK) return C_ERR;
        aof_rewrite.boundary_seq = LLONG_MAX;
        return C_OK;
    }
    if (aofOpenNewIncr() != C_OK) return C_ERR;
    aof_rewrite.boundary_seq = aofCurrentManifest()->curr_incr_seq;
    return C_OK;
}

void aofRewriteSchedule(void) { aof_rewrite.scheduled = 1; }
void aofRewriteUnschedule(void) { aof_rewrite.scheduled = 0; }

int aofRewriteStart(void) {
    if (aofRewriteInProgress() || rdbBgsaveInProgress() || moduleForkInProgress()) {
        aof_rewrite.scheduled = 1;
        return C_OK;
    }
    if (prepareFiles() != C_OK) return C_ERR;
    aof_rewrite.preamble = server.aof_use_rdb_preamble;
    if (snapshotForklessWanted()) return rewriteStartForkless();
    childInfoPrepare();
    long long start = ustime();
    pid_t pid = snapshotFork();
    if (pid == 0) childMain();
    childInfoParentStarted();
    if (pid == -1) {
        int err = errno;
        childInfoFinish();
        if (snapshotForkFailedFallback(err, "AOF rewrite")) return rewriteStartForkless();
        serverLog(LL_WARNING, "Can't rewrite the append only file in background: fork: %s", strerror(err));
        aof_rewrite.last_status = C_ERR;
        aof_rewrite.last_failure_ms = mstime();
        return C_ERR;
    }
    aof_rewrite.latest_fork_usec = ustime() - start;
    LATENCY_SAMPLE("fork", aof_rewrite.latest_fork_usec / 1000);
    aof_rewrite.total_forks++;
    if (aof_rewrite.latest_fork_usec > 500000)
        serverLog(LL_WARNING, "Slow fork: %lld ms to start the AOF rewrite child (a large dataset, or little free "
                              "memory)", aof_rewrite.latest_fork_usec / 1000);
    aof_rewrite.child = pid;
    updateDictResizePolicy();
    aof_rewrite.start_ms = mstime();
    aof_rewrite.scheduled = 0;
    serverLog(LL_NOTICE, "Background append only file rewriting started by pid %d", (int)pid);
    return C_OK;
}

static void deleteFile(const char *name) {
    sds path = aofPathJoin(server.aof_dirname, name);
    if (unlink(path) == -1 && errno != ENOENT) serverLog(LL_WARNING, "Can't delete %s: %s", path, strerror(errno));
    sdsfree(path);
}

/* The child is done: its file becomes the base, the manifest switches, the
 * files it replaces go. */
static int installNewBase(pid_t pid) {
    aofManifest *old = aofCurrentManifest();
    aofManifest *am = aofManifestDup(old);
    sds tmp = tempName(pid);
    sds base = aofManifestNewBaseName(am, server.aof_filename, aof_rewrite.preamble ? "rdb" : "aof");
    sds tmppath = aofPathJoin(server.aof_dirname, tmp), basepath = aofPathJoin(server.aof_dirname, base);
    sds mpath = aofManifestPath();
    LATENCY_START(rename_latency);
    int ok = persistio.rename(tmppath, basepath) == 0;
    LATENCY_END("aof-rename", rename_latency);
    if (!ok) serverLog(LL_WARNING, "Can't rename the rewritten AOF %s to %s: %s", tmppath, basepath, strerror(errno));
    else serverLog(LL_NOTICE, "Successfully renamed the temporary AOF base file %s into %s", tmp, base);
    int keep_history = server.aof_disable_auto_gc;
    if (ok) {
        if (keep_history) aofManifestBaseAndIncrsToHistory(am, aof_rewrite.boundary_seq - 1);
        aofManifestSetBase(am, base, am->curr_base_seq);
        aofManifestDropIncrsUpTo(am, aof_rewrite.boundary_seq - 1);
        /* the AOF's first base: the writes since are the temporary incr file */
        int first = aofAwaitingFirstBase();
        ok = !first || aofAdoptTempIncr(am) == C_OK;
        ok = ok && aofManifestPersist(am, server.aof_dirname, mpath) == C_OK;
        if (!ok) unlink(basepath);
        if (!ok && first && am->incr_count) aofReturnTempIncr(am->incrs[am->incr_count - 1]->name);
    }
    if (ok && !keep_history) {
        if (old->base) deleteFile(old->base->name);
        for (int j = 0; j < old->incr_count; j++)
            if (old->incrs[j]->seq < aof_rewrite.boundary_seq) deleteFile(old->incrs[j]->name);
    }
    if (ok) {
        struct stat st;
        aofSetCurrentManifest(am);
        LATENCY_START(fstat_latency);
        aofSetBaseSize(stat(basepath, &st) == 0 ? st.st_size : 0);
        LATENCY_END("aof-fstat", fstat_latency);
    } else {
        aofManifestFree(am);
    }
    sdsfree(tmp), sdsfree(base), sdsfree(tmppath), sdsfree(basepath), sdsfree(mpath);
    return ok ? C_OK : C_ERR;
}

static void rewriteDone(pid_t pid, int status) {
    int exited_ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    size_t cow = childInfoFinish();
    aof_rewrite.child = -1;
    updateDictResizePolicy(); /* tables may grow again from the next write on */
    if (exited_ok) aof_rewrite.last_cow_bytes = (long long)cow;
    rewriteFinished(pid, exited_ok, WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

/* The new base is written (exited_ok) or not: install it or clean up.
 * `pid` names the temporary file. */
static void rewriteFinished(pid_t pid, int exited_ok, int termsig) {
    aof_rewrite.last_time_sec = (mstime() - aof_rewrite.start_ms) / 1000;
    if (exited_ok) serverLog(LL_NOTICE, "Background AOF rewrite terminated with success");
    if (exited_ok && installNewBase(pid) == C_OK) {
        aof_rewrite.last_status = C_OK;
        aof_rewrite.rewrites++;
        aof_rewrite.consecutive_failures = 0;
        serverLog(LL_NOTICE, "Background AOF rewrite finished successfully");
        aofRewriteInstalled(1);
        return;
    }
    sds tmp = tempName(pid);
    deleteFile(tmp);
    sdsfree(tmp);
    aof_rewrite.last_status = C_ERR;
    aof_rewrite.last_failure_ms = mstime();
    aof_rewrite.consecutive_failures++;
    if (termsig) serverLog(LL_WARNING, "Background AOF rewrite terminated by signal %d", termsig);
    else serverLog(LL_WARNING, "Background AOF rewrite failed: the current AOF is unchanged; will retry");
    aofRewriteInstalled(0);
}

/* auto-aof-rewrite-percentage / -min-size: the AOF grew enough since the
 * last rewrite (or since start-up); *growth gets the percentage, as Redis
 * computes it for its log line. */
static int autoRewriteDue(long long *growth) {
    if (!server.aof_enabled || !server.auto_aof_rewrite_perc) return 0;
    off_t size = aofCurrentSize(), from = aofBaseSizeForGrowth();
    if ((unsigned long long)size <= server.auto_aof_rewrite_min_size) return 0;
    *growth = (long long)size * 100 / (from ? (long long)from : 1) - 100;
    return *growth >= server.auto_aof_rewrite_perc;
}

/* After 3 failed rewrites in a row, the automatic and scheduled ones wait
 * 1 minute, then 2, 4 ... up to an hour between tries (BGREWRITEAOF is
 * never held back), as in Redis 7.0: a disk that keeps failing is not
 * hammered with forks, and every new try used to add an incremental file. */
#define REWRITE_LIMIT_FAILURES 3
#define REWRITE_LIMIT_MAX_MIN 60
static int rewriteLimited(void) {
    if (aof_rewrite.consecutive_failures < REWRITE_LIMIT_FAILURES) {
        aof_rewrite.limit_delay_min = 0;
        aof_rewrite.limit_until = 0;
        return 0;
    }
    if (aof_rewrite.limit_until != 0) {
        if (server.unixtime < aof_rewrite.limit_until) return 1;
        aof_rewrite.limit_until = 0;
        return 0;
    }
    int delay = aof_rewrite.limit_delay_min ? aof_rewrite.limit_delay_min * 2 : 1;
    aof_rewrite.limit_delay_min = delay > REWRITE_LIMIT_MAX_MIN ? REWRITE_LIMIT_MAX_MIN : delay;
    aof_rewrite.limit_until = server.unixtime + aof_rewrite.limit_delay_min * 60;
    serverLog(LL_WARNING, "Background AOF rewrite has repeatedly failed and triggered the limit, will retry in %d minutes",
              aof_rewrite.limit_delay_min);
    return 1;
}

void aofRewriteCron(void) {
    if (aof_rewrite.child != -1) {
        int status;
        pid_t pid = waitpid(aof_rewrite.child, &status, WNOHANG);
        if (pid == aof_rewrite.child) rewriteDone(pid, status);
        else childInfoPoll();
        return;
    }
    if (aof_rewrite.forkless) return; /* snapshot.c calls back when it is done */
    int retry_allowed = aof_rewrite.last_status == C_OK || mstime() - aof_rewrite.last_failure_ms > REWRITE_RETRY_MS;
    if (rdbBgsaveInProgress() || moduleForkInProgress()) return;
    /* BGREWRITEAOF may be scheduled with the AOF off. The limit is looked
     * at first, as Redis does, so its line is logged as soon as a rewrite
     * is due, not after the retry delay. */
    long long growth = 0;
    int scheduled = aof_rewrite.scheduled, automatic = !scheduled && autoRewriteDue(&growth);
    if ((!scheduled && !automatic) || rewriteLimited() || !retry_allowed) return;
    if (automatic) serverLog(LL_NOTICE, "Starting automatic rewriting of AOF on %lld%% growth", growth);
    aofRewriteStart();
}

void aofRewriteKill(void) {
    if (aof_rewrite.forkless) {
        serverLog(LL_NOTICE, "Stopping the running forkless AOF rewrite");
        snapshotAbort();
        aof_rewrite.forkless = 0;
        sds tmp = tempName(getpid());
        deleteFile(tmp);
        sdsfree(tmp);
        updateDictResizePolicy();
        return;
    }
    if (aof_rewrite.child == -1) return;
    pid_t pid = aof_rewrite.child;
    serverLog(LL_NOTICE, "Killing running AOF rewrite child: %ld", (long)pid); /* Redis's line */
    childKill(pid);
    childInfoFinish();
    sds tmp = tempName(pid);
    deleteFile(tmp);
    sdsfree(tmp);
    aof_rewrite.child = -1;
    updateDictResizePolicy();
}

sds aofRewriteInfo(sds info) {
    return sdscatfmt(info,
                     "aof_rewrite_in_progress:%i\r\n"
                     "aof_rewrite_scheduled:%i\r\n"
                     "aof_last_rewrite_time_sec:%I\r\n"
                     "aof_current_rewrite_time_sec:%I\r\n"
                     "aof_last_bgrewrite_status:%s\r\n"
                     "aof_rewrites:%I\r\n"
                     "aof_rewrites_consecutive_failures:%I\r\n",
                     aofRewriteInProgress(), aof_rewrite.scheduled, aof_rewrite.last_time_sec,
                     aofRewriteInProgress() ? (mstime() - aof_rewrite.start_ms) / 1000 : -1LL,
                     aof_rewrite.last_status == C_OK ? "ok" : "err", aof_rewrite.rewrites,
                     aof_rewrite.consecutive_failures);
}

/* The fields Redis lists after aof_last_write_status: the rewrite child's
 * copy-on-write, then the module fork's (module_fork.c). */
sds aofRewriteCowInfo(sds info) {
    return sdscatfmt(info,
                     "aof_last_cow_size:%I\r\n"
                     "module_fork_in_progress:%i\r\n"
                     "module_fork_last_cow_size:%U\r\n",
                     aof_rewrite.last_cow_bytes, moduleForkInProgress(), (unsigned long long)moduleForkLastCowSize());
}

long long aofLatestForkUsec(void) { return aof_rewrite.latest_fork_usec; }
long long aofTotalForks(void) { return aof_rewrite.total_forks; }

/* As Redis: an error while a rewrite runs; scheduled while a BGSAVE child
 * runs or inside EXEC (a fork there would split the transaction's writes). */
void bgrewriteaofCommand(client *c) {
    if (aofRewriteInProgress()) {
        addReplyError(c, "Background append only file rewriting already in progress");
        return;
    }
    if (rdbBgsaveInProgress() || moduleForkInProgress() || server.in_exec) {
        aof_rewrite.scheduled = 1;
        addReplyStatus(c, "Background append only file rewriting scheduled");
        return;
    }
    if (aofRewriteStart() != C_OK) {
        addReplyError(c, "Can't execute an AOF background rewriting. Please check the server logs for more "
                         "information.");
        return;
    }
    addReplyStatus(c, "Background append only file rewriting started");
}
