/* thp.c -- disable-thp: opt the server out of transparent huge pages.
 *
 * With THP set to `always` the kernel backs the heap with 2 MB pages, so
 * after fork() (BGSAVE, AOF rewrite) the first write to any key copies a
 * whole 2 MB page instead of 4 KB: copy-on-write memory balloons and writes
 * stall. Redis's answer, reproduced here: at start-up, when the system
 * setting is `always` and disable-thp is yes (the default), the process
 * calls prctl(PR_SET_THP_DISABLE), which applies to itself and to the
 * children it forks afterwards.
 *
 * Design decisions:
 * - Start-up only (immutable, as in Redis): the flag must be set before the
 *   heap grows, and it can't usefully be taken back.
 * - `madvise` and `never` already keep the server's memory in 4 KB pages
 *   (it never calls madvise(MADV_HUGEPAGE)), so nothing is done there.
 * - Linux only; elsewhere the directive is accepted and does nothing. A
 *   kernel without PR_SET_THP_DISABLE (before 3.15) gets a warning.
 * - The decision is thpParseMode() in thp.h, unit-tested on its own.
 */
#include "server.h"
#include "thp.h"

#include <errno.h>
#include <fcntl.h>

#if defined(__linux__)
#include <sys/prctl.h>
#endif

#define THP_SYSFS "/sys/kernel/mm/transparent_hugepage/enabled"

/* The system's THP mode, THP_MODE_UNKNOWN when it can't be read. */
static int thpSystemMode(void) {
    char buf[128];
    int fd = open(THP_SYSFS, O_RDONLY);
    if (fd == -1) return THP_MODE_UNKNOWN;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return THP_MODE_UNKNOWN;
    buf[n] = '\0';
    return thpParseMode(buf);
}

void thpInit(void) {
#if defined(__linux__) && defined(PR_SET_THP_DISABLE)
    if (!server.disable_thp || thpSystemMode() != THP_MODE_ALWAYS) return;
    if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) == 0)
        serverLog(LL_NOTICE, "Transparent huge pages are set to 'always' on this system: "
                             "disabled them for this process (disable-thp yes)");
    else
        serverLog(LL_WARNING, "Could not disable transparent huge pages for this process: %s. "
                              "Copy-on-write after fork may copy 2 MB pages.", strerror(errno));
#elif defined(__linux__)
    if (server.disable_thp && thpSystemMode() == THP_MODE_ALWAYS)
        serverLog(LL_WARNING, "Transparent huge pages are 'always' and this build can't disable them "
                              "(no PR_SET_THP_DISABLE)");
#endif
}
