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

/* O(1): call after c's buffers or argv changed (read, write, new reply
 * block, command done, cron resize). */
void clientMemoryChanged(client *c);

/* Disconnects the largest evictable clients while the total is at or over
 * the limit. Cheap when under the limit. */
void evictClientsIfNeeded(client *caller); /* caller: the client whose read/command is running, or NULL */
void clientEvictionCron(void);
void clientEvictionRecheck(void); /* a client became evictable (NO-EVICT off) */
unsigned long long clientEvictionLimit(void);

/* The maxmemory-clients directive (config.c's special entry). */
int clientEvictionSetConfig(sds *argv, int argc, int accumulate, sds *err);
sds clientEvictionGetConfig(sds out);

#endif
