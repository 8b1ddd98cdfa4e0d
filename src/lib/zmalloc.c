/* zmalloc.c -- allocation wrappers with exact accounting.
 *
 * Back ends, chosen at build time:
 *   USE_JEMALLOC    jemalloc built by deps/jemalloc with the je_ prefix, so it
 *                   never replaces libc's malloc for other libraries; a new
 *                   block is counted at je_nallocx's size class (no page-map
 *                   lookup), others at je_malloc_usable_size.
 *   glibc           libc malloc plus malloc_usable_size.
 *   other libc      no usable-size query: each block carries a size prefix.
 *                   The prefix is a full max-alignment unit (16 bytes), not a
 *                   size_t, so the pointer handed out keeps malloc's own
 *                   alignment -- a 4-byte prefix on a 32-bit target would
 *                   break the 8-byte guarantee in zmalloc.h.
 *
 * used_memory is updated with relaxed atomics: the background threads free
 * memory too, and a counter needs no ordering with anything else.
 *
 * Allocation failure funnels into one handler (log one line, abort); only the
 * ztry* family returns NULL. Size arithmetic is overflow-checked before any
 * call so a huge request fails cleanly instead of wrapping to a tiny block.
 */
#include "zmalloc.h"
#include "platform.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <errno.h>

#if defined(USE_JEMALLOC)
#include <jemalloc/jemalloc.h>
#include <jemalloc/jemalloc_page.h> /* JEMALLOC_LG_PAGE, written by deps/jemalloc/build.sh */
#define raw_malloc(n) je_malloc(n)
#define raw_calloc(n) je_calloc(1, n)
#define raw_realloc(p, n) je_realloc(p, n)
#define raw_free(p) je_free(p)
#define raw_usable_size(p) je_malloc_usable_size((void *)(p))
/* What a fresh je_malloc(n) holds is n's size class: nallocx computes it
 * without the page-map lookup malloc_usable_size does (a measurable share
 * of a small write command's time). tests/c/test_zmalloc.c checks the two
 * agree for every size the server asks for. */
#define raw_fresh_size(p, n) je_nallocx((n) ? (n) : 1, 0) /* malloc(0) gets the 1-byte class */
#define HAVE_USABLE_SIZE 1
#define STR_(x) #x
#define STR(x) STR_(x)
#define ALLOCATOR_NAME "jemalloc-" STR(JEMALLOC_VERSION_MAJOR) "." \
    STR(JEMALLOC_VERSION_MINOR) "." STR(JEMALLOC_VERSION_BUGFIX)
#elif defined(__GLIBC__) && !defined(ZMALLOC_FORCE_PREFIX)
#include <malloc.h>
#define raw_malloc(n) malloc(n)
#define raw_calloc(n) calloc(1, n)
#define raw_realloc(p, n) realloc(p, n)
#define raw_free(p) free(p)
#define raw_usable_size(p) malloc_usable_size((void *)(p))
#define HAVE_USABLE_SIZE 1
#define ALLOCATOR_NAME "libc"
#else
#define raw_malloc(n) malloc(n)
#define raw_calloc(n) calloc(1, n)
#define raw_realloc(p, n) realloc(p, n)
#define raw_free(p) free(p)
#define ALLOCATOR_NAME "libc"
#endif

#ifdef HAVE_USABLE_SIZE
#define PREFIX_SIZE 0
#else
#define PREFIX_SIZE 16
#endif

static size_t used_memory;

static void default_oom_handler(size_t size) {
    fprintf(stderr, "zmalloc: Out Of Memory allocating %zu bytes!\n", size);
    fflush(stderr);
    abort();
}

static void (*oom_handler)(size_t) = default_oom_handler;

void zmalloc_set_oom_handler(void (*handler)(size_t)) {
    oom_handler = handler ? handler : default_oom_handler;
}

static void count_alloc(size_t n) { __atomic_add_fetch(&used_memory, n, __ATOMIC_RELAXED); }
static void count_free(size_t n) { __atomic_sub_fetch(&used_memory, n, __ATOMIC_RELAXED); }

#ifndef raw_fresh_size
#define raw_fresh_size(p, n) block_size(p)
#endif

/* ---- the prefix scheme (only where the allocator cannot tell sizes) ---- */

#ifdef HAVE_USABLE_SIZE
static void *user_ptr(void *raw, size_t size) { (void)size; return raw; }
static void *raw_ptr(void *user) { return user; }
static size_t block_size(const void *user) { return raw_usable_size(user); }
#else
static void *user_ptr(void *raw, size_t size) {
    memcpy(raw, &size, sizeof size);
    return (char *)raw + PREFIX_SIZE;
}
static void *raw_ptr(void *user) { return (char *)user - PREFIX_SIZE; }
static size_t block_size(const void *user) {
    size_t size;
    memcpy(&size, (const char *)user - PREFIX_SIZE, sizeof size);
    return size;
}
#endif

/* ---- core operations, NULL on failure ------------------------------------ */

/* No object may exceed PTRDIFF_MAX; refusing earlier also keeps the prefix
 * addition and any caller's pointer arithmetic from wrapping. */
static int size_overflows(size_t size) { return size > (size_t)PTRDIFF_MAX - PREFIX_SIZE - 64; }

static void *try_alloc(size_t size, int zeroed, size_t *usable) {
    if (size_overflows(size)) return NULL;
    void *raw = zeroed ? raw_calloc(size + PREFIX_SIZE) : raw_malloc(size + PREFIX_SIZE);
    if (!raw) return NULL;
    void *p = user_ptr(raw, size);
    size_t got = raw_fresh_size(p, size);
    count_alloc(got + PREFIX_SIZE);
    if (usable) *usable = got;
    return p;
}

static void *try_realloc(void *ptr, size_t size, size_t *usable) {
    if (ptr == NULL) return try_alloc(size, 0, usable);
    if (size == 0) { zfree(ptr); if (usable) *usable = 0; return NULL; }
    if (size_overflows(size)) return NULL;
    size_t old = block_size(ptr);
    void *raw = raw_realloc(raw_ptr(ptr), size + PREFIX_SIZE);
    if (!raw) return NULL;
    void *p = user_ptr(raw, size);
    size_t got = block_size(p);
    count_free(old);
    count_alloc(got);
    if (usable) *usable = got;
    return p;
}

static void *or_die(void *p, size_t size) {
    if (!p && size) oom_handler(size);
    return p;
}

/* ---- public API ----------------------------------------------------------- */

void *ztrymalloc(size_t size) { return try_alloc(size, 0, NULL); }
void *ztrycalloc(size_t size) { return try_alloc(size, 1, NULL); }
void *ztryrealloc(void *ptr, size_t size) { return try_realloc(ptr, size, NULL); }

void *zmalloc(size_t size) { return or_die(try_alloc(size, 0, NULL), size ? size : 1); }
void *zcalloc(size_t size) { return or_die(try_alloc(size, 1, NULL), size ? size : 1); }
void *zrealloc(void *ptr, size_t size) { return or_die(try_realloc(ptr, size, NULL), size); }

void *zmalloc_usable(size_t size, size_t *usable) {
    return or_die(try_alloc(size, 0, usable), size ? size : 1);
}

void *zrealloc_usable(void *ptr, size_t size, size_t *usable) {
    return or_die(try_realloc(ptr, size, usable), size);
}

void zfree(void *ptr) {
    if (ptr == NULL) return;
    count_free(block_size(ptr) + PREFIX_SIZE);
    raw_free(raw_ptr(ptr));
}

char *zstrdup(const char *s) {
    size_t len = strlen(s) + 1;
    char *p = zmalloc(len);
    memcpy(p, s, len);
    return p;
}

size_t zmalloc_size(const void *ptr) { return block_size(ptr); }

/* jemalloc says (nallocx) without allocating; elsewhere the size class is
 * not known beforehand, so the answer is size itself: a caller comparing it
 * with a block's size then reallocates as it would without asking. */
size_t zmalloc_good_size(size_t size) {
#if defined(USE_JEMALLOC)
    return je_nallocx(size ? size : 1, 0);
#else
    return size;
#endif
}

/* The allocator itself, not counted in used_memory: for a library that
 * takes allocation hooks (OpenSSL), whose buffers are not the dataset's
 * but should not pay libc malloc's cost either. No size prefix: these
 * blocks never meet zfree or zmalloc_size. */
void *zmalloc_uncounted(size_t size) { return raw_malloc(size); }
void *zrealloc_uncounted(void *ptr, size_t size) { return raw_realloc(ptr, size); }
void zfree_uncounted(void *ptr) { raw_free(ptr); }

size_t zmalloc_used_memory(void) { return __atomic_load_n(&used_memory, __ATOMIC_RELAXED); }

const char *zmalloc_allocator_name(void) { return ALLOCATOR_NAME; }

/* ---- system facts ----------------------------------------------------------- */

/* RSS from /proc/self/statm (second field, in pages). Reads into a stack
 * buffer: this may run from the OOM path, so it must not allocate. */
size_t zmalloc_get_rss(void) {
    char buf[128];
    int fd = open("/proc/self/statm", O_RDONLY);
    if (fd == -1) return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return 0;
    buf[n] = '\0';
    unsigned long long size_pages, rss_pages;
    if (sscanf(buf, "%llu %llu", &size_pages, &rss_pages) != 2) return 0;
    long page = sysconf(_SC_PAGESIZE);
    return page > 0 ? (size_t)(rss_pages * (unsigned long long)page) : 0;
}

/* ---- the allocator's own figures ------------------------------------------------ */

#if defined(USE_JEMALLOC)
static size_t jemallocStat(const char *name) {
    size_t value, len = sizeof value;
    return je_mallctl(name, &value, &len, NULL, 0) == 0 ? value : 0;
}

int zmalloc_get_allocator_info(size_t *allocated, size_t *active, size_t *resident) {
    uint64_t epoch = 1;
    size_t len = sizeof epoch;
    je_mallctl("epoch", &epoch, &len, &epoch, len); /* refreshes the statistics */
    *allocated = jemallocStat("stats.allocated");
    *active = jemallocStat("stats.active");
    *resident = jemallocStat("stats.resident");
    return 0;
}

int zmalloc_stats_print(void (*write)(void *opaque, const char *text), void *opaque) {
    je_malloc_stats_print(write, opaque, NULL);
    return 0;
}

int zmalloc_purge(void) {
    char name[32];
    snprintf(name, sizeof name, "arena.%d.purge", MALLCTL_ARENAS_ALL);
    return je_mallctl(name, NULL, NULL, NULL, 0) == 0 ? 0 : -1;
}

/* jemalloc's "background_thread": worker threads that return dirty pages
 * to the system off the main thread. fork() is safe with them running:
 * jemalloc's own atfork handlers take its locks around the fork, and in the
 * child (which has only the forking thread) they record the background
 * threads as stopped, so a BGSAVE or rewrite child purges inline. */
int zmalloc_set_background_thread(int enable) {
    bool value = enable != 0;
    return je_mallctl("background_thread", NULL, NULL, &value, sizeof value) == 0 ? 0 : -1;
}

/* ---- active defragmentation ---------------------------------------------------------- */

/* The upstream jemalloc 5.3 has no "defrag hint" (Redis patches its copy to
 * add one); its experimental.utilization.query answers the same question
 * from the outside: for the slab holding ptr, its free and total regions;
 * for the slab's bin (size class), free and total regions over all its
 * slabs; and the address of the slab new regions come from. The name is
 * resolved to a MIB once: the per-pointer call then skips the name walk. */
typedef struct utilStats { /* jemalloc 5.3's inspect_extent_util_stats_verbose_t, field for field */
    void *slabcur_addr;
    size_t nfree, nregs, size, bin_nfree, bin_nregs;
} utilStats;

static size_t util_mib[8];
static size_t util_miblen; /* 0: not resolved yet; SIZE_MAX: unavailable */

static int utilQuery(void *ptr, utilStats *out) {
    if (util_miblen == 0) {
        util_miblen = sizeof util_mib / sizeof util_mib[0];
        if (je_mallctlnametomib("experimental.utilization.query", util_mib, &util_miblen) != 0)
            util_miblen = SIZE_MAX;
    }
    if (util_miblen == SIZE_MAX) return -1;
    size_t len = sizeof *out;
    return je_mallctlbymib(util_mib, util_miblen, out, &len, &ptr, sizeof ptr) == 0 ? 0 : -1;
}

/* Moving helps when the block sits in a slab (a large allocation has a
 * whole extent to itself), the slab has holes (a full one is best left
 * alone), it is not the slab fresh blocks are carved from (the copy would
 * land next to the original), and the slab is less used than its bin on
 * average: the copy then goes to a fuller slab, and emptier slabs drain
 * until jemalloc can give their pages back. The comparison is
 * used/nregs < 1.125 * bin_used/bin_nregs, cross-multiplied to stay in
 * integers: the bin's average counts its full slabs too, and the eighth
 * more keeps a bin whose slabs are all about equally used from stagnating
 * (Redis's patched hint weighs its average the same way). */
static int worthMoving(void *ptr) {
    utilStats u;
    if (utilQuery(ptr, &u) != 0) return 0;
    if (u.nfree == 0 || u.nregs <= 1 || u.bin_nregs == 0) return 0;
    const char *p = ptr, *cur = u.slabcur_addr;
    if (cur != NULL && p >= cur && p < cur + u.size) return 0;
    size_t used = u.nregs - u.nfree, bin_used = u.bin_nregs - u.bin_nfree;
    return (unsigned long long)used * u.bin_nregs * 8 < (unsigned long long)bin_used * u.nregs * 9;
}

int zmalloc_defrag_supported(void) { return 1; }

void *zmalloc_defrag_move(void *ptr) {
    if (ptr == NULL || !worthMoving(ptr)) return NULL;
    size_t size = je_malloc_usable_size(ptr);
    void *copy = je_mallocx(size, MALLOCX_TCACHE_NONE);
    if (copy == NULL) return NULL;
    memcpy(copy, ptr, size);
    return copy;
}

void zmalloc_defrag_free(void *ptr) {
    if (ptr != NULL) je_dallocx(ptr, MALLOCX_TCACHE_NONE);
}

int zmalloc_mallctl(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen) {
    return je_mallctl(name, oldp, oldlenp, newp, newlen);
}
#else
int zmalloc_get_allocator_info(size_t *allocated, size_t *active, size_t *resident) {
    *allocated = *active = *resident = 0;
    return -1;
}

int zmalloc_stats_print(void (*write)(void *opaque, const char *text), void *opaque) {
    (void)write;
    (void)opaque;
    return -1;
}

int zmalloc_purge(void) { return -1; }

int zmalloc_set_background_thread(int enable) {
    (void)enable;
    return -1;
}

int zmalloc_defrag_supported(void) { return 0; }
void *zmalloc_defrag_move(void *ptr) { (void)ptr; return NULL; }
void zmalloc_defrag_free(void *ptr) { zfree(ptr); }

int zmalloc_mallctl(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen) {
    (void)name; (void)oldp; (void)oldlenp; (void)newp; (void)newlen;
    return ENOTSUP;
}
#endif

#if defined(USE_JEMALLOC)
/* jemalloc initialises itself from a constructor, before main(), and on a
 * kernel whose page size it cannot handle it prints its own "Unsupported
 * system page size" lines first. This constructor runs earlier (priority
 * 101) and holds jemalloc's messages back until zmalloc_check_page_size()
 * has decided: on failure the server prints one clear line instead; on
 * success messages go to stderr again as usual. */
static void holdJemallocMessage(void *opaque, const char *msg) { (void)opaque; (void)msg; }

__attribute__((constructor(101))) static void holdJemallocMessagesUntilChecked(void) {
    je_malloc_message = holdJemallocMessage;
}
#endif

int zmalloc_check_page_size(char *err, size_t errlen) {
#if defined(USE_JEMALLOC)
    long page = sysconf(_SC_PAGESIZE);
    long supported = 1L << JEMALLOC_LG_PAGE;
    if (page <= supported) je_malloc_message = NULL; /* back to jemalloc's default */
    if (page > supported) {
        snprintf(err, errlen,
                 "This build's jemalloc supports pages up to %ld KiB, but the system page size "
                 "is %ld KiB: rebuild with MALLOC=libc (or jemalloc with a larger lg-page)",
                 supported / 1024, page / 1024);
        return -1;
    }
#endif
    (void)err; (void)errlen;
    return 0;
}
