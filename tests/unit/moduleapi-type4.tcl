# moduleapi-type4.tcl -- a data type's version-3/4 callbacks (unlink2,
# free_effort2, mem_usage2, copy2) and what RedisModuleKeyOptCtx tells them
# (src/module_type.c, called from db.c, lazyfree.c, keyspace.c and
# memory_cmd.c), through tests/modules/mtype4.c: which callback runs for
# each command, with which keys and databases.
# Every expectation holds for Debian's Redis 7.0.15 loading the same .so:
# run the file with --server /usr/bin/redis-server to check.

source [file join $::harness_dir modules.tcl] ;# module_skip_reason, need_modules

start_server {tags {module} overrides {enable-module-command yes}} {
    test "DEL calls unlink2 then free; UNLINK asks free_effort2 too" {
        need_modules
        assert_equal OK [r module load [file join $::module_dir mtype4.so]]
        r mt4.set a 5
        assert_equal {} [r mt4.log]
        assert_equal 1 [r del a]
        assert_equal {{unlink2 a 0-1} free} [r mt4.log]
        r mt4.set b 5
        assert_equal 1 [r unlink b]
        assert_equal {{unlink2 b 0-1} {effort2 b 0-1} free} [r mt4.log]
    }

    test "UNLINK of a costly value (effort over 64, or 0: always) frees it in the background" {
        need_modules
        foreach {key effort} {c 1000 z 0} {
            r mt4.set $key $effort
            assert_equal 1 [r unlink $key]
            wait_for_condition 100 20 {[lindex [r mt4.log] end] eq "free"} else { fail "$key was not freed" }
        }
    }

    test "An overwrite is an unlink: SET over the key, a second ModuleTypeSetValue" {
        need_modules
        r mt4.set d 5
        r set d str
        assert_equal {{unlink2 d 0-1} free} [r mt4.log]
        r mt4.set g 3
        r mt4.set g 4
        assert_equal {{unlink2 g 0-1} free} [r mt4.log]
        r mt4.set e 5
        r rename e f
        assert_equal {{unlink2 e 0-1}} [r mt4.log]
    }

    test "COPY asks copy2 with both keys and databases; MEMORY USAGE asks mem_usage2" {
        need_modules
        r mt4.set h 5
        assert_equal 1 [r copy h h2 db 1]
        assert_equal {{copy2 h h2 0 1}} [r mt4.log]
        assert_morethan [r memory usage h samples 7] 999
        assert_equal {{mem2 h 0-1 7}} [r mt4.log]
        r select 1
        assert_equal 1 [r del h2]
        assert_equal {{unlink2 h2 1-1} free} [r mt4.log]
        r select 0
    }

    test "FLUSHALL frees the values without unlinking them" {
        need_modules
        r mt4.set i 5
        r mt4.log
        r flushall sync
        # f (renamed from e), g, h and i
        assert_equal {free free free free} [r mt4.log]
    }

    test "RDB save and load and DEBUG DIGEST tell the callbacks the key and its database" {
        need_modules
        r select 3
        r mt4.set d3 7
        r mt4.log
        r debug reload
        assert_equal {{save d3 3} free {load d3 3}} [r mt4.log] ;# the only key (after FLUSHALL)
        r debug digest-value d3
        assert_equal {{digest d3 3}} [r mt4.log]
        r debug digest
        assert_equal {{digest d3 3}} [r mt4.log]
        r del d3
        r mt4.log
        r select 0
    }
}
