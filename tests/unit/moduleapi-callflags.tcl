# moduleapi-callflags.tcl -- Call's flag letters and errno, and
# SetContextUser (src/module_call.c), through tests/modules/mflags.c: what
# each letter refuses, in Redis 7.0's words with 'E' and as errno without,
# 'C' checked against the context's or the caller's user (and logged as
# Redis logs it), '!' narrowed by 'A', and HELLO's modules list.
# Every expectation holds for Debian's Redis 7.0.15 loading the same .so:
# run the file with --server /usr/bin/redis-server to check.

source [file join $::harness_dir modules.tcl] ;# module_skip_reason, need_modules

start_server {tags {module} overrides {enable-module-command yes}} {
    test "Call: errno for an unknown command, a wrong arity, an unknown letter; 'E' gives Redis's errors" {
        need_modules
        assert_equal OK [r module load [file join $::module_dir mflags.so]]
        assert_error {ERR errno ENOENT} {r mflags.call - nosuchcmd a}
        assert_error {ERR unknown command 'nosuchcmd', with args beginning with: 'a' } {r mflags.call E nosuchcmd a}
        assert_error {ERR unknown subcommand 'nosuchsub'. Try CONFIG HELP.} {r mflags.call E config nosuchsub}
        assert_error {ERR errno EINVAL} {r mflags.call - get}
        assert_error {ERR wrong number of arguments for 'get' command} {r mflags.call E get a b}
        assert_error {ERR errno EBADF} {r mflags.call Z get a}
    }

    test "Call: 'S' refuses what scripts may not run, 'W' writes" {
        need_modules
        assert_error {ERR errno ESPIPE} {r mflags.call S multi}
        assert_error {ERR command 'multi' is not allowed on script mode} {r mflags.call SE multi}
        assert_error {ERR errno ENOSPC} {r mflags.call W set k v}
        assert_error {ERR Write command 'set' was called while write is not allowed.} {r mflags.call WE set k v}
        assert_equal {} [r mflags.call W get k]
        assert_equal 0 [r exists k]
    }

    test "Call: 'M' refuses deny-oom commands over maxmemory" {
        need_modules
        r config set maxmemory 1
        catch {
            assert_error {ERR errno ENOSPC} {r mflags.call M set k v}
            assert_error {OOM command not allowed when used memory > 'maxmemory'.} {r mflags.call ME set k v}
            assert_equal {} [r mflags.call M get k]
        } err opts
        r config set maxmemory 0
        if {$err ne ""} { return -options $opts $err }
    }

    test "Call: 'C' runs as the caller's user, or SetContextUser's; denials are EACCES and logged" {
        need_modules
        r acl setuser limited on nopass {~k*} +get +set +acl|whoami
        r acl log reset
        assert_equal OK [r mflags.call CE set k v]
        assert_equal v [r mflags.asuser limited C get k]
        assert_equal limited [r mflags.asuser limited CE acl whoami]
        assert_error {ERR errno EACCES} {r mflags.asuser limited C get other}
        assert_error {ERR acl verification failed, can't access at least one of the keys mentioned in the command arguments.} \
            {r mflags.asuser limited CE get other}
        assert_error {ERR acl verification failed, can't run this command or subcommand.} {r mflags.asuser limited CE del k}
        set entry [lindex [r acl log] 0]
        # logged under the calling client's user, as Redis 7.0 does
        assert_equal {command module del default} \
            [list [dict get $entry reason] [dict get $entry context] [dict get $entry object] [dict get $entry username]]
        # the two denials of the same key are one entry (count 2)
        assert_equal 2 [llength [r acl log]]
        # the caller's own user is restored after the call
        assert_equal default [r acl whoami]
    }

    test "HELLO lists the loaded modules, as MODULE LIST does" {
        need_modules
        set hello [r hello 2]
        assert_equal [r module list] [dict get $hello modules]
        assert_equal mflags [dict get [lindex [dict get $hello modules] 0] name]
        assert_equal standalone [dict get $hello mode]
    }
}

start_server {tags {module external:skip} overrides {enable-module-command yes appendonly yes appendfsync always aof-use-rdb-preamble no}} {
    test "Call: '!' propagates, 'A' keeps it out of the AOF" {
        need_modules
        r module load [file join $::module_dir mflags.so]
        set written [aof_commands_written { assert_equal OK [r mflags.call ! set rk v] }]
        assert_equal {{set rk v}} $written
        set written [aof_commands_written { assert_equal OK [r mflags.call !A set rk2 v] }]
        assert_equal {} $written
        set written [aof_commands_written { assert_equal OK [r mflags.call - set rk3 v] }]
        assert_equal {} $written
        assert_equal {v v v} [r mget rk rk2 rk3]
    }
}

start_server {tags {module external:skip} overrides {enable-module-command yes appendonly yes appendfsync always aof-use-rdb-preamble no}} {
    test "A Call inside a script: '!' propagates whatever redis.set_repl() says; the script's choice holds after" {
        need_modules
        r module load [file join $::module_dir mflags.so]
        # as 7.0.15: set_repl(REPL_NONE) does not reach the module's '!' Call, but still the script's SET
        set written [aof_commands_written {
            r eval {redis.set_repl(redis.REPL_NONE); redis.call('mflags.call', '!', 'set', 'n1', 'v'); return redis.call('set', 'n2', 'v')} 0
        }]
        assert_equal {{set n1 v}} [lsearch -all -inline -not -regexp $written {^(multi|exec|MULTI|EXEC)$}]
        # after a Call without '!', the script's own writes still propagate
        set written [aof_commands_written {
            r eval {redis.call('mflags.call', '-', 'set', 'n3', 'v'); return redis.call('set', 'n4', 'v')} 0
        }]
        assert_equal {{set n4 v}} [lsearch -all -inline -not -regexp $written {^(multi|exec|MULTI|EXEC)$}]
        assert_equal {v v v v} [r mget n1 n2 n3 n4]
    }

    test "A '!' Call nested in a Call without '!' is not propagated" {
        need_modules
        set written [aof_commands_written { assert_equal OK [r mflags.call - mflags.call ! set n5 v] }]
        assert_equal {} $written
        set written [aof_commands_written { assert_equal OK [r mflags.call ! mflags.call ! set n6 v] }]
        assert_equal {{set n6 v}} [lsearch -all -inline -not -regexp $written {^(multi|exec|MULTI|EXEC)$}]
    }
}

# A client's own EVAL meets these refusals in processCommand; a module's
# Call of EVAL does not pass there, so the script's run checks them itself,
# as Redis 7.0's scriptPrepareForRun does.
start_server {tags {module repl} overrides {enable-module-command yes}} {
    test "Call of EVAL: a script that may write is refused before it runs without enough replicas or on a read-only replica" {
        need_modules
        assert_equal OK [r module load [file join $::module_dir mflags.so]]
        r set x v
        r config set min-replicas-to-write 1
        try {
            assert_error {NOREPLICAS *} {r mflags.call - eval "#!lua\nreturn redis.call('get','x')" 1 x}
            assert_equal v [r mflags.call - eval "#!lua flags=no-writes\nreturn redis.call('get','x')" 1 x]
            assert_error {NOREPLICAS *} {r mflags.call - eval "return redis.call('set','x','w')" 1 x}
        } finally {
            r config set min-replicas-to-write 0
        }
        r replicaof 127.0.0.1 1 ;# a primary that never answers
        try {
            assert_error {READONLY You can't write against a read only replica. script*} \
                {r mflags.call - eval "return redis.call('set','x','w')" 1 x}
            assert_error {READONLY Can not run script with write flag on readonly replica*} \
                {r mflags.call - eval "#!lua\nreturn 3" 0}
            assert_equal 2 [r mflags.call - eval "#!lua flags=no-writes\nreturn 2" 0]
        } finally {
            r replicaof no one
        }
        assert_equal v [r get x]
    }
}

start_server {tags {module} overrides {enable-module-command yes}} {
    test "A module command whose name has a ':' is named with '_' in INFO commandstats and latencystats" {
        need_modules
        assert_equal OK [r module load [file join $::module_dir mflags.so]]
        assert_equal OK [r mflags.weird:cmd]
        assert_match "*\r\ncmdstat_mflags.weird_cmd:calls=1,*" [r info commandstats]
        assert_match "*\r\nlatency_percentiles_usec_mflags.weird_cmd:p50=*" [r info latencystats]
        assert_no_match "*weird:cmd*" [r info everything]
    }
}

# INFO errorstats' count for an error code, or "" when none was counted.
proc mflags_errorstat {code} {
    if {[regexp "errorstat_$code:count=(\[0-9\]+)" [r info errorstats] -> n]} { return $n }
    return ""
}

start_server {tags {module} overrides {enable-module-command yes}} {
    test "A Call's error counts in errorstats when the module replies with it, once; the inner command still fails" {
        need_modules
        assert_equal OK [r module load [file join $::module_dir mflags.so]]
        r config resetstat
        # 'E': Call's own refusal, counted when the module passes it on
        assert_error {ERR unknown command 'nosuchcmd'*} {r mflags.call E nosuchcmd a}
        assert_equal 1 [mflags_errorstat ERR]
        # the inner command's error: counted once, not at the inner reply and again at the outer
        r set str v
        assert_error {WRONGTYPE*} {r mflags.call - hgetall str}
        assert_equal 1 [mflags_errorstat WRONGTYPE]
        assert_match {*calls=1,*,rejected_calls=0,failed_calls=1} [module_cmdstat hgetall]
        # the module's own error (Call refused, errno)
        assert_error {ERR errno ENOSPC} {r mflags.call W set k v}
        assert_equal 2 [mflags_errorstat ERR]
        assert_equal 3 [s total_error_replies]
        assert_match {*calls=3,*,rejected_calls=0,failed_calls=3} [module_cmdstat mflags.call]
    }
}
