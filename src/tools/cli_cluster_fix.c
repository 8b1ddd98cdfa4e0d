/* cli_cluster_fix.c -- redis-cli --cluster fix (open slots, uncovered
 * slots, slots with several owners), import and backup.
 *
 * import walks the source's db 0 with SCAN and MIGRATEs each key to the
 * master owning its slot (rclient_slot.c), as Redis 7.0.15's tool does,
 * key by key with a line each.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_cluster_int.h"

static int notYet(const char *what) {
    fprintf(stderr, "[ERR] --cluster %s is not implemented by this redis-cli yet\n", what);
    return 0;
}

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
    if (config.auth && config.user) {
        argv[argc++] = "AUTH2";
        argv[argc++] = config.user;
        argv[argc++] = config.auth;
    } else if (config.auth) {
        argv[argc++] = "AUTH";
        argv[argc++] = config.auth;
    }
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

int ccCmdBackup(int argc, char **argv) {
    (void)argc;
    (void)argv;
    return notYet("backup");
}

int ccFixOpenSlot(int slot) {
    (void)slot;
    return notYet("fix (open slots)");
}

int ccFixSlotsCoverage(unsigned char *all) {
    (void)all;
    return notYet("fix (slots coverage)");
}

int ccFixMultipleOwners(int slot, ccNode **owners, int count) {
    (void)slot;
    (void)owners;
    (void)count;
    return notYet("fix (multiple owners)");
}
