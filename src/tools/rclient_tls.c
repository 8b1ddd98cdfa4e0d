/* rclient_tls.c -- the client library's TLS transport (OpenSSL): what
 * redis-cli's and redis-benchmark's --tls, --sni, --cacert, --cacertdir,
 * --cert, --key and --insecure do (see rcTlsOptions in rclient.h).
 *
 * Design decisions:
 *  - A connection is made as usual (rcConnectTcp / rcConnectUnix), then
 *    rcTlsUpgrade() runs the handshake over its socket and installs the TLS
 *    rcTransport; everything above (blocking calls with timeouts, the
 *    benchmark's event loop) goes on through rcConnRead/rcConnWrite.
 *  - The socket stays non-blocking: the handshake waits with aeWait for the
 *    direction OpenSSL asks for, bounded by the connection's timeout, and
 *    read/write report EAGAIN with want_events saying which way to wait.
 *  - SSL_read is called until OpenSSL has nothing buffered before EAGAIN
 *    is reported (rclient's readers loop until EAGAIN anyway), so a caller
 *    that polls the fd afterwards never waits for bytes already decrypted.
 *  - One SSL_CTX per connection: the tools open few connections (the
 *    benchmark's -c of them at start) and each may differ in nothing, but a
 *    shared context would need a lifetime owner; the cost is loading the
 *    CA file once per connection.
 *  - Error texts are Redis 7.0 redis-cli's.
 * Without BUILD_TLS only rcTlsAvailable() = 0 and an upgrade that fails
 * with "TLS support was not compiled in" are built.
 */
#include "rclient.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ae.h"
#include "zmalloc.h"

#ifdef USE_OPENSSL

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

typedef struct rcTls {
    SSL_CTX *ctx;
    SSL *ssl;
    int setup_error; /* the failure was our options, not the handshake */
} rcTls;

int rcTlsAvailable(void) { return 1; }

static void tlsReason(char *buf, size_t len) {
    unsigned long code = ERR_peek_error();
    if (code) {
        const char *reason = ERR_reason_error_string(code);
        snprintf(buf, len, "%s", reason ? reason : "unknown error");
    } else {
        snprintf(buf, len, "%s", errno ? strerror(errno) : "unknown error");
    }
    ERR_clear_error();
}

/* A failed SSL call: EAGAIN with the direction to wait for, 0 for a clean
 * close, or -1 with errno set (EIO for a TLS error, whose reason goes to
 * the connection's errstr). */
static ssize_t tlsIoResult(rcConn *c, rcTls *t, int ret) {
    int err = SSL_get_error(t->ssl, ret);
    if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) {
        c->want_events = err == SSL_ERROR_WANT_READ ? AE_READABLE : AE_WRITABLE;
        errno = EAGAIN;
        return -1;
    }
    if (err == SSL_ERROR_ZERO_RETURN) return 0;
    if (err == SSL_ERROR_SYSCALL && errno) {
        ERR_clear_error();
        return -1;
    }
    if (err == SSL_ERROR_SYSCALL) { /* EOF without close_notify: the server went away */
        ERR_clear_error();
        return 0;
    }
    tlsReason(c->errstr, sizeof c->errstr);
    errno = EIO;
    return -1;
}

static ssize_t tlsRead(rcConn *c, void *buf, size_t len) {
    rcTls *t = c->transport_data;
    ERR_clear_error();
    int n = SSL_read(t->ssl, buf, len > INT32_MAX ? INT32_MAX : (int)len);
    if (n > 0) return n;
    /* 0 is also what OpenSSL returns after the server's fatal alert (no
     * client certificate while tls-auth-clients is yes ...): reported as
     * "Server closed the connection", as Redis's tool (hiredis) does. */
    if (n == 0) {
        ERR_clear_error();
        return 0;
    }
    return tlsIoResult(c, t, n);
}

static ssize_t tlsWrite(rcConn *c, const void *buf, size_t len) {
    rcTls *t = c->transport_data;
    if (len == 0) return 0;
    ERR_clear_error();
    int n = SSL_write(t->ssl, buf, len > INT32_MAX ? INT32_MAX : (int)len);
    if (n > 0) return n;
    ssize_t res = tlsIoResult(c, t, n);
    if (res == 0) {
        errno = EPIPE;
        res = -1;
    }
    return res;
}

static void tlsFree(rcConn *c) {
    rcTls *t = c->transport_data;
    if (t == NULL) return;
    if (t->ssl) SSL_free(t->ssl);
    if (t->ctx) SSL_CTX_free(t->ctx);
    zfree(t);
    c->transport_data = NULL;
}

static int tlsBuffered(rcConn *c) {
    rcTls *t = c->transport_data;
    return SSL_pending(t->ssl) > 0;
}

static const rcTransport tls_transport = {.read = tlsRead, .write = tlsWrite, .buffered = tlsBuffered, .free = tlsFree};

static int setupFailed(rcConn *c, rcTls *t, const char *why) {
    t->setup_error = 1;
    ERR_clear_error();
    c->err = RC_E_CONNECT;
    snprintf(c->errstr, sizeof c->errstr, "%s", why);
    return RC_ERR;
}

/* The context from the options: CAs, our certificate, verification. */
static int tlsSetupContext(rcConn *c, rcTls *t, const rcTlsOptions *o) {
    t->ctx = SSL_CTX_new(TLS_client_method());
    if (t->ctx == NULL) return setupFailed(c, t, "Failed to create SSL_CTX");
    SSL_CTX_set_options(t->ctx, SSL_OP_NO_SSLv2 | SSL_OP_NO_SSLv3);
    SSL_CTX_set_mode(t->ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    SSL_CTX_set_verify(t->ctx, o->insecure ? SSL_VERIFY_NONE : SSL_VERIFY_PEER, NULL);
    int ca_ok = (o->cacert || o->cacertdir) ? SSL_CTX_load_verify_locations(t->ctx, o->cacert, o->cacertdir)
                                            : SSL_CTX_set_default_verify_paths(t->ctx);
    if (ca_ok != 1) return setupFailed(c, t, "Invalid CA Certificate File/Directory");
    if (o->ciphers && !SSL_CTX_set_cipher_list(t->ctx, o->ciphers))
        return setupFailed(c, t, "Error while configuring ciphers");
    if (o->ciphersuites && !SSL_CTX_set_ciphersuites(t->ctx, o->ciphersuites))
        return setupFailed(c, t, "Error while setting cypher suites");
    if (o->cert && o->key) {
        if (SSL_CTX_use_certificate_chain_file(t->ctx, o->cert) != 1)
            return setupFailed(c, t, "Invalid client certificate");
        if (SSL_CTX_use_PrivateKey_file(t->ctx, o->key, SSL_FILETYPE_PEM) != 1)
            return setupFailed(c, t, "Invalid private key");
    }
    return RC_OK;
}

/* The server name: --sni, else the host when it is a name (an address
 * can't be sent as SNI). */
static void tlsSetServerName(rcConn *c, rcTls *t, const rcTlsOptions *o) {
    const char *name = o->sni;
    if (name == NULL && c->host && !strchr(c->host, ':')) {
        int all_digits = 1;
        for (const char *p = c->host; *p; p++)
            if (!(*p == '.' || (*p >= '0' && *p <= '9'))) all_digits = 0;
        if (!all_digits) name = c->host;
    }
    if (name) SSL_set_tlsext_host_name(t->ssl, name);
}

static int tlsHandshake(rcConn *c, rcTls *t) {
    long long wait_ms = c->timeout_ms > 0 ? c->timeout_ms : -1;
    for (;;) {
        ERR_clear_error();
        int ret = SSL_connect(t->ssl);
        if (ret == 1) return RC_OK;
        int err = SSL_get_error(t->ssl, ret);
        if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) {
            int ready = aeWait(c->fd, err == SSL_ERROR_WANT_READ ? AE_READABLE : AE_WRITABLE, wait_ms);
            if (ready == 0) {
                c->err = RC_E_TIMEOUT;
                snprintf(c->errstr, sizeof c->errstr, "Connection timed out");
                return RC_ERR;
            }
            if (ready > 0 || errno == EINTR) continue;
        }
        char reason[200];
        if (err == SSL_ERROR_SYSCALL && ERR_peek_error() == 0)
            snprintf(reason, sizeof reason, "%s", errno ? strerror(errno) : "Server closed the connection");
        else
            tlsReason(reason, sizeof reason);
        ERR_clear_error();
        c->err = RC_E_CONNECT;
        snprintf(c->errstr, sizeof c->errstr, "SSL_connect failed: %s", reason);
        return RC_ERR;
    }
}

int rcTlsUpgrade(rcConn *c, const rcTlsOptions *opts) {
    if (c->err) return RC_ERR;
    rcTls *t = zcalloc(sizeof(*t));
    c->transport_data = t;
    c->transport = &tls_transport;
    if (tlsSetupContext(c, t, opts) != RC_OK) return RC_ERR;
    t->ssl = SSL_new(t->ctx);
    if (t->ssl == NULL || SSL_set_fd(t->ssl, c->fd) != 1) return setupFailed(c, t, "Failed to create SSL object");
    tlsSetServerName(c, t, opts);
    return tlsHandshake(c, t);
}

int rcTlsSetupError(const rcConn *c) {
    const rcTls *t = c->transport == &tls_transport ? c->transport_data : NULL;
    return t && t->setup_error;
}

#else /* !USE_OPENSSL */

int rcTlsAvailable(void) { return 0; }

int rcTlsUpgrade(rcConn *c, const rcTlsOptions *opts) {
    (void)opts;
    c->err = RC_E_CONNECT;
    snprintf(c->errstr, sizeof c->errstr, "TLS support was not compiled in (build with BUILD_TLS=yes)");
    return RC_ERR;
}

int rcTlsSetupError(const rcConn *c) {
    (void)c;
    return 1;
}

#endif /* USE_OPENSSL */
