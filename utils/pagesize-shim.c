/* utils/pagesize-shim.c — LD_PRELOAD library that fakes the system page size.
 *
 * Purpose: prove, on an ordinary 4 KiB-page x86_64 machine, that the server
 * starts on kernels with larger pages (Raspberry Pi 5: 16 KiB, many arm64
 * and ppc64 distributions: 64 KiB) and refuses cleanly, with one line on
 * stderr, where the page size exceeds what its allocator was built for
 * (jemalloc's compile-time LG_PAGE). tests/c/pagesize-check.sh builds it and
 * runs a binary under FAKE_PAGESIZE=4096, 16384, 65536 and 262144.
 *
 * With FAKE_PAGESIZE set to a positive integer, sysconf(_SC_PAGESIZE),
 * sysconf(_SC_PAGE_SIZE) (the same constant in glibc) and getpagesize()
 * return it; every other sysconf name, and all calls when the variable is
 * unset or not a positive integer, go to the real libc function.
 *
 * Design decisions:
 * - Only the page-size queries are faked, not mmap granularity: that is
 *   enough because jemalloc learns the page size solely from
 *   sysconf(_SC_PAGESIZE) (os_page_detect() in its src/pages.c) and the
 *   server's page-size check asks the same function. Faking a SMALLER size
 *   than the real one would make mmap-alignment assumptions wrong, so the
 *   test only ever fakes sizes >= 4096 on a 4 KiB host.
 * - Interposition works for dynamically linked binaries only (calls through
 *   the PLT); glibc's internal calls and static binaries are not affected,
 *   which is why the check runs on the native, dynamically linked build.
 * - The environment is read on every call (cheap next to a syscall and free
 *   of initialisation-order problems: jemalloc asks from a constructor that
 *   may run before this library's own constructors).
 * - The real functions are found with dlsym(RTLD_NEXT) on first use; the
 *   cached pointer is written with the same value by any racing thread.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Largest value accepted, so that getpagesize()'s int can always hold it. */
#define PAGESIZE_SHIM_MAX (1L << 30)

/* The faked page size, or 0 when FAKE_PAGESIZE is unset or malformed. */
static long pagesize_shim_fake_value(void)
{
    const char *text = getenv("FAKE_PAGESIZE");
    if (text == NULL || *text == '\0')
        return 0;
    char *end = NULL;
    int saved_errno = errno;
    errno = 0;
    long value = strtol(text, &end, 10);
    int malformed = (errno != 0 || *end != '\0' || value <= 0 ||
                     value > PAGESIZE_SHIM_MAX);
    errno = saved_errno;
    return malformed ? 0 : value;
}

/* The next definition of NAME after ours (libc's), as a generic function
 * pointer; memcpy because ISO C has no cast from void * to a function. */
typedef void (*pagesize_shim_fn)(void);
static pagesize_shim_fn pagesize_shim_next(const char *name)
{
    void *symbol = dlsym(RTLD_NEXT, name);
    pagesize_shim_fn fn = NULL;
    if (symbol != NULL)
        memcpy(&fn, &symbol, sizeof fn);
    return fn;
}

long sysconf(int name)
{
    static long (*real_sysconf)(int);
    long fake = pagesize_shim_fake_value();

    if (fake != 0 && (name == _SC_PAGESIZE || name == _SC_PAGE_SIZE))
        return fake;
    if (real_sysconf == NULL)
        real_sysconf = (long (*)(int))pagesize_shim_next("sysconf");
    if (real_sysconf == NULL) {
        errno = ENOSYS;
        return -1;
    }
    return real_sysconf(name);
}

int getpagesize(void)
{
    static int (*real_getpagesize)(void);
    long fake = pagesize_shim_fake_value();

    if (fake != 0)
        return (int)fake;
    if (real_getpagesize == NULL)
        real_getpagesize = (int (*)(void))pagesize_shim_next("getpagesize");
    return real_getpagesize != NULL ? real_getpagesize() : 4096;
}
