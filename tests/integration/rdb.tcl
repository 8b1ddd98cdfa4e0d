# rdb.tcl -- snapshots: SAVE, BGSAVE, save rules, DEBUG RELOAD for every data
# type, loading at start-up, corrupt and truncated dumps refused, MISCONF
# when snapshots fail, and interchange with Redis in both directions:
# a dump written by Redis 7.0.15 (tests/assets, with every compact encoding,
# LZF and integer strings) loads with the same DEBUG DIGEST, and -- where
# Debian's redis-server is installed -- Redis loads a dump this server wrote
# (under QEMU that dump was written by the emulated big-endian or 32-bit
# server, so this is also the cross-architecture check). Snapshots and the
# AOF preamble honour rdbcompression (LZF and integer strings), and Redis
# loads the compressed dumps too.
#
# Design decision: the digest of the fixture (computed by Redis itself when
# it wrote the file) is the expected value, so the test checks against
# Redis, not against ourselves.

set fixture [file normalize tests/assets/redis-7.0.15-all-types.rdb]
set fixture_digest 69edf2e429ce629f926e48f91fe5ddaa4bf4a756

proc server_dir {} { return [srv dir] }

proc wait_for_bgsave {} {
    wait_for_condition 200 50 {[s rdb_bgsave_in_progress] == 0} else { fail "BGSAVE still running" }
}

proc fill_every_type {} {
    r flushall
    r set str hello
    r set num 12345
    r set ttl v px 100000000
    r rpush list a b 3
    r rpush biglist {*}[lrepeat 500 elem]
    r hset hash a 1 b 2
    r hset bighash {*}[lrepeat 300 f v] x [string repeat y 200]
    r sadd intset 1 2 -3
    r sadd set a b c
    r sadd bigset {*}[lmap i [lsearch -all [lrepeat 700 x] x] {expr {$i * 3}}]
    r zadd zset 1 a 2.5 b -inf c
    r zadd bigzset {*}[concat {*}[lmap i [lsearch -all [lrepeat 200 x] x] {list $i m$i}]]
    regexp {db=(\d+)} [r client info] -> db
    r select 7
    r set in7 x
    r select $db
}

# Long repetitive strings everywhere a string can be (keys, values, list,
# set, zset and hash elements) and integers of each width: about 1 MB raw.
proc fill_compressible {} {
    r flushall
    set long [string repeat "compress me " 40]
    for {set i 0} {$i < 200} {incr i} { r set "key:$long:$i" "$long$i" }
    r rpush list {*}[lmap i [lrepeat 300 x] {string cat $long [incr ::cn]}] 1 -200 70000 -3000000000
    r sadd set {*}[lmap i [lrepeat 300 x] {string cat $long [incr ::cn]}]
    r zadd zset {*}[concat {*}[lmap i [lrepeat 300 x] {list [incr ::cn] $long$::cn}]]
    r hset hash {*}[concat {*}[lmap i [lrepeat 300 x] {list f$long[incr ::cn] $long}]]
    r set int8 -100
    r set int16 30000
    r set int32 -2000000000
    r set int64 9000000000
}

start_server {tags {rdb}} {
    test "DEBUG RELOAD keeps every data type" {
        fill_every_type
        set before [r debug digest]
        assert_equal OK [r debug reload]
        assert_equal $before [r debug digest]
        assert_range [r ttl ttl] 99000 100000
    }

    test "SAVE writes dump.rdb and a restart loads it" {
        fill_every_type
        set before [r debug digest]
        set t0 [r lastsave]
        assert_equal OK [r save]
        assert {[file exists [file join [server_dir] dump.rdb]]}
        assert {[r lastsave] >= $t0}
        assert_equal 0 [s rdb_changes_since_last_save]
        restart_server
        assert_equal $before [r debug digest]
    }

    test "BGSAVE writes the dump in a child" {
        r set after-save 1
        assert_equal "Background saving started" [r bgsave]
        wait_for_bgsave
        assert_equal ok [s rdb_last_bgsave_status]
        set before [r debug digest]
        restart_server
        assert_equal $before [r debug digest]
        assert_equal 1 [r get after-save]
    }

    test "BGSAVE errors and SCHEDULE" {
        assert_error "ERR syntax error" {r bgsave foo}
        r rpush big {*}[lrepeat 20000 [string repeat z 50]]
        r bgsave
        assert_error "*already in progress*" {r bgsave}
        wait_for_bgsave
    }

    test "Save rules start a BGSAVE after enough changes" {
        r config set save "1 1"
        r set trigger 1
        wait_for_condition 100 50 {[s rdb_changes_since_last_save] == 0} else { fail "no automatic save" }
        r config set save ""
    }

    test "Keys already expired are not loaded" {
        r flushall
        r set soon v px 200
        r set stays v
        r save
        after 300
        shutdown_server
        restart_server
        assert_equal 0 [r exists soon]
        assert_equal 1 [r exists stays]
    }

    test "A dump written by Redis 7.0.15 loads with Redis's digest" {
        shutdown_server
        file copy -force $fixture [file join [server_dir] dump.rdb]
        restart_server
        assert_equal $::fixture_digest [r debug digest]
        assert_equal 16 [r dbsize]
        assert_equal [string repeat abcdefgh 50] [r get lzf]
        assert_equal 4102444800000 [r pexpiretime withttl]
        assert_equal {-70000 1 2 3 4000000000} [lsort -integer [r smembers intset]]
        assert_equal 1000 [r llen biglist]
        assert_equal {c -inf a 1 b 2.5 d 1e+100} [r zrange zset 0 -1 withscores]
    }

    test "A corrupt dump (checksum) is refused at start-up" {
        set path [file join [server_dir] dump.rdb]
        shutdown_server
        set fd [open $path r+]
        fconfigure $fd -translation binary
        seek $fd 100
        set b [read $fd 1]
        seek $fd 100
        puts -nonewline $fd [binary format c [expr {([scan $b %c] ^ 0x55) & 0xff}]]
        close $fd
        assert_equal 1 [server_exit_status]
        assert_match "*Error loading the RDB file*" [log_tail 0 20]
        file copy -force $fixture $path
        restart_server
    }

    test "A truncated dump is refused at start-up" {
        set path [file join [server_dir] dump.rdb]
        shutdown_server
        set fd [open $path r+]
        chan truncate $fd 5000
        close $fd
        assert_equal 1 [server_exit_status]
        assert_match "*Unexpected EOF*" [log_tail 0 20]
        file delete $path
        restart_server
        assert_equal 0 [r dbsize]
    }

    test "A failed SAVE is an error but, as in Redis, no MISCONF: only a failed BGSAVE stops writes" {
        r config set save "3600 1"
        r debug aof-fault rename eio
        assert_error "ERR*" {r save}
        assert_equal ok [s rdb_last_bgsave_status]
        assert_equal OK [r set k v]
        assert_equal PONG [r ping]
        # a failed BGSAVE does stop writes while save points exist
        r bgsave
        wait_for_condition 100 50 {[s rdb_bgsave_in_progress] == 0} else { fail "BGSAVE still running" }
        assert_equal err [s rdb_last_bgsave_status]
        assert_error "MISCONF*" {r set k v}
        r debug aof-fault rename off
        assert_equal OK [r save]
        assert_equal OK [r set k v]
        r config set save ""
    }

    test "SHUTDOWN saves when save points are configured" {
        r config set save "3600 1"
        r set at-shutdown yes
        restart_server
        assert_equal yes [r get at-shutdown]
        r config set save ""
    }

    test "Redis loads a dump this server wrote" {
        set ref [reference_server]
        if {$ref eq ""} { skip "Debian's redis-server is not installed (apt-get install redis-server)" }
        fill_every_type
        set expected [r debug digest]
        r save
        set c [start_reference $ref [file join [server_dir] dump.rdb] pid]
        set got [$c debug digest]
        stop_reference $c $pid
        assert_equal $expected $got
    }
    test "rdbcompression: LZF and integer strings in snapshots, loaded back here and by Redis" {
        fill_compressible
        set expected [r debug digest]
        set path [file join [server_dir] dump.rdb]
        r config set rdbcompression no
        r save
        set plain [file size $path]
        r config set rdbcompression yes
        r save
        set packed [file size $path]
        assert_lessthan [expr {$packed * 4}] $plain
        restart_server
        assert_equal $expected [r debug digest]
        set ref [reference_server]
        if {$ref eq ""} { skip "Debian's redis-server is not installed (apt-get install redis-server)" }
        set c [start_reference $ref $path pid]
        set got [$c debug digest]
        stop_reference $c $pid
        assert_equal $expected $got
    }
}

start_server {tags {rdb aof} overrides {appendonly yes aof-use-rdb-preamble yes}} {
    test "The AOF preamble is compressed too" {
        fill_compressible
        set expected [r debug digest]
        r bgrewriteaof
        wait_for_condition 200 50 {[aof_rewrite_idle]} else {
            fail "AOF rewrite still running"
        }
        set base [lindex [lsort -dictionary [glob -directory [file join [server_dir] appendonlydir] *.base.rdb]] end]
        assert_lessthan [file size $base] 100000
        assert_equal OK [r debug loadaof]
        assert_equal $expected [r debug digest]
    }
}

start_server {tags {rdb}} {
    test "A BGSAVE child killed by a signal: Redis 7.0's log line, its temp file removed, an error unless SIGUSR1" {
        if {[info exists ::env(REDIS_TEST_FORKLESS)] && $::env(REDIS_TEST_FORKLESS)} {
            skip "a forkless BGSAVE has no child to kill"
        }
        r set k v
        foreach {sig status} {9 err USR1 ok} {
            r config set rdb-key-save-delay 10000000
            set from [log_line_count]
            r bgsave
            set line [wait_for_log "*Background saving started by pid*" -from $from]
            regexp {started by pid (\d+)} $line -> child
            wait_for_condition 50 100 {[file exists [file join [server_dir] temp-$child.rdb]]} else {
                fail "the child made no temp file"
            }
            r config set rdb-key-save-delay 0
            exec kill -$sig $child
            set num [expr {$sig eq "USR1" ? "*" : 9}] ;# SIGUSR1 is 10 on x86 and ARM, 30 on SPARC
            wait_for_log "*Background saving terminated by signal $num*" -from $from
            wait_for_condition 50 100 {[s rdb_bgsave_in_progress] == 0} else { fail "BGSAVE still running" }
            assert_equal 0 [file exists [file join [server_dir] temp-$child.rdb]]
            assert_equal $status [s rdb_last_bgsave_status]
            r save ;# back to ok for the next round
        }
    }
}
