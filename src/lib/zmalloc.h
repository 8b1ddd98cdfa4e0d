/* zmalloc.h -- allocation wrappers: one place for accounting, usable sizes and
 * out-of-memory handling.
 *
 * Every allocation in the server goes through these functions so that
 * `used_memory` (INFO, maxmemory) is exact. Allocation failure is not an
 * error callers handle: zmalloc and friends call the OOM handler, which logs
 * one clear line and aborts. The ztry* variants return NULL instead, for the
 * few callers that can recover (e.g. a client asking for a huge buffer).
 *
 * Every returned pointer is at least 8-byte aligned on every target
 * (asserted in the unit tests), including 32-bit ones and the size-prefix
 * scheme used when the allocator cannot report usable sizes.
 */
#ifndef REDIS_ZMALLOC_H
#define REDIS_ZMALLOC_H

#include <stddef.h>

#define ZMALLOC_MIN_ALIGNMENT 8

void *zmalloc(size_t size);
void *zcalloc(size_t size);
void *zrealloc(void *ptr, size_t size);
void *ztrymalloc(size_t size);
void *ztrycalloc(size_t size);
void *ztryrealloc(void *ptr, size_t size);
void zfree(void *ptr);
char *zstrdup(const char *s);

/* Like zmalloc/zrealloc but report the usable size (>= size) through *usable,
 * so dynamic strings can use the allocator's slack. */
void *zmalloc_usable(size_t size, size_t *usable);
void *zrealloc_usable(void *ptr, size_t size, size_t *usable);

size_t zmalloc_size(const void *ptr);   /* usable size of a live allocation */
size_t zmalloc_good_size(size_t size); /* usable size a fresh zmalloc(size) gets; size where unknown */

/* The allocator without accounting, for third-party libraries' own memory
 * (OpenSSL's hooks): not in used_memory, as in Redis. Never mix with zfree. */
void *zmalloc_uncounted(size_t size);
void *zrealloc_uncounted(void *ptr, size_t size);
void zfree_uncounted(void *ptr);
size_t zmalloc_used_memory(void);       /* bytes currently allocated */
size_t zmalloc_get_rss(void);           /* resident set size, 0 if unknown */
const char *zmalloc_allocator_name(void); /* e.g. "jemalloc-5.3.0" or "libc" */

/* What the allocator itself reports, for MEMORY STATS/MALLOC-STATS/PURGE.
 * Each returns -1 when the allocator has no such facility (libc):
 * - allocated <= active <= resident bytes, as the allocator counts them;
 * - its statistics as text, handed to write() in pieces;
 * - purge: returns unused dirty pages to the system. */
int zmalloc_get_allocator_info(size_t *allocated, size_t *active, size_t *resident);
int zmalloc_stats_print(void (*write)(void *opaque, const char *text), void *opaque);
int zmalloc_purge(void);

/* Starts (1) or stops (0) the allocator's background purging thread
 * (jemalloc-bg-thread); -1 when the allocator has none (libc). */
int zmalloc_set_background_thread(int enable);

/* Active defragmentation (the server's src/defrag.c), on jemalloc only:
 * - zmalloc_defrag_supported: 1 with jemalloc, 0 otherwise;
 * - zmalloc_defrag_move: when moving ptr's block would help (its slab is
 *   less used than its size class's average, and is not the slab new
 *   blocks are carved from), a copy of the whole block in a fresh one taken
 *   without the thread cache, else NULL. The old block is left as it is:
 *   the caller repoints everything at the copy, reading the old block as it
 *   needs, then frees it with zmalloc_defrag_free (no thread cache either,
 *   so the hole goes back to its slab at once). used_memory is unchanged
 *   across the pair (same size class);
 * - zmalloc_mallctl: jemalloc's mallctl as is (DEBUG MALLCTL): 0 or an errno
 *   value; ENOTSUP where the allocator has none. */
int zmalloc_defrag_supported(void);
void *zmalloc_defrag_move(void *ptr);
void zmalloc_defrag_free(void *ptr);
int zmalloc_mallctl(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen);

/* Called with the requested size when an allocation fails; the default logs
 * "Out Of Memory allocating N bytes!" to stderr and aborts. */
void zmalloc_set_oom_handler(void (*handler)(size_t size));

/* Checks, before the first allocation, that the allocator can run on this
 * system's page size (a jemalloc built for 4K pages cannot on a 16K-page
 * kernel). Returns 0 if fine; otherwise -1 with a one-line explanation in err. */
int zmalloc_check_page_size(char *err, size_t errlen);

#endif /* REDIS_ZMALLOC_H */
