# moduleapi-fork.tcl -- the fork API of Redis 7.0 modules (src/module_fork.c):
# Fork with its done handler, SendChildHeartbeat, ExitFromChild,
# KillForkChild, INFO's module_fork_* fields, and one child at a time,
# through the test module tests/modules/mfork.c.
# Every expectation holds for Debian's Redis 7.0.15 loading the same .so:
# run the file with --server /usr/bin/redis-server to check.

source [file join $::harness_dir modules.tcl] ;# module_skip_reason, need_modules

proc mfork_info {field} {
    regexp "$field:(\[0-9\]+)" [r info persistence] -> v
    return $v
}

proc mfork_wait_done {calls} {
    wait_for_condition 100 50 {[lindex [r mfork.done] 0] == $calls} else {
        fail "done handler: [r mfork.done]"
    }
}

start_server {tags {module} overrides {enable-module-command yes}} {
    test "Fork: the done handler gets the child's exit code; INFO module_fork_in_progress" {
        need_modules
        r module load [file join $::module_dir mfork.so]
        assert_equal 0 [mfork_info module_fork_in_progress]
        if {[catch {r mfork.fork 7 400} pid]} {
            # no fork() here (HAVE_FORK=0 or a seccomp filter)
            assert_match {ERR fork ENOSYS} $pid
            skip "fork() unavailable: $pid"
        }
        assert_morethan $pid 0
        assert_equal 1 [mfork_info module_fork_in_progress]
        set from [log_line_count]
        assert_error {ERR fork EEXIST} {r mfork.fork 0 0}
        wait_for_log "*Can't fork for module: File exists*" -from $from ;# Redis 7.0's line
        mfork_wait_done 1
        assert_equal {1 7 0 1} [r mfork.done]
        assert_equal 0 [mfork_info module_fork_in_progress]
        assert_equal PONG [r ping]
    }

    test "Fork: exit code 0, and 255 reported as code 1 by SIGUSR1" {
        need_modules
        if {[catch {r mfork.fork 0 0}]} { skip "fork() unavailable" }
        mfork_wait_done 2
        assert_equal {2 0 0 1} [r mfork.done]
        r mfork.fork 255 0
        mfork_wait_done 3
        assert_equal {3 1 10 1} [r mfork.done]
    }

    test "Fork: a child killed by a signal" {
        need_modules
        if {[catch {r mfork.fork 0 20000} pid]} { skip "fork() unavailable" }
        exec kill -9 $pid
        mfork_wait_done 4
        assert_equal {4 -1 9 1} [r mfork.done]
    }

    test "KillForkChild: the child goes, the done handler is not called; a wrong pid is refused" {
        need_modules
        r config set loglevel verbose ;# before the fork: the child's own
        if {[catch {r mfork.fork 0 20000} pid]} { r config set loglevel notice; skip "fork() unavailable" }
        assert_error {ERR kill} {r mfork.kill [expr {$pid + 1}]}
        set from [log_line_count]
        assert_equal OK [r mfork.kill $pid]
        wait_for_log "*Received SIGUSR1 in child, exiting now.*" -from $from ;# Redis 7.0's line (verbose)
        r config set loglevel notice
        assert_equal 0 [mfork_info module_fork_in_progress]
        assert_error {ERR kill} {r mfork.kill $pid}
        after 300
        assert_equal 4 [lindex [r mfork.done] 0]
        # the next fork works
        r mfork.fork 3 0
        mfork_wait_done 5
        assert_equal {5 3 0 1} [r mfork.done]
    }

    test "Fork is refused (EEXIST) while a BGSAVE runs" {
        need_modules
        set calls [lindex [r mfork.done] 0]
        r debug populate 20
        r config set rdb-key-save-delay 50000
        r bgsave
        wait_for_condition 50 20 {[mfork_info rdb_bgsave_in_progress] == 1} else { fail "no BGSAVE" }
        assert_error {ERR fork EEXIST} {r mfork.fork 0 0}
        r config set rdb-key-save-delay 0
        wait_for_condition 100 50 {[mfork_info rdb_bgsave_in_progress] == 0} else { fail "BGSAVE still runs" }
        assert_equal $calls [lindex [r mfork.done] 0]
    }

    test "While a module child runs, BGSAVE is refused or scheduled, BGREWRITEAOF scheduled" {
        need_modules
        set calls [lindex [r mfork.done] 0]
        if {[catch {r mfork.fork 0 1000} pid]} { skip "fork() unavailable" }
        set saves [mfork_info rdb_saves]
        assert_error {ERR Another child process is active (AOF?): can't BGSAVE right now.*} {r bgsave}
        assert_equal {Background saving scheduled} [r bgsave schedule]
        assert_equal {Background append only file rewriting scheduled} [r bgrewriteaof]
        assert_equal 0 [mfork_info rdb_bgsave_in_progress]
        assert_equal 0 [mfork_info aof_rewrite_in_progress]
        mfork_wait_done [expr {$calls + 1}]
        # both run once the child has gone, one after the other
        wait_for_condition 100 50 {[mfork_info rdb_saves] > $saves} else { fail "the scheduled BGSAVE never ran" }
        wait_for_condition 100 50 {[mfork_info aof_rewrites] >= 1 && [mfork_info aof_rewrite_in_progress] == 0} else {
            fail "the scheduled rewrite never ran"
        }
    }

    # lookupKey asks a flag kept where children start and end (snapshot.h's
    # snapshotForkChildExists): a module child's start, and its kill, must
    # reach it. With lfu-log-factor 0 and no decay each touch counts one.
    test "While a module child runs, lookups leave a key's access count alone" {
        need_modules
        # the previous test's scheduled BGSAVE and rewrite have gone
        wait_for_condition 100 50 {
            [mfork_info rdb_bgsave_in_progress] == 0 && [mfork_info aof_rewrite_in_progress] == 0
        } else { fail "a child still runs" }
        r config set maxmemory-policy allkeys-lfu
        r config set lfu-log-factor 0
        r config set lfu-decay-time 0
        r set lfukey v
        r get lfukey
        set freq [r object freq lfukey]
        if {[catch {r mfork.fork 0 20000} pid]} { skip "fork() unavailable: $pid" }
        r get lfukey
        r get lfukey
        assert_equal $freq [r object freq lfukey]
        assert_equal OK [r mfork.kill $pid]
        r get lfukey
        assert_equal [expr {$freq + 1}] [r object freq lfukey]
        r config set maxmemory-policy noeviction
    }
}

start_server {tags {module} overrides {enable-module-command yes}} {
    test "SendChildHeartbeat: INFO current_fork_perc is the child's progress x 100 while it runs" {
        need_modules
        r module load [file join $::module_dir mfork.so]
        if {[catch {r mfork.fork 0 3000}]} { skip "fork() unavailable" }
        # the child's first act is SendChildHeartbeat(0.5)
        wait_for_condition 100 50 {[string match *current_fork_perc:50.00* [r info persistence]]} else {
            fail "current_fork_perc: [regexp -inline {current_fork_perc:[0-9.]+} [r info persistence]]"
        }
        assert_equal 1 [mfork_info module_fork_in_progress]
        mfork_wait_done 1
        assert_match *current_fork_perc:0.00* [r info persistence]
    }
}
