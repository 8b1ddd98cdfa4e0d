/* client_eviction.h -- `maxmemory-clients` and the running total of client
 * memory: the interface the rest of the server uses. See client_eviction.c
 * for the design. */
#ifndef REDIS_CLIENT_EVICTION_H
#define REDIS_CLIENT_EVICTION_H

#include "server.h"

void clientEvictionClientFreed(client *c); /* freeClient() */

/* What CLIENT LIST shows as tot-mem for c. */
size_t clientTotalMemory(client *c);
size_t clientStateMemory(client *c); /* MULTI, subscriptions, tracking prefixes */

/* Whether maxmemory-clients is set at all (a size, or a percentage even of
 * maxmemory 0): only then is the running total kept per event. */
static inline int clientEvictionConfigured(void) {
    return server.maxmemory_clients != 0 || server.maxmemory_clients_perc != 0;
}

/* O(1): call after c's buffers or argv changed (read, write, new reply
 * block, command done, cron resize). Nothing without maxmemory-clients. */
void clientMemoryUpdate(client *c);
static inline void clientMemoryChanged(client *c) {
    if (clientEvictionConfigured()) clientMemoryUpdate(c);
}

/* INFO's mem_clients_normal: the running total, brought up to date first
 * when it is not kept per event. */
size_t clientsMemoryTotal(void);

/* Disconnects the largest evictable clients while the total is at or over
 * the limit. Cheap when under the limit, nothing without a limit. */
void evictClientsOverLimit(client *caller);
static inline void evictClientsIfNeeded(client *caller) { /* caller: the client whose read/command is running, or NULL */
    if (clientEvictionConfigured()) evictClientsOverLimit(caller);
}
void clientEvictionCron(void);
void clientEvictionRecheck(void); /* a client became evictable (NO-EVICT off) */
unsigned long long clientEvictionLimit(void);

/* The maxmemory-clients directive (config.c's special entry). */
int clientEvictionSetConfig(sds *argv, int argc, int accumulate, sds *err);
sds clientEvictionGetConfig(sds out);

#endif
