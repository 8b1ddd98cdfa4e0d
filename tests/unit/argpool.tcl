# argpool.tcl -- command arguments recycled from one command to the next
# (src/argpool.c): every value must come out exactly as it went in, whatever
# lengths follow each other on a connection; an argument some structure kept
# (a subscription, a WATCH, a blocked client's key) must never be reused;
# spare objects are capped per client and given back once it is quiet.
#
# Design decisions:
# - DEBUG ARGPOOL tells how many spares the calling connection holds, not
#   counting the two objects of the DEBUG command itself, so counts are
#   exact without guessing at memory figures.
# - Lengths cross the embstr limit (44 bytes) both ways and include empty,
#   binary and integer-looking values: each is a different path (reused
#   block, raw string, integer re-encoded in place).

# A value of LEN bytes that differs with SEED, with a NUL and a CRLF in it
# once it is long enough.
proc argpool_value {len seed} {
    set v ""
    for {set i 0} {[string length $v] < $len} {incr i} {
        append v [format %c [expr {33 + ($seed * 7 + $i * 13) % 90}]]
    }
    if {$len >= 6} { set v [string replace $v 2 4 "\x00\r\n"] }
    return $v
}

start_server {tags {argpool}} {
    test "Values of every length survive a pipeline of reused arguments" {
        set c [redis_deferring_client]
        set lengths {0 1 2 3 10 20 31 32 43 44 45 46 60 100 44 0 45 1 44}
        set n 0
        foreach len $lengths {
            $c set [argpool_value [expr {($n % 40) + 1}] $n] [argpool_value $len $n]
            incr n
        }
        for {set j 0} {$j < $n} {incr j} { assert_equal OK [$c read] }
        set n 0
        foreach len $lengths {
            assert_equal [argpool_value $len $n] [r get [argpool_value [expr {($n % 40) + 1}] $n]]
            incr n
        }
        $c close
    }

    test "MSET then MGET with arguments of mixed lengths, many times over" {
        set c [redis_deferring_client]
        for {set round 0} {$round < 20} {incr round} {
            set args {}
            set keys {}
            for {set j 0} {$j < 10} {incr j} {
                set k "ap:$j"
                lappend keys $k
                lappend args $k [argpool_value [expr {($round * 7 + $j * 11) % 70}] [expr {$round + $j}]]
            }
            $c mset {*}$args
            $c mget {*}$keys
        }
        for {set round 0} {$round < 20} {incr round} {
            assert_equal OK [$c read]
            set expect {}
            for {set j 0} {$j < 10} {incr j} {
                lappend expect [argpool_value [expr {($round * 7 + $j * 11) % 70}] [expr {$round + $j}]]
            }
            assert_equal $expect [$c read]
        }
        $c close
    }

    test "Integer-looking values and counters are kept exactly" {
        r set ap:int 12345
        r set ap:neg -99
        r set ap:big 123456789012345678
        r incrby ap:int 5
        for {set j 0} {$j < 30} {incr j} { r set ap:other [argpool_value 40 $j] }
        assert_equal 12350 [r get ap:int]
        assert_equal -99 [r get ap:neg]
        assert_equal 123456789012345678 [r get ap:big]
        assert_equal int [r object encoding ap:int]
    }

    test "A channel name kept by a subscription is not reused" {
        set sub [redis_client]
        $sub hello 3
        assert_equal {subscribe chan-one-42 1} [$sub subscribe chan-one-42]
        for {set j 0} {$j < 30} {incr j} {
            set v [argpool_value 11 $j]
            assert_equal $v [$sub ping $v]
        }
        assert_equal 1 [r publish chan-one-42 hello]
        assert_equal {message chan-one-42 hello} [$sub read]
        assert_equal {chan-one-42} [r pubsub channels chan-*]
        $sub close
    }

    test "A WATCHed key is not reused by the next commands" {
        set c [redis_client]
        $c watch ap:watched
        for {set j 0} {$j < 30} {incr j} { $c set [argpool_value 10 $j] x }
        r set ap:watched changed
        $c multi
        $c set ap:watched mine
        assert_equal {} [$c exec]
        assert_equal changed [r get ap:watched]
        $c close
    }

    test "A blocked client's key is not reused" {
        set c [redis_deferring_client]
        $c blpop ap:list 0
        wait_for_blocked_clients 1
        for {set j 0} {$j < 30} {incr j} { r set [argpool_value 7 $j] x }
        r rpush ap:list v
        assert_equal {ap:list v} [$c read]
        $c close
    }

    test "A client name kept from arguments is not reused" {
        set c [redis_client]
        $c client setname argpool-name
        for {set j 0} {$j < 30} {incr j} { $c set [argpool_value 12 $j] [argpool_value 10 $j] }
        assert_equal argpool-name [$c client getname]
        assert_match "*name=argpool-name *" [$c client info]
        $c close
    }

    test "MULTI queues keep their arguments until EXEC" {
        set c [redis_client]
        $c multi
        for {set j 0} {$j < 5} {incr j} { assert_equal QUEUED [$c set ap:m$j [argpool_value 30 $j]] }
        assert_equal {OK OK OK OK OK} [$c exec]
        for {set j 0} {$j < 5} {incr j} { assert_equal [argpool_value 30 $j] [r get ap:m$j] }
        $c close
    }

    test "DEBUG ARGPOOL counts the spares of a connection, capped" {
        set c [redis_client]
        assert_equal 0 [$c debug argpool]
        $c mset a x1 b x2 c x3
        # MSET's 7 arguments wait as spares; DEBUG ARGPOOL took 2 of them
        assert_equal 5 [$c debug argpool]
        set args {}
        for {set j 0} {$j < 100} {incr j} { lappend args k$j v$j }
        $c mset {*}$args
        assert_equal 22 [$c debug argpool]
        # long arguments are not pooled, nor values re-encoded as shared
        # integers: they are released as they are
        $c set [string repeat k 50] [string repeat v 50]
        assert_equal 22 [$c debug argpool]
        # the blocks of "1" and "2" go when the values become shared integers
        $c mset n1 1 n2 2
        assert_equal 20 [$c debug argpool]
        assert_error "*wrong number of arguments*" {$c debug argpool extra}
        $c close
    }

    test "A quiet connection gives its spares back" {
        set c [redis_client]
        $c mset a x1 b x2 c x3 d x4
        assert_equal 7 [$c debug argpool]
        # freed by clientsCron after 2 s without traffic
        after 3500
        assert_equal 0 [$c debug argpool]
        $c close
    }
}
