/* replay.c -- a plain main() for a fuzz harness: feeds it every input kept in
 * tests/fuzz/corpus/<name>/ and tests/fuzz/regressions/<name>/ once, with no
 * fuzzer, no clang and no sanitizer required.
 *
 * Why: libFuzzer builds only natively with clang, but the code the harnesses
 * reach runs on every port. Linked with a harness by the port's compiler as
 * <build>/tests/test_fuzz_<name>, this runs among the C unit tests
 * (tests/c/run-unit.sh), natively and under QEMU, so each input that once
 * crashed stays fixed on big-endian and strict-alignment CPUs too.
 *
 * The harness name comes from the program's own name (test_fuzz_<name>);
 * FUZZ_DIR (the source tree's tests/fuzz, set by the Makefile) is where the
 * inputs are, or argv[1..] name files or directories instead. Prints
 * "N passed, N failed": an input passes when the harness returns. A finding
 * aborts the program -- run-unit.sh counts that as a failure and shows the
 * last file named on stderr before the crash.
 */
/* 64-bit inode numbers and sizes on 32-bit ports: without it, readdir()
 * and stat() fail with EOVERFLOW under qemu-arm on a 64-bit host's disk. */
#define _FILE_OFFSET_BITS 64

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

#ifndef FUZZ_DIR
#define FUZZ_DIR "tests/fuzz"
#endif

/* A harness without an initializer links: the weak reference is then 0. */
extern int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static int passed, failed;

static unsigned char *readWholeFile(const char *path, size_t *len) {
    FILE *fp = fopen(path, "rb");
    if (fp == NULL) return NULL;
    size_t cap = 4096, n = 0;
    unsigned char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, fp)) > 0) {
        n += got;
        if (n == cap) {
            unsigned char *bigger = realloc(buf, cap * 2);
            if (bigger == NULL) { free(buf); buf = NULL; break; }
            buf = bigger;
            cap *= 2;
        }
    }
    fclose(fp);
    *len = n;
    return buf;
}

/* The input in a buffer of exactly its size, as libFuzzer gives it. */
static void replayFile(const char *path) {
    size_t len = 0;
    unsigned char *whole = readWholeFile(path, &len);
    if (whole == NULL) {
        printf("[FAIL] %s: cannot read (%s)\n", path, strerror(errno));
        failed++;
        return;
    }
    unsigned char *exact = malloc(len ? len : 1);
    if (len) memcpy(exact, whole, len);
    free(whole);
    fprintf(stderr, "replaying %s\n", path); /* the last one named is the culprit of a crash */
    LLVMFuzzerTestOneInput(exact, len);
    free(exact);
    passed++;
}

static int compareNames(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every regular file in dir, in name order (the same order on every
 * machine); a missing directory has no inputs. */
static void replayDir(const char *dir) {
    DIR *d = opendir(dir);
    if (d == NULL) return;
    char **names = NULL;
    size_t count = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.') continue;
        names = realloc(names, sizeof(char *) * (count + 1));
        names[count++] = strdup(de->d_name);
    }
    closedir(d);
    if (count) qsort(names, count, sizeof(char *), compareNames);
    for (size_t j = 0; j < count; j++) {
        char path[4096];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, names[j]);
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) replayFile(path);
        free(names[j]);
    }
    free(names);
}

static void replayPath(const char *path) {
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) replayDir(path);
    else replayFile(path);
}

static const char *harnessName(const char *argv0) {
    const char *base = strrchr(argv0, '/');
    base = base ? base + 1 : argv0;
    const char *prefix = "test_fuzz_";
    return strncmp(base, prefix, strlen(prefix)) == 0 ? base + strlen(prefix) : base;
}

int main(int argc, char **argv) {
    if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
    if (argc > 1) {
        for (int j = 1; j < argc; j++) replayPath(argv[j]);
    } else {
        const char *name = harnessName(argv[0]);
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/corpus/%s", FUZZ_DIR, name);
        replayDir(dir);
        snprintf(dir, sizeof dir, "%s/regressions/%s", FUZZ_DIR, name);
        replayDir(dir);
        if (passed + failed == 0) {
            printf("[FAIL] no inputs for harness '%s' under %s\n", name, FUZZ_DIR);
            failed++;
        }
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
