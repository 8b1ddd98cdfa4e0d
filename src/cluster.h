/* cluster.h -- cluster mode (cluster.c): what the rest of the server calls.
 *
 * Every function is a no-op (or answers "not in cluster mode") unless
 * cluster-enabled is yes, so callers need no checks of their own.
 */
#ifndef CLUSTER_H
#define CLUSTER_H

#include "crc16.h"

struct client;

void clusterInit(void);                 /* start-up, after the listeners: nodes.conf, the bus port */
void clusterCron(void);                 /* serverCron, once per call */
void clusterBeforeSleep(void);          /* saves nodes.conf / updates the state when a change asked for it */
/* processCommand: 1 when the command was refused with a redirection or a
 * -CROSSSLOT/-TRYAGAIN/-CLUSTERDOWN error (already replied), else 0. */
int clusterRedirectIfNeeded(struct client *c);
sds clusterInfoSection(sds info);       /* INFO's "# Cluster" body */
/* The per-slot key counts of db 0, kept by db.c. */
void clusterKeyAdded(int dbid, const char *key, size_t len);
void clusterKeyRemoved(int dbid, const char *key, size_t len);
void clusterKeysFlushed(int dbid);      /* db's keyspace emptied */
void clusterKeysRecount(void);          /* db 0's table was swapped for another one */
void clusterKeysExchange(void **index); /* the slot index in use and *index change places */
void clusterKeysIndexFree(void *index); /* an index set aside by clusterKeysExchange */
struct redisCommand;
/* script.c, before a script's redis.call runs on fake: the refusal (cluster
 * down, a key not served here, a second slot) or NULL. */
sds clusterScriptRefusal(struct client *fake, struct client *caller, int allow_cross_slot);
void clusterCommandDone(struct client *c, struct redisCommand *cmd); /* resetClient: ASKING lasts one command */
/* RM_Call: may the module client's command run here? (caller: the client
 * the module runs for, or NULL) */
enum { CLUSTER_CALL_OK, CLUSTER_CALL_DOWN, CLUSTER_CALL_DOWN_RO, CLUSTER_CALL_NOT_LOCAL };
int clusterModuleCallRefusal(struct client *fake, struct client *caller);

struct redisObject;
/* PUBLISH / SPUBLISH: the message to the other nodes over the bus. */
void clusterPropagatePublish(struct redisObject *channel, struct redisObject *message, int sharded);

/* A primary paused for its replica's manual failover: no replication PINGs. */
int clusterManualFailoverPaused(void);
/* This node is a replica by the cluster's view (nodes.conf, CLUSTER
 * REPLICATE, a failover), before its replication link is even set up. */
int clusterMyselfIsReplica(void);
void clusterSetDropPacketFilter(long type); /* DEBUG DROP-CLUSTER-PACKET-FILTER (-1: none) */
void clusterDebugKillLink(struct client *c, struct redisObject *dir, struct redisObject *name); /* DEBUG CLUSTERLINK KILL */
size_t clusterLinksMemory(void);       /* INFO memory's mem_cluster_links (0 unless cluster-enabled) */

/* The module cluster API (module_cluster.c). Node ids are CLUSTER's 40
 * characters; flags and values are redismodule.h's (REDISMODULE_NODE_*,
 * REDISMODULE_CLUSTER_FLAG_*). Not in cluster mode: NULL, 0 or -1. */
#define CLUSTER_MODULE_NO_FAILOVER (1 << 1)    /* replicas neither fail over nor migrate */
#define CLUSTER_MODULE_NO_REDIRECTION (1 << 2) /* every key is served here; slot changes delete nothing */
const char *clusterMyId(void);
size_t clusterNodeCount(void);          /* every node known, handshakes included */
char **clusterNodeIds(size_t *count);   /* NUL-terminated ids (no handshake, no address-less node), NULL-ended */
/* ip: 46 bytes, master_id: 40 bytes; any may be NULL. -1: no such node. */
int clusterNodeInfo(const char *id, char *ip, char *master_id, int *port, int *flags);
void clusterSetModuleFlags(int flags);  /* ORed in, as Redis 7.0 does: never cleared */
/* A module's message to one node (id) or, id NULL, to every node we have
 * a link to: -1 when not in cluster mode, the node is unknown or unlinked. */
int clusterSendModuleMessage(const char *id, uint64_t module_id, uint8_t type, const void *payload, uint32_t len);

#endif /* CLUSTER_H */
