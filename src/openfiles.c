/* openfiles.c -- the process's open-files limit and maxclients kept in step,
 * and what happens when the process runs out of descriptors anyway.
 *
 * Every client is a descriptor, and the server needs a few more of its own
 * (listening sockets, the event loop, the AOF and RDB files, the log, bio
 * threads' files): CONFIG_MIN_RESERVED_FDS of them. A typical soft limit is
 * 1024, far below the default maxclients of 10000, so without care the
 * 1017th client would find accept() failing with EMFILE while the
 * listening socket stays readable: a hang for the client and a busy loop
 * for the server.
 *
 * Design decisions:
 *  - At start-up the soft limit is raised toward maxclients + reserved, up
 *    to the hard limit (an unprivileged process may go that far). If that
 *    is still not enough, maxclients is lowered to what fits, with a warning
 *    that names both numbers, as Redis does (same log lines, which log
 *    parsers and sysadmins look for). CONFIG SET maxclients raises it the
 *    same way, or refuses with the number that would fit (config.c).
 *  - Past maxclients a client gets "-ERR max number of clients reached"
 *    (networking.c). Should accept() still fail with EMFILE/ENFILE (files
 *    opened beyond the reserve, another process exhausting the system
 *    table), one spare descriptor kept open on /dev/null is given up for a
 *    moment: the pending connection is accepted with it, told the same
 *    error, and closed, so the listening socket is drained and the event
 *    loop never spins on it. The failure is logged at most once a minute.
 */
#include "server.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/socket.h>

#define OPENFILES_LOG_PERIOD_SECONDS 60

static int reserve_fd = -1;
static time_t last_exhaustion_log;

/* Raises the soft limit toward `needed` (beyond the hard limit where the
 * process may raise that too); returns the limit now in force. When the
 * whole way is refused (a hard limit, or a kernel cap such as nr_open or
 * macOS's OPEN_MAX below an infinite hard limit), the highest soft limit
 * the system accepts: Redis walks down in steps of 16, a bisection finds
 * the same value in ~32 tries however far the cap is from maxclients. */
rlim_t openFilesRaiseLimit(rlim_t needed) {
    struct rlimit limit;
    if (getrlimit(RLIMIT_NOFILE, &limit) == -1) return needed; /* can't tell: let the event loop decide */
    if (limit.rlim_cur == RLIM_INFINITY || limit.rlim_cur >= needed) return needed;
    struct rlimit wanted = limit;
    wanted.rlim_cur = needed;
    if (wanted.rlim_max != RLIM_INFINITY && wanted.rlim_max < needed) wanted.rlim_max = needed;
    if (setrlimit(RLIMIT_NOFILE, &wanted) == 0) return needed;
    int saved_errno = errno;
    wanted.rlim_max = limit.rlim_max;
    rlim_t works = limit.rlim_cur; /* the limit in force is always the last value that worked */
    rlim_t fails = needed;
    if (limit.rlim_max != RLIM_INFINITY && limit.rlim_max < needed) {
        wanted.rlim_cur = limit.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &wanted) == 0) works = limit.rlim_max;
        else fails = limit.rlim_max;
    }
    while (fails - works > 1 && works < limit.rlim_max) {
        wanted.rlim_cur = works + (fails - works) / 2;
        if (setrlimit(RLIMIT_NOFILE, &wanted) == 0) works = wanted.rlim_cur;
        else fails = wanted.rlim_cur;
    }
    errno = saved_errno; /* why the whole way was refused, for the caller's log */
    return works;
}

static rlim_t currentSoftLimit(void) {
    struct rlimit limit;
    if (getrlimit(RLIMIT_NOFILE, &limit) == -1) return RLIM_INFINITY;
    return limit.rlim_cur;
}

/* Start-up: the limit raised for maxclients, or maxclients lowered to the
 * limit; exits when not even one client would fit. */
void openFilesAdjustForMaxclients(void) {
    rlim_t needed = (rlim_t)server.maxclients + CONFIG_MIN_RESERVED_FDS;
    rlim_t before = currentSoftLimit();
    rlim_t got = openFilesRaiseLimit(needed);
    if (got >= needed) {
        if (before != RLIM_INFINITY && got > before)
            serverLog(LL_NOTICE, "Increased maximum number of open files to %llu (it was originally set to %llu).",
                      (unsigned long long)got, (unsigned long long)before);
        return;
    }
    int saved_errno = errno;
    if (got <= CONFIG_MIN_RESERVED_FDS) {
        serverLog(LL_WARNING,
                  "Your current 'ulimit -n' of %llu is not enough for the server to start. "
                  "Please increase your open file limit to at least %llu. Exiting.",
                  (unsigned long long)got, (unsigned long long)CONFIG_MIN_RESERVED_FDS + 1);
        exit(1);
    }
    server.maxclients = (unsigned int)(got - CONFIG_MIN_RESERVED_FDS);
    serverLog(LL_WARNING, "You requested maxclients of %llu requiring at least %llu max file descriptors.",
              (unsigned long long)needed - CONFIG_MIN_RESERVED_FDS, (unsigned long long)needed);
    serverLog(LL_WARNING, "Server can't set maximum open files to %llu because of OS error: %s.",
              (unsigned long long)needed, strerror(saved_errno));
    serverLog(LL_WARNING,
              "Current maximum open files is %llu. maxclients has been reduced to %u to compensate for "
              "low ulimit. If you need higher maxclients increase 'ulimit -n'.",
              (unsigned long long)got, server.maxclients);
}

/* The spare descriptor; opened once the limit is settled. */
void openFilesReserveInit(void) {
    if (reserve_fd == -1) reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
}

static void logExhaustion(const char *what) {
    int saved_errno = errno;
    if (server.unixtime - last_exhaustion_log < OPENFILES_LOG_PERIOD_SECONDS) return;
    last_exhaustion_log = server.unixtime;
    serverLog(LL_WARNING,
              "Out of file descriptors accepting a %s connection (%s): refusing clients until some close. "
              "maxclients is %u; raise 'ulimit -n' or lower maxclients.",
              what, strerror(saved_errno), server.maxclients);
    errno = saved_errno;
}

/* accept() on `listener` just failed with errno. Returns 1 when the
 * failure was descriptor exhaustion and the pending connection has been
 * refused (the caller may try the next one), -1 when it was exhaustion but
 * nothing could be done now (already logged, at most once a minute: the
 * caller stops for this pass), 0 for any other failure (the caller's). */
int openFilesRefuseWhenExhausted(int listener, const char *what) {
    if (errno != EMFILE && errno != ENFILE) return 0;
    if (reserve_fd == -1) openFilesReserveInit(); /* lost last time: try again */
    if (reserve_fd == -1) { /* nothing to give up: the next readable event retries */
        logExhaustion(what);
        return -1;
    }
    close(reserve_fd);
    logExhaustion(what); /* with the spare given up: the log file needs a descriptor too */
    int fd = accept(listener, NULL, NULL);
    if (fd != -1) {
        static const char err[] = "-ERR max number of clients reached\r\n";
        if (write(fd, err, sizeof err - 1) == -1) { /* best effort: the connection closes anyway */ }
        close(fd);
        server.stat_rejected_conn++;
    }
    reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    return fd != -1;
}
