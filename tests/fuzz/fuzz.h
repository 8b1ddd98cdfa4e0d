/* fuzz.h -- what every fuzz harness in tests/fuzz/ provides and may use.
 *
 * A harness is one C file with libFuzzer's entry point; the same file is
 * linked two ways (tests/fuzz/fuzz.mk):
 *   - with clang's libFuzzer (-fsanitize=fuzzer,address,undefined) into
 *     build/fuzz/fuzz_<name>, for `make fuzz-run`;
 *   - with tests/fuzz/replay.c, by the port's own compiler, into
 *     <build>/tests/test_fuzz_<name>, which feeds it every file of
 *     tests/fuzz/corpus/<name>/ and tests/fuzz/regressions/<name>/, so
 *     `make test-unit` replays the corpus on every port (under QEMU too).
 * So a harness must not depend on libFuzzer: it only defines the two entry
 * points below, and reports a finding by crashing (abort() through
 * FUZZ_CHECK), which both builds see.
 */
#ifndef FUZZ_H
#define FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* One input; returns 0. A finding is a crash (sanitizer report or abort). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
/* Optional, once before the first input. */
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* An invariant the harness checks on top of the sanitizers: a violated one
 * is a finding, reported like a crash so libFuzzer keeps the input. */
#define FUZZ_CHECK(cond)                                                                         \
    do {                                                                                         \
        if (!(cond)) {                                                                           \
            fprintf(stderr, "fuzz check failed: %s (%s:%d)\n", #cond, __FILE__, __LINE__);      \
            abort();                                                                             \
        }                                                                                        \
    } while (0)

#endif /* FUZZ_H */
