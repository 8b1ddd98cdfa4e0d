# list-blocking.tcl -- BLPOP, BRPOP, BLMOVE, BRPOPLPUSH and BLMPOP: serving
# at once, blocking, wake-up by pushes from other clients in FIFO order,
# chains of BLMOVEs, timeouts (fractional, errors, the nil reply in RESP2
# and RESP3), disconnects, keys deleted, renamed or changing type while
# clients wait, MULTI, and pipelined commands behind a blocked one.
#
# Every wait goes through wait_for_blocked_clients or wait_for_condition;
# timing checks use generous upper bounds scaled by the time factor.
# Checked against Redis 7.0 (`--server /usr/bin/redis-server`); the few
# places where this server follows 7.2 instead carry the tag redis7.2.

# The raw first line of the reply to a blocking command that times out.
proc raw_timeout_line {resp args} {
    set c [redis_client -readraw 1]
    if {$resp == 3} {
        $c hello 3
        $c ping
        while {[$c read] ne "+PONG"} {}
    }
    set line [$c {*}$args]
    $c close
    return $line
}

start_server {tags {list blocking}} {
    foreach fill {128 2} {
        set enc [expr {$fill == 128 ? "listpack" : "quicklist"}]
        r config set list-max-listpack-size $fill

        test "BLPOP/BRPOP serve at once from the first non-empty key - $enc" {
            r del k1 k2 k3
            r rpush k2 a b c
            r rpush k3 x
            assert_equal {k2 a} [r blpop k1 k2 k3 0]
            assert_equal {k2 c} [r brpop k1 k2 k3 1]
            assert_equal {k2 b} [r brpop k1 k2 k3 0.01]
            assert_equal 0 [r exists k2]
            assert_equal {k3 x} [r blpop k1 k2 k3 0]
            assert_equal 0 [r exists k3]
        }

        test "BLPOP blocks until another client pushes - $enc" {
            r del bl
            set rd [redis_deferring_client]
            $rd blpop bl 0
            $rd flush
            wait_for_blocked_clients 1
            r rpush bl a b c
            assert_equal {bl a} [$rd read]
            wait_for_blocked_clients 0
            assert_equal {b c} [r lrange bl 0 -1]
            $rd close
        }

        test "BLMOVE and BRPOPLPUSH serve at once - $enc" {
            r del src dst
            r rpush src a b c
            assert_equal c [r brpoplpush src dst 0]
            assert_equal a [r blmove src dst left right 0]
            assert_equal b [r blmove src dst right left 0]
            assert_equal {b c a} [r lrange dst 0 -1]
            assert_equal 0 [r exists src]
        }

        test "BLMOVE blocks and moves when the source gets an element - $enc" {
            r del src dst
            r rpush dst x
            set rd [redis_deferring_client]
            $rd blmove src dst right left 0
            $rd flush
            wait_for_blocked_clients 1
            r rpush src a b
            assert_equal b [$rd read]
            assert_equal {b x} [r lrange dst 0 -1]
            assert_equal {a} [r lrange src 0 -1]
            $rd close
        }

        test "BLMPOP serves at once and blocks with COUNT - $enc" {
            r del m1 m2
            r rpush m2 a b c d
            assert_equal {m2 {a b}} [r blmpop 0 2 m1 m2 left count 2]
            assert_equal {m2 d} [r blmpop 0 2 m1 m2 right]
            set rd [redis_deferring_client]
            $rd blmpop 0 2 m0 m1 right count 3
            $rd flush
            wait_for_blocked_clients 1
            r rpush m1 1 2 3 4 5
            assert_equal {m1 {5 4 3}} [$rd read]
            assert_equal {1 2} [r lrange m1 0 -1]
            $rd close
        }
    }
    r config set list-max-listpack-size -2

    test "Blocked clients are served in the order they blocked (FIFO)" {
        r del q
        set clients {}
        foreach i {1 2 3} {
            set rd [redis_deferring_client]
            $rd blpop q 0
            $rd flush
            wait_for_blocked_clients $i
            lappend clients $rd
        }
        r rpush q first
        assert_equal {q first} [[lindex $clients 0] read]
        wait_for_blocked_clients 2
        r rpush q second third
        assert_equal {q second} [[lindex $clients 1] read]
        assert_equal {q third} [[lindex $clients 2] read]
        wait_for_blocked_clients 0
        assert_equal 0 [r exists q]
        foreach rd $clients { $rd close }
    }

    test "One push serves only as many clients as it has elements" {
        r del q
        set rd1 [redis_deferring_client]
        set rd2 [redis_deferring_client]
        $rd1 brpop q 0
        $rd1 flush
        wait_for_blocked_clients 1
        $rd2 brpop q 0
        $rd2 flush
        wait_for_blocked_clients 2
        r lpush q only
        assert_equal {q only} [$rd1 read]
        wait_for_blocked_clients 1
        assert_equal 0 [$rd2 ready]
        r lpush q next
        assert_equal {q next} [$rd2 read]
        $rd1 close
        $rd2 close
    }

    test "A client blocked on several keys is served by whichever gets data" {
        r del a b c
        set rd [redis_deferring_client]
        $rd blpop a b c 0
        $rd flush
        wait_for_blocked_clients 1
        r rpush c x
        assert_equal {c x} [$rd read]
        $rd blpop a b c 0
        $rd flush
        wait_for_blocked_clients 1
        r rpush b y
        assert_equal {b y} [$rd read]
        $rd close
    }

    test "A client blocked twice on the same key is served once" {
        r del d
        set rd [redis_deferring_client]
        $rd blpop d d d 0
        $rd flush
        wait_for_blocked_clients 1
        r rpush d 1 2
        assert_equal {d 1} [$rd read]
        assert_equal {2} [r lrange d 0 -1]
        $rd close
    }

    test "A BLMOVE chain: the moved element serves the next blocked client" {
        r del c1 c2 c3
        set rd1 [redis_deferring_client]
        set rd2 [redis_deferring_client]
        set rd3 [redis_deferring_client]
        $rd1 blmove c1 c2 left right 0
        $rd1 flush
        wait_for_blocked_clients 1
        $rd2 brpoplpush c2 c3 0
        $rd2 flush
        wait_for_blocked_clients 2
        $rd3 blpop c3 0
        $rd3 flush
        wait_for_blocked_clients 3
        r rpush c1 v
        assert_equal v [$rd1 read]
        assert_equal v [$rd2 read]
        assert_equal {c3 v} [$rd3 read]
        wait_for_blocked_clients 0
        assert_equal 0 [r exists c1]
        assert_equal 0 [r exists c2]
        assert_equal 0 [r exists c3]
        $rd1 close
        $rd2 close
        $rd3 close
    }

    test "BLMOVE onto the key it waits on rotates the pushed element" {
        r del rot
        set rd [redis_deferring_client]
        $rd blmove rot rot left right 0
        $rd flush
        wait_for_blocked_clients 1
        r rpush rot a
        assert_equal a [$rd read]
        assert_equal {a} [r lrange rot 0 -1]
        $rd close
    }

    test "LMOVE (non-blocking) into a key a client waits on serves it" {
        r del from to
        r rpush from e
        set rd [redis_deferring_client]
        $rd blpop to 0
        $rd flush
        wait_for_blocked_clients 1
        assert_equal e [r lmove from to left left]
        assert_equal {to e} [$rd read]
        assert_equal 0 [r exists to]
        $rd close
    }

    test "Fractional timeout: nil after about 0.1 s" {
        r del none
        set rd [redis_deferring_client]
        set start [clock milliseconds]
        $rd blpop none 0.1
        $rd flush
        assert_equal {} [$rd read]
        set elapsed [expr {[clock milliseconds] - $start}]
        assert_range $elapsed 90 [expr {600 * [::harness::factor]}]
        wait_for_blocked_clients 0
        $rd close
    }

    test "Timeouts of every blocking command reply nil" {
        r del none d
        foreach cmd {{blpop none 0.05} {brpop none 0.05} {blmove none d left left 0.05}
                     {brpoplpush none d 0.05} {blmpop 0.05 1 none left}} {
            assert_equal {} [r {*}$cmd]
        }
        assert_equal 0 [r exists d]
        assert_equal {*-1} [raw_timeout_line 2 blpop none 0.05]
        assert_equal {*-1} [raw_timeout_line 2 brpoplpush none d 0.05]
        assert_equal {*-1} [raw_timeout_line 2 blmpop 0.05 1 none left]
        assert_equal {_} [raw_timeout_line 3 blpop none 0.05]
        assert_equal {_} [raw_timeout_line 3 blmove none d left left 0.05]
    }

    test "Clients with different timeouts expire in deadline order, others stay" {
        r del none
        set long [redis_deferring_client]
        set short [redis_deferring_client]
        set forever [redis_deferring_client]
        $long blpop none [expr {0.5 * [::harness::factor]}]
        $long flush
        $short blpop none 0.1
        $short flush
        $forever blpop none 0
        $forever flush
        assert_equal {} [$short read]
        assert_equal 0 [$long ready]
        assert_equal {} [$long read]
        wait_for_blocked_clients 1
        r rpush none v
        assert_equal {none v} [$forever read]
        $long close
        $short close
        $forever close
    }

    test "Many clients with mixed timeouts all expire, none early" {
        r del none
        set clients {}
        set n 20
        for {set i 0} {$i < $n} {incr i} {
            set rd [redis_deferring_client]
            set t [expr {0.05 + ($i * 7 % $n) * 0.01}]
            $rd blpop none $t
            $rd flush
            lappend clients $rd
        }
        wait_for_condition 100 20 {[s blocked_clients] == 0} else { fail "clients still blocked" }
        foreach rd $clients {
            assert_equal {} [$rd read]
            $rd close
        }
    }

    test "Random pushes to clients blocked on several keys deliver every element once" {
        r del s1 s2 s3
        set clients {}
        set n 12
        for {set i 0} {$i < $n} {incr i} {
            set rd [redis_deferring_client]
            set keys [lrange [list s1 s2 s3 s1 s2] [expr {$i % 3}] [expr {$i % 3 + 1}]]
            $rd blpop {*}$keys 0
            $rd flush
            lappend clients $rd
        }
        wait_for_blocked_clients $n
        set pushed {}
        for {set i 0} {$i < $n} {incr i} {
            set key [lindex {s1 s2 s3} [expr {$i % 3}]]
            r rpush $key "v$i"
            lappend pushed "v$i"
        }
        set got {}
        foreach rd $clients {
            lappend got [lindex [$rd read] 1]
            $rd close
        }
        assert_equal [lsort $pushed] [lsort $got]
        assert_equal 0 [r exists s1 s2 s3]
    }

    test "A command that blocked counts as one call in INFO commandstats" {
        r config resetstat
        r del cs
        set rd [redis_deferring_client]
        $rd blpop cs 0
        $rd flush
        wait_for_blocked_clients 1
        r rpush cs v
        assert_equal {cs v} [$rd read]
        $rd blpop cs 0.05
        $rd flush
        assert_equal {} [$rd read]
        assert_match "*cmdstat_blpop:calls=2,*" [r info commandstats]
        $rd close
    }

    test "Timeout errors" {
        assert_error "ERR timeout is not a float or out of range" {r blpop k abc}
        assert_error "ERR timeout is not a float or out of range" {r blpop k 1x}
        assert_error "ERR timeout is not a float or out of range" {r brpoplpush a b {}}
        assert_error "ERR timeout is negative" {r brpop k -1}
        assert_error "ERR timeout is negative" {r blmove a b left left -0.5}
        assert_error "ERR timeout is negative" {r blmpop -1 1 k left}
    }

    test "Timeouts too large for milliseconds are out of range" {
        assert_error "ERR timeout is out of range" {r blpop k 9223372036854775807}
        assert_error "ERR timeout is out of range" {r blpop k 1e300}
        assert_error "ERR timeout is out of range" {r blmpop 9223372036854775 1 k left}
    } {redis7.2}

    test "Argument errors of the blocking commands" {
        assert_error "ERR wrong number of arguments for 'blpop' command" {r blpop k}
        assert_error "ERR wrong number of arguments for 'blmove' command" {r blmove a b left left}
        assert_error "ERR wrong number of arguments for 'blmpop' command" {r blmpop 0 1 k}
        assert_error "ERR syntax error" {r blmove a b left up 0}
        assert_error "ERR syntax error" {r blmpop 0 1 k up}
        assert_error "ERR syntax error" {r blmpop 0 3 k left}
        assert_error "ERR numkeys should be greater than 0" {r blmpop 0 0 k left}
        assert_error "ERR count should be greater than 0" {r blmpop 0 1 k left count 0}
        r set str x
        assert_error "WRONGTYPE*" {r blpop str 0}
        assert_error "WRONGTYPE*" {r blpop missing str 0}
        assert_error "WRONGTYPE*" {r blmove str d left left 0}
        assert_error "WRONGTYPE*" {r blmpop 0 1 str left}
        r rpush srclist a
        assert_error "WRONGTYPE*" {r blmove srclist str left left 0}
        assert_equal {a} [r lrange srclist 0 -1]
        assert_equal 0 [s blocked_clients]
    }

    test "A client that disconnects while blocked is forgotten" {
        r del gone
        set rd [redis_deferring_client]
        $rd blpop gone 0
        $rd flush
        wait_for_blocked_clients 1
        $rd close
        wait_for_blocked_clients 0
        r rpush gone v
        assert_equal {v} [r lrange gone 0 -1]
    }

    test "A client that disconnects while blocked with a timeout is forgotten" {
        r del gone
        set rd [redis_deferring_client]
        $rd blpop gone 10
        $rd flush
        set rd2 [redis_deferring_client]
        $rd2 blpop gone [expr {0.3 * [::harness::factor]}]
        $rd2 flush
        wait_for_blocked_clients 2
        $rd close
        wait_for_blocked_clients 1
        assert_equal {} [$rd2 read]
        wait_for_blocked_clients 0
        $rd2 close
    }

    test "The key becoming a string or a set keeps the client blocked" {
        r del k
        set rd [redis_deferring_client]
        $rd blpop k 0
        $rd flush
        wait_for_blocked_clients 1
        r set k str
        r del k
        r sadd k member
        r del k
        r set k str2
        assert_equal 1 [s blocked_clients]
        assert_equal 0 [$rd ready]
        r del k
        r rpush k v
        assert_equal {k v} [$rd read]
        $rd close
    }

    test "A list renamed onto the key serves the client" {
        r del k other
        set rd [redis_deferring_client]
        $rd brpop k 0
        $rd flush
        wait_for_blocked_clients 1
        r rpush other a b
        r rename other k
        assert_equal {k b} [$rd read]
        assert_equal {a} [r lrange k 0 -1]
        $rd close
    }

    test "A list moved into the client's database serves it" {
        r select 1
        r del k
        r rpush k moved
        r select 0
        r del k
        set rd [redis_deferring_client]
        $rd blpop k 0
        $rd flush
        wait_for_blocked_clients 1
        r select 1
        r move k 0
        r select 0
        assert_equal {k moved} [$rd read]
        $rd close
    }

    test "BLMOVE whose destination became a string gets WRONGTYPE, the source keeps the element" {
        r del src dst
        set rd [redis_deferring_client]
        $rd blmove src dst left left 0
        $rd flush
        wait_for_blocked_clients 1
        r set dst str
        r rpush src v
        assert_error "WRONGTYPE*" {$rd read}
        wait_for_blocked_clients 0
        assert_equal {v} [r lrange src 0 -1]
        $rd close
    }

    test "Pipelined commands behind a blocked one run after it is served" {
        r del p
        set rd [redis_deferring_client]
        $rd blpop p 0
        $rd ping
        $rd rpush p2 after
        $rd flush
        wait_for_blocked_clients 1
        r rpush p v
        assert_equal {p v} [$rd read]
        assert_equal PONG [$rd read]
        assert_equal 1 [$rd read]
        $rd close
        r del p2
    }

    test "Pipelined commands behind a timed-out one run after the timeout" {
        set rd [redis_deferring_client]
        $rd blpop none 0.05
        $rd echo next
        $rd flush
        assert_equal {} [$rd read]
        assert_equal next [$rd read]
        $rd close
    }

    test "A pipelined push behind a blocked command serves other clients" {
        r del x y
        set waiter [redis_deferring_client]
        $waiter blpop y 0
        $waiter flush
        wait_for_blocked_clients 1
        set rd [redis_deferring_client]
        $rd blpop x 0
        $rd rpush y from-pipeline
        $rd flush
        wait_for_blocked_clients 2
        r rpush x go
        assert_equal {x go} [$rd read]
        assert_equal 1 [$rd read]
        assert_equal {y from-pipeline} [$waiter read]
        wait_for_blocked_clients 0
        $rd close
        $waiter close
    }

    test "Inside MULTI the blocking commands do not block" {
        r del none
        r multi
        r blpop none 0
        r brpop none 10
        r blmove none d left left 0
        r brpoplpush none d 0
        r blmpop 0 1 none left
        set res [r exec]
        assert_equal {{} {} {} {} {}} $res
        assert_equal 0 [s blocked_clients]
    }

    test "Inside MULTI a list pushed earlier in the transaction is served" {
        r del m
        r multi
        r rpush m a b
        r blpop m 0
        r blmove m m2 left left 0
        set res [r exec]
        assert_equal {2 {m a} b} $res
        r del m2
    }

    test "A push inside MULTI serves blocked clients after EXEC" {
        r del q
        set rd [redis_deferring_client]
        $rd blpop q 0
        $rd flush
        wait_for_blocked_clients 1
        r multi
        r rpush q 1
        r rpush q 2
        r exec
        assert_equal {q 1} [$rd read]
        assert_equal {2} [r lrange q 0 -1]
        $rd close
    }

    test "RESP3 clients get the same served replies" {
        r del r3
        set rd [redis_deferring_client]
        $rd hello 3
        $rd flush
        $rd read
        $rd blmpop 0 1 r3 left count 2
        $rd flush
        wait_for_blocked_clients 1
        r rpush r3 a b c
        assert_equal {r3 {a b}} [$rd read]
        $rd close
    }

    test "INFO blocked_clients and CLIENT LIST flag b" {
        r del none
        set rd [redis_deferring_client]
        $rd client setname waiter
        $rd flush
        $rd read
        $rd blpop none 0
        $rd flush
        wait_for_blocked_clients 1
        set line [lsearch -inline [split [r client list] \n] "*name=waiter*"]
        assert_match "*flags=b*" $line
        r rpush none v
        assert_equal {none v} [$rd read]
        wait_for_blocked_clients 0
        $rd close
    }
}

start_server {tags {list blocking}} {
    test "SWAPDB serves a client blocked on a key that the swap brings in" {
        regexp {db=(\d+)} [r client info] -> db
        set other [expr {$db == 9 ? 10 : 9}]
        r select $other
        r rpush swapped hello
        r select $db
        r del swapped
        set rd [rd]
        $rd select $db
        $rd read
        $rd blpop swapped 0
        wait_for_blocked_clients 1
        r swapdb $db $other
        assert_equal {swapped hello} [$rd read]
        $rd close
        r swapdb $db $other
    }
}

start_server {tags {list blocking aof} overrides {appendonly yes appendfsync always aof-use-rdb-preamble no}} {
    test "A key that expired inside the MULTI that made it ready: deleted and DEL propagated after EXEC, the waiter stays blocked" {
        r debug set-active-expire 0
        r del k
        set rd [rd]
        $rd client id
        set id [$rd read]
        $rd brpop k 0
        wait_for_blocked_clients 1
        set written [aof_commands_written {
            r multi
            r rpush k hello
            r pexpire k 100
            r debug sleep 0.2
            r exec
        }]
        assert_equal {MULTI {rpush k hello} PEXPIREAT EXEC {DEL k}} [lreplace $written 2 2 [lindex $written 2 0]]
        assert_match "*flags=b*" [r client list id $id]
        assert_equal 0 [r exists k]
        r client unblock $id
        assert_equal {} [$rd read]
        $rd close
        r debug set-active-expire 1
    } {needs:debug}
}
