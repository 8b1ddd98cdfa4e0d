/* bench_cluster.h -- redis-benchmark --cluster: the primaries of a cluster
 * (from one node's CLUSTER NODES) and, for each, a hash tag whose keys live
 * in one of its slots, so every client can send its keys to the primary it
 * is connected to without redirections.
 */
#ifndef BENCH_CLUSTER_H
#define BENCH_CLUSTER_H

#include "rclient.h"
#include "sds.h"

typedef struct benchMaster {
    sds ip;
    int port;
    sds name;
    int first_slot;   /* the first slot CLUSTER NODES lists for it */
    char tag[3];      /* three bytes whose CRC16 slot is first_slot */
    sds save, appendonly; /* CONFIG GET, for the report; NULL when not known */
} benchMaster;

/* The primaries with slots, in CLUSTER NODES order, from the reply text.
 * Primaries without slots are skipped with Redis's warning on stderr.
 * Returns the count (masters allocated), or -1 with a message in *err. */
int benchClusterParse(const char *nodes, size_t len, benchMaster **masters, sds *err);
void benchClusterFree(benchMaster *masters, int count);

#define BENCH_CLUSTER_SLOTS 16384

/* A CLUSTER SLOTS reply: each primary it names gets the first slot of its
 * first range (and that slot's tag). 0, or -1 with Redis's message in *err
 * (nothing changed). */
int benchClusterApplySlots(benchMaster *masters, int count, const rcReply *slots, sds *err);

/* What an error reply means for a --cluster run: a moved slot (-MOVED,
 * -ASK), a cluster that is down (-CLUSTERDOWN), or neither. */
enum { BENCH_REDIRECT_NONE, BENCH_REDIRECT_MOVED, BENCH_REDIRECT_DOWN };
int benchClusterRedirect(const char *err);

#endif
