/* keyspec.c -- finding a command's keys in its arguments, from the key specs
 * of the command table (commands.c), as COMMAND GETKEYS / GETKEYSANDFLAGS
 * report them.
 *
 * A key spec says where a run of keys begins (a fixed index, after a
 * keyword, or unknown) and how far it goes (a range, a count read from the
 * arguments, or unknown), plus what the command does with those keys
 * (KSPEC_* flags). A command without explicit specs gets one derived from
 * its legacy first/last/step positions.
 *
 * Decisions, each matching what Redis 7.0 answers:
 * - The specs are used when they describe the command fully: some spec
 *   names real keys (not only shard channels) and no spec has variable
 *   flags. If a spec cannot be followed (unknown, incomplete, a key count
 *   that is not a plain non-negative number, keys past the end), the
 *   command's own getkeys function decides instead, and without one there
 *   are no keys.
 * - Those functions reproduce Redis's: SET and BITFIELD compute the flags
 *   from the arguments; SORT finds its STORE anywhere after the key;
 *   MIGRATE's KEYS takes every argument after it; the
 *   numkeys commands read the count the lenient way (leading blanks, a
 *   sign and trailing junk accepted) and report their keys without flags,
 *   the store variants listing the destination last.
 * - A key count read by a keynum spec is cut to 32 bits, as Redis does, so
 *   4294967297 counts as 1.
 * - A command has "movable keys" when a spec is anything but an index
 *   followed by a range.
 */
#include "server.h"

/* ---- specs of a command ------------------------------------------------------------------------------------ */

/* The command's key specs: its explicit ones, else (when it has legacy key
 * positions) one derived into *derived. Returns how many. */
int commandKeySpecs(redisCommand *cmd, const keySpec **specs, keySpec *derived) {
    if (cmd->key_specs) {
        *specs = cmd->key_specs;
        return cmd->key_specs_num;
    }
    *specs = NULL;
    if (cmd->firstkey <= 0) return 0;
    memset(derived, 0, sizeof(*derived));
    /* Only module commands lack explicit specs: Redis 7.0 gives their
     * legacy range full access whatever the command's flags, and variable
     * flags when the module reports keys itself ("getkeys-api"). */
    derived->flags = KSPEC_RW | KSPEC_ACCESS | KSPEC_UPDATE | (cmd->flags & CMD_MODULE_GETKEYS ? KSPEC_VARIABLE_FLAGS : 0);
    derived->bs_type = KSPEC_BS_INDEX;
    derived->bs.index = cmd->firstkey;
    derived->fk_type = KSPEC_FK_RANGE;
    derived->fk.range.lastkey = cmd->lastkey < 0 ? cmd->lastkey : cmd->lastkey - cmd->firstkey;
    derived->fk.range.keystep = cmd->keystep;
    derived->fk.range.limit = 0;
    *specs = derived;
    return 1;
}

/* The OR of the specs' flags; with invert, of their complements (so a bit
 * is set when at least one spec lacks it). */
static uint64_t allSpecFlags(redisCommand *cmd, int invert) {
    keySpec derived;
    const keySpec *specs;
    int n = commandKeySpecs(cmd, &specs, &derived);
    uint64_t flags = 0;
    for (int j = 0; j < n; j++) flags |= invert ? ~specs[j].flags : specs[j].flags;
    return flags;
}

int commandHasKeys(redisCommand *cmd) {
    return cmd->getkeys_proc != NULL || (cmd->flags & CMD_MODULE_GETKEYS) || (allSpecFlags(cmd, 1) & KSPEC_NOT_KEY);
}

/* Redis 7.0's rule: a module's "getkeys-api" command moves its keys; one
 * index+range spec does only when incomplete; several do when one is not
 * an index+range, steps by more than 1, does not follow the previous range
 * or is incomplete. */
int commandHasMovableKeys(redisCommand *cmd) {
    if (cmd->flags & CMD_MODULE_GETKEYS) return 1;
    keySpec derived;
    const keySpec *specs;
    int n = commandKeySpecs(cmd, &specs, &derived);
    if (n == 0) return 0;
    if (n == 1 && specs[0].bs_type == KSPEC_BS_INDEX && specs[0].fk_type == KSPEC_FK_RANGE)
        return (specs[0].flags & KSPEC_INCOMPLETE) != 0;
    int ranges = 0;
    unsigned prev_last = 0;
    for (int j = 0; j < n; j++) {
        const keySpec *s = &specs[j];
        if (s->bs_type != KSPEC_BS_INDEX || s->fk_type != KSPEC_FK_RANGE) return 1;
        if (s->fk.range.keystep != 1 || (prev_last && prev_last != (unsigned)(s->bs.index - 1))) return 1;
        if (s->flags & KSPEC_INCOMPLETE) return 1;
        int last = s->fk.range.lastkey >= 0 ? s->fk.range.lastkey + s->bs.index : s->fk.range.lastkey;
        if ((unsigned)last > prev_last) prev_last = (unsigned)last; /* unsigned: a negative last is the largest */
        ranges++;
    }
    return ranges == 0;
}

/* ---- results ------------------------------------------------------------------------------------------------- */

void getKeysAddKey(getKeysResult *result, int pos, uint64_t flags) {
    if (result->numkeys == result->size) {
        result->size = result->size ? result->size * 2 : 8;
        result->keys = zrealloc(result->keys, sizeof(keyReference) * (size_t)result->size);
    }
    result->keys[result->numkeys].pos = pos;
    result->keys[result->numkeys].flags = flags;
    result->numkeys++;
}

void getKeysFreeResult(getKeysResult *result) {
    zfree(result->keys);
    result->keys = NULL;
    result->numkeys = result->size = 0;
}

/* ---- following the specs ------------------------------------------------------------------------------------- */

/* Where the spec's keys begin: an index, 0 when its keyword is absent
 * (no keys, not an error), -1 when the spec cannot be followed. */
static int specBegin(const keySpec *spec, robj **argv, int argc) {
    if (spec->bs_type == KSPEC_BS_INDEX) return spec->bs.index;
    if (spec->bs_type != KSPEC_BS_KEYWORD) return -1;
    int from = spec->bs.keyword.startfrom;
    int start = from > 0 ? from : argc + from;
    int end = from > 0 ? argc - 1 : 0, dir = start <= end ? 1 : -1;
    for (int i = start; i != end && i >= 1 && i < argc; i += dir)
        if (!strcasecmp(argv[i]->ptr, spec->bs.keyword.keyword)) return i + 1;
    return 0;
}

/* A keynum spec's count: a plain non-negative number, cut to 32 bits. */
static int specKeyCount(robj *arg, long long *count) {
    long long n;
    if (!string2ll(arg->ptr, sdslen(arg->ptr), &n) || n < 0) return 0;
    uint32_t low = (uint32_t)((unsigned long long)n & 0xffffffffULL);
    *count = low > INT32_MAX ? (long long)low - 4294967296LL : (long long)low;
    return 1;
}

/* Adds the keys of one spec beginning at first. 0 when it cannot be followed. */
static int specFindKeys(const keySpec *spec, robj **argv, int argc, int first, getKeysResult *result) {
    long long last, step;
    if (spec->fk_type == KSPEC_FK_RANGE) {
        int lastkey = spec->fk.range.lastkey, limit = spec->fk.range.limit;
        if (lastkey >= 0) last = (long long)first + lastkey;
        else if (limit == 0) last = (long long)argc + lastkey;
        else last = first + ((argc - first) / limit + lastkey);
        step = spec->fk.range.keystep;
    } else if (spec->fk_type == KSPEC_FK_KEYNUM) {
        long long count;
        if (spec->fk.keynum.keynumidx >= argc - first) return 0;
        if (!specKeyCount(argv[first + spec->fk.keynum.keynumidx], &count)) return 0;
        first += spec->fk.keynum.firstkey;
        last = first + count - 1;
        step = spec->fk.keynum.keystep;
    } else {
        return 0;
    }
    if (last >= argc || last < first || first >= argc || step <= 0) return 0;
    for (long long i = first; i <= last; i += step) getKeysAddKey(result, (int)i, spec->flags);
    return !(spec->flags & KSPEC_INCOMPLETE);
}

/* The keys every spec finds, in spec order; -1 (and no keys) when one of
 * them cannot be followed. Specs naming no keys are skipped. */
static int getKeysUsingSpecs(const keySpec *specs, int n, robj **argv, int argc, getKeysResult *result) {
    for (int j = 0; j < n; j++) {
        if (specs[j].flags & KSPEC_NOT_KEY) continue;
        int first = specBegin(&specs[j], argv, argc);
        if (first == 0) continue;
        if (first < 0 || !specFindKeys(&specs[j], argv, argc, first, result)) {
            result->numkeys = 0;
            return -1;
        }
    }
    return result->numkeys;
}

/* The keys of a command line (argv[0] is the command name); their count. */
int getKeysFromCommand(redisCommand *cmd, robj **argv, int argc, getKeysResult *result) {
    keySpec derived;
    const keySpec *specs;
    int n = commandKeySpecs(cmd, &specs, &derived);
    result->numkeys = 0;
    if ((allSpecFlags(cmd, 1) & KSPEC_NOT_KEY) && !(allSpecFlags(cmd, 0) & KSPEC_VARIABLE_FLAGS)) {
        int found = getKeysUsingSpecs(specs, n, argv, argc, result);
        if (found >= 0) return found;
    }
    if (cmd->flags & CMD_MODULE_GETKEYS) return moduleGetKeysViaApi(cmd, argv, argc, result);
    if (cmd->getkeys_proc) return cmd->getkeys_proc(cmd, argv, argc, result);
    return 0;
}

/* The legacy first/last/step COMMAND INFO shows for specs a module set
 * (SetCommandInfo), glued as Redis 7.0 glues them: one index+range spec
 * is the range; several give the span of consecutive step-1 ranges,
 * skipping the others; none: 0 0 0. */
void commandLegacyRangeFromSpecs(redisCommand *cmd) {
    cmd->firstkey = cmd->lastkey = cmd->keystep = 0;
    const keySpec *specs = cmd->key_specs;
    int n = cmd->key_specs_num;
    if (n == 0) return;
    if (n == 1 && specs[0].bs_type == KSPEC_BS_INDEX && specs[0].fk_type == KSPEC_FK_RANGE) {
        int first = specs[0].bs.index, last = specs[0].fk.range.lastkey;
        cmd->firstkey = first;
        cmd->lastkey = last < 0 ? last : first + last;
        cmd->keystep = specs[0].fk.range.keystep;
        return;
    }
    int first = INT_MAX, prev_last = 0;
    unsigned last = 0;
    for (int j = 0; j < n; j++) {
        const keySpec *s = &specs[j];
        if (s->bs_type != KSPEC_BS_INDEX || s->fk_type != KSPEC_FK_RANGE) continue;
        if (s->fk.range.keystep != 1 || (prev_last && prev_last != s->bs.index - 1)) continue;
        if (s->bs.index < first) first = s->bs.index;
        int abs_last = s->fk.range.lastkey >= 0 ? s->fk.range.lastkey + s->bs.index : s->fk.range.lastkey;
        if ((unsigned)abs_last > last) last = (unsigned)abs_last; /* unsigned: a negative last is the largest */
        prev_last = (int)last;
    }
    if (first == INT_MAX) return;
    cmd->firstkey = first;
    cmd->lastkey = (int)last;
    cmd->keystep = 1;
}

/* Redis 7.0's older lookup, which modules' GetCommandKeysWithFlags still
 * answers from: a module's getkeys-api, else the command's getkeys
 * function, else its legacy first/last/step range -- whose keys carry no
 * flags. A range past the arguments gives no keys. Redis has getkeys
 * functions for every command whose keys move (GEORADIUS's STORE,
 * XREAD's STREAMS ...), flagless where ours are not written: their keys
 * come from the specs here, without flags. */
int getKeysFromCommandLegacy(redisCommand *cmd, robj **argv, int argc, getKeysResult *result) {
    result->numkeys = 0;
    if (cmd->flags & CMD_MODULE_GETKEYS) return moduleGetKeysViaApi(cmd, argv, argc, result);
    if (cmd->getkeys_proc) return cmd->getkeys_proc(cmd, argv, argc, result);
    if (cmd->module_cmd == NULL && commandHasMovableKeys(cmd)) {
        int n = getKeysFromCommand(cmd, argv, argc, result);
        for (int j = 0; j < n; j++) result->keys[j].flags = 0;
        return n;
    }
    if (cmd->firstkey <= 0 || cmd->keystep <= 0) return 0;
    int first = cmd->firstkey, last = cmd->lastkey < 0 ? argc + cmd->lastkey : cmd->lastkey;
    for (int j = first; j <= last; j += cmd->keystep) {
        if (j >= argc) {
            result->numkeys = 0;
            return 0;
        }
        getKeysAddKey(result, j, 0);
    }
    return result->numkeys;
}

/* ---- the commands' own getkeys functions ------------------------------------------------------------------------- */

/* SET key value [...GET...]: reads the old value only with GET. */
int setGetKeys(redisCommand *cmd, robj **argv, int argc, getKeysResult *result) {
    (void)cmd;
    uint64_t flags = KSPEC_OW | KSPEC_UPDATE;
    for (int i = 3; i < argc; i++) {
        if (!strcasecmp(argv[i]->ptr, "get")) {
            flags = KSPEC_RW | KSPEC_ACCESS | KSPEC_UPDATE;
            break;
        }
    }
    getKeysAddKey(result, 1, flags);
    return result->numkeys;
}

/* BITFIELD key [GET t o | OVERFLOW b | SET t o v | INCRBY t o i]...: read-only
 * unless a SET or INCRBY appears, or something it cannot parse (then it
 * assumes the worst). */
int bitfieldGetKeys(redisCommand *cmd, robj **argv, int argc, getKeysResult *result) {
    (void)cmd;
    int readonly = 1;
    for (int i = 2; i < argc && readonly; i++) {
        int rest = argc - i - 1;
        const char *op = argv[i]->ptr;
        if (!strcasecmp(op, "get") && rest >= 2) i += 2;
        else if (!strcasecmp(op, "overflow") && rest >= 1) i += 1;
        else readonly = 0; /* SET, INCRBY, or a syntax error */
    }
    getKeysAddKey(result, 1, readonly ? KSPEC_RO | KSPEC_ACCESS : KSPEC_RW | KSPEC_ACCESS | KSPEC_UPDATE);
    return result->numkeys;
}

/* MIGRATE host port key db timeout [options] [KEYS key...]: the key, or
 * with KEYS (which needs the key argument empty) everything after it. The
 * scan for KEYS skips the arguments of AUTH (one) and AUTH2 (two). */
int migrateGetKeys(redisCommand *cmd, robj **argv, int argc, getKeysResult *result) {
    (void)cmd;
    const uint64_t flags = KSPEC_RW | KSPEC_ACCESS | KSPEC_DELETE;
    for (int i = 6; i < argc; i++) {
        const char *opt = argv[i]->ptr;
        if (!strcasecmp(opt, "auth")) {
            i += 1;
        } else if (!strcasecmp(opt, "auth2")) {
            i += 2;
        } else if (!strcasecmp(opt, "keys")) {
            if (sdslen(argv[3]->ptr) != 0) return 0;
            for (int k = i + 1; k < argc; k++) getKeysAddKey(result, k, flags);
            return result->numkeys;
        }
    }
    getKeysAddKey(result, 3, flags);
    return result->numkeys;
}

/* SORT key [BY p] [LIMIT o c] [GET p]... [STORE dst]: the last STORE with an
 * argument after it names the destination. The arguments of BY, GET and
 * LIMIT are skipped; STORE's is not, so "STORE STORE x" stores into x. */
static int sortKeys(redisCommand *cmd, robj **argv, int argc, getKeysResult *result, int with_store) {
    keySpec derived;
    const keySpec *specs;
    int n = commandKeySpecs(cmd, &specs, &derived);
    int store = 0;
    for (int i = 2; i < argc && with_store; i++) {
        const char *arg = argv[i]->ptr;
        if (!strcasecmp(arg, "limit")) i += 2;
        else if (!strcasecmp(arg, "get") || !strcasecmp(arg, "by")) i += 1;
        else if (!strcasecmp(arg, "store") && i + 1 < argc) store = i + 1;
    }
    getKeysAddKey(result, 1, n > 0 ? specs[0].flags : KSPEC_RO | KSPEC_ACCESS);
    if (store) getKeysAddKey(result, store, n > 2 ? specs[2].flags : KSPEC_OW | KSPEC_UPDATE);
    return result->numkeys;
}

int sortGetKeys(redisCommand *cmd, robj **argv, int argc, getKeysResult *result) {
    return sortKeys(cmd, argv, argc, result, 1);
}

int sortroGetKeys(redisCommand *cmd, robj **argv, int argc, getKeysResult *result) {
    return sortKeys(cmd, argv, argc, result, 0);
}

/* A key count read the lenient way (as C's atoi does). */
static int lenientCount(robj *arg) { return (int)strtol(arg->ptr, NULL, 10); }

/* numkeys at argv[at], the keys right after it; no flags. */
static int keynumKeys(robj **argv, int argc, int at, getKeysResult *result) {
    if (at >= argc) return 0;
    int count = lenientCount(argv[at]);
    if (count < 1 || count > argc - at - 1) return 0;
    for (int j = 0; j < count; j++) getKeysAddKey(result, at + 1 + j, 0);
    return result->numkeys;
}

/* ZUNION, ZINTER, ZDIFF, ZINTERCARD, SINTERCARD, LMPOP, ZMPOP: numkeys key... */
int numkeysFirstGetKeys(redisCommand *cmd, robj **argv, int argc, getKeysResult *result) {
    (void)cmd;
    return keynumKeys(argv, argc, 1, result);
}

/* BLMPOP, BZMPOP: timeout numkeys key... */
int numkeysSecondGetKeys(redisCommand *cmd, robj **argv, int argc, getKeysResult *result) {
    (void)cmd;
    return keynumKeys(argv, argc, 2, result);
}

/* ZUNIONSTORE, ZINTERSTORE, ZDIFFSTORE: destination numkeys key...; the
 * sources first, the destination last. */
int zstoreGetKeys(redisCommand *cmd, robj **argv, int argc, getKeysResult *result) {
    (void)cmd;
    if (keynumKeys(argv, argc, 2, result) == 0) return 0;
    getKeysAddKey(result, 1, 0);
    return result->numkeys;
}
