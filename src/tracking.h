/* tracking.h -- client-side caching (CLIENT TRACKING): the interface the
 * rest of the server uses. See tracking.c for the design. */
#ifndef REDIS_TRACKING_H
#define REDIS_TRACKING_H

#include "server.h"

/* Tracking options and per-client state bits (trackingFlags()). */
#define TRACKING_ON (1u << 0)
#define TRACKING_BCAST (1u << 1)
#define TRACKING_OPTIN (1u << 2)
#define TRACKING_OPTOUT (1u << 3)
#define TRACKING_CACHING (1u << 4)      /* CLIENT CACHING given for the next command */
#define TRACKING_NOLOOP (1u << 5)
#define TRACKING_BROKEN_REDIR (1u << 6) /* the redirect client went away */

void trackingInit(void);

/* CLIENT TRACKING / CACHING / GETREDIR / TRACKINGINFO (client_cmd.c parses). */
int trackingCheckPrefixes(client *c, robj **prefixes, size_t count);
void trackingEnable(client *c, client *redirect, uint64_t redirect_id, unsigned options, robj **prefixes,
                    size_t count);
void trackingDisable(client *c);
unsigned trackingFlags(client *c);      /* 0 when tracking is off */
long long trackingRedirectId(client *c); /* -1 when off, 0 when not redirecting */
void trackingSetCaching(client *c);
void trackingReplyPrefixes(client *c);  /* the BCAST prefixes as an array */
size_t trackingClientMemory(client *c); /* counted in the client's memory */
void trackingCommandDone(client *c, redisCommand *cmd); /* resetClient(): CACHING lasts one command */

/* Called from the command path (the first three guarded by server.tracking_clients). */
void trackingRememberKeys(client *c);    /* call(): after a read-only command */
void trackingInvalidateKey(client *c, robj *key); /* signalModifiedKey() */
void trackingInvalidateKeysOnFlush(void);          /* FLUSHDB / FLUSHALL */
void trackingSendPendingInvalidations(void);       /* afterCommand(): after the reply */
void trackingBeforeSleep(void);                    /* pending, BCAST, table size limit */
void trackingClientFreed(client *c);               /* freeClient() */

/* INFO stats */
unsigned long long trackingTotalKeys(void);
unsigned long long trackingTotalItems(void);
unsigned long long trackingTotalPrefixes(void);

#endif /* REDIS_TRACKING_H */
