# networking.tcl -- connections and their limits: the unix socket, many
# concurrent clients, maxclients, the idle timeout, the output buffer hard
# limit, the query buffer limit, clients that vanish mid-reply, protected
# mode, and CONFIG SET port / bind moving the listeners at run time.
#
# Design decisions:
# - Each limit gets its own server block with the directive in its config
#   file, so the tests do not depend on CONFIG SET.
# - "The server closed the connection" is observed from the client side
#   (end of file on read), never from CLIENT LIST or INFO, so these tests
#   only need the networking layer itself.
# - Protected mode needs an address that is not loopback; the test skips
#   itself when the machine has none.

# The server closed C: reading reports end of file or a reset.
proc assert_closed_by_server {c} {
    if {![catch {$c read} reply opts]} {
        fail "expected the server to close the connection, it replied '$reply'"
    }
    assert_match {RESP EOF} [lrange [dict get $opts -errorcode] 0 1] \
        "expected end of file, got '$reply'"
}

# Reads replies from C until the server closes it; returns how many there
# were (fails if the connection stays open for MAX replies).
proc count_replies_until_closed {c max} {
    for {set n 0} {$n < $max} {incr n} {
        if {[catch {$c read} reply opts]} {
            set code [lindex [dict get $opts -errorcode] 1]
            if {$code in {EOF IO}} { return $n }
            if {[lindex [dict get $opts -errorcode] 0] eq "REDIS"} { continue }
            return -options $opts $reply
        }
    }
    fail "the connection was still open after $max replies"
}

# True when C was closed by the server, without sending anything on it.
proc closed_by_server {c} {
    $c blocking 0
    set code [catch {$c read} reply opts]
    $c blocking 1
    if {$code == 0} { return 0 }
    return [expr {[lindex [dict get $opts -errorcode] 1] in {EOF IO}}]
}

# The largest output buffer (omem) among the clients in CLIENT LIST.
proc max_client_omem {} {
    set max 0
    foreach line [split [r client list] \n] {
        if {[regexp {omem=(\d+)} $line -> omem] && $omem > $max} { set max $omem }
    }
    return $max
}

# The first IPv4 address of this machine that is not loopback, or "".
proc external_ipv4 {} {
    foreach cmd {{hostname -I} {hostname -i}} {
        if {[catch {exec {*}$cmd 2>/dev/null} out]} { continue }
        foreach addr $out {
            if {[regexp {^\d+\.\d+\.\d+\.\d+$} $addr] && ![string match 127.* $addr]} {
                return $addr
            }
        }
    }
    return ""
}

start_server {tags {networking}} {
    test "100 concurrent clients each see their own replies" {
        set clients {}
        for {set i 0} {$i < 100} {incr i} { lappend clients [redis_deferring_client] }
        set i 0
        foreach c $clients {
            $c set client:$i $i
            $c incr client:$i
            $c get client:$i
            $c flush
            incr i
        }
        set i 0
        foreach c $clients {
            assert_equal OK [$c read]
            assert_equal [expr {$i + 1}] [$c read]
            assert_equal [expr {$i + 1}] [$c read]
            $c close
            incr i
        }
    }

    test "A client that disconnects with a big reply pending" {
        r set big [string repeat x 5000000]
        for {set i 0} {$i < 5} {incr i} {
            set c [redis_deferring_client]
            $c get big
            $c get big
            $c flush
            $c close
        }
        assert_equal PONG [r ping]
        assert_equal 5000000 [r strlen big]
    }

    test "Replies over the inline buffer and many blocks reach a slow reader whole and in order" {
        # Values of distinct content and sizes across the 16 KB buffer and
        # the blocks after it: a reader that waits before reading fills the
        # socket, so the pieces go out in partial gathered writes.
        set sizes {7 16380 16390 40000 3 120000 900}
        foreach n $sizes { r set piece:$n [string range [string repeat "$n-abcdefgh." [expr {$n / 4 + 1}]] 0 [expr {$n - 1}]] }
        set c [redis_deferring_client]
        for {set round 0} {$round < 30} {incr round} {
            foreach n $sizes { $c get piece:$n }
            $c ping
        }
        $c flush
        after 200
        for {set round 0} {$round < 30} {incr round} {
            foreach n $sizes {
                set v [$c read]
                assert_equal $n [string length $v]
                assert_equal [r get piece:$n] $v
            }
            assert_equal PONG [$c read]
        }
        $c close
    }

    test "A client that disconnects in the middle of a pipeline" {
        set c [redis_deferring_client]
        for {set i 0} {$i < 5000} {incr i} { $c set pipe:$i $i }
        $c flush
        $c close
        assert_equal PONG [r ping]
        # The server may have run some or all of the pipeline, in order.
        set last -1
        for {set i 0} {$i < 5000} {incr i} {
            if {[r exists pipe:$i]} {
                assert_equal [expr {$last + 1}] $i "pipeline ran out of order"
                set last $i
            }
        }
    }
}

start_server {tags {networking unixsocket} unixsocket 1} {
    test "Commands over the unix socket, seen over TCP" {
        set c [redis_client -unix 1]
        assert_equal PONG [$c ping]
        assert_equal OK [$c set via unix]
        assert_equal unix [r get via]
        r set back tcp
        assert_equal tcp [$c get back]
        $c close
    }

    test "A big value and a pipeline over the unix socket" {
        set c [redis_client -unix 1]
        set big [string repeat "unix\x00sock" 300000]
        $c set big $big
        assert_equal $big [$c get big]
        $c deferred 1
        for {set i 0} {$i < 1000} {incr i} { $c incr ucounter }
        $c flush
        for {set i 1} {$i <= 1000} {incr i} { assert_equal $i [$c read] }
        $c close
    }

    test "The unix socket file exists with the configured permissions" {
        set path [srv unixsocket]
        assert_equal socket [file type $path]
        assert_equal 0700 [format %04o [expr {[file attributes $path -permissions] & 0777}]]
    }

    test "unixsocketgroup: CONFIG SET gives the socket to a group by name or number; an unknown one is refused" {
        set path [srv unixsocket]
        set own [file attributes $path -group]
        if {[catch {exec getent group daemon}]} { skip "no group daemon here" }
        assert_equal OK [r config set unixsocketgroup daemon]
        assert_equal daemon [file attributes $path -group]
        assert_equal OK [r config set unixsocketgroup ""]
        assert_equal $own [file attributes $path -group]
        assert_equal OK [r config set unixsocketgroup 1]
        assert_equal daemon [file attributes $path -group]
        assert_error "*unknown group no-such-group-here*" {r config set unixsocketgroup no-such-group-here}
        assert_equal {unixsocketgroup 1} [r config get unixsocketgroup]
        assert_equal PONG [[redis_client -unix 1] ping]
    }
}

start_server {tags {networking unixsocket} unixsocket 1 overrides {unixsocketgroup daemon}} {
    test "unixsocketgroup from the configuration applies at start-up" {
        if {[catch {exec getent group daemon}]} { skip "no group daemon here" }
        assert_equal daemon [file attributes [srv unixsocket] -group]
    }
}

test "An unknown unixsocketgroup stops start-up with the reason" {
    set path [file join [::harness::fresh_run_dir badgroup] sock]
    lassign [run_failing_server --port 0 --unixsocket $path --unixsocketgroup no-such-group-here] status err log
    assert_equal 1 $status
    assert_match "*Failed opening Unix socket: unknown group no-such-group-here*" $log
    assert_equal 0 [file exists $path]
}

start_server {tags {networking unixsocket} unixsocket 1 overrides {port 0}} {
    test "With port 0 the server listens on the unix socket only" {
        assert_equal PONG [r ping]
        r set only unix
        set c [redis_client -unix 1]
        assert_equal unix [$c get only]
        $c close
    }
}

start_server {tags {networking} overrides {maxclients 10}} {
    test "maxclients: the client past the limit is refused" {
        # The default client r is the first of the ten.
        r ping
        set clients {}
        for {set i 1} {$i < 10} {incr i} {
            set c [redis_client]
            assert_equal PONG [$c ping]
            lappend clients $c
        }
        set extra [redis_client]
        assert_error "ERR max number of clients reached" {$extra ping}
        $extra close
        assert_equal PONG [r ping]
        # Once a client leaves, a new one is accepted.
        [lindex $clients 0] close
        set clients [lrange $clients 1 end]
        wait_for_condition 50 20 {
            ![catch {set c [redis_client]; $c ping} reply] && $reply eq "PONG"
        } else {
            fail "no new client accepted after one left: $reply"
        }
        foreach c $clients { $c close }
    }
}

start_server {tags {networking} overrides {timeout 1}} {
    test "timeout: an idle client is closed, an active one is not" {
        set idle [redis_client]
        set busy [redis_client]
        assert_equal PONG [$idle ping]
        assert_equal PONG [$busy ping]
        wait_for_condition 100 100 {[$busy ping] eq "PONG" && [closed_by_server $idle]} else {
            fail "the idle client was not closed"
        }
        assert_equal PONG [$busy ping]
        $idle close
        $busy close
    }
}

start_server {tags {networking} overrides {client-output-buffer-limit {normal 100kb 0 0}}} {
    test "Output buffer hard limit: a reply over the limit closes the client" {
        set c [redis_client]
        $c set small [string repeat x 1000]
        assert_equal 1000 [string length [$c get small]]
        $c set huge [string repeat x 1000000]
        $c deferred 1
        $c get huge
        $c flush
        assert_closed_by_server $c
        $c close
        set c2 [redis_client]
        assert_equal PONG [$c2 ping]
        assert_equal 1000000 [$c2 strlen huge]
        $c2 close
    }

    test "Output buffer hard limit: a client that does not read is closed" {
        set c [redis_deferring_client]
        set payload ""
        for {set i 0} {$i < 2000} {incr i} { append payload "GET small\r\n" }
        for {set i 0} {$i < 200} {incr i} { append payload "GETRANGE huge 0 99999\r\n" }
        # The server may close the connection while we are still writing.
        catch {$c write $payload; $c flush}
        set n [count_replies_until_closed $c 2200]
        assert_lessthan $n 2200
        set c2 [redis_client]
        assert_equal PONG [$c2 ping]
        $c2 close
    }
}

start_server {tags {networking} overrides {client-output-buffer-limit {normal 0 100kb 1}}} {
    test "Output buffer soft limit: closed once over it for longer than allowed" {
        r set chunk [string repeat c 50000]
        set c [redis_deferring_client]
        set payload [string repeat "GET chunk\r\n" 200]
        catch {$c write $payload; $c flush}
        # Over the soft limit now (the socket buffers cannot take 10 MB),
        # but not for long enough: the server keeps the client.
        wait_for_condition 50 20 {[max_client_omem] > 100000} else {
            fail "no client holds more than 100 KB of output: [r client list]"
        }
        # The limit is in whole seconds of the server clock: wait past it,
        # then make the server add output, which is when it checks.
        after [expr {2100 * [::harness::factor]}]
        catch {$c write "GET chunk\r\n"; $c flush}
        set n [count_replies_until_closed $c 202]
        assert_lessthan $n 201
        assert_equal PONG [r ping]
    }

    test "Output buffer soft limit: a client that reads in time is kept" {
        set c [redis_client]
        for {set i 0} {$i < 50} {incr i} {
            assert_equal 50000 [string length [$c get chunk]]
        }
        assert_equal PONG [$c ping]
        $c close
    }
}

# qbuf + qbuf-free of the client named NAME in CLIENT LIST: its query buffer's room.
proc query_buffer_room {name} {
    foreach line [split [string trim [r client list]] "\r\n"] {
        if {[client_field $line name] eq $name} {
            return [expr {[client_field $line qbuf] + [client_field $line qbuf-free]}]
        }
    }
    fail "no client named $name"
}

start_server {tags {networking}} {
    test "Query buffer: 16 KB to start with, freed after 2 s of idleness" {
        set c [redis_client]
        $c client setname qb-idle
        set room [query_buffer_room qb-idle]
        assert {$room >= 16384 && $room < 32768}
        wait_for_condition 60 100 {[query_buffer_room qb-idle] == 0} else {
            fail "the idle client's query buffer is still [query_buffer_room qb-idle] bytes"
        }
        assert_equal PONG [$c ping]
        $c close
    }

    test "Query buffer: grown by one big request, trimmed back while the client stays busy" {
        set c [redis_client]
        $c client setname qb-busy
        $c set big [string repeat A 400000]
        set grown [query_buffer_room qb-busy]
        assert_morethan $grown 32768
        wait_for_condition 100 20 {
            [$c set small [string repeat A 100]] eq "OK" && [query_buffer_room qb-busy] < $grown
        } else {
            fail "the query buffer stayed at [query_buffer_room qb-busy] bytes"
        }
        assert_morethan [query_buffer_room qb-busy] 0 ;# not freed: the client is active
        $c close
    }

    test "A request with 100k arguments leaves no room behind once its key is gone" {
        set before [s used_memory]
        set members {}
        for {set i 0} {$i < 100000} {incr i} { lappend members $i }
        r sadd wide-set {*}$members
        assert_morethan [s used_memory] [expr {$before + 1000000}]
        assert_equal 1 [r unlink wide-set]
        # the argv array at once; the query buffer at the next cron visits
        wait_for_condition 50 100 {[s used_memory] < $before + 200000} else {
            fail "used_memory is [s used_memory], was $before before the request"
        }
    }
}

start_server {tags {networking} overrides {client-output-buffer-limit {pubsub 0 100kb 1}}} {
    test "Output buffer soft limit: enforced by the cron when no more output comes" {
        set sub [redis_deferring_client]
        $sub client setname slow-subscriber
        $sub read
        $sub subscribe ch
        $sub read
        # fill its output buffer past the soft limit, then stop publishing
        set chunk [string repeat x 100000]
        wait_for_condition 200 10 {
            [r publish ch $chunk] >= 0 && [max_client_omem] > 102400
        } else {
            fail "the subscriber's output buffer never passed 100 KB"
        }
        wait_for_condition 60 100 {![string match "*name=slow-subscriber*" [r client list]]} else {
            fail "the subscriber is still connected: [r client list]"
        }
        $sub close
    }
}

start_server {tags {networking} overrides {client-query-buffer-limit 1mb}} {
    test "Query buffer limit: an argument beyond it closes the client" {
        set c [redis_client -readraw 1]
        catch {
            $c write "*3\r\n\$3\r\nSET\r\n\$1\r\nk\r\n\$1500000\r\n[string repeat y 1200000]"
            $c flush
        }
        assert_closed_by_server $c
        $c close
        set c2 [redis_client]
        assert_equal PONG [$c2 ping]
        assert_equal 0 [$c2 exists k]
        $c2 close
    }

    test "Query buffer limit: values below it are fine" {
        set c [redis_client]
        set v [string repeat z 1000000]
        assert_equal OK [$c set k $v]
        assert_equal $v [$c get k]
        $c close
    }
}

start_server {tags {networking} overrides {bind 0.0.0.0 protected-mode yes}} {
    test "Protected mode refuses non-loopback clients when there is no password" {
        set ip [external_ipv4]
        if {$ip eq ""} { skip "this machine has no non-loopback IPv4 address" }
        set c [::resp::connect $ip [srv port] -readraw 1]
        set reply [$c ping]
        assert_match "-DENIED Redis is running in protected mode because protected mode is enabled and no password is set for the default user.*" $reply
        assert_closed_by_server $c
        $c close
        assert_equal PONG [r ping]
    }
}

start_server {tags {networking} overrides {bind 0.0.0.0 protected-mode no}} {
    test "Without protected mode non-loopback clients are served" {
        set ip [external_ipv4]
        if {$ip eq ""} { skip "this machine has no non-loopback IPv4 address" }
        set c [::resp::connect $ip [srv port]]
        assert_equal PONG [$c ping]
        $c close
    }
}

start_server {tags {networking} overrides {bind 0.0.0.0 protected-mode yes requirepass secret}} {
    test "Protected mode does not apply when a password is set" {
        set ip [external_ipv4]
        if {$ip eq ""} { skip "this machine has no non-loopback IPv4 address" }
        set c [::resp::connect $ip [srv port]]
        assert_error "NOAUTH Authentication required." {$c ping}
        assert_equal OK [$c auth secret]
        assert_equal PONG [$c ping]
        $c close
    }
}

# ---- CONFIG SET port / bind --------------------------------------------------------------------

# A client on PORT answers PING, or the connection is refused.
proc pings_on {port} {
    if {[catch {set c [::resp::connect 127.0.0.1 $port]}]} { return 0 }
    set ok [expr {![catch {$c ping} reply] && $reply eq "PONG"}]
    catch {$c close}
    return $ok
}

start_server {tags {networking}} {
    test "CONFIG SET port moves the listener; connected clients stay" {
        set old [srv port]
        set new [::harness::find_free_port]
        assert_equal OK [r config set port $new]
        assert_equal PONG [r ping] "the connection that moved it"
        assert_equal 1 [pings_on $new]
        assert_equal 0 [pings_on $old]
        assert_equal $new [lindex [r config get port] 1]
        assert_equal OK [r config set port $old]
        assert_equal 1 [pings_on $old]
        assert_equal 0 [pings_on $new]
    }

    test "CONFIG SET port to a port in use fails and keeps the old listener" {
        set taken [::harness::find_free_port]
        set holder [socket -server ::harness::refuse -myaddr 127.0.0.1 $taken]
        set err [error_of r config set port $taken]
        close $holder
        assert_match "ERR CONFIG SET failed (possibly related to argument 'port') - Unable to listen on this port*" $err
        assert_equal [srv port] [lindex [r config get port] 1]
        assert_equal 1 [pings_on [srv port]]
    }

    test "CONFIG SET bind changes the addresses; a bad one fails and changes nothing" {
        assert_equal OK [r config set bind "127.0.0.1"]
        assert_equal 127.0.0.1 [lindex [r config get bind] 1]
        assert_equal 1 [pings_on [srv port]]
        assert_equal "ERR CONFIG SET failed (possibly related to argument 'bind') - Failed to bind to specified addresses." \
            [error_of r config set bind "127.0.0.1 999.999.999.999"]
        assert_equal 127.0.0.1 [lindex [r config get bind] 1]
        assert_equal 1 [pings_on [srv port]]
        assert_equal PONG [r ping]
    }

    test "A port given up while a BGSAVE child runs is free at once (the child holds no listener)" {
        set old [srv port]
        set new [::harness::find_free_port]
        # a child that runs for 3 s (30 keys, 0.1 s each)
        r config set rdb-key-save-delay [::harness::scaled 100000]
        for {set j 0} {$j < 30} {incr j} { r set k$j v }
        r bgsave
        assert_equal 1 [s rdb_bgsave_in_progress]
        assert_equal OK [r config set port $new]
        assert_equal 0 [pings_on $old]
        assert_equal OK [r config set port $old]
        assert_equal 1 [s rdb_bgsave_in_progress] "the child was still there"
        assert_equal 1 [pings_on $old]
        r config set rdb-key-save-delay 0
        wait_for_condition 400 20 {[s rdb_bgsave_in_progress] == 0} else { fail "BGSAVE did not end" }
        r flushall
    }

    test "CONFIG SET port and bind together, and port 0 closes TCP" {
        set new [::harness::find_free_port]
        assert_equal OK [r config set bind "127.0.0.1 -::1" port $new]
        assert_equal 1 [pings_on $new]
        assert_equal OK [r config set port 0]
        assert_equal 0 [pings_on $new]
        assert_equal PONG [r ping]
        assert_equal OK [r config set port [srv port]]
        assert_equal 1 [pings_on [srv port]]
    }
}

test "With neither a TCP port nor a unix socket the server refuses to start" {
    lassign [run_failing_server --port 0] status err log
    assert_equal 1 $status
    assert_match "*Configured to not listen anywhere, exiting.*" $log
}
