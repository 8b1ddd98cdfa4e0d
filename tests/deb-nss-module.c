/* deb-nss-module.c -- a glibc NSS hosts module for tests/deb-check.sh:
 * libnss_rptest.so.2 answers 127.0.0.1 for every name ending in ".rptest"
 * and "not found" for the rest.
 *
 * Why: the Debian packages link the programs dynamically so that NSS
 * modules which glibc loads at run time (libnss-mdns for pi1.local, LDAP,
 * ...) resolve names for them, which a static program cannot do. The test
 * cross-builds this module for armhf, names it in the emulated sysroot's
 * nsswitch.conf ("hosts: files rptest") and makes the installed armhf
 * server a replica of such a name: the link comes up only if getaddrinfo()
 * in the packaged binary loaded this module, as it would load libnss-mdns.
 * Built with the target's compiler, never part of the server. */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <nss.h>
#include <stdalign.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

#define RPTEST_SUFFIX ".rptest"

enum nss_status _nss_rptest_gethostbyname4_r(const char *name, struct gaih_addrtuple **pat, char *buffer,
                                             size_t buflen, int *errnop, int *h_errnop, int32_t *ttlp);

static int isOurs(const char *name) {
    size_t n = strlen(name), s = strlen(RPTEST_SUFFIX);
    return n > s && strcmp(name + n - s, RPTEST_SUFFIX) == 0;
}

/* getaddrinfo()'s entry point: one IPv4 tuple, 127.0.0.1. The tuple and the
 * name's copy live in the caller's buffer (the tuple at an aligned offset),
 * or the tuple is the caller's own when *pat already points to one. */
enum nss_status _nss_rptest_gethostbyname4_r(const char *name, struct gaih_addrtuple **pat, char *buffer,
                                             size_t buflen, int *errnop, int *h_errnop, int32_t *ttlp) {
    if (!isOurs(name)) {
        *errnop = ENOENT;
        *h_errnop = HOST_NOT_FOUND;
        return NSS_STATUS_NOTFOUND;
    }
    size_t len = strlen(name) + 1;
    size_t pad = (alignof(struct gaih_addrtuple) - (uintptr_t)buffer % alignof(struct gaih_addrtuple)) %
                 alignof(struct gaih_addrtuple);
    size_t need = pad + len + (*pat ? 0 : sizeof(struct gaih_addrtuple) + alignof(struct gaih_addrtuple));
    if (buflen < need) {
        *errnop = ERANGE;
        *h_errnop = NETDB_INTERNAL;
        return NSS_STATUS_TRYAGAIN;
    }
    struct gaih_addrtuple *tuple = *pat;
    char *copy = buffer;
    if (tuple == NULL) {
        tuple = (struct gaih_addrtuple *)(void *)(buffer + pad);
        copy = buffer + pad + sizeof *tuple;
    }
    memcpy(copy, name, len);
    memset(tuple, 0, sizeof *tuple);
    tuple->name = copy;
    tuple->family = AF_INET;
    tuple->addr[0] = htonl(INADDR_LOOPBACK);
    *pat = tuple;
    if (ttlp) *ttlp = 0;
    return NSS_STATUS_SUCCESS;
}
