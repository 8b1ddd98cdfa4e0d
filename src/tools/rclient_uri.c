/* rclient_uri.c -- the redis://[[user]:password@]host[:port][/db] form of a
 * server address that redis-cli's and redis-benchmark's -u take, and
 * rediss://, the same over TLS (the tools then act as with --tls).
 *
 * Design decisions:
 *  - One parser for both tools, so they read the same URI the same way.
 *  - Facts of Redis's own tools kept: anything before the ':' of the
 *    credentials is a user name, even "" (both tools then send AUTH with an
 *    empty user, as Redis's do); a part that is absent leaves the caller's
 *    default alone (host, port, db); rediss:// in a build without TLS is
 *    named in its own message.
 *  - The parts are sds the caller owns (rcUriFree), so a tool can keep
 *    pointers to them for its whole run.
 */
#include "rclient.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

int rcParseUri(const char *uri, rcUri *out, const char **err) {
    memset(out, 0, sizeof(*out));
    out->dbnum = -1;
    out->tls = strncasecmp(uri, "rediss://", 9) == 0;
    if (out->tls && !rcTlsAvailable()) {
        *err = "rediss:// is not supported: this build has no TLS.";
        return RC_ERR;
    }
    if (!out->tls && strncasecmp(uri, "redis://", 8) != 0) {
        *err = "Invalid URI scheme";
        return RC_ERR;
    }
    const char *p = uri + (out->tls ? 9 : 8);
    const char *end = p + strcspn(p, "/");
    const char *at = memchr(p, '@', (size_t)(end - p));
    if (at) {
        const char *colon = memchr(p, ':', (size_t)(at - p));
        if (colon) {
            out->user = sdsnewlen(p, (size_t)(colon - p));
            out->password = sdsnewlen(colon + 1, (size_t)(at - colon - 1));
        }
        p = at + 1;
    }
    const char *port = memchr(p, ':', (size_t)(end - p));
    const char *host_end = port ? port : end;
    if (host_end > p) out->host = sdsnewlen(p, (size_t)(host_end - p));
    if (port) out->port = atoi(port + 1);
    if (*end == '/' && end[1]) out->dbnum = atoll(end + 1);
    return RC_OK;
}

void rcUriFree(rcUri *u) {
    sdsfree(u->user);
    sdsfree(u->password);
    sdsfree(u->host);
    memset(u, 0, sizeof(*u));
}
