# aof.tcl -- the append-only file: every data type replays to the same
# dataset (DEBUG DIGEST before and after DEBUG LOADAOF and a restart), the
# multi-part layout and BGREWRITEAOF, a rewrite under continuous writes that
# loses nothing, truncated and corrupt files, MISCONF on write errors (via
# DEBUG AOF-FAULT, the system-call seam) and recovery, fsync policies and
# INFO persistence.
#
# Design decisions:
# - File surgery (truncating, corrupting) happens while the server is
#   stopped: SHUTDOWN, edit the files, then restart_server; a server that
#   must refuse to start is run directly with a time limit, and its log is
#   checked.
# - Rewrites are awaited by polling INFO, never by sleeping.

proc aof_dir {} { return [file join [srv dir] appendonlydir] }

proc aof_manifest_lines {} {
    set fd [open [file join [aof_dir] appendonly.aof.manifest]]
    set lines [split [string trim [read $fd]] \n]
    close $fd
    return $lines
}

# The file names the manifest lists, in order.
proc aof_files {} {
    set names {}
    foreach line [aof_manifest_lines] { lappend names [lindex $line 1] }
    return $names
}

proc last_incr_path {} { return [file join [aof_dir] [lindex [aof_files] end]] }

proc wait_for_rewrite {} {
    wait_for_condition 200 50 {
        [aof_rewrite_idle]
    } else { fail "AOF rewrite still running" }
}

proc append_bytes {path bytes} {
    set fd [open $path a]
    fconfigure $fd -translation binary
    puts -nonewline $fd $bytes
    close $fd
}

proc truncate_by {path n} {
    set fd [open $path r+]
    chan truncate $fd [expr {[file size $path] - $n}]
    close $fd
}

proc populate_every_type {} {
    r flushall
    r set str hello
    r set num 42
    r set ttl v ex 1000
    r setex ttl2 1000 v
    r set pxat v pxat [expr {[clock milliseconds] + 1000000}]
    r incrbyfloat float 1.1
    r incrbyfloat float 2.05
    r append str " world"
    r setrange str 0 H
    r incr num
    r setbit bits 100 1
    r bitfield bits set u8 16 200
    r rpush list a b c 1 2 3
    r lpush list z
    r lpop list
    r linsert list before b x
    r lset list 0 A
    r rpush biglist {*}[lrepeat 300 element]
    r lmove list list2 left right
    r hset hash f1 v1 f2 v2 n 10
    r hincrby hash n 5
    r hincrbyfloat hash fl 0.25
    r hdel hash f2
    r hset bighash {*}[lrepeat 200 f v] big [string repeat x 100]
    r sadd intset 1 2 3 -5
    r sadd set a b c
    r srem set b
    r sadd bigset {*}[lmap i [lsearch -all [lrepeat 600 x] x] {expr {$i * 7}}]
    r zadd zset 1 a 2.5 b -inf c +inf d
    r zincrby zset 1.25 a
    r zrem zset d
    r zadd bigzset {*}[concat {*}[lmap i [lsearch -all [lrepeat 200 x] x] {list $i m$i}]]
    r expire hash 5000
    r pexpire list 5000000
    r persist list
    regexp {db=(\d+)} [r client info] -> db
    r select 3
    r set other-db 1
    r select $db
    r multi
    r set tx1 1
    r incr tx1
    r exec
    r rename str renamed
    r copy renamed copied
    r del num
}

start_server {tags {aof} overrides {appendonly yes appendfsync always aof-use-rdb-preamble no}} {
    test "A fresh AOF directory has a manifest, a base and an incremental file (Redis 7.0: base 1 + incr 1)" {
        assert_equal {appendonly.aof.1.base.aof appendonly.aof.1.incr.aof} [aof_files]
        assert_equal 1 [s aof_enabled]
        wait_for_log "*Creating AOF base file appendonly.aof.1.base.aof on server start*"
        wait_for_log "*Creating AOF incr file appendonly.aof.1.incr.aof on server start*"
    }

    test "Every data type replays to the same dataset (DEBUG LOADAOF)" {
        populate_every_type
        set before [r debug digest]
        assert_equal OK [r debug loadaof]
        assert_equal $before [r debug digest]
        assert_range [r ttl ttl] 990 1000
        assert_equal -1 [r ttl list]
    }

    test "... and after a restart" {
        set before [r debug digest]
        restart_server
        assert_equal $before [r debug digest]
        regexp {db=(\d+)} [r client info] -> db
        r select 3
        assert_equal 1 [r get other-db]
        r select $db
    }

    test "DEBUG LOADAOF doesn't append the replayed commands to the AOF again" {
        r set one 1
        r rpush l2 a b
        set path [last_incr_path]
        set size [file size $path]
        r debug loadaof
        r ping
        assert_equal $size [file size $path]
        assert_equal 2 [r llen l2]
    }

    test "Relative expire times are written as absolute ones" {
        r flushall
        r set k v ex 100
        r expire k 200
        set fd [open [last_incr_path]]
        fconfigure $fd -translation binary
        set content [read $fd]
        close $fd
        assert_match "*PXAT*" $content
        assert_match "*PEXPIREAT*" $content
        assert_no_match "*\$6\r\nexpire*" $content
    }

    test "BGREWRITEAOF writes a new base and keeps the dataset" {
        populate_every_type
        set before [r debug digest]
        set k0 [r info keyspace]
        assert_match "Background append only file rewriting*" [r bgrewriteaof]
        assert_equal $before [r debug digest]
        wait_for_rewrite
        assert_equal $k0 [r info keyspace]
        assert_equal $before [r debug digest]
        assert_equal ok [s aof_last_bgrewrite_status]
        set files [aof_files]
        assert_equal {appendonly.aof.2.base.aof appendonly.aof.2.incr.aof} $files
        set keys [lsort [r keys *]]
        set digests [lmap k $keys {r debug digest-value $k}]
        set ttls1 [lmap k $keys {r pexpiretime $k}]
        set dbs1 [r info keyspace]
        assert_equal OK [r debug loadaof]
        set ttls2 [lmap k $keys {r pexpiretime $k}]
        assert_equal $dbs1 [r info keyspace]
        assert_equal "$keys $ttls1" "$keys $ttls2"
        assert_equal $keys [lsort [r keys *]]
        foreach k $keys d $digests { assert_equal "$k $d" "$k [r debug digest-value $k]" }
        assert_equal $before [r debug digest]
        restart_server
        assert_equal $before [r debug digest]
    }

    test "Old files are deleted after a rewrite" {
        r bgrewriteaof
        wait_for_rewrite
        set on_disk [lsort [glob -tails -directory [aof_dir] *]]
        assert_equal [lsort [concat [aof_files] appendonly.aof.manifest]] $on_disk
    }

    test "The rewritten base uses variadic commands of at most 64 items" {
        r flushall
        r rpush l {*}[lrepeat 150 x]
        r bgrewriteaof
        wait_for_rewrite
        set fd [open [file join [aof_dir] [lindex [aof_files] 0]]]
        fconfigure $fd -translation binary
        set content [read $fd]
        close $fd
        assert_equal 3 [regexp -all {RPUSH} $content]
        assert {[string first "*66\r\n\$5\r\nRPUSH" $content] >= 0}
        assert {[string first "*24\r\n\$5\r\nRPUSH" $content] >= 0}
    }

    test "A rewrite while a client writes continuously loses nothing" {
        r flushall
        set rd [rd]
        for {set i 0} {$i < 3000} {incr i} { $rd set key:$i $i }
        r bgrewriteaof
        for {set i 3000} {$i < 6000} {incr i} { $rd rpush list $i }
        for {set i 0} {$i < 6000} {incr i} { $rd read }
        wait_for_rewrite
        for {set i 6000} {$i < 6100} {incr i} { r sadd set $i }
        set before [r debug digest]
        assert_equal OK [r debug loadaof]
        assert_equal $before [r debug digest]
        assert_equal 3002 [r dbsize]
        assert_equal 3000 [r llen list]
        $rd close
    }

    test "BGREWRITEAOF while one runs is an error; inside MULTI it is scheduled" {
        r rpush big {*}[lrepeat 1000 [string repeat y 100]]
        r config set rdb-key-save-delay 200 ;# the child takes at least 0.2 ms per key
        r bgrewriteaof
        assert_error "ERR Background append only file rewriting already in progress" {r bgrewriteaof}
        r config set rdb-key-save-delay 0
        wait_for_rewrite
        r multi
        r bgrewriteaof
        assert_equal {{Background append only file rewriting scheduled}} [r exec]
        assert_equal 1 [s aof_rewrite_scheduled]
        wait_for_rewrite
        assert_equal ok [s aof_last_bgrewrite_status]
    }

    test "INFO persistence reports the AOF and its flash statistics" {
        r set x y
        assert_equal 1 [s aof_enabled]
        assert_morethan [s aof_current_size] 0
        assert_morethan [s aof_bytes_written] 0
        assert_morethan [s aof_write_calls] 0
        assert_morethan [s aof_fsync_calls] 0
        assert_equal ok [s aof_last_write_status]
        if {[s persistence_mode] eq "fork"} { assert_morethan [s total_forks] 0 }
    }
}

start_server {tags {aof} overrides {appendonly yes}} {
    test "A truncated last command is cut off and loading goes on" {
        r set a 1
        r set b 2
        set path [last_incr_path]
        shutdown_server
        set size [file size $path]
        truncate_by $path 3
        restart_server
        assert_equal 1 [r get a]
        assert_equal {} [r get b]
        assert_match "*Truncating the AOF*" [log_tail 0 100]
        assert_equal [expr {$size - [string length "*3\r\n\$3\r\nset\r\n\$1\r\nb\r\n\$1\r\n2\r\n"]}] [file size $path]
    }

    test "A MULTI without its EXEC at the end is dropped whole" {
        r set c 3
        set path [last_incr_path]
        shutdown_server
        append_bytes $path "*1\r\n\$5\r\nMULTI\r\n*3\r\n\$3\r\nset\r\n\$1\r\nd\r\n\$1\r\n4\r\n"
        restart_server
        assert_equal 3 [r get c]
        assert_equal 0 [r exists d]
    }

    test "With aof-load-truncated no, a truncated AOF stops start-up" {
        r set e 5
        set path [last_incr_path]
        shutdown_server
        truncate_by $path 2
        set status [server_exit_status --aof-load-truncated no]
        assert_equal 1 $status
        assert_match "*Unexpected end of file reading the append only file*redis-check-aof*" [log_tail 0 20]
        restart_server
        assert_equal {} [r get e]
    }

    test "A corrupt command in the middle stops start-up with the offset" {
        r set f 6
        set path [last_incr_path]
        shutdown_server
        append_bytes $path "garbage\r\n*3\r\n\$3\r\nset\r\n\$1\r\ng\r\n\$1\r\n7\r\n"
        set status [server_exit_status]
        assert_equal 1 $status
        assert_match "*Bad file format reading the append only file*at byte*" [log_tail 0 20]
        # repair by hand: drop the garbage
        truncate_by $path [string length "garbage\r\n*3\r\n\$3\r\nset\r\n\$1\r\ng\r\n\$1\r\n7\r\n"]
        restart_server
        assert_equal 6 [r get f]
    }

    test "An unknown command in the AOF stops start-up" {
        set path [last_incr_path]
        shutdown_server
        append_bytes $path "*1\r\n\$7\r\nnocmdxy\r\n"
        assert_equal 1 [server_exit_status]
        assert_match "*Unknown command*nocmdxy*" [log_tail 0 20]
        truncate_by $path [string length "*1\r\n\$7\r\nnocmdxy\r\n"]
        restart_server
    }

    test "A command that fails while loading is logged and counted; propagation-error-behavior panic stops start-up" {
        r set str text
        set path [last_incr_path]
        shutdown_server
        set bad "*2\r\n\$4\r\nincr\r\n\$3\r\nstr\r\n"
        append_bytes $path $bad
        restart_server
        assert_equal text [r get str]
        assert_equal 1 [s unexpected_error_replies]
        assert_match "*== CRITICAL == This server is sending an error to its AOF: '*value is not an integer or out of range' after processing the command 'incr'*" [log_tail 0 100]
        shutdown_server
        # serverPanic ends in abort(); the crash report, INFO included, is
        # complete even though the load is still running (it once faulted
        # there, in INFO, and the server died of that SIGSEGV instead)
        assert_equal SIGABRT [server_exit_status --propagation-error-behavior panic]
        assert_match "*This server panicked sending an error to its AOF after processing the command 'incr'*" [log_tail 0 400]
        assert_match "*# Replication*=== REDIS BUG REPORT END.*" [log_tail 0 400]
        # panic-on-replicas only concerns a replica's master stream
        restart_server
        r config set propagation-error-behavior panic-on-replicas
        r debug loadaof
        assert_equal text [r get str]
        assert_equal 2 [s unexpected_error_replies]
        assert_error "*must be one of the following: ignore, panic, panic-on-replicas*" {r config set propagation-error-behavior crash}
        shutdown_server
        truncate_by $path [string length $bad]
        restart_server
        assert_equal 0 [s unexpected_error_replies]
    }

    test "A manifest naming a missing file stops start-up" {
        set path [last_incr_path]
        shutdown_server
        file rename $path $path.moved
        assert_equal 1 [server_exit_status]
        assert_match "*Unable to obtain the AOF file [file tail $path] length. stat: No such file or directory*" [log_tail 0 20]
        file rename $path.moved $path
        restart_server
        assert_equal 6 [r get f]
    }
}

start_server {tags {aof} overrides {appendonly yes appendfsync everysec}} {
    test "A failed write gives MISCONF, leaves no partial command, and recovers" {
        r set before 1
        set path [last_incr_path]
        wait_for_condition 50 20 {[s aof_buffer_length] == 0} else { fail "buffer not flushed" }
        set good_size [file size $path]
        r debug aof-fault write short
        r set during 1
        wait_for_condition 50 20 {[s aof_last_write_status] eq "err"} else { fail "no write error" }
        assert_error "MISCONF Errors writing to the AOF file:*" {r set x 1}
        assert_error "MISCONF*" {r ping}
        assert_equal 1 [r get before]
        assert_equal $good_size [file size $path]
        r debug aof-fault write off
        wait_for_condition 100 20 {[s aof_last_write_status] eq "ok"} else { fail "did not recover" }
        assert_equal OK [r set x 1]
        set before [r debug digest]
        r debug loadaof
        assert_equal $before [r debug digest]
        assert_equal 1 [r get during]
    }

    test "ENOSPC on every write keeps the server up and the data in memory" {
        r debug aof-fault write enospc
        r set y 2
        wait_for_condition 50 20 {[s aof_last_write_status] eq "err"} else { fail "no write error" }
        assert_equal 2 [r get y]
        assert_match "*No space left on device*" [catch {r set z 3} e; set e]
        r debug aof-fault write off
        wait_for_condition 100 20 {[s aof_last_write_status] eq "ok"} else { fail "did not recover" }
        r debug loadaof
        assert_equal 2 [r get y]
    }

    test "A rewrite child that fails leaves the current AOF in use, and is retried" {
        r set k v
        wait_for_condition 50 20 {[s aof_buffer_length] == 0} else { fail "buffer not flushed" }
        r debug aof-fault child-write eio 1
        assert_match "Background append only file rewriting started" [r bgrewriteaof]
        wait_for_condition 200 50 {[s aof_rewrite_in_progress] == 0} else { fail "rewrite stuck" }
        r debug aof-fault child-write off
        assert_equal err [s aof_last_bgrewrite_status]
        assert_equal 1 [s aof_rewrites_consecutive_failures]
        assert_match "*Background AOF rewrite failed*" [log_tail 0 20]
        set before [r debug digest]
        r debug loadaof
        assert_equal $before [r debug digest]
        r bgrewriteaof
        wait_for_rewrite
        assert_equal ok [s aof_last_bgrewrite_status]
        assert_equal 0 [s aof_rewrites_consecutive_failures]
        r debug loadaof
        assert_equal $before [r debug digest]
    }

    test "A rewrite that can't start replies an error and changes nothing" {
        r set k2 v2
        set files [aof_files]
        r debug aof-fault rename eio 1
        assert_error "*Can't execute an AOF background rewriting*" {r bgrewriteaof}
        r debug aof-fault rename off
        assert_equal $files [aof_files]
        set before [r debug digest]
        r debug loadaof
        assert_equal $before [r debug digest]
    }
}

start_server {tags {aof}} {
    test "CONFIG SET appendonly yes writes the current dataset to a new base" {
        r set existing 1
        r rpush l a b
        r config set appendonly yes
        wait_for_rewrite
        r set later 2
        set before [r debug digest]
        assert_equal OK [r debug loadaof]
        assert_equal $before [r debug digest]
        assert_match "*.base.*" [lindex [aof_files] 0]
    }

    test "CONFIG SET appendonly yes inside MULTI: the rewrite waits for EXEC, nothing is applied twice" {
        r config set appendonly no
        r set counter 5
        set lines [log_line_count]
        r multi
        r incr counter
        r config set appendonly yes
        r incr counter
        assert_equal {6 OK 7} [r exec]
        wait_for_log "*AOF was enabled during a transaction. An AOF background was scheduled*" -from $lines
        wait_for_rewrite
        r incr counter
        assert_equal OK [r debug loadaof]
        assert_equal 8 [r get counter]
    }

    test "CONFIG SET appendonly no kills a running rewrite child, and says so in the log" {
        r config set appendonly yes
        wait_for_rewrite
        r set slow v
        r config set rdb-key-save-delay 10000000
        set from [log_line_count]
        r bgrewriteaof
        r config set appendonly no
        r config set rdb-key-save-delay 0
        assert_equal 0 [s aof_rewrite_in_progress]
        if {[info exists ::env(REDIS_TEST_FORKLESS)] && $::env(REDIS_TEST_FORKLESS)} {
            wait_for_log "*Stopping the running forkless AOF rewrite*" -from $from
        } else {
            wait_for_log "*Killing running AOF rewrite child:*" -from $from
        }
    }

    test "CONFIG SET appendonly no stops appending" {
        r config set appendonly no
        set path [last_incr_path]
        set size [file size $path]
        r set more 1
        after 50
        assert_equal $size [file size $path]
    }

    test "SHUTDOWN while the first rewrite after CONFIG SET appendonly yes runs is refused (the data is in no AOF yet)" {
        r config set appendonly no
        r set before-enable 1
        r config set rdb-key-save-delay 10000000
        set from [log_line_count]
        r config set appendonly yes
        assert_equal 1 [s aof_rewrite_in_progress]
        assert_error "*Errors trying to SHUTDOWN. Check logs.*" {r shutdown}
        assert_error "*Errors trying to SHUTDOWN. Check logs.*" {r shutdown nosave}
        wait_for_log "*Writing initial AOF, can't exit.*" -from $from
        wait_for_log "*Errors trying to shut down the server. Check the logs for more information.*" -from $from
        assert_equal 1 [r get before-enable] ;# still running, still serving
        r config set appendonly no
        r config set rdb-key-save-delay 0
    }

    test "... and a failed first rewrite is tried again until the AOF holds the dataset" {
        r config set rdb-key-save-delay 10000000
        set from [log_line_count]
        r config set appendonly yes
        if {[info exists ::env(REDIS_TEST_FORKLESS)] && $::env(REDIS_TEST_FORKLESS)} {
            r config set rdb-key-save-delay 0
        } else {
            set line [wait_for_log "*Background append only file rewriting started by pid*" -from $from]
            regexp {started by pid (\d+)} $line -> child
            r config set rdb-key-save-delay 0
            exec kill -9 $child
            wait_for_log "*Background AOF rewrite terminated by signal 9*" -from $from
        }
        wait_for_condition 100 100 {[s aof_rewrite_in_progress] == 0 && [s aof_last_bgrewrite_status] eq "ok"} else {
            fail "the first rewrite was not retried"
        }
        assert_equal OK [r debug loadaof]
        assert_equal 1 [r get before-enable]
        r config set appendonly no
    }

    test "BGREWRITEAOF with the AOF off writes a new base and drops the incremental files" {
        set old [aof_files]
        r set written-while-off 1
        assert_equal "Background append only file rewriting started" [r bgrewriteaof]
        wait_for_rewrite
        assert_equal ok [s aof_last_bgrewrite_status]
        set files [aof_files]
        assert_equal 1 [llength $files]
        assert_match "*.base.*" [lindex $files 0]
        assert {[lindex $files 0] ne [lindex $old 0]}
        set on_disk [lsort [glob -tails -directory [aof_dir] *]]
        assert_equal [lsort [concat $files appendonly.aof.manifest]] $on_disk
        assert_equal 0 [s aof_enabled]
    }

    test "... and turning the AOF on later continues the manifest's numbering and loads everything" {
        set base_before [lindex [aof_files] 0]
        r config set appendonly yes
        wait_for_rewrite
        r set after-on 2
        set files [aof_files]
        assert {[lindex $files 0] ne $base_before}
        set before [r debug digest]
        r config set appendonly yes ;# kept by the restart below
        r config rewrite
        restart_server
        assert_equal $before [r debug digest]
        assert_equal {1 2} [r mget written-while-off after-on]
    }
}

# ---- the first rewrite after CONFIG SET appendonly yes (Redis 7.0's AOF_WAIT_REWRITE) ------------

proc forkless_run {} { return [expr {[info exists ::env(REDIS_TEST_FORKLESS)] && $::env(REDIS_TEST_FORKLESS)}] }

# A rewrite started with rdb-key-save-delay 10000000 is made to end: the
# forkless one reads the setting as it goes; a child is killed (and counts
# as a failed rewrite).
proc end_slow_rewrite {from} {
    r config set rdb-key-save-delay 0
    if {[forkless_run]} { return }
    set line [wait_for_log "*Background append only file rewriting started by pid*" -from $from]
    regexp {started by pid (\d+)} $line -> child
    exec kill -9 $child
    wait_for_log "*Background AOF rewrite terminated by signal 9*" -from $from
}

proc wait_for_good_rewrite {} {
    wait_for_condition 100 100 {
        [s aof_rewrite_scheduled] == 0 && [s aof_rewrite_in_progress] == 0 && [s aof_last_bgrewrite_status] eq "ok"
    } else {
        fail "no successful rewrite"
    }
}

start_server {tags {aof} overrides {aof-use-rdb-preamble yes}} {
    test "CONFIG SET appendonly yes: no manifest or file of the AOF until its first base; the writes meanwhile become incr 1" {
        r set k0 v
        r config set rdb-key-save-delay 10000000
        set from [log_line_count]
        r config set appendonly yes
        assert_equal 1 [s aof_rewrite_in_progress]
        assert_equal 0 [file exists [file join [aof_dir] appendonly.aof.manifest]]
        assert_equal {} [glob -nocomplain -tails -directory [aof_dir] appendonly.aof*]
        assert_equal 1 [file exists [file join [aof_dir] temp-appendonly.aof.incr]]
        r set during 1
        end_slow_rewrite $from
        if {![forkless_run]} {
            wait_for_log "*Removing the temp incr aof file temp-appendonly.aof.incr in the background*" -from $from
            assert_equal 0 [file exists [file join [aof_dir] appendonly.aof.manifest]]
        }
        wait_for_good_rewrite
        assert_equal {appendonly.aof.1.base.rdb appendonly.aof.1.incr.aof} [aof_files]
        assert_equal 0 [file exists [file join [aof_dir] temp-appendonly.aof.incr]]
        r set after 2
        assert_equal OK [r debug loadaof]
        assert_equal {v 1 2} [r mget k0 during after]
    }

    test "CONFIG SET appendonly yes during a BGSAVE: the rewrite waits, nothing is written meanwhile, the base holds it all" {
        r config set appendonly no
        set files [aof_files]
        r config set rdb-key-save-delay 10000000
        r set k1 v1
        set from [log_line_count]
        r bgsave
        wait_for_condition 50 100 {[s rdb_bgsave_in_progress] == 1} else { fail "no BGSAVE" }
        r config set appendonly yes
        assert_equal 1 [s aof_rewrite_scheduled]
        assert_equal 0 [s aof_rewrite_in_progress]
        r set k2 v2
        assert_equal $files [aof_files] ;# no incremental file opened while waiting
        assert_equal {} [glob -nocomplain -directory [aof_dir] temp-*]
        r config set rdb-key-save-delay 0
        if {![forkless_run]} {
            set line [wait_for_log "*Background saving started by pid*" -from $from]
            regexp {started by pid (\d+)} $line -> child
            exec kill -9 $child
        }
        wait_for_condition 100 100 {[s rdb_bgsave_in_progress] == 0} else { fail "BGSAVE still running" }
        wait_for_good_rewrite
        assert_equal {appendonly.aof.2.base.rdb appendonly.aof.2.incr.aof} [aof_files]
        r set k3 v3
        assert_equal OK [r debug loadaof]
        assert_equal {v1 v2 v3} [r mget k1 k2 k3]
    }
}

start_server {tags {aof} overrides {appendonly yes aof-use-rdb-preamble no}} {
    test "aof-disable-auto-gc yes keeps the replaced files as history in the manifest; no deletes them" {
        assert_equal {aof-disable-auto-gc no} [r config get aof-disable-auto-gc]
        r config set aof-disable-auto-gc yes
        r set a 1
        r bgrewriteaof
        wait_for_rewrite
        r set b 2
        r bgrewriteaof
        wait_for_rewrite
        assert_equal [list {file appendonly.aof.3.base.aof seq 3 type b} {file appendonly.aof.2.incr.aof seq 2 type h} \
            {file appendonly.aof.2.base.aof seq 2 type h} {file appendonly.aof.1.incr.aof seq 1 type h} \
            {file appendonly.aof.1.base.aof seq 1 type h} {file appendonly.aof.3.incr.aof seq 3 type i}] [aof_manifest_lines]
        foreach f {1.base.aof 2.base.aof 1.incr.aof 2.incr.aof} {
            assert_equal 1 [file exists [file join [aof_dir] appendonly.aof.$f]]
        }
        # history is not data: a reload loads the base and the incr only
        assert_equal OK [r debug loadaof]
        assert_equal {1 2} [r mget a b]
        set from [log_line_count]
        r config set aof-disable-auto-gc no
        assert_equal {appendonly.aof.3.base.aof appendonly.aof.3.incr.aof} [aof_files]
        wait_for_log "*Removing the history file appendonly.aof.1.base.aof in the background*" -from $from
        assert_equal [lsort {appendonly.aof.3.base.aof appendonly.aof.3.incr.aof appendonly.aof.manifest}] \
            [lsort [glob -tails -directory [aof_dir] *]]
    }

    test "History files named by the manifest at start-up are deleted (auto gc on), and the server loads" {
        r config rewrite ;# with aof-disable-auto-gc no, which the restart reads
        r config set aof-disable-auto-gc yes
        r bgrewriteaof
        wait_for_rewrite
        set history [lsearch -all -inline [aof_manifest_lines] "* type h"]
        assert_equal {{file appendonly.aof.3.incr.aof seq 3 type h} {file appendonly.aof.3.base.aof seq 3 type h}} $history
        restart_server
        assert_equal {} [lsearch -all -inline [aof_manifest_lines] "* type h"]
        foreach line $history { assert_equal 0 [file exists [file join [aof_dir] [lindex $line 1]]] }
        assert_equal {1 2} [r mget a b]
    }
}

start_server {tags {aof} overrides {appendonly yes}} {
    test "After 3 failed rewrites in a row the automatic ones wait (Redis 7.0's limit); BGREWRITEAOF still runs" {
        if {[forkless_run]} { skip "a forkless rewrite can't be killed from outside to make it fail" }
        r set k v
        r config set rdb-key-save-delay 10000000
        for {set j 0} {$j < 3} {incr j} {
            set from [log_line_count]
            r bgrewriteaof
            end_slow_rewrite $from
            r config set rdb-key-save-delay 10000000
        }
        assert_equal 3 [s aof_rewrites_consecutive_failures]
        set files [aof_files]
        set from [log_line_count]
        r config set auto-aof-rewrite-percentage 1
        r config set auto-aof-rewrite-min-size 1kb
        r set x [string repeat x 2048]
        wait_for_log "*Background AOF rewrite has repeatedly failed and triggered the limit, will retry in 1 minutes*" \
            -from $from -tries 300
        assert_equal 0 [s aof_rewrite_in_progress]
        assert_equal $files [aof_files]
        r config set auto-aof-rewrite-percentage 0
        r config set rdb-key-save-delay 0
        r bgrewriteaof
        wait_for_good_rewrite
        assert_equal 0 [s aof_rewrites_consecutive_failures]
        r config set auto-aof-rewrite-percentage 1
        set from [log_line_count]
        r set y [string repeat y 4096]
        wait_for_log "*Starting automatic rewriting of AOF on *% growth*" -from $from
        r config set auto-aof-rewrite-percentage 0
        wait_for_good_rewrite
    }
}

start_server {tags {aof}} {
    test "BGREWRITEAOF with the AOF off creates the directory and a manifest naming only a base" {
        r set k v
        assert_equal "Background append only file rewriting started" [r bgrewriteaof]
        wait_for_rewrite
        set files [aof_files]
        assert_equal 1 [llength $files]
        assert_match "*.base.*" [lindex $files 0]
        assert_equal 1 [s aof_rewrites]
    }

    test "DEBUG LOADAOF with the AOF off loads what BGREWRITEAOF wrote, as Redis does" {
        r set after-rewrite 1
        assert_equal OK [r debug loadaof]
        assert_equal v [r get k]
        assert_equal 0 [r exists after-rewrite]
        assert_equal 0 [s aof_enabled]
    }
}

start_server {tags {aof}} {
    test "DEBUG LOADAOF with the AOF off and no AOF written refuses and keeps the data" {
        r set k v
        assert_error "*no AOF to load*" {r debug loadaof}
        assert_equal v [r get k]
        assert_equal 0 [file exists [file join [lindex [r config get dir] 1] appendonlydir]]
    }
}

start_server {tags {aof} overrides {appendonly yes appendfsync no}} {
    test "Clients get -LOADING while the AOF loads, and INFO shows the progress" {
        set rd [rd]
        for {set i 0} {$i < 5000} {incr i} { $rd set key:$i $i }
        for {set i 0} {$i < 5000} {incr i} { $rd read }
        $rd close
        shutdown_server
        set cmd [concat $::harness::opt(wrapper) [list $::harness::opt(server) [srv config_file] --key-load-delay 600]]
        set pid [exec {*}$cmd >>& [srv stdout] &]
        set saw_loading 0
        set saw_progress 0
        set ready 0
        for {set i 0} {$i < [::harness::scaled 400] && !$ready} {incr i} {
            if {![catch {set c [::resp::connect [srv host] [srv port] -timeout 5]}]} {
                if {[catch {$c ping} reply]} {
                    if {[string match "LOADING*" $reply]} { set saw_loading 1 }
                    if {![catch {$c info persistence} info] && [string match "*loading:1*" $info] &&
                        [regexp {loading_loaded_perc:([0-9.]+)} $info -> perc] && $perc > 0} { set saw_progress 1 }
                } elseif {$reply eq "PONG"} {
                    set ready 1
                    assert_equal 5000 [$c dbsize]
                    catch {$c shutdown nosave}
                }
                catch {$c close}
            }
            after 20
        }
        for {set i 0} {$i < 200 && [::harness::pid_alive $pid]} {incr i} { after 50 }
        if {[::harness::pid_alive $pid]} { exec kill -9 $pid }
        assert_equal 1 $ready
        assert_equal 1 $saw_loading
        assert_equal 1 $saw_progress
        assert_match "*Loading the AOF: *%*" [log_tail 0 100]
        restart_server
        assert_equal 5000 [r dbsize]
    }
}

start_server {tags {aof} overrides {appendonly yes}} {
    test "redis-check-aof: a valid AOF" {
        r set a 1
        r rpush l x y
        r multi
        r incr a
        r exec
        set manifest [file join [aof_dir] appendonly.aof.manifest]
        lassign [check_aof $manifest] status out
        assert_equal 0 $status
        assert_match "*All AOF files and manifest are valid*" $out
    }

    test "redis-check-aof --fix repairs a truncated AOF, which then loads with aof-load-truncated no" {
        need_check_aof
        set path [last_incr_path]
        set manifest [file join [aof_dir] appendonly.aof.manifest]
        shutdown_server
        append_bytes $path "*3\r\n\$3\r\nset\r\n\$1\r\nb"
        lassign [check_aof $manifest] status out
        assert_equal 1 $status
        assert_match "*is not valid. Use the --fix option*" $out
        lassign [check_aof --fix --yes $manifest] status out
        assert_equal 0 $status
        assert_match "*Successfully truncated AOF*" $out
        restart_server
        r config set aof-load-truncated no
        assert_equal 2 [r get a]
        assert_equal 0 [r exists b]
    }

    test "redis-check-aof: an unterminated MULTI is cut before the MULTI" {
        need_check_aof
        set path [last_incr_path]
        set manifest [file join [aof_dir] appendonly.aof.manifest]
        set size [file size $path]
        shutdown_server
        append_bytes $path "*1\r\n\$5\r\nMULTI\r\n*2\r\n\$4\r\nincr\r\n\$1\r\na\r\n"
        lassign [check_aof --fix --yes $manifest] status out
        assert_equal 0 $status
        assert_match "*EXEC*" $out
        assert_equal $size [file size $path]
        restart_server
        assert_equal 2 [r get a]
    }

    test "redis-check-aof refuses the manifests the server refuses, with Redis's report" {
        set manifest [file join [aof_dir] appendonly.aof.manifest]
        set fd [open $manifest]
        set good [read $fd]
        close $fd
        set first [lsearch -inline [split $good \n] "* type i"] ;# the incremental file's line
        foreach {bad reason} [list "$first\n\n" "Invalid AOF manifest file format" \
                                  "$first\nfile x seq 9 type z\n" "Unknown AOF file type" \
                                  "$first\nfile x seq 9\n" "Invalid AOF manifest file format" \
                                  "file a seq 1 type b\nfile b seq 2 type b\n" "Found duplicate base file information" \
                                  "$first\n$first\n" "Found a non-monotonic sequence number" \
                                  "$first" "The AOF manifest file contains too long line"] {
            set fd [open $manifest w]
            puts -nonewline $fd $bad
            close $fd
            lassign [check_aof $manifest] status out
            assert_equal 1 $status $out
            assert_match "*\*\*\* FATAL AOF MANIFEST FILE ERROR \*\*\**$reason*" $out
            assert_no_match "*are valid*" $out
        }
        # an empty one is an empty AOF to Redis's tool
        close [open $manifest w]
        lassign [check_aof $manifest] status out
        assert_equal 0 $status $out
        assert_match "*AOF $manifest is empty*" $out
        set fd [open $manifest w]
        puts -nonewline $fd $good
        close $fd
        lassign [check_aof $manifest] status out
        assert_equal 0 $status $out
    }

    test "redis-check-aof: bad usage and a missing file exit 1, as Redis 7.0's tool" {
        lassign [check_aof] status out
        assert_equal 1 $status
        assert_match "Usage: *" $out
        lassign [check_aof /nonexistent/file.aof] status out
        assert_equal 1 $status
        assert_match "Cannot open file /nonexistent/file.aof: No such file or directory*" $out
    }
}

start_server {tags {aof} overrides {appendonly yes aof-use-rdb-preamble yes}} {
    test "A fresh start with aof-use-rdb-preamble yes writes an RDB base 1; a base left without a manifest is redone" {
        assert_equal {appendonly.aof.1.base.rdb appendonly.aof.1.incr.aof} [aof_files]
        set fd [open [file join [aof_dir] appendonly.aof.1.base.rdb]]
        fconfigure $fd -translation binary
        assert_equal REDIS [read $fd 5]
        close $fd
        # a power cut after the base's rename but before the first manifest:
        # the next start begins again over the orphan file
        r set k v
        set dir [aof_dir]
        file delete [file join $dir appendonly.aof.manifest] [file join $dir appendonly.aof.1.incr.aof]
        restart_server
        assert_equal {appendonly.aof.1.base.rdb appendonly.aof.1.incr.aof} [aof_files]
        assert_equal 0 [r dbsize]
        assert_equal {} [glob -nocomplain -directory $dir temp-*]
    }

    test "With aof-use-rdb-preamble the rewritten base is an RDB snapshot, and it loads" {
        populate_every_type
        set before [r debug digest]
        r bgrewriteaof
        wait_for_rewrite
        set base [lindex [aof_files] 0]
        assert_match "*.base.rdb" $base
        set fd [open [file join [aof_dir] $base]]
        fconfigure $fd -translation binary
        assert_equal REDIS [read $fd 5]
        close $fd
        r set after 1
        r debug loadaof
        assert_equal 1 [r get after]
        r del after
        assert_equal $before [r debug digest]
        restart_server
        assert_equal $before [r debug digest]
    }

    test "redis-check-aof accepts an RDB base" {
        set manifest [file join [aof_dir] appendonly.aof.manifest]
        lassign [check_aof $manifest] status out
        assert_equal 0 $status
        assert_match "*RDB preamble*" $out
    }
}

start_server {tags {aof} overrides {appendonly yes}} {
    test "An appendonlydir written by Redis 7.0.15 (RDB base + incremental AOF) loads with Redis's digest" {
        set fixture [file normalize tests/assets/redis-7.0.15-appendonlydir]
        set dir [aof_dir]
        shutdown_server
        foreach f [glob -directory $dir *] { file delete $f }
        foreach f [glob -directory $fixture *] { file copy $f $dir }
        restart_server
        assert_equal 99c4e4ff34f8ff33643ccae85544f525d9f24960 [r debug digest]
        assert_equal 7 [r dbsize]
        assert_equal 4102444800000 [r pexpiretime str]
        # and it goes on appending to Redis's incremental file
        r set ours 1
        r debug loadaof
        assert_equal 1 [r get ours]
    }
}

# A client whose reply is still going out (the write handler is installed)
# and whose socket is readable and writable in the same event-loop pass: the
# reply to the command read in that pass must wait for the AOF, as every
# other reply does. tests/helpers/slow-reader.pl (a tiny receive buffer)
# leaves GET big pending, drains a little and sends SET x 1 while the server
# sleeps; the AOF is made to fail, and under appendfsync always the server
# exits on that write, so the client must not see the SET's +OK. (Before
# the write barrier, the read ran first and the write handler sent the +OK
# in the same pass, ahead of the AOF.)
start_server {tags {aof needs:restart external:skip} overrides {appendonly yes appendfsync always}} {
    test "A reply never leaves before the AOF has the write, even for a client with output pending" {
        set size 5800000
        r set big [string repeat x $size]
        set reader [open |[list perl tests/helpers/slow-reader.pl [srv host] [srv port]] r+]
        fconfigure $reader -buffering line
        assert_equal sent [gets $reader]
        wait_for_condition 100 20 {[regexp {omem=[1-9]} [r client list]]} else { fail "the reply is not pending" }
        r debug aof-fault write enospc
        set sleeper [rd]
        $sleeper debug sleep 2
        after [::harness::scaled 300] ;# the server sleeps now
        puts $reader go
        lassign [gets $reader] received tail
        catch {close $reader}
        $sleeper close
        set reply_len [expr {[string length "\$$size\r\n"] + $size + 2}]
        # The bulk, whole or cut short by the exit -- never followed by +OK.
        assert {$received <= $reply_len}
        assert {![string match {*+OK\r\n} $tail]}
        wait_for_condition 100 50 {![::harness::pid_alive [srv pid]]} else { fail "the server did not exit" }
        assert_match "*Can't recover from AOF write error*" [log_tail 0 20]
        restart_server -kill
        assert_equal {} [r get x]
        assert_equal $size [r strlen big]
    }
}
