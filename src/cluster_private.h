/* cluster_private.h -- the cluster state shared by cluster.c (node table,
 * nodes.conf, commands) and cluster_bus.c (links, gossip, failure
 * detection): private to those files, the rest of the server sees cluster.h.
 */
#ifndef CLUSTER_PRIVATE_H
#define CLUSTER_PRIVATE_H

#include "clusterbus.h"

#define CLUSTER_NAMELEN 40
#define CLUSTER_PORT_INCR 10000
#define CLUSTER_WRITABLE_DELAY 2000 /* ms a restarted primary waits before saying ok, as Redis */
#define NET_IP_STR_LEN 46
#define NET_HOST_STR_LEN 256

/* Node flags: the bit values are the wire's (header and gossip flags, as
 * Redis 7.0 sends them); nodes.conf names them in node_flag_names' order. */
#define NODE_MASTER (1 << 0)
#define NODE_SLAVE (1 << 1)
#define NODE_PFAIL (1 << 2)
#define NODE_FAIL (1 << 3)
#define NODE_MYSELF (1 << 4)
#define NODE_HANDSHAKE (1 << 5)
#define NODE_NOADDR (1 << 6)
#define NODE_MEET (1 << 7)       /* send MEET, not PING, on the next connection (not in nodes.conf) */
#define NODE_MIGRATE_TO (1 << 8)
#define NODE_NOFAILOVER (1 << 9)

enum { ENDPOINT_IP = 0, ENDPOINT_HOSTNAME = 1, ENDPOINT_UNKNOWN = 2 };

typedef struct clusterNode {
    char name[CLUSTER_NAMELEN];
    int flags;
    uint64_t config_epoch;
    unsigned char slots[CLUSTER_SLOTS / 8];
    int numslots;
    struct clusterNode *replicaof;
    struct clusterNode **replicas;
    int numreplicas;
    long long ping_sent, pong_received;
    long long data_received; /* the last message of any type from it (cluster_bus.c) */
    char ip[NET_IP_STR_LEN];
    sds hostname;
    int port, pport, cport;
    long long repl_offset;
    long long ctime;
    listNode *order; /* its place in cstate->order */
    /* cluster_bus.c's */
    struct clusterLink *link;         /* ours to it (outbound) */
    struct clusterLink *inbound_link; /* its to us, once it said who it is */
    list *fail_reports;               /* clusterFailReport: primaries that see it failing */
    long long fail_time;              /* when it was marked FAIL */
    long long voted_time;             /* when we last voted for one of its replicas */
    long long orphaned_time;          /* since when it has been a primary with no working replica (0: not) */
} clusterNode;

typedef struct clusterState {
    clusterNode *myself;
    uint64_t current_epoch, last_vote_epoch;
    dict *nodes;  /* name (sds) -> clusterNode */
    list *order;  /* the nodes in creation order */
    clusterNode *slots[CLUSTER_SLOTS];
    clusterNode *migrating_to[CLUSTER_SLOTS];
    clusterNode *importing_from[CLUSTER_SLOTS];
    int ok;       /* cluster_state:ok */
    int size;     /* primaries serving at least one slot */
    int todo;     /* CLUSTER_TODO_* for clusterBeforeSleep */
    long long first_update_ms;
    int lock_fd;
    int cfd[CONFIG_BINDADDR_MAX];
    int cfd_count;
    int bus_port; /* the port cfd listen on (0 until they do) */
    /* cluster_bus.c's */
    long long stats_sent[CLUSTERBUS_TYPE_COUNT], stats_received[CLUSTERBUS_TYPE_COUNT];
    long long failover_auth_time;  /* when this replica's election starts or started (0: none) */
    int failover_auth_count;       /* votes received */
    int failover_auth_sent;        /* the request went out */
    uint64_t failover_auth_epoch;  /* the epoch of the election */
    int failover_auth_rank;
    long long last_log_drop_ms;    /* the last "dropped a message" log line */
    unsigned long long links_buffer_limit_exceeded; /* links freed by cluster-link-sendbuf-limit */
} clusterState;

#define CLUSTER_TODO_UPDATE_STATE (1 << 0)
#define CLUSTER_TODO_SAVE_CONFIG (1 << 1)
#define CLUSTER_TODO_FSYNC_CONFIG (1 << 2)


extern clusterState *cstate; /* NULL unless cluster-enabled */
extern int cluster_module_flags; /* CLUSTER_MODULE_* (cluster.h), set by modules */

static inline int isMaster(const clusterNode *n) { return (n->flags & NODE_MASTER) != 0; }
static inline int isReplica(const clusterNode *n) { return (n->flags & NODE_SLAVE) != 0; }
static inline int isFailed(const clusterNode *n) { return (n->flags & NODE_FAIL) != 0; }
static inline int slotBit(const clusterNode *n, int slot) { return (n->slots[slot >> 3] >> (slot & 7)) & 1; }

/* cluster.c */
void randomNodeName(char *name);
long long myselfOffset(void); /* the offset announced: a replica's is 0 while it loads a full sync */
int validNodeName(const char *s, size_t len);
clusterNode *createNode(const char *name, int flags);
void addNode(clusterNode *n);
clusterNode *lookupNode(const char *name, size_t len);
void renameNode(clusterNode *n, const char *name);
void freeNode(clusterNode *n);
int addSlot(clusterNode *n, int slot);
int delSlot(int slot);
void setReplicaOf(clusterNode *n, clusterNode *master);
void setMyPrimary(clusterNode *n);   /* myself becomes a replica of n */
void setNodeAsPrimary(clusterNode *n);
uint64_t maxConfigEpoch(void);
sds nodeDescription(const clusterNode *n, const client *c); /* c: the asking client (its port view), or NULL */
void doBeforeSleep(int flags);
void updateState(void);
uint64_t nodeEpoch(const clusterNode *n); /* a replica's is its primary's */
/* A module message's destination: *to the node id names (NULL: every
 * node), 0; -1 when id names no node we have a link to. */
int clusterModuleTarget(const char *id, clusterNode **to);

/* cluster_bus.c */
void busAccept(aeEventLoop *el, int fd, void *privdata, int mask);
void busCron(void);
void busNodeFreed(clusterNode *n);     /* links, failure reports about or from n */
int busNodeConnected(const clusterNode *n);
void busStartHandshake(const char *ip, int port, int cport);
void busForget(const char *name);     /* CLUSTER FORGET: not re-learnt from gossip for 60 s */
void busLinksReply(struct client *c);
int busFailureReports(clusterNode *n);
sds busInfoStats(sds info);
void busBroadcastPong(void);
void busPing(clusterNode *n);          /* a PING with gossip on n's link */
void busSendEmpty(clusterNode *to, int type, int mflags0); /* to NULL: every node */

/* cluster_slotindex.c: db 0's keys by slot (fingerprints, no pointers into the keyspace) */
typedef void slotIndexKeyFn(void *privdata, kvobj *o);
void slotIndexAdd(int slot, const char *key, size_t len);
void slotIndexRemove(int slot, const char *key, size_t len);
void slotIndexClear(void);
void slotIndexFree(void *index);
void slotIndexExchange(void **other);
unsigned long slotIndexCount(int slot);
size_t slotIndexBytes(void);
unsigned long slotIndexForEach(int slot, unsigned long max, slotIndexKeyFn *fn, void *privdata);
unsigned long delKeysInSlot(int slot); /* cluster.c */

/* cluster_failover.c */
void failoverMessage(const clusterBusMsg *m, clusterNode *sender); /* AUTH_REQUEST, AUTH_ACK, MFSTART */
void failoverCron(void);
void migrationCron(void);    /* replica migration to an orphaned primary */
int failoverPaused(void);   /* a primary paused for its replica's manual failover: PINGs say PAUSED */
void failoverHeartbeat(const clusterBusMsg *m, clusterNode *sender);
void clusterFailoverCommand(struct client *c); /* CLUSTER FAILOVER [FORCE|TAKEOVER] */

#endif /* CLUSTER_PRIVATE_H */
