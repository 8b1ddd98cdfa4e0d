/* lazyfree.c -- freeing big values and whole databases off the main thread:
 * UNLINK, FLUSHALL/FLUSHDB ASYNC and the lazyfree-lazy-* directives.
 *
 * Freeing a hash of a million fields takes as long as building it did;
 * done by the event loop it is a stall every client sees. A value whose
 * freeing is costly (lazyfreeEffort() over LAZYFREE_THRESHOLD, Redis's
 * measure: allocations to free, roughly) is handed to a worker thread once
 * it is out of the keyspace; cheap values are freed at once, since a queue
 * round costs more than they do. A flushed database is handed over whole:
 * the db gets new empty tables and the worker frees the old ones.
 *
 * Design decisions:
 * - Its own worker, not bio.c's: an AOF fsync must not wait behind the
 *   freeing of a flushed dataset (and the other way round).
 * - Only what nobody else can reach goes to the worker: a value detached
 *   from the keyspace with a reference count of 1 (keyspace values are
 *   private kvobjs, kvobj.h), or a table no db points at any more. The
 *   type free functions touch nothing but the value's own memory, and the
 *   allocator's used_memory counter is atomic (zmalloc.c), so no lock is
 *   held while freeing.
 * - INFO's lazyfree_pending_objects counts the values (a flushed table
 *   counts its keys) queued and still to free, and lazyfreed_objects those
 *   freed since the start or CONFIG RESETSTAT, as Redis counts them.
 * - The memory a queued value holds is counted (MEMORY USAGE's estimate)
 *   until the worker has freed it, and eviction leaves it out of used
 *   memory: otherwise every command run before the worker gets there would
 *   see the same excess and evict yet another key. It drops after the
 *   free, so for a moment the value may count as gone twice (evicting
 *   less), never as still there.
 * - The worker starts with the first job, so a server that never frees
 *   lazily has no extra thread.
 */
#include "server.h"
#include "lazyfree.h"
#include "quicklist.h"
#include "stream.h"

#include <pthread.h>

#define LAZYFREE_THRESHOLD 64   /* Redis's: above this many allocations, free in the background */
#define LAZYFREE_SIZE_SAMPLES 5 /* MEMORY USAGE's default, for the estimate eviction counts */

typedef struct lazyfreeJob {
    robj *value;      /* a detached value, or NULL */
    kvtable *keys;    /* a flushed db's tables, or NULL */
    dict *expires;
    size_t objects;   /* what the job counts for in the statistics */
    size_t bytes;     /* the estimate lazyfreeValue() returned, 0 for a flush */
    struct lazyfreeJob *next;
} lazyfreeJob;

static pthread_t worker;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t newjob = PTHREAD_COND_INITIALIZER;
static lazyfreeJob *head, *tail;
static int started;
static size_t pending_objects, freed_objects; /* under the atomics below */
static size_t pending_bytes; /* estimated memory the queued values hold */

/* ---- the cost of freeing a value ---------------------------------------------------------- */

static size_t streamFreeEffort(stream *s) {
    size_t effort = raxNodeCount(s->rax); /* every node is a listpack of its own */
    if (s->cgroups && raxSize(s->cgroups)) {
        /* Each group and each of its pending entries is an allocation; the
         * first group's PEL stands for all of them, as in Redis. */
        raxIterator ri;
        raxStart(&ri, s->cgroups);
        raxSeek(&ri, "^", NULL, 0);
        raxNext(&ri);
        streamCG *cg = ri.data;
        effort += raxSize(s->cgroups) * (1 + raxSize(cg->pel));
        raxStop(&ri);
    }
    return effort;
}

size_t lazyfreeEffort(robj *o, int dbid) {
    switch (o->type) {
    case OBJ_LIST: return o->encoding == OBJ_ENCODING_QUICKLIST ? quicklistNodeCount(o->ptr) : 1;
    case OBJ_SET: return o->encoding == OBJ_ENCODING_HT ? setTypeSize(o) : 1;
    case OBJ_ZSET: return o->encoding == OBJ_ENCODING_SKIPLIST ? zsetLength(o) : 1;
    case OBJ_HASH: return o->encoding == OBJ_ENCODING_HT ? hashTypeLength(o) : 1;
    case OBJ_STREAM: return streamFreeEffort(o->ptr);
    case OBJ_MODULE: return moduleValueFreeEffort(o, dbid); /* the type's free_effort(2); its free then runs here */
    default: return 1; /* a string is one allocation */
    }
}

/* ---- the worker ---------------------------------------------------------------------------- */

static void runJob(lazyfreeJob *job) {
    if (job->value) decrRefCount(job->value);
    if (job->expires) dictRelease(job->expires); /* borrows from keys: first */
    if (job->keys) kvtableRelease(job->keys);
    /* release: whoever reads pending_objects back at 0 (acquire) also sees
     * the frees' used_memory updates */
    __atomic_add_fetch(&freed_objects, job->objects, __ATOMIC_RELAXED);
    __atomic_sub_fetch(&pending_bytes, job->bytes, __ATOMIC_RELEASE);
    __atomic_sub_fetch(&pending_objects, job->objects, __ATOMIC_RELEASE);
}

static void *workerMain(void *arg) {
    (void)arg;
    watchdogBlockInThisThread();
    cpuAffinityBioThread("bio_lazy_free");
    for (;;) {
        pthread_mutex_lock(&lock);
        while (head == NULL) pthread_cond_wait(&newjob, &lock);
        lazyfreeJob *job = head;
        head = job->next;
        if (head == NULL) tail = NULL;
        pthread_mutex_unlock(&lock);
        runJob(job);
        zfree(job);
    }
    return NULL;
}

static void submit(lazyfreeJob *job) {
    if (!started) {
        if (pthread_create(&worker, NULL, workerMain, NULL) != 0) serverPanic("Can't create the lazy free thread");
        started = 1;
    }
    job->next = NULL;
    __atomic_add_fetch(&pending_objects, job->objects, __ATOMIC_RELAXED);
    __atomic_add_fetch(&pending_bytes, job->bytes, __ATOMIC_RELAXED);
    pthread_mutex_lock(&lock);
    if (tail) tail->next = job;
    else head = job;
    tail = job;
    pthread_cond_signal(&newjob);
    pthread_mutex_unlock(&lock);
}

/* ---- the API ------------------------------------------------------------------------------- */

/* Drops the keyspace's reference to a value just detached from it: in the
 * background when that is worth it and nothing else holds the value.
 * Returns an estimate of the memory the thread will give back (MEMORY
 * USAGE's, from a few sampled elements), 0 when it was freed at once. */
size_t lazyfreeValue(robj *o, int dbid) {
    if (o->refcount != 1 || lazyfreeEffort(o, dbid) <= LAZYFREE_THRESHOLD) {
        decrRefCount(o);
        return 0;
    }
    /* a module's value is not measured: its type's callbacks are asked only
     * what Redis 7.0 asks them here (free_effort) */
    size_t estimate = zmalloc_size(o) + (o->type == OBJ_MODULE ? 0 : objectPayloadMemoryUsage(o, LAZYFREE_SIZE_SAMPLES, dbid));
    lazyfreeJob *job = zcalloc(sizeof(*job));
    job->value = o;
    job->objects = 1;
    job->bytes = estimate;
    submit(job);
    return estimate;
}

/* Takes a db's tables, leaving it new empty ones, and frees the old ones in
 * the background. */
void lazyfreeDbTables(redisDb *db) {
    lazyfreeJob *job = zcalloc(sizeof(*job));
    job->keys = db->keys;
    job->expires = db->expires;
    job->objects = kvtableSize(db->keys);
    db->keys = kvtableCreate(kvtableGetType(job->keys));
    db->expires = dictCreate(job->expires->type);
    submit(job);
}

size_t lazyfreePendingObjects(void) { return __atomic_load_n(&pending_objects, __ATOMIC_ACQUIRE); }
size_t lazyfreePendingBytes(void) { return __atomic_load_n(&pending_bytes, __ATOMIC_ACQUIRE); }
size_t lazyfreeFreedObjects(void) { return __atomic_load_n(&freed_objects, __ATOMIC_RELAXED); }
void lazyfreeResetStats(void) { __atomic_store_n(&freed_objects, 0, __ATOMIC_RELAXED); }
