# fork-child.tcl -- what the BGSAVE and AOF rewrite children report: their
# log lines ("DB saved on disk", "Fork CoW for RDB: ...", the AOF rewrite's
# equivalents), the parent's ("Background saving started by pid N",
# "... terminated with success"), and INFO persistence's fork fields
# (current_cow_*, current_fork_perc, current_save_keys_*, rdb_saves,
# rdb_last_cow_size, aof_last_cow_size), with Redis 7.0's texts and meaning.
#
# Design decisions:
# - Every test also runs against the reference server
#   (./runtest --server /usr/bin/redis-server --single integration/fork-child).
# - A child is kept alive with rdb-key-save-delay (microseconds per key), so
#   the parent can write while it runs: SETRANGE on every key rewrites the
#   pages the child shares, which copy-on-write must then duplicate. The
#   child reports about once a second, so the waits allow several seconds.
# - A child that ignores SIGUSR1 is made with SIGSTOP: the parent's kill
#   must not wait for it forever (Redis does; we send SIGKILL after 5 s).
# - Copy-on-write is measured from /proc: on a system without it the sizes
#   are 0 and those assertions are skipped.

proc has_proc_smaps {} { expr {[file readable /proc/self/smaps_rollup] || [file readable /proc/self/smaps]} }

proc wait_child_done {} {
    wait_for_condition 400 50 {[s rdb_bgsave_in_progress] == 0 && [s aof_rewrite_in_progress] == 0} else {
        fail "the fork child did not finish"
    }
}

# Writes into every key's value in place while a child runs.
proc touch_all_keys {n} {
    for {set i 0} {$i < $n} {incr i} { r setrange key:$i 0 [string repeat x 64] }
}

start_server {tags {persistence fork}} {
    set keys 2500 ;# Redis's child reports after key 1024, 2048 ... once a second has passed
    r debug populate $keys key 2048

    test "BGSAVE: Redis's log lines from the parent and the child, rdb_saves counts it" {
        set saves [s rdb_saves]
        set from [log_line_count]
        assert_equal "Background saving started" [r bgsave]
        wait_child_done
        assert_equal [expr {$saves + 1}] [s rdb_saves]
        set line [wait_for_log "*Background saving started by pid *" -from $from]
        regexp {started by pid (\d+)} $line -> child
        wait_for_log "${child}:C * DB saved on disk" -from $from
        wait_for_log "${child}:C * Fork CoW for RDB: current * MB, peak * MB, average * MB" -from $from
        wait_for_log "*Background saving terminated with success" -from $from
    }

    test "SAVE counts in rdb_saves too" {
        set saves [s rdb_saves]
        r save
        assert_equal [expr {$saves + 1}] [s rdb_saves]
    }

    test "while BGSAVE runs: keys total and processed, fork percentage, copy-on-write size and peak" {
        r config set rdb-key-save-delay 1500
        r bgsave
        wait_for_condition 100 50 {[s rdb_bgsave_in_progress] == 1} else { fail "no child" }
        assert_equal $keys [s current_save_keys_total]
        touch_all_keys $keys
        wait_for_condition 200 50 {[s current_save_keys_processed] > 0} else { fail "no progress reported" }
        set info [r info persistence]
        set processed [info_field $info current_save_keys_processed]
        assert {$processed <= $keys}
        assert_equal [format %.2f [expr {100.0 * $processed / $keys}]] [info_field $info current_fork_perc]
        if {[has_proc_smaps]} {
            assert {[info_field $info current_cow_size] > 0}
            assert {[info_field $info current_cow_peak] >= [info_field $info current_cow_size]}
            assert {[info_field $info current_cow_size_age] >= 0}
        }
        r config set rdb-key-save-delay 0
        wait_child_done
        set info [r info persistence]
        foreach f {current_cow_peak current_cow_size current_cow_size_age current_save_keys_processed
                   current_save_keys_total} {
            assert_equal 0 [info_field $info $f] $f
        }
        assert_equal 0.00 [info_field $info current_fork_perc]
        if {[has_proc_smaps]} {
            # the parent rewrote every key's pages: at least those were copied
            assert {[info_field $info rdb_last_cow_size] > $keys * 64}
        }
    }

    test "BGREWRITEAOF: the child's and the parent's log lines, aof_last_cow_size" {
        set from [log_line_count]
        r config set rdb-key-save-delay 1000
        r bgrewriteaof
        wait_for_condition 100 50 {[s aof_rewrite_in_progress] == 1} else { fail "no child" }
        touch_all_keys $keys
        r config set rdb-key-save-delay 0
        wait_child_done
        set line [wait_for_log "*Background append only file rewriting started by pid *" -from $from]
        regexp {started by pid (\d+)} $line -> child
        wait_for_log "${child}:C * Successfully created the temporary AOF base file temp-rewriteaof-bg-${child}.aof" -from $from
        wait_for_log "${child}:C * Fork CoW for AOF rewrite: current * MB, peak * MB, average * MB" -from $from
        wait_for_log "*Background AOF rewrite terminated with success" -from $from
        wait_for_log "*Successfully renamed the temporary AOF base file temp-rewriteaof-bg-${child}.aof into *" -from $from
        wait_for_log "*Background AOF rewrite finished successfully" -from $from
        if {[has_proc_smaps]} { assert {[s aof_last_cow_size] > $keys * 64} }
    }

    test "a child that does not act on SIGUSR1 gets SIGKILL after 5 s: FLUSHALL does not hang on it" {
        if {![ours]} { skip "Redis 7.0.15 waits for such a child without limit" }
        r debug populate 100 stopchild ;# keys to be slow on: the child must still run when stopped
        r config set rdb-key-save-delay 100000
        set from [log_line_count]
        r bgsave
        set line [wait_for_log "*Background saving started by pid *" -from $from]
        regexp {started by pid (\d+)} $line -> child
        exec kill -STOP $child ;# a stopped process leaves SIGUSR1 pending; SIGKILL still ends it
        if {[file readable /proc/$child/stat]} {
            # the state follows the last ')' (the command name may hold spaces)
            wait_for_condition 100 20 {[regexp {\) T } [::harness::read_file /proc/$child/stat]]} else {
                fail "the child did not stop"
            }
        }
        r config set rdb-key-save-delay 0
        assert_equal OK [r flushall]
        wait_for_log "*Child $child did not exit 5000 ms after SIGUSR1: killing it with SIGKILL" -from $from
        assert_equal 0 [s rdb_bgsave_in_progress]
        assert_equal PONG [r ping]
    }
}
