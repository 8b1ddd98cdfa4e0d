/* prefetch.c -- cache hints for pipelined requests.
 *
 * In a pipeline of keyed commands (GET k1, GET k2 ... arriving in one read)
 * every keyspace lookup is two cache misses in a row: the bucket, then the
 * entry it points to; at -P 16 most of a GET's time is spent waiting for
 * them. While one command runs, the next one's lookup can be on its way:
 * - the next request in the query buffer is peeked at and its key's bucket
 *   is requested;
 * - when that request becomes the current command, its bucket is cached,
 *   so reading it is cheap, and the entry it points to is requested before
 *   the command is dispatched.
 *
 * Design decisions:
 * - Hints only for a request naming the client's previous command (the
 *   same check processCommand's lookup makes first) when that command's
 *   first key is argument 1: no name lookup just for a hint, and a pipeline
 *   nearly always repeats one command.
 * - The peek keeps no parser state and allocates nothing; it stays inside
 *   the query buffer and gives up on anything but a complete
 *   "*N\r\n$L\r\nname\r\n$L\r\nkey\r\n" prefix, leaving every verdict on
 *   the request to the real parser.
 * - A hint costs one hash of the key and the peek's parsing. A wrong one (a
 *   SELECT in the pipeline, a key that is gone) wastes a cache line;
 *   replies never depend on hints.
 * - No hint when the next request names the current key (a pipeline on one
 *   hot key): the current command brings its bucket and entry into the
 *   cache itself, and the hint would only cost a hash.
 * - No hints for a database of fewer than PREFETCH_MIN_KEYS keys: its
 *   buckets and entries (under a megabyte) stay in the CPU's caches, so
 *   the hints would only add their cost (about 5% of a pipelined GET on
 *   one hot key, measured with perf).
 */
#include "server.h"

#define PREFETCH_MIN_KEYS 8192

/* The client whose next request's bucket was requested (single-threaded). */
static client *bucket_requested_for;

/* Whether a pipeline repeating CMD can get hints: its first key is argument 1. */
static int keyedAtArgumentOne(const redisCommand *cmd) {
    return cmd != NULL && !cmd->parent && !cmd->subcommands_dict && cmd->firstkey == 1;
}

/* c's previous command when NAME is that command and its first key is argument 1. */
static redisCommand *repeatedKeyedCommand(client *c, const char *name, size_t len) {
    redisCommand *cmd = c->lastcmd;
    if (!keyedAtArgumentOne(cmd)) return NULL;
    if (len != sdslen(cmd->fullname) || strncasecmp(name, cmd->fullname, len) != 0) return NULL;
    return cmd;
}

/* "<prefix><digits>\r\n" at *p, before END: the number, and *p moved past it. */
static int peekCount(const char **p, const char *end, char prefix, long long *n) {
    const char *s = *p;
    size_t avail = (size_t)(end - s);
    if (avail < 4 || s[0] != prefix) return 0;
    const char *cr = memchr(s + 1, '\r', avail - 1 < 21 ? avail - 1 : 21);
    if (cr == NULL || (size_t)(end - cr) < 2) return 0;
    if (!string2ll(s + 1, (size_t)(cr - s - 1), n) || *n < 0) return 0;
    *p = cr + 2;
    return 1;
}

/* One bulk string "$L\r\n<L bytes>\r\n" at *p, wholly before END. */
static int peekBulk(const char **p, const char *end, const char **str, size_t *len) {
    long long l;
    if (!peekCount(p, end, '$', &l)) return 0;
    if ((unsigned long long)l + 2 > (unsigned long long)(end - *p)) return 0;
    *str = *p;
    *len = (size_t)l;
    *p += l + 2;
    return 1;
}

/* The key of the request waiting in c's query buffer, if it repeats the
 * last keyed command. */
static int peekNextKey(client *c, const char **key, size_t *keylen) {
    const char *p = c->querybuf + c->qb_pos, *end = c->querybuf + sdslen(c->querybuf);
    long long argc;
    const char *name;
    size_t namelen;
    if (!peekCount(&p, end, '*', &argc) || argc < 2) return 0;
    if (!peekBulk(&p, end, &name, &namelen) || !repeatedKeyedCommand(c, name, namelen)) return 0;
    return peekBulk(&p, end, key, keylen);
}

static int sameKey(robj *key, const char *next, size_t nextlen) {
    return sdsEncodedObject(key) && sdslen(key->ptr) == nextlen && memcmp(key->ptr, next, nextlen) == 0;
}

void prefetchPipelinedKeys(client *c) {
    int bucket_cached = bucket_requested_for == c;
    bucket_requested_for = NULL;
    kvtable *keys = c->db->keys;
    /* a pipeline of PUBLISH, EVALSHA ... is not peeked at (~300 instructions each) */
    if (c->argc < 2 || !keyedAtArgumentOne(c->lastcmd) || kvtableSize(keys) < PREFETCH_MIN_KEYS) return;
    robj *key = c->argv[1];
    if (bucket_cached && sdsEncodedObject(key) && sdsEncodedObject(c->argv[0]) &&
        repeatedKeyedCommand(c, c->argv[0]->ptr, sdslen(c->argv[0]->ptr)))
        kvtablePrefetchEntries(keys, kvtableHashKey(key->ptr, sdslen(key->ptr)));
    const char *next;
    size_t nextlen;
    if (c->qb_pos < sdslen(c->querybuf) && peekNextKey(c, &next, &nextlen)) {
        if (sameKey(key, next, nextlen)) return; /* its bucket and entry are about to be in cache */
        kvtablePrefetchBuckets(keys, kvtableHashKey(next, nextlen));
        bucket_requested_for = c;
    }
}
