# What a primary accepts on a replica's link, as Redis 7.0.15: the link
# carries the replication stream only, so a command the replica sends that
# would be answered (anything but REPLCONF) closes the link with Redis's
# line instead of putting a reply in the middle of the stream; a keyspace
# command is refused first ("Replica can't interact with the keyspace",
# logged as an error sent to a replica). PSYNC with an offset that is no
# number is an error, not a full sync.

# A raw connection that has sent cmd (SYNC or PSYNC): a replica to the
# server, able to take a diskless sync (which waits its 5 s delay: nothing
# but keep-alive newlines comes meanwhile).
proc rp_replica {cmd} {
    set s [socket 127.0.0.1 [srv port]]
    fconfigure $s -translation binary
    puts -nonewline $s "REPLCONF capa eof capa psync2\r\n"
    flush $s
    assert_equal +OK [string trimright [gets $s] "\r"]
    puts -nonewline $s "$cmd\r\n"
    flush $s
    return $s
}

# What the server sends on s until it closes it (at most ms milliseconds).
proc rp_read_until_closed {s ms} {
    fconfigure $s -blocking 0
    set got ""
    set deadline [expr {[clock milliseconds] + $ms}]
    while {[clock milliseconds] < $deadline} {
        append got [read $s]
        if {[eof $s]} { return [list closed $got] }
        ::harness::sleep_ms 20
    }
    return [list open $got]
}

start_server {overrides {repl-diskless-sync yes repl-diskless-sync-delay 5}} {
    foreach {sync cmd name} {SYNC PING ping SYNC {XINFO HELP} xinfo|help {PSYNC ? -1} {GET foo} get
                             {PSYNC ? -1} {SLOWLOG GET} slowlog|get} {
        test "a replica ($sync) sending $cmd is disconnected with Redis's line; no reply reaches its link" {
            set from [log_line_count]
            set s [rp_replica $sync]
            wait_for_condition 100 50 {[s connected_slaves] == 1} else { fail "not a replica yet" }
            puts -nonewline $s "$cmd\r\n"
            flush $s
            lassign [rp_read_until_closed $s [::harness::scaled 5000]] state got
            close $s
            assert_equal closed $state
            # the sync waits its 5 s delay (+FULLRESYNC too): nothing but
            # keep-alive newlines came before the close
            assert_equal {} [string trim $got "\n"]
            wait_for_log "*Replica generated a reply to command '$name', disconnecting it: *" -from $from
            if {$name eq "get"} {
                wait_for_log "*== CRITICAL == This master is sending an error to its replica: *Replica can't interact with the keyspace*" -from $from
            }
            assert_equal PONG [r ping]
            wait_for_condition 100 50 {[s connected_slaves] == 0} else { fail "the replica is still listed" }
        }
    }

    test "REPLCONF on a replica's link is the protocol: ACK is taken, no reply, the link stays" {
        set s [rp_replica "PSYNC ? -1"]
        wait_for_condition 100 50 {[s connected_slaves] == 1} else { fail "not a replica yet" }
        puts -nonewline $s "REPLCONF ACK 0\r\n"
        flush $s
        lassign [rp_read_until_closed $s [::harness::scaled 500]] state got
        assert_equal open $state
        assert_equal {} [string trim $got "\n"]
        assert_equal 1 [s connected_slaves]
        close $s
        wait_for_condition 100 50 {[s connected_slaves] == 0} else { fail "the replica is still listed" }
    }

    test "PSYNC with an offset that is no number: Redis 7.0's error and line, no sync" {
        set from [log_line_count]
        assert_error "ERR value is not an integer or out of range" {r psync 0123456789012345678901234567890123456789 offset}
        wait_for_log "*asks for synchronization but with a wrong offset*" -from $from
        assert_equal PONG [r ping] ;# the same connection: an ordinary client still
        assert_equal 0 [s connected_slaves]
    }
}
