/* server.c -- the redis-server entry point: start-up checks and, as the server
 * core lands, the event loop, cron and command dispatch.
 *
 * Start-up order matters on small devices: the allocator's page-size check
 * runs before the first allocation, so a jemalloc that cannot run on this
 * kernel (e.g. a 4K-page build on a 16K-page Raspberry Pi 5 kernel) produces
 * one clear line instead of a crash inside the allocator. The hash seed is
 * read from the OS next, before any dict exists.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "version.h"
#include "zmalloc.h"

static void print_version(void) {
    printf("Redis server v=%s sha=00000000:0 malloc=%s bits=%d build=portable\n",
           REDIS_VERSION, zmalloc_allocator_name(), SIZEOF_POINTER_BITS);
}

static void print_usage(FILE *out) {
    fprintf(out,
            "Usage: ./redis-server [/path/to/redis.conf] [options] [-]\n"
            "       ./redis-server - (read config from stdin)\n"
            "       ./redis-server -v or --version\n"
            "       ./redis-server -h or --help\n"
            "       ./redis-server --check-system (check allocator and platform, then exit)\n");
}

/* Exits with one line on stderr if the allocator cannot run here. */
static void check_allocator_or_exit(void) {
    char err[256];
    if (zmalloc_check_page_size(err, sizeof err) != 0) {
        fprintf(stderr, "FATAL: %s\n", err);
        exit(1);
    }
}

/* --check-system: prove the allocator works on this machine and report the
 * platform facts the build decided. Used by tests/c/pagesize-check.sh. */
static int check_system(void) {
    enum { BLOCKS = 1000 };
    void *blocks[BLOCKS];
    for (int i = 0; i < BLOCKS; i++) blocks[i] = zmalloc((size_t)(i * 37 % 4096) + 1);
    size_t used = zmalloc_used_memory();
    for (int i = 0; i < BLOCKS; i++) zfree(blocks[i]);
    printf("allocator=%s page_size=%ld bits=%d byte_order=%s aligned_access=%s used_memory_peak_test=%zu\n",
           zmalloc_allocator_name(), sysconf(_SC_PAGESIZE), SIZEOF_POINTER_BITS,
           BYTE_ORDER_BIG ? "big" : "little",
#ifdef USE_ALIGNED_ACCESS
           "required",
#else
           "not-required",
#endif
           used);
    return zmalloc_used_memory() == 0 ? 0 : 1;
}

int main(int argc, char **argv) {
    check_allocator_or_exit();
    if (argc == 2 && (!strcmp(argv[1], "-v") || !strcmp(argv[1], "--version"))) {
        print_version();
        return 0;
    }
    if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
        print_usage(stdout);
        return 0;
    }
    if (argc == 2 && !strcmp(argv[1], "--check-system")) return check_system();
    fprintf(stderr, "redis-server: the network server is not built yet in this version "
                    "(see README: status); use --check-system or --version\n");
    return 1;
}
