/* cluster_failover.c -- replica failover by election, with Redis 7.0's
 * rules, so our replicas and Redis's elect each other: a replica whose
 * primary is FAIL waits a random delay plus one second per rank (replicas
 * with a larger replication offset go first), takes a new currentEpoch and
 * asks every primary for its vote (FAILOVER_AUTH_REQUEST); a primary votes
 * once per epoch, once per failed primary in two node timeouts, and only
 * when no slot asked for is owned at a newer configEpoch
 * (FAILOVER_AUTH_ACK); a majority of the slot-serving primaries makes the
 * replica the primary of those slots, at the election's epoch, which its
 * next PONG tells everyone.
 *
 * Also here: CLUSTER FAILOVER (manual). The default form asks the primary
 * (MFSTART) to pause writes and to send its replication offset in PINGs
 * flagged PAUSED; once the replica has processed that much, it runs an
 * election the primaries vote in even though the primary is not failed
 * (FORCEACK). FORCE skips the primary's agreement, TAKEOVER the election.
 * A manual failover not done in 5 s is abandoned, as Redis's.
 */
#include "server.h"
#include "cluster.h"
#include "cluster_private.h"
#include "replication.h"

static long long authTimeout(void) {
    long long t = server.cluster_node_timeout * 2;
    return t < 2000 ? 2000 : t;
}

/* Replicas of my primary that have more of its data than I do. */
static int myRank(void) {
    clusterNode *me = cstate->myself, *primary = me->replicaof;
    if (primary == NULL) return 0;
    long long mine = myselfOffset();
    int rank = 0;
    for (int j = 0; j < primary->numreplicas; j++) {
        clusterNode *r = primary->replicas[j];
        if (r != me && !(r->flags & NODE_NOFAILOVER) && r->repl_offset > mine) rank++;
    }
    return rank;
}

/* I won: the primary's slots are mine, at the election's epoch. */
static void becomePrimary(void) {
    clusterNode *me = cstate->myself, *old = me->replicaof;
    if (old == NULL) return;
    serverLog(LL_WARNING, "Failover election won: I'm the new master.");
    if (me->config_epoch < cstate->failover_auth_epoch) {
        me->config_epoch = cstate->failover_auth_epoch;
        serverLog(LL_WARNING, "configEpoch set to %llu after successful failover",
                  (unsigned long long)me->config_epoch);
    }
    setReplicaOf(me, NULL);
    me->flags = (me->flags & ~NODE_SLAVE) | NODE_MASTER;
    for (int j = 0; j < CLUSTER_SLOTS; j++) {
        if (cstate->slots[j] != old) continue;
        delSlot(j);
        addSlot(me, j);
    }
    replicaClusterFollow(NULL, 0);
    cstate->failover_auth_time = 0;
    cstate->failover_auth_sent = 0; /* nothing of this election may count in the next one */
    cstate->failover_auth_count = 0;
    updateState();
    doBeforeSleep(CLUSTER_TODO_SAVE_CONFIG | CLUSTER_TODO_FSYNC_CONFIG | CLUSTER_TODO_UPDATE_STATE);
    busBroadcastPong();
}

static int canFailover(int manual) {
    clusterNode *me = cstate->myself, *primary = me->replicaof;
    if (!isReplica(me) || primary == NULL || primary->numslots == 0) return 0;
    if (!manual && (!isFailed(primary) || server.cluster_replica_no_failover)) return 0;
    return 1;
}

static int manual_failover; /* a manual failover's election may run */

#define MF_TIMEOUT 5000
#define MF_PAUSE_MULT 2

/* the default manual failover's state: on the replica, the primary's offset
 * to reach (-1: not known yet); on the primary, the replica that asked */
static long long mf_end, mf_primary_offset = -1;
static char mf_replica[CLUSTER_NAMELEN];

static void resetManualFailover(void) {
    if (mf_end && isMaster(cstate->myself) && mf_replica[0]) clientsUnpause();
    mf_end = 0;
    mf_primary_offset = -1;
    mf_replica[0] = '\0';
    manual_failover = 0;
}

int failoverPaused(void) { return mf_end && isMaster(cstate->myself) && mf_replica[0]; }

int clusterManualFailoverPaused(void) { return cstate && failoverPaused(); }

int clusterMyselfIsReplica(void) { return cstate && cstate->myself && isReplica(cstate->myself); }

/* A PING/PONG from sender: my primary's offset, once it has paused writes. */
void failoverHeartbeat(const clusterBusMsg *m, clusterNode *sender) {
    if (!mf_end || !isReplica(cstate->myself) || cstate->myself->replicaof != sender) return;
    if (!(m->mflags[0] & CLUSTERBUS_MFLAG0_PAUSED) || mf_primary_offset != -1) return;
    mf_primary_offset = (long long)m->offset;
    serverLog(LL_WARNING, "Received replication offset for paused master manual failover: %lld", mf_primary_offset);
}

/* The manual failover's own clock, before the election logic. */
static void manualFailoverCron(void) {
    if (!mf_end) return;
    if (mstime() > mf_end) {
        serverLog(LL_WARNING, "Manual failover timed out.");
        resetManualFailover();
        return;
    }
    if (isMaster(cstate->myself)) {
        clusterNode *r = mf_replica[0] ? lookupNode(mf_replica, CLUSTER_NAMELEN) : NULL;
        if (r == NULL || r->replicaof != cstate->myself) {
            if (mf_replica[0] && r && isMaster(r)) resetManualFailover(); /* done: it took over */
            return;
        }
        busPing(r);
        return;
    }
    if (!manual_failover && mf_primary_offset != -1 && replicationOffset() == mf_primary_offset) {
        serverLog(LL_WARNING, "All master replication stream processed, manual failover can start.");
        manual_failover = 1;
        cstate->failover_auth_time = 0;
        cstate->failover_auth_sent = 0;
        cstate->failover_auth_count = 0;
    }
}

/* cluster-replica-validity-factor: a replica disconnected from its primary
 * for longer than node timeout x factor + repl-ping-replica-period (past the
 * node timeout it takes to flag the primary FAIL) does not run, as Redis's
 * rule; 0 turns the check off, a manual failover skips it. */
static int dataTooOld(void) {
    if (server.cluster_replica_validity_factor == 0) return 0;
    long long age = replicaDataAgeMs(), timeout = server.cluster_node_timeout;
    if (age > timeout) age -= timeout;
    return age > (long long)server.repl_ping_replica_period * 1000 + timeout * server.cluster_replica_validity_factor;
}

/* Redis's "can't failover" log for a stale replica: not while the primary
 * failed less than node timeout + 5 s ago, then once per 5 minutes. */
#define CANT_FAILOVER_RELOG_SEC 300
#define CANT_FAILOVER_QUIET_MS 5000

static void logDataTooOld(void) {
    static time_t last;
    static int logged;
    clusterNode *primary = cstate->myself->replicaof;
    if (logged && time(NULL) - last < CANT_FAILOVER_RELOG_SEC) return;
    if (primary && isFailed(primary) &&
        mstime() - primary->fail_time < server.cluster_node_timeout + CANT_FAILOVER_QUIET_MS)
        return;
    logged = 1;
    last = time(NULL);
    serverLog(LL_WARNING, "Currently unable to failover: Disconnected from master for longer than allowed. Please "
                          "check the 'cluster-replica-validity-factor' configuration option.");
}

void failoverCron(void) {
    manualFailoverCron();
    if (cluster_module_flags & CLUSTER_MODULE_NO_FAILOVER) return; /* a module's NO_FAILOVER: no election, manual either */
    if (!canFailover(manual_failover)) {
        cstate->failover_auth_time = 0;
        return;
    }
    if (!manual_failover && dataTooOld()) {
        logDataTooOld();
        return;
    }
    long long now = mstime(), timeout = authTimeout();
    if (cstate->failover_auth_time == 0 || now - cstate->failover_auth_time > timeout * 2) {
        /* a new election, after a delay so the FAIL spreads and the best replica goes first */
        cstate->failover_auth_rank = myRank();
        cstate->failover_auth_time = now + (manual_failover ? 0 : 500 + rand() % 500 + cstate->failover_auth_rank * 1000);
        cstate->failover_auth_count = 0;
        cstate->failover_auth_sent = 0;
        serverLog(LL_WARNING, "Start of election delayed for %lld milliseconds (rank #%d, offset %lld).",
                  cstate->failover_auth_time - now, cstate->failover_auth_rank, replicationOffset());
        busBroadcastPong();
        return;
    }
    if (!cstate->failover_auth_sent && !manual_failover) {
        int rank = myRank();
        if (rank > cstate->failover_auth_rank) {
            cstate->failover_auth_time += (rank - cstate->failover_auth_rank) * 1000;
            cstate->failover_auth_rank = rank;
        }
    }
    if (now < cstate->failover_auth_time || now - cstate->failover_auth_time > timeout) return;
    if (!cstate->failover_auth_sent) {
        cstate->current_epoch++;
        cstate->failover_auth_epoch = cstate->current_epoch;
        serverLog(LL_WARNING, "Starting a failover election for epoch %llu.", (unsigned long long)cstate->current_epoch);
        busSendEmpty(NULL, CLUSTERBUS_FAILOVER_AUTH_REQUEST, manual_failover ? CLUSTERBUS_MFLAG0_FORCEACK : 0);
        cstate->failover_auth_sent = 1;
        doBeforeSleep(CLUSTER_TODO_SAVE_CONFIG | CLUSTER_TODO_FSYNC_CONFIG);
        return;
    }
    if (cstate->failover_auth_sent && cstate->failover_auth_count >= cstate->size / 2 + 1) {
        resetManualFailover();
        becomePrimary();
    }
}

/* ---- replica migration ------------------------------------------------------------------------ */

#define REPLICA_MIGRATION_DELAY 5000 /* ms a primary stays orphaned before a replica moves to it */

static int okReplicas(const clusterNode *n) {
    int ok = 0;
    for (int j = 0; j < n->numreplicas; j++)
        if (!isFailed(n->replicas[j])) ok++;
    return ok;
}

/* Is n a primary left without a working replica that is meant to have one
 * (NODE_MIGRATE_TO: it had replicas, or failed over a primary that had)? */
static int orphaned(const clusterNode *n) {
    return isMaster(n) && !isFailed(n) && (n->flags & NODE_MIGRATE_TO) && okReplicas(n) == 0;
}

/* Redis 7.0's replica migration, run by a replica each cron: when some
 * primary is orphaned and my primary has the most working replicas (at
 * least 2, more than cluster-migration-barrier), the replica with the
 * smallest name among those of the best-served primaries moves to the
 * first orphaned primary with slots, once it has been orphaned for 5 s. */
void migrationCron(void) {
    clusterNode *me = cstate->myself, *mine = me->replicaof;
    if (!isReplica(me) || mine == NULL || !server.cluster_allow_replica_migration || !cstate->ok) return;
    if (cluster_module_flags & CLUSTER_MODULE_NO_FAILOVER) return; /* 7.0: no migration either */
    int orphans = 0, max = 0;
    clusterNode *target = NULL, *candidate = me;
    long long now = mstime();
    listIter li;
    listNode *ln;
    listRewind(cstate->order, &li);
    while ((ln = listNext(&li))) {
        clusterNode *n = listNodeValue(ln);
        if (n->flags & (NODE_MYSELF | NODE_NOADDR | NODE_HANDSHAKE) || !isMaster(n) || isFailed(n)) continue;
        int ok = okReplicas(n);
        if (ok > max) max = ok;
        if (orphaned(n) && n->numslots > 0) orphans++;
    }
    int mine_ok = 0;
    for (int j = 0; j < mine->numreplicas; j++)
        if (!(mine->replicas[j]->flags & (NODE_FAIL | NODE_PFAIL))) mine_ok++;
    if (!orphans || max < 2 || okReplicas(mine) != max || mine_ok <= server.cluster_migration_barrier) return;
    listRewind(cstate->order, &li);
    while ((ln = listNext(&li))) {
        clusterNode *n = listNodeValue(ln);
        if (orphaned(n)) {
            if (target == NULL && n->numslots > 0) target = n;
            if (n->orphaned_time == 0) n->orphaned_time = now;
        } else {
            n->orphaned_time = 0;
        }
        if (isMaster(n) && okReplicas(n) == max)
            for (int j = 0; j < n->numreplicas; j++)
                if (memcmp(n->replicas[j]->name, candidate->name, CLUSTER_NAMELEN) < 0) candidate = n->replicas[j];
    }
    if (target && candidate == me && now - target->orphaned_time > REPLICA_MIGRATION_DELAY) {
        serverLog(LL_WARNING, "Migrating to orphaned master %.40s", target->name);
        setMyPrimary(target);
    }
}

/* A primary's vote for sender, a replica asking in an election. */
static void maybeVote(const clusterBusMsg *m, clusterNode *sender) {
    clusterNode *me = cstate->myself;
    if (isReplica(me) || me->numslots == 0) return;
    if (m->current_epoch < cstate->current_epoch) return;
    if (cstate->last_vote_epoch == cstate->current_epoch) return;
    clusterNode *primary = sender->replicaof;
    int force = (m->mflags[0] & CLUSTERBUS_MFLAG0_FORCEACK) != 0;
    if (!isReplica(sender) || primary == NULL || (!isFailed(primary) && !force)) return;
    long long now = mstime();
    if (now - primary->voted_time < server.cluster_node_timeout * 2) return;
    for (int j = 0; j < CLUSTER_SLOTS; j++) {
        if (!((m->myslots[j >> 3] >> (j & 7)) & 1)) continue;
        clusterNode *owner = cstate->slots[j];
        if (owner && owner->config_epoch > m->config_epoch) {
            serverLog(LL_WARNING,
                      "Failover auth denied to %.40s: slot %d epoch (%llu) > reqEpoch (%llu)", sender->name, j,
                      (unsigned long long)owner->config_epoch, (unsigned long long)m->config_epoch);
            return;
        }
    }
    cstate->last_vote_epoch = cstate->current_epoch;
    primary->voted_time = now;
    doBeforeSleep(CLUSTER_TODO_SAVE_CONFIG | CLUSTER_TODO_FSYNC_CONFIG);
    busSendEmpty(sender, CLUSTERBUS_FAILOVER_AUTH_ACK, 0);
    serverLog(LL_WARNING, "Failover auth granted to %.40s for epoch %llu", sender->name,
              (unsigned long long)cstate->current_epoch);
}

void failoverMessage(const clusterBusMsg *m, clusterNode *sender) {
    if (sender == NULL) return;
    if (m->type == CLUSTERBUS_FAILOVER_AUTH_REQUEST) {
        maybeVote(m, sender);
    } else if (m->type == CLUSTERBUS_FAILOVER_AUTH_ACK) {
        if (isMaster(sender) && sender->numslots > 0 && m->current_epoch >= cstate->failover_auth_epoch)
            cstate->failover_auth_count++;
    }
    if (m->type == CLUSTERBUS_MFSTART) {
        if (!isMaster(cstate->myself) || sender->replicaof != cstate->myself) return;
        resetManualFailover();
        mf_end = mstime() + MF_TIMEOUT;
        memcpy(mf_replica, sender->name, CLUSTER_NAMELEN);
        clientsPauseWrites(mstime() + MF_TIMEOUT * MF_PAUSE_MULT);
        serverLog(LL_WARNING, "Manual failover requested by replica %.40s.", sender->name);
        busPing(sender);
    }
}

/* CLUSTER FAILOVER [FORCE|TAKEOVER]. */
void clusterFailoverCommand(client *c) {
    int force = 0, takeover = 0;
    if (c->argc == 3) {
        if (!strcasecmp(c->argv[2]->ptr, "force")) force = 1;
        else if (!strcasecmp(c->argv[2]->ptr, "takeover")) takeover = 1;
        else {
            addReplyErrorObject(c, shared.syntaxerr);
            return;
        }
    }
    clusterNode *me = cstate->myself;
    if (isMaster(me)) {
        addReplyError(c, "You should send CLUSTER FAILOVER to a replica");
        return;
    }
    if (me->replicaof == NULL) {
        addReplyError(c, "I'm a replica but my master is unknown to me");
        return;
    }
    if (!force && !takeover && (isFailed(me->replicaof) || me->replicaof->link == NULL)) {
        addReplyError(c, "Master is down or failed, please use CLUSTER FAILOVER FORCE");
        return;
    }
    if (takeover) {
        /* no agreement asked: a new epoch of my own, as Redis's TAKEOVER */
        serverLog(LL_WARNING, "Taking over the master (user request).");
        cstate->current_epoch++;
        cstate->failover_auth_epoch = cstate->current_epoch;
        becomePrimary();
    } else if (force) {
        serverLog(LL_WARNING, "Forced failover user request accepted.");
        resetManualFailover();
        mf_end = mstime() + MF_TIMEOUT;
        manual_failover = 1;
        cstate->failover_auth_time = 0;
    } else {
        serverLog(LL_WARNING, "Manual failover user request accepted.");
        resetManualFailover();
        mf_end = mstime() + MF_TIMEOUT;
        busSendEmpty(me->replicaof, CLUSTERBUS_MFSTART, 0);
    }
    addReply(c, shared.ok);
}
