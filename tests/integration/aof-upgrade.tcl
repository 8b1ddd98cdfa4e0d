# aof-upgrade.tcl -- starting with `appendonly yes` on the data directory of
# Redis <= 6.2: one AOF named by appendfilename (appendonly.aof) beside
# where the appenddirname folder would be, no manifest (issue #35: we
# ignored it and started empty). Redis 7.0 adopts the file as the base of
# the multi-part layout: it moves it into the folder under its own name and
# writes the manifest "file appendonly.aof seq 1 type b", then loads it,
# with or without an RDB preamble.
#
# The old file is made from what our server wrote (the files its manifest
# names, concatenated: a plain command log, or an RDB base followed by
# commands), so DEBUG DIGEST before the upgrade is the expected dataset;
# Debian's Redis 7.0.15, when installed, loads a copy of the same directory
# and must agree.
#
# Design decisions:
# - The states a crash can leave between the adoption's steps (the folder
#   made but no manifest; the manifest written but the file not moved yet)
#   are built by hand while the server is stopped, then it restarts.
# - A file that can't be loaded, or moved, stops start-up (checked through
#   the log and the exit status): never an empty dataset over the old data.

proc up_dir {} { return [file join [srv dir] appendonlydir] }
proc up_old {} { return [file join [srv dir] appendonly.aof] }

proc up_read {path} {
    set fd [open $path rb]
    set data [read $fd]
    close $fd
    return $data
}

proc up_write {path data} {
    set fd [open $path wb]
    puts -nonewline $fd $data
    close $fd
}

proc up_manifest {} {
    return [split [string trim [up_read [file join [up_dir] appendonly.aof.manifest]]] \n]
}

# The bytes of every file the manifest names, in order: the dataset as one
# old-style AOF.
proc up_concat_layout {} {
    set data ""
    foreach line [up_manifest] { append data [up_read [file join [up_dir] [lindex $line 1]]] }
    return $data
}

proc up_log_since {from} {
    return [join [lrange [split [::harness::read_file [srv stdout]] \n] $from end] \n]
}

# Puts the layout back to the good old-style file and starts the server
# again (after a test of a refused start-up).
proc up_restore {old_data} {
    file delete -force [up_dir]
    up_write [up_old] $old_data
    restart_server
}

proc up_wait_rewrite {} {
    wait_for_condition 200 50 {
        [aof_rewrite_idle]
    } else { fail "AOF rewrite still running" }
}

proc up_populate {} {
    r flushall
    r set str hello
    r set ttl v ex 100000
    r incrbyfloat float 1.5
    r rpush list a b c 1 2 3
    r rpush biglist {*}[lrepeat 300 element]
    r hset hash f1 v1 f2 v2 n 10
    r hset bighash {*}[concat {*}[lmap i [lsearch -all [lrepeat 200 x] x] {list f$i v$i}]]
    r sadd intset 1 2 3 -5
    r sadd set a b c
    r zadd zset 1 a 2.5 b -inf c
    r zadd bigzset {*}[concat {*}[lmap i [lsearch -all [lrepeat 200 x] x] {list $i m$i}]]
    r xadd stream 1-1 f v
    r xadd stream 2-1 g w
    r xgroup create stream grp 0
    r xreadgroup group grp alice count 1 streams stream >
    r pfadd hll a b c
    r select 3
    r set other-db 1
    r select 0
}

# Stops the server and replaces its directory's AOF layout with DATA as an
# old-style appendonly.aof.
proc up_make_old_style {data} {
    shutdown_server
    file delete -force [up_dir]
    up_write [up_old] $data
}

# Debian's Redis 7.0.15 on a copy of DIR: its DEBUG DIGEST ("" and a loud
# skip of nothing but this check when it isn't installed).
proc up_reference_digest {dir} {
    set ref [reference_server]
    if {$ref eq ""} {
        puts "  (skipped: Debian's redis-server is not installed, no cross-check with Redis 7.0.15)"
        return ""
    }
    set copy [::harness::fresh_run_dir upgrade-ref]
    file copy -force [file join $dir appendonly.aof] [file join $copy appendonly.aof]
    set port [::harness::find_free_port]
    set pid [exec $ref --port $port --bind 127.0.0.1 --dir $copy --appendonly yes --save "" \
                 --enable-debug-command yes --logfile [file join $copy log] &]
    set c ""
    wait_for_condition 100 50 {![catch {set c [::resp::connect 127.0.0.1 $port]}] && ![catch {$c ping}]} else {
        catch {exec kill $pid}
        fail "reference server did not start: [::harness::read_file [file join $copy log]]"
    }
    set digest [$c debug digest]
    set migrated [string match "*Successfully migrated an old-style AOF file (appendonly.aof)*" \
                      [::harness::read_file [file join $copy log]]]
    stop_reference $c $pid
    assert_equal 1 $migrated
    return $digest
}

start_server {tags {aof needs:restart} overrides {appendonly yes appendfsync always aof-use-rdb-preamble no}} {
    test "An old-style AOF (commands only) is adopted as the base: same dataset, layout as Redis 7.0" {
        up_populate
        r bgrewriteaof
        up_wait_rewrite
        r set after-rewrite 1
        set digest [r debug digest]
        set data [up_concat_layout]
        assert_no_match "REDIS*" $data
        up_make_old_style $data
        set ref [up_reference_digest [srv dir]]
        if {$ref ne ""} { assert_equal $digest $ref }
        set from [log_line_count]
        restart_server
        assert_equal $digest [r debug digest]
        assert_equal 0 [file exists [up_old]]
        assert_equal $data [up_read [file join [up_dir] appendonly.aof]]
        assert_equal {{file appendonly.aof seq 1 type b} {file appendonly.aof.1.incr.aof seq 1 type i}} [up_manifest]
        wait_for_log "*Successfully migrated an old-style AOF file (appendonly.aof) into the AOF directory (appendonlydir).*" -from $from
        wait_for_log "*DB loaded from base file appendonly.aof:*" -from $from
        wait_for_log "*Creating AOF incr file appendonly.aof.1.incr.aof on server start*" -from $from
    }

    test "... a restart after the adoption loads it again, with what was written since" {
        r set new-key 1
        r hset hash f3 v3
        set digest [r debug digest]
        set from [log_line_count]
        restart_server
        assert_equal $digest [r debug digest]
        assert_equal {{file appendonly.aof seq 1 type b} {file appendonly.aof.1.incr.aof seq 1 type i}} [up_manifest]
        wait_for_log "*Opening AOF incr file appendonly.aof.1.incr.aof on server start*" -from $from
        assert_no_match "*migrated*" [up_log_since $from]
    }

    test "... and a BGREWRITEAOF replaces the adopted base like any other" {
        set digest [r debug digest]
        r bgrewriteaof
        up_wait_rewrite
        wait_for_condition 100 50 {![file exists [file join [up_dir] appendonly.aof]]} else {
            fail "the adopted base was not deleted after the rewrite"
        }
        assert_match {{file appendonly.aof.2.base.aof seq 2 type b} {file appendonly.aof.2.incr.aof seq 2 type i}} [up_manifest]
        restart_server
        assert_equal $digest [r debug digest]
    }

    test "An old-style AOF with an RDB preamble is adopted: the RDB, then the commands after it" {
        up_populate
        r config set aof-use-rdb-preamble yes
        r bgrewriteaof
        up_wait_rewrite
        r config set aof-use-rdb-preamble no
        r set tail-1 x
        r rpush list tail
        r select 3
        r incr other-db
        r select 0
        set digest [r debug digest]
        set data [up_concat_layout]
        assert_match "REDIS*" $data
        assert_match "*tail-1*" $data
        up_make_old_style $data
        set ref [up_reference_digest [srv dir]]
        if {$ref ne ""} { assert_equal $digest $ref }
        set from [log_line_count]
        restart_server
        assert_equal $digest [r debug digest]
        assert_equal tail [r rpop list] ;# the tail's commands, not just the RDB part
        r rpush list tail
        assert_equal x [r get tail-1]
        r select 3
        assert_equal 2 [r get other-db]
        r select 0
        assert_equal {{file appendonly.aof seq 1 type b} {file appendonly.aof.1.incr.aof seq 1 type i}} [up_manifest]
        wait_for_log "*Reading RDB preamble from AOF file...*" -from $from
        wait_for_log "*Reading the remaining AOF tail...*" -from $from
        restart_server
        assert_equal $digest [r debug digest]
    }
}

start_server {tags {aof needs:restart} overrides {appendonly yes appendfsync always aof-use-rdb-preamble no}} {
    r set k1 v1
    r rpush l a b
    set old_data [up_concat_layout]
    set digest [r debug digest]

    # The adoption's steps: folder, manifest (naming the base), move. A
    # crash after the first or the second leaves these; Redis 7.0 adopts the
    # file again from either, and so must we.
    test "Crash after the folder was made (no manifest, a stray temporary one): adopted" {
        up_make_old_style $old_data
        file mkdir [up_dir]
        up_write [file join [up_dir] appendonly.aof.manifest.tmp] "file appendonly.aof seq 1 type b\n"
        restart_server
        assert_equal $digest [r debug digest]
        assert_equal 0 [file exists [up_old]]
        assert_equal {{file appendonly.aof seq 1 type b} {file appendonly.aof.1.incr.aof seq 1 type i}} [up_manifest]
    }

    test "Crash after the manifest was written, before the move: adopted" {
        up_make_old_style $old_data
        file mkdir [up_dir]
        up_write [file join [up_dir] appendonly.aof.manifest] "file appendonly.aof seq 1 type b\n"
        set from [log_line_count]
        restart_server
        assert_equal $digest [r debug digest]
        assert_equal 0 [file exists [up_old]]
        assert_equal $old_data [up_read [file join [up_dir] appendonly.aof]]
        wait_for_log "*Successfully migrated an old-style AOF file*" -from $from
    }

    test "A complete layout wins over a stale old-style file, which is left alone" {
        r set k2 v2
        set now [r debug digest]
        shutdown_server
        up_write [up_old] "*3\r\n\$3\r\nSET\r\n\$5\r\nstale\r\n\$1\r\n1\r\n"
        restart_server
        assert_equal $now [r debug digest]
        assert_equal 0 [r exists stale]
        assert_equal 1 [file exists [up_old]]
        file delete [up_old]
    }

    test "An old-style file that can't be loaded stops start-up, naming the file; its data stays" {
        set good "*3\r\n\$3\r\nSET\r\n\$1\r\na\r\n\$1\r\n1\r\n"
        set bad "${good}garbage\r\n*3\r\n\$3\r\nSET\r\n\$1\r\nb\r\n\$1\r\n2\r\n"
        up_make_old_style $bad
        assert_equal 1 [server_exit_status]
        assert_match "*Bad file format reading the append only file appendonly.aof: make a backup*(the command at byte [string length $good])*" [log_tail 0 20]
        assert_equal $bad [up_read [file join [up_dir] appendonly.aof]]
        # a second attempt refuses the same way: never an empty dataset
        assert_equal 1 [server_exit_status]
        assert_match "*Bad file format reading the append only file appendonly.aof:*" [log_tail 0 5]
        up_restore $old_data
        assert_equal $digest [r debug digest]
    }

    test "A corrupt RDB preamble stops start-up too" {
        shutdown_server
        up_write [up_old] "REDIS0010\xfa\x09redis-ver\x067.0.15garbage-that-is-not-an-rdb"
        file delete -force [up_dir]
        assert_equal 1 [server_exit_status]
        assert_match "*Error reading the RDB preamble of the AOF file appendonlydir/appendonly.aof, AOF loading aborted*" [log_tail 0 20]
        assert_equal 1 [file exists [file join [up_dir] appendonly.aof]]
        up_restore $old_data
    }

    test "If the old file can't be moved, start-up stops and the old file stays where it was" {
        shutdown_server
        file delete -force [up_dir]
        up_write [up_old] $old_data
        file mkdir [file join [up_dir] appendonly.aof in-the-way] ;# rename() onto a non-empty directory fails
        assert_equal 1 [server_exit_status]
        assert_match "*Error trying to rename the existing AOF to old AOF file*" [log_tail 0 20]
        assert_match "*Can't migrate the old-style AOF file appendonly.aof into the AOF directory appendonlydir*" [log_tail 0 20]
        assert_equal $old_data [up_read [up_old]]
        # what is in the way is not loaded as an empty AOF either
        assert_equal 1 [server_exit_status]
        assert_match "*Unrecoverable error reading the append only file appendonly.aof: Is a directory*" [log_tail 0 5]
        file delete -force [file join [up_dir] appendonly.aof]
        restart_server
        assert_equal $digest [r debug digest]
        assert_equal 0 [file exists [up_old]]
    }
}
