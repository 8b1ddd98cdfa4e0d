# pubsub.tcl -- Pub/Sub: SUBSCRIBE/UNSUBSCRIBE, PSUBSCRIBE/PUNSUBSCRIBE with
# glob patterns, SSUBSCRIBE/SUNSUBSCRIBE/SPUBLISH, PUBLISH receiver counts,
# PUBSUB introspection, the RESP2 subscribed-mode restrictions, RESP3 push
# messages, clean-up on disconnect, and a slow subscriber cut by the pubsub
# output buffer limit without hurting the others.
#
# Design decisions:
# - Subscribers are deferring clients: each (un)subscribe confirmation and
#   each message is read with `$rd read`, so the tests see every frame in
#   order, as a real subscriber does.
# - "Nothing arrived" is checked by publishing a marker afterwards and
#   asserting that the marker is the next frame, never by waiting.

proc subscribe_to {rd command names} {
    $rd $command {*}$names
    set counts {}
    foreach name $names { lappend counts [lindex [$rd read] 2] }
    return $counts
}

# Closes the given clients and waits until the server has let them go, so
# the next test starts with no leftover subscriptions.
proc close_clients {args} {
    foreach c $args { catch {$c close} }
    wait_for_condition 250 20 {[s connected_clients] == 1} else { fail "clients still connected" }
}

proc unsubscribe_from {rd command names} {
    $rd $command {*}$names
    set counts {}
    foreach name $names { lappend counts [lindex [$rd read] 2] }
    return $counts
}

start_server {tags {pubsub}} {
    # ---- channels -----------------------------------------------------------------------

    test "SUBSCRIBE confirms each channel with the running count" {
        set rd [rd]
        assert_equal {1 2 3} [subscribe_to $rd subscribe {a b c}]
        assert_equal {2 1 0} [unsubscribe_from $rd unsubscribe {a b c}]
        close_clients $rd
    }

    test "PUBLISH reaches every subscriber and returns the receiver count" {
        set s1 [rd]
        set s2 [rd]
        subscribe_to $s1 subscribe {news}
        subscribe_to $s2 subscribe {news other}
        assert_equal 2 [r publish news hello]
        assert_equal {message news hello} [$s1 read]
        assert_equal {message news hello} [$s2 read]
        assert_equal 1 [r publish other x]
        assert_equal {message other x} [$s2 read]
        assert_equal 0 [r publish nobody x]
        close_clients $s1 $s2
    }

    test "PUBLISH is binary safe" {
        set s [rd]
        subscribe_to $s subscribe [list "ch\x00an"]
        assert_equal 1 [r publish "ch\x00an" "a\r\nb\x00c"]
        assert_equal [list message "ch\x00an" "a\r\nb\x00c"] [$s read]
        close_clients $s
    }

    test "Subscribing twice to a channel counts once" {
        set s [rd]
        assert_equal {1 1} [subscribe_to $s subscribe {dup dup}]
        assert_equal 1 [r publish dup x]
        assert_equal {message dup x} [$s read]
        close_clients $s
    }

    test "UNSUBSCRIBE without arguments leaves every channel" {
        set s [rd]
        subscribe_to $s subscribe {a b}
        $s unsubscribe
        set got [list [$s read] [$s read]]
        assert_equal {unsubscribe unsubscribe} [list [lindex $got 0 0] [lindex $got 1 0]]
        assert_equal {a b} [lsort [list [lindex $got 0 1] [lindex $got 1 1]]]
        assert_equal 0 [lindex $got 1 2]
        assert_equal 0 [r publish a x]
        close_clients $s
    }

    test "UNSUBSCRIBE with nothing subscribed replies with a null channel" {
        set s [rd]
        $s unsubscribe
        assert_equal {unsubscribe {} 0} [$s read]
        $s punsubscribe
        assert_equal {punsubscribe {} 0} [$s read]
        $s sunsubscribe
        assert_equal {sunsubscribe {} 0} [$s read]
        close_clients $s
    }

    test "UNSUBSCRIBE of a channel never subscribed still confirms it" {
        set s [rd]
        subscribe_to $s subscribe {a}
        $s unsubscribe zzz
        assert_equal {unsubscribe zzz 1} [$s read]
        close_clients $s
    }

    # ---- patterns -----------------------------------------------------------------------

    test "PSUBSCRIBE delivers pmessage with the pattern and the channel" {
        set s [rd]
        assert_equal {1 2} [subscribe_to $s psubscribe {news.* h?llo}]
        assert_equal 1 [r publish news.tech x]
        assert_equal {pmessage news.* news.tech x} [$s read]
        assert_equal 1 [r publish hallo y]
        assert_equal {pmessage h?llo hallo y} [$s read]
        assert_equal 0 [r publish hllo y]
        assert_equal 0 [r publish news z]
        close_clients $s
    }

    test "PSUBSCRIBE glob classes and escapes" {
        set s [rd]
        subscribe_to $s psubscribe {{c[ab]t} {x\*y} {[^z]z}}
        assert_equal 1 [r publish cat 1]
        assert_equal [list pmessage {c[ab]t} cat 1] [$s read]
        assert_equal 0 [r publish cct 2]
        assert_equal 1 [r publish {x*y} 3]
        assert_equal {pmessage {x\*y} x*y 3} [$s read]
        assert_equal 0 [r publish xay 4]
        assert_equal 1 [r publish az 5]
        assert_equal [list pmessage {[^z]z} az 5] [$s read]
        assert_equal 0 [r publish zz 6]
        close_clients $s
    }

    test "A client subscribed by channel and pattern receives both messages" {
        set s [rd]
        subscribe_to $s subscribe {ch}
        assert_equal {2} [subscribe_to $s psubscribe {c*}]
        assert_equal 2 [r publish ch hi]
        set frames [list [$s read] [$s read]]
        assert_equal [lsort [list {message ch hi} {pmessage c* ch hi}]] [lsort $frames]
        close_clients $s
    }

    test "PUNSUBSCRIBE stops pattern deliveries" {
        set s [rd]
        subscribe_to $s psubscribe {p.* q.*}
        assert_equal {1} [unsubscribe_from $s punsubscribe {p.*}]
        assert_equal 0 [r publish p.x 1]
        assert_equal 1 [r publish q.x 2]
        assert_equal {pmessage q.* q.x 2} [$s read]
        close_clients $s
    }

    # ---- shard channels --------------------------------------------------------------------

    test "SSUBSCRIBE and SPUBLISH use their own namespace" {
        set s [rd]
        assert_equal {1 2} [subscribe_to $s ssubscribe {sa sb}]
        assert_equal 1 [r spublish sa hi]
        assert_equal {smessage sa hi} [$s read]
        assert_equal 0 [r publish sa plain]
        assert_equal 1 [r spublish sb marker]
        assert_equal {smessage sb marker} [$s read]
        assert_equal {1 0} [unsubscribe_from $s sunsubscribe {sa sb}]
        close_clients $s
    }

    test "Shard subscriptions are counted apart from channels and patterns" {
        set s [rd]
        subscribe_to $s subscribe {c1}
        assert_equal {1} [subscribe_to $s ssubscribe {s1}]
        assert_equal {2} [subscribe_to $s psubscribe {p*}]
        close_clients $s
    }

    # ---- PUBSUB ------------------------------------------------------------------------------

    test "PUBSUB CHANNELS, NUMSUB and NUMPAT" {
        set s1 [rd]
        set s2 [rd]
        subscribe_to $s1 subscribe {foo bar}
        subscribe_to $s2 subscribe {foo}
        subscribe_to $s2 psubscribe {x* y*}
        assert_equal {bar foo} [lsort [r pubsub channels]]
        assert_equal {foo} [r pubsub channels f*]
        assert_equal {foo 2 bar 1 none 0} [r pubsub numsub foo bar none]
        assert_equal {} [r pubsub numsub]
        assert_equal 2 [r pubsub numpat]
        close_clients $s1 $s2
        wait_for_condition 250 20 {[r pubsub numpat] == 0} else { fail "patterns not released" }
        assert_equal {} [r pubsub channels]
    }

    test "PUBSUB SHARDCHANNELS and SHARDNUMSUB" {
        set s [rd]
        subscribe_to $s ssubscribe {sh1 sh2}
        assert_equal {sh1 sh2} [lsort [r pubsub shardchannels]]
        assert_equal {sh2} [r pubsub shardchannels *2]
        assert_equal {sh1 1 nope 0} [r pubsub shardnumsub sh1 nope]
        assert_equal {} [r pubsub channels]
        close_clients $s
    }

    test "PUBSUB errors and HELP" {
        assert_error "ERR unknown subcommand 'FOO'. Try PUBSUB HELP." {r pubsub FOO}
        assert_error "ERR unknown subcommand or wrong number of arguments for 'CHANNELS'. Try PUBSUB HELP." \
            {r pubsub CHANNELS a b}
        assert_error "ERR wrong number of arguments for 'pubsub|numpat' command" {r pubsub numpat x}
        assert_error "ERR wrong number of arguments for 'pubsub' command" {r pubsub}
        assert_error "ERR wrong number of arguments for 'publish' command" {r publish x}
        assert_error "ERR wrong number of arguments for 'subscribe' command" {r subscribe}
        assert_match "*NUMPAT*" [r pubsub help]
    }

    test "INFO stats counts channels and patterns" {
        set s [rd]
        subscribe_to $s subscribe {i1 i2}
        subscribe_to $s psubscribe {i*}
        subscribe_to $s ssubscribe {i3}
        assert_equal 2 [s pubsub_channels]
        assert_equal 1 [s pubsub_patterns]
        assert_equal 1 [s pubsubshard_channels]
        close_clients $s
        wait_for_condition 250 20 {[s pubsub_channels] == 0} else { fail "channels not released" }
    }

    test "CLIENT LIST shows the subscriptions and the P flag" {
        set s [rd]
        $s client setname sub
        $s read
        subscribe_to $s subscribe {l1 l2}
        subscribe_to $s psubscribe {l*}
        subscribe_to $s ssubscribe {l3}
        set line [lsearch -inline [split [r client list] "\n"] "*name=sub *"]
        assert_match "*flags=P *sub=2 psub=1 ssub=1 *" [without_transport_flags $line]
        close_clients $s
    }

    # ---- subscribed mode ---------------------------------------------------------------------

    test "RESP2 subscribed mode refuses other commands with Redis's error" {
        set s [rd]
        subscribe_to $s subscribe {m}
        $s get foo
        assert_error "ERR Can't execute 'get': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context" {$s read}
        $s ping
        assert_equal {pong {}} [$s read]
        $s ping hello
        assert_equal {pong hello} [$s read]
        assert_equal 1 [r publish m after]
        assert_equal {message m after} [$s read]
        close_clients $s
    }

    test "Leaving the last subscription leaves subscribed mode" {
        set s [rd]
        subscribe_to $s subscribe {m}
        unsubscribe_from $s unsubscribe {m}
        $s set k v
        assert_equal OK [$s read]
        close_clients $s
    }

    test "RESP3: messages are push frames and other commands keep working" {
        set s [rd]
        $s hello 3
        $s read
        subscribe_to $s subscribe {r3}
        $s set k3 v
        assert_equal OK [$s read]
        assert_equal 1 [r publish r3 pushed]
        assert_equal {message r3 pushed} [$s read]
        $s ping
        assert_equal PONG [$s read]
        close_clients $s
    }

    test "RESP3 push framing on the wire" {
        set s [redis_client -readraw 1]
        $s hello 3
        # skip the HELLO map: read raw lines until the modules entry's array
        while {[$s read] ne "*0"} {}
        assert_equal ">3" [$s subscribe w]
        close_clients $s
    }

    # A message is encoded once per publish and its first byte set per
    # subscriber (issue #39): RESP2 and RESP3 subscribers of one channel, a
    # message short enough for the stack buffer and one that is not, a
    # pattern message, and an integer-encoded payload from a script.
    test "One message to RESP2 and RESP3 subscribers on the wire, short and long" {
        set s2 [redis_client -deferred 1 -readraw 1]
        set s3 [redis_client -deferred 1 -readraw 1]
        $s3 hello 3
        while {[$s3 read] ne "*0"} {}
        $s2 subscribe wire
        $s3 subscribe wire
        $s2 psubscribe wi*
        foreach line {*3 \$9 subscribe \$4 wire :1 *3 \$10 psubscribe \$3 wi* :2} { assert_equal $line [$s2 read] }
        foreach line {>3 \$9 subscribe \$4 wire :1} { assert_equal $line [$s3 read] }
        set long [string repeat x 300]
        foreach msg [list hi $long] {
            assert_equal 3 [r publish wire $msg]
            set n [string length $msg]
            foreach line [list *3 \$7 message \$4 wire \$$n $msg *4 \$8 pmessage \$3 wi* \$4 wire \$$n $msg] {
                assert_equal $line [$s2 read]
            }
            foreach line [list >3 \$7 message \$4 wire \$$n $msg] { assert_equal $line [$s3 read] }
        }
        assert_equal 3 [r eval {return redis.call('publish', 'wire', 12345)} 0]
        foreach line {*3 \$7 message \$4 wire \$5 12345} { assert_equal $line [$s2 read] }
        foreach line {>3 \$7 message \$4 wire \$5 12345} { assert_equal $line [$s3 read] }
        close_clients $s2 $s3
    }

    test "CLIENT REPLY OFF silences replies but not subscriptions and messages" {
        foreach proto {2 3} {
            set s [rd]
            $s hello $proto
            $s read
            $s client reply off
            $s subscribe q1
            assert_equal {subscribe q1 1} [$s read]
            $s psubscribe q*
            assert_equal {psubscribe q* 2} [$s read]
            if {$proto == 3} {
                # other commands stay silent
                $s ping
            }
            assert_equal 2 [r publish q1 hi]
            assert_equal {message q1 hi} [$s read]
            assert_equal {pmessage q* q1 hi} [$s read]
            $s unsubscribe q1
            assert_equal {unsubscribe q1 1} [$s read]
            $s punsubscribe
            assert_equal {punsubscribe q* 0} [$s read]
            close_clients $s
        }
    }

    test "A disconnected subscriber is forgotten" {
        set s [rd]
        subscribe_to $s subscribe {gone}
        subscribe_to $s psubscribe {gone*}
        close_clients $s
        wait_for_condition 250 20 {[r publish gone x] == 0} else { fail "subscriber still counted" }
        assert_equal {gone 0} [r pubsub numsub gone]
        assert_equal 0 [r pubsub numpat]
    }

    test "SUBSCRIBE inside MULTI takes effect at EXEC" {
        set s [rd]
        $s multi
        $s read
        $s subscribe tx
        assert_equal QUEUED [$s read]
        $s exec
        assert_equal {{subscribe tx 1}} [$s read]
        assert_equal 1 [r publish tx y]
        assert_equal {message tx y} [$s read]
        close_clients $s
    }

    # ---- slow subscribers ------------------------------------------------------------------

    test "A subscriber over the pubsub output buffer limit is cut, others go on" {
        r config set client-output-buffer-limit "pubsub 64kb 0 0"
        set slow [rd]
        set fine [rd]
        subscribe_to $slow subscribe {big}
        subscribe_to $fine subscribe {small}
        set payload [string repeat x 100000]
        r publish big $payload
        wait_for_condition 250 20 {[r pubsub numsub big] eq {big 0}} else {
            fail "slow subscriber not disconnected"
        }
        assert_equal 1 [r publish small ok]
        assert_equal {message small ok} [$fine read]
        r config set client-output-buffer-limit "pubsub 32mb 8mb 60"
        close_clients $fine $slow
    }
}
