/* tls.h -- TLS for the server (tls.c): its configuration, the TLS
 * listeners, and the event-loop step for input OpenSSL has buffered.
 *
 * Built with BUILD_TLS=yes (USE_OPENSSL defined). Without it the functions
 * below still exist as no-ops, so server.c calls them unconditionally, and
 * the tls-* directives are not in the config table: config.c answers them
 * with "TLS support was not compiled in" (see unbuilt_directives there).
 *
 * The fields of tls_config are the tls-* directives of Redis 7.0, same names,
 * types and defaults; the config table (config.c) points at them and calls
 * tlsApplyConfig / tlsApplyPort after a change. */
#ifndef REDIS_TLS_H
#define REDIS_TLS_H

#include "connection.h"
#include "sds.h"

#define TLS_CLIENT_AUTH_NO 0
#define TLS_CLIENT_AUTH_YES 1
#define TLS_CLIENT_AUTH_OPTIONAL 2

typedef struct tlsConfig {
    int port;                    /* tls-port: 0 = no TLS listener */
    char *cert_file;             /* server certificate (chain), PEM */
    char *key_file;
    char *key_file_pass;
    char *client_cert_file;      /* for outgoing connections; default: cert_file */
    char *client_key_file;
    char *client_key_file_pass;
    char *dh_params_file;
    char *ca_cert_file;          /* CAs peers' certificates are checked against */
    char *ca_cert_dir;
    char *protocols;             /* "TLSv1.2 TLSv1.3" (NULL: those two) */
    char *ciphers;               /* TLSv1.2 and older (OpenSSL cipher list) */
    char *ciphersuites;          /* TLSv1.3 */
    int auth_clients;            /* TLS_CLIENT_AUTH_* */
    int prefer_server_ciphers;
    int session_caching;
    int session_cache_size;
    int session_cache_timeout;
    int cluster;                 /* tls-cluster: the cluster bus and MIGRATE speak TLS */
    int replication;             /* tls-replication: a replica connects over TLS */
} tlsConfig;

extern tlsConfig tls_config;

/* At start-up, after the plain listeners: builds the TLS context if tls-port
 * (or tls-replication / tls-cluster) asks for it and opens the TLS
 * listeners. C_ERR (logged) stops the server. */
int tlsInit(void);
int tlsIsListening(void);
void tlsCloseListeners(void);
void tlsCloseListenersInChild(void); /* a fork child: close(), nothing else */

/* Config apply functions (CONFIG SET, and once after the file is read):
 * rebuild the context from tls_config; on failure the running context
 * stays and *err says so. */
int tlsApplyConfig(sds *err);
int tlsApplyPort(sds *err);

/* An outgoing TLS connection for connConnect (a replica with
 * tls-replication yes, replica.c); it presents tls-client-cert-file (or
 * tls-cert-file) and checks the peer against tls-ca-cert-file/dir. Without
 * TLS built in: NULL (tls-replication can't be set there). */
connection *tlsCreateConnection(void);

/* An accepted socket as a TLS connection in the ACCEPTING state (for
 * connAccept), for the cluster bus; require_peer_cert: the peer must send a
 * certificate our CA signed, whatever tls-auth-clients says. Without TLS
 * built in: a plain socket connection (tls-cluster can't be set there). */
connection *tlsCreateAcceptedConnection(int cfd, int require_peer_cert);

/* MIGRATE's synchronous TLS client side (tls-cluster yes) on a connected
 * non-blocking socket. tlsSyncOpen does the handshake, waiting at most
 * `timeout` ms per step: the session, or NULL with errno set. Read/write
 * return what read(2)/write(2) do; -1 with errno EAGAIN sets *want to the
 * event (AE_READABLE / AE_WRITABLE) to wait for before calling again.
 * tlsSyncClose frees the session, not the socket. */
void *tlsSyncOpen(int fd, long timeout);
ssize_t tlsSyncRead(void *session, void *buf, size_t len, int *want);
ssize_t tlsSyncWrite(void *session, const void *buf, size_t len, int *want);
void tlsSyncClose(void *session);

/* beforeSleep(): run the read handler of connections whose input OpenSSL
 * holds already decrypted (the socket will not report it readable). */
int tlsProcessPendingData(void);
int tlsHasPendingData(void);

#endif /* REDIS_TLS_H */
