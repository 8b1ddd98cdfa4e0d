/* tls.c -- TLS with OpenSSL: the server's context built from the tls-*
 * directives, the TLS listeners (tls-port), and CT_TLS, the connection type
 * that speaks TLS over a TCP socket behind the connection interface
 * (src/lib/connection.h), so networking.c serves TLS clients exactly as it
 * serves TCP ones: pipelining, big replies, blocking commands, pub/sub,
 * MONITOR and client eviction go through the same conn* calls.
 *
 * Design decisions:
 *  - Server-only code: it links OpenSSL, which the library layer must not
 *    (src/lib builds without it). It reuses the connection struct and its
 *    contract -- callbacks run holding a reference, connClose inside one
 *    only schedules the free -- with its own event handler, because TLS
 *    decides for itself which socket events it needs.
 *  - Events: a connection wants the socket readable when it has a read
 *    handler, or when SSL_write said WANT_READ (TLS may need the peer's
 *    bytes before it can write); writable when it has a write handler, or
 *    SSL_read said WANT_WRITE. The handshake, non-blocking, wants whatever
 *    SSL_do_handshake asked for last. tlsUpdateEvents() makes the event loop
 *    follow after every change.
 *  - Buffered input: SSL_read decrypts a whole record (up to 16 KB); when
 *    the caller asked for less, the rest stays inside OpenSSL and the socket
 *    is not readable any more. Such connections sit in `pending`, and
 *    beforeSleep() runs their read handler (tlsProcessPendingData) and keeps
 *    the event loop from sleeping while any is left.
 *  - Writes: SSL_MODE_ENABLE_PARTIAL_WRITE (a short write is an ordinary
 *    short write) and SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER (networking.c
 *    retries from wherever its buffer is now, possibly longer).
 *  - A failed handshake (garbage, plaintext on the TLS port, a certificate
 *    from another CA or expired) puts the connection in CONN_STATE_ERROR
 *    with OpenSSL's reason as its last error; networking.c logs it as a
 *    warning (as Redis does) and frees the client. Nothing else happens.
 *  - The context is rebuilt as a whole from tls_config (start-up, CONFIG SET
 *    of any tls-* value) and swapped in only when everything loaded, so a
 *    bad file leaves the running context serving. Connections made earlier
 *    keep the context they were made with (OpenSSL counts references).
 *  - Log texts of the configuration errors are Redis 7.0's.
 *  - OpenSSL allocates through the server's allocator (uncounted in
 *    used_memory, as in Redis): libc malloc cost ~1M instructions more per
 *    handshake than jemalloc, which Debian's Redis gives OpenSSL.
 *  - A dynamically linked server is not linked with OpenSSL: the first
 *    tlsConfigure() dlopen()s it (TLS_RUNTIME_LOAD, below), so a server
 *    without TLS doesn't pay its start-up RSS.
 *
 * Without BUILD_TLS (no USE_OPENSSL) only the no-op functions at the end
 * are compiled (tls.h).
 */
#include "server.h"

#include <ctype.h>
#include <errno.h>

tlsConfig tls_config;

#ifdef USE_OPENSSL

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

/* ---- OpenSSL, loaded when TLS is first configured ---------------------------------------- *
 *
 * With TLS_RUNTIME_LOAD (the Makefile defines it for dynamically linked
 * builds) the server is not linked with libssl/libcrypto: they are
 * dlopen()ed by the first tlsConfigure() -- a tls-port, tls-replication or
 * tls-cluster at start-up or set by CONFIG SET. A server that never uses
 * TLS then does not map them: their relocation alone (libcrypto's
 * .data.rel.ro written, its relocation tables read) costs ~1.7 MB of RSS
 * at start-up even if no OpenSSL function is ever called. The rest of this
 * file calls OpenSSL by its usual names; each name below is redirected to
 * the pointer dlsym() found, so the code reads the same either way.
 * Every entry point that can reach OpenSSL runs after tlsConfigure()
 * succeeded (connections exist only with a context).
 */
#define TLS_OPENSSL_FUNCTIONS(X) \
    X(BIO_free) \
    X(CRYPTO_set_mem_functions) \
    X(BIO_new_file) \
    X(ERR_clear_error) \
    X(ERR_error_string_n) \
    X(ERR_peek_error) \
    X(EVP_PKEY_free) \
    X(PEM_read_bio_Parameters) \
    X(SSL_CTX_ctrl) \
    X(SSL_CTX_free) \
    X(SSL_CTX_load_verify_locations) \
    X(SSL_CTX_new) \
    X(SSL_CTX_set0_tmp_dh_pkey) \
    X(SSL_CTX_set_cipher_list) \
    X(SSL_CTX_set_ciphersuites) \
    X(SSL_CTX_set_default_passwd_cb) \
    X(SSL_CTX_set_default_passwd_cb_userdata) \
    X(SSL_CTX_set_options) \
    X(SSL_CTX_set_session_id_context) \
    X(SSL_CTX_set_timeout) \
    X(SSL_CTX_set_verify) \
    X(SSL_CTX_use_PrivateKey_file) \
    X(SSL_CTX_use_certificate_chain_file) \
    X(SSL_ctrl) \
    X(SSL_do_handshake) \
    X(SSL_free) \
    X(SSL_get_error) \
    X(SSL_get_fd) \
    X(SSL_new) \
    X(SSL_has_pending) \
    X(SSL_read) \
    X(SSL_set_accept_state) \
    X(SSL_set_connect_state) \
    X(SSL_set_fd) \
    X(SSL_set_verify) \
    X(SSL_shutdown) \
    X(SSL_write) \
    X(TLS_client_method) \
    X(TLS_server_method)

#ifdef TLS_RUNTIME_LOAD
#include <dlfcn.h>

#define TLS_STRINGIFY2(x) #x
#define TLS_STRINGIFY(x) TLS_STRINGIFY2(x)
#define TLS_LIBSSL_SONAME "libssl.so." TLS_STRINGIFY(OPENSSL_VERSION_MAJOR)

static struct {
#define X(name) __typeof__(name) *p_##name;
    TLS_OPENSSL_FUNCTIONS(X)
#undef X
} openssl;

#define BIO_free (*openssl.p_BIO_free)
#define CRYPTO_set_mem_functions (*openssl.p_CRYPTO_set_mem_functions)
#define BIO_new_file (*openssl.p_BIO_new_file)
#define ERR_clear_error (*openssl.p_ERR_clear_error)
#define ERR_error_string_n (*openssl.p_ERR_error_string_n)
#define ERR_peek_error (*openssl.p_ERR_peek_error)
#define EVP_PKEY_free (*openssl.p_EVP_PKEY_free)
#define PEM_read_bio_Parameters (*openssl.p_PEM_read_bio_Parameters)
#define SSL_CTX_ctrl (*openssl.p_SSL_CTX_ctrl)
#define SSL_CTX_free (*openssl.p_SSL_CTX_free)
#define SSL_CTX_load_verify_locations (*openssl.p_SSL_CTX_load_verify_locations)
#define SSL_CTX_new (*openssl.p_SSL_CTX_new)
#define SSL_CTX_set0_tmp_dh_pkey (*openssl.p_SSL_CTX_set0_tmp_dh_pkey)
#define SSL_CTX_set_cipher_list (*openssl.p_SSL_CTX_set_cipher_list)
#define SSL_CTX_set_ciphersuites (*openssl.p_SSL_CTX_set_ciphersuites)
#define SSL_CTX_set_default_passwd_cb (*openssl.p_SSL_CTX_set_default_passwd_cb)
#define SSL_CTX_set_default_passwd_cb_userdata (*openssl.p_SSL_CTX_set_default_passwd_cb_userdata)
#define SSL_CTX_set_options (*openssl.p_SSL_CTX_set_options)
#define SSL_CTX_set_session_id_context (*openssl.p_SSL_CTX_set_session_id_context)
#define SSL_CTX_set_timeout (*openssl.p_SSL_CTX_set_timeout)
#define SSL_CTX_set_verify (*openssl.p_SSL_CTX_set_verify)
#define SSL_CTX_use_PrivateKey_file (*openssl.p_SSL_CTX_use_PrivateKey_file)
#define SSL_CTX_use_certificate_chain_file (*openssl.p_SSL_CTX_use_certificate_chain_file)
#define SSL_ctrl (*openssl.p_SSL_ctrl)
#define SSL_do_handshake (*openssl.p_SSL_do_handshake)
#define SSL_free (*openssl.p_SSL_free)
#define SSL_get_error (*openssl.p_SSL_get_error)
#define SSL_get_fd (*openssl.p_SSL_get_fd)
#define SSL_new (*openssl.p_SSL_new)
#define SSL_has_pending (*openssl.p_SSL_has_pending)
#define SSL_read (*openssl.p_SSL_read)
#define SSL_set_accept_state (*openssl.p_SSL_set_accept_state)
#define SSL_set_connect_state (*openssl.p_SSL_set_connect_state)
#define SSL_set_fd (*openssl.p_SSL_set_fd)
#define SSL_set_verify (*openssl.p_SSL_set_verify)
#define SSL_shutdown (*openssl.p_SSL_shutdown)
#define SSL_write (*openssl.p_SSL_write)
#define TLS_client_method (*openssl.p_TLS_client_method)
#define TLS_server_method (*openssl.p_TLS_server_method)

/* C_OK once libssl (and with it libcrypto) is loaded and every function
 * found; C_ERR, logged, when the library is missing or too old. */
static int tlsLoadOpenssl(void) {
    static void *lib;
    if (lib) return C_OK;
    void *handle = dlopen(TLS_LIBSSL_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        serverLog(LL_WARNING, "TLS: cannot load OpenSSL: %s", dlerror());
        return C_ERR;
    }
#define X(name)                                                                     \
    if ((*(void **)&openssl.p_##name = dlsym(handle, #name)) == NULL) {            \
        serverLog(LL_WARNING, "TLS: %s has no %s", TLS_LIBSSL_SONAME, #name);       \
        dlclose(handle);                                                            \
        return C_ERR;                                                               \
    }
    TLS_OPENSSL_FUNCTIONS(X)
#undef X
    lib = handle;
    return C_OK;
}

#else /* linked with -lssl -lcrypto (static builds) */

static int tlsLoadOpenssl(void) { return C_OK; }

#endif /* TLS_RUNTIME_LOAD */

/* ---- OpenSSL's memory ---------------------------------------------------------------- *
 *
 * OpenSSL allocates and frees dozens of small blocks per handshake (the
 * certificate decoders, two session copies per ticket). Left to libc
 * malloc they cost ~1M instructions per handshake more than the server's
 * own allocator (callgrind, 10 handshakes with client certificates): the
 * reference Redis gets jemalloc for them because Debian links it as the
 * process's malloc. The hooks hand them to our allocator, uncounted --
 * they are not the dataset, and Redis's used_memory leaves them out too.
 * OpenSSL accepts hooks only before its first allocation; if it refuses
 * (something used it earlier), it keeps libc's malloc, which is only slower. */
static void *tlsMalloc(size_t size, const char *file, int line) {
    (void)file; (void)line;
    return zmalloc_uncounted(size);
}

static void *tlsRealloc(void *ptr, size_t size, const char *file, int line) {
    (void)file; (void)line;
    return zrealloc_uncounted(ptr, size);
}

static void tlsFreeMemory(void *ptr, const char *file, int line) {
    (void)file; (void)line;
    zfree_uncounted(ptr);
}

/* OpenSSL loaded (or linked) and given our allocator, once. */
static int tlsPrepareOpenssl(void) {
    static int hooked;
    if (tlsLoadOpenssl() != C_OK) return C_ERR;
    if (!hooked) {
        hooked = 1;
        if (!CRYPTO_set_mem_functions(tlsMalloc, tlsRealloc, tlsFreeMemory))
            serverLog(LL_VERBOSE, "TLS: OpenSSL was already in use; it keeps libc's malloc");
    }
    return C_OK;
}

/* ---- errors ------------------------------------------------------------------------ */

/* OpenSSL's first queued error as "error:0A000086:SSL routines::certificate verify
 * failed", the error queue then emptied. */
static void tlsErrorString(char *buf, size_t len) {
    unsigned long code = ERR_peek_error(); /* the first: the cause, as Redis logs it */
    if (code == 0) snprintf(buf, len, "unknown TLS error");
    else ERR_error_string_n(code, buf, len);
    ERR_clear_error();
}

static void tlsLogFailure(const char *what, const char *name) {
    char reason[256];
    tlsErrorString(reason, sizeof reason);
    if (name) serverLog(LL_WARNING, "%s: %s: %s", what, name, reason);
    else serverLog(LL_WARNING, "%s: %s", what, reason);
}

/* ---- the context ------------------------------------------------------------------------ */

static SSL_CTX *tls_server_ctx; /* accepted connections */
static SSL_CTX *tls_client_ctx; /* outgoing ones (replication, later) */

#define TLS_PROTO_1_0 (1 << 0)
#define TLS_PROTO_1_1 (1 << 1)
#define TLS_PROTO_1_2 (1 << 2)
#define TLS_PROTO_1_3 (1 << 3)

/* "TLSv1.2 TLSv1.3" -> a mask; -1 (logged) for an unknown name or none. */
static int tlsParseProtocols(const char *text) {
    if (text == NULL) return TLS_PROTO_1_2 | TLS_PROTO_1_3;
    static const struct { const char *name; int bit; } names[] = {
        {"tlsv1", TLS_PROTO_1_0}, {"tlsv1.1", TLS_PROTO_1_1}, {"tlsv1.2", TLS_PROTO_1_2}, {"tlsv1.3", TLS_PROTO_1_3}};
    int count = 0, mask = 0;
    sds *words = sdssplitlen(text, (ssize_t)strlen(text), " ", 1, &count);
    for (int j = 0; j < count && mask != -1; j++) {
        if (sdslen(words[j]) == 0) continue;
        int bit = 0;
        for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
            if (!strcasecmp(words[j], names[k].name)) bit = names[k].bit;
        mask = bit ? mask | bit : -1;
    }
    sdsfreesplitres(words, count);
    if (mask <= 0) {
        serverLog(LL_WARNING, "Invalid tls-protocols specified. "
                              "Use a combination of 'TLSv1', 'TLSv1.1', 'TLSv1.2' and 'TLSv1.3'.");
        return -1;
    }
    return mask;
}

static void tlsApplyProtocols(SSL_CTX *ctx, int mask) {
    long options = 0;
    if (!(mask & TLS_PROTO_1_0)) options |= SSL_OP_NO_TLSv1;
    if (!(mask & TLS_PROTO_1_1)) options |= SSL_OP_NO_TLSv1_1;
    if (!(mask & TLS_PROTO_1_2)) options |= SSL_OP_NO_TLSv1_2;
#ifdef SSL_OP_NO_TLSv1_3
    if (!(mask & TLS_PROTO_1_3)) options |= SSL_OP_NO_TLSv1_3;
#endif
    SSL_CTX_set_options(ctx, (unsigned long)options);
}

/* The key's passphrase, from the userdata the context was given. */
static int tlsPasswordCallback(char *buf, int size, int rwflag, void *userdata) {
    (void)rwflag;
    const char *pass = userdata;
    if (pass == NULL) return -1;
    int len = (int)strlen(pass);
    if (len > size) len = size;
    memcpy(buf, pass, (size_t)len);
    return len;
}

static int tlsLoadCertAndKey(SSL_CTX *ctx, const char *cert, const char *key, const char *pass) {
    SSL_CTX_set_default_passwd_cb(ctx, tlsPasswordCallback);
    SSL_CTX_set_default_passwd_cb_userdata(ctx, (void *)pass);
    int ok = 1;
    if (SSL_CTX_use_certificate_chain_file(ctx, cert) <= 0) {
        tlsLogFailure("Failed to load certificate", cert);
        ok = 0;
    } else if (SSL_CTX_use_PrivateKey_file(ctx, key, SSL_FILETYPE_PEM) <= 0) {
        tlsLogFailure("Failed to load private key", key);
        ok = 0;
    }
    /* The passphrase is needed only while loading; tls_config owns it. */
    SSL_CTX_set_default_passwd_cb_userdata(ctx, NULL);
    return ok;
}

static int tlsLoadDhParams(SSL_CTX *ctx, const char *file) {
    if (file == NULL) {
        SSL_CTX_set_dh_auto(ctx, 1);
        return 1;
    }
    BIO *bio = BIO_new_file(file, "r");
    if (bio == NULL) {
        tlsLogFailure("Failed to load", file);
        return 0;
    }
#if OPENSSL_VERSION_NUMBER >= 0x30000000L
    EVP_PKEY *params = PEM_read_bio_Parameters(bio, NULL);
    BIO_free(bio);
    if (params == NULL || SSL_CTX_set0_tmp_dh_pkey(ctx, params) <= 0) {
        EVP_PKEY_free(params);
        tlsLogFailure("Failed to load DH parameters", file);
        return 0;
    }
#else
    DH *dh = PEM_read_bio_DHparams(bio, NULL, NULL, NULL);
    BIO_free(bio);
    int ok = dh && SSL_CTX_set_tmp_dh(ctx, dh) > 0;
    DH_free(dh);
    if (!ok) {
        tlsLogFailure("Failed to load DH parameters", file);
        return 0;
    }
#endif
    return 1;
}

static int tlsVerifyMode(void) {
    switch (tls_config.auth_clients) {
    case TLS_CLIENT_AUTH_NO: return SSL_VERIFY_NONE;
    case TLS_CLIENT_AUTH_OPTIONAL: return SSL_VERIFY_PEER;
    default: return SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT;
    }
}

static void tlsSetSessionCaching(SSL_CTX *ctx) {
    if (!tls_config.session_caching) {
        SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
        SSL_CTX_set_options(ctx, SSL_OP_NO_TICKET);
        return;
    }
    static const unsigned char id[] = "redis-portable";
    SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_SERVER);
    SSL_CTX_sess_set_cache_size(ctx, tls_config.session_cache_size);
    SSL_CTX_set_timeout(ctx, tls_config.session_cache_timeout);
    SSL_CTX_set_session_id_context(ctx, id, sizeof id - 1);
}

/* What both contexts share: protocols, ciphers, the CAs, modes. NULL
 * (logged) when any of it fails. */
static SSL_CTX *tlsNewContext(const SSL_METHOD *method, int protocols) {
    SSL_CTX *ctx = SSL_CTX_new(method);
    if (ctx == NULL) {
        tlsLogFailure("Failed to create TLS context", NULL);
        return NULL;
    }
    SSL_CTX_set_options(ctx, SSL_OP_NO_COMPRESSION | SSL_OP_NO_SSLv2 | SSL_OP_NO_SSLv3);
#ifdef SSL_OP_NO_CLIENT_RENEGOTIATION
    SSL_CTX_set_options(ctx, SSL_OP_NO_CLIENT_RENEGOTIATION);
#endif
    tlsApplyProtocols(ctx, protocols);
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    SSL_CTX_set_read_ahead(ctx, 1); /* one read(2) takes what arrived, not a record header then its body */
    if (tls_config.prefer_server_ciphers) SSL_CTX_set_options(ctx, SSL_OP_CIPHER_SERVER_PREFERENCE);
    const char *failed = NULL;
    if ((tls_config.ca_cert_file || tls_config.ca_cert_dir) &&
        SSL_CTX_load_verify_locations(ctx, tls_config.ca_cert_file, tls_config.ca_cert_dir) <= 0)
        failed = "Failed to configure CA certificate(s) file/directory";
    else if (tls_config.ciphers && !SSL_CTX_set_cipher_list(ctx, tls_config.ciphers))
        failed = "Failed to configure ciphers";
    else if (tls_config.ciphersuites && !SSL_CTX_set_ciphersuites(ctx, tls_config.ciphersuites))
        failed = "Failed to configure ciphersuites";
    if (failed) {
        const char *what = strstr(failed, "ciphersuites") ? tls_config.ciphersuites
                           : strstr(failed, "ciphers")    ? tls_config.ciphers
                                                          : NULL;
        if (what) {
            serverLog(LL_WARNING, "%s: %s", failed, what);
            ERR_clear_error();
        } else {
            tlsLogFailure(failed, NULL);
        }
        SSL_CTX_free(ctx);
        return NULL;
    }
    return ctx;
}

static SSL_CTX *tlsNewServerContext(int protocols) {
    SSL_CTX *ctx = tlsNewContext(TLS_server_method(), protocols);
    if (ctx == NULL) return NULL;
    tlsSetSessionCaching(ctx);
    SSL_CTX_set_verify(ctx, tlsVerifyMode(), NULL);
    if (!tlsLoadCertAndKey(ctx, tls_config.cert_file, tls_config.key_file, tls_config.key_file_pass) ||
        !tlsLoadDhParams(ctx, tls_config.dh_params_file)) {
        SSL_CTX_free(ctx);
        return NULL;
    }
    return ctx;
}

/* Outgoing connections present tls-client-cert-file, or the server's. */
static SSL_CTX *tlsNewClientContext(int protocols) {
    SSL_CTX *ctx = tlsNewContext(TLS_client_method(), protocols);
    if (ctx == NULL) return NULL;
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
    int own = tls_config.client_cert_file != NULL;
    const char *cert = own ? tls_config.client_cert_file : tls_config.cert_file;
    const char *key = own ? tls_config.client_key_file : tls_config.key_file;
    const char *pass = own ? tls_config.client_key_file_pass : tls_config.key_file_pass;
    if (!tlsLoadCertAndKey(ctx, cert, key, pass)) {
        SSL_CTX_free(ctx);
        return NULL;
    }
    return ctx;
}

static int tlsSettingsComplete(void) {
    if (tls_config.cert_file == NULL) {
        serverLog(LL_WARNING, "No tls-cert-file configured!");
        return 0;
    }
    if (tls_config.key_file == NULL) {
        serverLog(LL_WARNING, "No tls-key-file configured!");
        return 0;
    }
    int needs_ca = tls_config.auth_clients != TLS_CLIENT_AUTH_NO || tls_config.replication || tls_config.cluster;
    if (needs_ca && tls_config.ca_cert_file == NULL && tls_config.ca_cert_dir == NULL) {
        serverLog(LL_WARNING, "Either tls-ca-cert-file or tls-ca-cert-dir must be specified when tls-cluster, "
                              "tls-replication or tls-auth-clients are enabled!");
        return 0;
    }
    return 1;
}

/* Builds both contexts from tls_config and swaps them in; on failure the
 * old ones stay. */
static int tlsConfigure(void) {
    if (!tlsSettingsComplete() || tlsPrepareOpenssl() != C_OK) return C_ERR;
    int protocols = tlsParseProtocols(tls_config.protocols);
    if (protocols == -1) return C_ERR;
    SSL_CTX *server_ctx = tlsNewServerContext(protocols);
    if (server_ctx == NULL) return C_ERR;
    SSL_CTX *client_ctx = tlsNewClientContext(protocols);
    if (client_ctx == NULL) {
        SSL_CTX_free(server_ctx);
        return C_ERR;
    }
    SSL_CTX_free(tls_server_ctx);
    SSL_CTX_free(tls_client_ctx);
    tls_server_ctx = server_ctx;
    tls_client_ctx = client_ctx;
    return C_OK;
}

static int tlsWanted(void) {
    return tls_config.port || tls_config.replication || tls_config.cluster;
}

/* ---- the connection type ------------------------------------------------------------------ */

#define TLS_CONN_READ_WANTS_WRITE (1 << 0)
#define TLS_CONN_WRITE_WANTS_READ (1 << 1)
#define TLS_CONN_HANDSHAKE_WANTS_WRITE (1 << 2)
#define TLS_CONN_READ_STARVED (1 << 3) /* the last SSL_read wanted more bytes from the socket */

typedef struct tlsConnection {
    connection c;       /* first: a connection * is a tlsConnection * */
    SSL *ssl;
    int tls_flags;      /* TLS_CONN_* */
    listNode *pending;  /* our node in `pending`, or NULL */
    char error[256];    /* OpenSSL's reason of the last failure, or "" */
} tlsConnection;

static list *pending;   /* connections with decrypted input not read yet */

extern const ConnectionType CT_TLS;

static void tlsEventHandler(aeEventLoop *el, int fd, void *clientData, int mask);

/* Makes the event loop watch what the connection needs now (see the top). */
static void tlsUpdateEvents(tlsConnection *tc) {
    connection *conn = &tc->c;
    if (conn->fd == -1 || conn->el == NULL) return;
    int want = 0;
    if (conn->state == CONN_STATE_ERROR || conn->state == CONN_STATE_CLOSED) {
        want = 0;
    } else if (conn->state == CONN_STATE_ACCEPTING || conn->state == CONN_STATE_CONNECTING) {
        want = (tc->tls_flags & TLS_CONN_HANDSHAKE_WANTS_WRITE) ? AE_WRITABLE : AE_READABLE;
    } else {
        if (conn->read_handler || (tc->tls_flags & TLS_CONN_WRITE_WANTS_READ)) want |= AE_READABLE;
        if (conn->write_handler || (tc->tls_flags & TLS_CONN_READ_WANTS_WRITE)) want |= AE_WRITABLE;
    }
    int have = aeGetFileEvents(conn->el, conn->fd);
    if ((have & ~want) & (AE_READABLE | AE_WRITABLE))
        aeDeleteFileEvent(conn->el, conn->fd, (have & ~want) & (AE_READABLE | AE_WRITABLE));
    if (want & ~have) aeCreateFileEvent(conn->el, conn->fd, want & ~have, tlsEventHandler, conn);
}

static void tlsUnmarkPending(tlsConnection *tc) {
    if (tc->pending == NULL) return;
    listDelNode(pending, tc->pending);
    tc->pending = NULL;
}

/* Queued for beforeSleep() when OpenSSL holds input and someone reads.
 * With read-ahead OpenSSL may hold whole records it has not decrypted yet
 * (SSL_has_pending, not SSL_pending, sees them), or only part of one: then
 * the last SSL_read asked for more (READ_STARVED) and the socket's next
 * bytes wake the connection; queueing it would only spin the event loop. */
static void tlsMarkPendingIfBuffered(tlsConnection *tc) {
    if (tc->pending || tc->ssl == NULL || tc->c.state != CONN_STATE_CONNECTED) return;
    if (tc->c.read_handler == NULL || (tc->tls_flags & TLS_CONN_READ_STARVED)) return;
    if (!SSL_has_pending(tc->ssl)) return;
    listAddNodeTail(pending, tc);
    tc->pending = listLast(pending);
}

static void tlsFree(tlsConnection *tc) {
    tlsUnmarkPending(tc);
    if (tc->ssl) SSL_free(tc->ssl);
    zfree(tc);
}

static void tlsFreeConn(connection *conn) {
    tlsFree((tlsConnection *)conn);
}

static void tlsClose(connection *conn) {
    tlsConnection *tc = (tlsConnection *)conn;
    tlsUnmarkPending(tc);
    if (conn->fd != -1) {
        /* close_notify, best effort (non-blocking), only after a good handshake */
        if (tc->ssl && conn->state == CONN_STATE_CONNECTED) {
            ERR_clear_error();
            SSL_shutdown(tc->ssl);
            ERR_clear_error();
        }
        if (conn->el) aeDeleteFileEvent(conn->el, conn->fd, AE_READABLE | AE_WRITABLE);
        close(conn->fd);
        conn->fd = -1;
    }
    connReleaseClosed(conn, tlsFreeConn);
}

/* As the socket transports do: the handler runs holding a reference; 0
 * when the connection was closed meanwhile (the caller must not touch it). */
static int tlsRunCallback(connection *conn, ConnectionCallbackFunc handler) {
    return connRunHeld(conn, handler, tlsFreeConn);
}

/* Records a failed SSL call. Returns -1 with errno EAGAIN for "try again
 * later" (noting which socket event would let it go on), 0 for a clean
 * close by the peer, -1 with the state ERROR otherwise. */
static int tlsHandleIoError(tlsConnection *tc, int ret, int wants_flag) {
    int err = SSL_get_error(tc->ssl, ret);
    connection *conn = &tc->c;
    if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) {
        int other = (err == SSL_ERROR_WANT_READ) ? TLS_CONN_WRITE_WANTS_READ : TLS_CONN_READ_WANTS_WRITE;
        if (other == wants_flag) {
            tc->tls_flags |= wants_flag;
            tlsUpdateEvents(tc);
        }
        errno = EAGAIN;
        return -1;
    }
    if (err == SSL_ERROR_ZERO_RETURN) {
        conn->state = CONN_STATE_CLOSED;
        return 0;
    }
    if (err == SSL_ERROR_SYSCALL && errno) {
        conn->last_errno = errno;
        snprintf(tc->error, sizeof tc->error, "%s", strerror(errno));
        ERR_clear_error();
    } else {
        tlsErrorString(tc->error, sizeof tc->error);
    }
    conn->state = CONN_STATE_ERROR;
    return -1;
}

static ssize_t tlsRead(connection *conn, void *buf, size_t len) {
    tlsConnection *tc = (tlsConnection *)conn;
    if (conn->state != CONN_STATE_CONNECTED) {
        errno = ENOTCONN;
        return -1;
    }
    ERR_clear_error();
    int n = SSL_read(tc->ssl, buf, len > INT_MAX ? INT_MAX : (int)len);
    if (n > 0) {
        tc->tls_flags &= ~TLS_CONN_READ_STARVED;
        tlsMarkPendingIfBuffered(tc);
        return n;
    }
    if (SSL_get_error(tc->ssl, n) == SSL_ERROR_WANT_READ) tc->tls_flags |= TLS_CONN_READ_STARVED;
    return tlsHandleIoError(tc, n, TLS_CONN_READ_WANTS_WRITE);
}

static ssize_t tlsWrite(connection *conn, const void *data, size_t len) {
    tlsConnection *tc = (tlsConnection *)conn;
    if (conn->state != CONN_STATE_CONNECTED) {
        errno = ENOTCONN;
        return -1;
    }
    if (len == 0) return 0;
    ERR_clear_error();
    int n = SSL_write(tc->ssl, data, len > INT_MAX ? INT_MAX : (int)len);
    if (n > 0) return n;
    int res = tlsHandleIoError(tc, n, TLS_CONN_WRITE_WANTS_READ);
    if (res == 0) { /* the peer closed: not a write of 0 bytes */
        errno = EPIPE;
        res = -1;
    }
    return res;
}

/* TLS has no scatter write: small vectors are joined into one record,
 * bigger ones go out one buffer after another until one is short. */
static ssize_t tlsWritev(connection *conn, const struct iovec *iov, int iovcnt) {
    size_t total = 0;
    for (int j = 0; j < iovcnt; j++) total += iov[j].iov_len;
    if (total <= 16 * 1024) {
        char buf[16 * 1024];
        size_t at = 0;
        for (int j = 0; j < iovcnt; j++) {
            memcpy(buf + at, iov[j].iov_base, iov[j].iov_len);
            at += iov[j].iov_len;
        }
        return tlsWrite(conn, buf, at);
    }
    ssize_t done = 0;
    for (int j = 0; j < iovcnt; j++) {
        ssize_t n = tlsWrite(conn, iov[j].iov_base, iov[j].iov_len);
        if (n < 0) return done ? done : n;
        done += n;
        if ((size_t)n < iov[j].iov_len) break;
    }
    return done;
}

/* One step of the handshake. 1 finished (state CONNECTED or ERROR), 0 it
 * waits for the socket (events updated). */
static int tlsHandshakeStep(tlsConnection *tc) {
    connection *conn = &tc->c;
    ERR_clear_error();
    int ret = SSL_do_handshake(tc->ssl);
    if (ret == 1) {
        conn->state = CONN_STATE_CONNECTED;
        tc->tls_flags &= ~TLS_CONN_HANDSHAKE_WANTS_WRITE;
        tlsUpdateEvents(tc);
        tlsMarkPendingIfBuffered(tc); /* read-ahead may hold a request that came with the handshake */
        return 1;
    }
    int err = SSL_get_error(tc->ssl, ret);
    if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) {
        if (err == SSL_ERROR_WANT_WRITE) tc->tls_flags |= TLS_CONN_HANDSHAKE_WANTS_WRITE;
        else tc->tls_flags &= ~TLS_CONN_HANDSHAKE_WANTS_WRITE;
        tlsUpdateEvents(tc);
        return 0;
    }
    if (err == SSL_ERROR_SYSCALL && errno) {
        conn->last_errno = errno;
        snprintf(tc->error, sizeof tc->error, "%s", strerror(errno));
        ERR_clear_error();
    } else if (err == SSL_ERROR_SYSCALL || err == SSL_ERROR_ZERO_RETURN) {
        snprintf(tc->error, sizeof tc->error, "the peer closed the connection during the TLS handshake");
        ERR_clear_error();
    } else {
        tlsErrorString(tc->error, sizeof tc->error);
    }
    conn->state = CONN_STATE_ERROR;
    if (conn->fd != -1 && conn->el) aeDeleteFileEvent(conn->el, conn->fd, AE_READABLE | AE_WRITABLE);
    return 1;
}

/* A handshake step; when it ends, the accept/connect handler runs. Returns
 * 0 when the connection is gone. */
static int tlsContinueHandshake(tlsConnection *tc) {
    if (!tlsHandshakeStep(tc)) return 1;
    ConnectionCallbackFunc handler = tc->c.conn_handler;
    tc->c.conn_handler = NULL;
    return tlsRunCallback(&tc->c, handler);
}

static int tlsAccept(connection *conn, ConnectionCallbackFunc accept_handler) {
    tlsConnection *tc = (tlsConnection *)conn;
    if (conn->state != CONN_STATE_ACCEPTING) {
        errno = EINVAL;
        return CONN_ERR;
    }
    conn->conn_handler = accept_handler;
    conn->refs++; /* the handler may close conn: connAccept's caller still holds it */
    tlsContinueHandshake(tc);
    conn->refs--;
    if ((conn->flags & CONN_FLAG_CLOSE_SCHEDULED) && conn->refs == 0) tlsFree(tc);
    return CONN_OK;
}

/* A TCP connect finished: start the client side of the handshake. */
static int tlsFinishTcpConnect(tlsConnection *tc) {
    connection *conn = &tc->c;
    int err = anetGetError(conn->fd);
    if (err) {
        conn->last_errno = err;
        snprintf(tc->error, sizeof tc->error, "%s", strerror(err));
        conn->state = CONN_STATE_ERROR;
        ConnectionCallbackFunc handler = conn->conn_handler;
        conn->conn_handler = NULL;
        aeDeleteFileEvent(conn->el, conn->fd, AE_READABLE | AE_WRITABLE);
        return tlsRunCallback(conn, handler);
    }
    tc->tls_flags |= TLS_CONN_HANDSHAKE_WANTS_WRITE;
    return tlsContinueHandshake(tc);
}

static void tlsEventHandler(aeEventLoop *el, int fd, void *clientData, int mask) {
    (void)el;
    (void)fd;
    tlsConnection *tc = clientData;
    connection *conn = &tc->c;
    if (conn->state == CONN_STATE_CONNECTING && SSL_get_fd(tc->ssl) == -1) {
        SSL_set_fd(tc->ssl, conn->fd);
        tlsFinishTcpConnect(tc);
        return;
    }
    if (conn->state == CONN_STATE_ACCEPTING || conn->state == CONN_STATE_CONNECTING) {
        tlsContinueHandshake(tc);
        return;
    }
    /* An operation that waited for the other direction goes on first. */
    int flags = tc->tls_flags;
    tc->tls_flags &= ~(TLS_CONN_READ_WANTS_WRITE | TLS_CONN_WRITE_WANTS_READ);
    int call_read = ((mask & AE_READABLE) || ((mask & AE_WRITABLE) && (flags & TLS_CONN_READ_WANTS_WRITE)));
    int call_write = ((mask & AE_WRITABLE) || ((mask & AE_READABLE) && (flags & TLS_CONN_WRITE_WANTS_READ)));
    int barrier = conn->flags & CONN_FLAG_WRITE_BARRIER;
    if (!barrier && call_read && conn->read_handler && !tlsRunCallback(conn, conn->read_handler)) return;
    if (call_write && conn->write_handler && !tlsRunCallback(conn, conn->write_handler)) return;
    if (barrier && call_read && conn->read_handler && !tlsRunCallback(conn, conn->read_handler)) return;
    tlsUpdateEvents(tc);
    tlsMarkPendingIfBuffered(tc);
}

static int tlsSetWriteHandler(connection *conn, ConnectionCallbackFunc func, int barrier) {
    if (barrier) conn->flags |= CONN_FLAG_WRITE_BARRIER;
    else conn->flags &= ~CONN_FLAG_WRITE_BARRIER;
    conn->write_handler = func;
    tlsUpdateEvents((tlsConnection *)conn);
    return CONN_OK;
}

static int tlsSetReadHandler(connection *conn, ConnectionCallbackFunc func) {
    tlsConnection *tc = (tlsConnection *)conn;
    conn->read_handler = func;
    if (func == NULL) tlsUnmarkPending(tc);
    else tlsMarkPendingIfBuffered(tc);
    tlsUpdateEvents(tc);
    return CONN_OK;
}

static SSL *tlsNewSsl(SSL_CTX *ctx, int fd) {
    SSL *ssl = SSL_new(ctx);
    if (ssl && fd != -1) SSL_set_fd(ssl, fd);
    return ssl;
}

static connection *tlsNewConn(SSL_CTX *ctx, int fd, ConnectionState state) {
    tlsConnection *tc = zcalloc(sizeof(*tc));
    tc->c.type = &CT_TLS;
    tc->c.el = server.el;
    tc->c.fd = fd;
    tc->c.state = state;
    tc->ssl = tlsNewSsl(ctx, fd);
    if (tc->ssl == NULL) {
        tlsErrorString(tc->error, sizeof tc->error);
        tc->c.state = CONN_STATE_ERROR;
    }
    return &tc->c;
}

static int tlsConnect(connection *conn, const char *addr, int port, const char *source_addr,
                      ConnectionCallbackFunc connect_handler) {
    tlsConnection *tc = (tlsConnection *)conn;
    if (tc->ssl == NULL) return CONN_ERR;
    int fd = anetTcpNonBlockBestEffortBindConnect(NULL, addr, port, source_addr);
    if (fd == -1) {
        conn->last_errno = errno;
        snprintf(tc->error, sizeof tc->error, "%s", strerror(errno));
        conn->state = CONN_STATE_ERROR;
        return CONN_ERR;
    }
    SSL_set_connect_state(tc->ssl);
    if (!isdigit((unsigned char)addr[0]) && !strchr(addr, ':')) SSL_set_tlsext_host_name(tc->ssl, addr);
    conn->fd = fd;
    conn->state = CONN_STATE_CONNECTING;
    conn->conn_handler = connect_handler;
    if (aeCreateFileEvent(conn->el, fd, AE_WRITABLE, tlsEventHandler, conn) == AE_ERR) {
        conn->last_errno = errno;
        conn->state = CONN_STATE_ERROR;
        conn->conn_handler = NULL;
        return CONN_ERR;
    }
    return CONN_OK;
}

static const char *tlsGetLastError(connection *conn) {
    tlsConnection *tc = (tlsConnection *)conn;
    return tc->error[0] ? tc->error : strerror(conn->last_errno);
}

static const char *tlsGetType(connection *conn) {
    (void)conn;
    return "tls";
}

static int tlsIsLocal(connection *conn) {
    return anetIsLocalPeer(conn->fd);
}

static int tlsAddr(connection *conn, char *ip, size_t ip_len, int *port, int remote) {
    int which = remote ? FD_TO_PEER_NAME : FD_TO_SOCK_NAME;
    return anetFdToString(conn->fd, ip, ip_len, port, which) == ANET_OK ? CONN_OK : CONN_ERR;
}

const ConnectionType CT_TLS = {
    .ae_handler = tlsEventHandler,
    .connect = tlsConnect,
    .accept = tlsAccept,
    .close = tlsClose,
    .write = tlsWrite,
    .writev = tlsWritev,
    .read = tlsRead,
    .set_write_handler = tlsSetWriteHandler,
    .set_read_handler = tlsSetReadHandler,
    .get_last_error = tlsGetLastError,
    .get_type = tlsGetType,
    .is_local = tlsIsLocal,
    .addr = tlsAddr,
};

connection *tlsCreateConnection(void) {
    return tlsNewConn(tls_client_ctx, -1, CONN_STATE_NONE);
}

/* ---- pending input ------------------------------------------------------------------------ */

/* Each queued connection once per pass (a handler that leaves input in
 * OpenSSL queues its connection again, for the next pass). The batch is
 * taken off the queue first and each connection held by a reference, so a
 * handler may close any of them (CLIENT KILL) without freeing one still to
 * come. */
int tlsProcessPendingData(void) {
    if (pending == NULL || listLength(pending) == 0) return 0;
    size_t count = 0;
    tlsConnection **batch = zmalloc(sizeof(*batch) * listLength(pending));
    while (listLength(pending)) {
        tlsConnection *tc = listNodeValue(listFirst(pending));
        tlsUnmarkPending(tc);
        tc->c.refs++;
        batch[count++] = tc;
    }
    int processed = 0;
    for (size_t j = 0; j < count; j++) {
        connection *conn = &batch[j]->c;
        if (!(conn->flags & CONN_FLAG_CLOSE_SCHEDULED) && conn->read_handler) {
            processed++;
            tlsRunCallback(conn, conn->read_handler);
        }
        conn->refs--;
        if (conn->flags & CONN_FLAG_CLOSE_SCHEDULED) {
            if (conn->refs == 0) tlsFree(batch[j]);
            continue;
        }
        tlsMarkPendingIfBuffered(batch[j]);
    }
    zfree(batch);
    return processed;
}

int tlsHasPendingData(void) {
    return pending && listLength(pending) > 0;
}

/* ---- listeners ------------------------------------------------------------------------------ */

static int tls_fds[CONFIG_BINDADDR_MAX];
static int tls_fd_count;

/* An accepted socket as a TLS connection in the ACCEPTING state; without an
 * SSL object (out of memory) in the ERROR state, so acceptCommonHandler's
 * connAccept fails and frees it. */
static connection *tlsWrapAccepted(int cfd) {
    connection *conn = tlsNewConn(tls_server_ctx, cfd, CONN_STATE_ACCEPTING);
    if (((tlsConnection *)conn)->ssl) SSL_set_accept_state(((tlsConnection *)conn)->ssl);
    else conn->state = CONN_STATE_ERROR;
    return conn;
}

/* The cluster bus's inbound links (tls-cluster yes): a peer must present a
 * certificate our CA signed whatever tls-auth-clients says, as Redis 7.0
 * requires of every node. */
connection *tlsCreateAcceptedConnection(int cfd, int require_peer_cert) {
    connection *conn = tlsWrapAccepted(cfd);
    tlsConnection *tc = (tlsConnection *)conn;
    if (require_peer_cert && tc->ssl) SSL_set_verify(tc->ssl, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, NULL);
    return conn;
}

/* ---- synchronous client sessions (MIGRATE) -------------------------------------------------- *
 *
 * MIGRATE talks to its target synchronously on a non-blocking socket,
 * waiting with aeWait() (migrate.c). With tls-cluster yes that exchange is
 * TLS: these calls do the client side with the client context, and tell
 * the caller which socket event to wait for instead of waiting themselves,
 * so migrate.c keeps one timeout rule for both transports. */

/* -1 with errno EAGAIN and *want set, 0 on a clean close, -1 on error. */
static int tlsSyncFailure(SSL *ssl, int ret, int *want) {
    int err = SSL_get_error(ssl, ret);
    if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) {
        *want = err == SSL_ERROR_WANT_READ ? AE_READABLE : AE_WRITABLE;
        errno = EAGAIN;
        return -1;
    }
    if (err == SSL_ERROR_ZERO_RETURN) return 0;
    if (!(err == SSL_ERROR_SYSCALL && errno)) errno = ECONNRESET;
    ERR_clear_error();
    return -1;
}

void *tlsSyncOpen(int fd, long timeout) {
    if (tls_client_ctx == NULL) {
        errno = ENOTCONN;
        return NULL;
    }
    SSL *ssl = tlsNewSsl(tls_client_ctx, fd);
    if (ssl == NULL) {
        ERR_clear_error();
        errno = ENOMEM;
        return NULL;
    }
    SSL_set_connect_state(ssl);
    while (1) {
        ERR_clear_error();
        int ret = SSL_do_handshake(ssl), want = 0;
        if (ret == 1) return ssl;
        int r = tlsSyncFailure(ssl, ret, &want);
        if (r == -1 && errno == EAGAIN) {
            int ready = aeWait(fd, want, timeout);
            if (ready > 0) continue;
            if (ready == 0) errno = ETIMEDOUT;
        } else if (r == 0 || errno == 0) {
            errno = ECONNRESET; /* the peer closed during the handshake */
        }
        int saved = errno;
        SSL_free(ssl);
        errno = saved;
        return NULL;
    }
}

ssize_t tlsSyncRead(void *session, void *buf, size_t len, int *want) {
    ERR_clear_error();
    int n = SSL_read(session, buf, len > INT_MAX ? INT_MAX : (int)len);
    return n > 0 ? n : tlsSyncFailure(session, n, want);
}

ssize_t tlsSyncWrite(void *session, const void *buf, size_t len, int *want) {
    if (len == 0) return 0;
    ERR_clear_error();
    int n = SSL_write(session, buf, len > INT_MAX ? INT_MAX : (int)len);
    if (n > 0) return n;
    int res = tlsSyncFailure(session, n, want);
    if (res == 0) {
        errno = EPIPE;
        res = -1;
    }
    return res;
}

/* Frees the session; the socket stays the caller's to close. */
void tlsSyncClose(void *session) {
    if (session == NULL) return;
    ERR_clear_error();
    SSL_free(session);
}

static void acceptTlsHandler(aeEventLoop *el, int fd, void *privdata, int mask) {
    (void)el; (void)privdata; (void)mask;
    acceptConnections(fd, "TLS", 0, tlsWrapAccepted);
}

static int tlsOpenListeners(void) {
    if (listenOnTcpPort(tls_config.port, tls_fds, &tls_fd_count) != C_OK) return C_ERR;
    for (int j = 0; j < tls_fd_count; j++) {
        if (aeCreateFileEvent(server.el, tls_fds[j], AE_READABLE, acceptTlsHandler, NULL) == AE_ERR)
            serverPanic("Unrecoverable error creating the TLS listener's file event.");
    }
    return C_OK;
}

int tlsIsListening(void) { return tls_fd_count > 0; }

void tlsCloseListeners(void) { closeListenerFds(tls_fds, &tls_fd_count); }

void tlsCloseListenersInChild(void) {
    for (int j = 0; j < tls_fd_count; j++) close(tls_fds[j]);
}

int tlsInit(void) {
    if (pending == NULL) pending = listCreate();
    if (!tlsWanted()) return C_OK;
    if (tlsConfigure() != C_OK) {
        serverLog(LL_WARNING, "Failed to configure TLS. Check logs for more info.");
        return C_ERR;
    }
    if (tlsOpenListeners() != C_OK) {
        serverLog(LL_WARNING, "Failed listening on port %d (tls), aborting.", tls_config.port);
        return C_ERR;
    }
    return C_OK;
}

/* ---- CONFIG SET ------------------------------------------------------------------------------- */

int tlsApplyConfig(sds *err) {
    if (server.el == NULL || !tlsWanted()) return C_OK; /* start-up: tlsInit() configures */
    if (tlsConfigure() == C_OK) return C_OK;
    *err = sdsnew("Unable to update TLS configuration. Check server logs.");
    return C_ERR;
}

int tlsApplyPort(sds *err) {
    if (server.el == NULL) return C_OK;
    if (tls_config.port && tlsConfigure() != C_OK) {
        *err = sdsnew("Unable to update TLS configuration. Check server logs.");
        return C_ERR;
    }
    tlsCloseListeners();
    if (tlsOpenListeners() != C_OK) {
        *err = sdsnew("Unable to listen on this port. Check server logs.");
        return C_ERR;
    }
    procTitleSet(NULL);
    return C_OK;
}

#else /* !USE_OPENSSL: the build has no TLS; config.c refuses the tls-* directives */

int tlsInit(void) { return C_OK; }
int tlsIsListening(void) { return 0; }
void tlsCloseListeners(void) {}
void tlsCloseListenersInChild(void) {}
int tlsApplyConfig(sds *err) { (void)err; return C_OK; }
int tlsApplyPort(sds *err) { (void)err; return C_OK; }
int tlsProcessPendingData(void) { return 0; }
int tlsHasPendingData(void) { return 0; }
connection *tlsCreateConnection(void) { return NULL; }
connection *tlsCreateAcceptedConnection(int cfd, int require_peer_cert) {
    (void)require_peer_cert;
    return connCreateAcceptedSocket(cfd);
}
void *tlsSyncOpen(int fd, long timeout) {
    (void)fd, (void)timeout;
    errno = ENOTSUP;
    return NULL;
}
ssize_t tlsSyncRead(void *session, void *buf, size_t len, int *want) {
    (void)session, (void)buf, (void)len, (void)want;
    errno = ENOTSUP;
    return -1;
}
ssize_t tlsSyncWrite(void *session, const void *buf, size_t len, int *want) {
    (void)session, (void)buf, (void)len, (void)want;
    errno = ENOTSUP;
    return -1;
}
void tlsSyncClose(void *session) { (void)session; }

#endif /* USE_OPENSSL */
