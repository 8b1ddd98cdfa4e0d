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
 * unix socket, kept as the liveness channel), the segment and both eventfds
 * (server_efd: the client signals it; client_efd: we signal the client).
 * NULL (errno set) when the events can't be registered -- nothing is
 * taken then. */
connection *connCreateShm(aeEventLoop *el, int sockfd, shmringSegment *seg, int server_efd, int client_efd);
int connIsShm(const connection *conn);
/* Live shm connections (for shm-max-clients). */
int connShmCount(void);
/* Called once per protocol violation (a bad index, bytes on the control
 * socket, a truncated segment) before the connection reports the error. */
typedef void connShmViolationReporter(connection *conn, const char *why);
void connShmSetViolationReporter(connShmViolationReporter *fn);

#endif /* REDIS_CONNECTION_SHM_H */
