/* connection_shm.h -- the shared-memory transport as a ConnectionType (the
 * server's side; the client's is src/tools/rclient_shm.c). The protocol
 * and the handshake are described in connection_shm.c and shmring.h.
 */
#ifndef REDIS_CONNECTION_SHM_H
#define REDIS_CONNECTION_SHM_H

#include "connection.h"
#include "shmring.h"

extern const ConnectionType CT_Shm;

/* A connected shm connection on loop el. Takes ownership of sockfd (the
 * unix socket, kept as the liveness channel), the segment and wake_fd, our
 * end of the wake-up socketpair (shmringWakePair; the client has the other
 * end: it signals us through it and we signal it). NULL (errno set) when
 * the events can't be registered -- nothing is taken then. */
connection *connCreateShm(aeEventLoop *el, int sockfd, shmringSegment *seg, int wake_fd);
int connIsShm(const connection *conn);
/* The client has the segment's descriptor now: we keep only the mapping
 * (a sealed segment needs no descriptor of ours), so a connection holds
 * two descriptors, the socket and the wake-up end. */
void connShmSegmentPassed(connection *conn);
/* Live shm connections (for shm-max-clients). */
int connShmCount(void);
/* Called once per protocol violation (a bad index, bytes on the control
 * socket, a truncated segment) before the connection reports the error. */
typedef void connShmViolationReporter(connection *conn, const char *why);
void connShmSetViolationReporter(connShmViolationReporter *fn);

/* The server's last step before its event loop sleeps: polls, for at most
 * cap_us microseconds (adaptive below that; 0: never), the request rings of
 * the connections that were served since the last call, and runs the event
 * handler of those that get a request. 1 when it ran any (their replies
 * are queued: the loop must not sleep), 0 when every polled ring is armed
 * for sleep again, and no self-wake is queued (connShmRunWakes). Idle
 * connections are never polled. */
int connShmSpin(unsigned cap_us);
/* Runs the handlers of the connections that asked to be run without a
 * signal from their client (a handler installed with work already there,
 * a write handler stopped early): connShmSpin does it first; a loop that
 * does not call connShmSpin (the passes that serve clients during a load
 * or a busy script) calls this. 1 when it ran
 * any. Those queued while it runs wait for the next call. */
int connShmRunWakes(void);

/* For INFO. */
typedef struct connShmStats {
    int connected;
    long long total_connections; /* upgrades accepted since start */
    long long violations;        /* connections closed for breaking the protocol */
    long long spin_hits;         /* spins that caught a request */
    long long spin_misses;       /* spins that ran their length for nothing */
    long long spin_time_us;      /* time spent polling */
    unsigned spin_budget_us;     /* the next spin's length */
} connShmStats;
void connShmGetStats(connShmStats *st);

#endif /* REDIS_CONNECTION_SHM_H */
