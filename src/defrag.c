/* defrag.c -- active defragmentation (`activedefrag`), Redis 7.0's directives
 * and INFO fields on the upstream, unpatched jemalloc 5.3.
 *
 * What it does: when the allocator's pages hold more than
 * active-defrag-threshold-lower percent (and active-defrag-ignore-bytes) of
 * waste, serverCron runs a time-bounded slice of a walk over every
 * database: each key's blocks -- its kvobj, a RAW string's sds, a listpack,
 * an intset, a quicklist and its nodes, a hash or set table with its entries
 * and their sds -- are offered to zmalloc_defrag_move(), which copies a
 * block to a fuller slab when jemalloc's utilization query says its own slab
 * is emptier than its size class's average; every pointer to the block is
 * then repointed and the old block freed. Once the walk ends the database's
 * bucket arrays follow, and the pass stops; a second later the fragmentation
 * is measured again and another pass starts if it is still high.
 *
 * Design decisions:
 * - The CPU share goes from active-defrag-cycle-min at the lower threshold
 *   to active-defrag-cycle-max at the upper one, as in Redis. Unlike Redis,
 *   which spends it in one slice per cron tick (25 ms stalls at the
 *   defaults, hz 10), the share is spent in slices of at most 1 ms from a
 *   timer of its own (defragTimerProc), so a client never waits more than
 *   about a millisecond behind the defragmenter. A slice checks the clock
 *   every few buckets, so it ends within a bucket (or a batch of a big
 *   value) of its budget.
 * - Values with more than active-defrag-max-scan-fields elements (hash and
 *   set tables, quicklists) are queued by key name and done in batches over
 *   several slices; each batch looks the key up again, so a value deleted,
 *   replaced or converted meanwhile is simply dropped or restarted safely.
 * - Who else may hold a pointer to a block we move, and why they can't see
 *   it move:
 *   * the forkless snapshot and AOF rewrite (snapshot.c) keep a kvobj, a
 *     dict iterator or a quicklist node of the value they are writing
 *     across slices, and a kvtable cursor: no slice runs while one is in
 *     progress (snapshotInProgress()); a fork child has its own copy of the
 *     heap, but moving blocks under it only costs copy-on-write pages, so
 *     no slice runs while one exists either (Redis does the same);
 *   * the lazyfree thread frees values already detached from the keyspace:
 *     the walk only reaches blocks linked from a database, so the two never
 *     share a block;
 *   * shm rings are mmap()ed memfds, never zmalloc blocks; replication
 *     buffers, the backlog and client buffers are not walked at all;
 *   * commands, scripts and modules hold kvobj pointers only while they run
 *     (module key handles look the key up again on each use), and slices
 *     run from a timer, between commands: a load or a busy script serves
 *     clients with file events only (loading.c, script.c), so no slice
 *     runs inside them (nor while server.loading); an object with a
 *     refcount other than 1 is left alone;
 *   * db->expires borrows each TTL key's kvobj and the key sds inside it:
 *     its entry is repointed before the old block is freed.
 *   Sorted sets' skiplists, streams, pub/sub channels and scripts are not
 *   moved (their top-level blocks aside, see defragValue). A module value's
 *   block is, and its type's defrag callback moves what it owns (through
 *   DefragAlloc); one whose free effort is over active-defrag-max-scan-fields
 *   is queued and given the rest of each slice, with its cursor
 *   (module_defrag.c). Modules' RegisterDefragFunc callbacks run first in
 *   each pass.
 * - With MALLOC=libc the directive exists but `activedefrag yes` is refused,
 *   in the file and by CONFIG SET, as a Redis built without its jemalloc.
 */
#include "server.h"
#include "snapshot.h"
#include "quicklist.h"

#include <errno.h>
#include <limits.h>
#include <string.h>

/* ---- state ------------------------------------------------------------------------------ */

typedef struct laterKey {  /* a big value, done in batches */
    int db;
    sds key;
    unsigned long cursor;  /* dictScan cursor, or the next quicklist node's index */
    int started;
} laterKey;

static struct {
    int running;                /* INFO active_defrag_running: the CPU percent of the pass, 0 when idle */
    long long hits, misses;     /* blocks moved / offered but left */
    long long key_hits, key_misses;
    long long total_time_ms;    /* passes that ended */
    long long pass_start_ms;    /* the running pass's start */
    long long last_check_ms;    /* the last measurement of fragmentation */
    int db;                     /* the walk: database and kvtableScan cursor */
    unsigned long cursor;
    list *later;                /* laterKey *, FIFO */
    int globals_done;           /* the modules' global callbacks ran this pass */
    long long slice_end_us;     /* the running slice's budget end (monotonic), for module callbacks */
} defrag;

/* ---- the configuration ----------------------------------------------------------------------- */

int defragApplyConfig(sds *err) {
    if (!server.active_defrag_enabled || zmalloc_defrag_supported()) return C_OK;
    *err = sdsnew("Active defragmentation cannot be enabled: it requires a server built with jemalloc "
                  "(this one uses libc malloc, which cannot tell whether moving a block would help)");
    return C_ERR;
}

/* ---- moving blocks ------------------------------------------------------------------------ */

/* A copy of the block in a better place, or NULL (counted either way). The
 * caller repoints, then releases the old block with zmalloc_defrag_free. */
static void *defragCopy(void *ptr) {
    void *copy = zmalloc_defrag_move(ptr);
    if (copy) defrag.hits++;
    else defrag.misses++;
    return copy;
}

/* For a block with a single owner pointer: moved and the old one freed;
 * NULL when left where it is. */
static void *defragBlock(void *ptr) {
    void *copy = defragCopy(ptr);
    if (copy) zmalloc_defrag_free(ptr);
    return copy;
}

/* For modules (DefragAlloc, their values' blocks): the same. */
void *defragMoveBlock(void *ptr) { return defragBlock(ptr); }

static sds defragSds(sds s) {
    char *block = sdsAllocPtr(s);
    size_t offset = (size_t)(s - block);
    char *moved = defragBlock(block);
    return moved ? moved + offset : NULL;
}

/* ---- values --------------------------------------------------------------------------------- */

typedef struct dictDefragCtx {
    dict *d;
    int sds_values;
} dictDefragCtx;

/* One entry of a hash or set table: its key sds, its value sds (hashes),
 * then the entry itself, relinked through the link that points at it. */
static void defragDictEntry(void *privdata, const dictEntry *de) {
    dictDefragCtx *ctx = privdata;
    void *key = dictGetKey(de);
    dictEntry **link = dictFindEntryRefByPtrAndHash(ctx->d, key, dictGetHash(ctx->d, key));
    if (link == NULL) return;
    dictEntry *e = *link;
    sds newkey = defragSds(key);
    if (newkey) e->key = newkey;
    if (ctx->sds_values && e->v.val) {
        sds newval = defragSds(e->v.val);
        if (newval) e->v.val = newval;
    }
    dictEntry *moved = defragCopy(e);
    if (moved == NULL) return;
    *link = moved;
    zmalloc_defrag_free(e);
}

/* The table itself: the dict struct (o->ptr) and its bucket arrays. */
static void defragDictShell(robj *o) {
    dict *moved = defragBlock(o->ptr);
    if (moved) o->ptr = moved;
    dictDefragTables(o->ptr, defragBlock);
}

static unsigned long defragDictStep(robj *o, unsigned long cursor) {
    dictDefragCtx ctx = {o->ptr, o->type == OBJ_HASH};
    return dictScan(ctx.d, cursor, defragDictEntry, &ctx);
}

static void defragQuicklistNode(quicklist *ql, quicklistNode *node) {
    quicklistNode *moved = defragCopy(node);
    if (moved) {
        if (moved->prev) moved->prev->next = moved;
        else ql->head = moved;
        if (moved->next) moved->next->prev = moved;
        else ql->tail = moved;
        zmalloc_defrag_free(node);
        node = moved;
    }
    unsigned char *entry = defragBlock(node->entry);
    if (entry) node->entry = entry;
}

static void defragQuicklistShell(robj *o) {
    quicklist *moved = defragBlock(o->ptr);
    if (moved) o->ptr = moved;
}

/* Nodes [first, first+count) of the quicklist; returns the index after the
 * last one done, 0 when the list's end was reached. */
static unsigned long defragQuicklistNodes(quicklist *ql, unsigned long first, unsigned long count) {
    quicklistNode *node = ql->head;
    unsigned long index = 0;
    for (; node && index < first; index++) node = node->next;
    for (; node && count > 0; index++, count--) {
        quicklistNode *next = node->next;
        defragQuicklistNode(ql, node);
        node = next;
    }
    return node ? index : 0;
}

static int defragIsBig(robj *o) {
    if (o->encoding == OBJ_ENCODING_HT) return dictSize((dict *)o->ptr) > server.active_defrag_max_scan_fields;
    if (o->encoding == OBJ_ENCODING_QUICKLIST)
        return quicklistCount(o->ptr) > server.active_defrag_max_scan_fields;
    return 0;
}

static void defragLater(int db, kvobj *o) {
    if (defrag.later == NULL) defrag.later = listCreate();
    laterKey *lk = zmalloc(sizeof(*lk));
    lk->db = db;
    lk->key = sdsdup(kvobjGetKey(o));
    lk->cursor = 0;
    lk->started = 0;
    listAddNodeTail(defrag.later, lk);
}

/* Everything the value owns, except big tables and lists, which are queued
 * and done in batches. Embedded strings and integers live in the kvobj. */
static void defragValue(int db, kvobj *o) {
    if (o->type == OBJ_MODULE) { /* its moduleValue block, then the type's defrag callback */
        if (!moduleDefragValue(o, db)) defragLater(db, o);
        return;
    }
    if (o->type == OBJ_STRING) {
        if (o->encoding != OBJ_ENCODING_RAW) return;
        sds moved = defragSds(o->ptr);
        if (moved) o->ptr = moved;
        return;
    }
    switch (o->encoding) {
    case OBJ_ENCODING_LISTPACK:
    case OBJ_ENCODING_INTSET: {
        void *moved = defragBlock(o->ptr);
        if (moved) o->ptr = moved;
        return;
    }
    case OBJ_ENCODING_QUICKLIST:
        defragQuicklistShell(o);
        if (defragIsBig(o)) defragLater(db, o);
        else defragQuicklistNodes(o->ptr, 0, ULONG_MAX);
        return;
    case OBJ_ENCODING_HT:
        if (o->type != OBJ_HASH && o->type != OBJ_SET) return;
        defragDictShell(o);
        if (defragIsBig(o)) {
            defragLater(db, o);
            return;
        }
        unsigned long cursor = 0;
        do cursor = defragDictStep(o, cursor);
        while (cursor != 0);
        return;
    default:
        return; /* sorted-set skiplists, streams: not moved */
    }
}

/* ---- keys ------------------------------------------------------------------------------------ */

/* The kvobj block itself. An embedded value moves with it (o->ptr points
 * inside the block); db->expires borrows the block's key sds and the kvobj,
 * so its entry is repointed (and moved too) while the old block is still
 * readable, then the keyspace's link, then the old block goes. */
static void defragEntry(redisDb *db, kvobj *o) {
    kvobj *moved = defragCopy(o);
    if (moved == NULL) return;
    uintptr_t base = (uintptr_t)o, value = (uintptr_t)o->ptr;
    if (o->type == OBJ_STRING && o->encoding == OBJ_ENCODING_EMBSTR && value - base < kvobjAllocSize(o))
        moved->ptr = (char *)moved + (value - base);
    if (kvobjHasExpire(o)) {
        sds oldkey = kvobjGetKey(o);
        dictEntry **link = dictFindEntryRefByPtrAndHash(db->expires, oldkey, dictGetHash(db->expires, oldkey));
        serverAssert(link != NULL);
        dictEntry *e = *link;
        e->key = kvobjGetKey(moved);
        e->v.val = moved;
        dictEntry *moved_entry = defragCopy(e);
        if (moved_entry) {
            *link = moved_entry;
            zmalloc_defrag_free(e);
        }
    }
    int relinked = kvtableReplaceReallocated(db->keys, o, moved);
    serverAssert(relinked == KVTABLE_OK);
    zmalloc_defrag_free(o);
}

static void defragKey(void *privdata, kvobj *o) {
    redisDb *db = privdata;
    if (o->refcount != 1) return; /* held by someone else: left alone */
    long long hits = defrag.hits;
    defragValue(db->id, o);
    defragEntry(db, o);
    if (defrag.hits > hits) defrag.key_hits++;
    else defrag.key_misses++;
}

/* One batch of the oldest queued big value; 1 when it is done (or gone). */
static int defragLaterStep(laterKey *lk) {
    redisDb *db = &server.db[lk->db];
    kvobj *o = kvtableFind(db->keys, lk->key, sdslen(lk->key));
    if (o && o->type == OBJ_MODULE && o->refcount == 1) { /* the type's callback, with its cursor, until the slice ends */
        lk->started = 1;
        return !moduleDefragLater(o, lk->db, &lk->cursor, defrag.slice_end_us);
    }
    if (o == NULL || o->refcount != 1 || !defragIsBig(o)) return 1; /* deleted, shrunk or converted */
    if (o->encoding == OBJ_ENCODING_QUICKLIST) {
        lk->cursor = defragQuicklistNodes(o->ptr, lk->cursor, 16);
    } else if (o->encoding == OBJ_ENCODING_HT) {
        for (int j = 0; j < 16; j++) {
            lk->cursor = defragDictStep(o, lk->cursor);
            if (lk->cursor == 0) break;
        }
    } else {
        return 1;
    }
    lk->started = 1;
    return lk->cursor == 0;
}

static void defragLaterDrop(void) {
    listNode *ln = listFirst(defrag.later);
    laterKey *lk = listNodeValue(ln);
    sdsfree(lk->key);
    zfree(lk);
    listDelNode(defrag.later, ln);
}

/* ---- the pass ----------------------------------------------------------------------------- */

static void defragFragmentation(double *pct, size_t *bytes) {
    size_t allocated = 0, active = 0, resident = 0;
    zmalloc_get_allocator_info(&allocated, &active, &resident);
    *pct = allocated ? ((double)active / (double)allocated) * 100 - 100 : 0;
    *bytes = active > allocated ? active - allocated : 0;
}

/* Linear from cycle-min at the lower threshold to cycle-max at the upper. */
static int defragCpuPercent(double frag_pct) {
    int lower = server.active_defrag_threshold_lower, upper = server.active_defrag_threshold_upper;
    int lo = server.active_defrag_cycle_min, hi = server.active_defrag_cycle_max;
    double share = upper > lower ? (frag_pct - lower) / (upper - lower) : 1;
    if (share < 0) share = 0;
    if (share > 1) share = 1;
    int pct = lo + (int)((hi - lo) * share);
    return pct < lo ? lo : (pct > hi ? hi : pct);
}

static void defragStop(void) {
    if (!defrag.running) return;
    defrag.total_time_ms += mstime() - defrag.pass_start_ms;
    defrag.running = 0;
    defrag.db = 0;
    defrag.cursor = 0;
    defrag.globals_done = 0;
    while (defrag.later && listLength(defrag.later)) defragLaterDrop();
}

/* Once a second: start a pass (or raise its CPU share) when the
 * fragmentation is over the lower threshold and the ignore bytes. */
static void defragDecide(void) {
    long long now = mstime();
    if (defrag.running && now - defrag.last_check_ms < 1000) return;
    if (!defrag.running && defrag.last_check_ms && now - defrag.last_check_ms < 1000) return;
    defrag.last_check_ms = now;
    double pct;
    size_t bytes;
    defragFragmentation(&pct, &bytes);
    if (pct < server.active_defrag_threshold_lower || bytes < server.active_defrag_ignore_bytes) return;
    int cpu = defragCpuPercent(pct);
    if (!defrag.running) {
        defrag.pass_start_ms = now;
        defrag.db = 0;
        defrag.cursor = 0;
        serverLog(LL_VERBOSE, "Starting active defrag, frag=%.0f%%, frag_bytes=%zu, cpu=%d%%", pct, bytes, cpu);
    }
    if (cpu > defrag.running) defrag.running = cpu;
}

/* The end of the walk: the databases' bucket arrays, then the pass stops. */
static void defragWalkDone(void) {
    for (int j = 0; j < server.dbnum; j++) {
        kvtableDefragTables(server.db[j].keys, defragBlock);
        dictDefragTables(server.db[j].expires, defragBlock);
    }
    double pct;
    size_t bytes;
    defragFragmentation(&pct, &bytes);
    serverLog(LL_VERBOSE, "Active defrag done in %lldms, reallocated=%lld, frag=%.0f%%, frag_bytes=%zu",
              mstime() - defrag.pass_start_ms, defrag.hits, pct, bytes);
    defragStop();
}

/* One unit of work: a batch of a queued big value, or one step of the
 * keyspace scan. Returns 0 once the walk is over. */
static int defragStep(void) {
    if (!defrag.globals_done) { /* once a pass, first: the modules' RegisterDefragFunc callbacks */
        defrag.globals_done = 1;
        moduleDefragGlobals();
        return 1;
    }
    if (defrag.later && listLength(defrag.later)) {
        if (defragLaterStep(listNodeValue(listFirst(defrag.later)))) defragLaterDrop();
        return 1;
    }
    while (defrag.db < server.dbnum && kvtableSize(server.db[defrag.db].keys) == 0) defrag.db++;
    if (defrag.db >= server.dbnum) return 0;
    redisDb *db = &server.db[defrag.db];
    defrag.cursor = kvtableScan(db->keys, defrag.cursor, defragKey, db);
    if (defrag.cursor == 0) defrag.db++;
    return 1;
}

/* Whether a slice may run now: enabled, jemalloc, and nobody who could be
 * holding a block (see the file's header) busy. */
static int defragAllowed(void) {
    return server.active_defrag_enabled && zmalloc_defrag_supported() && !server.loading &&
           !hasActiveChildProcess() && !snapshotInProgress();
}

/* The period of the slice timer and the slice's budget: a slice never
 * takes more than 1 ms (Redis runs one slice per cron tick, 1/hz of a
 * second times the CPU share: 25 ms at the defaults), and slices come
 * often enough to spend the share: every 100/share ms. */
static long long defragPeriodMs(void) {
    long long period = 100 / (defrag.running > 0 ? defrag.running : 1);
    return period < 1 ? 1 : period;
}

static long long defragSliceUs(void) {
    long long us = defragPeriodMs() * 1000 * defrag.running / 100;
    return us < 50 ? 50 : (us > 1000 ? 1000 : us);
}

static void defragSlice(void) {
    long long budget_us = defragSliceUs(), start = monotonicUs();
    defrag.slice_end_us = start + budget_us;
    int more = 1;
    while (more) {
        more = defragStep();
        if (monotonicUs() - start >= budget_us) break; /* a vDSO clock read: cheap */
    }
    if (!more) defragWalkDone();
    LATENCY_SAMPLE("active-defrag-cycle", (monotonicUs() - start) / 1000);
}

static long long defrag_timer = -1; /* the slice timer's id; -1: none */

static int defragTimerProc(struct aeEventLoop *el, long long id, void *clientData) {
    (void)el; (void)id; (void)clientData;
    if (!defrag.running || !defragAllowed()) {
        defrag_timer = -1;
        return AE_NOMORE;
    }
    defragSlice();
    if (!defrag.running) {
        defrag_timer = -1;
        return AE_NOMORE;
    }
    return (int)defragPeriodMs();
}

/* From serverCron, server.hz times a second: stops a pass when defrag was
 * turned off, decides once a second whether one should run, and keeps the
 * slice timer going while it does. */
void activeDefragCycle(void) {
    if (!server.active_defrag_enabled) {
        defragStop();
        return;
    }
    if (!defragAllowed()) return;
    defragDecide();
    if (defrag.running && defrag_timer == -1)
        defrag_timer = aeCreateTimeEvent(server.el, 1, defragTimerProc, NULL, NULL);
}

/* ---- INFO, CONFIG RESETSTAT --------------------------------------------------------------- */

int defragRunning(void) { return defrag.running; }

sds defragInfoStats(sds info) {
    return sdscatprintf(info,
                        "active_defrag_hits:%lld\r\n"
                        "active_defrag_misses:%lld\r\n"
                        "active_defrag_key_hits:%lld\r\n"
                        "active_defrag_key_misses:%lld\r\n"
                        "total_active_defrag_time:%lld\r\n"
                        "current_active_defrag_time:%lld\r\n",
                        defrag.hits, defrag.misses, defrag.key_hits, defrag.key_misses, defrag.total_time_ms,
                        defrag.running ? mstime() - defrag.pass_start_ms : 0);
}

void defragResetStats(void) {
    defrag.hits = defrag.misses = defrag.key_hits = defrag.key_misses = 0;
    defrag.total_time_ms = 0;
    if (defrag.running) defrag.pass_start_ms = mstime();
}

/* ---- DEBUG MALLCTL / MALLCTL-STR ---------------------------------------------------------- */

/* DEBUG MALLCTL <name> [value]: reads (and writes) a numeric mallctl. Its
 * width is not known in advance: 8 bytes are tried first and, as in Redis
 * 7.0, on EINVAL half of the length jemalloc reported back (so a 4-byte
 * value is answered "Invalid argument" there and here, a 1-byte bool is
 * read). Each width goes through a variable of exactly that width, so the
 * value is right on big-endian machines too. A write-only name (EPERM on
 * reading) is written alone. Returns 0 (*old set), -1 (written only), or
 * an errno value; *width is updated to jemalloc's answer. */
static int mallctlWidth(const char *name, size_t *width, long long *old, long long val, int write) {
    union { int64_t i64; int32_t i32; int16_t i16; uint8_t u8; } o, v;
    size_t w = *width;
    memset(&o, 0, sizeof o);
    memset(&v, 0, sizeof v);
    if (w == 8) v.i64 = val;
    else if (w == 4) v.i32 = (int32_t)val;
    else if (w == 2) v.i16 = (int16_t)val;
    else v.u8 = (uint8_t)val;
    int ret = zmalloc_mallctl(name, &o, width, write ? &v : NULL, write ? w : 0);
    if (ret == EPERM && write) {
        ret = zmalloc_mallctl(name, NULL, NULL, &v, w);
        return ret == 0 ? -1 : ret;
    }
    if (ret != 0) return ret;
    *old = w == 8 ? o.i64 : w == 4 ? o.i32 : w == 2 ? o.i16 : o.u8;
    return 0;
}

void debugMallctlCommand(client *c) {
    if (!zmalloc_defrag_supported()) { /* as a Redis built without jemalloc: no such subcommand */
        addReplySubcommandSyntaxError(c);
        return;
    }
    long long val = 0, old = 0;
    int write = c->argc > 3;
    if (write && getLongLongFromObjectOrReply(c, c->argv[3], &val, NULL) != C_OK) return;
    size_t width = 8;
    while (width > 0) {
        int ret = mallctlWidth(c->argv[2]->ptr, &width, &old, val, write);
        if (ret == -1) {
            addReply(c, shared.ok);
            return;
        }
        if (ret == 0) {
            addReplyLongLong(c, old);
            return;
        }
        if (ret != EINVAL) {
            addReplyErrorFormat(c, "%s", strerror(ret));
            return;
        }
        width /= 2;
    }
    addReplyErrorFormat(c, "%s", strerror(EINVAL));
}

/* DEBUG MALLCTL-STR <name> [value|VOID]: a string mallctl's value (read
 * before any write, as jemalloc wants); VOID writes with no value (e.g.
 * thread.tcache.flush). */
void debugMallctlStrCommand(client *c) {
    if (!zmalloc_defrag_supported()) {
        addReplySubcommandSyntaxError(c);
        return;
    }
    const char *name = c->argv[2]->ptr, *old = NULL;
    size_t len = sizeof old;
    int rret = zmalloc_mallctl(name, &old, &len, NULL, 0), wret = 0;
    int write = c->argc > 3;
    if (rret != 0 && !(rret == EPERM && write)) {
        addReplyErrorFormat(c, "%s", strerror(rret));
        return;
    }
    if (write) {
        const char *val = c->argv[3]->ptr;
        if (!strcmp(val, "VOID")) wret = zmalloc_mallctl(name, NULL, NULL, NULL, 0);
        else wret = zmalloc_mallctl(name, NULL, NULL, &val, sizeof val);
    }
    if (rret == 0) addReplyBulkCString(c, old ? old : "");
    else if (wret != 0) addReplyErrorFormat(c, "%s", strerror(wret));
    else addReply(c, shared.ok);
}
