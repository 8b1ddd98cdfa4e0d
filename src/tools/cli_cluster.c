/* cli_cluster.c -- redis-cli --cluster: the cluster manager.
 *
 * The manager reads the cluster from one node (CLUSTER NODES names the
 * others), connects to every node it learned of, and asks each one for its
 * own view (its slots, its open slots). Every subcommand works on that
 * picture: `nodes[0]` is the node named on the command line, the rest follow
 * in the order of its CLUSTER NODES reply, as in Redis's tool.
 *
 * Compatibility target: Redis 7.0.15's redis-cli, message for message, with
 * its exit statuses (0 success, 1 anything else, `help` included). Colours
 * are used when TERM names an xterm, as there.
 *
 * Design decisions:
 *  - A node is a plain struct in one array (no lists, no dicts): clusters
 *    are small and every pass is linear anyway.
 *  - Slot ownership is a byte per slot (16 KiB a node): the code reads as
 *    the protocol does, and no multi-byte value is ever stored in it.
 *  - The subcommands that move data (reshard, rebalance, fix, import) live in
 *    cli_cluster_move.c; this file has the picture and the read-mostly ones.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "cli_cluster_int.h"
#include "lineedit.h"

ccOptions ccOpts = {.timeout = 60000, .pipeline = 10, .threshold = 2.0f};
ccNode **ccNodes;
int ccNodeCount;
int ccUnreachableMasters;
int ccErrorCount;

/* ---- options ------------------------------------------------------------------- */

static const char *subcommand;
static int sub_argc;
static char **sub_argv;

int cliClusterWanted(void) { return subcommand != NULL; }

void cliClusterAskPasswords(void) {
    if (!(ccOpts.flags & CC_FLAG_FROM_ASKPASS)) return;
    leSetMaskMode(1);
    char *line = leReadLine("Please input import source node password: ");
    leSetMaskMode(0);
    static sds kept;
    sdsfree(kept);
    kept = line ? sdsnew(line) : NULL;
    free(line);
    ccOpts.from_pass = kept;
}

/* --cluster-weight n1=w1 n2=w2 ...: every following argument with a '='
 * that does not start with "--". */
static void takeWeights(int argc, char **argv, int *i) {
    if (ccOpts.weight) {
        fprintf(stderr, "WARNING: you cannot use --cluster-weight more than once.\n"
                        "You can set more weights by adding them as a space-separated list, ie:\n"
                        "--cluster-weight n1=w n2=w\n");
        exit(1);
    }
    int w = *i + 1, n = 0;
    while (w + n < argc && strncmp(argv[w + n], "--", 2) != 0 && strchr(argv[w + n], '=')) n++;
    if (n == 0) return;
    ccOpts.weight = argv + w;
    ccOpts.weight_argc = n;
    *i += n;
}

static int takeFlag(const char *opt) {
    static const struct { const char *name; int flag; } flags[] = {
        {"--cluster-only-masters", CC_FLAG_MASTERS_ONLY}, {"--cluster-only-replicas", CC_FLAG_SLAVES_ONLY},
        {"--cluster-yes", CC_FLAG_YES}, {"--cluster-simulate", CC_FLAG_SIMULATE},
        {"--cluster-replace", CC_FLAG_REPLACE}, {"--cluster-copy", CC_FLAG_COPY},
        {"--cluster-slave", CC_FLAG_SLAVE}, {"--cluster-use-empty-masters", CC_FLAG_EMPTYMASTER},
        {"--cluster-search-multiple-owners", CC_FLAG_CHECK_OWNERS},
        {"--cluster-fix-with-unreachable-masters", CC_FLAG_FIX_WITH_UNREACHABLE},
        {"--cluster-from-askpass", CC_FLAG_FROM_ASKPASS}, {NULL, 0}};
    for (int k = 0; flags[k].name; k++) {
        if (strcmp(opt, flags[k].name) != 0) continue;
        ccOpts.flags |= flags[k].flag;
        return 1;
    }
    return 0;
}

/* Options with one value; the value is the next argument. */
static int takeValued(int argc, char **argv, int *i) {
    const char *opt = argv[*i];
    const char *names[] = {"--cluster-replicas", "--cluster-master-id", "--cluster-from", "--cluster-to",
                           "--cluster-from-user", "--cluster-from-pass", "--cluster-slots",
                           "--cluster-timeout", "--cluster-pipeline", "--cluster-threshold", NULL};
    int k;
    for (k = 0; names[k] && strcmp(opt, names[k]) != 0; k++) {}
    if (!names[k] || *i + 1 >= argc) return 0;
    const char *v = argv[++*i];
    switch (k) {
    case 0: ccOpts.replicas = atoi(v); break;
    case 1: ccOpts.master_id = v; break;
    case 2: ccOpts.from = v; break;
    case 3: ccOpts.to = v; break;
    case 4: ccOpts.from_user = v; break;
    case 5: ccOpts.from_pass = v; break;
    case 6: ccOpts.slots = atoi(v); break;
    case 7: ccOpts.timeout = atoi(v); break;
    case 8: ccOpts.pipeline = atoi(v); break;
    default: ccOpts.threshold = (float)atof(v); break;
    }
    return 1;
}

/* --cluster <subcommand> [args without a leading '-'] */
static void takeSubcommand(int argc, char **argv, int *i) {
    /* redis-cli.c shows the usage for a second --cluster or one without a value */
    subcommand = argv[++*i];
    int j = *i + 1;
    while (j < argc && argv[j][0] != '-') j++;
    sub_argc = j - *i - 1;
    sub_argv = argv + *i + 1;
    *i = j - 1;
}

int cliClusterParseOption(int argc, char **argv, int *i) {
    const char *opt = argv[*i];
    if (!strcmp(opt, "--cluster")) {
        takeSubcommand(argc, argv, i);
        return 1;
    }
    if (strncmp(opt, "--cluster-", 10) != 0) return 0;
    if (!strcmp(opt, "--cluster-weight") && *i + 1 < argc) {
        takeWeights(argc, argv, i);
        return 1;
    }
    return takeFlag(opt) || takeValued(argc, argv, i);
}

int cliClusterTakeArgs(int argc, char **argv, int i) {
    int j = i + 1;
    while (j < argc && argv[j][0] != '-') j++;
    if (sub_argc == 0) {
        sub_argc = j - i;
        sub_argv = argv + i;
    }
    return j - i;
}

/* ---- logging ------------------------------------------------------------------- */

static int useColors(void) {
    const char *t = getenv("TERM");
    return t && strstr(t, "xterm");
}

void ccLog(int level, const char *fmt, ...) {
    static const char *codes[] = {"29;1m", "33;1m", "31;1m", "32;1m"};
    int colors = useColors();
    if (colors) printf("\033[%s", codes[level]);
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    if (colors) printf("\033[0m");
}

void ccPrintReplyError(const ccNode *n, const char *err) {
    ccLog(CC_LOG_ERR, "Node %s:%d replied with error:\n%s\n", n->ip, n->port, err);
}

/* ---- nodes ---------------------------------------------------------------------- */

ccNode *ccNewNode(const char *ip, int port) {
    ccNode *n = calloc(1, sizeof(*n));
    if (!n) abort();
    n->ip = sdsnew(ip);
    n->port = port;
    n->weight = 1.0f;
    return n;
}

static void freeSdsArray(sds *a, int n) {
    for (int k = 0; k < n; k++) sdsfree(a[k]);
    free(a);
}

void ccFreeNode(ccNode *n) {
    if (!n) return;
    rcFree(n->conn);
    sdsfree(n->ip);
    sdsfree(n->name);
    sdsfree(n->replicate);
    sdsfree(n->flags_str);
    freeSdsArray(n->migrating, n->migrating_count);
    freeSdsArray(n->importing, n->importing_count);
    for (int k = 0; k < n->friend_count; k++) ccFreeNode(n->friends[k]);
    free(n->friends);
    free(n);
}

void ccAddNode(ccNode *n) {
    ccNode **grown = realloc(ccNodes, sizeof(*grown) * (size_t)(ccNodeCount + 1));
    if (!grown) abort();
    ccNodes = grown;
    ccNodes[ccNodeCount++] = n;
}

void ccFreeAll(void) {
    for (int k = 0; k < ccNodeCount; k++) ccFreeNode(ccNodes[k]);
    free(ccNodes);
    ccNodes = NULL;
    ccNodeCount = 0;
}

/* A reply is fine when it came and is not an error; an error goes to *err
 * (when asked for) or is printed. */
int ccCheckReply(const ccNode *n, const rcReply *r, sds *err) {
    if (r && r->type != RC_REPLY_ERROR) return 1;
    if (r) {
        if (err) *err = sdsnewlen(r->str, r->len);
        else ccPrintReplyError(n, r->str);
    }
    return 0;
}

int ccConnect(ccNode *n) {
    rcFree(n->conn);
    n->conn = rcConnectTcp(n->ip, n->port, 0);
    if (!n->conn) abort();
    if (n->conn->err == RC_E_NONE && config.tls) rcTlsUpgrade(n->conn, &config.tls_options);
    if (n->conn->err != RC_E_NONE && config.tls && rcTlsSetupError(n->conn)) {
        fprintf(stderr, "TLS Error: %s\n", n->conn->errstr);
        rcFree(n->conn);
        n->conn = NULL;
        return 0;
    }
    if (n->conn->err != RC_E_NONE) {
        fprintf(stderr, "Could not connect to Redis at %s:%d: %s\n", n->ip, n->port, n->conn->errstr);
        rcFree(n->conn);
        n->conn = NULL;
        return 0;
    }
    if (!config.auth) return 1;
    rcReply *r = config.user ? rcCommand(n->conn, "AUTH", config.user, config.auth, NULL)
                             : rcCommand(n->conn, "AUTH", config.auth, NULL);
    int ok = ccCheckReply(n, r, NULL);
    rcFreeReply(r);
    return ok;
}

/* One command to one node; NULL when the link failed. */
rcReply *ccCommandArgv(ccNode *n, int argc, const char **argv) {
    if (!n->conn) return NULL;
    return rcCommandArgv(n->conn, argc, argv, NULL);
}

int ccMigrateAuthArgs(const char **argv, int argc) {
    if (config.auth && config.user) {
        argv[argc++] = "AUTH2";
        argv[argc++] = config.user;
        argv[argc++] = config.auth;
    } else if (config.auth) {
        argv[argc++] = "AUTH";
        argv[argc++] = config.auth;
    }
    return argc;
}

rcReply *ccCommand(ccNode *n, const char *arg0, ...) {
    const char *argv[16];
    int argc = 0;
    va_list ap;
    va_start(ap, arg0);
    for (const char *a = arg0; a && argc < 16; a = va_arg(ap, const char *)) argv[argc++] = a;
    va_end(ap);
    return ccCommandArgv(n, argc, argv);
}

/* "ip:port[@bus]": the address split in place. */
int ccParseAddress(char *addr, char **ip, int *port, int *bus_port) {
    char *at = strrchr(addr, '@');
    if (at) {
        *at = '\0';
        if (bus_port) *bus_port = atoi(at + 1);
    }
    char *colon = strrchr(addr, ':');
    if (!colon) return 0;
    *colon = '\0';
    *ip = addr;
    *port = atoi(colon + 1);
    return 1;
}

/* <host:port> or <host> <port>. */
int ccHostFromArgs(int argc, char **argv, char **ip, int *port) {
    *ip = NULL;
    *port = 0;
    if (argc == 1) {
        if (!ccParseAddress(argv[0], ip, port, NULL)) return 0;
    } else {
        *ip = argv[0];
        *port = atoi(argv[1]);
    }
    return *ip && *port;
}

static long long infoField(const char *info, const char *field) {
    size_t flen = strlen(field);
    for (const char *p = info; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        if (!strncmp(p, field, flen) && p[flen] == ':') return strtoll(p + flen + 1, NULL, 10);
    }
    return 0;
}

/* INFO's text, or NULL with the error in *err. */
static rcReply *nodeInfo(ccNode *n, sds *err) {
    rcReply *r = ccCommand(n, "INFO", NULL);
    *err = NULL;
    if (!r) return NULL;
    if (r->type == RC_REPLY_ERROR) {
        *err = sdsnewlen(r->str, r->len);
        rcFreeReply(r);
        return NULL;
    }
    return r;
}

int ccNodeIsCluster(ccNode *n, sds *err) {
    rcReply *r = nodeInfo(n, err);
    if (!r) return 0;
    int yes = infoField(r->str, "cluster_enabled") != 0;
    rcFreeReply(r);
    return yes;
}

/* Empty: no key in db0 and no other node known. */
int ccNodeIsEmpty(ccNode *n, sds *err) {
    rcReply *r = nodeInfo(n, err);
    if (!r) return 0;
    int empty = strstr(r->str, "db0:") == NULL;
    rcFreeReply(r);
    if (!empty) return 0;
    r = ccCommand(n, "CLUSTER", "INFO", NULL);
    *err = NULL;
    if (!ccCheckReply(n, r, err)) empty = 0;
    else empty = infoField(r->str, "cluster_known_nodes") == 1;
    rcFreeReply(r);
    return empty;
}

void ccPrintNotClusterError(const ccNode *n, const char *err) {
    ccLog(CC_LOG_ERR, "[ERR] Node %s:%d %s\n", n->ip, n->port, err ? err : "is not configured as a cluster node.");
}

void ccPrintNotEmptyError(const ccNode *n, const char *err) {
    ccLog(CC_LOG_ERR, "[ERR] Node %s:%d %s\n", n->ip, n->port,
          err ? err
              : "is not empty. Either the node already knows other nodes (check with CLUSTER NODES) or "
                "contains some key in database 0.");
}

/* ---- CLUSTER NODES -------------------------------------------------------------------- */

static void pushPair(sds **arr, int *count, const char *slot, size_t slot_len, const char *other) {
    sds *grown = realloc(*arr, sizeof(sds) * (size_t)(*count + 2));
    if (!grown) abort();
    *arr = grown;
    grown[*count] = sdsnewlen(slot, slot_len);
    grown[*count + 1] = sdsnew(other);
    *count += 2;
}

/* One slot field of the node's own line: "0-5460", "42", "[42->-id]", "[42-<-id]". */
static void parseSlotField(ccNode *n, sds f) {
    if (f[0] == '[') {
        char *close = strchr(f, ']');
        if (close) *close = '\0';
        char *arrow = strstr(f + 1, "->-");
        if (arrow) pushPair(&n->migrating, &n->migrating_count, f + 1, (size_t)(arrow - f - 1), arrow + 3);
        else if ((arrow = strstr(f + 1, "-<-")))
            pushPair(&n->importing, &n->importing_count, f + 1, (size_t)(arrow - f - 1), arrow + 3);
        return;
    }
    char *dash = strchr(f, '-');
    int start = atoi(f), stop = dash ? atoi(dash + 1) : start;
    if (start < 0 || stop >= CC_SLOTS || (!dash && sdslen(f) == 0)) return;
    for (int s = start; s <= stop; s++) {
        if (!n->slots[s]) n->slots_count++;
        n->slots[s] = 1;
    }
}

static void resetOwnSlots(ccNode *n) {
    memset(n->slots, 0, sizeof(n->slots));
    n->slots_count = 0;
    freeSdsArray(n->migrating, n->migrating_count);
    freeSdsArray(n->importing, n->importing_count);
    n->migrating = n->importing = NULL;
    n->migrating_count = n->importing_count = 0;
}

static void applyFlags(ccNode *n, const char *flags, const char *master_id) {
    sdsfree(n->flags_str);
    n->flags_str = sdsempty();
    int count = 0;
    sds *parts = sdssplitlen(flags, (ssize_t)strlen(flags), ",", 1, &count);
    for (int k = 0; k < count; k++) {
        sds f = parts[k];
        if (!strcmp(f, "noaddr")) n->flags |= CC_NODE_NOADDR;
        else if (!strcmp(f, "disconnected")) n->flags |= CC_NODE_DISCONNECT;
        else if (!strcmp(f, "fail")) n->flags |= CC_NODE_FAIL;
        else if (!strcmp(f, "slave")) {
            n->flags |= CC_NODE_SLAVE;
            sdsfree(n->replicate);
            n->replicate = sdsnew(master_id);
        }
        if (!strcmp(f, "myself")) continue;
        if (sdslen(n->flags_str)) n->flags_str = sdscat(n->flags_str, ",");
        n->flags_str = sdscatsds(n->flags_str, f);
    }
    sdsfreesplitres(parts, count);
}

/* One line of CLUSTER NODES as seen by `n`; friends are created when asked. */
static int loadLine(ccNode *n, const char *line, int getfriends) {
    int count = 0;
    sds *t = sdssplitlen(line, (ssize_t)strlen(line), " ", 1, &count);
    if (count < 8) {
        sdsfreesplitres(t, count);
        return count == 0 ? 1 : -1;
    }
    char *ip = NULL;
    int port = 0, bus_port = 0;
    if (!ccParseAddress(t[1], &ip, &port, &bus_port)) {
        fprintf(stderr, "Error: invalid CLUSTER NODES reply\n");
        sdsfreesplitres(t, count);
        return -1;
    }
    ccNode *cur = NULL;
    if (strstr(t[2], "myself")) {
        n->bus_port = bus_port;
        n->flags |= CC_NODE_MYSELF;
        cur = n;
        resetOwnSlots(n);
        for (int k = 8; k < count; k++) parseSlotField(n, t[k]);
        n->dirty = 0;
    } else if (getfriends) {
        cur = ccNewNode(ip, port);
        cur->bus_port = bus_port;
        cur->flags |= CC_NODE_FRIEND;
        ccNode **grown = realloc(n->friends, sizeof(*grown) * (size_t)(n->friend_count + 1));
        if (!grown) abort();
        n->friends = grown;
        grown[n->friend_count++] = cur;
    }
    if (cur) {
        sdsfree(cur->name);
        cur->name = sdsdup(t[0]);
        applyFlags(cur, t[2], t[3]);
        cur->current_epoch = atoll(t[6]);
    }
    sdsfreesplitres(t, count);
    return 1;
}

int ccNodeLoadInfo(ccNode *n, int getfriends, sds *err) {
    *err = NULL;
    rcReply *r = ccCommand(n, "CLUSTER", "NODES", NULL);
    if (!ccCheckReply(n, r, err)) {
        rcFreeReply(r);
        return 0;
    }
    int ok = 1;
    char *text = sdsnewlen(r->str, r->len), *line = text, *nl;
    while (ok && (nl = strchr(line, '\n'))) {
        *nl = '\0';
        if (loadLine(n, line, getfriends) < 0) ok = 0;
        line = nl + 1;
    }
    sdsfree(text);
    rcFreeReply(r);
    return ok;
}

ccNode *ccNodeByName(const char *name) {
    sds lc = sdsnew(name);
    sdstolower(lc);
    ccNode *found = NULL;
    for (int k = 0; k < ccNodeCount && !found; k++)
        if (ccNodes[k]->name && !strcmp(ccNodes[k]->name, lc)) found = ccNodes[k];
    sdsfree(lc);
    return found;
}

ccNode *ccNodeByAbbreviatedName(const char *name) {
    sds lc = sdsnew(name);
    sdstolower(lc);
    ccNode *found = NULL;
    for (int k = 0; k < ccNodeCount && !found; k++)
        if (ccNodes[k]->name && !strncmp(ccNodes[k]->name, lc, sdslen(lc))) found = ccNodes[k];
    sdsfree(lc);
    return found;
}

ccNode *ccNodeWithLeastReplicas(void) {
    ccNode *best = NULL;
    for (int k = 0; k < ccNodeCount; k++) {
        ccNode *n = ccNodes[k];
        if (n->flags & CC_NODE_SLAVE) continue;
        if (!best || n->replicas_count < best->replicas_count) best = n;
    }
    return best;
}

static int loadFriend(ccNode *f) {
    sds e = NULL;
    if (!f->ip || !f->port) return 0;
    if (!f->conn && !ccConnect(f)) return 0;
    if (!ccNodeLoadInfo(f, 0, &e)) {
        sdsfree(e);
        ccLog(CC_LOG_ERR, "[ERR] Unable to load info for node %s:%d\n", f->ip, f->port);
        return 0;
    }
    return !(f->flags & (CC_NODE_NOADDR | CC_NODE_DISCONNECT | CC_NODE_FAIL));
}

static void countReplicas(void) {
    for (int k = 0; k < ccNodeCount; k++) {
        ccNode *n = ccNodes[k];
        if (!n->replicate) continue;
        ccNode *m = ccNodeByName(n->replicate);
        if (m) m->replicas_count++;
        else ccLog(CC_LOG_WARN, "*** WARNING: %s:%d claims to be slave of unknown node ID %s.\n", n->ip, n->port,
                   n->replicate);
    }
}

/* The whole cluster as `n` knows it; `n` is owned (freed on failure). */
int ccLoadInfoFromNode(ccNode *n) {
    sds e = NULL;
    if (!n->conn && !ccConnect(n)) {
        ccFreeNode(n);
        return 0;
    }
    if (!ccNodeIsCluster(n, &e)) {
        ccPrintNotClusterError(n, e);
        sdsfree(e);
        ccFreeNode(n);
        return 0;
    }
    if (!ccNodeLoadInfo(n, 1, &e)) {
        if (e) ccPrintReplyError(n, e);
        sdsfree(e);
        ccFreeNode(n);
        return 0;
    }
    ccFreeAll();
    ccAddNode(n);
    for (int k = 0; k < n->friend_count; k++) {
        ccNode *f = n->friends[k];
        if (loadFriend(f)) {
            ccAddNode(f);
            continue;
        }
        if (!(f->flags & CC_NODE_SLAVE)) ccUnreachableMasters++;
        ccFreeNode(f);
    }
    free(n->friends);
    n->friends = NULL;
    n->friend_count = 0;
    countReplicas();
    return 1;
}

/* ---- showing the cluster ---------------------------------------------------------- */

sds ccSlotsString(const unsigned char *slots) {
    sds s = sdsempty();
    for (int k = 0; k < CC_SLOTS; k++) {
        if (!slots[k]) continue;
        int end = k;
        while (end + 1 < CC_SLOTS && slots[end + 1]) end++;
        if (sdslen(s)) s = sdscat(s, ",");
        s = end == k ? sdscatprintf(s, "[%d]", k) : sdscatprintf(s, "[%d-%d]", k, end);
        k = end;
    }
    return s;
}

sds ccNodeDescription(const ccNode *n, int indent) {
    sds sp = sdsempty();
    for (int k = 0; k < indent; k++) sp = sdscat(sp, " ");
    sds s = sdsdup(sp);
    if (n->dirty && n->replicate) {
        s = sdscatprintf(s, "S: %s %s:%d", n->name, n->ip, n->port);
    } else {
        sds slots = ccSlotsString(n->slots);
        s = sdscatprintf(s, "%s: %s %s:%d\n%s   slots:%s (%d slots) %s", (n->flags & CC_NODE_SLAVE) ? "S" : "M",
                         n->name, n->ip, n->port, sp, slots, n->slots_count, n->flags_str ? n->flags_str : "");
        sdsfree(slots);
    }
    if (n->replicate) s = sdscatprintf(s, "\n%s   replicates %s", sp, n->replicate);
    else if (n->replicas_count) s = sdscatprintf(s, "\n%s   %d additional replica(s)", sp, n->replicas_count);
    sdsfree(sp);
    return s;
}

void ccShowNodes(void) {
    for (int k = 0; k < ccNodeCount; k++) {
        sds d = ccNodeDescription(ccNodes[k], 0);
        printf("%s\n", d);
        sdsfree(d);
    }
}

static void showClusterInfo(void) {
    int masters = 0;
    long long keys = 0;
    for (int k = 0; k < ccNodeCount; k++) {
        ccNode *n = ccNodes[k];
        if ((n->flags & CC_NODE_SLAVE) || !n->name) continue;
        int replicas = 0;
        for (int j = 0; j < ccNodeCount; j++) {
            ccNode *o = ccNodes[j];
            if (o != n && (o->flags & CC_NODE_SLAVE) && o->replicate && !strcmp(o->replicate, n->name)) replicas++;
        }
        rcReply *r = ccCommand(n, "DBSIZE", NULL);
        if (!r || r->type != RC_REPLY_INTEGER) {
            ccPrintReplyError(n, r && r->type == RC_REPLY_ERROR ? r->str : "");
            rcFreeReply(r);
            return;
        }
        long long dbsize = r->integer;
        rcFreeReply(r);
        printf("%s:%d (%.8s...) -> %lld keys | %d slots | %d slaves.\n", n->ip, n->port, n->name, dbsize,
               n->slots_count, replicas);
        masters++;
        keys += dbsize;
    }
    ccLog(CC_LOG_OK, "[OK] %lld keys in %d masters.\n", keys, masters);
    printf("%.2f keys per slot on average.\n", (double)((float)keys / (float)CC_SLOTS));
}

/* ---- consistency ------------------------------------------------------------------ */

static int cmpStrings(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* "id:slots,slots|id:slots" of every node owning slots, sorted: two nodes
 * with the same signature agree about the slots. */
static sds configSignature(ccNode *n) {
    rcReply *r = ccCommand(n, "CLUSTER", "NODES", NULL);
    if (!r || r->type == RC_REPLY_ERROR) {
        rcFreeReply(r);
        return NULL;
    }
    int lines = 0, nsig = 0;
    sds *l = sdssplitlen(r->str, (ssize_t)r->len, "\n", 1, &lines);
    sds *sigs = calloc((size_t)lines + 1, sizeof(sds));
    for (int k = 0; k < lines; k++) {
        int c = 0, nslots = 0;
        sds *t = sdssplitlen(l[k], (ssize_t)sdslen(l[k]), " ", 1, &c);
        char **slots = calloc((size_t)c + 1, sizeof(char *));
        for (int j = 8; j < c; j++)
            if (sdslen(t[j]) && t[j][0] != '[') slots[nslots++] = t[j];
        if (nslots > 0) {
            qsort(slots, (size_t)nslots, sizeof(char *), cmpStrings);
            sds s = sdscatprintf(sdsempty(), "%s:", t[0]);
            for (int j = 0; j < nslots; j++) s = sdscatprintf(s, "%s%s", j ? "," : "", slots[j]);
            sigs[nsig++] = s;
        }
        free(slots);
        sdsfreesplitres(t, c);
    }
    sdsfreesplitres(l, lines);
    rcFreeReply(r);
    sds out = NULL;
    if (nsig > 0) {
        qsort(sigs, (size_t)nsig, sizeof(sds), cmpStrings);
        out = sdsempty();
        for (int k = 0; k < nsig; k++) out = sdscatprintf(out, "%s%s", k ? "|" : "", sigs[k]);
    }
    for (int k = 0; k < nsig; k++) sdsfree(sigs[k]);
    free(sigs);
    return out;
}

int ccIsConfigConsistent(void) {
    if (ccNodeCount <= 1) return 1;
    sds first = NULL;
    int ok = 1;
    for (int k = 0; k < ccNodeCount && ok; k++) {
        sds sig = configSignature(ccNodes[k]);
        if (!sig) ok = 0;
        else if (!first) first = sig;
        else {
            ok = !strcmp(first, sig);
            sdsfree(sig);
        }
    }
    sdsfree(first);
    return ok;
}

void ccOnError(const char *err) {
    ccErrorCount++;
    ccLog(CC_LOG_ERR, "%s\n", err);
}

/* Open slots: "a,b,c" in the order first met (Redis's tool lists them in
 * its dictionary's order; with one open slot the two agree). */
static int checkOpenSlots(sds *open) {
    for (int k = 0; k < ccNodeCount; k++) {
        ccNode *n = ccNodes[k];
        for (int pass = 0; pass < 2; pass++) {
            sds *arr = pass ? n->importing : n->migrating;
            int cnt = pass ? n->importing_count : n->migrating_count;
            if (!arr) continue;
            sds e = sdscatprintf(sdsempty(), "[WARNING] Node %s:%d has slots in %s state ", n->ip, n->port,
                                 pass ? "importing" : "migrating");
            for (int j = 0; j < cnt; j += 2) {
                e = sdscatprintf(e, "%s%s", j ? "," : "", arr[j]);
                int seen = 0, c = 0;
                sds *have = sdssplitlen(*open, (ssize_t)sdslen(*open), ",", 1, &c);
                for (int h = 0; h < c; h++) seen |= !strcmp(have[h], arr[j]);
                sdsfreesplitres(have, c);
                if (!seen) *open = sdscatprintf(*open, "%s%s", sdslen(*open) ? "," : "", arr[j]);
            }
            e = sdscat(e, ".");
            ccOnError(e);
            sdsfree(e);
        }
    }
    return sdslen(*open) > 0;
}

static int coveredSlots(unsigned char *all) {
    int total = 0;
    for (int k = 0; k < ccNodeCount; k++)
        for (int s = 0; s < CC_SLOTS; s++)
            if (ccNodes[k]->slots[s] && !all[s]) {
                all[s] = 1;
                total++;
            }
    return total;
}

long long ccCountKeysInSlot(ccNode *n, int slot) {
    char buf[16];
    snprintf(buf, sizeof(buf), "%d", slot);
    rcReply *r = ccCommand(n, "CLUSTER", "COUNTKEYSINSLOT", buf, NULL);
    long long count = r && r->type == RC_REPLY_INTEGER ? r->integer : -1;
    rcFreeReply(r);
    return count;
}

static int checkMultipleOwners(void) {
    int result = 1, multiple = 0;
    ccLog(CC_LOG_INFO, ">>> Check for multiple slot owners...\n");
    ccNode **owners = calloc((size_t)ccNodeCount + 1, sizeof(*owners));
    for (int s = 0; s < CC_SLOTS; s++) {
        int cnt = 0;
        for (int k = 0; k < ccNodeCount; k++) {
            ccNode *n = ccNodes[k];
            if (n->flags & CC_NODE_SLAVE) continue;
            if (n->slots[s] || ccCountKeysInSlot(n, s) > 0) owners[cnt++] = n;
        }
        if (cnt <= 1) continue;
        result = 0;
        ccLog(CC_LOG_ERR, "[WARNING] Slot %d has %d owners:\n", s, cnt);
        for (int k = 0; k < cnt; k++) ccLog(CC_LOG_ERR, "    %s:%d\n", owners[k]->ip, owners[k]->port);
        multiple++;
        if (ccOpts.flags & CC_FLAG_FIX) {
            result = ccFixMultipleOwners(s, owners, cnt);
            if (!result) {
                ccLog(CC_LOG_ERR, "Failed to fix multiple owners for slot %d\n", s);
                break;
            }
            multiple--;
        }
    }
    free(owners);
    if (multiple == 0) ccLog(CC_LOG_OK, "[OK] No multiple owners found.\n");
    return result;
}

int ccCheckCluster(int quiet) {
    if (ccNodeCount == 0) return 0;
    ccNode *first = ccNodes[0];
    int fix = ccOpts.flags & CC_FLAG_FIX;
    ccLog(CC_LOG_INFO, ">>> Performing Cluster Check (using node %s:%d)\n", first->ip, first->port);
    int result = 1;
    if (!quiet) ccShowNodes();
    if (!ccIsConfigConsistent()) {
        ccOnError("[ERR] Nodes don't agree about configuration!");
        result = 0;
    } else {
        ccLog(CC_LOG_OK, "[OK] All nodes agree about slots configuration.\n");
    }
    ccLog(CC_LOG_INFO, ">>> Check for open slots...\n");
    sds open = sdsempty();
    if (checkOpenSlots(&open)) {
        result = 0;
        ccLog(CC_LOG_ERR, "[WARNING] The following slots are open: %s.\n", open);
        if (fix) {
            int c = 0;
            sds *slots = sdssplitlen(open, (ssize_t)sdslen(open), ",", 1, &c);
            for (int k = 0; k < c; k++) {
                result = ccFixOpenSlot(atoi(slots[k]));
                if (!result) break;
            }
            sdsfreesplitres(slots, c);
        }
    }
    sdsfree(open);
    ccLog(CC_LOG_INFO, ">>> Check slots coverage...\n");
    unsigned char *all = calloc(CC_SLOTS, 1);
    if (coveredSlots(all) == CC_SLOTS) {
        ccLog(CC_LOG_OK, "[OK] All %d slots covered.\n", CC_SLOTS);
    } else {
        sds e = sdscatprintf(sdsempty(), "[ERR] Not all %d slots are covered by nodes.\n", CC_SLOTS);
        ccOnError(e);
        sdsfree(e);
        result = 0;
        if (fix && ccFixSlotsCoverage(all) > 0) result = 1;
    }
    free(all);
    if (ccOpts.flags & CC_FLAG_CHECK_OWNERS) {
        if (!checkMultipleOwners()) result = 0;
    }
    return result;
}

/* ---- subcommands ------------------------------------------------------------------- */

#define INVALID_HOST_ARG                                                                                     \
    "[ERR] Invalid arguments: you need to pass either a valid address (ie. 120.0.0.1:7000) or space "       \
    "separated IP and port (ie. 120.0.0.1 7000)\n"

int ccInvalidHost(void) {
    fprintf(stderr, INVALID_HOST_ARG);
    return 0;
}

/* Loads the cluster from the <host:port> or <host> <port> arguments. */
static int loadFromArgs(int argc, char **argv) {
    char *ip;
    int port;
    if (!ccHostFromArgs(argc, argv, &ip, &port)) return -1;
    return ccLoadInfoFromNode(ccNewNode(ip, port));
}

static int cmdInfo(int argc, char **argv) {
    int r = loadFromArgs(argc, argv);
    if (r < 0) return ccInvalidHost();
    if (r) showClusterInfo();
    return r;
}

static int cmdCheck(int argc, char **argv) {
    int r = loadFromArgs(argc, argv);
    if (r < 0) return ccInvalidHost();
    if (!r) return 0;
    showClusterInfo();
    return ccCheckCluster(0);
}

static int cmdFix(int argc, char **argv) {
    ccOpts.flags |= CC_FLAG_FIX;
    return cmdCheck(argc, argv);
}

static int cmdCall(int argc, char **argv) {
    int r = loadFromArgs(1, argv);
    if (r < 0) return ccInvalidHost();
    if (!r) return 0;
    argc--;
    argv++;
    ccLog(CC_LOG_INFO, ">>> Calling");
    for (int k = 0; k < argc; k++) printf(" %s", argv[k]);
    printf("\n");
    for (int k = 0; k < ccNodeCount; k++) {
        ccNode *n = ccNodes[k];
        if ((ccOpts.flags & CC_FLAG_MASTERS_ONLY) && n->replicate) continue;
        if ((ccOpts.flags & CC_FLAG_SLAVES_ONLY) && !n->replicate) continue;
        if (!n->conn && !ccConnect(n)) continue;
        rcReply *reply = ccCommandArgv(n, argc, (const char **)argv);
        if (!reply) {
            printf("%s:%d: Failed!\n", n->ip, n->port);
            continue;
        }
        sds out = cliFormatRaw(reply, "\n");
        printf("%s:%d: %s\n", n->ip, n->port, out);
        sdsfree(out);
        rcFreeReply(reply);
    }
    return 1;
}

static int setTimeoutOn(ccNode *n, const char *ms) {
    sds err = NULL;
    rcReply *r = ccCommand(n, "CONFIG", "SET", "cluster-node-timeout", ms, NULL);
    int ok = ccCheckReply(n, r, &err);
    rcFreeReply(r);
    if (ok) {
        r = ccCommand(n, "CONFIG", "REWRITE", NULL);
        ok = ccCheckReply(n, r, &err);
        rcFreeReply(r);
    }
    if (ok) ccLog(CC_LOG_WARN, "*** New timeout set for %s:%d\n", n->ip, n->port);
    else ccLog(CC_LOG_ERR, "ERR setting node-timeout for %s:%d: %s\n", n->ip, n->port, err ? err : "");
    sdsfree(err);
    return ok;
}

static int cmdSetTimeout(int argc, char **argv) {
    (void)argc;
    char *ip;
    int port;
    if (!ccHostFromArgs(1, argv, &ip, &port)) return ccInvalidHost();
    int timeout = atoi(argv[1]);
    if (timeout < 100) {
        fprintf(stderr, "Setting a node timeout of less than 100 milliseconds is a bad idea.\n");
        return 0;
    }
    if (!ccLoadInfoFromNode(ccNewNode(ip, port))) return 0;
    char ms[16];
    snprintf(ms, sizeof(ms), "%d", timeout);
    int ok = 0, bad = 0;
    ccLog(CC_LOG_INFO, ">>> Reconfiguring node timeout in every cluster node...\n");
    for (int k = 0; k < ccNodeCount; k++) {
        if (setTimeoutOn(ccNodes[k], ms)) ok++;
        else bad++;
    }
    ccLog(CC_LOG_INFO, ">>> New node timeout set. %d OK, %d ERR.\n", ok, bad);
    return 1;
}

static int cmdDelNode(int argc, char **argv) {
    (void)argc;
    char *ip;
    int port;
    if (!ccHostFromArgs(1, argv, &ip, &port)) return ccInvalidHost();
    const char *id = argv[1];
    ccLog(CC_LOG_INFO, ">>> Removing node %s from cluster %s:%d\n", id, ip, port);
    if (!ccLoadInfoFromNode(ccNewNode(ip, port))) return 0;
    ccNode *node = ccNodeByName(id);
    if (!node) {
        ccLog(CC_LOG_ERR, "[ERR] No such node ID %s\n", id);
        return 0;
    }
    if (node->slots_count) {
        ccLog(CC_LOG_ERR, "[ERR] Node %s:%d is not empty! Reshard data away and try again.\n", node->ip, node->port);
        return 0;
    }
    ccLog(CC_LOG_INFO, ">>> Sending CLUSTER FORGET messages to the cluster...\n");
    for (int k = 0; k < ccNodeCount; k++) {
        ccNode *n = ccNodes[k];
        if (n == node) continue;
        rcReply *r;
        if (n->replicate && !strcasecmp(n->replicate, id)) {
            ccNode *m = ccNodeWithLeastReplicas();
            ccLog(CC_LOG_INFO, ">>> %s:%d as replica of %s:%d\n", n->ip, n->port, m->ip, m->port);
            r = ccCommand(n, "CLUSTER", "REPLICATE", m->name, NULL);
            int ok = ccCheckReply(n, r, NULL);
            rcFreeReply(r);
            if (!ok) return 0;
        }
        r = ccCommand(n, "CLUSTER", "FORGET", id, NULL);
        int ok = ccCheckReply(n, r, NULL);
        rcFreeReply(r);
        if (!ok) return 0;
    }
    ccLog(CC_LOG_INFO, ">>> Sending CLUSTER RESET SOFT to the deleted node.\n");
    rcReply *r = ccCommand(node, "CLUSTER", "RESET", "SOFT", NULL);
    int ok = ccCheckReply(node, r, NULL);
    rcFreeReply(r);
    return ok;
}

/* ---- help and dispatch ---------------------------------------------------------------- */

typedef int ccProc(int argc, char **argv);

static const struct ccCommandDef {
    const char *name;
    ccProc *proc;
    int arity; /* > 0 exactly, < 0 at least -arity */
    const char *args;
    const char *options;
} commands[] = {
    {"create", ccCmdCreate, -2, "host1:port1 ... hostN:portN", "replicas <arg>"},
    {"check", cmdCheck, -1, "<host:port> or <host> <port> - separated by either colon or space",
     "search-multiple-owners"},
    {"info", cmdInfo, -1, "<host:port> or <host> <port> - separated by either colon or space", NULL},
    {"fix", cmdFix, -1, "<host:port> or <host> <port> - separated by either colon or space",
     "search-multiple-owners,fix-with-unreachable-masters"},
    {"reshard", ccCmdReshard, -1, "<host:port> or <host> <port> - separated by either colon or space",
     "from <arg>,to <arg>,slots <arg>,yes,timeout <arg>,pipeline <arg>,replace"},
    {"rebalance", ccCmdRebalance, -1, "<host:port> or <host> <port> - separated by either colon or space",
     "weight <node1=w1...nodeN=wN>,use-empty-masters,timeout <arg>,simulate,pipeline <arg>,threshold <arg>,"
     "replace"},
    {"add-node", ccCmdAddNode, 2, "new_host:new_port existing_host:existing_port", "slave,master-id <arg>"},
    {"del-node", cmdDelNode, 2, "host:port node_id", NULL},
    {"call", cmdCall, -2, "host:port command arg arg .. arg", "only-masters,only-replicas"},
    {"set-timeout", cmdSetTimeout, 2, "host:port milliseconds", NULL},
    {"import", ccCmdImport, 1, "host:port", "from <arg>,from-user <arg>,from-pass <arg>,from-askpass,copy,replace"},
    {"backup", ccCmdBackup, 2, "host:port backup_directory", NULL},
    {"help", NULL, 0, NULL, NULL},
};
#define COMMAND_COUNT ((int)(sizeof(commands) / sizeof(commands[0])))

static int cmdHelp(void) {
    printf("Cluster Manager Commands:\n");
    for (int k = 0; k < COMMAND_COUNT; k++) {
        printf("  %-15s%s\n", commands[k].name, commands[k].args ? commands[k].args : "");
        if (!commands[k].options) continue;
        int c = 0;
        sds *opts = sdssplitlen(commands[k].options, (ssize_t)strlen(commands[k].options), ",", 1, &c);
        for (int j = 0; j < c; j++) printf("%15s  --cluster-%s\n", "", opts[j]);
        sdsfreesplitres(opts, c);
    }
    printf("\nFor check, fix, reshard, del-node, set-timeout, info, rebalance, call, import, backup you can "
           "specify the host and port of any working node in the cluster.\n");
    printf("\nCluster Manager Options:\n");
    printf("  %-15s%s\n", "--cluster-yes", "Automatic yes to cluster commands prompts");
    printf("\n");
    return 0;
}

/* -x: stdin is one more argument of the subcommand; -X tag: it replaces
 * the argument equal to the tag (Redis's tool applies both to --cluster). */
static int stdinArgument(void) {
    if (!config.stdin_lastarg && !config.stdin_tag) return 1;
    static sds arg;
    static char **argv;
    arg = sdsempty();
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), stdin)) > 0) arg = sdscatlen(arg, buf, n);
    argv = calloc((size_t)sub_argc + 2, sizeof(char *));
    memcpy(argv, sub_argv, sizeof(char *) * (size_t)sub_argc);
    if (config.stdin_lastarg) {
        argv[sub_argc++] = arg;
    } else {
        int k;
        for (k = 0; k < sub_argc && strcmp(argv[k], config.stdin_tag) != 0; k++) {}
        if (k == sub_argc) {
            fprintf(stderr, "Using -X option but stdin tag not match.\n");
            return 0;
        }
        argv[k] = arg;
    }
    sub_argv = argv;
    return 1;
}

int cliClusterMode(void) {
    if (!stdinArgument()) return 1;
    const struct ccCommandDef *def = NULL;
    for (int k = 0; k < COMMAND_COUNT; k++) {
        if (strcmp(commands[k].name, subcommand) != 0) continue;
        int a = commands[k].arity;
        if ((a > 0 && sub_argc != a) || (a < 0 && sub_argc < -a)) {
            fprintf(stderr, "[ERR] Wrong number of arguments for specified --cluster sub command\n");
            return 1;
        }
        def = &commands[k];
    }
    if (!def) {
        fprintf(stderr, "Unknown --cluster subcommand\n");
        return 1;
    }
    int ok = def->proc ? def->proc(sub_argc, sub_argv) : cmdHelp();
    fflush(stdout);
    ccFreeAll();
    return ok ? 0 : 1;
}
