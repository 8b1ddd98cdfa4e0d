/* migrate.c -- MIGRATE: move (or copy) keys to another server, as DUMP
 * here, RESTORE there and, once the target has acknowledged, DEL here.
 *
 *   MIGRATE host port key|"" db timeout [COPY] [REPLACE]
 *           [AUTH password | AUTH2 username password] [KEYS key ...]
 *
 * Design decisions (the replies and error strings are Redis 7.0's):
 * - The payload of each key is DUMP's (dumpPayloadCreate, dump.c), sent as
 *   `RESTORE key ttl payload [REPLACE]` with the remaining TTL in ms (0 =
 *   none; a key whose TTL is already past is skipped), RESTORE-ASKING in
 *   cluster mode (as Redis: the target may only be importing the slot, and
 *   must take the key without -MOVED). AUTH/AUTH2 go first when given, then SELECT when
 *   the link's last known database differs, then the RESTOREs: all written
 *   in one pipeline, then every reply read, in order.
 * - The I/O is synchronous, on a non-blocking socket waited on with
 *   aeWait(): the event loop stops for at most `timeout` ms (<= 0 means
 *   1000) per connect, per write that makes no progress and per reply line.
 *   This is what Redis does: MIGRATE is an operator's command, and a
 *   synchronous exchange keeps the key and its acknowledgement in one
 *   command, with no intermediate state to expose to other clients.
 * - Links are cached per "host:port" (at most MIGRATE_MAX_LINKS, a random
 *   one closed to make room) and remember the database they last SELECTed;
 *   migrateCron() closes those idle for MIGRATE_LINK_IDLE_SECS. An I/O error
 *   closes the link. If the link was a reused cached one, the error was not
 *   a timeout and no RESTORE reply had been read yet, the attempt is made
 *   once more on a fresh connection (the target most likely closed an idle
 *   link).
 * - Only keys whose RESTORE the target acknowledged are deleted (without
 *   COPY), and they propagate as `DEL key ...`; MIGRATE itself never
 *   propagates. The first error the target sent (AUTH's and SELECT's count
 *   for every key) is the reply, and the keys it concerns stay. A link that
 *   saw an error forgets its database, so the next call SELECTs again.
 * - TLS when tls-cluster is yes (in or out of cluster mode, as Redis 7.0):
 *   the target's port is then its TLS port, and the exchange goes through
 *   tls.c's synchronous client session (tlsSyncOpen...), which says which
 *   socket event to wait for, so both transports keep the same timeouts. A
 *   failed handshake is a failed connect ("-IOERR ... connecting").
 */
#include "server.h"

#include <errno.h>

#define MIGRATE_MAX_LINKS 64
#define MIGRATE_LINK_IDLE_SECS 10
#define MIGRATE_LINE_MAX 1024   /* a reply line longer than this is cut */
#define MIGRATE_READBUF 4096

/* ---- the arguments ---------------------------------------------------------------------------- */

typedef struct migrateArgs {
    int copy, replace;
    robj *username, *password; /* AUTH2 sets both, AUTH only the password */
    int first_key, num_keys;   /* argv positions of the keys */
    long timeout;              /* ms */
    long dbid;
} migrateArgs;

/* The options after the fifth argument, up to KEYS (which takes the rest).
 * 0 with an error replied. */
static int parseMigrateOptions(client *c, migrateArgs *a) {
    for (int j = 6; j < c->argc; j++) {
        const char *opt = c->argv[j]->ptr;
        int more = c->argc - 1 - j;
        if (!strcasecmp(opt, "copy")) {
            a->copy = 1;
        } else if (!strcasecmp(opt, "replace")) {
            a->replace = 1;
        } else if (!strcasecmp(opt, "auth") && more >= 1) {
            a->password = c->argv[++j]; /* an earlier AUTH2's username stays, as in Redis */
        } else if (!strcasecmp(opt, "auth2") && more >= 2) {
            a->username = c->argv[++j];
            a->password = c->argv[++j];
        } else if (!strcasecmp(opt, "keys")) {
            if (sdslen(c->argv[3]->ptr) != 0) {
                addReplyError(c, "When using MIGRATE KEYS option, the key argument must be set to the empty string");
                return 0;
            }
            a->first_key = j + 1;
            a->num_keys = c->argc - j - 1;
            return 1;
        } else {
            addReplyErrorObject(c, shared.syntaxerr);
            return 0;
        }
    }
    return 1;
}

static int parseMigrateArgs(client *c, migrateArgs *a) {
    memset(a, 0, sizeof(*a));
    a->first_key = 3;
    a->num_keys = 1;
    if (!parseMigrateOptions(c, a)) return 0;
    if (getLongFromObjectOrReply(c, c->argv[5], &a->timeout, NULL) != C_OK) return 0;
    if (getLongFromObjectOrReply(c, c->argv[4], &a->dbid, NULL) != C_OK) return 0;
    if (a->timeout <= 0) a->timeout = 1000;
    return 1;
}

/* ---- the keys --------------------------------------------------------------------------------- */

typedef struct migrateBatch {
    int count;
    robj **keys;     /* the client's argv objects */
    long long *ttls; /* ms left, 0 = no TTL */
    sds *payloads;
    int *restored;   /* the target acknowledged keys[j] */
} migrateBatch;

/* The keys that exist and have not expired, with their payloads, taken now
 * so nothing the command does later can change them. */
static void collectBatch(client *c, const migrateArgs *a, migrateBatch *b) {
    b->count = 0;
    b->keys = zmalloc(sizeof(robj *) * a->num_keys);
    b->ttls = zmalloc(sizeof(long long) * a->num_keys);
    b->payloads = zmalloc(sizeof(sds) * a->num_keys);
    b->restored = zcalloc(sizeof(int) * a->num_keys);
    for (int j = 0; j < a->num_keys; j++) {
        robj *key = c->argv[a->first_key + j];
        robj *o = lookupKeyRead(c->db, key);
        if (o == NULL) continue;
        long long when = kvobjGetExpire(o), ttl = 0;
        if (when != -1) {
            ttl = when - server.mstime;
            if (ttl < 0) continue;
            if (ttl < 1) ttl = 1;
        }
        b->keys[b->count] = key;
        b->ttls[b->count] = ttl;
        b->payloads[b->count] = dumpPayloadCreate(o);
        b->count++;
    }
}

static void freeBatch(migrateBatch *b) {
    for (int j = 0; j < b->count; j++) sdsfree(b->payloads[j]);
    zfree(b->keys);
    zfree(b->ttls);
    zfree(b->payloads);
    zfree(b->restored);
}

/* ---- cached links ----------------------------------------------------------------------------- */

typedef struct migrateLink {
    int fd;
    void *tls;         /* the TLS session on fd (tls-cluster yes), or NULL */
    long dbid;         /* the database last SELECTed there, -1 when unknown */
    time_t last_use;
    size_t rpos, rlen; /* unread bytes of rbuf */
    char rbuf[MIGRATE_READBUF];
} migrateLink;

static void migrateLinkFree(dict *d, void *val) {
    (void)d;
    migrateLink *link = val;
    tlsSyncClose(link->tls);
    close(link->fd);
    zfree(link);
}

static dictType migrateLinkDictType = {
    .hashFunction = dictSdsHash,
    .keyCompare = dictSdsKeyCompare,
    .keyDestructor = dictSdsDestructor,
    .valDestructor = migrateLinkFree,
};

static dict *migrate_links; /* "host:port" -> migrateLink, created on first use */

static sds linkName(client *c) {
    return sdscatfmt(sdsempty(), "%S:%S", c->argv[1]->ptr, c->argv[2]->ptr);
}

static void linkClose(client *c) {
    if (migrate_links == NULL) return;
    sds name = linkName(c);
    dictDelete(migrate_links, name);
    sdsfree(name);
}

/* A socket whose connection has been settled, or -1 when the host cannot
 * be resolved or `timeout` ms pass first. A refused connection is settled
 * too: the write that follows fails, so MIGRATE to a closed port says
 * "writing", as Redis 7.0 does. */
static int connectWithTimeout(const char *host, const char *port, long timeout) {
    int fd = anetTcpNonBlockConnect(NULL, host, atoi(port));
    if (fd == -1) return -1;
    if (aeWait(fd, AE_WRITABLE, timeout) <= 0) {
        close(fd);
        return -1;
    }
    anetEnableTcpNoDelay(NULL, fd);
    return fd;
}

/* The cached link to argv[1]:argv[2], or a new one (*reused says which);
 * NULL with the IOERR replied when connecting fails. */
static migrateLink *linkGet(client *c, long timeout, int *reused) {
    if (migrate_links == NULL) migrate_links = dictCreate(&migrateLinkDictType);
    sds name = linkName(c);
    migrateLink *link = dictFetchValue(migrate_links, name);
    *reused = link != NULL;
    if (link == NULL) {
        int fd = connectWithTimeout(c->argv[1]->ptr, c->argv[2]->ptr, timeout);
        void *tls = NULL;
        if (fd != -1 && tls_config.cluster && (tls = tlsSyncOpen(fd, timeout)) == NULL) {
            close(fd);
            fd = -1;
        }
        if (fd == -1) {
            sdsfree(name);
            addReplyError(c, "-IOERR error or timeout connecting to the client");
            return NULL;
        }
        if (dictSize(migrate_links) >= MIGRATE_MAX_LINKS)
            dictDelete(migrate_links, dictGetKey(dictGetRandomKey(migrate_links)));
        link = zcalloc(sizeof(*link));
        link->fd = fd;
        link->tls = tls;
        link->dbid = -1;
        dictAdd(migrate_links, name, link);
        name = NULL; /* the dict's now */
    }
    sdsfree(name);
    link->last_use = server.unixtime;
    return link;
}

unsigned long migrateCachedLinks(void) { return migrate_links ? dictSize(migrate_links) : 0; }

/* serverCron: close the links idle for more than MIGRATE_LINK_IDLE_SECS. */
void migrateCron(void) {
    if (migrate_links == NULL || dictSize(migrate_links) == 0) return;
    dictIterator *it = dictGetSafeIterator(migrate_links);
    dictEntry *de;
    while ((de = dictNext(it)) != NULL) {
        migrateLink *link = dictGetVal(de);
        if (server.unixtime - link->last_use > MIGRATE_LINK_IDLE_SECS)
            dictDelete(migrate_links, dictGetKey(de));
    }
    dictReleaseIterator(it);
}

/* ---- synchronous I/O with a timeout ----------------------------------------------------------- */

/* Waits until fd is ready for `mask`; 0 with errno ETIMEDOUT when `timeout`
 * ms pass first. */
static int waitReady(int fd, int mask, long timeout) {
    int ready = aeWait(fd, mask, timeout);
    if (ready > 0) return 1;
    if (ready == 0) errno = ETIMEDOUT;
    return 0;
}

/* All of buf, waiting at most `timeout` ms each time the socket is full. */
static int linkWrite(migrateLink *link, const char *buf, size_t len, long timeout) {
    while (len > 0) {
        int want = AE_WRITABLE;
        ssize_t n = link->tls ? tlsSyncWrite(link->tls, buf, len, &want) : write(link->fd, buf, len);
        if (n > 0) {
            buf += n;
            len -= (size_t)n;
        } else if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
            return 0;
        } else if (!waitReady(link->fd, want, timeout)) {
            return 0;
        }
    }
    return 1;
}

/* Refills the read buffer; 0 on error, end of stream or timeout. */
static int linkFill(migrateLink *link, long timeout) {
    for (;;) {
        int want = AE_READABLE;
        ssize_t n = link->tls ? tlsSyncRead(link->tls, link->rbuf, sizeof(link->rbuf), &want)
                              : read(link->fd, link->rbuf, sizeof(link->rbuf));
        if (n > 0) {
            link->rpos = 0;
            link->rlen = (size_t)n;
            return 1;
        }
        if (n == 0) errno = ECONNRESET;
        if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) return 0;
        if (!waitReady(link->fd, want, timeout)) return 0;
    }
}

/* One reply line, without its CRLF (cut to MIGRATE_LINE_MAX - 1 bytes); 0
 * on error, end of stream or when `timeout` ms pass without a byte. */
static int linkReadLine(migrateLink *link, char *line, long timeout) {
    size_t len = 0;
    for (;;) {
        if (link->rpos == link->rlen && !linkFill(link, timeout)) return 0;
        char ch = link->rbuf[link->rpos++];
        if (ch == '\n') break;
        if (len < MIGRATE_LINE_MAX - 1) line[len++] = ch;
    }
    if (len > 0 && line[len - 1] == '\r') len--;
    line[len] = '\0';
    return 1;
}

/* ---- the exchange ----------------------------------------------------------------------------- */

static sds appendBulk(sds buf, const char *p, size_t len) {
    buf = sdscatfmt(buf, "$%U\r\n", (unsigned long long)len);
    buf = sdscatlen(buf, p, len);
    return sdscatlen(buf, "\r\n", 2);
}

static sds appendBulkSds(sds buf, sds s) { return appendBulk(buf, s, sdslen(s)); }

static sds appendBulkNumber(sds buf, long long n) {
    char num[LONG_STR_SIZE];
    return appendBulk(buf, num, (size_t)ll2string(num, sizeof(num), n));
}

/* The whole pipeline: AUTH, SELECT when `selecting`, one RESTORE a key. */
static sds buildRequest(const migrateArgs *a, const migrateBatch *b, int selecting) {
    sds buf = sdsempty();
    if (a->password) {
        buf = sdscat(buf, a->username ? "*3\r\n" : "*2\r\n");
        buf = appendBulk(buf, "AUTH", 4);
        if (a->username) buf = appendBulkSds(buf, a->username->ptr);
        buf = appendBulkSds(buf, a->password->ptr);
    }
    if (selecting) {
        buf = sdscat(buf, "*2\r\n");
        buf = appendBulk(buf, "SELECT", 6);
        buf = appendBulkNumber(buf, a->dbid);
    }
    for (int j = 0; j < b->count; j++) {
        buf = sdscat(buf, a->replace ? "*5\r\n" : "*4\r\n");
        /* in cluster mode the target may only be importing the slot */
        if (server.cluster_enabled) buf = appendBulk(buf, "RESTORE-ASKING", 14);
        else buf = appendBulk(buf, "RESTORE", 7);
        buf = appendBulkSds(buf, b->keys[j]->ptr);
        buf = appendBulkNumber(buf, b->ttls[j]);
        buf = appendBulkSds(buf, b->payloads[j]);
        if (a->replace) buf = appendBulk(buf, "REPLACE", 7);
    }
    return buf;
}

/* What the target answered. */
typedef struct migrateOutcome {
    int io_error;     /* the link failed (errno says how) */
    int replies;      /* RESTORE replies read */
    sds target_error; /* the first error it sent, without its '-', or NULL */
} migrateOutcome;

static void noteTargetError(migrateOutcome *out, const char *line) {
    if (out->target_error == NULL) out->target_error = sdsnew(line + 1);
}

/* Reads the replies of buildRequest's pipeline and marks the keys the
 * target restored. An AUTH or SELECT error counts for every key. */
static void readReplies(migrateLink *link, const migrateArgs *a, migrateBatch *b, int selecting,
                        migrateOutcome *out) {
    char line[MIGRATE_LINE_MAX];
    int refused = 0;
    for (int n = (a->password != NULL) + selecting; n > 0; n--) { /* AUTH's, SELECT's */
        if (!linkReadLine(link, line, a->timeout)) {
            out->io_error = 1;
            return;
        }
        if (line[0] == '-') {
            noteTargetError(out, line);
            refused = 1;
        }
    }
    for (int j = 0; j < b->count; j++) {
        if (!linkReadLine(link, line, a->timeout)) {
            out->io_error = 1;
            return;
        }
        out->replies++;
        if (line[0] == '-') noteTargetError(out, line);
        else if (!refused) b->restored[j] = 1;
    }
}

/* Deletes the keys the target restored and propagates them as one DEL. */
static void deleteRestored(client *c, const migrateBatch *b) {
    robj **delv = zmalloc(sizeof(robj *) * (b->count + 1));
    int delc = 0;
    delv[delc++] = shared.del_cmd;
    for (int j = 0; j < b->count; j++) {
        if (!b->restored[j]) continue;
        robj *key = b->keys[j];
        if (!dbDelete(c->db, key)) continue;
        signalModifiedKey(c, c->db, key);
        notifyKeyspaceEvent(NOTIFY_GENERIC, "del", key, c->db->id);
        server.dirty++;
        delv[delc++] = key;
    }
    if (delc > 1) propagateCommandAs(c, delv, delc);
    zfree(delv);
}

#define ATTEMPT_DONE 0
#define ATTEMPT_RETRY 1

/* One try over one link; replies unless it returns ATTEMPT_RETRY (only
 * when `may_retry`). */
static int migrateAttempt(client *c, const migrateArgs *a, migrateBatch *b, int may_retry) {
    int reused;
    migrateLink *link = linkGet(c, a->timeout, &reused);
    if (link == NULL) return ATTEMPT_DONE;
    int selecting = link->dbid != a->dbid;
    sds request = buildRequest(a, b, selecting);
    int written = linkWrite(link, request, sdslen(request), a->timeout);
    sdsfree(request);
    migrateOutcome out = {0, 0, NULL};
    if (written) readReplies(link, a, b, selecting, &out);
    else out.io_error = 1;

    int timed_out = out.io_error && errno == ETIMEDOUT;
    int failed_early = out.io_error && out.replies == 0 && out.target_error == NULL;
    if (out.io_error) linkClose(c); /* link is gone from here on */
    if (failed_early && may_retry && reused && !timed_out) return ATTEMPT_RETRY;

    if (!a->copy) deleteRestored(c, b);
    if (out.target_error) {
        if (!out.io_error) link->dbid = -1;
        addReplyErrorFormat(c, "Target instance replied with error: %s", out.target_error);
        sdsfree(out.target_error);
    } else if (out.io_error) {
        addReplyErrorFormat(c, "-IOERR error or timeout %s to target instance", written ? "reading" : "writing");
    } else {
        link->dbid = a->dbid;
        addReply(c, shared.ok);
    }
    return ATTEMPT_DONE;
}

void migrateCommand(client *c) {
    migrateArgs a;
    if (!parseMigrateArgs(c, &a)) return;
    preventCommandPropagation(c); /* only the DEL of what moved, if anything */
    migrateBatch b;
    collectBatch(c, &a, &b);
    if (b.count == 0) {
        addReplyStatus(c, "NOKEY");
    } else if (migrateAttempt(c, &a, &b, 1) == ATTEMPT_RETRY) {
        migrateAttempt(c, &a, &b, 0);
    }
    freeBatch(&b);
}
