# moduleapi-aux.tcl -- module aux data (src/module_type.c, rdb.c): a type's
# globals that aux_save writes into the RDB before and/or after the keys
# (aux_save_triggers) and aux_load reads back, in Redis 7.0's form (opcode
# 247), through tests/modules/maux.c: DEBUG RELOAD, the AOF rewrite's RDB
# preamble, the triggers honoured, dumps crossing both ways with Debian's
# Redis 7.0.15, and the loads that must fail (no module for the data, a
# module without aux_load, a module that refuses the data).

source [file join $::harness_dir modules.tcl] ;# module_skip_reason, need_modules

proc maux_path {} { return [file join $::module_dir maux.so] }

# A dump.rdb in a fresh directory, written by a server of ours that loaded
# maux with MODARGS and set both globals (and one key): the file's path.
proc maux_dump {modargs} {
    set path ""
    start_server {tags {module} overrides {enable-module-command yes}} {
        r module load [maux_path] {*}$modargs
        r maux.set before b-value
        r maux.set after a-value
        r set k v
        r save
        set path [file join [::harness::fresh_run_dir auxdump] dump.rdb]
        file copy -force [file join [srv dir] dump.rdb] $path
    }
    return $path
}

start_server {tags {module} overrides {enable-module-command yes}} {
    test "module aux data: both globals survive DEBUG RELOAD, with the keys" {
        need_modules
        assert_equal OK [r module load [maux_path]]
        r maux.set before "value before the keys"
        r maux.set after "value after the keys"
        r set plain v
        assert_equal OK [r debug reload]
        assert_equal "value before the keys" [r maux.get before]
        assert_equal "value after the keys" [r maux.get after]
        assert_equal v [r get plain]
    }

    test "module aux data: in the AOF rewrite's RDB preamble, back with DEBUG LOADAOF" {
        need_modules
        r config set aof-use-rdb-preamble yes
        r config set appendonly yes
        wait_for_condition 100 100 {[s aof_rewrite_in_progress] == 0 && [s aof_rewrite_scheduled] == 0} else {
            fail "the first rewrite did not end"
        }
        r maux.set before rewritten-before
        r maux.set after rewritten-after
        r bgrewriteaof
        wait_for_condition 100 100 {[s aof_rewrite_in_progress] == 0 && [s aof_rewrite_scheduled] == 0} else {
            fail "the rewrite did not end"
        }
        r maux.set before changed
        r maux.set after changed
        assert_equal OK [r debug loadaof]
        assert_equal rewritten-before [r maux.get before]
        assert_equal rewritten-after [r maux.get after]
        r config set appendonly no
    }
}

start_server {tags {module} overrides {enable-module-command yes}} {
    test "module aux data: only the triggers the type asked for are written" {
        need_modules
        assert_equal OK [r module load [maux_path] triggers 2]
        r maux.set before not-saved
        r maux.set after saved
        r save
        r maux.set before ""
        r maux.set after ""
        assert_equal OK [r debug reload nosave]
        assert_equal "" [r maux.get before]
        assert_equal saved [r maux.get after]
    }
}

start_server {tags {module} overrides {enable-module-command yes}} {
    test "module aux data: our RDB loads into Redis 7.0.15 and Redis's here, the same bytes both ways" {
        need_modules
        assert_equal OK [r module load [maux_path]]
        r maux.set before ours-before
        r maux.set after ours-after
        r set k ours
        r save
        set ref [start_reference_with_module [maux_path] refpid [file join [srv dir] dump.rdb]]
        assert_equal ours-before [$ref maux.get before]
        assert_equal ours-after [$ref maux.get after]
        assert_equal ours [$ref get k]
        $ref maux.set before redis-before
        $ref maux.set after redis-after
        $ref set k redis
        $ref save
        set refdir [lindex [$ref config get dir] 1]
        stop_reference $ref $refpid
        file copy -force [file join $refdir dump.rdb] [file join [srv dir] dump.rdb]
        assert_equal OK [r debug reload nosave]
        assert_equal redis-before [r maux.get before]
        assert_equal redis-after [r maux.get after]
        assert_equal redis [r get k]
    }
}

test "module aux data: a dump with aux data no loaded module knows stops start-up, naming the type" {
    need_modules
    set rdb [maux_dump {}]
    set dir [file dirname $rdb]
    lassign [run_failing_server --port [::harness::find_free_port] --bind 127.0.0.1 --dir $dir] status err out
    assert_equal 1 $status
    assert_match "*The RDB file contains AUX module data I can't load: no matching module 'mauxglobl'*" $out
}

test "module aux data: a type without aux_load, or whose aux_load fails, stops start-up with Redis's messages" {
    need_modules
    set rdb [maux_dump {}]
    set dir [file dirname $rdb]
    foreach {arg message} {
        noauxload "*The RDB file contains module AUX data, but the module 'mauxglobl' doesn't seem to support it.*"
        failload "*The RDB file contains module AUX data for the module type 'mauxglobl', that the responsible module is not able to load.*"
    } {
        lassign [run_failing_server --port [::harness::find_free_port] --bind 127.0.0.1 --dir $dir \
                     --loadmodule [maux_path] $arg] status err out
        assert_match $message $out
        # Redis 7.0.15 exits 0 when the module refuses the data: it ends with
        # its RDB checker's status, and the file itself is sound; ours says 1
        if {$arg ne "failload" || [ours]} { assert_equal 1 $status }
    }
}

if {[ours]} { ;# persistence-mode is ours: Redis would not start with it
start_server {tags {module forkless} overrides {enable-module-command yes persistence-mode forkless}} {
    test "module aux data: a forkless BGSAVE writes both parts too" {
        need_modules
        assert_equal OK [r module load [maux_path]]
        r maux.set before forkless-before
        r maux.set after forkless-after
        r set k v
        r bgsave
        wait_for_condition 100 100 {[s rdb_bgsave_in_progress] == 0} else { fail "the BGSAVE did not end" }
        assert_equal ok [s rdb_last_bgsave_status]
        r maux.set before ""
        r maux.set after ""
        assert_equal OK [r debug reload nosave]
        assert_equal forkless-before [r maux.get before]
        assert_equal forkless-after [r maux.get after]
        assert_equal v [r get k]
    }
}
}
