# aof-propagation.tcl -- the forms commands are written to the AOF in.
#
# A command whose argv would not replay to the same result is written as
# what it did: relative times as absolute ones (SET EX -> SET PXAT, EXPIRE ->
# PEXPIREAT, a time already past -> DEL), float increments as their result
# (INCRBYFLOAT -> SET KEEPTTL, HINCRBYFLOAT -> HSET). Each test reads the
# commands appended to the open incremental file by the commands it ran,
# then checks that a replay (DEBUG LOADAOF) gives the same keys and TTLs.
#
# Design decisions:
# - The AOF is written before replies go out, so once a reply is read the
#   commands are in the file: no polling is needed.
# - The file is parsed as RESP (SELECT and #TS annotations skipped:
#   aof_commands_written, tests/helpers/aof.tcl), so a test compares whole
#   commands, not substrings.

proc aofp_now_ms {} { return [clock milliseconds] }

# One written command: its name, and an absolute ms argument at `at` within
# [lo, hi].
proc aofp_assert_absolute {cmd name at lo hi} {
    assert_equal $name [lindex $cmd 0] $cmd
    assert_range [lindex $cmd $at] $lo $hi $cmd
}

start_server {tags {aof} overrides {appendonly yes appendfsync always aof-use-rdb-preamble no}} {
    test "Plain SET and INCR are written as sent" {
        set written [aof_commands_written { r set plain v; r incr counter }]
        assert_equal {{set plain v} {incr counter}} $written
    }

    test "SET EX / PX are written as SET PXAT with the absolute time" {
        set before [aofp_now_ms]
        set written [aof_commands_written { r set k1 v ex 100; r set k2 v px 200000 }]
        set after [aofp_now_ms]
        assert_equal 2 [llength $written]
        aofp_assert_absolute [lindex $written 0] SET 4 [expr {$before + 100000}] [expr {$after + 100000}]
        aofp_assert_absolute [lindex $written 1] SET 4 [expr {$before + 200000}] [expr {$after + 200000}]
        assert_equal {SET k1 v PXAT} [lrange [lindex $written 0] 0 3]
        assert_equal {SET k2 v PXAT} [lrange [lindex $written 1] 0 3]
    }

    test "SET EXAT / PXAT are written as SET PXAT, in milliseconds" {
        set secs [expr {[clock seconds] + 1000}]
        set ms [expr {[aofp_now_ms] + 2000000}]
        set written [aof_commands_written { r set k3 v exat $secs; r set k4 v pxat $ms }]
        assert_equal [list [list SET k3 v PXAT [expr {$secs * 1000}]] [list SET k4 v PXAT $ms]] $written
    }

    test "SET KEEPTTL is written with KEEPTTL; NX, XX and GET are dropped" {
        r set kt v ex 500
        set written [aof_commands_written {
            r set kt v2 keepttl
            r set nx v nx
            r set nx other nx
            r set nx v3 xx get
        }]
        assert_equal {{SET kt v2 KEEPTTL} {SET nx v} {SET nx v3}} $written
    }

    test "GETSET is written as SET (a replica counts it as a SET, as Redis 7.0's)" {
        r set gs old
        set written [aof_commands_written { r getset gs new; r getset gs2 first }]
        assert_equal {{SET gs new} {SET gs2 first}} $written
        assert_equal new [r get gs]
    }

    test "SETEX and PSETEX are written as SET PXAT" {
        set before [aofp_now_ms]
        set written [aof_commands_written { r setex se 100 v; r psetex pse 300000 v }]
        set after [aofp_now_ms]
        aofp_assert_absolute [lindex $written 0] SET 4 [expr {$before + 100000}] [expr {$after + 100000}]
        aofp_assert_absolute [lindex $written 1] SET 4 [expr {$before + 300000}] [expr {$after + 300000}]
        assert_equal {SET se v PXAT} [lrange [lindex $written 0] 0 3]
        assert_equal {SET pse v PXAT} [lrange [lindex $written 1] 0 3]
    }

    test "GETEX EX is written as PEXPIREAT, GETEX PERSIST as PERSIST" {
        r set g v
        set before [aofp_now_ms]
        set written [aof_commands_written { r getex g ex 100; r getex g persist; r getex g persist; r getex g }]
        set after [aofp_now_ms]
        assert_equal 2 [llength $written]
        aofp_assert_absolute [lindex $written 0] PEXPIREAT 2 [expr {$before + 100000}] [expr {$after + 100000}]
        assert_equal {PERSIST g} [lindex $written 1]
    }

    test "GETEX with a time already past is written as DEL" {
        r set gone v
        set written [aof_commands_written { assert_equal v [r getex gone pxat 1] }]
        assert_equal {{DEL gone}} $written
        assert_equal 0 [r exists gone]
    }

    test "The EXPIRE family is written as PEXPIREAT with the absolute time" {
        r set e v
        set before [aofp_now_ms]
        set secs [expr {[clock seconds] + 5000}]
        set written [aof_commands_written {
            r expire e 100
            r pexpire e 200000
            r expireat e $secs
            r pexpireat e [expr {$secs * 1000 + 1}]
            r expire e 10 nx
        }]
        set after [aofp_now_ms]
        assert_equal 4 [llength $written]
        aofp_assert_absolute [lindex $written 0] PEXPIREAT 2 [expr {$before + 100000}] [expr {$after + 100000}]
        aofp_assert_absolute [lindex $written 1] PEXPIREAT 2 [expr {$before + 200000}] [expr {$after + 200000}]
        assert_equal [list PEXPIREAT e [expr {$secs * 1000}]] [lindex $written 2]
        assert_equal [list PEXPIREAT e [expr {$secs * 1000 + 1}]] [lindex $written 3]
    }

    test "An EXPIRE with a time already past is written as DEL" {
        r set past1 v
        r set past2 v
        set written [aof_commands_written { r expire past1 -1; r pexpireat past2 1 }]
        assert_equal {{DEL past1} {DEL past2}} $written
        assert_equal 0 [r exists past1 past2]
    }

    test "INCRBYFLOAT is written as SET of its result, keeping the TTL" {
        r set f 10.5 ex 1000
        set written [aof_commands_written { r incrbyfloat f 0.25; r incrbyfloat fnew 3 }]
        assert_equal {{SET f 10.75 KEEPTTL} {SET fnew 3 KEEPTTL}} $written
    }

    test "HINCRBYFLOAT is written as HSET of its result" {
        r hset h n 1.5
        set written [aof_commands_written { r hincrbyfloat h n 2.25; r hincrbyfloat h new 1 }]
        assert_equal {{HSET h n 3.75} {HSET h new 1}} $written
    }

    test "A pipelined MULTI/EXEC is written inside one MULTI/EXEC, translated" {
        set rd [redis_deferring_client]
        set written [aof_commands_written {
            foreach cmd {{multi} {set tx1 a} {set tx2 b keepttl} {incrbyfloat tx3 1.5} {exec}} { $rd {*}$cmd }
            $rd flush
            foreach cmd {multi set set incrbyfloat exec} { $rd read }
        }]
        $rd close
        assert_equal {MULTI {set tx1 a} {SET tx2 b KEEPTTL} {SET tx3 1.5 KEEPTTL} EXEC} $written
    }

    test "SLOWLOG sees the command as sent, not as written to the AOF" {
        r config set slowlog-log-slower-than 0
        r slowlog reset
        r set sl v ex 100
        assert_equal {set sl v ex 100} [lindex [lindex [r slowlog get 1] 0] 3]
        r config set slowlog-log-slower-than 10000
    }

    test "A replay gives the same values and deadlines" {
        set digest [r debug digest]
        set deadlines {}
        foreach key {k1 k2 k3 k4 kt se pse e f} { lappend deadlines [r pexpiretime $key] }
        assert_equal OK [r debug loadaof]
        assert_equal $digest [r debug digest]
        foreach key {k1 k2 k3 k4 kt se pse e f} deadline $deadlines {
            assert_equal $deadline [r pexpiretime $key] $key
        }
        assert_equal -1 [r pexpiretime g]
        assert_equal 0 [r exists gone past1 past2]
        assert_equal 1.5 [r get tx3]
    }

    test "Keys SCAN and RANDOMKEY find expired: bare DELs, not in MULTI/EXEC" {
        r debug set-active-expire 0
        foreach cmd {{scan 0} {randomkey}} {
            r flushall
            r set exp1 v px 1
            r set exp2 v px 1
            after 3
            set written [aof_commands_written { r {*}$cmd; r {*}$cmd }]
            # FLUSHALL-free: only the two DELs, each on its own
            assert_equal {{DEL exp1} {DEL exp2}} [lsort $written] $cmd
        }
        r debug set-active-expire 1
    } {needs:debug}

    test "PUBLISH is not written (it goes to the replicas only), alone or in MULTI" {
        assert_equal {} [aof_commands_written { r publish ch msg }]
        set written [aof_commands_written {
            r multi
            r publish ch msg
            r set afterpub 1
            r exec
        }]
        assert_equal {{set afterpub 1}} $written
    }

    test "GETDEL is written as DEL (UNLINK with lazyfree-lazy-user-del); a GETDEL of nothing writes nothing" {
        r set gd v
        assert_equal {{DEL gd}} [aof_commands_written { assert_equal v [r getdel gd] }]
        assert_equal {} [aof_commands_written { r getdel gd }]
        r config set lazyfree-lazy-user-del yes
        r set gd v
        assert_equal {{UNLINK gd}} [aof_commands_written { r getdel gd }]
        r config set lazyfree-lazy-user-del no
    }

    test "ZMPOP and BZMPOP are written as ZPOPMIN/ZPOPMAX key <popped>, BZPOPMIN as ZPOPMIN key" {
        r del z1 z2
        r zadd z1 1 a 2 b 3 c
        set written [aof_commands_written {
            r zmpop 1 z1 min
            r zmpop 2 z2 z1 max count 10
            r zmpop 1 z1 min
        }]
        assert_equal {{ZPOPMIN z1 1} {ZPOPMAX z1 2}} $written
        r zadd z1 1 a 2 b
        assert_equal {{ZPOPMAX z1} {ZPOPMIN z1 1}} [aof_commands_written { r bzpopmax z1 0; r bzmpop 0 1 z1 min }]
        # served after blocking
        set rd [rd]
        $rd bzmpop 0 1 z2 max count 5
        wait_for_blocked_clients 1
        set written [aof_commands_written {
            r zadd z2 1 x 2 y
            assert_equal {z2 {{y 2} {x 1}}} [$rd read]
        }]
        assert_equal {{zadd z2 1 x 2 y} {ZPOPMAX z2 2}} $written
        $rd close
    }

}
