/* cli_cluster_fix.c -- redis-cli --cluster fix (open slots, uncovered
 * slots, slots with several owners), import and backup.
 *
 * import walks the source's db 0 with SCAN and MIGRATEs each key to the
 * master owning its slot (rclient_slot.c), as Redis 7.0.15's tool does,
 * key by key with a line each.
 *
 * fix follows Redis 7.0.15's cases, so it repairs what that tool repairs
 * and refuses what it refuses ("can't fix this slot yet"): an open slot is
 * closed by moving its keys to the owner (elected by key count when there
 * is none or several), uncovered slots are given to the master holding
 * their keys (a random one without keys) once "yes" is typed, and a slot
 * with several owners is given to the one with most keys.
 *
 * backup saves each master's snapshot with a plain SYNC (cli_sync.c) and
 * the cluster's description as Redis 7.0.15's nodes.json.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli_cluster_int.h"

/* ---- import ---------------------------------------------------------------------- */

static void importError(const char *ip, int port, const char *err) {
    ccLog(CC_LOG_ERR, "Source %s:%d replied with error:\n%s\n", ip, port, err);
}

/* The source: reachable, authenticated with --cluster-from-user/-pass,
 * not a cluster node. NULL after saying why. */
static rcConn *importSource(const char *ip, int port) {
    rcConn *c = rcConnectTcp(ip, port, 0);
    if (c->err != RC_E_NONE) {
        fprintf(stderr, "Could not connect to Redis at %s:%d: %s.\n", ip, port, c->errstr);
        rcFree(c);
        return NULL;
    }
    if (ccOpts.from_pass) {
        rcReply *r = ccOpts.from_user ? rcCommand(c, "AUTH", ccOpts.from_user, ccOpts.from_pass, NULL)
                                      : rcCommand(c, "AUTH", ccOpts.from_pass, NULL);
        int ok = r && r->type != RC_REPLY_ERROR;
        if (!r) fprintf(stderr, "\nI/O error\n");
        else if (!ok) fprintf(stderr, "AUTH failed: %s\n", r->str);
        rcFreeReply(r);
        if (!ok) {
            rcFree(c);
            return NULL;
        }
    }
    rcReply *r = rcCommand(c, "INFO", NULL);
    int ok = r && r->type != RC_REPLY_ERROR;
    if (!ok && r) importError(ip, port, r->str);
    if (ok && strstr(r->str, "cluster_enabled:1")) {
        ccLog(CC_LOG_ERR, "[ERR] The source node should not be a cluster node.\n");
        ok = 0;
    }
    rcFreeReply(r);
    if (!ok) rcFree(c);
    return ok ? c : NULL;
}

static ccNode *slotMaster(int slot) {
    for (int k = 0; k < ccNodeCount; k++) {
        ccNode *n = ccNodes[k];
        if (!(n->flags & CC_NODE_SLAVE) && n->slots_count && n->slots[slot]) return n;
    }
    return NULL;
}

/* MIGRATE host port key 0 timeout [AUTH pass | AUTH2 user pass] [COPY] [REPLACE] */
static int importKey(rcConn *src, const rcReply *key, const char *ip, int port) {
    unsigned int slot = rcKeyHashSlot(key->str, key->len);
    ccNode *t = slotMaster((int)slot);
    const char *argv[12];
    size_t lens[12];
    char p[16], timeout[16];
    snprintf(p, sizeof(p), "%d", t->port);
    snprintf(timeout, sizeof(timeout), "%d", ccOpts.timeout);
    int argc = 0;
    const char *head[] = {"MIGRATE", t->ip, p, key->str, "0", timeout};
    for (int k = 0; k < 6; k++) argv[argc++] = head[k];
    argc = ccMigrateAuthArgs(argv, argc);
    if (ccOpts.flags & CC_FLAG_COPY) argv[argc++] = "COPY";
    if (ccOpts.flags & CC_FLAG_REPLACE) argv[argc++] = "REPLACE";
    for (int k = 0; k < argc; k++) lens[k] = strlen(argv[k]);
    lens[3] = key->len;
    printf("Migrating %s to %s:%d: ", key->str, t->ip, t->port);
    rcReply *r = rcCommandArgv(src, argc, argv, lens);
    int ok = r && r->type != RC_REPLY_ERROR;
    if (r && !ok) importError(ip, port, r->str);
    rcFreeReply(r);
    if (ok) ccLog(CC_LOG_OK, "OK\n");
    return ok;
}

static int importKeys(rcConn *src, const char *ip, int port) {
    char cursor[32] = "0";
    do {
        rcReply *r = rcCommand(src, "SCAN", cursor, "COUNT", "1000", NULL);
        if (!r || r->type == RC_REPLY_ERROR || r->elements < 2) {
            if (r && r->type == RC_REPLY_ERROR) importError(ip, port, r->str);
            rcFreeReply(r);
            return 0;
        }
        snprintf(cursor, sizeof(cursor), "%.*s", (int)r->element[0]->len, r->element[0]->str);
        for (size_t k = 0; k < r->element[1]->elements; k++) {
            if (!importKey(src, r->element[1]->element[k], ip, port)) {
                rcFreeReply(r);
                return 0;
            }
        }
        rcFreeReply(r);
    } while (strcmp(cursor, "0") != 0);
    return 1;
}

int ccCmdImport(int argc, char **argv) {
    char *ip, *src_ip;
    int port, src_port;
    if (!ccHostFromArgs(argc, argv, &ip, &port)) return ccInvalidHost();
    if (!ccOpts.from) {
        fprintf(stderr, "[ERR] Option '--cluster-from' is required for subcommand 'import'.\n");
        return 0;
    }
    char *from = strdup(ccOpts.from);
    if (!ccHostFromArgs(1, &from, &src_ip, &src_port)) {
        fprintf(stderr, "[ERR] Invalid --cluster-from host. You need to pass a valid address (ie. 120.0.0.1:7000).\n");
        free(from);
        return 0;
    }
    ccLog(CC_LOG_INFO, ">>> Importing data from %s:%d to cluster %s:%d\n", src_ip, src_port, ip, port);
    int ok = ccLoadInfoFromNode(ccNewNode(ip, port)) && ccCheckCluster(0);
    rcConn *src = ok ? importSource(src_ip, src_port) : NULL;
    rcReply *size = src ? rcCommand(src, "DBSIZE", NULL) : NULL;
    ok = size && size->type == RC_REPLY_INTEGER;
    if (size && !ok && size->type == RC_REPLY_ERROR) importError(src_ip, src_port, size->str);
    if (ok) {
        ccLog(CC_LOG_WARN, "*** Importing %lld keys from DB 0\n", size->integer);
        ok = importKeys(src, src_ip, src_port);
    }
    rcFreeReply(size);
    rcFree(src);
    free(from);
    return ok;
}

/* ---- fix: helpers ------------------------------------------------------------------ */

typedef struct nodeList {
    ccNode **n;
    int count;
} nodeList;

static void listAdd(nodeList *l, ccNode *n) {
    l->n = realloc(l->n, sizeof(ccNode *) * (size_t)(l->count + 1));
    l->n[l->count++] = n;
}

static void listRemove(nodeList *l, const ccNode *n) {
    for (int k = 0; k < l->count; k++) {
        if (l->n[k] != n) continue;
        memmove(l->n + k, l->n + k + 1, sizeof(ccNode *) * (size_t)(l->count - k - 1));
        l->count--;
        return;
    }
}

static int slotCommand(ccNode *n, const char *sub, int slot, const char *extra) {
    char num[16];
    snprintf(num, sizeof(num), "%d", slot);
    rcReply *r = extra ? ccCommand(n, "CLUSTER", sub, num, extra, NULL) : ccCommand(n, "CLUSTER", sub, num, NULL);
    int ok = ccCheckReply(n, r, NULL);
    rcFreeReply(r);
    return ok;
}

static int clearSlotStatus(ccNode *n, int slot) { return slotCommand(n, "SETSLOT", slot, "STABLE"); }

/* DELSLOTS, a slot nobody serves being no error when asked. */
static int delSlot(ccNode *n, int slot, int ignore_unassigned) {
    char num[16];
    snprintf(num, sizeof(num), "%d", slot);
    rcReply *r = ccCommand(n, "CLUSTER", "DELSLOTS", num, NULL);
    sds err = NULL;
    int ok = ccCheckReply(n, r, &err);
    if (!ok && r && ignore_unassigned) {
        sds oerr = NULL;
        if (!ccSlotOwner(n, slot, &oerr)) {
            if (!oerr) ok = 1;
            else ccPrintReplyError(n, oerr);
        }
        sdsfree(oerr);
    }
    if (!ok && err) ccPrintReplyError(n, err);
    sdsfree(err);
    rcFreeReply(r);
    return ok;
}

/* MULTI; DELSLOTS; ADDSLOTS; [SETSLOT STABLE]; BUMPEPOCH; EXEC: only an
 * ADDSLOTS error counts. */
static int setSlotOwner(ccNode *owner, int slot, int do_clear) {
    rcReply *r = ccCommand(owner, "MULTI", NULL);
    int ok = ccCheckReply(owner, r, NULL);
    rcFreeReply(r);
    if (!ok) return 0;
    delSlot(owner, slot, 1);
    slotCommand(owner, "ADDSLOTS", slot, NULL);
    if (do_clear) clearSlotStatus(owner, slot);
    rcFreeReply(ccCommand(owner, "CLUSTER", "BUMPEPOCH", NULL));
    r = ccCommand(owner, "EXEC", NULL);
    ok = ccCheckReply(owner, r, NULL) && r->type == RC_REPLY_ARRAY;
    for (size_t k = 0; ok && k < r->elements; k++) {
        rcReply *e = r->element[k];
        if (e->type != RC_REPLY_ERROR) continue;
        if (k == 1) {
            ccPrintReplyError(owner, e->str);
            ok = 0;
        }
    }
    rcFreeReply(r);
    return ok;
}

static ccNode *mostKeysInSlot(ccNode **nodes, int count, int slot) {
    ccNode *best = NULL;
    long long most = 0;
    for (int k = 0; k < count; k++) {
        ccNode *n = nodes[k];
        if ((n->flags & CC_NODE_SLAVE) || n->replicate) continue;
        long long keys = ccCountKeysInSlot(n, slot);
        if (keys < 0) return NULL;
        if (keys > most || !best) {
            most = keys;
            best = n;
        }
    }
    return best;
}

static ccNode *randomMaster(void) {
    int masters = 0;
    for (int k = 0; k < ccNodeCount; k++) masters += !(ccNodes[k]->flags & CC_NODE_SLAVE);
    srand((unsigned)time(NULL));
    int idx = rand() % masters;
    for (int k = 0; k < ccNodeCount; k++)
        if (!(ccNodes[k]->flags & CC_NODE_SLAVE) && !idx--) return ccNodes[k];
    return NULL;
}

static void refuseWithUnreachable(const char *what) {
    if (ccUnreachableMasters > 0 && !(ccOpts.flags & CC_FLAG_FIX_WITH_UNREACHABLE)) {
        ccLog(CC_LOG_WARN,
              "*** Fixing %s with %d unreachable masters is dangerous: redis-cli will assume that slots about "
              "masters that are not reachable are not covered, and will try to reassign them to the reachable "
              "nodes. This can cause data loss and is rarely what you want to do. If you really want to proceed "
              "use the --cluster-fix-with-unreachable-masters option.\n",
              what, ccUnreachableMasters);
        exit(1);
    }
}

/* ---- fix: uncovered slots ------------------------------------------------------------- */

static void printSlots(const int *slots, int count) {
    unsigned char *set = calloc(CC_SLOTS, 1);
    for (int k = 0; k < count; k++) set[slots[k]] = 1;
    sds s = ccSlotsString(set);
    printf("%s\n", s);
    sdsfree(s);
    free(set);
}

/* Masters holding keys of an uncovered slot. */
static int holders(int slot, nodeList *out) {
    char num[16];
    snprintf(num, sizeof(num), "%d", slot);
    for (int k = 0; k < ccNodeCount; k++) {
        ccNode *n = ccNodes[k];
        if ((n->flags & CC_NODE_SLAVE) || n->replicate) continue;
        rcReply *r = ccCommand(n, "CLUSTER", "GETKEYSINSLOT", num, "1", NULL);
        int ok = ccCheckReply(n, r, NULL);
        if (ok && r->elements > 0) listAdd(out, n);
        rcFreeReply(r);
        if (!ok) return 0;
    }
    return 1;
}

static int coverWith(ccNode *n, int slot) {
    ccLog(CC_LOG_INFO, ">>> Covering slot %d with %s:%d\n", slot, n->ip, n->port);
    if (!setSlotOwner(n, slot, 0)) return 0;
    n->slots[slot] = 1;
    return 1;
}

static int coverMoving(nodeList *nodes, int slot) {
    ccNode *target = mostKeysInSlot(nodes->n, nodes->count, slot);
    if (!target) return 0;
    ccLog(CC_LOG_INFO, ">>> Covering slot %d moving keys to %s:%d\n", slot, target->ip, target->port);
    if (!setSlotOwner(target, slot, 1)) return 0;
    target->slots[slot] = 1;
    for (int k = 0; k < nodes->count; k++) {
        ccNode *src = nodes->n[k];
        if (src == target) continue;
        if (!ccSetSlot(src, target, slot, "NODE", NULL) || !ccSetSlot(src, target, slot, "IMPORTING", NULL))
            return 0;
        if (!ccMoveSlot(src, target, slot, CC_MOVE_VERBOSE | CC_MOVE_COLD, NULL)) return 0;
        if (!clearSlotStatus(src, slot)) return 0;
    }
    return 1;
}

/* Slots nobody owns: with no keys anywhere, given to a random master; with
 * keys in one master, to it; in several, to the one with most keys, the
 * others' keys moved there. Each group is confirmed by typing yes (Redis's
 * tool asks even with --cluster-yes). Returns the slots fixed, -1 on error. */
int ccFixSlotsCoverage(unsigned char *all) {
    refuseWithUnreachable("slots coverage");
    ccLog(CC_LOG_INFO, ">>> Fixing slots coverage...\n");
    int *groups[3] = {calloc(CC_SLOTS, sizeof(int)), calloc(CC_SLOTS, sizeof(int)), calloc(CC_SLOTS, sizeof(int))};
    int counts[3] = {0, 0, 0}, fixed = 0;
    nodeList *who = calloc(CC_SLOTS, sizeof(nodeList));
    for (int s = 0; s < CC_SLOTS && fixed >= 0; s++) {
        if (all[s]) continue;
        if (!holders(s, &who[s])) fixed = -1;
        int g = who[s].count > 1 ? 2 : who[s].count;
        groups[g][counts[g]++] = s;
    }
    static const char *titles[3] = {"The following uncovered slots have no keys across the cluster:",
                                    "The following uncovered slots have keys in just one node:",
                                    "The following uncovered slots have keys in multiple nodes:"};
    static const char *questions[3] = {"Fix these slots by covering with a random node?",
                                       "Fix these slots by covering with those nodes?",
                                       "Fix these slots by moving keys into a single node?"};
    for (int g = 0; g < 3 && fixed >= 0; g++) {
        if (counts[g] == 0) continue;
        printf("%s\n", titles[g]);
        printSlots(groups[g], counts[g]);
        if (!ccConfirm(questions[g], 1)) continue;
        for (int k = 0; k < counts[g] && fixed >= 0; k++) {
            int s = groups[g][k];
            int ok = g == 0 ? coverWith(randomMaster(), s) : g == 1 ? coverWith(who[s].n[0], s) : coverMoving(&who[s], s);
            fixed = ok ? fixed + 1 : -1;
        }
    }
    for (int s = 0; s < CC_SLOTS; s++) free(who[s].n);
    free(who);
    for (int g = 0; g < 3; g++) free(groups[g]);
    return fixed;
}

/* ---- fix: open slots ------------------------------------------------------------------ */

static int hasPair(sds *arr, int count, int slot) {
    for (int k = 0; k < count; k += 2)
        if (atoi(arr[k]) == slot) return 1;
    return 0;
}

static void addNamed(nodeList *l, sds *str, ccNode *n) {
    *str = sdscatprintf(*str, "%s%s:%d", l->count ? "," : "", n->ip, n->port);
    listAdd(l, n);
}

/* Masters owning the slot, or holding keys of it without owning it. */
static int slotOwners(int slot, nodeList *owners) {
    for (int k = 0; k < ccNodeCount; k++) {
        ccNode *n = ccNodes[k];
        if (n->flags & CC_NODE_SLAVE) continue;
        if (n->slots[slot]) {
            listAdd(owners, n);
            continue;
        }
        long long keys = ccCountKeysInSlot(n, slot);
        if (keys < 0) return 0;
        if (keys > 0) {
            ccLog(CC_LOG_WARN, "*** Found keys about slot %d in non-owner node %s:%d!\n", slot, n->ip, n->port);
            listAdd(owners, n);
        }
    }
    return 1;
}

static int openSides(int slot, ccNode *owner, nodeList *mig, nodeList *imp, sds *mig_str, sds *imp_str) {
    for (int k = 0; k < ccNodeCount; k++) {
        ccNode *n = ccNodes[k];
        if (n->flags & CC_NODE_SLAVE) continue;
        if (hasPair(n->migrating, n->migrating_count, slot)) addNamed(mig, mig_str, n);
        else if (hasPair(n->importing, n->importing_count, slot)) addNamed(imp, imp_str, n);
        else if (n != owner) {
            long long keys = ccCountKeysInSlot(n, slot);
            if (keys < 0) return 0;
            if (keys > 0) {
                ccLog(CC_LOG_WARN, "*** Found keys about slot %d in node %s:%d!\n", slot, n->ip, n->port);
                addNamed(imp, imp_str, n);
            }
        }
    }
    return 1;
}

/* Case 2: keys only in importing nodes: all to the owner, the slot closed. */
static int moveAllToOwner(int slot, ccNode *owner, nodeList *imp) {
    ccLog(CC_LOG_INFO, ">>> Case 2: Moving all the %d slot keys to its owner %s:%d\n", slot, owner->ip, owner->port);
    for (int k = 0; k < imp->count; k++) {
        ccNode *n = imp->n[k];
        if (n == owner) continue;
        if (!ccMoveSlot(n, owner, slot, CC_MOVE_VERBOSE | CC_MOVE_COLD, NULL)) return 0;
        ccLog(CC_LOG_INFO, ">>> Setting %d as STABLE in %s:%d\n", slot, n->ip, n->port);
        if (!clearSlotStatus(n, slot)) return 0;
    }
    for (int k = 0; k < ccNodeCount; k++) {
        ccNode *n = ccNodes[k];
        if (n == owner || (n->flags & CC_NODE_SLAVE)) continue;
        if (!ccSetSlot(n, owner, slot, "NODE", NULL)) return 0;
    }
    return 1;
}

/* Case 3: one migrating node, several importing ones without keys. */
static int case3(int slot, nodeList *mig, nodeList *imp, int *unhandled) {
    ccNode *src = mig->n[0], *dst = NULL;
    const char *target = NULL;
    for (int k = 0; k < src->migrating_count; k += 2)
        if (atoi(src->migrating[k]) == slot) target = src->migrating[k + 1];
    for (int k = 0; k < imp->count; k++) {
        if (ccCountKeysInSlot(imp->n[k], slot) > 0) {
            *unhandled = 1;
            return 0;
        }
        if (target && !strcmp(imp->n[k]->name, target)) dst = imp->n[k];
    }
    if (dst) {
        ccLog(CC_LOG_INFO, ">>> Case 3: Moving slot %d from %s:%d to %s:%d and closing it on all the other importing nodes.\n",
              slot, src->ip, src->port, dst->ip, dst->port);
        if (!ccMoveSlot(src, dst, slot, CC_MOVE_VERBOSE, NULL)) return 0;
        for (int k = 0; k < imp->count; k++)
            if (imp->n[k] != dst && !clearSlotStatus(imp->n[k], slot)) return 0;
        return 1;
    }
    ccLog(CC_LOG_INFO, ">>> Case 3: Closing slot %d on both migrating and importing nodes.\n", slot);
    if (!clearSlotStatus(src, slot)) return 0;
    for (int k = 0; k < imp->count; k++)
        if (!clearSlotStatus(imp->n[k], slot)) return 0;
    return 1;
}

/* Case 4: one migrating node, nothing importing, no keys left: closed. */
static int case4(int slot, ccNode *owner, nodeList *mig, nodeList *imp, int *unhandled) {
    int close = imp->count == 0 && mig->count == 1;
    if (close && owner != mig->n[0]) {
        char num[16];
        snprintf(num, sizeof(num), "%d", slot);
        rcReply *r = ccCommand(mig->n[0], "CLUSTER", "GETKEYSINSLOT", num, "10", NULL);
        int ok = ccCheckReply(mig->n[0], r, NULL);
        if (ok) close = r->elements == 0;
        rcFreeReply(r);
        if (!ok) return 0;
    }
    if (!close) {
        *unhandled = 1;
        return 0;
    }
    ccNode *n = mig->n[0];
    ccLog(CC_LOG_INFO, ">>> Case 4: Closing slot %d on %s:%d\n", slot, n->ip, n->port);
    return clearSlotStatus(n, slot);
}

/* No single owner: the master with most keys becomes it. */
static ccNode *electOwner(int slot, nodeList *mig, nodeList *imp) {
    ccLog(CC_LOG_INFO, ">>> No single clear owner for the slot, selecting an owner by # of keys...\n");
    ccNode *owner = mostKeysInSlot(ccNodes, ccNodeCount, slot);
    if (!owner) {
        ccLog(CC_LOG_ERR, "[ERR] Can't select a slot owner. Impossible to fix.\n");
        return NULL;
    }
    ccLog(CC_LOG_WARN, "*** Configuring %s:%d as the slot owner\n", owner->ip, owner->port);
    if (!clearSlotStatus(owner, slot) || !setSlotOwner(owner, slot, 0)) return NULL;
    owner->slots[slot] = 1;
    listRemove(mig, owner);
    listRemove(imp, owner);
    return owner;
}

/* Other owners lose the slot and import it from the owner. */
static int demoteOwners(int slot, ccNode *owner, nodeList *owners, nodeList *mig, nodeList *imp) {
    for (int k = 0; k < owners->count; k++) {
        ccNode *n = owners->n[k];
        if (n == owner) continue;
        if (!delSlot(n, slot, 1)) return 0;
        n->slots[slot] = 0;
        if (!ccSetSlot(n, owner, slot, "node", NULL) || !ccSetSlot(n, owner, slot, "importing", NULL)) return 0;
        listRemove(imp, n);
        listAdd(imp, n);
        listRemove(mig, n);
    }
    return 1;
}

static int fixOpenCases(int slot, ccNode *owner, nodeList *mig, nodeList *imp, int *unhandled) {
    if (mig->count == 1 && imp->count == 1) {
        ccNode *src = mig->n[0], *dst = imp->n[0];
        ccLog(CC_LOG_INFO, ">>> Case 1: Moving slot %d from %s:%d to %s:%d\n", slot, src->ip, src->port, dst->ip,
              dst->port);
        return ccMoveSlot(src, dst, slot, CC_MOVE_VERBOSE | CC_MOVE_UPDATE, NULL);
    }
    if (mig->count == 0 && imp->count > 0) return moveAllToOwner(slot, owner, imp);
    if (mig->count == 1 && imp->count > 1) return case3(slot, mig, imp, unhandled);
    return case4(slot, owner, mig, imp, unhandled);
}

int ccFixOpenSlot(int slot) {
    refuseWithUnreachable("open slots");
    ccLog(CC_LOG_INFO, ">>> Fixing open slot %d\n", slot);
    nodeList owners = {0}, mig = {0}, imp = {0};
    sds mig_str = sdsempty(), imp_str = sdsempty();
    int ok = slotOwners(slot, &owners);
    ccNode *owner = owners.count == 1 ? owners.n[0] : NULL;
    if (ok) ok = openSides(slot, owner, &mig, &imp, &mig_str, &imp_str);
    if (ok && sdslen(mig_str)) printf("Set as migrating in: %s\n", mig_str);
    if (ok && sdslen(imp_str)) printf("Set as importing in: %s\n", imp_str);
    if (ok && !owner) ok = (owner = electOwner(slot, &mig, &imp)) != NULL;
    if (ok && owners.count > 1) ok = demoteOwners(slot, owner, &owners, &mig, &imp);
    int unhandled = 0;
    if (ok) ok = fixOpenCases(slot, owner, &mig, &imp, &unhandled);
    if (unhandled)
        ccLog(CC_LOG_ERR,
              "[ERR] Sorry, redis-cli can't fix this slot yet (work in progress). Slot is set as migrating in %s, "
              "as importing in %s, owner is %s:%d\n",
              mig_str, imp_str, owner->ip, owner->port);
    free(owners.n);
    free(mig.n);
    free(imp.n);
    sdsfree(mig_str);
    sdsfree(imp_str);
    return ok;
}

/* ---- fix: several owners -------------------------------------------------------------- */

int ccFixMultipleOwners(int slot, ccNode **owners, int count) {
    ccLog(CC_LOG_INFO, ">>> Fixing multiple owners for slot %d...\n", slot);
    ccNode *owner = mostKeysInSlot(owners, count, slot);
    if (!owner) owner = owners[0];
    ccLog(CC_LOG_INFO, ">>> Setting slot %d owner: %s:%d\n", slot, owner->ip, owner->port);
    if (!setSlotOwner(owner, slot, 0)) return 0;
    int ok = 0;
    for (int k = 0; k < ccNodeCount; k++) {
        ccNode *n = ccNodes[k];
        if (n == owner || (n->flags & CC_NODE_SLAVE)) continue;
        long long keys = ccCountKeysInSlot(n, slot);
        ok = keys >= 0;
        if (!ok) break;
        delSlot(n, slot, 1);
        if (!ccSetSlot(n, owner, slot, "node", NULL)) return 0;
        if (keys > 0 && !(ok = ccMoveSlot(n, owner, slot, CC_MOVE_VERBOSE | CC_MOVE_COLD, NULL))) break;
    }
    return ok;
}

/* ---- backup ------------------------------------------------------------------------ */

static sds nodeJson(const ccNode *n, int errors) {
    sds slots = ccSlotsString(n->slots);
    for (char *p = slots; (p = strchr(p, '-')) != NULL;) *p++ = ',';
    sds j = sdscatprintf(sdsempty(),
                         "  {\n    \"name\": \"%s\",\n    \"host\": \"%s\",\n    \"port\": %d,\n    \"replicate\": ",
                         n->name, n->ip, n->port);
    j = n->replicate ? sdscatprintf(j, "\"%s\"", n->replicate) : sdscat(j, "null");
    j = sdscatprintf(j, ",\n    \"slots\": [%s],\n    \"slots_count\": %d,\n    \"flags\": \"%s\",\n    \"current_epoch\": %llu",
                     slots, n->slots_count, n->flags_str ? n->flags_str : "", (unsigned long long)n->current_epoch);
    if (errors > 0) j = sdscatprintf(j, ",\n    \"cluster_errors\": %d", errors);
    for (int pass = 0; pass < 2; pass++) {
        sds *arr = pass ? n->importing : n->migrating;
        int cnt = pass ? n->importing_count : n->migrating_count;
        if (cnt == 0) continue;
        j = sdscatprintf(j, ",\n    \"%s\": {", pass ? "importing" : "migrating");
        for (int k = 0; k < cnt; k += 2) j = sdscatprintf(j, "%s\"%s\": \"%s\"", k ? "," : "", arr[k], arr[k + 1]);
        j = sdscat(j, "}");
    }
    sdsfree(slots);
    return sdscat(j, "\n  }");
}

static sds inDir(const char *dir, const char *name) {
    sds path = sdsnew(dir);
    if (sdslen(path) == 0 || path[sdslen(path) - 1] != '/') path = sdscat(path, "/");
    return sdscat(path, name);
}

/* Every master's RDB (SYNC, as --rdb) into the directory as
 * redis-node-<ip>-<port>-<id>.rdb, and nodes.json describing the cluster. */
int ccCmdBackup(int argc, char **argv) {
    (void)argc;
    char *ip;
    int port;
    if (!ccHostFromArgs(1, argv, &ip, &port)) return ccInvalidHost();
    if (!ccLoadInfoFromNode(ccNewNode(ip, port))) return 0;
    int no_issues = ccCheckCluster(0);
    int errors = no_issues ? 0 : ccErrorCount;
    const char *dir = argv[1];
    sds json = sdsnew("[\n");
    for (int k = 0; k < ccNodeCount; k++) {
        ccNode *n = ccNodes[k];
        if (k) json = sdscat(json, ",\n");
        sds nj = nodeJson(n, errors);
        json = sdscatsds(json, nj);
        sdsfree(nj);
        if (n->replicate) continue;
        ccLog(CC_LOG_INFO, ">>> Node %s:%d -> Saving RDB...\n", n->ip, n->port);
        fflush(stdout);
        char name[256];
        snprintf(name, sizeof(name), "redis-node-%s-%d-%s.rdb", n->ip, n->port, n->name);
        sds file = inDir(dir, name);
        cliSaveSnapshotOf(n->conn, file);
        n->conn = NULL;
        sdsfree(file);
    }
    json = sdscat(json, "\n]");
    sds path = inDir(dir, "nodes.json");
    fflush(stdout);
    ccLog(CC_LOG_INFO, "Saving cluster configuration to: %s\n", path);
    FILE *out = fopen(path, "w+");
    int ok = out != NULL;
    if (out) {
        fputs(json, out);
        fclose(out);
    } else {
        ccLog(CC_LOG_ERR, "Could not save nodes to: %s\n", path);
    }
    if (ok && !no_issues)
        ccLog(CC_LOG_WARN, "*** Cluster seems to have some problems, please be aware of it if you're going to "
                           "restore this backup.\n");
    if (ok) ccLog(CC_LOG_OK, "[OK] Backup created into: %s\n", dir);
    else ccLog(CC_LOG_OK, "[ERR] Failed to back cluster!\n");
    sdsfree(json);
    sdsfree(path);
    return ok;
}
