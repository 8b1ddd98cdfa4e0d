# expire.tcl -- key expiry: EXPIRE/PEXPIRE/EXPIREAT/PEXPIREAT with their
# NX/XX/GT/LT options, TTL/PTTL/EXPIRETIME/PEXPIRETIME, PERSIST, which
# commands keep or clear a TTL, lazy expiry on access and the active expiry
# cycle that removes keys nobody touches.
#
# Design decisions:
# - No test sleeps for a fixed time longer than a few tens of milliseconds:
#   short TTLs (tens of ms) are used and the effect is awaited with
#   wait_for_condition, so a slow machine (or QEMU) only makes tests slower.
# - Lazy expiry is observed with the active cycle switched off (DEBUG
#   SET-ACTIVE-EXPIRE 0): DBSIZE, which does not look at keys, still counts
#   an expired key until a command touches it. Those tests skip themselves
#   when the server has no DEBUG command yet.
# - TTL assertions use ranges, since time passes between command and check.

# Switches the active expiry cycle on or off; skips the test without DEBUG.
proc set_active_expire {on} {
    if {[catch {r debug set-active-expire $on} err]} {
        if {[string match "ERR unknown command*" $err] ||
            [string match "ERR unknown subcommand*" $err]} {
            skip "needs DEBUG SET-ACTIVE-EXPIRE (debug.c is not finished)"
        }
        error $err
    }
}

# Sets KEY with a TTL of MS milliseconds and waits until it has passed.
proc set_and_let_expire {key value ms} {
    r set $key $value px $ms
    after [expr {$ms + 5}]
}

# DBSIZE of database DB, through a separate connection.
proc db_size {db} {
    set c [redis_client]
    $c select $db
    set n [$c dbsize]
    $c close
    return $n
}

start_server {tags {expire}} {
    # ---- setting and reading TTLs -------------------------------------------------------

    test "EXPIRE sets a TTL, TTL and PTTL read it back" {
        r set k v
        assert_equal 1 [r expire k 100]
        assert_range [r ttl k] 95 100
        assert_range [r pttl k] 95000 100000
        assert_equal 1 [r pexpire k 50000]
        assert_range [r pttl k] 45000 50000
        assert_range [r ttl k] 45 50
    }

    test "TTL and PTTL of a missing key or a key without TTL" {
        r del k
        assert_equal -2 [r ttl k]
        assert_equal -2 [r pttl k]
        assert_equal -2 [r expiretime k]
        assert_equal -2 [r pexpiretime k]
        r set k v
        assert_equal -1 [r ttl k]
        assert_equal -1 [r pttl k]
        assert_equal -1 [r expiretime k]
        assert_equal -1 [r pexpiretime k]
    }

    test "TTL rounds to the nearest second" {
        r set k v
        r pexpire k 1600
        assert_range [r ttl k] 1 2
        r pexpire k 2400
        assert_range [r ttl k] 2 2
    }

    test "EXPIREAT and PEXPIREAT set an absolute time, EXPIRETIME reads it" {
        r set k v
        set at [expr {[clock seconds] + 1000}]
        assert_equal 1 [r expireat k $at]
        assert_equal $at [r expiretime k]
        assert_equal [expr {$at * 1000}] [r pexpiretime k]
        set pat [expr {[clock milliseconds] + 123456}]
        assert_equal 1 [r pexpireat k $pat]
        assert_equal $pat [r pexpiretime k]
        assert_equal [expr {($pat + 500) / 1000}] [r expiretime k]
        assert_range [r pttl k] 120000 123456
    }

    test "EXPIRE of a missing key replies 0 and creates nothing" {
        r del k
        assert_equal 0 [r expire k 100]
        assert_equal 0 [r pexpire k 100]
        assert_equal 0 [r expireat k 100]
        assert_equal 0 [r pexpireat k 100]
        assert_equal 0 [r exists k]
    }

    test "EXPIRE with zero, a negative time or a past date deletes the key" {
        foreach cmd {{expire k 0} {expire k -10} {pexpire k 0} {pexpire k -1}
                     {expireat k 1} {pexpireat k 1} {expireat k 0}
                     {expireat k -100}} {
            r set k v
            assert_equal 1 [r {*}$cmd] $cmd
            assert_equal 0 [r exists k] $cmd
        }
    }

    test "EXPIRE with a non-integer time" {
        r set k v
        foreach cmd {expire pexpire expireat pexpireat} {
            foreach bad {abc 1.5 "" " 10" 9223372036854775808} {
                assert_error "ERR value is not an integer or out of range" \
                    [list r $cmd k $bad]
            }
        }
        assert_equal -1 [r ttl k]
    }

    test "EXPIRE with a time that overflows is refused" {
        r set k v
        assert_error "ERR invalid expire time in 'expire' command" \
            {r expire k 9223372036854775807}
        assert_error "ERR invalid expire time in 'expire' command" \
            {r expire k 9223372036854775}
        assert_error "ERR invalid expire time in 'expire' command" \
            {r expire k -9223372036854775808}
        assert_error "ERR invalid expire time in 'pexpire' command" \
            {r pexpire k 9223372036854775807}
        assert_error "ERR invalid expire time in 'expireat' command" \
            {r expireat k 9223372036854775807}
        assert_error "ERR invalid expire time in 'expireat' command" \
            {r expireat k -9223372036854775808}
        assert_equal 1 [r exists k]
        assert_equal -1 [r ttl k]
    }

    test "PEXPIREAT accepts the largest time" {
        r set k v
        assert_equal 1 [r pexpireat k 9223372036854775807]
        assert_equal 9223372036854775807 [r pexpiretime k]
        assert_morethan [r ttl k] 1000000000
    }

    test "EXPIRE family arity" {
        foreach cmd {expire pexpire expireat pexpireat} {
            assert_error "ERR wrong number of arguments for '$cmd' command" [list r $cmd k]
        }
        foreach cmd {ttl pttl expiretime pexpiretime persist} {
            assert_error "ERR wrong number of arguments for '$cmd' command" [list r $cmd]
            assert_error "ERR wrong number of arguments for '$cmd' command" [list r $cmd a b]
        }
    }

    # ---- NX / XX / GT / LT ------------------------------------------------------------------

    test "EXPIRE NX sets only when there is no TTL" {
        r set k v
        assert_equal 1 [r expire k 100 nx]
        assert_equal 0 [r expire k 200 nx]
        assert_range [r ttl k] 95 100
    }

    test "EXPIRE XX sets only when there is a TTL" {
        r set k v
        assert_equal 0 [r expire k 100 xx]
        assert_equal -1 [r ttl k]
        r expire k 100
        assert_equal 1 [r expire k 200 xx]
        assert_range [r ttl k] 195 200
    }

    test "EXPIRE GT only extends, a key without TTL counts as infinite" {
        r set k v
        assert_equal 0 [r expire k 100 gt]
        assert_equal -1 [r ttl k]
        r expire k 100
        assert_equal 0 [r expire k 50 gt]
        assert_equal 1 [r expire k 200 gt]
        assert_range [r ttl k] 195 200
        # Equal is not greater.
        set at [expr {[clock seconds] + 500}]
        r expireat k $at
        assert_equal 0 [r expireat k $at gt]
        assert_equal 0 [r expireat k $at lt]
        assert_equal $at [r expiretime k]
    }

    test "EXPIRE LT only shortens, a key without TTL counts as infinite" {
        r set k v
        assert_equal 1 [r expire k 100 lt]
        assert_range [r ttl k] 95 100
        assert_equal 0 [r expire k 200 lt]
        assert_equal 1 [r expire k 50 lt]
        assert_range [r ttl k] 45 50
    }

    test "GT/LT combine with XX; options are case-insensitive" {
        r set k v
        assert_equal 0 [r expire k 100 xx gt]
        assert_equal 0 [r expire k 100 XX LT]
        r expire k 100
        assert_equal 1 [r expire k 200 Xx Gt]
        assert_equal 1 [r pexpire k 50000 lt xx]
        assert_range [r ttl k] 45 50
    }

    test "The options work the same for PEXPIRE, EXPIREAT and PEXPIREAT" {
        set now [clock seconds]
        r set k v
        assert_equal 0 [r expireat k [expr {$now + 100}] xx]
        assert_equal 1 [r expireat k [expr {$now + 100}] nx]
        assert_equal 0 [r expireat k [expr {$now + 50}] gt]
        assert_equal 1 [r pexpireat k [expr {($now + 50) * 1000}] lt]
        assert_equal [expr {$now + 50}] [r expiretime k]
        assert_equal 0 [r pexpire k 10000 nx]
        assert_equal 1 [r pexpire k 100000 gt]
        assert_range [r pttl k] 95000 100000
    }

    test "EXPIRE LT with a past time deletes the key" {
        r set k v
        r expire k 100
        assert_equal 1 [r expire k -1 lt]
        assert_equal 0 [r exists k]
        r set k v
        assert_equal 0 [r expire k -1 xx]
        assert_equal 1 [r exists k]
    }

    test "EXPIRE option errors" {
        r set k v
        foreach opts {{nx xx} {nx gt} {nx lt} {xx nx} {gt nx}} {
            assert_error "ERR NX and XX, GT or LT options at the same time are not compatible" \
                [list r expire k 100 {*}$opts]
        }
        assert_error "ERR GT and LT options at the same time are not compatible" \
            {r expire k 100 gt lt}
        assert_error "ERR GT and LT options at the same time are not compatible" \
            {r pexpireat k 100 lt gt}
        assert_error "ERR Unsupported option foo" {r expire k 100 foo}
        assert_error "ERR Unsupported option bar" {r pexpire k 100 nx bar}
        assert_equal -1 [r ttl k]
    }

    # ---- PERSIST and commands that keep or clear the TTL -------------------------------------

    test "PERSIST removes the TTL" {
        r set k v ex 100
        assert_equal 1 [r persist k]
        assert_equal -1 [r ttl k]
        assert_equal 0 [r persist k]
        r del k
        assert_equal 0 [r persist k]
    }

    test "SET, GETSET, MSET and SETEX replace the TTL; the others keep it" {
        foreach {cmd keeps} {
            {set k v2} 0 {getset k v2} 0 {mset k v2} 0 {psetex k 5000 v2} 0
            {append k x} 1 {setrange k 0 x} 1 {set k v2 keepttl} 1
            {incrbyfloat k 1} 1 {incr k} 1 {decrby k 3} 1 {getex k} 1
            {set k v2 xx get} 0 {setnx k v2} 1 {lcs k k} 1 {getrange k 0 1} 1
        } {
            r set k 10 ex 100
            r {*}$cmd
            if {$keeps} {
                assert_range [r ttl k] 95 100 "after '$cmd'"
            } else {
                assert_morethan 95 [r ttl k] "after '$cmd'"
            }
        }
    }

    test "RENAME, MOVE and COPY carry the TTL" {
        r select 1
        r flushdb
        r select 0
        r set k v ex 100
        r rename k k2
        assert_range [r ttl k2] 95 100
        r copy k2 k3
        assert_range [r ttl k3] 95 100
        r move k3 1
        r select 1
        assert_range [r ttl k3] 95 100
        r select 0
    }

    test "DEL and re-creating a key drops the old TTL" {
        r set k v ex 100
        r del k
        r set k v
        assert_equal -1 [r ttl k]
        r set k 5 ex 100
        r del k
        r incr k
        assert_equal -1 [r ttl k]
    }

    # ---- lazy expiry --------------------------------------------------------------------------

    test "An expired key is gone for GET, EXISTS, TTL, TYPE, MGET, STRLEN" {
        set_and_let_expire k v 20
        assert_equal {} [r get k]
        set_and_let_expire k v 20
        assert_equal 0 [r exists k]
        set_and_let_expire k v 20
        assert_equal -2 [r ttl k]
        set_and_let_expire k v 20
        assert_equal -2 [r pttl k]
        set_and_let_expire k v 20
        assert_equal none [r type k]
        set_and_let_expire k v 20
        assert_equal {{}} [r mget k]
        set_and_let_expire k v 20
        assert_equal 0 [r strlen k]
    }

    test "Writes to an expired key start from an empty value" {
        set_and_let_expire k 100 20
        assert_equal 1 [r incr k]
        assert_equal -1 [r ttl k]
        set_and_let_expire k abc 20
        assert_equal 1 [r append k x]
        assert_equal x [r get k]
        set_and_let_expire k abc 20
        assert_equal OK [r set k new nx]
        set_and_let_expire k abc 20
        assert_equal {} [r set k new xx]
        assert_equal 0 [r exists k]
        set_and_let_expire k abc 20
        assert_equal 1 [r setnx k fresh]
        set_and_let_expire k abc 20
        assert_equal 0 [r expire k 100]
        set_and_let_expire k abc 20
        assert_equal 0 [r persist k]
        set_and_let_expire k abc 20
        assert_error "ERR no such key" {r rename k k2}
    }

    test "Lazy expiry: DBSIZE counts an expired key until it is accessed" {
        set_active_expire 0
        r flushdb
        set_and_let_expire k v 10
        r set other v
        assert_equal 2 [r dbsize]
        assert_equal {} [r get k]
        assert_equal 1 [r dbsize]
        set_active_expire 1
    }

    test "Lazy expiry: KEYS, SCAN and RANDOMKEY skip expired keys" {
        set_active_expire 0
        r flushdb
        for {set i 0} {$i < 20} {incr i} { r set dead:$i v px 10 }
        r set alive v
        after 20
        assert_equal 21 [r dbsize]
        assert_equal {alive} [r keys *]
        set cursor 0
        set seen {}
        while 1 {
            lassign [r scan $cursor count 5] cursor keys
            lappend seen {*}$keys
            if {$cursor eq "0"} break
        }
        # SCAN may return a key twice (the table can shrink meanwhile).
        assert_equal {alive} [lsort -unique $seen]
        for {set i 0} {$i < 10} {incr i} { assert_equal alive [r randomkey] }
        set_active_expire 1
    }

    test "Lazy expiry: RANDOMKEY of a database of only expired keys is null" {
        set_active_expire 0
        r flushdb
        for {set i 0} {$i < 10} {incr i} { r set dead:$i v px 10 }
        after 20
        assert_equal {} [r randomkey]
        set_active_expire 1
    }

    test "Lazy expiry: RANDOMKEY finds the one live key among many expired ones" {
        set_active_expire 0
        r flushdb
        for {set i 0} {$i < 1000} {incr i} { r set dead:$i v px 10 }
        r set alive v
        after 20
        assert_equal 1001 [r dbsize]
        assert_equal alive [r randomkey]
        # The expired keys it met on the way were deleted.
        assert_range [r dbsize] 1 1000
        set_active_expire 1
    }

    test "Lazy expiry: COPY, MOVE and EXPIRE see an expired source as missing" {
        set_active_expire 0
        r flushdb
        r select 1
        r flushdb
        r select 0
        set_and_let_expire k v 10
        assert_equal 0 [r copy k k2]
        assert_equal 0 [r exists k2]
        set_and_let_expire k v 10
        assert_equal 0 [r move k 1]
        r select 1
        assert_equal 0 [r exists k]
        r select 0
        set_active_expire 1
    }

    # ---- active expiry ------------------------------------------------------------------------

    test "Active expiry removes keys nobody accesses" {
        r flushdb
        for {set i 0} {$i < 100} {incr i} { r set vol:$i v px 50 }
        for {set i 0} {$i < 10} {incr i} { r set perm:$i v }
        wait_for_condition 100 50 {[r dbsize] == 10} else {
            fail "active expiry left [r dbsize] keys"
        }
        assert_equal 10 [llength [r keys perm:*]]
    }

    test "Active expiry works in every database" {
        r select 7
        r flushdb
        for {set i 0} {$i < 50} {incr i} { r set vol:$i v px 30 }
        r select 0
        wait_for_condition 100 50 {[db_size 7] == 0} else {
            fail "active expiry left [db_size 7] keys in db 7"
        }
    }

    test "A key whose TTL was removed is not expired" {
        r flushdb
        r set k v px 100
        r persist k
        r set gone v px 30
        wait_for_condition 100 20 {[r dbsize] == 1} else {
            fail "expected only k to remain, DBSIZE is [r dbsize]"
        }
        assert_equal v [r get k]
    }

    test "A TTL changed to a later time is honoured" {
        r flushdb
        r set k v px 30
        r pexpire k 100000
        r set marker v px 30
        wait_for_condition 100 20 {[r dbsize] == 1} else {
            fail "marker was not expired"
        }
        assert_equal v [r get k]
    }

    test "expired_keys in INFO counts lazy and active expiries" {
        set before [s expired_keys]
        if {$before eq ""} { skip "INFO has no expired_keys field yet" }
        r set a v px 10
        r set b v px 10
        after 20
        assert_equal {} [r get a]
        assert_equal 0 [r exists b]
        assert_range [expr {[s expired_keys] - $before}] 2 2
    }
}
