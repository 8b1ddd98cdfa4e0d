/* replication.h -- what replication.c (the primary side) and replica.c (the
 * replica side) share, and nothing else includes.
 *
 * One replication history per server, as PSYNC2 has it: an id (replid), the
 * offset of the last byte of the stream (master_repl_offset), and the id the
 * history had before (replid2) up to second_repl_offset. A primary feeds the
 * stream from propagation; a replica feeds the very bytes its primary sent
 * (replicationFeedRaw), so its offset is its primary's and its own
 * replicas, and whoever is promoted, can continue with partial syncs.
 */
#ifndef REDIS_REPLICATION_H
#define REDIS_REPLICATION_H

#include "server.h"

/* a replica client's state on the primary */
#define REPLICA_WAIT_BGSAVE_START 1 /* waiting for a snapshot child to start */
#define REPLICA_WAIT_BGSAVE_END 2   /* the child is writing its snapshot to the socket */
#define REPLICA_ONLINE 3            /* fed the stream */

typedef struct replClient {
    /* a replica of ours (CLIENT_SLAVE) */
    int state;                /* REPLICA_* */
    int old_sync;             /* SYNC, not PSYNC: no +FULLRESYNC line, $len framing */
    int capa_eof, capa_psync2;
    int rdb_only;             /* REPLCONF rdb-only 1 (redis-cli --rdb): closed once the snapshot is sent */
    int skip_data, skip_functions; /* REPLCONF rdb-filter-only: what its snapshot leaves out */
    int listening_port;
    char announced_ip[NET_IP_STR_LEN];
    sds pending;              /* the stream after the snapshot, while it is being sent */
    long long ack_off, ack_ms;
    int batch_index;          /* position in the snapshot child's batch */
    int attached;             /* came while a disk-based sync ran: shares its file, sent by the main thread */
    int wait_first_ack;       /* online after an $EOF: transfer: the stream waits for its first ACK */
    struct replRelay *relay;  /* a TLS replica's snapshot, relayed from the child's pipe; NULL */
    long long woff;           /* the stream's offset after this client's last command that fed it (WAIT) */
    /* a client blocked in WAIT */
    int waiting;
    long long wait_off, wait_deadline_ms;
    long wait_replicas;
} replClient;

replClient *replClientOf(client *c); /* creates it on first use */
const char *replicaName(client *c);  /* "ip:listening-port", for log lines */
#define REPL_MAX_BATCH 64            /* replicas served by one snapshot child */
void replicationNoteRdbBytes(ssize_t n); /* a diskless snapshot's bytes written to a replica */

/* repl_rdbpipe.c: a diskless sync's snapshot, from the child's pipe to the
 * replicas of its batch by the parent */
int rdbPipeOpen(client **batch, int n); /* before fork(): C_ERR when no pipe */
int rdbPipeChildBegin(void);         /* in the child: the fd to write the framed snapshot to */
void rdbPipeChildEnd(void);          /* in the child: written; returns when the parent has read it all */
void rdbPipeParentBegin(void);       /* in the parent, the fork done: the pipe is read from now on */
void rdbPipeClose(void);             /* the child is gone (or the fork failed) */
int rdbPipeActive(void);
void rdbPipeReplicaGone(client *c);  /* a replica of the batch is freed */
void rdbPipeDropTimedOut(void);      /* replicationCron: repl-timeout on a replica that stopped reading */
void replicationFeedRaw(const char *buf, size_t len); /* bytes to the backlog and every replica */
void replicationSetHistory(const char *replid, long long offset); /* a full sync: the primary's id and offset */
void replicationContinueWithId(const char *replid); /* +CONTINUE with a new id: the old one becomes replid2 */
void replicationShiftId(void);       /* promoted: a new id, the old one kept as replid2 */
int replicationLaggingReplicas(int log); /* shutdown-timeout: replicas behind the stream's end */
void replicationRequestAcks(void);       /* REPLCONF GETACK * to every replica */
void replicationDropReplicas(void);  /* we follow a new primary: our replicas must sync again */
void replicationDisconnectBlocked(void); /* we follow a primary: blocked clients get -UNBLOCKED and go */
void replicationCreateBacklogIfNone(void);
void replicationResizeBacklog(void); /* CONFIG SET repl-backlog-size: the ring at the new size */
#define REPL_BACKLOG_MIN_SIZE (16 * 1024) /* CONFIG SET repl-backlog-size below it takes it */
void replicationNoteStreamDb(int dbid); /* the db the stream's last SELECT chose (-1: force one) */
int replicationPrimaryOnline(void);  /* replicas online count */

/* replica.c, called by replication.c */
void replicaCron(void);
sds replicaInfoString(sds info);
void replicaRoleReply(client *c);
int replicaLinkUp(void);
long long replicaDataAgeMs(void); /* cluster-replica-validity-factor's data age */
long long replicaProcessedOffset(void); /* the cluster's view of a replica's offset: 0 while it has no history */
void replicaResumeStream(void); /* a busy script ended: run the primary's stream read meanwhile */
void replicaInit(void);
void replicaClusterFollow(const char *host, int port); /* cluster.c: NULL host = primary again */
void replicaMasterFreed(client *c); /* the primary's link is gone */
void replicaSendAck(void);
void replicaFailoverTo(const char *host, int port); /* FAILOVER: follow the target with PSYNC ... FAILOVER */
void replicaFailoverRevert(void);    /* FAILOVER aborted while following the target: primary again */
void replicaPromoteForFailover(void); /* PSYNC ... FAILOVER from our primary: we take over */
void replicationFailoverDone(void);  /* the target accepted our PSYNC */
void replicationFailoverFailed(void); /* the link to the target failed */
int replicationFailoverInProgress(void);
extern long long replicationNetInputBytes;          /* REPLCONF ACK <offset> to the primary */

#endif
