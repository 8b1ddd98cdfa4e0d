# harness.tcl -- a self-test of the test harness against the server under
# test: the RESP client (binary data, pipelining, errors, RESP3, readraw,
# timeouts, unix sockets), start_server nesting and srv, restarts, the
# detection of a dying server, wait_for_condition, skips and tags.
#
# It needs PING, SET, GET, DEL, INCR, INCRBY, HELLO and INFO; tests that also
# need RPUSH/LRANGE, BLPOP or MULTI/EXEC are skipped, with the reason, by a
# server that does not have them yet.

# Skips the running test when the server does not know one of COMMANDS yet:
# called without arguments a known command answers "wrong number of
# arguments" (or, for EXEC, "without MULTI"), an unknown one "unknown command".
proc require_commands {args} {
    foreach name $args {
        set probe [expr {$name eq "multi" ? {multi extra-argument} : $name}]
        if {[catch {r {*}$probe} err] && [string match -nocase "*unknown command*" $err]} {
            skip "the server has no [string toupper $name] command yet"
        }
    }
}

start_server {tags {harness}} {
    test "PING answers PONG" {
        assert_equal PONG [r ping]
    }

    test "SET/GET round trip of all 256 byte values" {
        set bytes ""
        for {set i 0} {$i < 256} {incr i} { append bytes [format %c $i] }
        assert_equal OK [r set binary $bytes]
        set back [r get binary]
        assert_equal 256 [string length $back]
        assert_equal $bytes $back
        # The same bytes as a key, and CRLF/NUL inside a value.
        r set $bytes "v\r\n\x00\r\n"
        assert_equal "v\r\n\x00\r\n" [r get $bytes]
        assert_equal 1 [r del $bytes]
    }

    test "Characters above U+00FF are sent as UTF-8" {
        r set unicode "\u00e9\u4e2d"
        assert_equal [encoding convertto utf-8 "\u00e9\u4e2d"] [r get unicode]
        assert_equal 5 [string length [r get unicode]]
    }

    test "A missing key reads as the empty string; integer replies" {
        r del nokey
        assert_equal {} [r get nokey]
        assert_equal 0 [r del nokey]
        assert_equal 1 [r incr counter]
        assert_equal -5 [r incrby counter -6]
    }

    test "Array replies, with empty and spaced elements" {
        require_commands rpush lrange
        r del list
        assert_equal 3 [r rpush list a "b c" ""]
        assert_equal [list a "b c" ""] [r lrange list 0 -1]
        assert_equal {} [r lrange no-such-list 0 -1]
    }

    test "A pipeline of 1000 commands through a deferring client" {
        r del pipelined
        set rd [redis_deferring_client]
        for {set i 1} {$i <= 1000} {incr i} { $rd incr pipelined }
        $rd flush
        for {set i 1} {$i <= 1000} {incr i} {
            set reply [$rd read]
            if {$reply != $i} { fail "reply $i of the pipeline was '$reply'" }
        }
        $rd close
        assert_equal 1000 [r get pipelined]
    }

    test "An error reply is caught by assert_error" {
        assert_error "ERR unknown command*" {r no-such-command}
        assert_error "ERR wrong number of arguments*" {r get}
        r set str foo
        assert_error "ERR value is not an integer*" {r incr str}
        # assert_error itself fails when there is no error, or the wrong one.
        assert_equal 1 [catch {assert_error "*" {r ping}} msg opts]
        assert_match "*expected an error*returned 'PONG'*" $msg
        assert_equal {HARNESS ASSERT} [dict get $opts -errorcode]
        assert_equal 1 [catch {assert_error "NOPE*" {r incr str}} msg]
        assert_match "*got 'ERR value is not an integer*" $msg
        assert_equal PONG [r ping]
    }

    test "An error nested in EXEC is raised after the whole reply is read" {
        require_commands multi exec
        r del a
        r set str foo
        r multi
        r set a 1
        r incr str
        r get a
        assert_equal 1 [catch {r exec} msg opts]
        assert_match "ERR value is not an integer*" $msg
        set reply [lindex [dict get $opts -errorcode] 2]
        assert_equal 3 [llength $reply]
        assert_equal OK [lindex $reply 0]
        assert_equal 1 [lindex $reply 2]
        assert_equal PONG [r ping]
    }

    test "Assertion failures say what and where" {
        assert_equal 1 [catch {assert_equal expected actual} msg opts]
        assert_equal "expected 'actual' to equal 'expected'" $msg
        # (A distinct literal: Tcl shares identical ones, and their lines.)
        set line [lindex [::harness::frame_location [info frame 0]] 1]
        assert_equal 1 [catch {assert_equal "expected" "actual"} msg opts]
        assert_match "at tests/unit/harness.tcl:*: assert_equal 1 ?catch {assert_equal \"expected\" \"actual\"} msg opts?" \
            $::harness::failure_location
        assert_equal [expr {$line + 1}] [lindex [split $::harness::failure_location :] 1]
        set x 5
        assert_equal 1 [catch {assert {$x > 10}} msg]
        assert_match "*\$x > 10 (with values: 5 > 10)" $msg
        assert_equal 1 [catch {assert_range 11 1 10} msg]
        assert_equal 1 [catch {assert_match "a*" "ba"} msg]
        assert_equal 0 [catch {assert_range 5 1 10}]
    }

    test "HELLO 3 returns a map, read as a flat key/value list" {
        set c [redis_client]
        set reply [$c hello 3]
        assert_equal 0 [expr {[llength $reply] % 2}]
        assert_equal 3 [dict get $reply proto]
        assert [dict exists $reply version]
        # RESP3 null, and a RESP3 map from a plain command.
        assert_equal {} [$c get no-such-key]
        $c set k v
        assert_equal v [$c get k]
        $c close
    }

    test "readraw mode returns protocol lines" {
        set c [redis_client]
        $c readraw 1
        assert_equal "+OK" [$c set raw foo]
        assert_equal {$3} [$c get raw]
        assert_equal foo [$c read]
        assert_equal {$-1} [$c get no-such-key]
        assert_match "-ERR*" [$c no-such-command]
        assert_equal ":1" [$c del raw]
        $c write "*1\r\n\$4\r\nPING\r\n"
        $c flush
        assert_equal "+PONG" [$c read]
        $c write "PING\r\n"
        $c flush
        assert_equal "+PONG" [$c read]
        $c close
    }

    test "A deferring client reads replies of a blocked command" {
        require_commands blpop rpush
        r del queue
        set rd [redis_deferring_client]
        $rd blpop queue 0
        wait_for_blocked_clients 1
        assert_equal 0 [$rd ready]
        r rpush queue hello
        wait_for_condition 50 20 {[$rd ready]} else { fail "no reply arrived" }
        assert_equal {queue hello} [$rd read]
        $rd close
    }

    test "A read times out with a clear error instead of hanging" {
        set rd [redis_deferring_client]
        $rd read_timeout 0.2
        set start [clock milliseconds]
        assert_equal 1 [catch {$rd read} msg opts]
        assert_match "read timeout*" $msg
        assert_equal {RESP TIMEOUT} [dict get $opts -errorcode]
        assert_range [expr {[clock milliseconds] - $start}] 150 5000
        # The connection is still usable afterwards.
        $rd ping
        assert_equal PONG [$rd read]
        $rd close
    }

    test "blocking 0 makes read return at once" {
        set rd [redis_deferring_client]
        $rd blocking 0
        assert_equal 1 [catch {$rd read} msg opts]
        assert_equal {RESP NOTREADY} [dict get $opts -errorcode]
        $rd ping
        wait_for_condition 50 20 {[$rd ready]} else { fail "no PONG" }
        assert_equal PONG [$rd read]
        $rd close
    }

    test "wait_for_condition returns once the condition holds" {
        set n 0
        wait_for_condition 50 10 {[incr n] >= 5} else { fail "gave up after $n tries" }
        assert_equal 5 $n
    }

    test "wait_for_condition runs its else script when the condition never holds" {
        set start [clock milliseconds]
        assert_equal 1 [catch {
            wait_for_condition 5 10 {[r get no-such-key] eq "x"} else { fail "gave up" }
        } msg opts]
        assert_equal "gave up" $msg
        assert_equal {HARNESS ASSERT} [dict get $opts -errorcode]
        assert_morethan [expr {[clock milliseconds] - $start}] 40
    }

    set ::skipped_before $::harness::counts(skipped)
    test "skip inside a test (this one is reported as skipped)" {
        skip "demonstrating skip"
        fail "not reached"
    }
    # A tag excluded on the command line skips the test without running it.
    set saved_tags $::harness::opt(tags)
    set ::harness::opt(tags) [concat $saved_tags -selftest-excluded]
    test "an excluded tag skips this test (reported as skipped)" {
        fail "a test with an excluded tag ran"
    } {selftest-excluded}
    tags {selftest-excluded} {
        test "an excluded tag of a tags block skips this test too" {
            fail "a test inside an excluded tags block ran"
        }
    }
    start_server {tags {selftest-excluded}} {
        fail "a start_server block with an excluded tag ran"
    }
    set ::harness::opt(tags) $saved_tags

    test "skips were counted" {
        assert_equal 4 [expr {$::harness::counts(skipped) - $::skipped_before}]
    }

    test "srv describes the server" {
        assert_equal 127.0.0.1 [srv host]
        assert_range [srv port] 1 65535
        assert [::harness::pid_alive [srv pid]]
        assert [file exists [srv stdout]]
        assert_equal [srv port] [srv 0 port]
        assert_match "*redis_version:*" [r info server]
        assert_equal [srv pid] [s process_id]
    } {external:skip}

    start_server {tags {external:skip}} {
        test "Nested start_server: two servers, r and r -1" {
            assert_not_equal [srv 0 port] [srv -1 port]
            assert_not_equal [srv 0 pid] [srv -1 pid]
            r set where inner
            r -1 set where outer
            assert_equal inner [r get where]
            assert_equal outer [r -1 get where]
            set rd [redis_deferring_client -1]
            $rd get where
            assert_equal outer [$rd read]
            $rd close
        }
    }

    test "The inner server was stopped at the end of its block" {
        assert_equal 1 [llength $::harness::stack]
        assert_equal PONG [r ping]
    }
}

start_server {tags {harness unixsocket} unixsocket 1} {
    test "A client over the unix socket" {
        set c [redis_client -unix 1]
        assert_equal PONG [$c ping]
        set bytes ""
        for {set i 0} {$i < 256} {incr i} { append bytes [format %c $i] }
        $c set unix-binary $bytes
        assert_equal $bytes [r get unix-binary]
        $c close
    }
}

start_server {tags {harness needs:restart} overrides {appendonly no}} {
    test "restart_server keeps the port and starts a new process" {
        set port [srv port]
        set old_pid [srv pid]
        restart_server
        assert_equal $port [srv port]
        assert_not_equal $old_pid [srv pid]
        assert_equal PONG [r ping]
    }

    start_server {} {
        test "A server killed by a signal is reported, with its crash report state" {
            set pid [srv pid]
            ::harness::send_signal SEGV $pid
            ::harness::wait_pid_exit $pid 5000
            set report [::harness::dead_servers_report]
            assert_match "*pid $pid*died unexpectedly: killed by SIGSEGV*" $report
            assert_match "*crash report in the log: *" $report
            # Only the newly dead server is reported, and only once.
            assert_equal "" [::harness::dead_servers_report]
        }
    }
}
