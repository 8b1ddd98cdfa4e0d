/* memtest.c -- `redis-server --test-memory <megabytes>`: a quick RAM test
 * that runs and exits, as Redis 7.0's option does (useful on a Pi whose
 * server crashes in odd ways: a bad SD-card-era power supply shows up as
 * flipped bits).
 *
 * What it checks, over 50 passes of the requested size:
 *  - addressing: every word holds its own address, then is read back, so a
 *    stuck or aliased address line shows;
 *  - random fill and compare: both halves get the same pseudo-random words
 *    (the generator is re-seeded for the second half), then are compared,
 *    then the same with every bit inverted.
 * Progress goes to stdout with Redis's screen codes (clear, home); the end
 * message and the usage error are Redis 7.0's words, which scripts and
 * people search for. A mismatch is reported with both values and exits 1.
 *
 * The buffer is zmalloc'ed in one piece; words are accessed through a
 * volatile pointer so the compiler keeps every load and store.
 */
#include "server.h"

#include <stdint.h>

#define MEMTEST_PASSES 50
#define MEMTEST_PROGRESS_DOTS 64

typedef struct memtestRegion {
    volatile uintptr_t *words;
    size_t count; /* words in the region */
} memtestRegion;

static int memtestTerminal;

static void memtestPhase(const char *what, int pass) {
    printf("\x1b[H\x1b[2K%s [%d]\n", what, pass);
    fflush(stdout);
}

/* One dot per 1/MEMTEST_PROGRESS_DOTS of the words, on a terminal only:
 * piped, the phase lines are enough. */
static void memtestProgress(size_t done, size_t total, size_t *shown) {
    if (!memtestTerminal || total == 0) return;
    size_t want = done * MEMTEST_PROGRESS_DOTS / total;
    for (; *shown < want; (*shown)++) putchar('.');
    if (done == total) putchar('\n');
    fflush(stdout);
}

static void memtestFailed(uintptr_t got, uintptr_t want, const char *what) {
    printf("\n*** MEMORY ERROR DETECTED: %p != %p (%s)\n", (void *)got, (void *)want, what);
    printf("This system seems to be unreliable: run memtest86 or memtester to find the faulty module.\n");
    exit(1);
}

static void memtestAddressing(memtestRegion *r) {
    size_t shown = 0;
    for (size_t i = 0; i < r->count; i++) r->words[i] = (uintptr_t)&r->words[i];
    for (size_t i = 0; i < r->count; i++) {
        if (r->words[i] != (uintptr_t)&r->words[i])
            memtestFailed(r->words[i], (uintptr_t)&r->words[i], "addressing");
        if ((i & 0xffff) == 0) memtestProgress(i, r->count, &shown);
    }
    memtestProgress(r->count, r->count, &shown);
}

/* xorshift64*, truncated to a word: the same seed gives the same sequence. */
static uintptr_t memtestNext(uint64_t *state) {
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    return (uintptr_t)(*state * 2685821657736338717ULL);
}

static void memtestFill(memtestRegion *r, uint64_t seed, uintptr_t invert) {
    size_t half = r->count / 2;
    uint64_t state = seed;
    for (size_t i = 0; i < half; i++) r->words[i] = memtestNext(&state) ^ invert;
    state = seed;
    for (size_t i = 0; i < half; i++) r->words[half + i] = memtestNext(&state) ^ invert;
}

static void memtestCompare(memtestRegion *r) {
    size_t half = r->count / 2, shown = 0;
    for (size_t i = 0; i < half; i++) {
        if (r->words[i] != r->words[half + i]) memtestFailed(r->words[i], r->words[half + i], "compare");
        if ((i & 0xffff) == 0) memtestProgress(i, half, &shown);
    }
    memtestProgress(half, half, &shown);
}

static void memtestRun(size_t megabytes) {
    memtestRegion r;
    size_t bytes = megabytes * 1024 * 1024;
    r.count = bytes / sizeof(uintptr_t);
    r.words = bytes ? zmalloc(bytes) : NULL;
    memtestTerminal = isatty(STDOUT_FILENO);
    uint64_t seed = (uint64_t)ustime() | 1;
    for (int pass = 1; pass <= MEMTEST_PASSES && r.count; pass++) {
        memtestPhase("Addressing test", pass);
        memtestAddressing(&r);
        for (int round = 0; round < 2; round++) {
            memtestPhase("Random fill", pass);
            memtestFill(&r, seed + (uint64_t)pass, round ? ~(uintptr_t)0 : 0);
            memtestPhase("Compare", pass);
            memtestCompare(&r);
        }
    }
    zfree((void *)r.words);
    printf("\x1b[H\x1b[2J\n"
           "Your memory passed this test.\n"
           "Please if you are still in doubt use the following two tools:\n"
           "1) memtest86: http://www.memtest86.com/\n"
           "2) memtester: http://pyropus.ca/software/memtester/\n");
}

/* argv[1] is "--test-memory". As Redis: the size is read with atoi (so
 * "abc" tests nothing and passes), any other argument count is refused. */
int memtestMain(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "Please specify the amount of memory to test in megabytes.\n");
        fprintf(stderr, "Example: ./redis-server --test-memory 4096\n\n");
        return 1;
    }
    int megabytes = atoi(argv[2]);
    memtestRun(megabytes > 0 ? (size_t)megabytes : 0);
    return 0;
}
