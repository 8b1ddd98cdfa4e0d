/* cli_cluster_int.h -- what the files of redis-cli --cluster share: the
 * options, the picture of the cluster (ccNodes) and the helpers that read
 * and print it (cli_cluster.c), the subcommands that change it
 * (cli_cluster_create.c, cli_cluster_move.c).
 */
#ifndef CLI_CLUSTER_INT_H
#define CLI_CLUSTER_INT_H

#include "cli_cluster.h"
#include "cli_common.h"

#define CC_SLOTS 16384

/* ccOpts.flags */
#define CC_FLAG_FIX (1 << 0)
#define CC_FLAG_SLAVE (1 << 1)
#define CC_FLAG_YES (1 << 2)
#define CC_FLAG_EMPTYMASTER (1 << 4)
#define CC_FLAG_SIMULATE (1 << 5)
#define CC_FLAG_REPLACE (1 << 6)
#define CC_FLAG_COPY (1 << 7)
#define CC_FLAG_CHECK_OWNERS (1 << 9)
#define CC_FLAG_FIX_WITH_UNREACHABLE (1 << 10)
#define CC_FLAG_MASTERS_ONLY (1 << 11)
#define CC_FLAG_SLAVES_ONLY (1 << 12)
#define CC_FLAG_FROM_ASKPASS (1 << 13)

/* ccNode.flags */
#define CC_NODE_MYSELF (1 << 0)
#define CC_NODE_SLAVE (1 << 1)
#define CC_NODE_FRIEND (1 << 2)
#define CC_NODE_NOADDR (1 << 3)
#define CC_NODE_DISCONNECT (1 << 4)
#define CC_NODE_FAIL (1 << 5)

enum { CC_LOG_INFO, CC_LOG_WARN, CC_LOG_ERR, CC_LOG_OK };

typedef struct ccOptions {
    int flags;
    int replicas;
    const char *master_id;
    const char *from, *to;
    const char *from_user, *from_pass;
    char **weight;
    int weight_argc;
    int slots;
    int timeout;   /* ms, MIGRATE's; 0: the default */
    int pipeline;  /* keys per MIGRATE; 0: the default */
    float threshold;
} ccOptions;

typedef struct ccNode {
    sds ip;
    int port, bus_port;
    sds name;
    sds replicate;      /* the master's id, for a replica */
    sds flags_str;      /* CLUSTER NODES flags without "myself" */
    int flags;          /* CC_NODE_* */
    unsigned char slots[CC_SLOTS];
    int slots_count;
    int replicas_count;
    sds *migrating;     /* pairs: slot, destination id */
    int migrating_count;
    sds *importing;     /* pairs: slot, source id */
    int importing_count;
    long long current_epoch;
    int dirty;          /* slots or master to send (create) */
    float weight;
    int balance;
    rcConn *conn;
    struct ccNode **friends;
    int friend_count;
} ccNode;

extern ccOptions ccOpts;
extern ccNode **ccNodes;
extern int ccNodeCount;
extern int ccUnreachableMasters;
extern int ccErrorCount; /* problems ccCheckCluster reported */

void ccLog(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ccPrintReplyError(const ccNode *n, const char *err);
void ccOnError(const char *err);
ccNode *ccNewNode(const char *ip, int port);
void ccFreeNode(ccNode *n);
void ccAddNode(ccNode *n);
void ccFreeAll(void);
int ccCheckReply(const ccNode *n, const rcReply *r, sds *err);
int ccConnect(ccNode *n);
rcReply *ccCommandArgv(ccNode *n, int argc, const char **argv);
/* MIGRATE's AUTH/AUTH2 arguments for the tool's -a/--user, appended at
 * argv[argc] (up to 3); the new argc. */
int ccMigrateAuthArgs(const char **argv, int argc);
rcReply *ccCommand(ccNode *n, const char *arg0, ...) __attribute__((sentinel));
int ccParseAddress(char *addr, char **ip, int *port, int *bus_port);
int ccHostFromArgs(int argc, char **argv, char **ip, int *port);
int ccNodeIsCluster(ccNode *n, sds *err);
int ccNodeIsEmpty(ccNode *n, sds *err);
void ccPrintNotClusterError(const ccNode *n, const char *err);
void ccPrintNotEmptyError(const ccNode *n, const char *err);
int ccNodeLoadInfo(ccNode *n, int getfriends, sds *err);
int ccLoadInfoFromNode(ccNode *n);
ccNode *ccNodeByName(const char *name);
ccNode *ccNodeByAbbreviatedName(const char *name);
ccNode *ccNodeWithLeastReplicas(void);
sds ccSlotsString(const unsigned char *slots);
sds ccNodeDescription(const ccNode *n, int indent);
void ccShowNodes(void);
int ccIsConfigConsistent(void);
long long ccCountKeysInSlot(ccNode *n, int slot);
int ccCheckCluster(int quiet);
int ccInvalidHost(void);
int ccConfirm(const char *msg, int ignore_yes);
void ccWaitForClusterJoin(void);

/* cli_cluster_create.c */
int ccCmdCreate(int argc, char **argv);
int ccCmdAddNode(int argc, char **argv);
/* cli_cluster_move.c */
#define CC_MOVE_VERBOSE 1 /* a dot per key */
#define CC_MOVE_COLD 2    /* keys only: no SETSLOT before or after */
#define CC_MOVE_UPDATE 4  /* the picture (ccNode.slots) follows */
#define CC_MOVE_QUIET 8   /* no "Moving slot ..." line */
int ccMigrateKeysInSlot(ccNode *src, ccNode *dst, int slot, int verbose, sds *err);
int ccMoveSlot(ccNode *src, ccNode *dst, int slot, int opts, sds *err);
/* CLUSTER SETSLOT slot state other-id on `on`; errors to *err or printed. */
int ccSetSlot(ccNode *on, const ccNode *other, int slot, const char *state, sds *err);
/* The node serving `slot` in n's CLUSTER SLOTS; NULL and *err NULL: none. */
ccNode *ccSlotOwner(ccNode *n, int slot, sds *err);
int ccCmdReshard(int argc, char **argv);
int ccCmdRebalance(int argc, char **argv);
int ccCmdImport(int argc, char **argv);
int ccCmdBackup(int argc, char **argv);
int ccFixOpenSlot(int slot);
int ccFixSlotsCoverage(unsigned char *all);
int ccFixMultipleOwners(int slot, ccNode **owners, int count);

#endif
