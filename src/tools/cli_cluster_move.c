/* cli_cluster_move.c -- redis-cli --cluster subcommands that move slots and
 * keys: reshard and rebalance, and the slot move both use (open the slot on
 * both sides, MIGRATE its keys a pipeline at a time, give it to the target
 * everywhere), which `fix` reuses (cli_cluster_fix.c).
 *
 * The plans are Redis 7.0.15's, so the same cluster gives the same printed
 * plan: sources sorted by slot count (largest first, which takes the ceiling
 * of its share, the others the floor), each giving its lowest slots.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_cluster_int.h"

typedef struct moveItem {
    ccNode *source;
    int slot;
} moveItem;

/* ---- one slot -------------------------------------------------------------------- */

int ccSetSlot(ccNode *on, const ccNode *other, int slot, const char *state, sds *err) {
    char num[16];
    snprintf(num, sizeof(num), "%d", slot);
    rcReply *r = ccCommand(on, "CLUSTER", "SETSLOT", num, state, other->name, NULL);
    if (err) *err = NULL;
    if (!r) {
        if (err) *err = sdsnew("CLUSTER SETSLOT failed to run");
        return 0;
    }
    int ok = ccCheckReply(on, r, err);
    rcFreeReply(r);
    return ok;
}

/* MIGRATE host port "" 0 timeout [REPLACE] [AUTH pass | AUTH2 user pass] KEYS k1 k2 ... */
static rcReply *migrateKeys(ccNode *src, const ccNode *dst, const rcReply *keys, int replace) {
    size_t max = keys->elements + 12;
    const char **argv = calloc(max, sizeof(char *));
    size_t *lens = calloc(max, sizeof(size_t));
    char port[16], timeout[16];
    snprintf(port, sizeof(port), "%d", dst->port);
    snprintf(timeout, sizeof(timeout), "%d", ccOpts.timeout);
    int argc = 0;
    const char *head[] = {"MIGRATE", dst->ip, port, "", "0", timeout};
    for (int k = 0; k < 6; k++) argv[argc++] = head[k];
    if (replace) argv[argc++] = "REPLACE";
    argc = ccMigrateAuthArgs(argv, argc);
    argv[argc++] = "KEYS";
    for (int k = 0; k < argc; k++) lens[k] = strlen(argv[k]);
    for (size_t k = 0; k < keys->elements; k++) {
        lens[argc] = keys->element[k]->len;
        argv[argc++] = keys->element[k]->str;
    }
    rcReply *r = src->conn ? rcCommandArgv(src->conn, argc, argv, lens) : NULL;
    free(argv);
    free(lens);
    return r;
}

/* Keys in both nodes whose DUMPs differ (a BUSYKEY on MIGRATE). */
static int compareKeys(ccNode *a, ccNode *b, const rcReply *keys, sds **diffs, int *ndiff) {
    *diffs = NULL;
    *ndiff = 0;
    for (size_t k = 0; k < keys->elements; k++) {
        const char *argv[2] = {"DUMP", keys->element[k]->str};
        size_t lens[2] = {4, keys->element[k]->len};
        rcReply *ra = rcCommandArgv(a->conn, 2, argv, lens);
        rcReply *rb = rcCommandArgv(b->conn, 2, argv, lens);
        int ok = ccCheckReply(a, ra, NULL) && ccCheckReply(b, rb, NULL);
        int same = ok && ra->len == rb->len && (ra->len == 0 || !memcmp(ra->str, rb->str, ra->len));
        if (ok && !same) {
            *diffs = realloc(*diffs, sizeof(sds) * (size_t)(*ndiff + 1));
            (*diffs)[(*ndiff)++] = sdsnewlen(keys->element[k]->str, keys->element[k]->len);
        }
        rcFreeReply(ra);
        rcFreeReply(rb);
        if (!ok) return 0;
    }
    return 1;
}

static void freeDiffs(sds *diffs, int n) {
    for (int k = 0; k < n; k++) sdsfree(diffs[k]);
    free(diffs);
}

/* Who owns `slot` in n's CLUSTER SLOTS; NULL with *err NULL: nobody. */
ccNode *ccSlotOwner(ccNode *n, int slot, sds *err) {
    *err = NULL;
    rcReply *r = ccCommand(n, "CLUSTER", "SLOTS", NULL);
    if (!ccCheckReply(n, r, err)) {
        rcFreeReply(r);
        return NULL;
    }
    ccNode *owner = NULL;
    for (size_t k = 0; k < r->elements && !owner; k++) {
        rcReply *range = r->element[k];
        if (range->elements < 3) continue;
        if (slot < range->element[0]->integer || slot > range->element[1]->integer) continue;
        rcReply *m = range->element[2];
        if (m->elements < 2) continue;
        for (int j = 0; j < ccNodeCount && !owner; j++) {
            ccNode *c = ccNodes[j];
            if ((int)m->element[1]->integer == c->port && m->element[0]->len == sdslen(c->ip) &&
                !memcmp(m->element[0]->str, c->ip, sdslen(c->ip)))
                owner = c;
        }
    }
    rcFreeReply(r);
    return owner;
}

/* BUSYKEY: the same values are replaced; different ones stop (unless
 * --cluster-replace). Returns 1 when MIGRATE should be sent with REPLACE. */
static int handleBusy(ccNode *src, ccNode *dst, const rcReply *keys) {
    ccLog(CC_LOG_WARN, "\n*** Target key exists\n");
    if (!(ccOpts.flags & CC_FLAG_REPLACE)) {
        ccLog(CC_LOG_WARN, "*** Checking key values on both nodes...\n");
        sds *diffs;
        int ndiff;
        if (!compareKeys(src, dst, keys, &diffs, &ndiff)) {
            ccLog(CC_LOG_ERR, "*** Value check failed!\n");
            return 0;
        }
        if (ndiff > 0) {
            ccLog(CC_LOG_ERR,
                  "*** Found %d key(s) in both source node and target node having different values.\n"
                  "    Source node: %s:%d\n    Target node: %s:%d\n    Keys(s):\n",
                  ndiff, src->ip, src->port, dst->ip, dst->port);
            for (int k = 0; k < ndiff; k++) ccLog(CC_LOG_ERR, "    - %s\n", diffs[k]);
            ccLog(CC_LOG_ERR, "Please fix the above key(s) manually and try again or relaunch the command \n"
                              "with --cluster-replace option to force key overriding.\n");
            freeDiffs(diffs, ndiff);
            return 0;
        }
        freeDiffs(diffs, ndiff);
    }
    ccLog(CC_LOG_WARN, "*** Replacing target keys...\n");
    return 1;
}

/* A MIGRATE error: retried when the keys exist on the target or the slot
 * is served by nobody; 1 when the keys went. */
static int retryMigrate(ccNode *src, ccNode *dst, int slot, const rcReply *keys, rcReply **mr, sds *err) {
    int busy = strstr((*mr)->str, "BUSYKEY") != NULL, unserved = 0;
    if (!busy) {
        sds oerr = NULL;
        if (!ccSlotOwner(src, slot, &oerr)) {
            if (!oerr) unserved = 1;
            else ccPrintReplyError(src, oerr);
        }
        sdsfree(oerr);
    }
    if (!busy && !unserved) {
        if (err) *err = sdsnewlen((*mr)->str, (*mr)->len);
        printf("\n");
        ccPrintReplyError(src, (*mr)->str);
        return 0;
    }
    if ((ccOpts.flags & CC_FLAG_FIX) && unserved) {
        ccLog(CC_LOG_WARN, "*** Slot was not served, setting owner to node %s:%d.\n", dst->ip, dst->port);
        ccSetSlot(src, dst, slot, "node", NULL);
    }
    if (busy && !handleBusy(src, dst, keys)) return -1;
    rcFreeReply(*mr);
    *mr = migrateKeys(src, dst, keys, busy);
    if (*mr && (*mr)->type != RC_REPLY_ERROR) return 1;
    if (*mr) {
        if (err) *err = sdsnewlen((*mr)->str, (*mr)->len);
        printf("\n");
        ccPrintReplyError(src, (*mr)->str);
    }
    return 0;
}

/* Every key of the slot, `pipeline` at a time, a dot per key when verbose. */
int ccMigrateKeysInSlot(ccNode *src, ccNode *dst, int slot, int verbose, sds *err) {
    char num[16], count[16];
    snprintf(num, sizeof(num), "%d", slot);
    snprintf(count, sizeof(count), "%d", ccOpts.pipeline);
    for (;;) {
        rcReply *keys = ccCommand(src, "CLUSTER", "GETKEYSINSLOT", num, count, NULL);
        if (!keys) return 0;
        if (keys->type == RC_REPLY_ERROR) {
            if (err) {
                *err = sdsnewlen(keys->str, keys->len);
                ccPrintReplyError(src, *err);
            }
            rcFreeReply(keys);
            return 0;
        }
        if (keys->elements == 0) {
            rcFreeReply(keys);
            return 1;
        }
        rcReply *mr = migrateKeys(src, dst, keys, 0);
        int ok = mr != NULL;
        if (mr && mr->type == RC_REPLY_ERROR) ok = retryMigrate(src, dst, slot, keys, &mr, err) > 0;
        if (ok && verbose) {
            for (size_t k = 0; k < keys->elements; k++) putchar('.');
            fflush(stdout);
        }
        rcFreeReply(mr);
        rcFreeReply(keys);
        if (!ok) return 0;
    }
}

/* The target learns first (it spreads the news), then the source (which
 * may have become a replica on losing its last slot: not an error), then
 * every other master, so no client is sent around in circles. */
static int announceOwner(ccNode *src, ccNode *dst, int slot, sds *err) {
    if (!ccSetSlot(dst, dst, slot, "node", err)) return 0;
    if (!ccSetSlot(src, dst, slot, "node", err)) {
        const char *fine = "ERR Please use SETSLOT only with masters.";
        if (!(err && *err && !strncmp(*err, fine, strlen(fine)))) return 0;
        sdsfree(*err);
        *err = NULL;
    }
    for (int k = 0; k < ccNodeCount; k++) {
        ccNode *n = ccNodes[k];
        if (n == src || n == dst || (n->flags & CC_NODE_SLAVE)) continue;
        if (!ccSetSlot(n, dst, slot, "node", err)) return 0;
    }
    return 1;
}

int ccMoveSlot(ccNode *src, ccNode *dst, int slot, int opts, sds *err) {
    if (!(opts & CC_MOVE_QUIET)) {
        printf("Moving slot %d from %s:%d to %s:%d: ", slot, src->ip, src->port, dst->ip, dst->port);
        fflush(stdout);
    }
    if (err) *err = NULL;
    if (!(opts & CC_MOVE_COLD)) {
        if (!ccSetSlot(dst, src, slot, "importing", err)) return 0;
        if (!ccSetSlot(src, dst, slot, "migrating", err)) return 0;
    }
    int ok = ccMigrateKeysInSlot(src, dst, slot, opts & CC_MOVE_VERBOSE, err);
    if (!(opts & CC_MOVE_QUIET)) printf("\n");
    if (!ok) return 0;
    if (!(opts & CC_MOVE_COLD) && !announceOwner(src, dst, slot, err)) return 0;
    if (opts & CC_MOVE_UPDATE) {
        src->slots[slot] = 0;
        dst->slots[slot] = 1;
    }
    return 1;
}

/* ---- plans ------------------------------------------------------------------------- */

static int bySlotCountDesc(const void *a, const void *b) {
    return (*(ccNode *const *)b)->slots_count - (*(ccNode *const *)a)->slots_count;
}

static moveItem *computeReshardTable(ccNode **sources, int nsrc, int numslots, int *len) {
    ccNode **sorted = calloc((size_t)nsrc + 1, sizeof(*sorted));
    int total = 0;
    for (int k = 0; k < nsrc; k++) {
        sorted[k] = sources[k];
        total += sources[k]->slots_count;
    }
    qsort(sorted, (size_t)nsrc, sizeof(*sorted), bySlotCountDesc);
    moveItem *table = calloc((size_t)numslots + 1, sizeof(*table));
    *len = 0;
    for (int k = 0; k < nsrc; k++) {
        ccNode *n = sorted[k];
        float share = (float)numslots / total * n->slots_count;
        int max = (int)(k == 0 ? ceil(share) : floor(share)), count = 0;
        for (int s = 0; s < CC_SLOTS; s++) {
            if (!n->slots[s]) continue;
            if (count >= max || *len >= numslots) break;
            table[*len].source = n;
            table[(*len)++].slot = s;
            count++;
        }
    }
    free(sorted);
    return table;
}

/* ---- reshard ---------------------------------------------------------------------- */

/* One line of stdin (at most size-1 bytes kept), the rest of a longer line skipped. */
static int readAnswer(char *buf, int size) {
    ssize_t n = read(STDIN_FILENO, buf, (size_t)size);
    if (n <= 0) return -1;
    if (buf[n - 1] != '\n') {
        int ch;
        while ((ch = getchar()) != '\n' && ch != EOF) {}
    }
    buf[n - 1] = '\0';
    return (int)n;
}

static ccNode *reshardNode(const char *id, const ccNode *target, int *raise) {
    ccNode *n = ccNodeByName(id);
    *raise = 0;
    if (!n || (n->flags & CC_NODE_SLAVE)) {
        ccLog(CC_LOG_ERR, "*** The specified node (%s) is not known or not a master, please retry.\n", id);
        *raise = 1;
        return NULL;
    }
    if (target && !strcmp(n->name, target->name)) {
        ccLog(CC_LOG_ERR, "*** It is not possible to use the target node as source node.\n");
        return NULL;
    }
    return n;
}

static int askSlots(void) {
    int slots = ccOpts.slots;
    while (slots <= 0 || slots > CC_SLOTS) {
        printf("How many slots do you want to move (from 1 to %d)? ", CC_SLOTS);
        fflush(stdout);
        char buf[6];
        if (readAnswer(buf, 6) <= 0) exit(1); /* no more input: Redis's tool would ask forever */
        slots = atoi(buf);
    }
    return slots;
}

/* Adds a source by id; 0 to stop with an error. `all` set for "all". */
static int addSource(const char *id, ccNode *target, ccNode ***src, int *nsrc, int *all) {
    if (!strcmp(id, "all")) {
        *all = 1;
        return 1;
    }
    int raise = 0;
    ccNode *n = reshardNode(id, target, &raise);
    if (n) {
        *src = realloc(*src, sizeof(ccNode *) * (size_t)(*nsrc + 1));
        (*src)[(*nsrc)++] = n;
    }
    return !raise;
}

static int askSources(ccNode *target, ccNode ***src, int *nsrc, int *all) {
    char buf[255];
    printf("Please enter all the source node IDs.\n");
    printf("  Type 'all' to use all the nodes as source nodes for the hash slots.\n");
    printf("  Type 'done' once you entered all the source nodes IDs.\n");
    for (;;) {
        printf("Source node #%d: ", *nsrc + 1);
        fflush(stdout);
        if (readAnswer(buf, 255) <= 0) exit(1);
        if (!strcmp(buf, "done")) return 1;
        if (!addSource(buf, target, src, nsrc, all)) return 0;
        if (*all) return 1;
    }
}

static int sourcesFromOption(ccNode *target, ccNode ***src, int *nsrc, int *all) {
    sds from = sdsnew(ccOpts.from);
    int c = 0, ok = 1;
    sds *ids = sdssplitlen(from, (ssize_t)sdslen(from), ",", 1, &c);
    for (int k = 0; k < c && ok && !*all; k++) {
        if (sdslen(ids[k]) == 0 && k == c - 1) break;
        ok = addSource(ids[k], target, src, nsrc, all);
    }
    sdsfreesplitres(ids, c);
    sdsfree(from);
    return ok;
}

static void printReshardPlan(ccNode **src, int nsrc, ccNode *target, int slots) {
    printf("\nReady to move %d slots.\n", slots);
    printf("  Source nodes:\n");
    for (int k = 0; k < nsrc; k++) {
        sds d = ccNodeDescription(src[k], 4);
        printf("%s\n", d);
        sdsfree(d);
    }
    printf("  Destination node:\n");
    sds d = ccNodeDescription(target, 4);
    printf("%s\n", d);
    sdsfree(d);
}

static int runReshard(ccNode **src, int nsrc, ccNode *target, int slots) {
    printReshardPlan(src, nsrc, target, slots);
    int len = 0;
    moveItem *table = computeReshardTable(src, nsrc, slots, &len);
    printf("  Resharding plan:\n");
    for (int k = 0; k < len; k++) printf("    Moving slot %d from %s\n", table[k].slot, table[k].source->name);
    int ok = 1;
    if (!(ccOpts.flags & CC_FLAG_YES)) {
        printf("Do you want to proceed with the proposed reshard plan (yes/no)? ");
        fflush(stdout);
        char buf[4];
        ssize_t n = read(STDIN_FILENO, buf, 4);
        buf[3] = '\0';
        if (n > 0 && n < 3) buf[n] = '\0';
        if (n <= 0 || strcmp(buf, "yes") != 0) ok = 0;
    }
    for (int k = 0; k < len && ok; k++) {
        sds err = NULL;
        ok = ccMoveSlot(table[k].source, target, table[k].slot, CC_MOVE_VERBOSE, &err);
        if (!ok && err) ccLog(CC_LOG_ERR, "clusterManagerMoveSlot failed: %s\n", err);
        sdsfree(err);
    }
    free(table);
    return ok;
}

int ccCmdReshard(int argc, char **argv) {
    char *ip;
    int port;
    if (!ccHostFromArgs(argc, argv, &ip, &port)) return ccInvalidHost();
    if (!ccLoadInfoFromNode(ccNewNode(ip, port))) return 0;
    ccCheckCluster(0);
    if (ccErrorCount > 0) {
        fflush(stdout);
        fprintf(stderr, "*** Please fix your cluster problems before resharding\n");
        return 0;
    }
    int slots = askSlots();
    char buf[255];
    const char *to = ccOpts.to;
    while (!to) {
        printf("What is the receiving node ID? ");
        fflush(stdout);
        if (readAnswer(buf, 255) <= 0) exit(1);
        if (buf[0]) to = buf;
    }
    int raise = 0;
    ccNode *target = reshardNode(to, NULL, &raise);
    if (!target) return 0;
    ccNode **src = NULL;
    int nsrc = 0, all = 0;
    int ok = ccOpts.from ? sourcesFromOption(target, &src, &nsrc, &all) : askSources(target, &src, &nsrc, &all);
    if (ok && all) {
        nsrc = 0;
        for (int k = 0; k < ccNodeCount; k++) {
            ccNode *n = ccNodes[k];
            if ((n->flags & CC_NODE_SLAVE) || n->replicate || !strcmp(n->name, target->name)) continue;
            src = realloc(src, sizeof(ccNode *) * (size_t)(nsrc + 1));
            src[nsrc++] = n;
        }
    }
    if (ok && nsrc == 0) {
        fprintf(stderr, "*** No source nodes given, operation aborted.\n");
        ok = 0;
    }
    if (ok) ok = runReshard(src, nsrc, target, slots);
    free(src);
    return ok;
}

/* ---- rebalance --------------------------------------------------------------------- */

static int applyWeights(void) {
    for (int k = 0; k < ccOpts.weight_argc; k++) {
        sds name = sdsnew(ccOpts.weight[k]);
        char *eq = strchr(name, '=');
        if (!eq) {
            ccLog(CC_LOG_ERR, "*** invalid input %s\n", name);
            sdsfree(name);
            return 0;
        }
        *eq = '\0';
        ccNode *n = ccNodeByAbbreviatedName(name);
        if (!n) {
            ccLog(CC_LOG_ERR, "*** No such master node %s\n", name);
            sdsfree(name);
            return 0;
        }
        n->weight = (float)atof(eq + 1);
        sdsfree(name);
    }
    return 1;
}

static int byBalance(const void *a, const void *b) {
    return (*(ccNode *const *)a)->balance - (*(ccNode *const *)b)->balance;
}

/* Each node's balance: slots to give (> 0) or take (< 0); 1 when some node
 * is off by more than the threshold (percent). */
static int computeBalances(ccNode **nodes, int n, float total_weight) {
    int reached = 0, total = 0;
    for (int k = 0; k < n; k++) {
        ccNode *x = nodes[k];
        int expected = (int)(((float)CC_SLOTS / total_weight) * x->weight);
        x->balance = x->slots_count - expected;
        total += x->balance;
        if (ccOpts.threshold > 0) {
            if (x->slots_count > 0) {
                float err = (float)fabs(100 - (100.0 * expected / x->slots_count));
                if (err > ccOpts.threshold) reached = 1;
            } else if (expected > 1) {
                reached = 1;
            }
        }
    }
    if (!reached) return 0;
    while (total > 0) {
        for (int k = 0; k < n; k++) {
            if (nodes[k]->balance <= 0 && total > 0) {
                nodes[k]->balance--;
                total--;
            }
        }
    }
    return 1;
}

static int moveBalance(ccNode *src, ccNode *dst, int numslots) {
    printf("Moving %d slots from %s:%d to %s:%d\n", numslots, src->ip, src->port, dst->ip, dst->port);
    int len = 0;
    moveItem *table = computeReshardTable(&src, 1, numslots, &len);
    int ok = 1;
    if (len != numslots) {
        ccLog(CC_LOG_ERR, "*** Assertion failed: Reshard table != number of slots");
        ok = 0;
    } else if (ccOpts.flags & CC_FLAG_SIMULATE) {
        for (int k = 0; k < len; k++) printf("#");
    } else {
        for (int k = 0; k < len && ok; k++) {
            sds err = NULL;
            ok = ccMoveSlot(table[k].source, dst, table[k].slot, CC_MOVE_QUIET | CC_MOVE_UPDATE, &err);
            if (!ok) ccLog(CC_LOG_ERR, "*** clusterManagerMoveSlot: %s\n", err ? err : "(null)");
            else printf("#");
            fflush(stdout);
            sdsfree(err);
        }
    }
    if (ok) printf("\n");
    free(table);
    return ok;
}

static int runRebalance(ccNode **nodes, int n) {
    int dst_idx = 0, src_idx = n - 1;
    while (dst_idx < src_idx) {
        ccNode *dst = nodes[dst_idx], *src = nodes[src_idx];
        int db = abs(dst->balance), sb = abs(src->balance);
        int numslots = db < sb ? db : sb;
        if (numslots > 0 && !moveBalance(src, dst, numslots)) return 0;
        dst->balance += numslots;
        src->balance -= numslots;
        if (dst->balance == 0) dst_idx++;
        if (src->balance == 0) src_idx--;
    }
    return 1;
}

int ccCmdRebalance(int argc, char **argv) {
    char *ip;
    int port;
    if (!ccHostFromArgs(argc, argv, &ip, &port)) return ccInvalidHost();
    if (!ccLoadInfoFromNode(ccNewNode(ip, port))) return 0;
    if (ccOpts.weight && !applyWeights()) return 0;
    int use_empty = ccOpts.flags & CC_FLAG_EMPTYMASTER, n = 0;
    float total_weight = 0;
    ccNode **nodes = calloc((size_t)ccNodeCount + 1, sizeof(*nodes));
    for (int k = 0; k < ccNodeCount; k++) {
        ccNode *x = ccNodes[k];
        if ((x->flags & CC_NODE_SLAVE) || x->replicate) continue;
        if (!use_empty && x->slots_count == 0) {
            x->weight = 0;
            continue;
        }
        total_weight += x->weight;
        nodes[n++] = x;
    }
    ccCheckCluster(1);
    int ok = 1;
    if (ccErrorCount > 0) {
        ccLog(CC_LOG_ERR, "*** Please fix your cluster problems before rebalancing\n");
        ok = 0;
    } else if (!computeBalances(nodes, n, total_weight)) {
        ccLog(CC_LOG_WARN, "*** No rebalancing needed! All nodes are within the %.2f%% threshold.\n",
              (double)ccOpts.threshold);
    } else {
        qsort(nodes, (size_t)n, sizeof(*nodes), byBalance);
        ccLog(CC_LOG_INFO, ">>> Rebalancing across %d nodes. Total weight = %.2f\n", n, (double)total_weight);
        for (int k = 0; config.verbose && k < n; k++)
            printf("%s:%d balance is %d slots\n", nodes[k]->ip, nodes[k]->port, nodes[k]->balance);
        ok = runRebalance(nodes, n);
    }
    free(nodes);
    return ok;
}
