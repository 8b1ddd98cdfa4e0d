/* aof.c -- fuzz harness: the AOF loader (src/aof_load.c) and the AOF
 * manifest parser (src/aof_manifest.c).
 *
 * Why: both read files an operator may have edited, truncated or copied
 * from another Redis, and start-up must refuse a bad one with a message,
 * never crash. Byte 0 picks which (even: an AOF file, odd: a manifest);
 * the rest is the file, written to a private temporary directory.
 *   - AOF: replayed as the only (incremental) file of a manifest by
 *     aofLoadFiles(), as at start-up -- RESP commands with annotations,
 *     MULTI/EXEC, truncation handling, or an RDB preamble. The commands run
 *     for real on a fake client, except those that stop, fork,
 *     reconfigure, block or run scripts (fuzz_server.c removes them), and
 *     strings are capped at 1 MB (proto-max-bulk-len) so SETRANGE/SETBIT
 *     cannot make every input a 512 MB allocation.
 *   - Manifest: aofManifestLoad(); an accepted one is written back with
 *     aofManifestPersist() and must load again to the same files (or be
 *     refused for a line too long: escaping makes a line longer).
 */
#include <unistd.h>

#include "fuzz.h"
#include "fuzz_server.h"
#include "aof.h"

static char dir[256];

static void removeDir(void) { rmdir(dir); } /* each input's files are gone by then */

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    fuzzServerInit();
    fuzzServerDisableDangerousCommands();
    server.proto_max_bulk_len = 1024 * 1024;
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(dir, sizeof dir, "%s/fuzz-aof-XXXXXX", tmp);
    FUZZ_CHECK(mkdtemp(dir) != NULL);
    atexit(removeDir);
    zfree(server.aof_dirname);
    server.aof_dirname = zstrdup(dir);
    return 0;
}

static sds writeFile(const char *name, const uint8_t *data, size_t size) {
    sds path = sdscatprintf(sdsempty(), "%s/%s", dir, name);
    FILE *fp = fopen(path, "wb");
    FUZZ_CHECK(fp != NULL);
    if (size) FUZZ_CHECK(fwrite(data, 1, size, fp) == size);
    fclose(fp);
    return path;
}

static void fuzzAof(const uint8_t *data, size_t size) {
    sds path = writeFile("fuzz.aof", data, size);
    aofManifest *am = aofManifestCreate();
    aofManifestAddIncr(am, "fuzz.aof", 1);
    off_t loaded = 0;
    aofLoadFiles(am, &loaded);
    FUZZ_CHECK(loaded >= 0 && (size_t)loaded <= size);
    aofManifestFree(am);
    unlink(path);
    sdsfree(path);
    fuzzServerEmptyData();
}

static int sameFile(const aofFile *a, const aofFile *b) {
    return a->seq == b->seq && a->type == b->type && !strcmp(a->name, b->name);
}

/* An accepted manifest, written back and read again, must list the same
 * files -- or be refused for a line too long: a name of raw bytes is
 * written escaped (\xNN, 4 bytes for 1), and past 1023 bytes the reader
 * refuses the line, as Redis's reader refuses the same line Redis's writer
 * makes. Any other refusal is a finding. */
static void checkRewritten(aofManifest *am) {
    /* Only history entries (dropped at load: leftovers to delete) leave
     * nothing to write back, and an empty manifest is refused on reading,
     * as Redis refuses one; the server never writes one (it starts an INCR
     * file first). */
    if (am->base == NULL && am->incr_count == 0) return;
    sds path = sdscatprintf(sdsempty(), "%s/again.manifest", dir);
    FUZZ_CHECK(aofManifestPersist(am, dir, path) == C_OK);
    aofManifest *again = NULL;
    aofManifestError err = {NULL, 0, NULL};
    if (aofManifestLoad(path, &again, &err) != C_OK) {
        if (strstr(err.reason, "too long line") == NULL) fprintf(stderr, "reload: %s\n", err.reason);
        FUZZ_CHECK(strstr(err.reason, "too long line") != NULL);
    } else {
        FUZZ_CHECK((am->base == NULL) == (again->base == NULL));
        if (am->base) FUZZ_CHECK(sameFile(am->base, again->base));
        FUZZ_CHECK(am->incr_count == again->incr_count);
        for (int j = 0; j < am->incr_count; j++) FUZZ_CHECK(sameFile(am->incrs[j], again->incrs[j]));
        aofManifestFree(again);
    }
    aofManifestErrorFree(&err);
    unlink(path);
    sdsfree(path);
}

static void fuzzManifest(const uint8_t *data, size_t size) {
    sds path = writeFile("fuzz.manifest", data, size);
    aofManifest *am = NULL;
    aofManifestError err = {NULL, 0, NULL};
    if (aofManifestLoad(path, &am, &err) == C_OK) {
        checkRewritten(am);
        aofManifestFree(am);
    }
    aofManifestErrorFree(&err);
    unlink(path);
    sdsfree(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    if (data[0] & 1) fuzzManifest(data + 1, size - 1);
    else fuzzAof(data + 1, size - 1);
    return 0;
}
