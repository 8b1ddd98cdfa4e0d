# notify.tcl -- keyspace notifications: the K/E channels, every class flag
# of notify-keyspace-events (K E g $ l s h z x e m n A), and the events of
# commands, expiry and eviction.
#
# Design decisions:
# - One pattern subscriber (`__key*__:*`) sees both channel kinds. Each test
#   ends by switching string events on and writing a marker key, so "no
#   event was sent" is proven by the marker arriving next, never by waiting.
# - The database number in channel names is read from CLIENT INFO, so the
#   tests do not depend on which database the harness selects.

proc current_db {} {
    regexp {db=(\d+)} [r client info] -> db
    return $db
}

proc start_listener {} {
    set rd [rd]
    $rd psubscribe __key*__:*
    $rd read
    return $rd
}

# The next notification as "keyspace|keyevent <what> <payload>", e.g.
# "keyspace foo set" or "keyevent set foo".
proc next_event {rd} {
    set frame [$rd read]
    set channel [lindex $frame 2]
    set payload [lindex $frame 3]
    regexp {^__(keyspace|keyevent)@\d+__:(.*)$} $channel -> kind what
    return [list $kind $what $payload]
}

proc events_until_marker {rd} {
    r config set notify-keyspace-events KE$
    r set __marker__ 1
    set events {}
    for {set i 0} {$i < 50} {incr i} {
        set ev [next_event $rd]
        if {[lindex $ev 1] eq "__marker__" || [lindex $ev 2] eq "__marker__"} {
            return $events
        }
        lappend events $ev
    }
    fail "marker never arrived"
}

proc with_events {flags body} {
    r config set notify-keyspace-events $flags
    set rd [start_listener]
    uplevel 1 $body
    set events [events_until_marker $rd]
    $rd close
    r config set notify-keyspace-events ""
    return $events
}

start_server {tags {notify}} {
    test "Notifications are off by default" {
        assert_equal {} [lindex [r config get notify-keyspace-events] 1]
        set rd [start_listener]
        r set foo bar
        r config set notify-keyspace-events KE$
        r set __marker__ 1
        assert_equal {keyspace __marker__ set} [next_event $rd]
        $rd close
        r config set notify-keyspace-events ""
    }

    test "KEA: a SET sends the keyspace and the keyevent message" {
        set events [with_events KEA { r set foo bar }]
        assert_equal {{keyspace foo set} {keyevent set foo}} $events
    }

    test "Channel names carry the database number" {
        r config set notify-keyspace-events KEA
        set rd [start_listener]
        r set foo bar
        set frame [$rd read]
        assert_equal "__keyspace@[current_db]__:foo" [lindex $frame 2]
        set frame [$rd read]
        assert_equal "__keyevent@[current_db]__:set" [lindex $frame 2]
        $rd close
        r config set notify-keyspace-events ""
    }

    test "K alone sends only keyspace messages, E alone only keyevent messages" {
        assert_equal {{keyspace foo set}} [with_events K$ { r set foo bar }]
        set events [with_events E$ { r set foo bar }]
        assert_equal {keyevent set foo} [lindex $events 0]
        assert_equal 1 [llength $events]
    }

    test "A class letter without K or E sends nothing" {
        r config set notify-keyspace-events g$
        set rd [start_listener]
        r set foo bar
        r config set notify-keyspace-events K$
        r set __marker__ 1
        assert_equal {keyspace __marker__ set} [next_event $rd]
        $rd close
        r config set notify-keyspace-events ""
    }

    test "Classes filter events: \$ without g hides DEL" {
        r set foo bar
        set events [with_events K$ { r del foo; r set foo2 x }]
        assert_equal {{keyspace foo2 set}} $events
    }

    test "g: generic commands" {
        r del a b c
        r set a 1
        set events [with_events Kg {
            r expire a 100
            r persist a
            r rename a b
            r copy b c
            r del c
        }]
        assert_equal {{keyspace a expire} {keyspace a persist} {keyspace a rename_from} {keyspace b rename_to} {keyspace c copy_to} {keyspace c del}} $events
    }

    test "g: MOVE sends move_from and move_to" {
        r flushall
        r set m 1
        set events [with_events Eg { r move m 3 }]
        assert_equal {{keyevent move_from m} {keyevent move_to m}} $events
        r select 3
        r del m
        r select [expr {[current_db] == 3 ? 9 : [current_db]}]
    }

    test "\$: string commands" {
        r del s
        set events [with_events E$ {
            r set s 1
            r incr s
            r incrby s 5
            r incrbyfloat s 1.5
            r append s x
            r setrange s 0 y
        }]
        assert_equal {set incrby incrby incrbyfloat append setrange} [lmap e $events {lindex $e 1}]
    }

    test "x: expired keys send expired" {
        r del e
        set events [with_events Ex {
            r set e 1 px 5
            wait_for_condition 100 10 {[r exists e] == 0} else { fail "not expired" }
        }]
        assert_equal {{keyevent expired e}} $events
    }

    test "e: evicted keys send evicted" {
        r flushall
        r config set maxmemory-policy allkeys-random
        for {set i 0} {$i < 200} {incr i} { r set key:$i [string repeat x 1000] }
        set used [s used_memory]
        r config set notify-keyspace-events Ee
        set rd [start_listener]
        r config set maxmemory [expr {$used - 100000}]
        r set trigger 1
        set ev [next_event $rd]
        assert_equal {keyevent evicted} [lrange $ev 0 1]
        r config set maxmemory 0
        r config set maxmemory-policy noeviction
        $rd close
        r config set notify-keyspace-events ""
        r flushall
    }

    test "m: key misses send keymiss, and only when asked for" {
        r del missing
        set events [with_events Em { r get missing }]
        assert_equal {{keyevent keymiss missing}} $events
        set events [with_events EA { r get missing }]
        assert_equal {} [lsearch -all -inline $events *keymiss*]
    }

    test "n: new keys send new, and A does not include it" {
        r del fresh
        set events [with_events En { r set fresh 1; r set fresh 2 }]
        assert_equal {{keyevent new fresh}} $events
        r del fresh
        set events [with_events EA { r set fresh 1 }]
        assert_equal {} [lsearch -all -inline $events *new*]
    }

    test "l: list events" {
        r del l
        set events [with_events El { r lpush l a b; r rpush l c; r lpop l; r rpop l 2 }]
        assert_equal {lpush rpush lpop rpop} [lmap e $events {lindex $e 1}]
        assert_equal 0 [r exists l]
    }

    test "The last element going sends del" {
        r del l
        r rpush l a
        set events [with_events Egl { r lpop l }]
        assert_equal {{keyevent lpop l} {keyevent del l}} $events
    }

    test "h: hash events" {
        r del h
        set events [with_events Eh { r hset h f v; r hincrby h n 1; r hdel h f }]
        assert_equal {hset hincrby hdel} [lmap e $events {lindex $e 1}]
    }

    test "s: set events" {
        r del st
        set events [with_events Es { r sadd st a b; r srem st a }]
        assert_equal {sadd srem} [lmap e $events {lindex $e 1}]
    }

    test "z: sorted set events" {
        r del z
        set events [with_events Ez { r zadd z 1 a; r zincrby z 2 a; r zrem z a }]
        assert_equal {zadd zincr zrem} [lmap e $events {lindex $e 1}]
    }

    test "CONFIG GET shows the flags in canonical order" {
        r config set notify-keyspace-events EKg
        assert_equal gKE [lindex [r config get notify-keyspace-events] 1]
        r config set notify-keyspace-events ""
    }
}
