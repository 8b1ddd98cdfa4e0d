# multi.tcl -- transactions: MULTI/EXEC/DISCARD, queuing errors and
# EXECABORT, run-time errors that do not roll back, and WATCH firing on every
# kind of change (write by another client, DEL, expiry, FLUSHDB/FLUSHALL,
# SWAPDB, type change) but not on changes that change nothing (stale keys,
# flushes of other databases).
#
# Design decisions:
# - A second connection plays "another client"; it is closed at the end of
#   each test that opens one.
# - Expiry tests switch the active expiry cycle off where they need a stale
#   key to stay in memory, and use TTLs of a few ms awaited with polling.

# A second connection on the database the main client uses.
proc other_client {} {
    set c [redis_client]
    $c select [r_db]
    return $c
}

proc r_db {} {
    regexp {db=(\d+)} [r client info] -> db
    return $db
}

# EXEC whose reply holds errors: the harness raises after reading the whole
# reply, with the reply in errorCode.
proc exec_with_errors {} {
    catch {r exec} err opts
    set code [dict get $opts -errorcode]
    if {[lindex $code 0] ne "REDIS" || [lindex $code 1] ne "NESTED"} { error "expected nested errors: $err" }
    return [lindex $code 2]
}

# With active expiry off: sets w in db 10 (SET's extra arguments ARGS10) and,
# unless ARGS9 is "", in db 9; lets the "px 1" ones go stale; WATCHes w in
# db 9, swaps the two databases and returns what EXEC of a PING answers
# (PONG, or {} when the transaction failed).
proc exec_after_swapdb {args10 args9} {
    set_active_expire 0
    r flushall
    r select 10
    r set w 1 {*}$args10
    r select 9
    if {$args9 ne ""} { r set w 2 {*}$args9 }
    after 10
    r watch w
    r swapdb 9 10
    r multi
    r ping
    set result [r exec]
    set_active_expire 1
    return $result
}

proc set_active_expire {on} {
    if {[catch {r debug set-active-expire $on} err]} {
        skip "needs DEBUG SET-ACTIVE-EXPIRE"
    }
}

start_server {tags {multi}} {
    # ---- MULTI / EXEC / DISCARD ----------------------------------------------------

    test "MULTI queues commands and EXEC runs them in order" {
        r del a
        assert_equal OK [r multi]
        assert_equal QUEUED [r set a 1]
        assert_equal QUEUED [r incr a]
        assert_equal QUEUED [r get a]
        assert_equal {OK 2 2} [r exec]
    }

    test "EXEC of an empty transaction is an empty array" {
        r multi
        assert_equal {} [r exec]
    }

    test "Nested MULTI is an error that does not abort the transaction" {
        r multi
        assert_error "ERR MULTI calls can not be nested" {r multi}
        r set a 5
        assert_equal {OK} [r exec]
        assert_equal 5 [r get a]
    }

    test "EXEC and DISCARD without MULTI" {
        assert_error "ERR EXEC without MULTI" {r exec}
        assert_error "ERR DISCARD without MULTI" {r discard}
    }

    test "DISCARD drops the queued commands" {
        r set a 1
        r multi
        r set a 2
        assert_equal OK [r discard]
        assert_equal 1 [r get a]
        assert_error "ERR EXEC without MULTI" {r exec}
    }

    test "An unknown command while queuing aborts EXEC with EXECABORT" {
        r set a 1
        r multi
        r set a 2
        assert_error "ERR unknown command*" {r no-such-command x}
        assert_error "EXECABORT Transaction discarded because of previous errors." {r exec}
        assert_equal 1 [r get a]
    }

    test "A wrong arity while queuing aborts EXEC" {
        r multi
        assert_error "ERR wrong number of arguments for 'set' command" {r set a}
        assert_error "EXECABORT*" {r exec}
        assert_error "ERR EXEC without MULTI" {r exec}
    }

    test "A command not allowed in a transaction is rejected and aborts EXEC" {
        r multi
        assert_error "ERR Command not allowed inside a transaction" {r shutdown}
        assert_error "EXECABORT*" {r exec}
    }

    test "Run-time errors inside EXEC don't roll back the other commands" {
        r del a b
        r set s notanumber
        r multi
        r set a 1
        r incr s
        r set b 2
        set replies [exec_with_errors]
        assert_equal OK [lindex $replies 0]
        assert_match "ERR value is not an integer*" [lindex $replies 1]
        assert_equal OK [lindex $replies 2]
        assert_equal {1 2} [r mget a b]
    }

    test "EXEC counts the errors of its commands in errorstats and commandstats" {
        r config resetstat
        r set s notanumber
        r multi
        r incr s
        exec_with_errors
        assert_match "*errorstat_ERR:count=1*" [r info errorstats]
        assert_match "*cmdstat_incr:calls=1,*failed_calls=1*" [r info commandstats]
        assert_match "*cmdstat_exec:calls=1,*" [r info commandstats]
    }

    test "CLIENT LIST shows the x flag during MULTI" {
        r multi
        r client list
        set reply [r exec]
        assert_match "*flags=x*" [lindex $reply 0]
        assert_no_match "*flags=x*" [r client list]
    }

    test "MULTI state is per connection" {
        set c [other_client]
        r del a
        r multi
        r set a 1
        assert_equal {} [$c get a]
        $c set a 0
        r exec
        assert_equal 1 [$c get a]
        $c close
    }

    # ---- WATCH ------------------------------------------------------------------------

    test "EXEC succeeds when the watched key did not change" {
        r set w 1
        r watch w
        r multi
        r incr w
        assert_equal 2 [r exec]
    }

    test "EXEC fails when another client modifies a watched key" {
        set c [other_client]
        r set w 1
        r watch w
        $c set w 5
        r multi
        r incr w
        assert_equal {} [r exec]
        assert_equal 5 [r get w]
        $c close
    }

    test "EXEC fails when the watched key is modified before MULTI by the same client" {
        r set w 1
        r watch w
        r set w 2
        r multi
        r incr w
        assert_equal {} [r exec]
        assert_equal 2 [r get w]
    }

    test "EXEC fails when a missing watched key is created" {
        r del w
        r watch w
        r set w 1
        r multi
        r ping
        assert_equal {} [r exec]
    }

    test "EXEC fails when a watched key is deleted" {
        r set w 1
        r watch w
        r del w
        r multi
        r ping
        assert_equal {} [r exec]
    }

    test "EXEC fails when a watched key gets a TTL or loses it" {
        r set w 1
        r watch w
        r expire w 100
        r multi
        r ping
        assert_equal {} [r exec]
        r watch w
        r persist w
        r multi
        r ping
        assert_equal {} [r exec]
    }

    test "EXEC fails when a watched key changes type" {
        r set w 1
        r watch w
        r del w
        r set w x
        r multi
        r ping
        assert_equal {} [r exec]
    }

    test "Deleting a key nobody watches does not fail EXEC" {
        r set w 1
        r set other 1
        r watch w
        r del other
        r multi
        r ping
        assert_equal PONG [r exec]
    }

    test "WATCH of a key in another database is not fired by the same name here" {
        r select 9
        r set w 1
        r watch w
        r select 10
        r set w 2
        r select 9
        r multi
        r ping
        assert_equal PONG [r exec]
        r select 10
        r del w
        r select 9
    }

    test "UNWATCH forgets the watched keys" {
        r set w 1
        r watch w
        r set w 2
        assert_equal OK [r unwatch]
        r multi
        r ping
        assert_equal PONG [r exec]
    }

    test "After EXEC or DISCARD the keys are no longer watched" {
        r set w 1
        r watch w
        r multi
        r ping
        r exec
        r set w 2
        r multi
        r ping
        assert_equal PONG [r exec]
        r watch w
        r multi
        r discard
        r set w 3
        r multi
        r ping
        assert_equal PONG [r exec]
    }

    test "WATCH inside MULTI is an error that does not abort EXEC" {
        r multi
        assert_error "ERR WATCH inside MULTI is not allowed" {r watch x}
        r ping
        assert_equal PONG [r exec]
    }

    test "WATCH is variadic and any of the keys fires" {
        set c [other_client]
        r mset a 1 b 1 c 1
        r watch a b c
        $c set c 2
        r multi
        r ping
        assert_equal {} [r exec]
        $c close
    }

    test "A failed EXEC in RESP3 is a null" {
        r hello 3
        r set w 1
        r watch w
        r set w 2
        r multi
        r ping
        assert_equal {} [r exec]
        r hello 2
    }

    # ---- WATCH and flushes --------------------------------------------------------------

    test "FLUSHDB fails EXEC when it removes a watched key" {
        r set w 1
        r watch w
        r flushdb
        r multi
        r ping
        assert_equal {} [r exec]
    }

    test "FLUSHALL fails EXEC when it removes a watched key" {
        r set w 1
        r watch w
        r flushall
        r multi
        r ping
        assert_equal {} [r exec]
    }

    test "FLUSHDB of another database, or of an empty one, does not fail EXEC" {
        r flushall
        r watch w
        r flushdb
        r select 3
        r set x 1
        r flushdb
        r select 9
        r multi
        r ping
        assert_equal PONG [r exec]
    }

    test "SWAPDB fails EXEC when the watched key's content changes" {
        r flushall
        r select 9
        r set w 1
        r watch w
        r swapdb 9 10
        r multi
        r ping
        assert_equal {} [r exec]
    }

    test "SWAPDB fails EXEC when a watched missing key appears" {
        r flushall
        r select 10
        r set w 1
        r select 9
        r watch w
        r swapdb 9 10
        r multi
        r ping
        assert_equal {} [r exec]
    }

    test "SWAPDB of databases without the watched key does not fail EXEC" {
        r flushall
        r select 9
        r watch w
        r select 3
        r set x 1
        r swapdb 3 4
        r select 9
        r multi
        r ping
        assert_equal PONG [r exec]
    }

    # ---- WATCH and expiry ----------------------------------------------------------------

    test "EXEC fails when a watched key expires between WATCH and EXEC" {
        set_active_expire 0
        r set w 1 px 20
        r watch w
        after 40
        r multi
        r ping
        assert_equal {} [r exec]
        set_active_expire 1
    }

    test "EXEC fails when a watched key is removed by the active expiry cycle" {
        r set w 1 px 10
        r watch w
        wait_for_condition 100 20 {[r dbsize] == 0} else { fail "key not expired" }
        r multi
        r ping
        assert_equal {} [r exec]
    }

    test "WATCH of a stale (already expired) key does not fail EXEC" {
        set_active_expire 0
        r flushall
        r set w 1 px 1
        after 10
        r watch w
        r multi
        r ping
        assert_equal PONG [r exec]
        set_active_expire 1
    }

    test "Deleting a watched stale key does not fail EXEC" {
        set_active_expire 0
        r flushall
        r set w 1 px 1
        after 10
        r watch w
        assert_equal 0 [r del w]
        r multi
        r ping
        assert_equal PONG [r exec]
        set_active_expire 1
    }

    test "FLUSHDB with a watched stale key does not fail EXEC" {
        set_active_expire 0
        r flushall
        r set w 1 px 1
        after 10
        r watch w
        r flushdb
        r multi
        r ping
        assert_equal PONG [r exec]
        set_active_expire 1
    }

    test "Writing a watched stale key does fail EXEC" {
        set_active_expire 0
        r flushall
        r set w 1 px 1
        after 10
        r watch w
        r set w 2
        r multi
        r ping
        assert_equal {} [r exec]
        set_active_expire 1
    }

    test "SWAPDB bringing a stale key where the watched key was missing does not fail EXEC" {
        assert_equal PONG [exec_after_swapdb {px 1} {}]
    }

    test "SWAPDB replacing a watched stale key with another stale key does not fail EXEC" {
        assert_equal PONG [exec_after_swapdb {px 1} {px 1}]
    }

    test "SWAPDB replacing a watched stale key with a live one fails EXEC" {
        assert_equal {} [exec_after_swapdb {} {px 1}]
    }

    test "FLUSHDB of a watched key that expired after WATCH fails EXEC" {
        set_active_expire 0
        r flushall
        r set w 1 px 20
        r watch w
        after 40
        r flushdb
        r multi
        r ping
        assert_equal {} [r exec]
        set_active_expire 1
    }

    test "A client disconnecting while watching leaves the others working" {
        set c [other_client]
        $c set w 1
        $c watch w
        $c close
        r set w 2
        r watch w
        r multi
        r ping
        assert_equal PONG [r exec]
    }

    test "EXEC of queued writes over maxmemory is discarded with EXECABORT" {
        r flushall
        r set x 0
        r multi
        r set x 1
        r incr x
        set admin [redis_client]
        $admin config set maxmemory 1
        assert_error "EXECABORT Transaction discarded because of: OOM command not allowed when used memory > 'maxmemory'." {r exec}
        $admin config set maxmemory 0
        $admin close
        assert_equal 0 [r get x]
    }

    test "An error inside EXEC counts against the inner command, not EXEC" {
        r config resetstat
        r set x 0
        r multi
        r get x
        r lpush x a
        catch {r exec} err
        assert_match {*WRONGTYPE*} $err
        set info [r info commandstats]
        assert_match {*cmdstat_exec:calls=1,*,rejected_calls=0,failed_calls=0*} $info
        assert_match {*cmdstat_lpush:calls=1,*,rejected_calls=0,failed_calls=1*} $info
    }

    test "EXEC on a server that became a stale or read-only replica since the commands were queued" {
        r config set replica-serve-stale-data no
        set admin [redis_client]
        set nowhere [::harness::find_free_port]
        r set xx 1
        foreach queued {{get xx} {ping}} {
            r multi
            r {*}$queued
            $admin replicaof 127.0.0.1 $nowhere
            assert_error "EXECABORT Transaction discarded because of: MASTERDOWN*" {r exec}
            $admin replicaof no one
        }
        # EXEC itself and MULTI may run on a stale replica: an empty transaction does
        $admin replicaof 127.0.0.1 $nowhere
        r multi
        assert_equal {} [r exec]
        $admin replicaof no one
        r multi
        r set xx 2
        $admin config set replica-serve-stale-data yes
        $admin replicaof 127.0.0.1 $nowhere
        assert_error "EXECABORT Transaction discarded because of: READONLY*" {r exec}
        $admin replicaof no one
        assert_equal 1 [r get xx]
        $admin close
    } {needs:repl}

}
