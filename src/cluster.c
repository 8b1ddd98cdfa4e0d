/* cluster.c -- cluster mode: the node table, nodes.conf, hash slots, the
 * redirection of commands, and the CLUSTER / READONLY / READWRITE / ASKING
 * commands, with Redis 7.0's texts and formats.
 *
 * With cluster-enabled no (the default) the commands answer as a Redis 7.0
 * started that way ("This instance has cluster support disabled") and
 * nothing here allocates anything.
 *
 * What is here: the state a node keeps (its nodes, who serves each of the
 * 16384 slots, the slots being migrated or imported, epochs), nodes.conf in
 * Redis 7.0's exact format both ways, the cluster state (ok/fail) computed
 * from slot coverage as Redis does, and per-slot key counts of db 0.
 * A replica (CLUSTER REPLICATE, or a nodes.conf that says so) replicates
 * its primary through replica.c once the primary's address is known.
 * Elsewhere: the cluster bus (links, gossip, failure detection) in
 * cluster_bus.c, elections and CLUSTER FAILOVER in cluster_failover.c; the
 * state they share is declared in cluster_private.h.
 *
 * Decisions:
 * - The state is allocated by clusterInit() only, so a standalone server
 *   pays nothing (three slot tables of 16384 pointers are 384 KB on 64-bit).
 * - Per-slot key counts instead of a per-slot list of keys: 64 KB once and
 *   0 bytes per key (Redis 7.0 adds two pointers, 16 bytes, to each key),
 *   COUNTKEYSINSLOT is O(1), and GETKEYSINSLOT walks the keyspace until it
 *   has the keys asked for (O(keys) when the slot's keys are few or none:
 *   the price of not growing every key). db.c reports every key added or
 *   removed (clusterKeyAdded / clusterKeyRemoved); a table swapped in whole
 *   (a replica's full sync) is recounted.
 * - nodes.conf is written whole to a temporary file, fsynced, renamed over
 *   the old one and the directory fsynced (persistio), so a power cut leaves
 *   the old file or the new one, never half of one. Redis rewrites the file
 *   in place; both produce the same bytes, so either server reads the other's.
 * - Nodes are kept in a dict by name (for lookups) and listed in creation
 *   order (CLUSTER NODES, SHARDS, nodes.conf): Redis lists them in hash
 *   order, which no tool relies on.
 */
#include "server.h"
#include "cluster.h"
#include "cluster_private.h"
#include "persistio.h"
#include "osrandom.h"
#include "anet.h"
#include "replication.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>

static const struct {
    int flag;
    const char *name;
} node_flag_names[] = {
    {NODE_MYSELF, "myself"}, {NODE_MASTER, "master"},       {NODE_SLAVE, "slave"},
    {NODE_PFAIL, "fail?"},   {NODE_FAIL, "fail"},           {NODE_HANDSHAKE, "handshake"},
    {NODE_NOADDR, "noaddr"}, {NODE_NOFAILOVER, "nofailover"},
};

clusterState *cstate; /* NULL unless cluster-enabled */
int cluster_module_flags;

enum { REDIR_NONE, REDIR_CROSS_SLOT, REDIR_UNSTABLE, REDIR_ASK, REDIR_MOVED, REDIR_DOWN_STATE,
       REDIR_DOWN_RO_STATE, REDIR_DOWN_UNBOUND };
struct clusterNode;
static sds redirectionError(const client *c, struct clusterNode *n, int slot, int err);

/* ---- nodes ------------------------------------------------------------------------------ */

static dictType clusterNodesDictType = {
    .hashFunction = dictSdsHash,
    .keyCompare = dictSdsKeyCompare,
    .keyDestructor = dictSdsDestructor,
};


/* 40 random lower-case hex digits. */
void randomNodeName(char *name) {
    unsigned char raw[CLUSTER_NAMELEN / 2];
    if (osRandomBytes(raw, sizeof raw) != 0) osRandomBytesFallback(raw, sizeof raw);
    static const char hex[] = "0123456789abcdef";
    for (size_t j = 0; j < sizeof raw; j++) {
        name[j * 2] = hex[raw[j] >> 4];
        name[j * 2 + 1] = hex[raw[j] & 15];
    }
}

int validNodeName(const char *s, size_t len) {
    if (len != CLUSTER_NAMELEN) return 0;
    for (size_t j = 0; j < len; j++)
        if (!((s[j] >= '0' && s[j] <= '9') || (s[j] >= 'a' && s[j] <= 'z'))) return 0;
    return 1;
}

clusterNode *createNode(const char *name, int flags) {
    clusterNode *n = zcalloc(sizeof(*n));
    if (name) memcpy(n->name, name, CLUSTER_NAMELEN);
    else randomNodeName(n->name);
    n->flags = flags;
    n->hostname = sdsempty();
    n->ctime = mstime();
    return n;
}

void addNode(clusterNode *n) {
    dictAdd(cstate->nodes, sdsnewlen(n->name, CLUSTER_NAMELEN), n);
    listAddNodeTail(cstate->order, n);
    n->order = listLast(cstate->order);
}

clusterNode *lookupNode(const char *name, size_t len) {
    if (!validNodeName(name, len)) return NULL;
    sds s = sdsnewlen(name, len);
    dictEntry *de = dictFind(cstate->nodes, s);
    sdsfree(s);
    return de ? dictGetVal(de) : NULL;
}

static void removeReplica(clusterNode *master, clusterNode *r) {
    for (int j = 0; j < master->numreplicas; j++) {
        if (master->replicas[j] != r) continue;
        memmove(master->replicas + j, master->replicas + j + 1,
                sizeof(clusterNode *) * (size_t)(master->numreplicas - j - 1));
        master->numreplicas--;
        if (master->numreplicas == 0) master->flags &= ~NODE_MIGRATE_TO;
        return;
    }
}

static void addReplica(clusterNode *master, clusterNode *r) {
    for (int j = 0; j < master->numreplicas; j++)
        if (master->replicas[j] == r) return;
    master->replicas = zrealloc(master->replicas, sizeof(clusterNode *) * (size_t)(master->numreplicas + 1));
    master->replicas[master->numreplicas++] = r;
    master->flags |= NODE_MIGRATE_TO; /* a valid target of replica migration from now on */
}

/* Does any primary have a replica? (A primary getting its first slot is a
 * migration target only then, as Redis 7.0 rules.) */
static int primariesHaveReplicas(void) {
    listIter li;
    listNode *ln;
    listRewind(cstate->order, &li);
    while ((ln = listNext(&li))) {
        clusterNode *n = listNodeValue(ln);
        if (!isReplica(n) && n->numreplicas) return 1;
    }
    return 0;
}

int addSlot(clusterNode *n, int slot) {
    if (cstate->slots[slot]) return C_ERR;
    n->slots[slot >> 3] |= (unsigned char)(1 << (slot & 7));
    n->numslots++;
    cstate->slots[slot] = n;
    if (n->numslots == 1 && primariesHaveReplicas()) n->flags |= NODE_MIGRATE_TO;
    return C_OK;
}

/* The primary of n's shard (n itself for a primary). */
static clusterNode *shardPrimary(clusterNode *n) { return isReplica(n) && n->replicaof ? n->replicaof : n; }

int delSlot(int slot) {
    clusterNode *n = cstate->slots[slot];
    if (n == NULL) return C_ERR;
    /* a slot leaving our shard takes its shard channels' subscribers with it */
    if (cstate->myself && shardPrimary(n) == shardPrimary(cstate->myself)) pubsubShardSlotRemoved(slot);
    n->slots[slot >> 3] &= (unsigned char)~(1 << (slot & 7));
    n->numslots--;
    cstate->slots[slot] = NULL;
    return C_OK;
}

static void delNodeSlots(clusterNode *n) {
    for (int j = 0; j < CLUSTER_SLOTS; j++)
        if (cstate->slots[j] == n) delSlot(j);
}

/* Forgets n everywhere: slots, migrations, its primary's list. */
void freeNode(clusterNode *n) {
    busNodeFreed(n);
    for (int j = 0; j < CLUSTER_SLOTS; j++) {
        if (cstate->slots[j] == n) delSlot(j);
        if (cstate->migrating_to[j] == n) cstate->migrating_to[j] = NULL;
        if (cstate->importing_from[j] == n) cstate->importing_from[j] = NULL;
    }
    if (n->replicaof) removeReplica(n->replicaof, n);
    for (int j = 0; j < n->numreplicas; j++) n->replicas[j]->replicaof = NULL;
    listDelNode(cstate->order, n->order);
    sds name = sdsnewlen(n->name, CLUSTER_NAMELEN);
    dictDelete(cstate->nodes, name);
    sdsfree(name);
    sdsfree(n->hostname);
    zfree(n->replicas);
    zfree(n);
}

/* A handshake node takes the name its first PONG says it has. */
static void followPrimary(void);

void renameNode(clusterNode *n, const char *name) {
    sds old = sdsnewlen(n->name, CLUSTER_NAMELEN);
    dictDelete(cstate->nodes, old);
    sdsfree(old);
    memcpy(n->name, name, CLUSTER_NAMELEN);
    dictAdd(cstate->nodes, sdsnewlen(n->name, CLUSTER_NAMELEN), n);
}

uint64_t nodeEpoch(const clusterNode *n) {
    return isReplica(n) && n->replicaof ? n->replicaof->config_epoch : n->config_epoch;
}

/* n (not myself) says it is a primary now. */
void setNodeAsPrimary(clusterNode *n) {
    if (isMaster(n)) return;
    if (n->replicaof && n != cstate->myself) n->flags |= NODE_MIGRATE_TO; /* it failed over a primary */
    setReplicaOf(n, NULL);
    n->flags = (n->flags & ~NODE_SLAVE) | NODE_MASTER;
    doBeforeSleep(CLUSTER_TODO_SAVE_CONFIG | CLUSTER_TODO_UPDATE_STATE);
}

/* myself becomes a replica of n: no slots, no migrations, replication of n. */
void setMyPrimary(clusterNode *n) {
    clusterNode *me = cstate->myself;
    delNodeSlots(me);
    me->flags = (me->flags & ~(NODE_MASTER | NODE_MIGRATE_TO)) | NODE_SLAVE;
    setReplicaOf(me, n);
    memset(cstate->migrating_to, 0, sizeof cstate->migrating_to);
    memset(cstate->importing_from, 0, sizeof cstate->importing_from);
    followPrimary();
    doBeforeSleep(CLUSTER_TODO_UPDATE_STATE | CLUSTER_TODO_SAVE_CONFIG);
    busBroadcastPong(); /* the new role is known at once (a manual failover's MFSTART needs it) */
}

void setReplicaOf(clusterNode *n, clusterNode *master) {
    if (n->replicaof) removeReplica(n->replicaof, n);
    n->replicaof = master;
    if (master) addReplica(master, n);
}

/* The greatest config epoch known, and never less than the current epoch,
 * as Redis 7.0 counts it: a node whose config epoch is the greatest of the
 * nodes' but under the current epoch (an election elsewhere moved it on)
 * still takes a new one when it claims slots without consensus (SETSLOT
 * NODE of an imported slot, CLUSTER BUMPEPOCH), so the others accept its
 * claim over the previous owner's. */
uint64_t maxConfigEpoch(void) {
    uint64_t max = 0;
    listIter li;
    listNode *ln;
    listRewind(cstate->order, &li);
    while ((ln = listNext(&li))) {
        clusterNode *n = listNodeValue(ln);
        if (n->config_epoch > max) max = n->config_epoch;
    }
    return max > cstate->current_epoch ? max : cstate->current_epoch;
}

/* ---- the node description: CLUSTER NODES, nodes.conf --------------------------------------- */

static sds catNodeFlags(sds s, int flags) {
    size_t before = sdslen(s);
    for (size_t j = 0; j < sizeof node_flag_names / sizeof node_flag_names[0]; j++) {
        if (!(flags & node_flag_names[j].flag)) continue;
        if (sdslen(s) != before) s = sdscatlen(s, ",", 1);
        s = sdscat(s, node_flag_names[j].name);
    }
    if (sdslen(s) == before) s = sdscat(s, "noflags");
    return s;
}

static sds catSlotRanges(sds s, const clusterNode *n) {
    int start = -1;
    for (int j = 0; j <= CLUSTER_SLOTS; j++) {
        int bit = j < CLUSTER_SLOTS && slotBit(n, j);
        if (bit && start == -1) start = j;
        if (!bit && start != -1) {
            if (start == j - 1) s = sdscatprintf(s, " %d", start);
            else s = sdscatprintf(s, " %d-%d", start, j - 1);
            start = -1;
        }
    }
    return s;
}

/* The port a client is told for n: with tls-cluster yes a node's port is
 * its TLS port, and a client on a plain connection is given the node's
 * plain port (pport) when it has one, as Redis 7.0 does in CLUSTER NODES,
 * SLOTS, REPLICAS and the -MOVED/-ASK redirections. c NULL: the TLS port
 * (nodes.conf). */
static int clientPort(const client *c, const clusterNode *n) {
    int use_pport = tls_config.cluster && c && c->conn && strcmp(connGetType(c->conn), "tls") != 0;
    return use_pport && n->pport ? n->pport : n->port;
}

sds nodeDescription(const clusterNode *n, const client *c) {
    sds s = sdsnewlen(n->name, CLUSTER_NAMELEN);
    s = sdscatprintf(s, " %s:%d@%d", n->ip, clientPort(c, n), n->cport);
    if (sdslen(n->hostname)) s = sdscatprintf(s, ",%s", n->hostname);
    s = sdscatlen(s, " ", 1);
    s = catNodeFlags(s, n->flags);
    s = sdscatlen(s, " ", 1);
    s = n->replicaof ? sdscatlen(s, n->replicaof->name, CLUSTER_NAMELEN) : sdscatlen(s, "-", 1);
    uint64_t epoch = isReplica(n) && n->replicaof ? n->replicaof->config_epoch : n->config_epoch;
    s = sdscatprintf(s, " %lld %lld %llu %s", n->ping_sent, n->pong_received, (unsigned long long)epoch,
                     busNodeConnected(n) ? "connected" : "disconnected");
    if (n->numslots) s = catSlotRanges(s, n);
    if (n->flags & NODE_MYSELF) {
        for (int j = 0; j < CLUSTER_SLOTS; j++) {
            if (cstate->migrating_to[j]) s = sdscatprintf(s, " [%d->-%.40s]", j, cstate->migrating_to[j]->name);
            else if (cstate->importing_from[j]) s = sdscatprintf(s, " [%d-<-%.40s]", j, cstate->importing_from[j]->name);
        }
    }
    return s;
}

/* Every node, a line each; handshake nodes only with withHandshake (not
 * in nodes.conf: a handshake that never completes is not remembered). */
static sds nodesDescription(int withHandshake, const client *c) {
    sds all = sdsempty();
    listIter li;
    listNode *ln;
    listRewind(cstate->order, &li);
    while ((ln = listNext(&li))) {
        clusterNode *n = listNodeValue(ln);
        if (!withHandshake && (n->flags & NODE_HANDSHAKE)) continue;
        sds line = nodeDescription(n, c);
        all = sdscatsds(all, line);
        all = sdscatlen(all, "\n", 1);
        sdsfree(line);
    }
    return all;
}

/* ---- nodes.conf ------------------------------------------------------------------------------ */

/* Writes the whole file beside the old one, fsyncs it, renames it over the
 * old one and fsyncs the directory. C_ERR with errno set on failure. */
static int saveConfig(void) {
    sds content = nodesDescription(0, NULL);
    content = sdscatprintf(content, "vars currentEpoch %llu lastVoteEpoch %llu\n",
                           (unsigned long long)cstate->current_epoch, (unsigned long long)cstate->last_vote_epoch);
    sds tmp = sdscatprintf(sdsempty(), "%s.tmp-%ld", server.cluster_configfile, (long)getpid());
    int ok = 0, saved_errno = 0;
    int fd = persistio.open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd != -1) {
        ok = persistWriteFully(fd, content, sdslen(content), NULL) == (ssize_t)sdslen(content) &&
             persistio.fsync(fd) == 0;
        if (!ok) saved_errno = errno;
        close(fd);
        if (ok && persistio.rename(tmp, server.cluster_configfile) == -1) {
            ok = 0;
            saved_errno = errno;
        }
        if (!ok) unlink(tmp);
        else persistFsyncDirOf(server.cluster_configfile);
    } else {
        saved_errno = errno;
    }
    sdsfree(tmp);
    sdsfree(content);
    cstate->todo &= ~(CLUSTER_TODO_SAVE_CONFIG | CLUSTER_TODO_FSYNC_CONFIG);
    errno = saved_errno;
    return ok ? C_OK : C_ERR;
}

static void saveConfigOrDie(void) {
    if (saveConfig() == C_OK) return;
    serverLog(LL_WARNING, "Fatal: can't update cluster config file.");
    exit(1);
}

static void loadFailed(const char *filename, const char *why) {
    serverLog(LL_WARNING, "Unrecoverable error: corrupted cluster config file \"%s\" (%s).", filename, why);
    exit(1);
}

/* "vars currentEpoch N lastVoteEpoch N" */
static int loadVars(sds *argv, int argc) {
    if (argc % 2 == 0) return C_ERR;
    for (int j = 1; j < argc; j += 2) {
        if (!strcasecmp(argv[j], "currentEpoch")) cstate->current_epoch = strtoull(argv[j + 1], NULL, 10);
        else if (!strcasecmp(argv[j], "lastVoteEpoch")) cstate->last_vote_epoch = strtoull(argv[j + 1], NULL, 10);
        else serverLog(LL_WARNING, "Skipping unknown cluster config variable '%s'", argv[j]);
    }
    return C_OK;
}

static clusterNode *lookupOrCreate(const char *name) {
    clusterNode *n = lookupNode(name, CLUSTER_NAMELEN);
    if (n == NULL) {
        n = createNode(name, 0);
        addNode(n);
    }
    return n;
}

/* "ip:port@cport[,hostname]" */
static int loadAddress(clusterNode *n, const char *addr) {
    const char *comma = strchr(addr, ',');
    sdsclear(n->hostname);
    size_t len = comma ? (size_t)(comma - addr) : strlen(addr);
    if (comma) n->hostname = sdscat(n->hostname, comma + 1);
    char buf[NET_IP_STR_LEN + 32];
    if (len >= sizeof buf) return C_ERR;
    memcpy(buf, addr, len);
    buf[len] = '\0';
    char *colon = strrchr(buf, ':');
    if (colon == NULL || (size_t)(colon - buf) >= NET_IP_STR_LEN) return C_ERR;
    *colon = '\0';
    memcpy(n->ip, buf, (size_t)(colon - buf) + 1);
    char *at = strchr(colon + 1, '@');
    n->port = atoi(colon + 1);
    n->cport = at ? atoi(at + 1) : n->port + CLUSTER_PORT_INCR;
    return C_OK;
}

static int loadFlags(clusterNode *n, sds flags) {
    int count = 0;
    sds *f = sdssplitlen(flags, (ssize_t)sdslen(flags), ",", 1, &count);
    int ok = f != NULL;
    for (int j = 0; ok && j < count; j++) {
        int known = !strcasecmp(f[j], "noflags");
        for (size_t k = 0; !known && k < sizeof node_flag_names / sizeof node_flag_names[0]; k++) {
            if (strcasecmp(f[j], node_flag_names[k].name)) continue;
            known = 1;
            if (node_flag_names[k].flag == NODE_MYSELF) {
                if (cstate->myself) ok = 0;
                cstate->myself = n;
            }
            n->flags |= node_flag_names[k].flag;
        }
        if (!known) ok = 0;
    }
    sdsfreesplitres(f, count);
    return ok ? C_OK : C_ERR;
}

/* "N", "N-M", "[N->-name]", "[N-<-name]" */
static int loadSlotField(clusterNode *n, const char *f) {
    if (f[0] == '[') {
        char *end;
        long slot = strtol(f + 1, &end, 10);
        if (slot < 0 || slot >= CLUSTER_SLOTS || end[0] != '-' || (end[1] != '>' && end[1] != '<') || end[2] != '-')
            return C_ERR;
        const char *name = end + 3;
        const char *close = strchr(name, ']');
        if (close == NULL || !validNodeName(name, (size_t)(close - name))) return C_ERR;
        clusterNode *other = lookupOrCreate(name);
        if (end[1] == '>') cstate->migrating_to[slot] = other;
        else cstate->importing_from[slot] = other;
        return C_OK;
    }
    char *end;
    long start = strtol(f, &end, 10), stop = start;
    if (end == f) return C_ERR;
    if (*end == '-') {
        const char *second = end + 1;
        stop = strtol(second, &end, 10);
        if (end == second) return C_ERR;
    }
    if (*end != '\0' || start < 0 || stop >= CLUSTER_SLOTS || start > stop) return C_ERR;
    for (long s = start; s <= stop; s++) {
        if (cstate->slots[s] && cstate->slots[s] != n) return C_ERR;
        if (!cstate->slots[s]) addSlot(n, (int)s);
    }
    return C_OK;
}

static const char *loadNodeLine(sds *argv, int argc) {
    if (argc < 8) return "a node line has fewer than 8 fields";
    if (!validNodeName(argv[0], sdslen(argv[0]))) return "bad node id";
    clusterNode *n = lookupOrCreate(argv[0]);
    if (loadAddress(n, argv[1]) != C_OK) return "bad address";
    if (loadFlags(n, argv[2]) != C_OK) return "bad flags";
    if (argv[3][0] != '-') {
        if (!validNodeName(argv[3], sdslen(argv[3]))) return "bad primary id";
        setReplicaOf(n, lookupOrCreate(argv[3]));
    }
    if (atoll(argv[4])) n->ping_sent = mstime();
    if (atoll(argv[5])) n->pong_received = mstime();
    n->config_epoch = isReplica(n) && n->replicaof ? 0 : strtoull(argv[6], NULL, 10);
    for (int j = 8; j < argc; j++)
        if (loadSlotField(n, argv[j]) != C_OK) return "bad slot";
    return NULL;
}

/* C_ERR when there is no file or it is empty (a new node); exits on a file
 * that can't be read or parsed. */
static int loadConfig(const char *filename) {
    FILE *fp = fopen(filename, "r");
    if (fp == NULL) {
        if (errno == ENOENT) return C_ERR;
        serverLog(LL_WARNING, "Loading the cluster node config from %s: %s", filename, strerror(errno));
        exit(1);
    }
    sds content = sdsempty();
    char buf[16384];
    size_t nread;
    while ((nread = fread(buf, 1, sizeof buf, fp)) > 0) content = sdscatlen(content, buf, nread);
    int read_error = ferror(fp);
    fclose(fp);
    if (read_error) {
        serverLog(LL_WARNING, "Loading the cluster node config from %s: %s", filename, strerror(EIO));
        exit(1);
    }
    if (sdslen(content) == 0) {
        sdsfree(content);
        return C_ERR;
    }
    int nlines = 0;
    sds *lines = sdssplitlen(content, (ssize_t)sdslen(content), "\n", 1, &nlines);
    sdsfree(content);
    const char *why = NULL;
    for (int j = 0; j < nlines && why == NULL; j++) {
        if (sdslen(lines[j]) == 0) continue;
        int argc = 0;
        sds *argv = sdssplitargs(lines[j], &argc);
        if (argv == NULL) why = "unbalanced quotes";
        else if (argc == 0) ;
        else if (!strcasecmp(argv[0], "vars")) why = loadVars(argv, argc) == C_OK ? NULL : "bad vars line";
        else why = loadNodeLine(argv, argc);
        if (argv) sdsfreesplitres(argv, argc);
    }
    sdsfreesplitres(lines, nlines);
    if (why == NULL && cstate->myself == NULL) why = "no node is flagged myself";
    if (why) loadFailed(filename, why);
    serverLog(LL_NOTICE, "Node configuration loaded, I'm %.40s", cstate->myself->name);
    if (maxConfigEpoch() > cstate->current_epoch) cstate->current_epoch = maxConfigEpoch();
    return C_OK;
}

/* One node per file, as Redis: an flock held for the process's life. */
static int lockConfig(const char *filename) {
    int fd = open(filename, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd == -1) {
        serverLog(LL_WARNING, "Can't open %s in order to acquire a lock: %s", filename, strerror(errno));
        return C_ERR;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) == -1) {
        if (errno == EWOULDBLOCK)
            serverLog(LL_WARNING, "Sorry, the cluster configuration file %s is already used by a different Redis "
                                  "Cluster node. Please make sure that different nodes use different cluster "
                                  "configuration files.", filename);
        else serverLog(LL_WARNING, "Impossible to lock %s: %s", filename, strerror(errno));
        close(fd);
        return C_ERR;
    }
    cstate->lock_fd = fd;
    return C_OK;
}

/* ---- the cluster state ------------------------------------------------------------------------ */

/* ok when every slot is served by a node not failed (or full coverage is
 * not required) and a majority of the slot-serving primaries is reachable;
 * a primary just started waits CLUSTER_WRITABLE_DELAY before saying ok. */
void updateState(void) {
    cstate->todo &= ~CLUSTER_TODO_UPDATE_STATE;
    if (cstate->first_update_ms == 0) cstate->first_update_ms = mstime();
    if (isMaster(cstate->myself) && !cstate->ok && mstime() - cstate->first_update_ms < CLUSTER_WRITABLE_DELAY) return;
    int ok = 1;
    if (server.cluster_require_full_coverage) {
        for (int j = 0; j < CLUSTER_SLOTS && ok; j++)
            if (cstate->slots[j] == NULL || isFailed(cstate->slots[j])) ok = 0;
    }
    int size = 0, reachable = 0;
    listIter li;
    listNode *ln;
    listRewind(cstate->order, &li);
    while ((ln = listNext(&li))) {
        clusterNode *n = listNodeValue(ln);
        if (!isMaster(n) || n->numslots == 0) continue;
        size++;
        if (!(n->flags & (NODE_FAIL | NODE_PFAIL))) reachable++;
    }
    cstate->size = size;
    if (reachable < size / 2 + 1) ok = 0;
    if (ok != cstate->ok) serverLog(LL_WARNING, "Cluster state changed: %s", ok ? "ok" : "fail");
    cstate->ok = ok;
}

void doBeforeSleep(int flags) { cstate->todo |= flags; }

void clusterBeforeSleep(void) {
    if (cstate == NULL) return;
    if (cstate->todo & CLUSTER_TODO_UPDATE_STATE) updateState();
    if (cstate->todo & CLUSTER_TODO_SAVE_CONFIG) saveConfigOrDie();
}

/* A replica replicates its primary once the primary's address is known
 * (from CLUSTER REPLICATE or nodes.conf), as Redis's cluster cron does. */
static void followPrimary(void) {
    clusterNode *p = cstate->myself->replicaof;
    if (isReplica(cstate->myself) && p && p->ip[0] && p->port) replicaClusterFollow(p->ip, p->port);
}

/* Clients blocked on keys of a slot no longer served here are answered
 * with -MOVED (or -CLUSTERDOWN) and unblocked, as Redis 7.0's cron does:
 * their keys will never be served by this node. */
static void redirectBlockedClients(void) {
    listIter li;
    listNode *ln;
    listRewind(server.clients, &li);
    while ((ln = listNext(&li))) {
        client *c = listNodeValue(ln);
        robj *key = blockedFirstKey(c);
        if (key == NULL && c->module_blocked) {
            /* a module's command blocked on no key: only a cluster down ends it (7.0) */
            if (!cstate->ok) moduleBlockedUnblockWithError(c, redirectionError(c, NULL, 0, REDIR_DOWN_STATE));
            continue;
        }
        if (key == NULL) continue;
        if (!cstate->ok) {
            blockedUnblockWithError(c, redirectionError(c, NULL, 0, REDIR_DOWN_STATE));
            continue;
        }
        int slot = (int)keyHashSlot(key->ptr, sdslen(key->ptr));
        clusterNode *n = cstate->slots[slot];
        int readonly_ok = (c->flags & CLIENT_READONLY) && c->lastcmd && !(c->lastcmd->flags & CMD_WRITE) &&
                          isReplica(cstate->myself) && cstate->myself->replicaof == n;
        if (n == cstate->myself || readonly_ok || cstate->importing_from[slot]) continue;
        blockedUnblockWithError(c, redirectionError(c, n, slot, n ? REDIR_MOVED : REDIR_DOWN_UNBOUND));
    }
}

/* cluster-replica-no-failover is told to the others as myself's
 * NOFAILOVER flag (in every header, and CLUSTER NODES), as Redis 7.0. */
static void updateMyselfFlags(void) {
    clusterNode *me = cstate->myself;
    int want = server.cluster_replica_no_failover ? NODE_NOFAILOVER : 0;
    if ((me->flags & NODE_NOFAILOVER) == want) return;
    me->flags = (me->flags & ~NODE_NOFAILOVER) | want;
    doBeforeSleep(CLUSTER_TODO_SAVE_CONFIG | CLUSTER_TODO_FSYNC_CONFIG);
}

void clusterCron(void) {
    if (cstate == NULL) return;
    /* a handshake nobody answers is dropped after the node timeout, as Redis drops it */
    listIter li;
    listNode *ln;
    listRewind(cstate->order, &li);
    long long timeout = server.cluster_node_timeout < 1000 ? 1000 : server.cluster_node_timeout;
    while ((ln = listNext(&li))) {
        clusterNode *n = listNodeValue(ln);
        if ((n->flags & NODE_HANDSHAKE) && mstime() - n->ctime > timeout) freeNode(n);
    }
    updateMyselfFlags();
    busCron();
    followPrimary();
    updateState();
    redirectBlockedClients();
}

/* ---- start-up ---------------------------------------------------------------------------------- */

/* The bus port: cluster-port, else the port nodes know us by (the TLS one
 * with tls-cluster yes) + 10000. Fixed once the listener is open, so a
 * later CONFIG SET tls-cluster / tls-port never announces a port nothing
 * listens on. */
static int busPort(void) {
    if (cstate->bus_port) return cstate->bus_port;
    int port = tls_config.cluster ? tls_config.port : server.port;
    return server.cluster_port ? server.cluster_port : port + CLUSTER_PORT_INCR;
}

static void listenOnBus(void) {
    int port = tls_config.cluster ? tls_config.port : server.port;
    if (!server.cluster_port && port > 65535 - CLUSTER_PORT_INCR) {
        serverLog(LL_WARNING, "Redis port number too high. Cluster communication port is 10,000 port numbers "
                              "higher than your Redis port. Your Redis port number must be 55535 or less.");
        exit(1);
    }
    if (!server.bindaddr_count) {
        serverLog(LL_WARNING, "No bind address is configured, but it is required for the Cluster bus.");
        exit(1);
    }
    int cport = busPort();
    if (listenOnTcpPort(cport, cstate->cfd, &cstate->cfd_count) != C_OK) {
        serverLog(LL_WARNING, "Failed listening on port %u (cluster), aborting.", (unsigned)cport);
        exit(1);
    }
    for (int j = 0; j < cstate->cfd_count; j++)
        if (aeCreateFileEvent(server.el, cstate->cfd[j], AE_READABLE, busAccept, NULL) == AE_ERR)
            serverPanic("Unrecoverable error creating Redis Cluster socket accept handler.");
    cstate->bus_port = cport;
}

/* myself's announced address, from the config (an empty ip until a peer
 * tells us ours over the bus, unless cluster-announce-ip sets it).
 * With tls-cluster yes the node is known by its TLS port (port) and
 * announces its plain port as pport (0 without one), as Redis 7.0. As
 * there, CONFIG SET tls-cluster / tls-port change nothing here until a
 * cluster-announce-* directive is set; unlike there, the bus port stays
 * the one the listener is on (busPort: Redis 7.0 then announces
 * tls-port + 10000, where nothing listens). */
static void updateMyselfAnnounced(void) {
    clusterNode *me = cstate->myself;
    int tls = tls_config.cluster;
    int port = tls ? tls_config.port : server.port;
    me->port = port;
    me->pport = tls ? server.port : 0;
    if (tls && server.cluster_announce_tls_port) {
        me->port = server.cluster_announce_tls_port;
        me->pport = server.cluster_announce_port;
    } else if (server.cluster_announce_port) {
        me->port = server.cluster_announce_port;
    }
    me->cport = server.cluster_announce_bus_port ? server.cluster_announce_bus_port : busPort();
    /* an announced ip replaces the learnt one; unset again, it is learnt anew (as Redis) */
    static int announced_ip;
    if (server.cluster_announce_ip) snprintf(me->ip, sizeof me->ip, "%s", server.cluster_announce_ip);
    else if (announced_ip) me->ip[0] = '\0';
    announced_ip = server.cluster_announce_ip != NULL;
    sdsclear(me->hostname);
    if (server.cluster_announce_hostname) me->hostname = sdscat(me->hostname, server.cluster_announce_hostname);
}

int clusterApplyAnnounced(sds *err) {
    (void)err;
    if (cstate == NULL) return C_OK;
    updateMyselfAnnounced();
    doBeforeSleep(CLUSTER_TODO_SAVE_CONFIG);
    return C_OK;
}

void clusterInit(void) {
    if (!server.cluster_enabled) return;
    cstate = zcalloc(sizeof(*cstate));
    cstate->nodes = dictCreate(&clusterNodesDictType);
    cstate->order = listCreate();
    cstate->lock_fd = -1;
    cstate->size = 1; /* as Redis reports until the first state update */
    if (lockConfig(server.cluster_configfile) == C_ERR) exit(1);
    int save = 0;
    if (loadConfig(server.cluster_configfile) == C_ERR) {
        cstate->myself = createNode(NULL, NODE_MYSELF | NODE_MASTER);
        addNode(cstate->myself);
        serverLog(LL_NOTICE, "No cluster configuration found, I'm %.40s", cstate->myself->name);
        save = 1;
    }
    updateMyselfAnnounced();
    if (save && saveConfig() != C_OK) {
        serverLog(LL_WARNING, "Fatal: can't update cluster config file %s: %s", server.cluster_configfile,
                  strerror(errno));
        exit(1);
    }
    listenOnBus();
    clusterKeysRecount();
}

int clusterHostnameValidate(const char *value, sds *err) {
    if (strlen(value) >= NET_HOST_STR_LEN) {
        *err = sdsnew("Hostnames must be less than 256 characters");
        return C_ERR;
    }
    for (const char *p = value; *p; p++) {
        char c = *p;
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.')) {
            *err = sdsnew("Hostnames may only contain alphanumeric characters, hyphens or dots");
            return C_ERR;
        }
    }
    return C_OK;
}

/* ---- keys per slot ------------------------------------------------------------------------------ */

void clusterKeyAdded(int dbid, const char *key, size_t len) {
    if (cstate && dbid == 0) slotIndexAdd((int)keyHashSlot(key, len), key, len);
}

void clusterKeyRemoved(int dbid, const char *key, size_t len) {
    if (cstate && dbid == 0) slotIndexRemove((int)keyHashSlot(key, len), key, len);
}

void clusterKeysFlushed(int dbid) {
    if (cstate && dbid == 0) slotIndexClear();
}

/* The slot index goes with a dataset set aside (a replica's swapdb load):
 * *index and the index in use change places; an index set aside is freed
 * with clusterKeysIndexFree. Both are no-ops outside cluster mode, where
 * no index exists. */
void clusterKeysExchange(void **index) { slotIndexExchange(index); }
void clusterKeysIndexFree(void *index) { slotIndexFree(index); }

void clusterKeysRecount(void) {
    if (cstate == NULL) return;
    slotIndexClear();
    kvtableIterator *it = kvtableGetIterator(server.db[0].keys);
    kvobj *o;
    while ((o = kvtableNext(it)) != NULL) {
        sds k = kvobjGetKey(o);
        slotIndexAdd((int)keyHashSlot(k, sdslen(k)), k, sdslen(k));
    }
    kvtableReleaseIterator(it);
}

static void collectKey(void *privdata, kvobj *o) {
    sds k = kvobjGetKey(o);
    listAddNodeTail(privdata, createStringObject(k, sdslen(k)));
}

/* Deletes every key of the slot (a slot lost to a newer primary while we
 * keep serving others), as Redis 7.0 does: not propagated, no keyspace
 * event. Returns how many. */
unsigned long delKeysInSlot(int slot) {
    list *keys = listCreate();
    slotIndexForEach(slot, ULONG_MAX, collectKey, keys);
    unsigned long n = 0;
    listIter li;
    listNode *ln;
    listRewind(keys, &li);
    while ((ln = listNext(&li))) {
        robj *key = listNodeValue(ln);
        n += (unsigned long)dbDelete(&server.db[0], key);
        decrRefCount(key);
    }
    listRelease(keys);
    return n;
}

/* ---- redirection -------------------------------------------------------------------------------- */

/* A key past its expire time counts as missing (a migrating slot then
 * answers -ASK, as Redis 7.0's lookup does); it is not deleted here, the
 * command that runs (or active expiry) does that. */
static int keyExistsQuietly(robj *key) {
    return kvtableFind(server.db[0].keys, key->ptr, sdslen(key->ptr)) != NULL && !keyIsExpired(&server.db[0], key);
}

typedef struct slotQuery {
    robj *firstkey;
    int slot;
    clusterNode *owner;
    int multiple_keys, migrating, importing, missing, existing;
} slotQuery;

/* Folds one command line's keys into q; REDIR_CROSS_SLOT or
 * REDIR_DOWN_UNBOUND end the query early. */
/* The channels of SPUBLISH/SSUBSCRIBE/SUNSUBSCRIBE, by their legacy key
 * positions (their key specs say "not a key"): they route like keys. */
static int shardChannelPositions(redisCommand *cmd, int argc, getKeysResult *keys) {
    int last = cmd->lastkey < 0 ? argc + cmd->lastkey : cmd->lastkey;
    int n = 0;
    for (int pos = cmd->firstkey; pos <= last && pos < argc; pos += cmd->keystep) {
        keys->keys = zrealloc(keys->keys, sizeof(keyReference) * (size_t)(n + 1));
        keys->keys[n].pos = pos;
        keys->keys[n].flags = 0;
        n++;
    }
    keys->numkeys = keys->size = n;
    return n;
}

static int isShardPubsub(redisCommand *cmd) {
    return cmd->proc == spublishCommand || cmd->proc == ssubscribeCommand || cmd->proc == sunsubscribeCommand;
}

static int queryCommandKeys(slotQuery *q, redisCommand *cmd, robj **argv, int argc) {
    getKeysResult keys = {0};
    int n = isShardPubsub(cmd) ? shardChannelPositions(cmd, argc, &keys) : getKeysFromCommand(cmd, argv, argc, &keys);
    int err = REDIR_NONE;
    for (int j = 0; j < n && err == REDIR_NONE; j++) {
        robj *key = argv[keys.keys[j].pos];
        int slot = (int)keyHashSlot(key->ptr, sdslen(key->ptr));
        if (q->firstkey == NULL) {
            q->firstkey = key;
            q->slot = slot;
            q->owner = cstate->slots[slot];
            if (q->owner == NULL) {
                err = REDIR_DOWN_UNBOUND;
                break;
            }
            if (q->owner == cstate->myself && cstate->migrating_to[slot]) q->migrating = 1;
            else if (cstate->importing_from[slot]) q->importing = 1;
        } else if (sdslen(key->ptr) != sdslen(q->firstkey->ptr) ||
                   memcmp(key->ptr, q->firstkey->ptr, sdslen(key->ptr))) {
            if (slot != q->slot) err = REDIR_CROSS_SLOT;
            else q->multiple_keys = 1;
        }
        if (err == REDIR_NONE && (q->migrating || q->importing) && !isShardPubsub(cmd)) {
            if (keyExistsQuietly(key)) q->existing++;
            else q->missing++;
        }
    }
    getKeysFreeResult(&keys);
    return err;
}

/* The node that must serve c's command, or NULL with *err set; Redis's
 * getNodeByQuery rules, in its order. */
static clusterNode *nodeForCommand(client *c, int *slot, int *err) {
    slotQuery q = {0};
    *err = REDIR_NONE;
    /* a module's NO_REDIRECTION: every key is this node's, cluster down or
     * not, and no slot is noted (a script's keys may span slots), as 7.0 */
    if (cluster_module_flags & CLUSTER_MODULE_NO_REDIRECTION) return cstate->myself;
    int is_exec = c->cmd->proc == execCommand;
    if (is_exec) {
        if (!(c->flags & CLIENT_MULTI)) return cstate->myself;
        int count = multiQueuedCount(c);
        for (int i = 0; i < count && *err == REDIR_NONE; i++) {
            redisCommand *cmd;
            robj **argv;
            int argc;
            multiQueuedCommand(c, i, &cmd, &argv, &argc);
            *err = queryCommandKeys(&q, cmd, argv, argc);
        }
    } else {
        *err = queryCommandKeys(&q, c->cmd, c->argv, c->argc);
    }
    if (*err != REDIR_NONE) return NULL;
    if (q.owner == NULL) return cstate->myself; /* no keys */
    /* a script's declared flags count (a shebang script may write unless
     * it says no-writes), as Redis 7.0's getCommandFlags */
    uint64_t flags = is_exec ? c->cmd->flags | multiQueuedFlags(c) : scriptDeclaredFlags(c, c->cmd->flags);
    int is_write = (flags & CMD_WRITE) != 0;
    int shard_pubsub = isShardPubsub(c->cmd);
    if (!cstate->ok) {
        if (shard_pubsub) {
            if (!server.cluster_allow_pubsubshard_when_down) *err = REDIR_DOWN_STATE;
        } else if (!server.cluster_allow_reads_when_down) *err = REDIR_DOWN_STATE;
        else if (is_write) *err = REDIR_DOWN_RO_STATE;
        if (*err != REDIR_NONE) return NULL;
    }
    *slot = q.slot;
    if ((q.migrating || q.importing) && c->cmd->proc == migrateCommand) return cstate->myself;
    if (q.migrating && q.missing) {
        if (q.existing) {
            *err = REDIR_UNSTABLE;
            return NULL;
        }
        *err = REDIR_ASK;
        return cstate->migrating_to[q.slot];
    }
    if (q.importing && ((c->flags & CLIENT_ASKING) || (flags & CMD_ASKING))) {
        if (q.multiple_keys && q.missing) {
            *err = REDIR_UNSTABLE;
            return NULL;
        }
        return cstate->myself;
    }
    if (((c->flags & CLIENT_READONLY) || shard_pubsub) && !is_write && isReplica(cstate->myself) &&
        cstate->myself->replicaof == q.owner)
        return cstate->myself;
    if (q.owner != cstate->myself) *err = REDIR_MOVED;
    return q.owner;
}

static const char *preferredEndpoint(const clusterNode *n) {
    switch (server.cluster_preferred_endpoint_type) {
    case ENDPOINT_HOSTNAME: return sdslen(n->hostname) ? n->hostname : "?";
    case ENDPOINT_UNKNOWN: return "";
    default: return n->ip;
    }
}

static sds redirectionError(const client *c, clusterNode *n, int slot, int err) {
    switch (err) {
    case REDIR_CROSS_SLOT: return sdsnew("-CROSSSLOT Keys in request don't hash to the same slot");
    case REDIR_UNSTABLE: return sdsnew("-TRYAGAIN Multiple keys request during rehashing of slot");
    case REDIR_DOWN_STATE: return sdsnew("-CLUSTERDOWN The cluster is down");
    case REDIR_DOWN_RO_STATE: return sdsnew("-CLUSTERDOWN The cluster is down and only accepts read commands");
    case REDIR_DOWN_UNBOUND: return sdsnew("-CLUSTERDOWN Hash slot not served");
    default:
        return sdscatprintf(sdsempty(), "-%s %d %s:%d", err == REDIR_ASK ? "ASK" : "MOVED", slot,
                            preferredEndpoint(n), clientPort(c, n));
    }
}

/* Commands with no key spec and no key-finding function never redirect. */
static int commandTakesKeys(redisCommand *cmd) {
    keySpec derived;
    const keySpec *specs;
    return cmd->getkeys_proc != NULL || commandKeySpecs(cmd, &specs, &derived) > 0;
}

int clusterRedirectIfNeeded(client *c) {
    if (cstate == NULL) return 0;
    c->slot = -1;
    if (c->flags & (CLIENT_MASTER | CLIENT_FAKE)) return 0;
    if (c->cmd->proc != execCommand && !commandTakesKeys(c->cmd)) return 0;
    int slot = -1, err;
    clusterNode *n = nodeForCommand(c, &slot, &err);
    c->slot = slot; /* a script's keys must stay in this slot (clusterScriptRefusal) */
    if (n == cstate->myself) return 0;
    sds text = redirectionError(c, n, slot, err);
    if (c->cmd->proc == execCommand) multiResetClient(c);
    else flagTransaction(c);
    c->cmd->rejected_calls++;
    addReplyErrorSds(c, text);
    return 1;
}

/* A script may use only keys this node serves, of the caller's slot (the
 * slot of its declared keys, or of the first key it touched) unless it
 * declared allow-cross-slot-keys; Redis 7.0's texts. */
sds clusterScriptRefusal(client *fake, client *caller, int allow_cross_slot) {
    if (cstate == NULL || (caller->flags & (CLIENT_MASTER | CLIENT_FAKE))) return NULL;
    if (!commandTakesKeys(fake->cmd)) return NULL;
    fake->flags &= ~(CLIENT_READONLY | CLIENT_ASKING);
    fake->flags |= caller->flags & (CLIENT_READONLY | CLIENT_ASKING);
    int slot = -1, err;
    if (nodeForCommand(fake, &slot, &err) != cstate->myself) {
        if (err == REDIR_DOWN_RO_STATE)
            return sdsnew("Script attempted to execute a write command while the cluster is down and readonly");
        if (err == REDIR_DOWN_STATE) return sdsnew("Script attempted to execute a command while the cluster is down");
        return sdsnew("Script attempted to access a non local key in a cluster node");
    }
    if (slot != -1 && !allow_cross_slot) {
        if (caller->slot == -1) caller->slot = slot;
        else if (caller->slot != slot) return sdsnew("Script attempted to access keys that do not hash to the same slot");
    }
    return NULL;
}

/* RM_Call (module_call.c): whether the command of fake (the module's
 * client) may run on this node, as Redis 7.0 asks before a module's call
 * runs: CLUSTER_CALL_OK, or why not. The caller's READONLY/ASKING count. */
int clusterModuleCallRefusal(client *fake, client *caller) {
    if (cstate == NULL || !commandTakesKeys(fake->cmd)) return CLUSTER_CALL_OK;
    fake->flags &= ~(CLIENT_READONLY | CLIENT_ASKING);
    if (caller) fake->flags |= caller->flags & (CLIENT_READONLY | CLIENT_ASKING);
    int slot = -1, err;
    if (nodeForCommand(fake, &slot, &err) == cstate->myself) return CLUSTER_CALL_OK;
    if (err == REDIR_DOWN_RO_STATE) return CLUSTER_CALL_DOWN_RO;
    if (err == REDIR_DOWN_STATE) return CLUSTER_CALL_DOWN;
    return CLUSTER_CALL_NOT_LOCAL;
}

/* ---- the module cluster API (module_cluster.c) ------------------------------------------------- */

const char *clusterMyId(void) { return cstate ? cstate->myself->name : NULL; }

size_t clusterNodeCount(void) { return cstate ? dictSize(cstate->nodes) : 0; }

/* A module's node id: its first 40 bytes (ids given to modules are not
 * NUL-terminated), never read past a NUL before them. */
static clusterNode *moduleNodeLookup(const char *id) {
    if (cstate == NULL || id == NULL || strnlen(id, CLUSTER_NAMELEN) != CLUSTER_NAMELEN) return NULL;
    return lookupNode(id, CLUSTER_NAMELEN);
}

/* The nodes a module may address: as 7.0, not those in a handshake or with
 * no address. Each id is NUL-terminated here (7.0's are not), harmless to
 * a module that reads 40 bytes. */
char **clusterNodeIds(size_t *count) {
    *count = 0;
    if (cstate == NULL) return NULL;
    char **ids = zmalloc(sizeof(char *) * (dictSize(cstate->nodes) + 1));
    listIter li;
    listNode *ln;
    listRewind(cstate->order, &li);
    while ((ln = listNext(&li))) {
        clusterNode *n = listNodeValue(ln);
        if (n->flags & (NODE_NOADDR | NODE_HANDSHAKE)) continue;
        ids[*count] = zmalloc(CLUSTER_NAMELEN + 1);
        memcpy(ids[*count], n->name, CLUSTER_NAMELEN);
        ids[*count][CLUSTER_NAMELEN] = '\0';
        (*count)++;
    }
    ids[*count] = NULL;
    return ids;
}

/* redismodule.h's REDISMODULE_NODE_* bits, from ours. */
static int moduleNodeFlags(const clusterNode *n) {
    static const int map[][2] = {{NODE_MYSELF, 1 << 0}, {NODE_MASTER, 1 << 1}, {NODE_SLAVE, 1 << 2},
                                 {NODE_PFAIL, 1 << 3},  {NODE_FAIL, 1 << 4},   {NODE_NOFAILOVER, 1 << 5}};
    int flags = 0;
    for (size_t j = 0; j < sizeof map / sizeof map[0]; j++)
        if (n->flags & map[j][0]) flags |= map[j][1];
    return flags;
}

/* As 7.0: ip is copied NUL-padded to 46 bytes; master_id is the primary's
 * id for a replica whose primary is known, else 40 zero bytes. */
int clusterNodeInfo(const char *id, char *ip, char *master_id, int *port, int *flags) {
    clusterNode *n = moduleNodeLookup(id);
    if (n == NULL || (n->flags & (NODE_NOADDR | NODE_HANDSHAKE))) return -1;
    if (ip) {
        memset(ip, 0, NET_IP_STR_LEN);
        memcpy(ip, n->ip, strnlen(n->ip, NET_IP_STR_LEN - 1));
    }
    if (master_id) {
        if (isReplica(n) && n->replicaof) memcpy(master_id, n->replicaof->name, CLUSTER_NAMELEN);
        else memset(master_id, 0, CLUSTER_NAMELEN);
    }
    if (port) *port = n->port;
    if (flags) *flags = moduleNodeFlags(n);
    return 0;
}

void clusterSetModuleFlags(int flags) {
    cluster_module_flags |= flags & (CLUSTER_MODULE_NO_FAILOVER | CLUSTER_MODULE_NO_REDIRECTION);
}

int clusterModuleTarget(const char *id, clusterNode **to) {
    *to = NULL;
    if (cstate == NULL) return -1;
    if (id == NULL) return 0;
    *to = moduleNodeLookup(id);
    return *to && (*to)->link ? 0 : -1;
}

/* ---- INFO ------------------------------------------------------------------------------------------ */

sds clusterInfoSection(sds info) { return sdscatprintf(info, "cluster_enabled:%d\r\n", cstate ? 1 : 0); }

/* ---- CLUSTER subcommands ---------------------------------------------------------------------------- */

static int getSlotOrReply(client *c, robj *o) {
    long long slot;
    if (getLongLongFromObject(o, &slot) != C_OK || slot < 0 || slot >= CLUSTER_SLOTS) {
        addReplyError(c, "Invalid or out of range slot");
        return -1;
    }
    return (int)slot;
}

static clusterNode *nodeOrReply(client *c, robj *name, const char *fmt) {
    clusterNode *n = lookupNode(name->ptr, sdslen(name->ptr));
    if (n == NULL) addReplyErrorFormat(c, fmt, (char *)name->ptr);
    return n;
}

static void clusterInfoReply(client *c) {
    int assigned = 0, ok = 0, pfail = 0, fail = 0;
    for (int j = 0; j < CLUSTER_SLOTS; j++) {
        clusterNode *n = cstate->slots[j];
        if (n == NULL) continue;
        assigned++;
        if (isFailed(n)) fail++;
        else if (n->flags & NODE_PFAIL) pfail++;
        else ok++;
    }
    clusterNode *me = cstate->myself;
    uint64_t myepoch = isReplica(me) && me->replicaof ? me->replicaof->config_epoch : me->config_epoch;
    sds info = sdscatprintf(sdsempty(),
                            "cluster_state:%s\r\ncluster_slots_assigned:%d\r\ncluster_slots_ok:%d\r\n"
                            "cluster_slots_pfail:%d\r\ncluster_slots_fail:%d\r\ncluster_known_nodes:%lu\r\n"
                            "cluster_size:%d\r\ncluster_current_epoch:%llu\r\ncluster_my_epoch:%llu\r\n"
                            "",
                            cstate->ok ? "ok" : "fail", assigned, ok, pfail, fail, (unsigned long)dictSize(cstate->nodes),
                            cstate->size, (unsigned long long)cstate->current_epoch, (unsigned long long)myepoch);
    info = busInfoStats(info);
    addReplyVerbatim(c, info, sdslen(info), "txt");
    sdsfree(info);
}

static void nodeEntryReply(client *c, const clusterNode *n) {
    addReplyArrayLen(c, 4);
    int type = server.cluster_preferred_endpoint_type;
    if (type == ENDPOINT_IP) addReplyBulkCString(c, n->ip);
    else if (type == ENDPOINT_HOSTNAME) addReplyBulkCString(c, sdslen(n->hostname) ? n->hostname : "?");
    else addReplyNull(c);
    addReplyLongLong(c, clientPort(c, n));
    addReplyBulkCBuffer(c, n->name, CLUSTER_NAMELEN);
    int with_ip = type != ENDPOINT_IP, with_host = type != ENDPOINT_HOSTNAME && sdslen(n->hostname);
    addReplyMapLen(c, with_ip + with_host);
    if (with_ip) {
        addReplyBulkCString(c, "ip");
        addReplyBulkCString(c, n->ip);
    }
    if (with_host) {
        addReplyBulkCString(c, "hostname");
        addReplyBulkCString(c, n->hostname);
    }
}

/* A replica announces replicaProcessedOffset (0 while it loads a full
 * sync), as Redis's replicationGetSlaveOffset; a primary its own offset. */
long long myselfOffset(void) {
    return isReplica(cstate->myself) ? replicaProcessedOffset() : replicationOffset();
}

static long long nodeOffset(const clusterNode *n) {
    if (!(n->flags & NODE_MYSELF)) return n->repl_offset;
    return myselfOffset();
}

static int replicaAvailable(const clusterNode *n) { return !isFailed(n) && nodeOffset(n) != 0; }

static void slotRangeReply(client *c, clusterNode *n, int start, int end) {
    int available = 0;
    for (int j = 0; j < n->numreplicas; j++) available += replicaAvailable(n->replicas[j]);
    addReplyArrayLen(c, 3 + available);
    addReplyLongLong(c, start);
    addReplyLongLong(c, end);
    nodeEntryReply(c, n);
    for (int j = 0; j < n->numreplicas; j++)
        if (replicaAvailable(n->replicas[j])) nodeEntryReply(c, n->replicas[j]);
}

static void clusterSlotsReply(client *c) {
    void *len = addReplyDeferredLen(c);
    int ranges = 0, start = 0;
    for (int j = 1; j <= CLUSTER_SLOTS; j++) {
        clusterNode *n = cstate->slots[start];
        if (j < CLUSTER_SLOTS && cstate->slots[j] == n) continue;
        if (n) {
            slotRangeReply(c, n, start, j - 1);
            ranges++;
        }
        start = j;
    }
    setDeferredArrayLen(c, len, ranges);
}

/* With tls-cluster yes a node's port is its TLS port and pport the plain
 * one (Redis 7.0 takes tls-cluster as the sign, whatever the peer is). */
static void shardNodeReply(client *c, const clusterNode *n) {
    int plain_port = tls_config.cluster ? n->pport : n->port, tls_port = tls_config.cluster ? n->port : 0;
    int fields = 6 + (sdslen(n->hostname) != 0) + (plain_port != 0) + (tls_port != 0);
    addReplyMapLen(c, fields);
    addReplyBulkCString(c, "id");
    addReplyBulkCBuffer(c, n->name, CLUSTER_NAMELEN);
    if (plain_port) {
        addReplyBulkCString(c, "port");
        addReplyLongLong(c, plain_port);
    }
    if (tls_port) {
        addReplyBulkCString(c, "tls-port");
        addReplyLongLong(c, tls_port);
    }
    addReplyBulkCString(c, "ip");
    addReplyBulkCString(c, n->ip);
    addReplyBulkCString(c, "endpoint");
    addReplyBulkCString(c, preferredEndpoint(n));
    if (sdslen(n->hostname)) {
        addReplyBulkCString(c, "hostname");
        addReplyBulkCString(c, n->hostname);
    }
    long long offset = nodeOffset(n);
    addReplyBulkCString(c, "role");
    addReplyBulkCString(c, isReplica(n) ? "replica" : "master");
    addReplyBulkCString(c, "replication-offset");
    addReplyLongLong(c, offset);
    addReplyBulkCString(c, "health");
    addReplyBulkCString(c, isFailed(n) ? "fail" : isReplica(n) && offset == 0 ? "loading" : "online");
}

/* One shard per primary: its slot ranges as start/end pairs, then itself
 * and its replicas (6 fields each, plus port and hostname when known). */
static void clusterShardsReply(client *c) {
    void *len = addReplyDeferredLen(c);
    int shards = 0;
    listIter li;
    listNode *ln;
    listRewind(cstate->order, &li);
    while ((ln = listNext(&li))) {
        clusterNode *n = listNodeValue(ln);
        if (!isMaster(n)) continue;
        shards++;
        addReplyMapLen(c, 2);
        addReplyBulkCString(c, "slots");
        void *slen = addReplyDeferredLen(c);
        int pairs = 0, start = -1;
        for (int j = 0; j <= CLUSTER_SLOTS; j++) {
            int bit = j < CLUSTER_SLOTS && slotBit(n, j);
            if (bit && start == -1) start = j;
            if (!bit && start != -1) {
                addReplyLongLong(c, start);
                addReplyLongLong(c, j - 1);
                pairs++;
                start = -1;
            }
        }
        setDeferredArrayLen(c, slen, pairs * 2);
        addReplyBulkCString(c, "nodes");
        addReplyArrayLen(c, 1 + n->numreplicas);
        shardNodeReply(c, n);
        for (int j = 0; j < n->numreplicas; j++) shardNodeReply(c, n->replicas[j]);
    }
    setDeferredArrayLen(c, len, shards);
}

/* ADDSLOTS/DELSLOTS and their RANGE forms: every slot is checked before
 * any changes. */
static int checkSlotsOrReply(client *c, unsigned char *seen, int del, int start, int end) {
    for (int s = start; s <= end; s++) {
        if (del && cstate->slots[s] == NULL) {
            addReplyErrorFormat(c, "Slot %d is already unassigned", s);
            return C_ERR;
        }
        if (!del && cstate->slots[s]) {
            addReplyErrorFormat(c, "Slot %d is already busy", s);
            return C_ERR;
        }
        if (seen[s]++ == 1) {
            addReplyErrorFormat(c, "Slot %d specified multiple times", s);
            return C_ERR;
        }
    }
    return C_OK;
}

static void applySlots(const unsigned char *seen, int del) {
    for (int s = 0; s < CLUSTER_SLOTS; s++) {
        if (!seen[s]) continue;
        cstate->importing_from[s] = NULL;
        if (del) delSlot(s);
        else addSlot(cstate->myself, s);
    }
    doBeforeSleep(CLUSTER_TODO_UPDATE_STATE | CLUSTER_TODO_SAVE_CONFIG);
}

static void addDelSlotsCommand(client *c, int del) {
    unsigned char *seen = zcalloc(CLUSTER_SLOTS);
    for (int j = 2; j < c->argc; j++)
        if (getSlotOrReply(c, c->argv[j]) == -1) goto done;
    for (int j = 2; j < c->argc; j++) {
        int s = getSlotOrReply(c, c->argv[j]);
        if (checkSlotsOrReply(c, seen, del, s, s) != C_OK) goto done;
    }
    applySlots(seen, del);
    addReply(c, shared.ok);
done:
    zfree(seen);
}

static void addDelSlotsRangeCommand(client *c, int del) {
    if (c->argc % 2 == 1) {
        addReplyErrorArity(c);
        return;
    }
    unsigned char *seen = zcalloc(CLUSTER_SLOTS);
    for (int j = 2; j < c->argc; j += 2) {
        int start = getSlotOrReply(c, c->argv[j]);
        if (start == -1) goto done;
        int end = getSlotOrReply(c, c->argv[j + 1]);
        if (end == -1) goto done;
        if (start > end) {
            addReplyErrorFormat(c, "start slot number %d is greater than end slot number %d", start, end);
            goto done;
        }
        if (checkSlotsOrReply(c, seen, del, start, end) != C_OK) goto done;
    }
    applySlots(seen, del);
    addReply(c, shared.ok);
done:
    zfree(seen);
}

static int bumpEpochWithoutConsensus(void) {
    uint64_t max = maxConfigEpoch();
    clusterNode *me = cstate->myself;
    if (me->config_epoch == 0 || me->config_epoch != max) {
        cstate->current_epoch++;
        me->config_epoch = cstate->current_epoch;
        doBeforeSleep(CLUSTER_TODO_SAVE_CONFIG | CLUSTER_TODO_FSYNC_CONFIG);
        serverLog(LL_WARNING, "New configEpoch set to %llu", (unsigned long long)me->config_epoch);
        return C_OK;
    }
    return C_ERR;
}

static void setSlotNode(client *c, int slot) {
    clusterNode *n = nodeOrReply(c, c->argv[4], "Unknown node %s");
    if (n == NULL) return;
    if (isReplica(n)) {
        addReplyError(c, "Target node is not a master");
        return;
    }
    if (cstate->slots[slot] == cstate->myself && n != cstate->myself && slotIndexCount(slot)) {
        addReplyErrorFormat(c, "Can't assign hashslot %d to a different node while I still hold keys for this hash "
                               "slot.", slot);
        return;
    }
    if (slotIndexCount(slot) == 0 && cstate->migrating_to[slot]) cstate->migrating_to[slot] = NULL;
    int was_mine = cstate->slots[slot] == cstate->myself;
    delSlot(slot);
    addSlot(n, slot);
    /* a primary that gave its last slot away follows the node it went to, as Redis 7.0 */
    if (was_mine && n != cstate->myself && cstate->myself->numslots == 0 && server.cluster_allow_replica_migration) {
        serverLog(LL_WARNING, "Configuration change detected. Reconfiguring myself as a replica of %.40s", n->name);
        setMyPrimary(n);
        doBeforeSleep(CLUSTER_TODO_SAVE_CONFIG | CLUSTER_TODO_UPDATE_STATE | CLUSTER_TODO_FSYNC_CONFIG);
    }
    if (n == cstate->myself && cstate->importing_from[slot]) {
        if (bumpEpochWithoutConsensus() == C_OK)
            serverLog(LL_WARNING, "configEpoch updated after importing slot %d", slot);
        cstate->importing_from[slot] = NULL;
    }
    doBeforeSleep(CLUSTER_TODO_SAVE_CONFIG | CLUSTER_TODO_UPDATE_STATE);
    addReply(c, shared.ok);
}

static void setSlotCommand(client *c) {
    if (isReplica(cstate->myself)) {
        addReplyError(c, "Please use SETSLOT only with masters.");
        return;
    }
    int slot = getSlotOrReply(c, c->argv[2]);
    if (slot == -1) return;
    const char *action = c->argv[3]->ptr;
    clusterNode *n;
    if (!strcasecmp(action, "migrating") && c->argc == 5) {
        if (cstate->slots[slot] != cstate->myself) {
            addReplyErrorFormat(c, "I'm not the owner of hash slot %u", slot);
            return;
        }
        if ((n = nodeOrReply(c, c->argv[4], "I don't know about node %s")) == NULL) return;
        if (isReplica(n)) {
            addReplyError(c, "Target node is not a master");
            return;
        }
        cstate->migrating_to[slot] = n;
    } else if (!strcasecmp(action, "importing") && c->argc == 5) {
        if (cstate->slots[slot] == cstate->myself) {
            addReplyErrorFormat(c, "I'm already the owner of hash slot %u", slot);
            return;
        }
        if ((n = nodeOrReply(c, c->argv[4], "I don't know about node %s")) == NULL) return;
        if (isReplica(n)) {
            addReplyError(c, "Target node is not a master");
            return;
        }
        cstate->importing_from[slot] = n;
    } else if (!strcasecmp(action, "stable") && c->argc == 4) {
        cstate->importing_from[slot] = NULL;
        cstate->migrating_to[slot] = NULL;
    } else if (!strcasecmp(action, "node") && c->argc == 5) {
        setSlotNode(c, slot);
        return;
    } else {
        addReplyError(c, "Invalid CLUSTER SETSLOT action or number of arguments. Try CLUSTER HELP");
        return;
    }
    doBeforeSleep(CLUSTER_TODO_SAVE_CONFIG | CLUSTER_TODO_UPDATE_STATE);
    addReply(c, shared.ok);
}

static void replyKey(void *privdata, kvobj *o) {
    sds k = kvobjGetKey(o);
    addReplyBulkCBuffer(privdata, k, sdslen(k));
}

static void getKeysInSlotCommand(client *c) {
    long long slot, maxkeys;
    if (getLongLongFromObjectOrReply(c, c->argv[2], &slot, NULL) != C_OK) return;
    if (getLongLongFromObjectOrReply(c, c->argv[3], &maxkeys, NULL) != C_OK) return;
    if (slot < 0 || slot >= CLUSTER_SLOTS || maxkeys < 0) {
        addReplyError(c, "Invalid slot or number of keys");
        return;
    }
    long long count = (long long)slotIndexCount(slot);
    long long want = maxkeys > count ? count : maxkeys;
    addReplyArrayLen(c, (long)want);
    unsigned long found = slotIndexForEach((int)slot, (unsigned long)want, replyKey, c);
    serverAssert((long long)found == want);
}

static void meetCommand(client *c) {
    long long port, cport;
    if (getLongLongFromObject(c->argv[3], &port) != C_OK) {
        addReplyErrorFormat(c, "Invalid TCP base port specified: %s", (char *)c->argv[3]->ptr);
        return;
    }
    if (c->argc == 5) {
        if (getLongLongFromObject(c->argv[4], &cport) != C_OK) {
            addReplyErrorFormat(c, "Invalid TCP bus port specified: %s", (char *)c->argv[4]->ptr);
            return;
        }
    } else {
        cport = port + CLUSTER_PORT_INCR;
    }
    char norm[NET_IP_STR_LEN];
    if (anetResolve(NULL, c->argv[2]->ptr, norm, sizeof norm, ANET_IP_ONLY) == ANET_ERR || port <= 0 || port > 65535 || cport <= 0 ||
        cport > 65535) {
        addReplyErrorFormat(c, "Invalid node address specified: %s:%s", (char *)c->argv[2]->ptr,
                            (char *)c->argv[3]->ptr);
        return;
    }
    busStartHandshake(norm, (int)port, (int)cport);
    addReply(c, shared.ok);
}

static void forgetCommand(client *c) {
    clusterNode *n = nodeOrReply(c, c->argv[2], "Unknown node %s");
    if (n == NULL) return;
    if (n == cstate->myself) {
        addReplyError(c, "I tried hard but I can't forget myself...");
        return;
    }
    if (isReplica(cstate->myself) && cstate->myself->replicaof == n) {
        addReplyError(c, "Can't forget my master!");
        return;
    }
    busForget(n->name);
    freeNode(n);
    doBeforeSleep(CLUSTER_TODO_UPDATE_STATE | CLUSTER_TODO_SAVE_CONFIG);
    addReply(c, shared.ok);
}

static void replicateCommand(client *c) {
    clusterNode *n = nodeOrReply(c, c->argv[2], "Unknown node %s");
    if (n == NULL) return;
    if (n == cstate->myself) {
        addReplyError(c, "Can't replicate myself");
        return;
    }
    if (isReplica(n)) {
        addReplyError(c, "I can only replicate a master, not a replica.");
        return;
    }
    if (isMaster(cstate->myself) && (cstate->myself->numslots || kvtableSize(server.db[0].keys))) {
        addReplyError(c, "To set a master the node must be empty and without assigned slots.");
        return;
    }
    setMyPrimary(n);
    addReply(c, shared.ok);
}

static void replicasCommand(client *c) {
    clusterNode *n = nodeOrReply(c, c->argv[2], "Unknown node %s");
    if (n == NULL) return;
    if (isReplica(n)) {
        addReplyError(c, "The specified node is not a master");
        return;
    }
    addReplyArrayLen(c, n->numreplicas);
    for (int j = 0; j < n->numreplicas; j++) {
        sds d = nodeDescription(n->replicas[j], c);
        addReplyBulkSds(c, d);
    }
}

static void setConfigEpochCommand(client *c) {
    long long epoch;
    if (getLongLongFromObjectOrReply(c, c->argv[2], &epoch, NULL) != C_OK) return;
    if (epoch < 0) {
        addReplyErrorFormat(c, "Invalid config epoch specified: %lld", epoch);
    } else if (dictSize(cstate->nodes) > 1) {
        addReplyError(c, "The user can assign a config epoch only when the node does not know any other node.");
    } else if (cstate->myself->config_epoch != 0) {
        addReplyError(c, "Node config epoch is already non-zero");
    } else {
        cstate->myself->config_epoch = (uint64_t)epoch;
        serverLog(LL_WARNING, "configEpoch set to %llu via CLUSTER SET-CONFIG-EPOCH", (unsigned long long)epoch);
        if (cstate->current_epoch < (uint64_t)epoch) cstate->current_epoch = (uint64_t)epoch;
        doBeforeSleep(CLUSTER_TODO_UPDATE_STATE | CLUSTER_TODO_SAVE_CONFIG);
        addReply(c, shared.ok);
    }
}

/* RESET [HARD|SOFT]: back to a primary with no slots that knows no other
 * node; HARD also takes a new name and zeroes the epochs. */
static void resetCommandCluster(client *c) {
    int hard = 0;
    if (c->argc == 3) {
        if (!strcasecmp(c->argv[2]->ptr, "hard")) hard = 1;
        else if (strcasecmp(c->argv[2]->ptr, "soft")) {
            addReplyErrorObject(c, shared.syntaxerr);
            return;
        }
    }
    clusterNode *me = cstate->myself;
    if (isMaster(me) && kvtableSize(c->db->keys) != 0) {
        addReplyError(c, "CLUSTER RESET can't be called with master nodes containing keys");
        return;
    }
    if (isReplica(me)) {
        setReplicaOf(me, NULL);
        me->flags = (me->flags & ~NODE_SLAVE) | NODE_MASTER;
        replicaClusterFollow(NULL, 0);
        emptyData(-1, 0);
        clusterKeysFlushed(0);
    }
    memset(cstate->migrating_to, 0, sizeof cstate->migrating_to);
    memset(cstate->importing_from, 0, sizeof cstate->importing_from);
    delNodeSlots(me);
    while (listLength(cstate->order) > 1) {
        clusterNode *n = listNodeValue(listFirst(cstate->order));
        if (n == me) n = listNodeValue(listLast(cstate->order));
        freeNode(n);
    }
    if (hard) {
        cstate->current_epoch = 0;
        cstate->last_vote_epoch = 0;
        me->config_epoch = 0;
        serverLog(LL_WARNING, "configEpoch set to 0 via CLUSTER RESET HARD");
        sds old = sdsnewlen(me->name, CLUSTER_NAMELEN);
        dictDelete(cstate->nodes, old);
        sdsfree(old);
        randomNodeName(me->name);
        dictAdd(cstate->nodes, sdsnewlen(me->name, CLUSTER_NAMELEN), me);
        serverLog(LL_NOTICE, "Node hard reset, now I'm %.40s", me->name);
    }
    doBeforeSleep(CLUSTER_TODO_SAVE_CONFIG | CLUSTER_TODO_UPDATE_STATE | CLUSTER_TODO_FSYNC_CONFIG);
    addReply(c, shared.ok);
}


static const char *cluster_help[] = {
    "ADDSLOTS <slot> [<slot> ...]",
    "    Assign slots to current node.",
    "ADDSLOTSRANGE <start slot> <end slot> [<start slot> <end slot> ...]",
    "    Assign slots which are between <start-slot> and <end-slot> to current node.",
    "BUMPEPOCH",
    "    Advance the cluster config epoch.",
    "COUNT-FAILURE-REPORTS <node-id>",
    "    Return number of failure reports for <node-id>.",
    "COUNTKEYSINSLOT <slot>",
    "    Return the number of keys in <slot>.",
    "DELSLOTS <slot> [<slot> ...]",
    "    Delete slots information from current node.",
    "DELSLOTSRANGE <start slot> <end slot> [<start slot> <end slot> ...]",
    "    Delete slots information which are between <start-slot> and <end-slot> from current node.",
    "FAILOVER [FORCE|TAKEOVER]",
    "    Promote current replica node to being a master.",
    "FORGET <node-id>",
    "    Remove a node from the cluster.",
    "GETKEYSINSLOT <slot> <count>",
    "    Return key names stored by current node in a slot.",
    "FLUSHSLOTS",
    "    Delete current node own slots information.",
    "INFO",
    "    Return information about the cluster.",
    "KEYSLOT <key>",
    "    Return the hash slot for <key>.",
    "MEET <ip> <port> [<bus-port>]",
    "    Connect nodes into a working cluster.",
    "MYID",
    "    Return the node id.",
    "NODES",
    "    Return cluster configuration seen by node. Output format:",
    "    <id> <ip:port> <flags> <master> <pings> <pongs> <epoch> <link> <slot> ...",
    "REPLICATE <node-id>",
    "    Configure current node as replica to <node-id>.",
    "RESET [HARD|SOFT]",
    "    Reset current node (default: soft).",
    "SET-CONFIG-EPOCH <epoch>",
    "    Set config epoch of current node.",
    "SETSLOT <slot> (IMPORTING <node-id>|MIGRATING <node-id>|STABLE|NODE <node-id>)",
    "    Set slot state.",
    "REPLICAS <node-id>",
    "    Return <node-id> replicas.",
    "SAVECONFIG",
    "    Force saving cluster configuration on disk.",
    "SLOTS",
    "    Return information about slots range mappings. Each range is made of:",
    "    start, end, master and replicas IP addresses, ports and ids",
    "SHARDS",
    "    Return information about slot range mappings and the nodes associated with them.",
    "LINKS",
    "    Return information about all network links between this node and its peers.",
    "    Output format is an array where each array element is a map containing attributes of a link",
    NULL,
};

/* The subcommands whose replies need no argument checks of their own. */
static int simpleSubcommand(client *c, const char *sub) {
    if (!strcasecmp(sub, "help")) addReplyHelp(c, cluster_help);
    else if (!strcasecmp(sub, "info")) clusterInfoReply(c);
    else if (!strcasecmp(sub, "myid")) addReplyBulkCBuffer(c, cstate->myself->name, CLUSTER_NAMELEN);
    else if (!strcasecmp(sub, "slots")) clusterSlotsReply(c);
    else if (!strcasecmp(sub, "shards")) clusterShardsReply(c);
    else if (!strcasecmp(sub, "links")) busLinksReply(c);
    else if (!strcasecmp(sub, "nodes")) {
        sds nodes = nodesDescription(1, c);
        addReplyVerbatim(c, nodes, sdslen(nodes), "txt");
        sdsfree(nodes);
    } else return 0;
    return 1;
}

static void bumpEpochCommand(client *c) {
    int bumped = bumpEpochWithoutConsensus() == C_OK;
    sds reply = sdscatprintf(sdsempty(), "%s %llu", bumped ? "BUMPED" : "STILL",
                             (unsigned long long)cstate->myself->config_epoch);
    addReplyStatus(c, reply);
    sdsfree(reply);
}

static void slotCountCommand(client *c) {
    long long slot;
    if (getLongLongFromObjectOrReply(c, c->argv[2], &slot, NULL) != C_OK) return;
    if (slot < 0 || slot >= CLUSTER_SLOTS) {
        addReplyError(c, "Invalid slot");
        return;
    }
    addReplyLongLong(c, slotIndexCount(slot));
}

static void flushSlotsCommand(client *c) {
    if (kvtableSize(server.db[0].keys) != 0) {
        addReplyError(c, "DB must be empty to perform CLUSTER FLUSHSLOTS.");
        return;
    }
    delNodeSlots(cstate->myself);
    doBeforeSleep(CLUSTER_TODO_UPDATE_STATE | CLUSTER_TODO_SAVE_CONFIG);
    addReply(c, shared.ok);
}

static void saveConfigCommand(client *c) {
    if (saveConfig() == C_OK) addReply(c, shared.ok);
    else addReplyErrorFormat(c, "error saving the cluster node config: %s", strerror(errno));
}

void clusterCommand(client *c) {
    if (cstate == NULL) {
        addReplyError(c, "This instance has cluster support disabled");
        return;
    }
    const char *sub = c->argv[1]->ptr;
    int argc = c->argc;
    if (argc == 2 && simpleSubcommand(c, sub)) return;
    if (!strcasecmp(sub, "meet") && (argc == 4 || argc == 5)) meetCommand(c);
    else if (!strcasecmp(sub, "flushslots") && argc == 2) flushSlotsCommand(c);
    else if (!strcasecmp(sub, "addslots") && argc >= 3) addDelSlotsCommand(c, 0);
    else if (!strcasecmp(sub, "delslots") && argc >= 3) addDelSlotsCommand(c, 1);
    else if (!strcasecmp(sub, "addslotsrange") && argc >= 4) addDelSlotsRangeCommand(c, 0);
    else if (!strcasecmp(sub, "delslotsrange") && argc >= 4) addDelSlotsRangeCommand(c, 1);
    else if (!strcasecmp(sub, "setslot") && argc >= 4) setSlotCommand(c);
    else if (!strcasecmp(sub, "bumpepoch") && argc == 2) bumpEpochCommand(c);
    else if (!strcasecmp(sub, "saveconfig") && argc == 2) saveConfigCommand(c);
    else if (!strcasecmp(sub, "keyslot") && argc == 3)
        addReplyLongLong(c, keyHashSlot(c->argv[2]->ptr, sdslen(c->argv[2]->ptr)));
    else if (!strcasecmp(sub, "countkeysinslot") && argc == 3) slotCountCommand(c);
    else if (!strcasecmp(sub, "getkeysinslot") && argc == 4) getKeysInSlotCommand(c);
    else if (!strcasecmp(sub, "forget") && argc == 3) forgetCommand(c);
    else if (!strcasecmp(sub, "replicate") && argc == 3) replicateCommand(c);
    else if ((!strcasecmp(sub, "replicas") || !strcasecmp(sub, "slaves")) && argc == 3) replicasCommand(c);
    else if (!strcasecmp(sub, "count-failure-reports") && argc == 3) {
        clusterNode *n = nodeOrReply(c, c->argv[2], "Unknown node %s");
        if (n) addReplyLongLong(c, busFailureReports(n));
    } else if (!strcasecmp(sub, "failover") && (argc == 2 || argc == 3)) clusterFailoverCommand(c);
    else if (!strcasecmp(sub, "set-config-epoch") && argc == 3) setConfigEpochCommand(c);
    else if (!strcasecmp(sub, "reset") && (argc == 2 || argc == 3)) resetCommandCluster(c);
    else addReplySubcommandSyntaxError(c);
}

/* ---- READONLY, READWRITE, ASKING ------------------------------------------------------------------ */

void readonlyCommand(client *c) {
    if (cstate == NULL) {
        addReplyError(c, "This instance has cluster support disabled");
        return;
    }
    c->flags |= CLIENT_READONLY;
    addReply(c, shared.ok);
}

void readwriteCommand(client *c) {
    if (cstate == NULL) {
        addReplyError(c, "This instance has cluster support disabled");
        return;
    }
    c->flags &= ~CLIENT_READONLY;
    addReply(c, shared.ok);
}

void askingCommand(client *c) {
    if (cstate == NULL) {
        addReplyError(c, "This instance has cluster support disabled");
        return;
    }
    c->flags |= CLIENT_ASKING;
    addReply(c, shared.ok);
}

/* After each command (networking.c's resetClient): ASKING lasts one
 * command, or to the end of a transaction. */
void clusterCommandDone(client *c, redisCommand *cmd) {
    if (!(c->flags & CLIENT_MULTI) && cmd && cmd->proc != askingCommand) c->flags &= ~CLIENT_ASKING;
}
