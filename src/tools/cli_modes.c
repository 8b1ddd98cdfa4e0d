/* cli_modes.c -- redis-cli's special modes: --pipe, --scan, --bigkeys and
 * --memkeys, --hotkeys, --stat, --latency (and -history / -dist),
 * --lru-test, and --intrinsic-latency, the one that needs no server.
 * (--rdb, --functions-rdb and --replica speak the replication protocol:
 * cli_sync.c.)
 *
 * Each mode runs on the connection main() opened and returns the process
 * exit status. The texts they print (pipe summary, bigkeys summary,
 * latency lines) follow Redis 7's redis-cli, since scripts grep them.
 *
 * --pipe streams stdin to the server while reading replies on the same
 * loop (poll on both), so neither side's buffers fill up and deadlock; the
 * end is detected by a final ECHO of a random marker, whose reply can only
 * come after every other reply.
 */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "cli_common.h"

/* ---- --pipe ------------------------------------------------------------------------- */

#define PIPE_OUTPUT_HIGH_WATER (1024 * 1024)
#define PIPE_MARKER_LEN 20

typedef struct pipeState {
    char marker[PIPE_MARKER_LEN + 1];
    int stdin_done;
    int last_reply_seen;
    long long errors, replies;
    long long last_reply_ms;
} pipeState;

static void makeMarker(char *marker) {
    static const char chars[] = "0123456789abcdefghijklmnopqrstuvwxyz";
    srand((unsigned)(cliMstime() ^ getpid()));
    for (int i = 0; i < PIPE_MARKER_LEN; i++) marker[i] = chars[rand() % (int)(sizeof(chars) - 1)];
    marker[PIPE_MARKER_LEN] = '\0';
}

static int readStdinChunk(pipeState *st) {
    char buf[65536];
    ssize_t n = read(STDIN_FILENO, buf, sizeof(buf));
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) return RC_OK;
    if (n > 0) return rcAppendRaw(context, buf, (size_t)n);
    const char *argv[2] = {"ECHO", st->marker};
    rcAppendCommandArgv(context, 2, argv, NULL);
    st->stdin_done = 1;
    st->last_reply_ms = cliMstime();
    printf("All data transferred. Waiting for the last reply...\n");
    fflush(stdout);
    return RC_OK;
}

static void countReply(pipeState *st, rcReply *r) {
    st->last_reply_ms = cliMstime();
    if (st->stdin_done && r->type == RC_REPLY_BULK && r->len == PIPE_MARKER_LEN &&
        memcmp(r->str, st->marker, PIPE_MARKER_LEN) == 0) {
        st->last_reply_seen = 1;
        return;
    }
    if (r->type == RC_REPLY_ERROR) {
        fprintf(stderr, "%.*s\n", (int)r->len, r->str);
        st->errors++;
    }
    st->replies++;
}

int cliPipeMode(void) {
    pipeState st;
    memset(&st, 0, sizeof(st));
    makeMarker(st.marker);
    while (!st.last_reply_seen) {
        struct pollfd fds[2] = {{context->fd, POLLIN, 0}, {STDIN_FILENO, POLLIN, 0}};
        if (rcPendingOutput(context) > 0) fds[0].events |= POLLOUT;
        int want_stdin = !st.stdin_done && rcPendingOutput(context) < PIPE_OUTPUT_HIGH_WATER;
        if (poll(fds, want_stdin ? 2 : 1, 1000) < 0 && errno != EINTR) break;
        if (want_stdin && (fds[1].revents & (POLLIN | POLLHUP | POLLERR)) && readStdinChunk(&st) != RC_OK) break;
        if (rcFlushNonBlocking(context) != RC_OK) break;
        rcReply *r = NULL;
        while (rcTryReadReply(context, &r) == RC_OK && r) {
            countReply(&st, r);
            rcFreeReply(r);
            r = NULL;
        }
        if (context->err != RC_E_NONE) break;
        if (st.stdin_done && config.pipe_timeout > 0 && !st.last_reply_seen &&
            cliMstime() - st.last_reply_ms > config.pipe_timeout * 1000) {
            fprintf(stderr, "No replies for %lld seconds: exiting.\n", config.pipe_timeout);
            st.errors++;
            break;
        }
    }
    if (context->err != RC_E_NONE) {
        fprintf(stderr, "Error: %s\n", context->errstr);
        return 1;
    }
    if (st.last_reply_seen) printf("Last reply received from server.\n");
    printf("errors: %lld, replies: %lld\n", st.errors, st.replies);
    return st.errors ? 1 : 0;
}

/* ---- --scan ---------------------------------------------------------------------------- */

/* One SCAN call: returns the reply (cursor, keys) or NULL after printing. */
static rcReply *scanOnce(const char *cursor, int with_type) {
    const char *argv[10];
    int argc = 0;
    char count[32];
    argv[argc++] = "SCAN";
    argv[argc++] = cursor;
    if (strcmp(config.pattern, "*") != 0) {
        argv[argc++] = "MATCH";
        argv[argc++] = config.pattern;
    }
    if (config.scan_count > 0) {
        snprintf(count, sizeof(count), "%lld", config.scan_count);
        argv[argc++] = "COUNT";
        argv[argc++] = count;
    }
    if (with_type && config.scan_type) {
        argv[argc++] = "TYPE";
        argv[argc++] = config.scan_type;
    }
    rcReply *r = cliCommand(argc, argv);
    if (!r) return NULL;
    if (r->type == RC_REPLY_ERROR) {
        fprintf(stderr, "Error: %.*s\n", (int)r->len, r->str);
    } else if (r->type == RC_REPLY_ARRAY && r->elements == 2 && r->element[0]->type == RC_REPLY_BULK &&
               rcReplyIsAggregate(r->element[1]->type)) {
        return r;
    } else {
        fprintf(stderr, "Error: unexpected SCAN reply\n");
    }
    rcFreeReply(r);
    return NULL;
}

int cliScanMode(void) {
    sds cursor = sdsnew("0");
    int status = 0;
    do {
        rcReply *r = scanOnce(cursor, 1);
        if (!r) {
            status = 1;
            break;
        }
        rcReply *keys = r->element[1];
        for (size_t i = 0; i < keys->elements; i++) {
            fwrite(keys->element[i]->str, 1, keys->element[i]->len, stdout);
            fputc('\n', stdout);
        }
        cursor = sdscpylen(cursor, r->element[0]->str, r->element[0]->len);
        rcFreeReply(r);
        if (config.interval > 0) cliSleepSeconds(config.interval);
    } while (strcmp(cursor, "0") != 0);
    fflush(stdout);
    sdsfree(cursor);
    return status;
}

/* ---- --bigkeys / --memkeys -------------------------------------------------------------- */

typedef struct typeStats {
    const char *name;       /* TYPE's answer */
    const char *size_cmd;   /* how big it is */
    const char *unit;       /* what the size counts */
    unsigned long long count, total, biggest;
    sds biggest_key;
} typeStats;

static typeStats typeTable[] = {
    {"list", "LLEN", "items", 0, 0, 0, NULL},
    {"hash", "HLEN", "fields", 0, 0, 0, NULL},
    {"string", "STRLEN", "bytes", 0, 0, 0, NULL},
    {"stream", "XLEN", "entries", 0, 0, 0, NULL},
    {"set", "SCARD", "members", 0, 0, 0, NULL},
    {"zset", "ZCARD", "members", 0, 0, 0, NULL},
};
#define TYPE_COUNT (sizeof(typeTable) / sizeof(typeTable[0]))

static typeStats *findType(const char *name, size_t len) {
    for (size_t i = 0; i < TYPE_COUNT; i++)
        if (strlen(typeTable[i].name) == len && memcmp(typeTable[i].name, name, len) == 0) return &typeTable[i];
    return NULL;
}

static long long keyspaceSize(void) {
    rcReply *r = cliCommandStrings("DBSIZE", NULL);
    long long n = (r && r->type == RC_REPLY_INTEGER) ? r->integer : 0;
    rcFreeReply(r);
    return n;
}

/* The size of one key: elements/bytes, or MEMORY USAGE. -1 on error
 * (after printing it), -2 when the key vanished meanwhile. */
static long long keySize(const typeStats *t, const rcReply *key, int memkeys) {
    const char *argv[5];
    size_t lens[5];
    int argc = 0;
    char samples[32];
    if (memkeys) {
        argv[argc++] = "MEMORY";
        argv[argc++] = "USAGE";
    } else {
        argv[argc++] = t->size_cmd;
    }
    argv[argc++] = key->str;
    if (memkeys && config.memkeys_samples > 0) {
        snprintf(samples, sizeof(samples), "%lld", config.memkeys_samples);
        argv[argc++] = "SAMPLES";
        argv[argc++] = samples;
    }
    for (int i = 0; i < argc; i++) lens[i] = strlen(argv[i]);
    lens[memkeys ? 2 : 1] = key->len;
    rcReply *r = rcCommandArgv(context, argc, argv, lens);
    long long size = -1;
    if (!r) {
        fprintf(stderr, "Error: %s\n", context->errstr);
    } else if (r->type == RC_REPLY_INTEGER) {
        size = r->integer;
    } else if (r->type == RC_REPLY_NIL || r->type == RC_REPLY_NULL) {
        size = -2;
    } else if (r->type == RC_REPLY_ERROR) {
        if (memkeys)
            fprintf(stderr, "Error: MEMORY USAGE is not available on this server: %.*s\n", (int)r->len, r->str);
        else
            fprintf(stderr, "Error: %.*s\n", (int)r->len, r->str);
    }
    rcFreeReply(r);
    return size;
}

static void printBigKeysHeader(void) {
    printf("\n# Scanning the entire keyspace to find biggest keys as well as\n"
           "# average sizes per key type.  You can use -i 0.1 to sleep 0.1 sec\n"
           "# per 100 SCAN commands (not usually needed).\n\n");
}

static int sampleKey(const rcReply *key, int memkeys, long long total_keys, unsigned long long sampled) {
    const char *argv[2] = {"TYPE", key->str};
    size_t lens[2] = {4, key->len};
    rcReply *tr = rcCommandArgv(context, 2, argv, lens);
    if (!tr) {
        fprintf(stderr, "Error: %s\n", context->errstr);
        return RC_ERR;
    }
    typeStats *t = tr->type == RC_REPLY_STATUS ? findType(tr->str, tr->len) : NULL;
    rcFreeReply(tr);
    if (!t) return RC_OK;
    long long size = keySize(t, key, memkeys);
    if (size == -1) return RC_ERR;
    if (size == -2) return RC_OK;
    t->count++;
    t->total += (unsigned long long)size;
    if (t->biggest_key == NULL || (unsigned long long)size > t->biggest) {
        double pct = total_keys > 0 ? 100.0 * (double)sampled / (double)total_keys : 0;
        sds shown = sdscatrepr(sdsempty(), key->str, key->len);
        printf("[%05.2f%%] Biggest %-6s found so far '%s' with %lld %s\n", pct, t->name, shown, size,
               memkeys ? "bytes" : t->unit);
        sdsfree(shown);
        sdsfree(t->biggest_key);
        t->biggest_key = sdsnewlen(key->str, key->len);
        t->biggest = (unsigned long long)size;
    }
    return RC_OK;
}

static void printBigKeysSummary(unsigned long long sampled, unsigned long long keylen, int memkeys) {
    printf("\n-------- summary -------\n\n");
    printf("Sampled %llu keys in the keyspace!\n", sampled);
    printf("Total key length in bytes is %llu (avg len %.2f)\n\n", keylen,
           sampled ? (double)keylen / (double)sampled : 0);
    for (size_t i = 0; i < TYPE_COUNT; i++) {
        typeStats *t = &typeTable[i];
        if (!t->biggest_key) continue;
        sds shown = sdscatrepr(sdsempty(), t->biggest_key, sdslen(t->biggest_key));
        printf("Biggest %6s found '%s' has %llu %s\n", t->name, shown, t->biggest, memkeys ? "bytes" : t->unit);
        sdsfree(shown);
    }
    printf("\n");
    for (size_t i = 0; i < TYPE_COUNT; i++) {
        typeStats *t = &typeTable[i];
        printf("%llu %ss with %llu %s (%05.2f%% of keys, avg size %.2f)\n", t->count, t->name, t->total,
               memkeys ? "bytes" : t->unit, sampled ? 100.0 * (double)t->count / (double)sampled : 0,
               t->count ? (double)t->total / (double)t->count : 0);
        sdsfree(t->biggest_key);
        t->biggest_key = NULL;
    }
}

int cliBigKeysMode(int memkeys) {
    long long total_keys = keyspaceSize();
    unsigned long long sampled = 0, keylen = 0, scans = 0;
    sds cursor = sdsnew("0");
    int status = 0;
    printBigKeysHeader();
    do {
        rcReply *r = scanOnce(cursor, 0);
        if (!r) {
            status = 1;
            break;
        }
        rcReply *keys = r->element[1];
        for (size_t i = 0; i < keys->elements && status == 0; i++) {
            sampled++;
            keylen += keys->element[i]->len;
            if (sampleKey(keys->element[i], memkeys, total_keys, sampled) != RC_OK) status = 1;
        }
        cursor = sdscpylen(cursor, r->element[0]->str, r->element[0]->len);
        rcFreeReply(r);
        if (config.interval > 0 && ++scans % 100 == 0) cliSleepSeconds(config.interval);
    } while (status == 0 && strcmp(cursor, "0") != 0);
    sdsfree(cursor);
    if (status == 0) printBigKeysSummary(sampled, keylen, memkeys);
    fflush(stdout);
    return status;
}

/* ---- --hotkeys ------------------------------------------------------------------------ */

/* The hottest keys seen, by OBJECT FREQ (which needs an LFU
 * maxmemory-policy: the server's error is printed otherwise). The table
 * keeps HOTKEYS_KEPT slots in ascending order of counter; a key hotter than
 * the coldest slot takes its place, as Redis's tool does, so the "found so
 * far" lines and the summary come out the same for the same SCAN order. */
#define HOTKEYS_KEPT 16

typedef struct hotTable {
    unsigned long long counter[HOTKEYS_KEPT];
    sds name[HOTKEYS_KEPT];
} hotTable;

/* Pipelined OBJECT FREQ for one page of keys; exits on an error, as
 * Redis's tool does (an error means no LFU policy). */
static void fetchFrequencies(const rcReply *keys, unsigned long long *freq) {
    for (size_t i = 0; i < keys->elements; i++) {
        const char *argv[3] = {"OBJECT", "FREQ", keys->element[i]->str};
        size_t lens[3] = {6, 4, keys->element[i]->len};
        rcAppendCommandArgv(context, 3, argv, lens);
    }
    for (size_t i = 0; i < keys->elements; i++) {
        rcReply *r = NULL;
        const rcReply *key = keys->element[i];
        if (rcReadReply(context, &r) != RC_OK) {
            sds shown = sdscatrepr(sdsempty(), key->str, key->len);
            fprintf(stderr, "Error getting freq for key '%s' (%d: %s)\n", shown, (int)context->err, context->errstr);
            exit(1);
        }
        if (r->type == RC_REPLY_INTEGER) {
            freq[i] = (unsigned long long)r->integer;
        } else if (r->type == RC_REPLY_ERROR) {
            fprintf(stderr, "Error: %.*s\n", (int)r->len, r->str);
            exit(1);
        } else {
            fprintf(stderr, "Warning: OBJECT freq on '%s' failed (may have been deleted)\n", key->str);
            freq[i] = 0;
        }
        rcFreeReply(r);
    }
}

/* Offers one key to the table; prints it when it gets a slot. */
static void offerHotKey(hotTable *t, const rcReply *key, unsigned long long freq, double pct) {
    int colder = 0; /* slots, from the coldest, with a smaller counter */
    while (colder < HOTKEYS_KEPT && freq > t->counter[colder]) colder++;
    if (colder == 0) return;
    int slot = colder - 1;
    if (slot > 0 && t->counter[slot] != 0) {
        /* the coldest leaves; the ones up to the slot move down one */
        sdsfree(t->name[0]);
        memmove(t->counter, t->counter + 1, sizeof(t->counter[0]) * (size_t)slot);
        memmove(t->name, t->name + 1, sizeof(t->name[0]) * (size_t)slot);
    } else {
        sdsfree(t->name[slot]);
    }
    t->counter[slot] = freq;
    t->name[slot] = sdscatrepr(sdsempty(), key->str, key->len);
    printf("[%05.2f%%] Hot key '%s' found so far with counter %llu\n", pct, t->name[slot], freq);
}

int cliHotKeysMode(void) {
    hotTable table;
    memset(&table, 0, sizeof(table));
    long long total_keys = keyspaceSize();
    unsigned long long sampled = 0, scans = 0;
    unsigned long long *freq = NULL;
    size_t freq_room = 0;
    sds cursor = sdsnew("0");
    printf("\n# Scanning the entire keyspace to find hot keys as well as\n"
           "# average sizes per key type.  You can use -i 0.1 to sleep 0.1 sec\n"
           "# per 100 SCAN commands (not usually needed).\n\n");
    fflush(stdout);
    do {
        double pct = 100 * (double)sampled / (double)total_keys;
        rcReply *r = scanOnce(cursor, 0);
        if (!r) exit(1);
        scans++;
        rcReply *keys = r->element[1];
        if (keys->elements > freq_room) {
            freq_room = keys->elements;
            freq = realloc(freq, sizeof(*freq) * freq_room);
            if (!freq) exit(1);
        }
        fetchFrequencies(keys, freq);
        for (size_t i = 0; i < keys->elements; i++) {
            sampled++;
            if (sampled % 1000000 == 0) printf("[%05.2f%%] Sampled %llu keys so far\n", pct, sampled);
            offerHotKey(&table, keys->element[i], freq[i], pct);
        }
        cursor = sdscpylen(cursor, r->element[0]->str, r->element[0]->len);
        rcFreeReply(r);
        if (config.interval > 0 && scans % 100 == 0) cliSleepSeconds(config.interval);
    } while (strcmp(cursor, "0") != 0);
    free(freq);
    sdsfree(cursor);
    printf("\n-------- summary -------\n\n");
    printf("Sampled %llu keys in the keyspace!\n", sampled);
    for (int slot = HOTKEYS_KEPT - 1; slot >= 0; slot--) {
        if (table.counter[slot] > 0)
            printf("hot key found with counter: %llu\tkeyname: %s\n", table.counter[slot], table.name[slot]);
        sdsfree(table.name[slot]);
    }
    fflush(stdout);
    return 0;
}

/* ---- --lru-test ------------------------------------------------------------------------ */

/* A cache workload for testing eviction: cycles of one second, each batch
 * 250 pipelined SETs of random 5-letter values then 250 GETs, on the keys
 * "lru:1" .. "lru:N" drawn from a power law (most requests go to a few
 * keys, Redis's tool's "80-20"). One line of hit/miss figures per second,
 * flushed at once (Redis's tool leaves it to stdio's buffer). Runs until
 * killed or the connection fails. */
#define LRU_TEST_BATCH 250
#define LRU_TEST_PERIOD_MS 1000
#define LRU_TEST_ALPHA 6.2

/* A key number in [1, n]: the inverse of a power-law distribution's CDF,
 * mirrored so that the small numbers are the hot ones. */
static long long lruTestKeyNumber(long long n) {
    double u = (double)rand() / RAND_MAX;
    double lo = pow(1.0, LRU_TEST_ALPHA + 1), hi = pow((double)n + 1, LRU_TEST_ALPHA + 1);
    double x = pow((hi - lo) * u + lo, 1.0 / (LRU_TEST_ALPHA + 1));
    return (long long)n + 1 - (long long)x;
}

static void lruTestQueue(const char *cmd, long long keys) {
    char key[64], value[6];
    snprintf(key, sizeof(key), "lru:%lld", lruTestKeyNumber(keys));
    const char *argv[3] = {cmd, key, value};
    if (cmd[0] == 'S') {
        for (int i = 0; i < 5; i++) value[i] = (char)('A' + rand() % ('z' - 'A'));
        value[5] = '\0';
    }
    rcAppendCommandArgv(context, cmd[0] == 'S' ? 3 : 2, argv, NULL);
}

/* Reads a batch of replies, counting GET hits and misses. */
static void lruTestReplies(long long *hits, long long *misses) {
    for (int j = 0; j < LRU_TEST_BATCH; j++) {
        rcReply *r = NULL;
        if (rcReadReply(context, &r) != RC_OK) {
            fprintf(stderr, "I/O error during LRU test\n");
            exit(1);
        }
        if (r->type == RC_REPLY_ERROR) fprintf(stderr, "%.*s\n", (int)r->len, r->str);
        else if (hits && (r->type == RC_REPLY_NIL || r->type == RC_REPLY_NULL)) (*misses)++;
        else if (hits) (*hits)++;
        rcFreeReply(r);
    }
}

int cliLruTestMode(long long keys) {
    srand((unsigned)(time(NULL) ^ getpid()));
    for (;;) {
        long long start = cliMstime(), hits = 0, misses = 0;
        while (cliMstime() - start < LRU_TEST_PERIOD_MS) {
            for (int j = 0; j < LRU_TEST_BATCH; j++) lruTestQueue("SET", keys);
            lruTestReplies(NULL, NULL);
            for (int j = 0; j < LRU_TEST_BATCH; j++) lruTestQueue("GET", keys);
            lruTestReplies(&hits, &misses);
        }
        double all = (double)(hits + misses);
        printf("%lld Gets/sec | Hits: %lld (%.2f%%) | Misses: %lld (%.2f%%)\n", hits + misses, hits,
               (double)hits / all * 100, misses, (double)misses / all * 100);
        fflush(stdout);
    }
}

/* ---- --stat ----------------------------------------------------------------------------- */

/* The value of "field:" in an INFO text, or 0. */
static long long infoField(const char *info, const char *field) {
    size_t flen = strlen(field);
    for (const char *p = info; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
        if (strncmp(p, field, flen) == 0 && p[flen] == ':') return strtoll(p + flen + 1, NULL, 10);
    }
    return 0;
}

static long long infoKeys(const char *info) {
    long long keys = 0;
    for (const char *p = strstr(info, "\ndb"); p; p = strstr(p + 1, "\ndb")) {
        const char *k = strstr(p, ":keys=");
        const char *eol = strchr(p + 1, '\n');
        if (k && (!eol || k < eol)) keys += strtoll(k + 6, NULL, 10);
    }
    return keys;
}

static void humanBytes(char *buf, size_t len, long long n) {
    double d = (double)n;
    if (n < 1024) snprintf(buf, len, "%lldB", n);
    else if (n < 1024LL * 1024) snprintf(buf, len, "%.2fK", d / 1024);
    else if (n < 1024LL * 1024 * 1024) snprintf(buf, len, "%.2fM", d / (1024 * 1024));
    else snprintf(buf, len, "%.2fG", d / (1024.0 * 1024 * 1024));
}

int cliStatMode(void) {
    long long last_requests = -1;
    double interval = config.interval > 0 ? config.interval : 1;
    for (long long line = 0;; line++) {
        rcReply *r = cliCommandStrings("INFO", NULL);
        if (!r) return 1;
        if (r->type == RC_REPLY_ERROR || !r->str) {
            fprintf(stderr, "ERROR: %.*s\n", (int)r->len, r->str ? r->str : "");
            rcFreeReply(r);
            return 1;
        }
        if (line % 20 == 0) {
            printf("------- data ------ --------------------- load -------------------- - child -\n"
                   "keys       mem      clients blocked requests            connections          \n");
        }
        char mem[32], req[64];
        humanBytes(mem, sizeof(mem), infoField(r->str, "used_memory"));
        long long requests = infoField(r->str, "total_commands_processed");
        snprintf(req, sizeof(req), "%lld (+%lld)", requests, last_requests < 0 ? 0 : requests - last_requests);
        last_requests = requests;
        printf("%-11lld%-9s%-8lld%-8lld%-20s%-21lld\n", infoKeys(r->str), mem,
               infoField(r->str, "connected_clients"), infoField(r->str, "blocked_clients"), req,
               infoField(r->str, "total_connections_received"));
        fflush(stdout);
        rcFreeReply(r);
        cliSleepSeconds(interval);
    }
    return 0;
}

/* ---- --latency ------------------------------------------------------------------------------ */

typedef struct latencyStats {
    long long min, max, count;
    double total;
    long long buckets[8]; /* <1 <2 <4 <8 <16 <32 <64 >=64 ms */
} latencyStats;

static void latencyReset(latencyStats *s) {
    memset(s, 0, sizeof(*s));
    s->min = -1;
}

static void latencyAdd(latencyStats *s, long long ms) {
    if (s->min < 0 || ms < s->min) s->min = ms;
    if (ms > s->max) s->max = ms;
    s->count++;
    s->total += (double)ms;
    int b = 0;
    while (b < 7 && ms >= (1LL << b)) b++;
    s->buckets[b]++;
}

static void latencyPrintDist(const latencyStats *s) {
    static const char *labels[] = {"<1ms", "<2ms", "<4ms", "<8ms", "<16ms", "<32ms", "<64ms", ">=64ms"};
    printf("---- latency distribution (%lld samples) ----\n", s->count);
    for (int i = 0; i < 8; i++)
        if (s->buckets[i]) printf("%-7s %6.2f%%\n", labels[i], 100.0 * (double)s->buckets[i] / (double)s->count);
}

int cliLatencyMode(void) {
    int tty = config.output == CLI_OUT_TTY && isatty(STDOUT_FILENO);
    double interval = config.interval_set ? config.interval
                                          : (config.latency_history ? 15 : 1);
    latencyStats s;
    latencyReset(&s);
    long long start = cliMstime();
    for (;;) {
        long long t0 = cliMstime();
        rcReply *r = cliCommandStrings("PING", NULL);
        if (!r) return 1;
        rcFreeReply(r);
        latencyAdd(&s, cliMstime() - t0);
        double avg = s.total / (double)s.count;
        long long elapsed = cliMstime() - start;
        if (!tty && !config.latency_history && !config.latency_dist) {
            if (elapsed >= (long long)(interval * 1000)) {
                printf("%lld %lld %.2f %lld\n", s.min, s.max, avg, s.count);
                return 0;
            }
        } else if (config.latency_dist) {
            if (elapsed >= (long long)(interval * 1000)) {
                latencyPrintDist(&s);
                fflush(stdout);
                latencyReset(&s);
                start = cliMstime();
            }
        } else {
            int period_over = config.latency_history && elapsed >= (long long)(interval * 1000);
            printf("\x1b[0G\x1b[2Kmin: %lld, max: %lld, avg: %.2f (%lld samples)", s.min, s.max, avg, s.count);
            if (period_over) {
                printf(" -- %.2f seconds range\n", (double)elapsed / 1000);
                latencyReset(&s);
                start = cliMstime();
            }
            fflush(stdout);
        }
        cliSleepSeconds(0.01);
    }
}

/* ---- --intrinsic-latency --------------------------------------------------------- */

static volatile sig_atomic_t intrinsicStop;

static void stopIntrinsic(int sig) {
    (void)sig;
    intrinsicStop = 1;
}

static long long usNow(void) {
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (long long)tv.tv_sec * 1000000 + tv.tv_usec;
}

/* A little work between two clock readings, so a run measures the time the
 * process was kept off the CPU rather than the clock call alone. */
static unsigned long long busyWork(unsigned long long x) {
    for (int i = 0; i < 64; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
    }
    return x;
}

/* Measures how late the process gets to run with no server involved: the
 * longest gap seen is printed each time it grows, then a summary (Redis's
 * lines). Ends after `seconds` or at ctrl-c. */
int cliIntrinsicLatencyMode(long long seconds) {
    signal(SIGINT, stopIntrinsic);
    long long start = usNow(), end = start + seconds * 1000000, max_latency = 0, runs = 0, now = start;
    volatile unsigned long long sink = 1;
    while (!intrinsicStop && now < end) {
        long long before = usNow();
        sink = busyWork(sink);
        now = usNow();
        long long latency = now - before;
        runs++;
        if (latency > max_latency) {
            max_latency = latency;
            printf("Max latency so far: %lld microseconds.\n", max_latency);
            fflush(stdout);
        }
    }
    double avg_us = runs ? (double)(now - start) / (double)runs : 0;
    printf("\n%lld total runs (avg latency: %.4f microseconds / %.2f nanoseconds per run).\n", runs, avg_us,
           avg_us * 1000);
    printf("Worst run took %.0fx longer than the average latency.\n", avg_us > 0 ? (double)max_latency / avg_us : 0);
    return 0;
}
