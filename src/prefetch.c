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
 * - Only for read-only commands (GET, HGET, ZSCORE ...). Measured on 1M
 *   keys (-r 1000000, -P 16, -c 50, medians of 5 alternating rounds,
 *   server CPU per request): GET 1.24 us with hints, 1.34 us without (-8%);
 *   SET 1.57 us both ways. A write's own work (values allocated and freed,
 *   the reply, dirty tracking) hides the misses, so for writes the hints
 *   were only their cost: ~500 instructions of a 3,000-instruction SET
 *   (callgrind, issue #39).
 * - The peek keeps no parser state and allocates nothing; it stays inside
 *   the query buffer and gives up on anything but a complete
 *   "*N\r\n$L\r\nname\r\n$L\r\nkey\r\n" prefix, leaving every verdict on
 *   the request to the real parser.
 * - A hint costs one hash of the key (kept in kvtable's memo for the
 *   lookup) and the peek's parsing. A wrong one (a SELECT in the
 *   pipeline, a key that is gone) wastes a cache line; replies never
 *   depend on hints.
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

/* The client whose next request's bucket was requested (single-threaded):
 * when that request runs, its entry is asked for without checking its name
 * again (the peek did, on the same bytes). */
static client *bucket_requested_for;

/* Whether a pipeline repeating CMD can get hints: a read-only command whose
 * first key is argument 1. */
static int keyedAtArgumentOne(const redisCommand *cmd) {
    return cmd != NULL && (cmd->flags & CMD_READONLY) && !cmd->parent && !cmd->subcommands_dict && cmd->firstkey == 1;
}

/* Whether NAME is CMD's name, in any case. */
static int namesCommand(const redisCommand *cmd, const char *name, size_t len) {
    return len == sdslen(cmd->fullname) && strncasecmp(name, cmd->fullname, len) == 0;
}

/* "<prefix><1 to 9 digits>\r" at *p, before END: the number, and *p moved
 * past the line. Only the common form: a sign, a long number or a line cut
 * short gives no hint (the real parser judges the request). A loop of its
 * own instead of memchr and string2ll, which cost a pipelined GET ~300
 * instructions for the peek's three lines. */
static int peekCount(const char **p, const char *end, char prefix, size_t *n) {
    const char *s = *p;
    if (end - s < 4 || s[0] != prefix) return 0;
    size_t v = 0, i = 1;
    while (i <= 9 && s + i < end && s[i] >= '0' && s[i] <= '9') v = v * 10 + (size_t)(s[i++] - '0');
    if (i == 1 || (size_t)(end - s) < i + 2 || s[i] != '\r') return 0;
    *n = v;
    *p = s + i + 2;
    return 1;
}

/* One bulk string "$L\r\n<L bytes>\r\n" at *p, wholly before END. */
static int peekBulk(const char **p, const char *end, const char **str, size_t *len) {
    size_t l;
    if (!peekCount(p, end, '$', &l)) return 0;
    if (l + 2 > (size_t)(end - *p)) return 0;
    *str = *p;
    *len = l;
    *p += l + 2;
    return 1;
}

/* The key of the request waiting in c's query buffer, if it repeats the
 * last command (keyed at argument 1: the caller checked). */
static int peekNextKey(client *c, const char **key, size_t *keylen) {
    const char *p = c->querybuf + c->qb_pos, *end = c->querybuf + sdslen(c->querybuf);
    size_t argc, namelen;
    const char *name;
    if (!peekCount(&p, end, '*', &argc) || argc < 2) return 0;
    if (!peekBulk(&p, end, &name, &namelen) || !namesCommand(c->lastcmd, name, namelen)) return 0;
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
    /* A stale hint (the client freed and its address reused, a SELECT in
     * between) only wastes a cache line. The key is hashed again, not
     * remembered from the peek: a hit in kvtable's memo, which also makes
     * it the most recent entry there, so hashing the next key below evicts
     * the key before it, not this one (else every lookup missed it). */
    robj *key = c->argv[1];
    if (bucket_cached && sdsEncodedObject(key)) kvtablePrefetchEntries(keys, kvtableHashKey(key->ptr, sdslen(key->ptr)));
    const char *next;
    size_t nextlen;
    if (c->qb_pos < sdslen(c->querybuf) && peekNextKey(c, &next, &nextlen)) {
        if (sameKey(key, next, nextlen)) return; /* its bucket and entry are about to be in cache */
        kvtablePrefetchBuckets(keys, kvtableHashKey(next, nextlen)); /* the lookup finds it in the memo */
        bucket_requested_for = c;
    }
}
