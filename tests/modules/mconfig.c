/* mconfig.c -- a test module for module configuration parameters
 * (RegisterBoolConfig, RegisterStringConfig, RegisterNumericConfig,
 * RegisterEnumConfig, LoadConfigs), used by tests/unit/moduleapi-config.tcl.
 * Built against Redis 7.0's redismodule.h by utils/build-test-modules.sh, so
 * the same .so runs in Redis 7.0.15 and both servers can be held to the
 * same expectations.
 *
 * Its configs ("mconfig.<name>"):
 *   enabled  bool, default yes
 *   str      string, default "hello"; its setter refuses "bad" (with a
 *            message) and "silent" (without one)
 *   num      numeric -5..100, default 10
 *   mem      numeric MEMORY 0..2^40, default 1024
 *   enum     enum one=1 two=2 three=3, default one
 *   flags    enum BITFLAGS none=0 a=1 b=2 c=4 all=7, default a|b
 *   imm      numeric IMMUTABLE 0..100, default 7
 *   secret   string SENSITIVE, default ""
 *   hidden   bool HIDDEN, default no
 *   prot     numeric PROTECTED 0..100, default 0
 *   pa, pb   bools, default no, sharing one privdata (a struct) and one
 *            apply callback: CONFIG SET must call it once for both
 * num and enum share one apply callback but not their privdata (counted;
 * it refuses num = 99), mem has its own (counted).
 *
 * OnLoad arguments: "noload" skips LoadConfigs (the load must then fail).
 * OnLoad also tries bad registrations and records their errno names.
 *
 * MCONFIG.APPLIES: [shared apply calls, mem apply calls, pair apply calls]
 * MCONFIG.SETS: setter calls so far (all configs)
 * MCONFIG.ARGS: the OnLoad arguments
 * MCONFIG.BADREGS: the errno names of OnLoad's bad registrations, in order
 * MCONFIG.LOADCONFIGS: LoadConfigs called from a command: OK or ERR
 * MCONFIG.REGISTER name: RegisterBoolConfig from a command: OK or ERR
 */
#include "redismodule.h"

#include <errno.h>
#include <string.h>

static int enabled, hidden_flag, enum_val, flags_val;
static long long num, mem, imm, prot;
static RedisModuleString *str, *secret, *late;
static long long shared_applies, mem_applies, pair_applies, sets;
static RedisModuleString **load_argv;
static int load_argc;
static const char *badregs[8];
static int nbadregs;

/* bools and enums: an int */
static int getInt(const char *name, void *privdata) {
    (void)name;
    const int *v = privdata;
    return *v;
}

static int setInt(const char *name, int val, void *privdata, RedisModuleString **err) {
    (void)name, (void)err;
    sets++;
    int *v = privdata;
    *v = val;
    return REDISMODULE_OK;
}

static long long getNum(const char *name, void *privdata) {
    (void)name;
    const long long *v = privdata;
    return *v;
}

static int setNum(const char *name, long long val, void *privdata, RedisModuleString **err) {
    (void)name, (void)err;
    sets++;
    long long *v = privdata;
    *v = val;
    return REDISMODULE_OK;
}

static RedisModuleString *getStr(const char *name, void *privdata) {
    (void)name;
    return *(RedisModuleString **)privdata;
}

static int setStr(const char *name, RedisModuleString *val, void *privdata, RedisModuleString **err) {
    sets++;
    size_t len;
    const char *s = val ? RedisModule_StringPtrLen(val, &len) : "";
    if (!strcmp(s, "bad")) {
        *err = RedisModule_CreateStringPrintf(NULL, "%s refuses 'bad'", name);
        return REDISMODULE_ERR;
    }
    if (!strcmp(s, "silent")) return REDISMODULE_ERR;
    RedisModuleString **slot = privdata;
    if (*slot) RedisModule_FreeString(NULL, *slot);
    if (val) RedisModule_RetainString(NULL, val);
    *slot = val;
    return REDISMODULE_OK;
}

static int applyShared(RedisModuleCtx *ctx, void *privdata, RedisModuleString **err) {
    (void)ctx, (void)privdata;
    shared_applies++;
    if (num == 99) {
        *err = RedisModule_CreateString(NULL, "apply refuses 99", 16);
        return REDISMODULE_ERR;
    }
    return REDISMODULE_OK;
}

static int applyMem(RedisModuleCtx *ctx, void *privdata, RedisModuleString **err) {
    (void)ctx, (void)privdata, (void)err;
    mem_applies++;
    return REDISMODULE_OK;
}

static int cmdApplies(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv, (void)argc;
    RedisModule_ReplyWithArray(ctx, 3);
    RedisModule_ReplyWithLongLong(ctx, shared_applies);
    RedisModule_ReplyWithLongLong(ctx, mem_applies);
    return RedisModule_ReplyWithLongLong(ctx, pair_applies);
}

static int cmdSets(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv, (void)argc;
    return RedisModule_ReplyWithLongLong(ctx, sets);
}

static int cmdArgs(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv, (void)argc;
    RedisModule_ReplyWithArray(ctx, load_argc);
    for (int j = 0; j < load_argc; j++) RedisModule_ReplyWithString(ctx, load_argv[j]);
    return REDISMODULE_OK;
}

static int cmdBadRegs(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv, (void)argc;
    RedisModule_ReplyWithArray(ctx, nbadregs);
    for (int j = 0; j < nbadregs; j++) RedisModule_ReplyWithCString(ctx, badregs[j]);
    return REDISMODULE_OK;
}

static int cmdLoadConfigs(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv, (void)argc;
    return RedisModule_ReplyWithSimpleString(ctx, RedisModule_LoadConfigs(ctx) == REDISMODULE_OK ? "OK" : "ERR");
}

static int lateFlag;

static struct {
    int a, b;
} pair;

static int getPair(const char *name, void *privdata) {
    (void)privdata;
    return !strcmp(name, "pa") ? pair.a : pair.b;
}

static int setPair(const char *name, int val, void *privdata, RedisModuleString **err) {
    (void)privdata, (void)err;
    sets++;
    if (!strcmp(name, "pa")) pair.a = val;
    else pair.b = val;
    return REDISMODULE_OK;
}

static int applyPair(RedisModuleCtx *ctx, void *privdata, RedisModuleString **err) {
    (void)ctx, (void)privdata, (void)err;
    pair_applies++;
    return REDISMODULE_OK;
}

static int cmdRegister(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 2) return RedisModule_WrongArity(ctx);
    int res = RedisModule_RegisterBoolConfig(ctx, RedisModule_StringPtrLen(argv[1], NULL), 1, REDISMODULE_CONFIG_DEFAULT,
                                             getInt, setInt, NULL, &lateFlag);
    (void)late;
    return RedisModule_ReplyWithSimpleString(ctx, res == REDISMODULE_OK ? "OK" : "ERR");
}

static const char *errnoName(int res) {
    if (res == REDISMODULE_OK) return "OK";
    if (errno == EINVAL) return "EINVAL";
    if (errno == EALREADY) return "EALREADY";
    if (errno == EBUSY) return "EBUSY";
    return "other";
}

static void badRegistrations(RedisModuleCtx *ctx) {
    static int dummy;
    static const char *names[] = {"x"};
    static const int vals[] = {1};
    badregs[nbadregs++] = errnoName(RedisModule_RegisterBoolConfig(ctx, "enabled", 0, 0, getInt, setInt, NULL, &dummy));
    badregs[nbadregs++] = errnoName(RedisModule_RegisterBoolConfig(ctx, "ENABLED", 0, 0, getInt, setInt, NULL, &dummy));
    badregs[nbadregs++] = errnoName(RedisModule_RegisterBoolConfig(ctx, "bad.name", 0, 0, getInt, setInt, NULL, &dummy));
    badregs[nbadregs++] = errnoName(RedisModule_RegisterBoolConfig(ctx, "", 0, 0, getInt, setInt, NULL, &dummy));
    badregs[nbadregs++] = errnoName(RedisModule_RegisterBoolConfig(ctx, "m1", 0, REDISMODULE_CONFIG_MEMORY, getInt,
                                                                   setInt, NULL, &dummy));
    badregs[nbadregs++] = errnoName(RedisModule_RegisterNumericConfig(ctx, "m2", 0, REDISMODULE_CONFIG_BITFLAGS, 0, 1,
                                                                      getNum, setNum, NULL, &num));
    badregs[nbadregs++] = errnoName(RedisModule_RegisterEnumConfig(ctx, "m3", 1, 1u << 20, names, vals, 1, getInt,
                                                                   setInt, NULL, &dummy));
}

/* What the module holds; a failed OnLoad must free it too (no OnUnload follows). */
static void release(void) {
    for (int j = 0; j < load_argc; j++) RedisModule_FreeString(NULL, load_argv[j]);
    RedisModule_Free(load_argv);
    load_argv = NULL;
    load_argc = 0;
    if (str) RedisModule_FreeString(NULL, str);
    if (secret) RedisModule_FreeString(NULL, secret);
    str = secret = NULL;
    shared_applies = mem_applies = pair_applies = sets = 0;
    nbadregs = 0;
}

int RedisModule_OnUnload(RedisModuleCtx *ctx) {
    (void)ctx;
    release();
    return REDISMODULE_OK;
}

int RedisModule_OnLoad(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (RedisModule_Init(ctx, "mconfig", 1, REDISMODULE_APIVER_1) == REDISMODULE_ERR) return REDISMODULE_ERR;
    int noload = 0;
    load_argc = argc;
    load_argv = RedisModule_Alloc(sizeof(*load_argv) * (size_t)(argc ? argc : 1));
    for (int j = 0; j < argc; j++) {
        RedisModule_RetainString(ctx, argv[j]);
        load_argv[j] = argv[j];
        if (!strcmp(RedisModule_StringPtrLen(argv[j], NULL), "noload")) noload = 1;
    }
    static const char *enum_names[] = {"one", "two", "three"};
    static const int enum_vals[] = {1, 2, 3};
    static const char *flag_names[] = {"none", "a", "b", "c", "all"};
    static const int flag_vals[] = {0, 1, 2, 4, 7};
    if (RedisModule_RegisterBoolConfig(ctx, "enabled", 1, REDISMODULE_CONFIG_DEFAULT, getInt, setInt, NULL,
                                       &enabled) == REDISMODULE_ERR ||
        RedisModule_RegisterStringConfig(ctx, "str", "hello", REDISMODULE_CONFIG_DEFAULT, getStr, setStr, NULL,
                                         &str) == REDISMODULE_ERR ||
        RedisModule_RegisterNumericConfig(ctx, "num", 10, REDISMODULE_CONFIG_DEFAULT, -5, 100, getNum, setNum,
                                          applyShared, &num) == REDISMODULE_ERR ||
        RedisModule_RegisterNumericConfig(ctx, "mem", 1024, REDISMODULE_CONFIG_MEMORY, 0, 1LL << 40, getNum, setNum,
                                          applyMem, &mem) == REDISMODULE_ERR ||
        RedisModule_RegisterEnumConfig(ctx, "enum", 1, REDISMODULE_CONFIG_DEFAULT, enum_names, enum_vals, 3, getInt,
                                       setInt, applyShared, &enum_val) == REDISMODULE_ERR ||
        RedisModule_RegisterEnumConfig(ctx, "flags", 3, REDISMODULE_CONFIG_BITFLAGS, flag_names, flag_vals, 5,
                                       getInt, setInt, NULL, &flags_val) == REDISMODULE_ERR ||
        RedisModule_RegisterNumericConfig(ctx, "imm", 7, REDISMODULE_CONFIG_IMMUTABLE, 0, 100, getNum, setNum, NULL,
                                          &imm) == REDISMODULE_ERR ||
        RedisModule_RegisterStringConfig(ctx, "secret", "", REDISMODULE_CONFIG_SENSITIVE, getStr, setStr, NULL,
                                         &secret) == REDISMODULE_ERR ||
        RedisModule_RegisterBoolConfig(ctx, "hidden", 0, REDISMODULE_CONFIG_HIDDEN, getInt, setInt, NULL,
                                       &hidden_flag) == REDISMODULE_ERR ||
        RedisModule_RegisterNumericConfig(ctx, "prot", 0, REDISMODULE_CONFIG_PROTECTED, 0, 100, getNum, setNum, NULL,
                                          &prot) == REDISMODULE_ERR ||
        RedisModule_RegisterBoolConfig(ctx, "pa", 0, REDISMODULE_CONFIG_DEFAULT, getPair, setPair, applyPair,
                                       &pair) == REDISMODULE_ERR ||
        RedisModule_RegisterBoolConfig(ctx, "pb", 0, REDISMODULE_CONFIG_DEFAULT, getPair, setPair, applyPair,
                                       &pair) == REDISMODULE_ERR)
        return REDISMODULE_ERR;
    badRegistrations(ctx);
    if (!noload && RedisModule_LoadConfigs(ctx) == REDISMODULE_ERR) {
        release();
        return REDISMODULE_ERR;
    }
    if (RedisModule_CreateCommand(ctx, "mconfig.applies", cmdApplies, "", 0, 0, 0) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mconfig.sets", cmdSets, "", 0, 0, 0) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mconfig.args", cmdArgs, "", 0, 0, 0) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mconfig.badregs", cmdBadRegs, "", 0, 0, 0) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mconfig.loadconfigs", cmdLoadConfigs, "", 0, 0, 0) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mconfig.register", cmdRegister, "", 0, 0, 0) == REDISMODULE_ERR)
        return REDISMODULE_ERR;
    return REDISMODULE_OK;
}
