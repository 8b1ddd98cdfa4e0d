/* debug.c -- assertions, the crash report, the dataset digest and DEBUG.
 *
 * Crash report. SIGSEGV, SIGBUS, SIGILL, SIGFPE and SIGABRT (which is what
 * serverAssert()/serverPanic() end in; libAssert() too, as main() installs
 * serverAssertFailed() as the libraries' assert handler) run crashHandler()
 * on an alternate signal stack, so even a stack overflow gets a report. It
 * writes, straight to the log file descriptor:
 *   - "Redis <version> crashed by signal: N (SIGxxx), si_code: N", who sent
 *     it when it came from kill(), "Accessing address: 0x..." (si_addr) and
 *     "Crashed running the instruction at: 0x..." (the faulting pc);
 *   - the registers that matter (pc, sp, lr/ra, frame pointer ...) read from
 *     the signal context of each CPU we run on, "unknown" elsewhere;
 *   - a stack trace through backtrace() where the C library has one;
 *   - the INFO output and the client whose command was running, with argv.
 * Then the default action is restored and the signal raised again, so the
 * exit status (and a core dump, if enabled) tells the truth. Redis 7.0's
 * knobs: crash-log-enabled no skips the report; use-exit-on-panic turns
 * the SIGABRT of an assertion or a panic into exit(1) (crashEnd()).
 *
 * Software watchdog (watchdog-period): a SIGALRM timer re-armed every cron
 * tick; if it fires, the event loop is stuck and the stack of the stuck
 * code is logged the same signal-safe way (see watchdogSchedule()).
 *
 * Decisions:
 * - The first lines (signal, address, pc, registers, stack trace) use only
 *   open/write and a fixed buffer, so they survive a corrupted heap. The
 *   INFO and client dump allocate; if that faults, SA_RESETHAND makes the
 *   second fault fatal and the lines already written stay in the log.
 * - SA_NODEFER|SA_RESETHAND: a fault inside the handler kills the process
 *   instead of recursing.
 * - A signal can land while the main thread is inside the allocator,
 *   holding one of its locks (a kill(1) during a free, seen under QEMU); the
 *   INFO dump would then wait for that lock forever. So the allocating part
 *   runs under alarm(): after CRASH_REPORT_TIMEOUT_S seconds the report is
 *   cut short with a line saying why, and the process dies of its original
 *   signal all the same.
 * - The signal context is not a ucontext_t everywhere: Linux/sparc64 passes
 *   a struct sigcontext (siginfo first, then the registers); reading it as
 *   a ucontext_t gives pc 0. Each CPU has its own small reader below.
 * - The stack is walked with the compiler's unwinder (_Unwind_Backtrace),
 *   linked statically (-static-libgcc natively): glibc's backtrace() would
 *   dlopen libgcc_s, which allocates in the handler or, loaded at start-up,
 *   costs ~100 KB of resident memory. With musl there is no unwinder (see
 *   platform.h). One walk at start-up sets up the unwinder's caches;
 *   our own frames are named from the executable's .symtab
 *   (crash_symbols.c), others by backtrace_symbols_fd(). The
 *   walk needs unwind tables to pass the signal frame: 32-bit ARM and
 *   SPARC64 builds must be compiled with -funwind-tables /
 *   -fasynchronous-unwind-tables, otherwise the report says the backtrace
 *   is unavailable and keeps the pc line.
 *
 * Digest. DEBUG DIGEST hashes the whole dataset independently of hash-table
 * order, with the same construction (and for strings the same result) as
 * Redis: per key, a SHA1 chain mixes the key, the value type and the value;
 * key digests are combined by XOR; each non-empty database mixes its id
 * first. mix(d, x) = SHA1(d XOR SHA1(x)), xor(d, x) = d XOR SHA1(x). Types
 * other than strings have their value digest in their own file, called by
 * a switch in mixValueDigest() (lists mix elements in order, sets and
 * hashes xor per-element digests, as Redis does). Every DEBUG subcommand,
 * those of other modules too, is listed in debug_subcommands[].
 *
 * DEBUG is refused unless enable-debug-command allows it ("yes", or "local"
 * for loopback and unix-socket clients), with Redis's error text. Its
 * subcommands are one table (name, argument counts, handler). The crash
 * subcommands cause real faults, so the tests exercise the handler exactly
 * as a bug would: SEGFAULT writes to a PROT_NONE page; SIGBUS writes past
 * the end of a mapped empty file and, where that does not fault (QEMU),
 * performs a misaligned multi-word load on CPUs that trap on it;
 * STACKOVERFLOW recurses until the guard page. DEBUG RELOAD and LOADAOF
 * are debugReloadCommand() (rdb.c) and debugLoadAofCommand() (aof_load.c);
 * AOF-FLUSH-SLEEP and REPLICATE are Redis 7.0's test hooks (aof.c's
 * aofFlush() sleeps; replication.c feeds the replicas only).
 */
#define _GNU_SOURCE
#include "server.h"
#include "listpack.h"
#include "quicklist.h"
#include "cluster.h"
#include "crash_symbols.h"

#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <ucontext.h>

#ifdef HAVE_BACKTRACE
#include <execinfo.h>
#endif
#ifdef HAVE_UNWIND_BACKTRACE
#include <unwind.h>
#endif

/* ---- assertions and panics ------------------------------------------------------------- */

/* Set by an assertion or a panic just before abort(): the crash handler
 * then knows the SIGABRT is a reported failure, which use-exit-on-panic
 * turns into exit(1). */
static volatile sig_atomic_t crash_from_assert;

void serverAssertFailed(const char *estr, const char *file, int line) {
    crash_from_assert = 1;
    serverLog(LL_WARNING, "=== ASSERTION FAILED ===");
    serverLog(LL_WARNING, "==> %s:%d '%s' is not true", file, line, estr);
}

void serverPanicFailed(const char *file, int line, const char *msg, ...) {
    char buf[1024];
    va_list ap;
    va_start(ap, msg);
    vsnprintf(buf, sizeof buf, msg, ap);
    va_end(ap);
    crash_from_assert = 1;
    serverLog(LL_WARNING, "------------------------------------------------");
    serverLog(LL_WARNING, "!!! Software Failure. Press left mouse button to continue");
    serverLog(LL_WARNING, "Guru Meditation: %s #%s:%d", buf, file, line);
}

/* ---- writing from the signal handler ------------------------------------------------------ */

/* The log file (appending) or stdout; only open/write, no stdio. */
static int crashLogOpen(void) {
    if (server.logfile == NULL || server.logfile[0] == '\0') return STDOUT_FILENO;
    int fd = open(server.logfile, O_APPEND | O_CREAT | O_WRONLY, 0644);
    return fd == -1 ? STDOUT_FILENO : fd;
}

static void crashLogClose(int fd) {
    if (fd != STDOUT_FILENO) close(fd);
}

static void crashWrite(int fd, const char *s, size_t len) {
    while (len) {
        ssize_t n = write(fd, s, len);
        if (n <= 0) {
            if (n == -1 && errno == EINTR) continue;
            return;
        }
        s += n;
        len -= (size_t)n;
    }
}

static void crashPuts(int fd, const char *s) { crashWrite(fd, s, strlen(s)); }

/* A formatted line into a fixed buffer: no allocation. */
static void crashPrintf(int fd, const char *fmt, ...) PRINTF_FMT(2, 3);
static void crashPrintf(int fd, const char *fmt, ...) {
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    crashWrite(fd, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

/* The "<pid>:signal-handler (<unixtime>) " prefix of the report's key lines:
 * localtime() is not safe in a signal handler, the raw time is. */
static void crashLogLine(int fd, const char *fmt, ...) PRINTF_FMT(2, 3);
static void crashLogLine(int fd, const char *fmt, ...) {
    char buf[512];
    int off = snprintf(buf, sizeof buf, "%d:signal-handler (%lld) ", (int)getpid(), (long long)time(NULL));
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + off, sizeof buf - (size_t)off - 1, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    size_t len = (size_t)off + ((size_t)n < sizeof buf - (size_t)off - 1 ? (size_t)n : sizeof buf - (size_t)off - 2);
    buf[len++] = '\n';
    crashWrite(fd, buf, len);
}

/* A log line from a signal handler (SIGTERM, SIGINT): the same prefix as
 * the crash report's, and only open/write. */
void serverLogFromHandler(int level, const char *msg) {
    if (level < server.verbosity) return;
    int fd = crashLogOpen();
    crashLogLine(fd, "%s", msg);
    crashLogClose(fd);
}

static const char *signalName(int sig) {
    switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGILL: return "SIGILL";
    case SIGFPE: return "SIGFPE";
    case SIGABRT: return "SIGABRT";
    default: return "unknown signal";
    }
}

/* ---- registers from the signal context, per CPU -------------------------------------------- */

#define CRASH_MAX_REGS 40

typedef struct crashRegisters {
    uintptr_t pc;          /* 0 when this platform's context is not understood */
    int count;
    const char *names[CRASH_MAX_REGS];
    uintptr_t values[CRASH_MAX_REGS];
} crashRegisters;

static void addRegister(crashRegisters *r, const char *name, uintptr_t value) {
    if (r->count == CRASH_MAX_REGS) return;
    r->names[r->count] = name;
    r->values[r->count] = value;
    r->count++;
}

#if defined(__linux__) && defined(__x86_64__)
static void readRegisters(void *ctx, crashRegisters *r) {
    static const struct { const char *name; int idx; } map[] = {
        {"rip", REG_RIP}, {"rsp", REG_RSP}, {"rbp", REG_RBP}, {"rax", REG_RAX}, {"rbx", REG_RBX},
        {"rcx", REG_RCX}, {"rdx", REG_RDX}, {"rsi", REG_RSI}, {"rdi", REG_RDI}, {"r8", REG_R8},
        {"r9", REG_R9},   {"r10", REG_R10}, {"r11", REG_R11}, {"r12", REG_R12}, {"r13", REG_R13},
        {"r14", REG_R14}, {"r15", REG_R15}, {"eflags", REG_EFL}};
    ucontext_t *uc = ctx;
    r->pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
    for (size_t j = 0; j < sizeof map / sizeof map[0]; j++)
        addRegister(r, map[j].name, (uintptr_t)uc->uc_mcontext.gregs[map[j].idx]);
}
#elif defined(__linux__) && defined(__i386__)
static void readRegisters(void *ctx, crashRegisters *r) {
    static const struct { const char *name; int idx; } map[] = {
        {"eip", REG_EIP}, {"esp", REG_ESP}, {"ebp", REG_EBP}, {"eax", REG_EAX}, {"ebx", REG_EBX},
        {"ecx", REG_ECX}, {"edx", REG_EDX}, {"esi", REG_ESI}, {"edi", REG_EDI}, {"eflags", REG_EFL}};
    ucontext_t *uc = ctx;
    r->pc = (uintptr_t)uc->uc_mcontext.gregs[REG_EIP];
    for (size_t j = 0; j < sizeof map / sizeof map[0]; j++)
        addRegister(r, map[j].name, (uintptr_t)uc->uc_mcontext.gregs[map[j].idx]);
}
#elif defined(__linux__) && defined(__aarch64__)
static void readRegisters(void *ctx, crashRegisters *r) {
    static const char *names[31] = {"x0",  "x1",  "x2",  "x3",  "x4",  "x5",  "x6",  "x7",
                                    "x8",  "x9",  "x10", "x11", "x12", "x13", "x14", "x15",
                                    "x16", "x17", "x18", "x19", "x20", "x21", "x22", "x23",
                                    "x24", "x25", "x26", "x27", "x28", "fp",  "lr"};
    ucontext_t *uc = ctx;
    r->pc = (uintptr_t)uc->uc_mcontext.pc;
    addRegister(r, "pc", r->pc);
    addRegister(r, "sp", (uintptr_t)uc->uc_mcontext.sp);
    addRegister(r, "lr", (uintptr_t)uc->uc_mcontext.regs[30]);
    addRegister(r, "fp", (uintptr_t)uc->uc_mcontext.regs[29]);
    for (int j = 0; j < 29; j++) addRegister(r, names[j], (uintptr_t)uc->uc_mcontext.regs[j]);
}
#elif defined(__linux__) && defined(__arm__)
static void readRegisters(void *ctx, crashRegisters *r) {
    ucontext_t *uc = ctx;
    mcontext_t *m = &uc->uc_mcontext;
    r->pc = (uintptr_t)m->arm_pc;
    addRegister(r, "pc", r->pc);
    addRegister(r, "sp", (uintptr_t)m->arm_sp);
    addRegister(r, "lr", (uintptr_t)m->arm_lr);
    addRegister(r, "fp", (uintptr_t)m->arm_fp);
    addRegister(r, "ip", (uintptr_t)m->arm_ip);
    addRegister(r, "cpsr", (uintptr_t)m->arm_cpsr);
    addRegister(r, "r0", (uintptr_t)m->arm_r0);
    addRegister(r, "r1", (uintptr_t)m->arm_r1);
    addRegister(r, "r2", (uintptr_t)m->arm_r2);
    addRegister(r, "r3", (uintptr_t)m->arm_r3);
    addRegister(r, "r4", (uintptr_t)m->arm_r4);
    addRegister(r, "r5", (uintptr_t)m->arm_r5);
    addRegister(r, "r6", (uintptr_t)m->arm_r6);
    addRegister(r, "r7", (uintptr_t)m->arm_r7);
    addRegister(r, "r8", (uintptr_t)m->arm_r8);
    addRegister(r, "r9", (uintptr_t)m->arm_r9);
    addRegister(r, "r10", (uintptr_t)m->arm_r10);
    addRegister(r, "fault_address", (uintptr_t)m->fault_address);
}
#elif defined(__linux__) && defined(__sparc__) && defined(__arch64__)
/* Linux/sparc64 hands SA_SIGINFO handlers a struct sigcontext, not a
 * ucontext_t. u_regs holds %g0-%g7 then %o0-%o7 of the interrupted frame;
 * %o6 is the (biased by 2047) stack pointer, %o7 the return address. */
static void readRegisters(void *ctx, crashRegisters *r) {
    static const char *names[16] = {"g0", "g1", "g2", "g3", "g4", "g5", "g6", "g7",
                                    "o0", "o1", "o2", "o3", "o4", "o5", "sp(o6)", "o7"};
    struct sigcontext *sc = ctx;
    r->pc = (uintptr_t)sc->sigc_regs.tpc;
    addRegister(r, "pc", r->pc);
    addRegister(r, "npc", (uintptr_t)sc->sigc_regs.tnpc);
    addRegister(r, "sp(o6)", (uintptr_t)sc->sigc_regs.u_regs[14]);
    addRegister(r, "o7", (uintptr_t)sc->sigc_regs.u_regs[15]);
    addRegister(r, "tstate", (uintptr_t)sc->sigc_regs.tstate);
    for (int j = 1; j < 14; j++) addRegister(r, names[j], (uintptr_t)sc->sigc_regs.u_regs[j]);
}
#elif defined(__linux__) && defined(__s390x__)
static void readRegisters(void *ctx, crashRegisters *r) {
    static const char *names[16] = {"r0", "r1", "r2",  "r3",  "r4",  "r5",  "r6",        "r7",
                                    "r8", "r9", "r10", "r11", "r12", "r13", "r14(ra)", "r15(sp)"};
    ucontext_t *uc = ctx;
    r->pc = (uintptr_t)uc->uc_mcontext.psw.addr;
    addRegister(r, "pc", r->pc);
    addRegister(r, "psw.mask", (uintptr_t)uc->uc_mcontext.psw.mask);
    for (int j = 15; j >= 0; j--) addRegister(r, names[j], (uintptr_t)uc->uc_mcontext.gregs[j]);
}
#else
/* A CPU/OS whose signal context we do not decode: the report says so. */
static void readRegisters(void *ctx, crashRegisters *r) {
    (void)ctx;
    r->pc = 0;
    r->count = 0;
}
#endif

static void crashLogRegisters(int fd, const crashRegisters *r) {
    crashPuts(fd, "\n------ REGISTERS ------\n");
    if (r->count == 0) {
        crashPuts(fd, "unknown (the signal context of this platform is not decoded)\n");
        return;
    }
    for (int j = 0; j < r->count; j++)
        crashPrintf(fd, "%-8s 0x%0*lx%s", r->names[j], (int)(sizeof(uintptr_t) * 2), (unsigned long)r->values[j],
                    (j % 4 == 3 || j == r->count - 1) ? "\n" : "  ");
}

/* ---- stack trace ------------------------------------------------------------------------------ */

#define CRASH_MAX_FRAMES 100

/* The main thread's stack, as seen at start-up: its top (an address in
 * main's frames) and how far it may grow (RLIMIT_STACK; 0 when unlimited). */
static uintptr_t crash_stack_top;
static uintptr_t crash_stack_room;

static void rememberMainStack(void *an_address_in_it) {
    struct rlimit rl;
    crash_stack_top = (uintptr_t)an_address_in_it;
    if (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < crash_stack_top)
        crash_stack_room = (uintptr_t)rl.rlim_cur;
}

/* A SIGSEGV at an address within the stack's reach (plus the guard area
 * below it) is the stack running out. */
static int faultIsStackOverflow(int sig, const siginfo_t *info) {
    if (sig != SIGSEGV || info == NULL || crash_stack_room == 0) return 0;
    uintptr_t addr = (uintptr_t)info->si_addr, margin = 1024 * 1024;
    return addr <= crash_stack_top && crash_stack_top - addr <= crash_stack_room + margin;
}

#ifdef HAVE_UNWIND_BACKTRACE
struct frameCollector {
    void **frames;
    int max, count;
};

static _Unwind_Reason_Code collectFrame(struct _Unwind_Context *ctx, void *arg) {
    struct frameCollector *fc = arg;
    uintptr_t ip = (uintptr_t)_Unwind_GetIP(ctx);
    if (ip == 0 || fc->count >= fc->max) return _URC_END_OF_STACK;
    fc->frames[fc->count++] = (void *)ip;
    return _URC_NO_REASON;
}

static int collectBacktrace(void **frames, int max) {
    struct frameCollector fc = {frames, max, 0};
    _Unwind_Backtrace(collectFrame, &fc);
    return fc.count;
}
#endif

/* A frame in one of our functions is named from the executable's own
 * symbol table (crash_symbols.c: static functions too, no -rdynamic),
 * in backtrace_symbols_fd()'s format; any other (libc's) by that call,
 * with the symbol dladdr() finds. */
static void crashLogAddresses(int fd, void **addrs, int n) {
    crashSymbol syms[CRASH_SYMBOLS_MAX];
    char exe[256];
    if (n > CRASH_SYMBOLS_MAX) n = CRASH_SYMBOLS_MAX;
    crashSymbolsFind(addrs, n, syms, exe, sizeof exe);
    for (int j = 0; j < n; j++) {
        if (syms[j].found) {
            crashPrintf(fd, "%s(%s+0x%lx)[0x%lx]\n", exe, syms[j].name, (unsigned long)syms[j].offset,
                        (unsigned long)(uintptr_t)addrs[j]);
            continue;
        }
#ifdef HAVE_BACKTRACE
        backtrace_symbols_fd(&addrs[j], 1, fd);
#else
        crashPrintf(fd, "[0x%lx]\n", (unsigned long)(uintptr_t)addrs[j]);
#endif
    }
}

static void crashLogStackTrace(int fd, uintptr_t pc, int stack_overflow) {
    crashPuts(fd, "\n------ STACK TRACE ------\n");
    if (pc) {
        void *where = (void *)pc;
        crashPuts(fd, "EIP:\n");
        crashLogAddresses(fd, &where, 1);
    }
#ifndef HAVE_UNWIND_BACKTRACE
    (void)stack_overflow;
    crashPuts(fd, "\nBacktrace:\n(backtrace unavailable: no stack unwinder for this C library)\n");
#else
#if defined(__sparc__)
    if (stack_overflow) { /* unwinding first spills the register windows into the overflowed stack */
        crashPuts(fd, "\nBacktrace:\n(backtrace unavailable: on SPARC an overflowed stack can't be unwound)\n");
        return;
    }
#else
    (void)stack_overflow;
#endif
    void *frames[CRASH_MAX_FRAMES];
    int n = collectBacktrace(frames, CRASH_MAX_FRAMES);
    crashPuts(fd, "\nBacktrace:\n");
    if (n > 0) crashLogAddresses(fd, frames, n);
    if (n <= 1)
        crashPuts(fd, "(backtrace unavailable: the unwinder found no frames; build with "
                      "-funwind-tables / -fasynchronous-unwind-tables)\n");
#endif
}

/* The unwinder's first walk sets up its lookup caches: do it now, not in
 * the handler. */
static void warmUpBacktrace(void) {
#ifdef HAVE_UNWIND_BACKTRACE
    void *frames[2];
    (void)collectBacktrace(frames, 2);
#endif
}

/* ---- the rest of the report (allocates) ----------------------------------------------------------- */

static void crashLogSds(int fd, sds s) {
    crashWrite(fd, s, sdslen(s));
    if (sdslen(s) == 0 || s[sdslen(s) - 1] != '\n') crashPuts(fd, "\n");
}

static void crashLogInfo(int fd) {
    crashPuts(fd, "\n------ INFO OUTPUT ------\n");
    sds info = genRedisInfoString("all");
    crashLogSds(fd, info);
    sdsfree(info);
}

static void crashLogArg(int fd, int j, robj *arg) {
    if (arg == NULL) {
        crashPrintf(fd, "argv[%d]: (null)\n", j);
    } else if (sdsEncodedObject(arg)) {
        sds repr = sdscatrepr(sdsempty(), arg->ptr, sdslen(arg->ptr) > 256 ? 256 : sdslen(arg->ptr));
        crashPrintf(fd, "argv[%d]: %s%s\n", j, repr, sdslen(arg->ptr) > 256 ? " (truncated)" : "");
        sdsfree(repr);
    } else if (arg->encoding == OBJ_ENCODING_INT) {
        crashPrintf(fd, "argv[%d]: %ld\n", j, (long)(intptr_t)arg->ptr);
    } else {
        crashPrintf(fd, "argv[%d]: (type %d encoding %d)\n", j, (int)arg->type, (int)arg->encoding);
    }
}

static void crashLogCurrentClient(int fd) {
    client *c = server.current_client;
    crashPuts(fd, "\n------ CURRENT CLIENT INFO ------\n");
    if (c == NULL) {
        crashPuts(fd, "(no client command was running)\n");
        return;
    }
    sds info = catClientInfoString(sdsempty(), c);
    crashLogSds(fd, info);
    sdsfree(info);
    crashPrintf(fd, "argc: %d\n", c->argc);
    for (int j = 0; j < c->argc; j++) crashLogArg(fd, j, c->argv[j]);
}

/* The modules' info callbacks with for_crash_report set: last, since a
 * module's code may fault again. */
static void crashLogModulesInfo(int fd) {
    crashPuts(fd, "\n------ MODULES INFO OUTPUT ------\n");
    int sections = 0;
    sds info = moduleInfoCollect(sdsempty(), NULL, 0, 1, &sections);
    crashLogSds(fd, info);
    sdsfree(info);
}

/* ---- the handler ------------------------------------------------------------------------------------ */

static void crashLogHeader(int fd, int sig, siginfo_t *info, uintptr_t pc) {
    crashPuts(fd, "\n\n=== REDIS BUG REPORT START: Cut & paste starting from here ===\n");
    crashLogLine(fd, "Redis %s crashed by signal: %d (%s), si_code: %d", REDIS_VERSION, sig, signalName(sig),
                 info ? info->si_code : 0);
    if (info && info->si_code <= 0) /* sent by a process (kill, abort ...): no faulting address */
        crashLogLine(fd, "Killed by PID: %ld, UID: %ld", (long)info->si_pid, (long)info->si_uid);
    else if (info)
        crashLogLine(fd, "Accessing address: %p", info->si_addr);
    if (pc) crashLogLine(fd, "Crashed running the instruction at: 0x%lx", (unsigned long)pc);
    else crashLogLine(fd, "Crashed running the instruction at: unknown");
}

/* A plain handler (or SIG_DFL) for sig, no flags, nothing masked. */
static void setPlainSignalHandler(int sig, void (*handler)(int)) {
    struct sigaction act;
    memset(&act, 0, sizeof act);
    sigemptyset(&act.sa_mask);
    act.sa_handler = handler;
    sigaction(sig, &act, NULL);
}

static void raiseWithDefaultAction(int sig) {
    setPlainSignalHandler(sig, SIG_DFL);
    raise(sig);
}

#define CRASH_REPORT_TIMEOUT_S 3
static volatile sig_atomic_t crash_signal, crash_fd = -1;

static void crashReportTimedOut(int sig) {
    (void)sig;
    if (crash_fd != -1)
        crashPuts(crash_fd, "\n(crash report cut short: INFO did not finish in time; the crash probably "
                            "interrupted the allocator while it held a lock)\n");
    raiseWithDefaultAction(crash_signal);
}

/* From here on the report may wait on a lock: see the top comment. */
static void armCrashReportTimeout(int sig, int fd) {
    crash_signal = sig;
    crash_fd = fd;
    setPlainSignalHandler(SIGALRM, crashReportTimedOut);
    alarm(CRASH_REPORT_TIMEOUT_S);
}

static void watchdogDisarm(void);

/* How the process ends after a crash: an assertion or a panic exits with
 * status 1 when use-exit-on-panic is set (Redis 7.0's test knob: sanitizers
 * and test harnesses see an exit, not a signal); everything else dies of
 * its signal, so the exit status and a core dump tell the truth. */
static void crashEnd(int sig) {
    if (sig == SIGABRT && crash_from_assert && server.use_exit_on_panic) _exit(1);
    raiseWithDefaultAction(sig);
}

static void crashHandler(int sig, siginfo_t *info, void *ctx) {
    watchdogDisarm(); /* its SIGALRM must not cut into the report */
    if (!server.crashlog_enabled) crashEnd(sig); /* crash-log-enabled no: no report, as in Redis */
    crashRegisters regs;
    memset(&regs, 0, sizeof regs);
    if (ctx) readRegisters(ctx, &regs);
    int fd = crashLogOpen();
    crashLogHeader(fd, sig, info, regs.pc);
    int stack_overflow = faultIsStackOverflow(sig, info);
    if (stack_overflow) crashPuts(fd, "The stack overflowed: the faulting address is at the end of the stack's reach.\n");
    crashLogStackTrace(fd, regs.pc, stack_overflow);
    crashLogRegisters(fd, &regs);
    armCrashReportTimeout(sig, fd);
    crashLogInfo(fd);
    crashLogCurrentClient(fd);
    crashLogModulesInfo(fd);
    crashPuts(fd, "\n=== REDIS BUG REPORT END. Make sure to include from START to END. ===\n\n");
    crashLogClose(fd);
    if (server.daemonize && server.pidfile) unlink(server.pidfile);
    crashEnd(sig);
}

/* ---- the software watchdog (watchdog-period) ----------------------------------------------------- */

/* Redis's software watchdog: serverCron() re-arms a one-shot ITIMER_REAL
 * timer every tick; when the event loop stays in one call longer than
 * watchdog-period milliseconds, the timer fires and SIGALRM's handler logs
 * "--- WATCHDOG TIMER EXPIRED ---" with the stack trace of the code it
 * interrupted, then the server goes on (it is a diagnostic, not a kill).
 * The handler writes with the crash report's open/write helpers only. The
 * period is at least two cron ticks, as in Redis, so a healthy loop never
 * trips it. The crash report's timeout (alarm()) shares the timer: a crash
 * disarms the watchdog first. */
static volatile sig_atomic_t watchdog_installed;

static void watchdogHandler(int sig, siginfo_t *info, void *ctx) {
    (void)sig;
    (void)info;
    int saved_errno = errno;
    crashRegisters regs;
    memset(&regs, 0, sizeof regs);
    if (ctx) readRegisters(ctx, &regs);
    int fd = crashLogOpen();
    crashLogLine(fd, "\n--- WATCHDOG TIMER EXPIRED ---");
    crashLogStackTrace(fd, regs.pc, 0);
    crashLogLine(fd, "--------");
    crashLogClose(fd);
    errno = saved_errno;
}

static void watchdogSetTimer(long long ms) {
    struct itimerval it;
    memset(&it, 0, sizeof it);
    it.it_value.tv_sec = (time_t)(ms / 1000);
    it.it_value.tv_usec = (suseconds_t)((ms % 1000) * 1000);
    setitimer(ITIMER_REAL, &it, NULL);
}

/* Background threads call this first: the watchdog's SIGALRM (a signal to
 * the process, which goes to any thread not blocking it) must reach the
 * main thread, whose stuck stack it reports, and must not interrupt a
 * background fsync or free. */
void watchdogBlockInThisThread(void) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGALRM);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
}

static void watchdogDisarm(void) {
    if (watchdog_installed) watchdogSetTimer(0);
}

/* From serverCron() (every tick) and CONFIG SET watchdog-period: installs
 * the handler the first time, then arms the timer for one more period; a
 * period of 0 disarms it and ignores a SIGALRM still on its way. */
void watchdogSchedule(void) {
    if (server.watchdog_period <= 0) {
        if (watchdog_installed) {
            watchdogSetTimer(0);
            setPlainSignalHandler(SIGALRM, SIG_IGN);
            watchdog_installed = 0;
        }
        return;
    }
    if (!watchdog_installed) {
        struct sigaction act;
        memset(&act, 0, sizeof act);
        sigemptyset(&act.sa_mask);
        act.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
        act.sa_sigaction = watchdogHandler;
        sigaction(SIGALRM, &act, NULL);
        watchdog_installed = 1;
    }
    long long min_ms = 2 * (1000 / (server.hz > 0 ? server.hz : 1));
    watchdogSetTimer(server.watchdog_period > min_ms ? server.watchdog_period : min_ms);
}

/* Big enough for the INFO dump in the handler, whatever the overflowed
 * stack looked like. */
#define CRASH_STACK_SIZE (256 * 1024)
static char crash_stack[CRASH_STACK_SIZE] __attribute__((aligned(16)));

void setupSignalHandlers(void) {
    static const int fatal[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
    stack_t ss;
    memset(&ss, 0, sizeof ss);
    ss.ss_sp = crash_stack;
    ss.ss_size = sizeof crash_stack;
    int on_alt_stack = sigaltstack(&ss, NULL) == 0;
    rememberMainStack(&ss); /* called early from main: near the top of the stack */
    warmUpBacktrace();
    struct sigaction act;
    memset(&act, 0, sizeof act);
    sigemptyset(&act.sa_mask);
    act.sa_flags = SA_SIGINFO | SA_NODEFER | SA_RESETHAND | (on_alt_stack ? SA_ONSTACK : 0);
    act.sa_sigaction = crashHandler;
    for (size_t j = 0; j < sizeof fatal / sizeof fatal[0]; j++) sigaction(fatal[j], &act, NULL);
}

/* ---- SHA1, for the dataset digest ------------------------------------------------------------------- */

typedef struct debugSha1 {
    uint32_t h[5];
    uint64_t bytes;
    unsigned char block[64];
    size_t used;
} debugSha1;

static uint32_t rol32(uint32_t v, int n) { return (v << n) | (v >> (32 - n)); }

static void sha1Init(debugSha1 *s) {
    static const uint32_t iv[5] = {0x67452301u, 0xEFCDAB89u, 0x98BADCFEu, 0x10325476u, 0xC3D2E1F0u};
    memcpy(s->h, iv, sizeof iv);
    s->bytes = 0;
    s->used = 0;
}

static void sha1Block(debugSha1 *s, const unsigned char *p) {
    uint32_t w[80];
    for (int i = 0; i < 16; i++) w[i] = load32be(p + 4 * i);
    for (int i = 16; i < 80; i++) w[i] = rol32(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
    uint32_t a = s->h[0], b = s->h[1], c = s->h[2], d = s->h[3], e = s->h[4];
    for (int i = 0; i < 80; i++) {
        uint32_t f, k;
        if (i < 20) { f = (b & c) | (~b & d); k = 0x5A827999u; }
        else if (i < 40) { f = b ^ c ^ d; k = 0x6ED9EBA1u; }
        else if (i < 60) { f = (b & c) | (b & d) | (c & d); k = 0x8F1BBCDCu; }
        else { f = b ^ c ^ d; k = 0xCA62C1D6u; }
        uint32_t t = rol32(a, 5) + f + e + k + w[i];
        e = d; d = c; c = rol32(b, 30); b = a; a = t;
    }
    s->h[0] += a; s->h[1] += b; s->h[2] += c; s->h[3] += d; s->h[4] += e;
}

static void sha1Update(debugSha1 *s, const void *data, size_t len) {
    const unsigned char *p = data;
    s->bytes += len;
    while (len) {
        size_t n = 64 - s->used < len ? 64 - s->used : len;
        memcpy(s->block + s->used, p, n);
        s->used += n;
        p += n;
        len -= n;
        if (s->used == 64) {
            sha1Block(s, s->block);
            s->used = 0;
        }
    }
}

static void sha1Final(debugSha1 *s, unsigned char out[20]) {
    uint64_t bits = s->bytes * 8;
    unsigned char pad = 0x80, zero = 0, len_be[8];
    sha1Update(s, &pad, 1);
    while (s->used != 56) sha1Update(s, &zero, 1);
    store64be(len_be, bits);
    sha1Update(s, len_be, 8);
    for (int i = 0; i < 5; i++) store32be(out + 4 * i, s->h[i]);
}

static void sha1(const void *data, size_t len, unsigned char out[20]) {
    debugSha1 s;
    sha1Init(&s);
    sha1Update(&s, data, len);
    sha1Final(&s, out);
}

/* ---- the dataset digest ------------------------------------------------------------------------------- */

/* digest ^= SHA1(data): order-independent combination. */
void xorDigest(unsigned char digest[20], const void *data, size_t len) {
    unsigned char hash[20];
    sha1(data, len, hash);
    for (int j = 0; j < 20; j++) digest[j] ^= hash[j];
}

/* digest = SHA1(digest ^ SHA1(data)): order-dependent chaining. */
void mixDigest(unsigned char digest[20], const void *data, size_t len) {
    xorDigest(digest, data, len);
    sha1(digest, 20, digest);
}

static void mixStringObjectDigest(unsigned char digest[20], robj *o) {
    robj *decoded = getDecodedObject(o);
    mixDigest(digest, decoded->ptr, sdslen(decoded->ptr));
    decrRefCount(decoded);
}

/* Mixes the value's type, the value and "has an expire" into digest; val
 * is a keyspace object (kvobj), which carries its own expire. A module
 * type's digest callback gets the key and its database (GetKeyNameFromDigest,
 * GetDbIdFromDigest), as in Redis 7.0. */
static void mixValueDigest(robj *val, robj *key, int dbid, unsigned char digest[20]) {
    unsigned char type_be[4];
    store32be(type_be, (uint32_t)val->type);
    mixDigest(digest, type_be, sizeof type_be);
    switch (val->type) {
    case OBJ_STRING: mixStringObjectDigest(digest, val); break;
    case OBJ_LIST: listDigest(digest, val); break;
    case OBJ_SET: setDigest(digest, val); break;
    case OBJ_ZSET: zsetDigest(digest, val); break;
    case OBJ_HASH: hashDigest(digest, val); break;
    case OBJ_STREAM: streamDigest(digest, val); break;
    case OBJ_MODULE: moduleDigestValue(key, dbid, val, digest); break;
    }
    if (kvobjGetExpire(val) != -1) xorDigest(digest, "!!expire!!", 10);
}

static void digestDatabase(redisDb *db, unsigned char final[20]) {
    unsigned char id_be[4];
    store32be(id_be, (uint32_t)db->id);
    mixDigest(final, id_be, sizeof id_be);
    kvtableIterator *it = kvtableGetSafeIterator(db->keys);
    kvobj *o;
    while ((o = kvtableNext(it)) != NULL) {
        sds name = kvobjGetKey(o);
        unsigned char digest[20] = {0};
        mixDigest(digest, name, sdslen(name));
        if (o->type == OBJ_MODULE) {
            robj *key = createStringObject(name, sdslen(name));
            mixValueDigest(o, key, db->id, digest);
            decrRefCount(key);
        } else {
            mixValueDigest(o, NULL, db->id, digest);
        }
        xorDigest(final, digest, 20);
    }
    kvtableReleaseIterator(it);
}

/* All zeros for an empty dataset. */
static void computeDatasetDigest(unsigned char final[20]) {
    memset(final, 0, 20);
    for (int j = 0; j < server.dbnum; j++)
        if (kvtableSize(server.db[j].keys)) digestDatabase(&server.db[j], final);
}

static void addReplyDigest(client *c, const unsigned char digest[20]) {
    char hex[41];
    for (int j = 0; j < 20; j++) snprintf(hex + 2 * j, 3, "%02x", digest[j]);
    addReplyStatusLength(c, hex, 40);
}

/* ---- DEBUG subcommands ------------------------------------------------------------------------------------ */

static robj *debugLookup(client *c, robj *key) {
    return lookupKeyReadWithFlags(c->db, key, LOOKUP_NOTOUCH | LOOKUP_NONOTIFY | LOOKUP_NOSTATS | LOOKUP_NOEXPIRE);
}

static void debugDigest(client *c) {
    unsigned char digest[20];
    computeDatasetDigest(digest);
    addReplyDigest(c, digest);
}

static void debugDigestValue(client *c) {
    addReplyArrayLen(c, c->argc - 2);
    for (int j = 2; j < c->argc; j++) {
        unsigned char digest[20] = {0};
        robj *val = debugLookup(c, c->argv[j]);
        if (val) mixValueDigest(val, c->argv[j], c->db->id, digest);
        addReplyDigest(c, digest);
    }
}

/* The extra fields DEBUG OBJECT gives for a quicklist, as Redis does. */
static sds catQuicklistShape(sds s, const quicklist *ql) {
    unsigned long raw = 0;
    for (const quicklistNode *node = ql->head; node; node = node->next) raw += node->sz;
    return sdscatprintf(s, " ql_nodes:%lu ql_avg_node:%.2f ql_listpack_max:%d ql_compressed:%d ql_uncompressed_size:%lu",
                        ql->len, ql->len ? (double)ql->count / (double)ql->len : 0.0, ql->fill,
                        ql->compress != 0, raw);
}

/* A small list is one listpack, which Redis 7.0 would hold as a quicklist of
 * one uncompressed node: DEBUG OBJECT describes it that way (see
 * objectEncodingName()). */
static sds catListpackListShape(sds s, unsigned char *lp) {
    unsigned long count = lpLength(lp);
    return sdscatprintf(s, " ql_nodes:%d ql_avg_node:%.2f ql_listpack_max:%d ql_compressed:0 ql_uncompressed_size:%zu",
                        count != 0, (double)count, server.list_max_listpack_size, lpBytes(lp));
}

static void debugObject(client *c) {
    robj *val = debugLookup(c, c->argv[2]);
    if (val == NULL) {
        addReplyErrorObject(c, shared.nokeyerr);
        return;
    }
    size_t serialized = rdbSerializedValueLength(val); /* what a snapshot spends on it */
    sds s = sdscatprintf(sdsempty(), "Value at:%p refcount:%d encoding:%s serializedlength:%zu lru:%d lru_seconds_idle:%llu",
                         (void *)val, val->refcount, objectEncodingName(val), serialized, (int)val->lru,
                         estimateObjectIdleTime(val) / 1000);
    if (val->encoding == OBJ_ENCODING_QUICKLIST) s = catQuicklistShape(s, val->ptr);
    else if (val->type == OBJ_LIST) s = catListpackListShape(s, val->ptr);
    addReplyStatusLength(c, s, sdslen(s));
    sdsfree(s);
}

static void debugSleep(client *c) {
    double seconds = strtod(c->argv[2]->ptr, NULL);
    if (!(seconds > 0) || isinf(seconds)) seconds = 0; /* negative, NaN or infinite: no sleep, as in Redis */
    long long usec = seconds > 1e12 ? (long long)1e18 : (long long)(seconds * 1000000);
    struct timespec ts = {.tv_sec = (time_t)(usec / 1000000), .tv_nsec = (long)(usec % 1000000) * 1000};
    while (nanosleep(&ts, &ts) == -1 && errno == EINTR) {}
    addReply(c, shared.ok);
}

/* DEBUG DROP-CLUSTER-PACKET-FILTER <type>: incoming cluster bus messages of
 * that type are dropped (-1: none), for Redis's cluster tests. */
static void debugDropClusterPacketFilter(client *c) {
    long type;
    if (getLongFromObjectOrReply(c, c->argv[2], &type, NULL) != C_OK) return;
    clusterSetDropPacketFilter(type);
    addReply(c, shared.ok);
}

/* DEBUG CLUSTERLINK KILL to|from|all <node-id>. */
static void debugClusterLink(client *c) {
    if (strcasecmp(c->argv[2]->ptr, "kill")) {
        addReplySubcommandSyntaxError(c);
        return;
    }
    clusterDebugKillLink(c, c->argv[3], c->argv[4]);
}

/* DEBUG POPULATE count [prefix] [size]: keys prefix:0 .. prefix:count-1
 * holding "value:<n>" (cut or zero-padded to size), skipping existing ones. */
static void debugPopulate(client *c) {
    long count, size = -1;
    if (getPositiveLongFromObjectOrReply(c, c->argv[2], &count, NULL) != C_OK) return;
    if (c->argc == 5 && getPositiveLongFromObjectOrReply(c, c->argv[4], &size, NULL) != C_OK) return;
    if ((long long)size > server.proto_max_bulk_len) { /* one value nobody could have sent: refused, not an abort */
        addReplyError(c, "value size exceeds proto-max-bulk-len");
        return;
    }
    const char *prefix = c->argc >= 4 ? c->argv[3]->ptr : "key";
    for (long j = 0; j < count; j++) {
        char buf[128];
        robj *key = createObject(OBJ_STRING, sdscatfmt(sdsempty(), "%s:%I", prefix, (long long)j));
        if (lookupKeyWrite(c->db, key) == NULL) {
            int len = snprintf(buf, sizeof buf, "value:%ld", j);
            robj *val;
            if (size < 0) {
                val = createStringObject(buf, (size_t)len);
            } else {
                val = createStringObject(NULL, (size_t)size);
                memcpy(val->ptr, buf, (size_t)size < (size_t)len ? (size_t)size : (size_t)len);
            }
            dbAdd(c->db, key, val);
        }
        decrRefCount(key);
    }
    addReply(c, shared.ok);
}

static void debugHtStats(client *c) {
    long dbid;
    if (getLongFromObjectOrReply(c, c->argv[2], &dbid, NULL) != C_OK) return;
    if (dbid < 0 || dbid >= server.dbnum) {
        addReplyError(c, "Out of range database");
        return;
    }
    char buf[4096];
    redisDb *db = &server.db[dbid];
    sds s = sdscatprintf(sdsempty(), "[Dictionary HT]\n");
    kvtableGetStats(buf, sizeof buf, db->keys);
    s = sdscat(s, buf);
    s = sdscatprintf(s, "[Expires HT]\n");
    dictGetStats(buf, sizeof buf, db->expires);
    s = sdscat(s, buf);
    addReplyVerbatim(c, s, sdslen(s), "txt");
    sdsfree(s);
}

/* DEBUG HTSTATS-KEY <key>: the same statistics for the hash table of a
 * value (a hashtable-encoded set or hash, a skiplist sorted set's dict). */
static void debugHtStatsKey(client *c) {
    robj *o = debugLookup(c, c->argv[2]);
    if (o == NULL) {
        addReplyErrorObject(c, shared.nokeyerr);
        return;
    }
    dict *ht = NULL;
    if (o->encoding == OBJ_ENCODING_HT && (o->type == OBJ_SET || o->type == OBJ_HASH)) ht = o->ptr;
    else if (o->type == OBJ_ZSET) ht = zsetDictOf(o);
    if (ht == NULL) {
        addReplyError(c, "The value stored at the specified key is not represented using an hash table");
        return;
    }
    char buf[4096];
    dictGetStats(buf, sizeof buf, ht);
    addReplyVerbatim(c, buf, strlen(buf), "txt");
}

/* DEBUG PROTOCOL <type>: one reply of each RESP type, for client tests. */
static void debugProtocol(client *c) {
    const char *name = c->argv[2]->ptr;
    if (!strcasecmp(name, "string")) addReplyBulkCString(c, "Hello World");
    else if (!strcasecmp(name, "integer")) addReplyLongLong(c, 12345);
    else if (!strcasecmp(name, "double")) addReplyDouble(c, 3.141);
    else if (!strcasecmp(name, "bignum")) addReplyBigNum(c, "1234567999999999999999999999999999999", 37);
    else if (!strcasecmp(name, "null")) addReplyNull(c);
    else if (!strcasecmp(name, "true")) addReplyBool(c, 1);
    else if (!strcasecmp(name, "false")) addReplyBool(c, 0);
    else if (!strcasecmp(name, "verbatim")) addReplyVerbatim(c, "This is a verbatim\nstring", 25, "txt");
    else if (!strcasecmp(name, "array") || !strcasecmp(name, "set")) {
        if (!strcasecmp(name, "set")) addReplySetLen(c, 3);
        else addReplyArrayLen(c, 3);
        for (int j = 0; j < 3; j++) addReplyLongLong(c, j);
    } else if (!strcasecmp(name, "push")) {
        /* An out-of-band push, then an ordinary reply, so a client that
         * skips pushes still gets an answer to its command. */
        if (c->resp == 2) {
            addReplyError(c, "RESP2 is not supported by this command");
            return;
        }
        uint64_t was = c->flags & CLIENT_PUSHING; /* a push passes CLIENT REPLY OFF */
        c->flags |= CLIENT_PUSHING;
        addReplyPushLen(c, 2);
        addReplyBulkCString(c, "server-cpu-usage");
        addReplyLongLong(c, 42);
        if (!was) c->flags &= ~(uint64_t)CLIENT_PUSHING;
        addReplyBulkCString(c, "Some real reply following the push reply");
    } else if (!strcasecmp(name, "map")) {
        addReplyMapLen(c, 3);
        for (int j = 0; j < 3; j++) {
            addReplyLongLong(c, j);
            addReplyBool(c, j == 1);
        }
    } else if (!strcasecmp(name, "attrib")) {
        if (c->resp >= 3) {
            static const char attr[] = "|1\r\n$14\r\nkey-popularity\r\n*2\r\n$7\r\nkey:123\r\n:90\r\n";
            addReplyProto(c, attr, sizeof attr - 1);
        }
        addReplyBulkCString(c, "Some real reply following the attribute");
    } else {
        addReplyError(c, "Wrong protocol type name. Please use one of the following: "
                         "string|integer|double|bignum|null|array|set|map|attrib|push|verbatim|true|false");
    }
}

/* DEBUG COMMAND-TABLE: how many command-table entries (and subcommand
 * entries) exist and how many were registered with a handler, plus the
 * names of the missing ones -- the proof that COMMAND COUNT covers the
 * whole table. */
static int subcommandRegistered(redisCommand *parent, redisCommand *sub) {
    if (parent->subcommands_dict == NULL) return 0;
    sds name = sdsnew(sub->declared_name);
    int found = dictFetchValue(parent->subcommands_dict, name) == sub;
    sdsfree(name);
    return found;
}

static sds appendMissingName(sds missing, const char *parent, const char *name) {
    if (sdslen(missing)) missing = sdscat(missing, " ");
    if (parent) missing = sdscatfmt(missing, "%s|", parent);
    return sdscat(missing, name);
}

static void debugCommandTable(client *c) {
    long entries = 0, registered = 0, sub_entries = 0, sub_registered = 0;
    sds missing = sdsempty();
    for (redisCommand *cmd = redisCommandTable; cmd->declared_name; cmd++) {
        entries++;
        if (lookupCommandByCString(cmd->declared_name) == cmd) registered++;
        else missing = appendMissingName(missing, NULL, cmd->declared_name);
        for (redisCommand *sub = cmd->subcommands; sub && sub->declared_name; sub++) {
            sub_entries++;
            if (subcommandRegistered(cmd, sub)) sub_registered++;
            else missing = appendMissingName(missing, cmd->declared_name, sub->declared_name);
        }
    }
    addReplyMapLen(c, 5);
    addReplyBulkCString(c, "entries");
    addReplyLongLong(c, entries);
    addReplyBulkCString(c, "registered");
    addReplyLongLong(c, registered);
    addReplyBulkCString(c, "subcommand-entries");
    addReplyLongLong(c, sub_entries);
    addReplyBulkCString(c, "registered-subcommands");
    addReplyLongLong(c, sub_registered);
    addReplyBulkCString(c, "missing");
    addReplyBulkSds(c, missing);
}

/* A real SIGSEGV: a write to a page mapped with no access rights. */
static void debugSegfault(void) {
    long page = sysconf(_SC_PAGESIZE);
    void *p = mmap(NULL, page > 0 ? (size_t)page : 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    volatile char *target = p == MAP_FAILED ? NULL : p;
    *target = 'x';
}

/* A multi-word load from an odd address: the SIGBUS strict-alignment CPUs
 * raise (unless the kernel fixes the access up). Inline assembly, so the
 * compiler cannot turn it into byte loads. A no-op elsewhere. */
static void debugMisalignedLoad(void) {
    static unsigned char buf[32] __attribute__((aligned(16)));
    unsigned char *odd = buf + 1;
#if defined(__sparc__) && defined(__arch64__)
    unsigned long value;
    __asm__ volatile("ldx [%1], %0" : "=r"(value) : "r"(odd) : "memory");
    (void)value;
#elif defined(__arm__)
    __asm__ volatile("ldm %0, {r2, r3}" : : "r"(odd) : "r2", "r3", "memory");
#else
    (void)odd;
#endif
}

/* A real SIGBUS: a write to a shared mapping past the end of its (empty)
 * file; where that does not fault (emulators may back such mappings with
 * anonymous memory), a misaligned load; raise() as the last resort. */
static void debugSigbus(void) {
    long page = sysconf(_SC_PAGESIZE);
    size_t len = page > 0 ? (size_t)page : 4096;
    FILE *fp = tmpfile();
    void *p = fp ? mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fileno(fp), 0) : MAP_FAILED;
    if (p != MAP_FAILED) {
        volatile char *target = p;
        *target = 'x';
    }
    debugMisalignedLoad();
    raise(SIGBUS);
}

/* Unbounded recursion, to prove the crash report runs on its own stack. */
static NOINLINE long debugRecurse(volatile char *caller, long depth) {
    volatile char frame[512];
    frame[0] = caller ? (char)(caller[0] + 1) : 0;
    frame[1] = 0;
    if (depth == LONG_MAX) return frame[0];
    return debugRecurse(frame, depth + 1) + frame[1];
}

static void debugHelp(client *c) {
    static const char *help[] = {
        "AOF-FLUSH-SLEEP <microsec>",
        "    Server will sleep before flushing the AOF, this is used for testing.",
        "ASSERT",
        "    Crash by assertion failed.",
        "CHANGE-REPL-ID",
        "    Change the replication IDs of the instance.",
        "    Dangerous: should be used only for testing the replication subsystem.",
        "COMMAND-TABLE",
        "    Count the command table's entries and those registered with a handler,",
        "    listing the entries whose handler is missing.",
        "ARGPOOL",
        "    Number of spare argument objects this connection keeps for its next",
        "    commands (the ones of this very command not counted).",
        "CONFIG-REWRITE-FORCE-ALL",
        "    Like CONFIG REWRITE but writes all configuration options, including",
        "    keywords not listed in original configuration file or default values.",
        "DIGEST",
        "    Output a hex signature representing the current DB content.",
        "DIGEST-VALUE <key> [<key> ...]",
        "    Output a hex signature of the values of all the specified keys.",
        "CLUSTERLINK KILL <to|from|all> <node-id>",
        "    Kills the link based on the direction to/from (both) with the provided node.",
        "DROP-CLUSTER-PACKET-FILTER <packet-type>",
        "    Drop all packets that match the filtered type. Set to -1 allow all packets.",
        "ERROR <string>",
        "    Return a Redis protocol error with <string> as message. Useful for clients",
        "    unit tests to simulate Redis errors.",
        "LOG <message>",
        "    Write <message> to the server log.",
#ifdef USE_JEMALLOC /* as Redis: only where jemalloc is the allocator (defrag.c) */
        "MALLCTL <key> [<val>]",
        "    Get or set a malloc tuning integer.",
        "MALLCTL-STR <key> [<val>]",
        "    Get or set a malloc tuning string.",
#endif
        "HTSTATS <dbid>",
        "    Return hash table statistics of the specified Redis database.",
        "HTSTATS-KEY <key>",
        "    Like HTSTATS but for the hash table stored at <key>'s value.",
        "LOADAOF",
        "    Flush the AOF buffers on disk and reload the AOF in memory.",
        "OBJECT <key>",
        "    Show low level info about `key` and associated value.",
        "PANIC",
        "    Crash the server simulating a panic.",
        "PAUSE-CRON <0|1>",
        "    Stop periodic cron job processing.",
        "SET-DISABLE-DENY-SCRIPTS <0|1>",
        "    Let scripts call commands that are not allowed from scripts (for tests).",
        "POPULATE <count> [<prefix>] [<size>]",
        "    Create <count> string keys named key:<num>. If <prefix> is specified then",
        "    it is used instead of the 'key' prefix.",
        "PROTOCOL <type>",
        "    Reply with a test value of the specified type. <type> can be: string,",
        "    integer, double, bignum, null, array, set, map, attrib, push, verbatim,",
        "    true, false.",
        "REPLICATE <string>",
        "    Replicates the provided string to replicas, allowing data divergence.",
        "RELOAD [option ...]",
        "    Save the RDB on disk and reload it back to memory.",
        "REPLYBUFFER PEAK-RESET-TIME <NEVER|RESET|time>",
        "    Sets the time (in milliseconds) between resets of the client reply buffer",
        "    peak. NEVER keeps the last observed peak; RESET restores the default.",
        "REPLYBUFFER RESIZING <0|1>",
        "    Enable or disable the reply buffer resize cron job.",
        "SEGFAULT",
        "    Crash the server with sigsegv.",
        "SIGBUS",
        "    Crash the server with sigbus (a write past the end of a mapped file).",
        "STACKOVERFLOW",
        "    Crash the server by overflowing the stack (the report runs on its own stack).",
        "SET-SKIP-CHECKSUM-VALIDATION <0|1>",
        "    Enables or disables checksum checks for RDB files and RESTORE's payload.",
        "SET-ACTIVE-EXPIRE <0|1>",
        "    Setting it to 0 disables expiring keys in background when they are not",
        "    accessed (otherwise the Redis behavior). Setting it to 1 reenables back the",
        "    default.",
        "SLEEP <seconds>",
        "    Stop the server for <seconds>. Decimals allowed.",
        NULL};
    addReplyHelp(c, help);
}

/* ---- DEBUG dispatch ------------------------------------------------------------------------------------------------ */

static void debugSetActiveExpire(client *c) {
    server.active_expire_enabled = atoi(c->argv[2]->ptr) != 0;
    addReply(c, shared.ok);
}

static void debugSetSkipChecksumValidation(client *c) {
    server.skip_checksum_validation = atoi(c->argv[2]->ptr) != 0;
    addReply(c, shared.ok);
}

static void debugPauseCron(client *c) {
    server.pause_cron = atoi(c->argv[2]->ptr) != 0;
    addReply(c, shared.ok);
}

/* For tests: lets scripts call commands flagged noscript (DEBUG SLEEP inside
 * a script, as Redis's own tests do). */
static void debugSetDisableDenyScripts(client *c) {
    server.script_disable_deny_script = atoi(c->argv[2]->ptr) != 0;
    addReply(c, shared.ok);
}

static void debugArgpool(client *c) { addReplyLongLong(c, c->argpool_count); }

/* DEBUG AOF-FLUSH-SLEEP <microseconds>: each AOF write that has data
 * sleeps that long first (aofFlush); 0 stops it. Parsed like Redis's (a
 * non-number is 0). */
static void debugAofFlushSleep(client *c) {
    server.aof_flush_sleep = strtoll(c->argv[2]->ptr, NULL, 10);
    addReply(c, shared.ok);
}

/* DEBUG REPLICATE <command> [arg ...]: the words go to the replicas as a
 * command, without running here (see replicationFeedInStreamDb). */
static void debugReplicate(client *c) {
    replicationFeedInStreamDb(c->argv + 2, c->argc - 2);
    addReply(c, shared.ok);
}

static void debugConfigRewriteForceAll(client *c) {
    if (server.configfile == NULL) {
        addReplyError(c, "The server is running without a config file");
        return;
    }
    if (configRewriteFile(1) != C_OK) {
        addReplyErrorFormat(c, "CONFIG-REWRITE-FORCE-ALL failed: %s", strerror(errno));
        return;
    }
    addReply(c, shared.ok);
}

static void debugChangeReplId(client *c) {
    changeReplicationId();
    addReply(c, shared.ok);
}

static void debugLog(client *c) {
    serverLog(LL_WARNING, "DEBUG LOG: %s", (char *)c->argv[2]->ptr);
    addReply(c, shared.ok);
}

/* The text goes out as an error line as it is (line breaks made spaces),
 * and, as in Redis 7.0, no error statistic counts it. */
static void debugError(client *c) {
    sds line = sdscatsds(sdsnew("-"), c->argv[2]->ptr);
    line = sdsmapchars(line, "\r\n", "  ", 2);
    line = sdscatlen(line, "\r\n", 2);
    addReplyProto(c, line, sdslen(line));
    sdsfree(line);
}

/* The subcommands below never return: the server dies. */
static void debugSegfaultCommand(client *c) { (void)c; debugSegfault(); }
static void debugSigbusCommand(client *c) { (void)c; debugSigbus(); }
static void debugStackOverflow(client *c) { addReplyLongLong(c, debugRecurse(NULL, 0)); }
static void debugAssert(client *c) { (void)c; serverAssert(1 == 2); }

static void debugPanic(client *c) {
    (void)c;
    serverPanic("DEBUG PANIC called at Unix time %lld", (long long)time(NULL));
}

static const struct {
    const char *name;
    int min_argc, max_argc; /* including DEBUG and the subcommand; -1: no limit */
    void (*proc)(client *c);
} debug_subcommands[] = {
    {"help", 2, 2, debugHelp},
    {"segfault", 2, 2, debugSegfaultCommand},
    {"sigbus", 2, 2, debugSigbusCommand},
    {"stackoverflow", 2, 2, debugStackOverflow},
    {"assert", 2, 2, debugAssert},
    {"panic", 2, 2, debugPanic},
    {"sleep", 3, 3, debugSleep},
    {"drop-cluster-packet-filter", 3, 3, debugDropClusterPacketFilter},
    {"clusterlink", 5, 5, debugClusterLink},
    {"set-active-expire", 3, 3, debugSetActiveExpire},
    {"set-skip-checksum-validation", 3, 3, debugSetSkipChecksumValidation},
    {"pause-cron", 3, 3, debugPauseCron},
    {"set-disable-deny-scripts", 3, 3, debugSetDisableDenyScripts},
    {"config-rewrite-force-all", 2, 2, debugConfigRewriteForceAll},
    {"argpool", 2, 2, debugArgpool},
    {"aof-flush-sleep", 3, 3, debugAofFlushSleep},
    {"replicate", 3, -1, debugReplicate},
    {"object", 3, 3, debugObject},
    {"digest", 2, 2, debugDigest},
    {"digest-value", 2, -1, debugDigestValue},
    {"change-repl-id", 2, 2, debugChangeReplId},
    {"command-table", 2, 2, debugCommandTable},
    {"log", 3, 3, debugLog},
    {"error", 3, 3, debugError},
    {"populate", 3, 5, debugPopulate},
    {"htstats", 3, 3, debugHtStats},
    {"htstats-key", 3, 3, debugHtStatsKey},
    {"protocol", 3, 3, debugProtocol},
    {"reload", 2, -1, debugReloadCommand},
    {"loadaof", 2, 2, debugLoadAofCommand},
    /* those of other modules (declared in server.h) */
    {"listpack", 3, 3, debugListpackCommand},
    {"intset", 3, 3, debugIntsetCommand},
    {"quicklist", 3, 3, debugQuicklistCommand},
    {"encoding-check", 3, 3, debugEncodingCheckCommand},
    {"quicklist-packed-threshold", 3, 3, debugQuicklistPackedThresholdCommand},
    {"replybuffer", 4, 4, debugReplyBufferCommand},
    {"aof-fault", 4, 5, debugAofFaultCommand},
    {"mallctl", 3, -1, debugMallctlCommand},
    {"mallctl-str", 3, -1, debugMallctlStrCommand},
};

/* What would start a second load or add keys the load in progress would
 * then find duplicated: refused with -LOADING while loading. */
static int debugChangesDataset(const char *sub) {
    return !strcasecmp(sub, "reload") || !strcasecmp(sub, "loadaof") || !strcasecmp(sub, "populate");
}

static int argcFits(client *c, int min, int max) { return c->argc >= min && (max == -1 || c->argc <= max); }

void debugCommand(client *c) {
    const char *sub = c->argv[1]->ptr;
    if (server.loading && debugChangesDataset(sub)) { /* clients are served while a load runs */
        addReplyErrorObject(c, shared.loadingerr);
        return;
    }
    for (size_t j = 0; j < sizeof debug_subcommands / sizeof debug_subcommands[0]; j++) {
        if (strcasecmp(sub, debug_subcommands[j].name)) continue;
        if (!argcFits(c, debug_subcommands[j].min_argc, debug_subcommands[j].max_argc)) break;
        debug_subcommands[j].proc(c);
        /* Not a tail call: a crash or watchdog report from a subcommand
         * keeps "debugCommand" in its stack trace, as Redis's does
         * (operators and Redis's integration/logging test look for it). */
        __asm__ volatile("" ::: "memory");
        return;
    }
    addReplySubcommandSyntaxError(c);
}
