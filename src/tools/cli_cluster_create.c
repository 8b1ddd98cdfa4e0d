/* cli_cluster_create.c -- redis-cli --cluster create and add-node: empty
 * nodes made into a cluster, or into one more member of one.
 *
 * create follows Redis 7.0.15's plan, so the same nodes give the same
 * printed plan: nodes are interleaved by IP (one of each host in turn), the
 * first N become masters with 16384/N slots each (rounded as there), the rest
 * are handed to the masters as replicas preferring another host, and a
 * random search then swaps replicas to lower the anti-affinity score
 * (10000 for a replica beside its master, 1 for replicas of one master on
 * one host). That search is random in Redis's tool too: when the score can't
 * reach 0 the final pairs may differ from run to run, and from ours.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include "anet.h"
#include "cli_cluster_int.h"

/* --cluster-yes answers for us unless ignore_yes; otherwise "yes" on stdin. */
int ccConfirm(const char *msg, int ignore_yes) {
    if (!ignore_yes && (ccOpts.flags & CC_FLAG_YES)) return 1;
    printf("%s (type 'yes' to accept): ", msg);
    fflush(stdout);
    char buf[4];
    ssize_t n = read(STDIN_FILENO, buf, 4);
    if (n <= 0) return 0;
    buf[3] = '\0';
    if (n < 3) buf[n] = '\0';
    return !strcmp(buf, "yes");
}

/* Polls every second until all nodes agree, one dot a second. */
void ccWaitForClusterJoin(void) {
    printf("Waiting for the cluster to join\n");
    while (!ccIsConfigConsistent()) {
        printf(".");
        fflush(stdout);
        sleep(1);
    }
    printf("\n");
}

/* CLUSTER MEET wants an address: a host name is resolved first. */
static int resolveIp(const char *host, char *out, size_t len) {
    return anetResolve(NULL, host, out, len, ANET_NONE) != ANET_ERR;
}

static rcReply *meet(ccNode *n, const ccNode *first, const char *first_ip) {
    char port[16], bus[16];
    snprintf(port, sizeof(port), "%d", first->port);
    snprintf(bus, sizeof(bus), "%d", first->bus_port);
    if (first->bus_port == 0 || first->bus_port == first->port + 10000)
        return ccCommand(n, "CLUSTER", "MEET", first_ip, port, NULL);
    return ccCommand(n, "CLUSTER", "MEET", first_ip, port, bus, NULL);
}

/* ---- create ----------------------------------------------------------------------- */

/* A node of `create`: reachable, in cluster mode, empty. */
static ccNode *createCandidate(char *addr) {
    char *ip;
    int port;
    if (!ccParseAddress(addr, &ip, &port, NULL)) {
        fprintf(stderr, "Invalid address format: %s\n", addr);
        return NULL;
    }
    ccNode *n = ccNewNode(ip, port);
    sds err = NULL;
    int ok = ccConnect(n);
    if (ok && !ccNodeIsCluster(n, &err)) {
        ccPrintNotClusterError(n, err);
        ok = 0;
    } else if (ok && !ccNodeLoadInfo(n, 0, &err)) {
        if (err) ccPrintReplyError(n, err);
        ok = 0;
    } else if (ok && !ccNodeIsEmpty(n, &err)) {
        ccPrintNotEmptyError(n, err);
        ok = 0;
    }
    sdsfree(err);
    if (!ok) ccFreeNode(n);
    return ok ? n : NULL;
}

/* Nodes taken one per host in turn, hosts in order of first appearance. */
static ccNode **interleaveByHost(void) {
    ccNode **out = calloc((size_t)ccNodeCount, sizeof(*out));
    int *taken = calloc((size_t)ccNodeCount, sizeof(int));
    int len = 0;
    while (len < ccNodeCount) {
        const char *seen_hosts[1024];
        int nhosts = 0;
        for (int k = 0; k < ccNodeCount; k++) {
            if (taken[k]) continue;
            int dup = 0;
            for (int h = 0; h < nhosts; h++) dup |= !strcmp(seen_hosts[h], ccNodes[k]->ip);
            if (dup || nhosts == 1024) continue;
            seen_hosts[nhosts++] = ccNodes[k]->ip;
            taken[k] = 1;
            out[len++] = ccNodes[k];
        }
    }
    free(taken);
    return out;
}

static void assignSlots(ccNode **masters, int count) {
    float per_node = CC_SLOTS / (float)count, cursor = 0.0f;
    long first = 0;
    for (int k = 0; k < count; k++) {
        long last = lround(cursor + per_node - 1);
        if (last > CC_SLOTS || k == count - 1) last = CC_SLOTS - 1;
        if (last < first) last = first;
        printf("Master[%d] -> Slots %ld - %ld\n", k, first, last);
        masters[k]->slots_count = 0;
        for (long s = first; s <= last; s++) {
            masters[k]->slots[s] = 1;
            masters[k]->slots_count++;
        }
        masters[k]->dirty = 1;
        first = last + 1;
        cursor += per_node;
    }
}

static void setReplicate(ccNode *slave, const ccNode *master) {
    sdsfree(slave->replicate);
    slave->replicate = sdsdup(master->name);
    slave->dirty = 1;
    printf("Adding replica %s:%d to %s:%d\n", slave->ip, slave->port, master->ip, master->port);
}

/* Replicas for each master, another host first; then the ones left over,
 * one more per master in turn ("Adding extra replicas..."). */
static void assignReplicas(ccNode **masters, int nmasters, ccNode **pool, int pool_len, int replicas) {
    int available = pool_len;
    for (int extra = 0; extra < 2; extra++) {
        for (int m = 0; m < nmasters; m++) {
            for (int assigned = 0; assigned < replicas && available > 0;) {
                int pick = -1, same_host = -1;
                for (int j = 0; j < pool_len && pick < 0; j++) {
                    if (!pool[j]) continue;
                    if (strcmp(pool[j]->ip, masters[m]->ip)) pick = j;
                    else if (same_host < 0) same_host = j;
                }
                if (pick < 0 && same_host >= 0) {
                    /* Redis's tool drops the pool's head up to this node. */
                    ccNode *s = pool[same_host];
                    pool += same_host + 1;
                    pool_len -= same_host + 1;
                    assigned++;
                    available--;
                    setReplicate(s, masters[m]);
                } else if (pick >= 0) {
                    ccNode *s = pool[pick];
                    pool[pick] = NULL;
                    assigned++;
                    available--;
                    setReplicate(s, masters[m]);
                } else break;
                if (extra) break;
            }
        }
        if (extra || available == 0) break;
        printf("Adding extra replicas...\n");
    }
}

/* 10000 for each replica on its master's host beyond the master, 1 for
 * each node of a group of replicas of one master on a host without it. */
static int antiAffinityScore(ccNode ***offenders, int *noff) {
    int score = 0;
    if (offenders) {
        *offenders = calloc((size_t)ccNodeCount + 1, sizeof(ccNode *));
        *noff = 0;
    }
    for (int a = 0; a < ccNodeCount; a++) {
        ccNode *na = ccNodes[a];
        const char *key = na->replicate ? na->replicate : na->name;
        int first = 1;
        for (int b = 0; b < a; b++) {
            ccNode *nb = ccNodes[b];
            const char *kb = nb->replicate ? nb->replicate : nb->name;
            if (!strcmp(nb->ip, na->ip) && !strcmp(kb, key)) first = 0;
        }
        if (!first) continue; /* group counted at its first member */
        int masters = 0, slaves = 0;
        for (int b = 0; b < ccNodeCount; b++) {
            ccNode *nb = ccNodes[b];
            const char *kb = nb->replicate ? nb->replicate : nb->name;
            if (strcmp(nb->ip, na->ip) || strcmp(kb, key)) continue;
            if (nb->replicate) slaves++;
            else masters++;
        }
        int types = masters + slaves;
        if (types < 2) continue;
        score += masters ? 10000 * (types - 1) : types;
        if (!offenders) continue;
        for (int b = 0; b < ccNodeCount; b++) {
            ccNode *nb = ccNodes[b];
            if (nb->replicate && !strcmp(nb->replicate, key) && !strcmp(nb->ip, na->ip)) {
                (*offenders)[(*noff)++] = nb;
                break;
            }
        }
    }
    return score;
}

static void optimizeAntiAffinity(void) {
    if (antiAffinityScore(NULL, NULL) == 0) return;
    ccLog(CC_LOG_INFO, ">>> Trying to optimize slaves allocation for anti-affinity\n");
    srand((unsigned)time(NULL));
    for (int iter = 500 * ccNodeCount; iter > 0; iter--) {
        ccNode **off = NULL;
        int noff = 0;
        int score = antiAffinityScore(&off, &noff);
        if (score == 0 || noff == 0) {
            free(off);
            break;
        }
        ccNode *a = off[rand() % noff];
        free(off);
        ccNode **others = calloc((size_t)ccNodeCount, sizeof(*others));
        int nothers = 0;
        for (int k = 0; k < ccNodeCount; k++)
            if (ccNodes[k] != a && ccNodes[k]->replicate) others[nothers++] = ccNodes[k];
        if (nothers == 0) {
            free(others);
            break;
        }
        ccNode *b = others[rand() % nothers];
        free(others);
        sds ma = a->replicate, mb = b->replicate;
        a->replicate = mb;
        b->replicate = ma;
        a->dirty = b->dirty = 1;
        if (antiAffinityScore(NULL, NULL) > score) {
            a->replicate = ma;
            b->replicate = mb;
        }
    }
    int score = antiAffinityScore(NULL, NULL);
    if (score == 0) ccLog(CC_LOG_OK, "%s\n", "[OK] Perfect anti-affinity obtained!");
    else if (score >= 10000) ccLog(CC_LOG_WARN, "%s\n", "[WARNING] Some slaves are in the same host as their master");
    else ccLog(CC_LOG_WARN, "%s\n", "[WARNING] Some slaves of the same master are in the same host");
}

static int addSlots(ccNode *n, sds *err) {
    const char **argv = calloc(CC_SLOTS + 2, sizeof(char *));
    sds *nums = calloc(CC_SLOTS, sizeof(sds));
    int argc = 2, nnum = 0;
    argv[0] = "CLUSTER";
    argv[1] = "ADDSLOTS";
    for (int s = 0; s < CC_SLOTS; s++)
        if (n->slots[s]) argv[argc++] = nums[nnum++] = sdsfromlonglong(s);
    int ok = 0;
    if (argc > 2) {
        rcReply *r = ccCommandArgv(n, argc, argv);
        ok = ccCheckReply(n, r, err);
        rcFreeReply(r);
    }
    for (int k = 0; k < nnum; k++) sdsfree(nums[k]);
    free(nums);
    free(argv);
    return ok;
}

/* Sends a dirty node its slots (master) or its master (replica). */
static int flushNodeConfig(ccNode *n, sds *err) {
    *err = NULL;
    if (!n->dirty) return 0;
    if (n->replicate) {
        rcReply *r = ccCommand(n, "CLUSTER", "REPLICATE", n->replicate, NULL);
        int ok = ccCheckReply(n, r, err);
        rcFreeReply(r);
        if (!ok) return 0; /* the master may not be known yet: later */
    } else if (!addSlots(n, err) || *err) {
        n->dirty = 0;
        return 0;
    }
    n->dirty = 0;
    return 1;
}

static int flushAll(int only_dirty) {
    for (int k = 0; k < ccNodeCount; k++) {
        ccNode *n = ccNodes[k];
        if (only_dirty && !n->dirty) continue;
        int was_dirty = n->dirty;
        sds err = NULL;
        int ok = flushNodeConfig(n, &err);
        if (!ok && (only_dirty || was_dirty) && !n->replicate) {
            if (err) ccPrintReplyError(n, err);
            sdsfree(err);
            return 0;
        }
        sdsfree(err);
    }
    return 1;
}

static int meetAll(void) {
    ccNode *first = ccNodes[0];
    char ip[64];
    if (!resolveIp(first->ip, ip, sizeof(ip))) {
        fprintf(stderr, "Invalid IP address or hostname specified: %s\n", first->ip);
        return 0;
    }
    for (int k = 1; k < ccNodeCount; k++) {
        ccNode *n = ccNodes[k];
        rcReply *r = meet(n, first, ip);
        int bad = !r || r->type == RC_REPLY_ERROR;
        if (r && bad) ccPrintReplyError(n, r->str);
        if (!r) fprintf(stderr, "Failed to send CLUSTER MEET command.\n");
        rcFreeReply(r);
        if (bad) return 0;
    }
    return 1;
}

static int configureCluster(void) {
    if (!flushAll(0)) return 0;
    ccLog(CC_LOG_INFO, ">>> Nodes configuration updated\n");
    ccLog(CC_LOG_INFO, ">>> Assign a different config epoch to each node\n");
    for (int k = 0; k < ccNodeCount; k++) {
        char epoch[16];
        snprintf(epoch, sizeof(epoch), "%d", k + 1);
        rcFreeReply(ccCommand(ccNodes[k], "CLUSTER", "SET-CONFIG-EPOCH", epoch, NULL));
    }
    ccLog(CC_LOG_INFO, ">>> Sending CLUSTER MEET messages to join the cluster\n");
    if (!meetAll()) return 0;
    sleep(1); /* the join must have started, or empty nodes agree at once */
    ccWaitForClusterJoin();
    if (!flushAll(1)) return 0;
    ccNode *first = ccNodes[0];
    ccNodes[0] = NULL;
    ccFreeAll();
    if (!ccLoadInfoFromNode(first)) return 0;
    ccCheckCluster(0);
    return 1;
}

int ccCmdCreate(int argc, char **argv) {
    for (int k = 0; k < argc; k++) {
        ccNode *n = createCandidate(argv[k]);
        if (!n) return 0;
        ccAddNode(n);
    }
    int replicas = ccOpts.replicas;
    int masters = ccNodeCount / (replicas + 1);
    if (masters < 3) {
        ccLog(CC_LOG_ERR,
              "*** ERROR: Invalid configuration for cluster creation.\n"
              "*** Redis Cluster requires at least 3 master nodes.\n"
              "*** This is not possible with %d nodes and %d replicas per node.",
              ccNodeCount, replicas);
        ccLog(CC_LOG_ERR, "\n*** At least %d nodes are required.\n", 3 * (replicas + 1));
        return 0;
    }
    ccLog(CC_LOG_INFO, ">>> Performing hash slots allocation on %d nodes...\n", ccNodeCount);
    ccNode **order = interleaveByHost();
    assignSlots(order, masters);
    ccNode **pool = order + masters;
    int pool_len = ccNodeCount - masters;
    if (pool_len > 0) {
        ccNode *head = pool[0]; /* rotated by one, as Redis's tool does */
        memmove(pool, pool + 1, sizeof(*pool) * (size_t)(pool_len - 1));
        pool[pool_len - 1] = head;
    }
    assignReplicas(order, masters, pool, pool_len, replicas);
    free(order);
    optimizeAntiAffinity();
    ccShowNodes();
    if (!ccConfirm("Can I set the above configuration?", 0)) return 1;
    return configureCluster();
}

/* ---- add-node -------------------------------------------------------------------- */

static ccNode *masterForNewReplica(void) {
    if (!(ccOpts.flags & CC_FLAG_SLAVE)) return NULL;
    if (ccOpts.master_id) {
        ccNode *m = ccNodeByName(ccOpts.master_id);
        if (!m) ccLog(CC_LOG_ERR, "[ERR] No such master ID %s\n", ccOpts.master_id);
        return m;
    }
    ccNode *m = ccNodeWithLeastReplicas();
    printf("Automatically selected master %s:%d\n", m->ip, m->port);
    return m;
}

/* The new node must be reachable, in cluster mode and empty. */
static int checkNewNode(ccNode *n) {
    sds err = NULL;
    int ok = 1;
    if (!ccConnect(n)) {
        ccLog(CC_LOG_ERR, "[ERR] Sorry, can't connect to node %s:%d\n", n->ip, n->port);
        ok = 0;
    } else if (!ccNodeIsCluster(n, &err)) {
        ccPrintNotClusterError(n, err);
        ok = 0;
    } else if (!ccNodeLoadInfo(n, 0, &err)) {
        if (err) ccPrintReplyError(n, err);
        ok = 0;
    } else if (!ccNodeIsEmpty(n, &err)) {
        ccPrintNotEmptyError(n, err);
        ok = 0;
    }
    sdsfree(err);
    return ok;
}

/* A new master gets the cluster's functions (a replica gets them from its
 * master); a node that has functions already is refused. */
static int copyFunctions(ccNode *ref, ccNode *n) {
    sds err = NULL;
    ccLog(CC_LOG_INFO, ">>> Getting functions from cluster\n");
    rcReply *dump = ccCommand(ref, "FUNCTION", "DUMP", NULL);
    if (!ccCheckReply(ref, dump, &err)) {
        ccLog(CC_LOG_INFO,
              ">>> Failed retrieving Functions from the cluster, skip this step as Redis version do not support "
              "function command (error = '%s')\n",
              err ? err : "NULL reply");
        sdsfree(err);
        rcFreeReply(dump);
        return 1;
    }
    ccLog(CC_LOG_INFO, ">>> Send FUNCTION LIST to %s:%d to verify there is no functions in it\n", n->ip, n->port);
    rcReply *list = ccCommand(n, "FUNCTION", "LIST", NULL);
    int ok = ccCheckReply(n, list, &err);
    if (!ok) ccLog(CC_LOG_ERR, ">>> Failed on CLUSTER LIST (error = '%s')\r\n", err ? err : "NULL reply");
    else if (list->elements > 0) {
        ccLog(CC_LOG_ERR, ">>> New node already contains functions and can not be added to the cluster. Use "
                          "FUNCTION FLUSH and try again.\r\n");
        ok = 0;
    }
    rcFreeReply(list);
    if (ok) {
        ccLog(CC_LOG_INFO, ">>> Send FUNCTION RESTORE to %s:%d\n", n->ip, n->port);
        const char *argv[3] = {"FUNCTION", "RESTORE", NULL};
        size_t lens[3] = {8, 7, dump->len};
        argv[2] = dump->str;
        rcReply *r = rcCommandArgv(n->conn, 3, argv, lens);
        ok = ccCheckReply(n, r, &err);
        if (!ok) ccLog(CC_LOG_ERR, ">>> Failed loading functions to the new node (error = '%s')\r\n",
                       err ? err : "NULL reply");
        rcFreeReply(r);
    }
    sdsfree(err);
    rcFreeReply(dump);
    return ok;
}

static int joinNewNode(ccNode *n, ccNode *master) {
    ccNode *first = ccNodes[0];
    ccLog(CC_LOG_INFO, ">>> Send CLUSTER MEET to node %s:%d to make it join the cluster.\n", n->ip, n->port);
    char ip[64];
    if (!resolveIp(first->ip, ip, sizeof(ip))) {
        fprintf(stderr, "Invalid IP address or hostname specified: %s\n", first->ip);
        return 0;
    }
    rcReply *r = meet(n, first, ip);
    int ok = ccCheckReply(n, r, NULL);
    rcFreeReply(r);
    if (!ok) return 0;
    if (master) {
        sleep(1);
        ccWaitForClusterJoin();
        ccLog(CC_LOG_INFO, ">>> Configure node as replica of %s:%d.\n", master->ip, master->port);
        r = ccCommand(n, "CLUSTER", "REPLICATE", master->name, NULL);
        ok = ccCheckReply(n, r, NULL);
        rcFreeReply(r);
        if (!ok) return 0;
    }
    ccLog(CC_LOG_OK, "[OK] New node added correctly.\n");
    return 1;
}

int ccCmdAddNode(int argc, char **argv) {
    char *ref_ip, *ip;
    int ref_port, port;
    if (!ccHostFromArgs(argc - 1, argv + 1, &ref_ip, &ref_port) || !ccHostFromArgs(1, argv, &ip, &port))
        return ccInvalidHost();
    ccLog(CC_LOG_INFO, ">>> Adding node %s:%d to cluster %s:%d\n", ip, port, ref_ip, ref_port);
    ccNode *ref = ccNewNode(ref_ip, ref_port);
    if (!ccLoadInfoFromNode(ref)) return 0;
    if (!ccCheckCluster(0)) return 0;
    ccNode *master = masterForNewReplica();
    if ((ccOpts.flags & CC_FLAG_SLAVE) && !master) return 0;
    ccNode *n = ccNewNode(ip, port);
    if (!checkNewNode(n)) {
        ccFreeNode(n);
        return 0;
    }
    ccAddNode(n);
    if (!master && !copyFunctions(ref, n)) return 0;
    return joinNewNode(n, master);
}
