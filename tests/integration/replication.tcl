# Replication between our servers, and with Debian's Redis 7.0.15: full and
# partial syncs, the stream, PSYNC2 after a promotion, replica expiry,
# INFO/ROLE, WAIT and min-replicas, and faults (a primary sending garbage,
# a truncated RDB, a wrong $EOF marker, a stalled primary, a replica past its
# output limit, dead ports). Every block starts several servers on 127.0.0.1.

set ::reference_bin /usr/bin/redis-server

proc have_reference {} { file executable $::reference_bin }

source [file join $::harness_dir replication.tcl] ;# wait_link_up, wait_same_digest, wait_offsets_equal

# A raw SYNC connection to the server of level 0, past its snapshot: what
# is read from it next is the replication stream.
proc attach_sync_stream {} {
    set s [socket 127.0.0.1 [srv port]]
    fconfigure $s -translation binary
    puts -nonewline $s "SYNC\r\n"
    flush $s
    # newlines may come while the snapshot is made; then $<len> and the payload
    while {[set line [gets $s]] eq ""} {}
    assert_match {$*} $line
    read $s [string range $line 1 end-1]
    # the primary marks the replica online when it has seen the transfer end
    # (a snapshot child's exit is noticed by its cron): until then the
    # stream is held for it, and a replica dropped meanwhile never gets it
    wait_for_condition 100 50 {[string match "*slave*state=online*" [r info replication]]} else {
        fail "the SYNC replica never came online: [r info replication]"
    }
    return $s
}

# Keys of every type we have, some with a TTL, some in db 9.
proc fill_every_type {level prefix n} {
    for {set i 0} {$i < $n} {incr i} {
        r $level set $prefix:s:$i v$i
        r $level incr $prefix:n:$i
        r $level rpush $prefix:l:$i a b [expr {$i * 3}]
        r $level hset $prefix:h:$i f1 v1 f2 $i
        r $level sadd $prefix:set:$i m1 m2 $i
        r $level sadd $prefix:iset:$i 1 2 $i
        r $level zadd $prefix:z:$i 1.5 a 2 b $i c
        r $level pfadd $prefix:hll:$i x y z
        r $level setex $prefix:ttl:$i 1000 v
    }
    r $level select 9
    r $level set $prefix:db9 v
    r $level select 0
}

tags {replication external:skip} {

foreach diskless {yes no} {
    start_server [list overrides [list repl-diskless-sync $diskless repl-diskless-sync-delay 0]] {
        fill_every_type 0 before 200
        # the replica loads with flush-first (disabled) in one round, swapdb in the other
        start_server [list overrides [list repl-diskless-load [expr {$diskless eq "yes" ? "disabled" : "swapdb"}]]] {
            test "ours -> ours full sync (diskless $diskless) with writes during the sync ends with equal digests" {
                r -1 config set rdb-key-save-delay 200
                r replicaof 127.0.0.1 [srv -1 port]
                wait_for_condition 50 100 {[s -1 connected_slaves] == 1} else { fail "no replica" }
                fill_every_type -1 during 50
                r -1 config set rdb-key-save-delay 0
                wait_link_up 0
                fill_every_type -1 after 20
                wait_same_digest -1 0
                r select 9
                assert_equal v [r get during:db9]
                r select 0
                wait_for_log "*MASTER <-> REPLICA sync: Finished with success*"
            }

            test "INFO replication, ROLE and CLIENT LIST on both sides" {
                set info [r -1 info replication]
                assert_match "*role:master\r\nconnected_slaves:1\r\nslave0:ip=127.0.0.1,port=[srv 0 port],state=online,*master_failover_state:no-failover\r\nmaster_replid:*master_replid2:*master_repl_offset:*second_repl_offset:*repl_backlog_active:1*" $info
                set info [r info replication]
                assert_match "*role:slave\r\nmaster_host:127.0.0.1\r\nmaster_port:[srv -1 port]\r\nmaster_link_status:up\r\nmaster_last_io_seconds_ago:*\r\nmaster_sync_in_progress:0\r\nslave_read_repl_offset:*\r\nslave_repl_offset:*\r\nslave_priority:100\r\nslave_read_only:1\r\nreplica_announced:1\r\nconnected_slaves:0\r\n*" $info
                set role [r role]
                assert_equal {slave 127.0.0.1} [lrange $role 0 1]
                assert_equal [srv -1 port] [lindex $role 2]
                assert_equal connected [lindex $role 3]
                wait_for_condition 50 100 {[llength [lindex [r -1 role] 2]] == 1} else { fail "ROLE lists no replica" }
                assert_equal master [lindex [r -1 role] 0]
                assert_morethan [s -1 total_net_repl_output_bytes] 0
                assert_morethan [s 0 total_net_repl_input_bytes] 0
                assert_match "*flags=S *cmd=*" [r -1 client list type replica]
                assert_morethan [s -1 mem_replication_backlog] 0
                assert_morethan [s -1 mem_clients_slaves] 0
                assert {[s -1 mem_total_replication_buffers] >= [s -1 mem_replication_backlog]}
                assert_equal 0 [s 0 mem_clients_slaves]
                assert_match "*flags=M *" [r client list type master]
                # connected_clients leaves replicas out, as Redis 7.0: only
                # the test's own connection here (the replica's master link
                # is a client of the replica)
                assert_equal 1 [s -1 connected_clients]
                assert_equal 1 [s -1 connected_slaves]
                assert_equal 2 [s 0 connected_clients]
            }

            test "a replica refuses writes with -READONLY; WAIT counts it" {
                assert_error "READONLY You can't write against a read only replica." {r set x y}
                r -1 set w 1
                assert_equal 1 [r -1 wait 1 5000]
                assert_equal 1 [r get w]
                assert_error "*WAIT cannot be used with replica instances*" {r wait 1 10}
            }

            test "WAIT waits for the caller's own last write; it counts as blocked; CLIENT UNBLOCK; MULTI and scripts" {
                set replica_pid [srv 0 pid]
                set other [redis_client -1]
                set rd [redis_deferring_client -1]
                $rd client id
                set rd_id [$rd read]
                $rd set own 0
                $rd read
                assert_equal 1 [r -1 wait 1 5000]
                ::harness::send_signal STOP $replica_pid
                if {[catch {
                    # a write by someone else: a client whose own writes are acknowledged doesn't wait for it
                    r -1 incr own-by-main
                    set t0 [clock milliseconds]
                    assert_equal 1 [$other wait 1 0]
                    assert_lessthan [expr {[clock milliseconds] - $t0}] 2000
                    assert_equal 0 [r -1 wait 1 200]
                    # its own write isn't acknowledged: blocked, listed as such, released by CLIENT UNBLOCK
                    $rd incr own
                    $rd read
                    $rd wait 1 0
                    wait_for_blocked_clients 1 -1
                    set line [$other client list id $rd_id]
                    assert_equal b [client_field $line flags]
                    assert_equal wait [client_field $line cmd]
                    assert_equal 1 [$other client unblock $rd_id]
                    assert_equal 0 [$rd read]
                    $rd wait 1 0
                    wait_for_blocked_clients 1 -1
                    assert_equal 1 [$other client unblock $rd_id error]
                    assert_error "UNBLOCKED client unblocked via CLIENT UNBLOCK" {$rd read}
                    assert_equal 0 [s -1 blocked_clients]
                    # in MULTI it answers at once; scripts can't call it
                    $other multi
                    $other incr own-by-other
                    $other wait 1 0
                    assert_equal {1 0} [$other exec]
                    assert_error "*not allowed from script*" {$other eval {return redis.call('wait', 1, 0)} 0}
                    # released when the replica acknowledges
                    $rd wait 1 0
                    wait_for_blocked_clients 1 -1
                } err]} {
                    ::harness::send_signal CONT $replica_pid
                    error $err $::errorInfo
                }
                ::harness::send_signal CONT $replica_pid
                assert_equal 1 [$rd read]
                $rd close
                $other close
            }

            test "min-replicas-to-write: -NOREPLICAS when too few good replicas" {
                r -1 config set min-replicas-to-write 2
                assert_error "NOREPLICAS Not enough good replicas to write." {r -1 set a b}
                r -1 config set min-replicas-to-write 1
                assert_equal OK [r -1 set a b]
                r -1 config set min-replicas-to-write 0
            }

            test "partial resync after CLIENT KILL TYPE master and TYPE replica" {
                set ok [s -1 sync_partial_ok]
                r client kill type master
                r -1 incr pr
                wait_link_up 0
                wait_for_condition 50 100 {[s -1 sync_partial_ok] == $ok + 1} else { fail "no partial resync" }
                r -1 client kill type replica
                r -1 incr pr
                wait_for_condition 50 100 {[s -1 sync_partial_ok] == $ok + 2} else { fail "no partial resync" }
                wait_same_digest -1 0
                assert_equal 2 [r get pr]
            }

            test "a logically expired key reads as missing on the replica until the primary's DEL" {
                r -1 debug set-active-expire 0
                r -1 set shortlived v px 500
                wait_for_condition 50 10 {[r exists shortlived] == 1} else { fail "the key never reached the replica" }
                wait_for_condition 50 100 {[r exists shortlived] == 0} else { fail "replica still shows the key" }
                set n [r dbsize]
                assert_equal {} [r get shortlived]
                assert_equal $n [r dbsize] ;# not deleted by the read
                assert_equal {} [r -1 get shortlived] ;# the primary's lazy expiry sends a DEL
                wait_for_condition 50 100 {[r dbsize] == $n - 1} else { fail "the DEL did not reach the replica" }
                r -1 debug set-active-expire 1
            }
        }
    }
}

# Redis 7.0 drops keys already expired when it loads a snapshot only as a
# primary: a replica keeps them until its primary's DEL, so both hold the
# same keys (Redis's cluster suite 14-consistency-check counts them).
foreach diskless {no yes} {
    start_server [list overrides [list repl-diskless-sync $diskless repl-diskless-sync-delay 0]] {
        start_server [list overrides [list repl-diskless-load [expr {$diskless eq "yes" ? "swapdb" : "disabled"}]]] {
            test "full sync (diskless $diskless): keys already expired on the primary stay on the replica until its DEL, across DEBUG RELOAD" {
                r -1 debug set-active-expire 0
                r -1 set keep v
                r -1 set stale v px 1
                after 20
                assert_equal 2 [r -1 dbsize]
                r replicaof 127.0.0.1 [srv -1 port]
                wait_link_up 0
                assert_equal 2 [r dbsize]
                assert_equal 0 [r exists stale] ;# reads as missing meanwhile
                r debug reload ;# a replica's own load keeps it too
                assert_equal 2 [r dbsize]
                assert_equal {} [r -1 get stale] ;# the primary's lazy expiry sends the DEL
                wait_for_condition 50 100 {[r dbsize] == 1} else { fail "the DEL did not reach the replica" }
                assert_equal v [r get keep]
                r -1 debug set-active-expire 1
            }
        }
    }
}

start_server {overrides {repl-diskless-sync-delay 0}} {
    start_server {} {
        start_server {} {
            test "PSYNC2: after a promotion the sibling continues with a partial sync" {
                set primary_port [srv -2 port]
                r -1 replicaof 127.0.0.1 $primary_port
                r 0 replicaof 127.0.0.1 $primary_port
                wait_link_up -1
                wait_link_up 0
                fill_every_type -2 p 30
                wait_offsets_equal -2 -1
                wait_offsets_equal -2 0
                r -1 replicaof no one
                set ok [s -1 sync_partial_ok]
                r 0 replicaof 127.0.0.1 [srv -1 port]
                wait_link_up 0
                wait_for_condition 50 100 {[s -1 sync_partial_ok] == $ok + 1} else {
                    fail "the sibling did a full sync"
                }
                r -1 set after-promotion yes
                wait_for_condition 50 100 {[r get after-promotion] eq "yes"} else { fail "stream broken" }
                assert_match "*master_replid2:[s -2 master_replid]*" [r -1 info replication]
                wait_same_digest -1 0
            }

            test "REPLICAOF NO ONE makes a replica writable again; SLAVEOF works too" {
                r slaveof no one
                assert_equal OK [r set mine 1]
                assert_equal master [lindex [r role] 0]
            }
        }
    }
}

start_server {overrides {repl-diskless-sync-delay 0 repl-diskless-sync no repl-ping-replica-period 3600}} {
    test "the first replica gets its first PING a period after it attached, not at once" {
        set s [attach_sync_stream]
        r set after-sync 1
        # the stream starts with the write (its SELECT first), no PING before it
        set first [string trimright [gets $s] \r]
        gets $s
        set name [string tolower [string trimright [gets $s] \r]]
        assert_equal {*2 select} [list $first $name]
        close $s
    }

    test "PUBLISH (also inside MULTI) goes to the replicas as it is" {
        set s [attach_sync_stream]
        r multi
        r publish bla bla
        r exec
        r set after-publish 1
        set stream ""
        while {![string match "*after-publish*" $stream]} { append stream "[string trimright [gets $s] \r]|" }
        close $s
        assert_match {*publish|$3|bla|$3|bla|*after-publish*} $stream
        assert_no_match "*MULTI*" $stream
    }

    test "REPLICAOF inside MULTI: the transaction is not propagated and our replicas stay connected" {
        set s [attach_sync_stream]
        r set before-multi 1
        r multi
        r set in-multi 1
        r replicaof 127.0.0.1 [::harness::find_free_port] ;# nobody there: the link never comes up
        r exec
        assert_error "READONLY*" {r set after-demotion 1}
        assert_equal 1 [s connected_slaves]
        r replicaof no one
        # REPLICAOF NO ONE starts a new history: the replica is dropped, and
        # its stream held the write before the MULTI and nothing after it
        set stream ""
        while {![eof $s]} { append stream [read $s 1] }
        close $s
        assert_match "*before-multi*" $stream
        assert_no_match "*in-multi*" $stream
    }
}

start_server {overrides {repl-diskless-sync-delay 0}} {
    start_server {} {
        test "scripts on a read-only replica: a function that may write is refused, a no-writes one runs" {
            r replicaof 127.0.0.1 [srv -1 port]
            wait_link_up 0
            r -1 function load "#!lua name=rolib\nredis.register_function('rw', function() return redis.call('set', 'x', '1') end)\nredis.register_function{function_name='ro', callback=function() return redis.call('get', 'x') end, flags={'no-writes'}}"
            r -1 set x 0
            wait_for_condition 50 100 {[r get x] eq 0} else { fail "not replicated" }
            assert_error "READONLY You can't write against a read only replica." {r fcall rw 0}
            assert_equal 0 [r fcall ro 0]
            # a script without flags runs, and its write is refused
            assert_error "READONLY You can't write against a read only replica.*" {r eval {return redis.call('set', 'x', '2')} 0}
            assert_equal 0 [r eval {return redis.call('get', 'x')} 0]
            assert_error "READONLY You can't write against a read only replica.*" {r eval "#!lua\nreturn redis.call('set', 'x', '2')" 0}
            assert_equal 0 [r get x]
            # the primary's own effects still apply
            r -1 fcall rw 0
            wait_for_condition 50 100 {[r get x] eq 1} else { fail "the primary's FCALL did not replicate" }
            r replicaof no one
        }
    }
}

start_server {overrides {repl-diskless-sync-delay 0}} {
    start_server {} {
        test "A stopped replica's stream counts as its output buffer, and not against maxmemory" {
            r replicaof 127.0.0.1 [srv -1 port]
            wait_link_up 0
            r -1 set warm 1
            wait_for_condition 50 100 {[s slave_repl_offset] == [s -1 master_repl_offset]} else { fail "not caught up" }
            for {set i 0} {$i < 50} {incr i} { r -1 set key:$i [string repeat v 1000] }
            set replica_pid [srv 0 pid]
            ::harness::send_signal STOP $replica_pid
            if {[catch {
                # 24 MB of stream, more than the kernel's socket buffers take
                set rd [redis_deferring_client -1]
                set value [string repeat A 2000]
                for {set batch 0} {$batch < 12} {incr batch} {
                    for {set i 0} {$i < 1000} {incr i} { $rd setrange key:0 0 $value }
                    $rd flush
                    for {set i 0} {$i < 1000} {incr i} { $rd read }
                }
                $rd close
                set omem [client_field [r -1 client list type replica] omem]
                assert_morethan $omem 4000000
                assert_morethan [s -1 mem_clients_slaves] $omem
                assert_morethan [expr {[s -1 mem_not_counted_for_evict] + 1}] $omem
                assert_lessthan [s -1 mem_clients_normal] 1000000 ;# a replica's buffer is not a client's
                # a limit just over what the keys and the rest use: the replica's buffer evicts nothing
                r -1 config set maxmemory-policy allkeys-random
                r -1 config set maxmemory [expr {[s -1 used_memory] - [s -1 mem_not_counted_for_evict] + 500000}]
                r -1 set one-more 1
                assert_equal 0 [s -1 evicted_keys]
                r -1 config set maxmemory 0
            } err]} {
                ::harness::send_signal CONT $replica_pid
                error $err $::errorInfo
            }
            ::harness::send_signal CONT $replica_pid
            wait_for_condition 100 100 {[s slave_repl_offset] == [s -1 master_repl_offset]} else { fail "not caught up" }
            assert_equal $value [string range [r get key:0] 0 1999]
            r replicaof no one
        }

        test "CLIENT PAUSE WRITE on a replica: the primary's stream is read on but applied only after the pause" {
            r replicaof 127.0.0.1 [srv -1 port]
            wait_link_up 0
            r -1 set before 1
            wait_for_condition 50 100 {[s slave_repl_offset] == [s -1 master_repl_offset]} else { fail "not caught up" }
            set applied [s slave_repl_offset]
            r client pause 100000 write
            r -1 set during 1
            r -1 incr before
            wait_for_condition 50 100 {[s slave_read_repl_offset] == [s -1 master_repl_offset]} else {
                fail "the stream was not read during the pause"
            }
            assert_equal $applied [s slave_repl_offset]
            assert_equal {} [r get during]
            assert_equal 1 [r get before]
            r client unpause
            wait_for_condition 50 100 {[s slave_repl_offset] == [s -1 master_repl_offset]} else { fail "not applied after the pause" }
            assert_equal {1 2} [list [r get during] [r get before]]
            r replicaof no one
        }
    }
}

start_server {overrides {repl-diskless-sync-delay 0}} {
    start_server {overrides {replica-read-only no}} {
        test "a command from the primary that fails on the replica is logged and counted" {
            r replicaof 127.0.0.1 [srv -1 port]
            wait_link_up 0
            r -1 set counter 1
            wait_for_condition 50 100 {[r get counter] eq 1} else { fail "counter not replicated" }
            # a writable replica diverges, then becomes read-only again
            r set counter text
            r config set replica-read-only yes
            assert_equal 0 [s unexpected_error_replies]
            r -1 incr counter
            wait_for_condition 50 100 {[s unexpected_error_replies] == 1} else { fail "the failed INCR was not counted" }
            wait_for_log "*== CRITICAL == This replica is sending an error to its master: '*not an integer*' after processing the command 'incr'*"
            assert_equal text [r get counter]
            assert_equal 0 [s -1 unexpected_error_replies]
            r replicaof no one
        }
    }
}

start_server {overrides {repl-diskless-sync-delay 0}} {
    start_server {overrides {replica-read-only no appendonly yes}} {
        test "a writable replica expires the keys its own clients gave a TTL, and only those" {
            r replicaof 127.0.0.1 [srv -1 port]
            wait_link_up 0
            r -1 set from-primary v px 300000
            r -1 debug set-active-expire 0
            r -1 set primary-short v px 400
            wait_for_condition 50 100 {[r dbsize] == 2} else { fail "not replicated" }
            set before [s expired_keys]
            r set mine v px 1
            r select 3
            r set mine-db3 v
            r pexpire mine-db3 1
            r select 9
            r set long-lived v ex 1000
            wait_for_condition 100 20 {[s expired_keys] == $before + 2} else { fail "the replica's own keys did not expire" }
            r select 3
            assert_equal 0 [r exists mine-db3]
            r select 9
            assert_equal 1 [r exists long-lived]
            r select 0
            # the primary's key is the primary's to expire: it only looks gone here
            wait_for_condition 50 20 {[r exists primary-short] == 0} else { fail "primary-short still looks alive" }
            after 200
            assert_equal 0 [r exists primary-short]
            assert_equal 2 [r dbsize] ;# still there, for the primary's DEL
            assert_equal [expr {$before + 2}] [s expired_keys]
            r -1 debug set-active-expire 1
            wait_for_condition 50 100 {[r dbsize] == 1} else { fail "no DEL from the primary" }
            assert_equal 1 [r exists from-primary]
        }

        test "a writable replica deletes an expired key its own client writes to" {
            r -1 debug set-active-expire 0
            r -1 set shared 5 px 300
            wait_for_condition 50 100 {[r dbsize] == 2} else { fail "not replicated" }
            after 350
            assert_equal OK [r set shared fresh nx]
            assert_equal fresh [r get shared]
            r -1 debug set-active-expire 1
            r replicaof no one
        }
    }
}

start_server {overrides {repl-diskless-sync-delay 0}} {
    start_server {overrides {repl-timeout 2}} {
        test "a stalled primary (repl-timeout): the replica drops the link and resyncs" {
            r replicaof 127.0.0.1 [srv -1 port]
            wait_link_up 0
            r -1 config set repl-ping-replica-period 1
            set rd [redis_deferring_client -1]
            $rd debug sleep 4
            wait_for_log "*MASTER timeout*" -tries 100
            $rd read
            $rd close
            wait_link_up 0
            r -1 set back 1
            wait_for_condition 50 100 {[r get back] eq 1} else { fail "no stream after the stall" }
        }

        test "a replica past its output buffer limit is disconnected, then syncs again" {
            r -1 config set client-output-buffer-limit "replica 256kb 0 0"
            set rd [redis_deferring_client 0]
            $rd debug sleep 3
            after 100
            set big [string repeat x 10000]
            for {set i 0} {$i < 1000} {incr i} { r -1 set big:$i $big }
            wait_for_log "*overcoming of output buffer limits*" -level -1 -tries 100
            $rd read
            $rd close
            r -1 config set client-output-buffer-limit "replica 256mb 64mb 60"
            wait_link_up 0
            wait_same_digest -1 0
        }

        test "a link cut mid full sync: the replica syncs again and serves no half dataset" {
            r -1 debug populate 2000 cut
            r replicaof no one
            r flushall
            r -1 config set rdb-key-save-delay 1000
            r replicaof 127.0.0.1 [srv -1 port]
            wait_for_condition 50 100 {[s -1 connected_slaves] == 1} else { fail "no replica" }
            after 300
            r -1 client kill type replica
            assert_equal 0 [r dbsize]
            r -1 config set rdb-key-save-delay 0
            wait_link_up 0
            wait_same_digest -1 0
        }
    }
}

start_server {overrides {repl-diskless-sync-delay 0 repl-backlog-size 8mb}} {
    start_server {} {
        test "a replica's output limit below repl-backlog-size counts as repl-backlog-size: a partial sync bigger than the limit goes through" {
            r replicaof 127.0.0.1 [srv -1 port]
            wait_link_up 0
            r -1 config set client-output-buffer-limit "replica 256kb 0 0"
            set full [s -1 sync_full]
            set partial [s -1 sync_partial_ok]
            # the link is cut and 2 MB written before the replica can come back
            set big [string repeat x [expr {1024 * 1024}]]
            r -1 multi
            r -1 client kill type replica
            r -1 set big1 $big
            r -1 set big2 $big
            r -1 exec
            wait_for_condition 100 100 {[s -1 sync_partial_ok] > $partial} else { fail "no partial resync" }
            wait_offsets_equal -1 0
            wait_same_digest -1 0
            assert_equal [list $full [expr {$partial + 1}]] [list [s -1 sync_full] [s -1 sync_partial_ok]]
            r -1 config set client-output-buffer-limit "replica 256mb 64mb 60"
            r replicaof no one
        }
    }
}

start_server {overrides {repl-diskless-sync-delay 0}} {
    start_server {overrides {save "3600 1"}} {
        test "a restarted replica continues with a partial sync (repl-id/repl-offset in its RDB, replicaof rewritten)" {
            r replicaof 127.0.0.1 [srv -1 port]
            wait_link_up 0
            r config rewrite
            fill_every_type -1 rs 20
            wait_offsets_equal -1 0
            set ok [s -1 sync_partial_ok]
            restart_server 0
            wait_link_up 0
            wait_for_condition 50 100 {[s -1 sync_partial_ok] == $ok + 1} else { fail "no partial resync after the restart" }
            wait_same_digest -1 0
        }
    }
}

start_server {overrides {repl-diskless-sync-delay 0}} {
    fill_every_type 0 aof 50
    start_server {overrides {appendonly yes}} {
        test "a replica with the AOF on rewrites it after a full sync: a restart loads the primary's dataset" {
            r set local-only 1
            r replicaof 127.0.0.1 [srv -1 port]
            wait_link_up 0
            r -1 set streamed 1
            wait_for_condition 50 100 {[r get streamed] eq 1} else { fail "no stream" }
            wait_for_condition 100 100 {
                [aof_rewrite_idle] && [s aof_rewrites] >= 1
            } else { fail "no AOF rewrite after the sync" }
            set digest [r -1 debug digest]
            restart_server 0 -kill
            assert_equal $digest [r debug digest]
            assert_equal 0 [r exists local-only]
        }
    }
}

start_server {overrides {repl-diskless-sync-delay 0 repl-backlog-size 16kb}} {
    start_server {} {
        test "PSYNC for an offset the backlog no longer holds: a logged full sync" {
            r replicaof 127.0.0.1 [srv -1 port]
            wait_link_up 0
            set full [s -1 sync_full]
            set rd [redis_deferring_client 0]
            $rd debug sleep 2
            after 100
            r -1 client kill type replica
            set big [string repeat y 1000]
            for {set i 0} {$i < 100} {incr i} { r -1 set overflow:$i $big }
            $rd read
            $rd close
            wait_for_log "*for lack of backlog*" -level -1 -tries 100
            wait_link_up 0
            assert_equal [expr {$full + 1}] [s -1 sync_full]
            wait_same_digest -1 0
        }

        test "PSYNC with an unknown replication id: a logged full sync" {
            set rd [redis_deferring_client -1]
            $rd psync 0123456789012345678901234567890123456789 100
            set reply [$rd read]
            assert_match "FULLRESYNC *" $reply
            $rd close
            wait_for_log "*Replication ID mismatch*" -level -1
        }

        test "FAILOVER: errors, then the replica takes over and the old primary follows it" {
            assert_error "*FAILOVER is not valid when server is a replica*" {r failover}
            assert_error "*No failover in progress*" {r -1 failover abort}
            assert_error "*FAILOVER target HOST and PORT is not a replica*" {r -1 failover to 127.0.0.1 1}
            assert_error "*FAILOVER with force option requires both a timeout and target HOST and IP*" {r -1 failover force}
            r -1 set before-failover 1
            set ok [s 0 sync_partial_ok]
            assert_equal OK [r -1 failover to 127.0.0.1 [srv 0 port] timeout 5000]
            wait_for_condition 100 100 {[lindex [r role] 0] eq "master" && [lindex [r -1 role] 0] eq "slave"} else {
                fail "no failover: [r role] / [r -1 role]"
            }
            wait_link_up -1
            assert_equal [expr {$ok + 1}] [s 0 sync_partial_ok]
            assert_equal no-failover [s -1 master_failover_state]
            r set after-failover 1
            wait_for_condition 50 100 {[r -1 get after-failover] eq 1} else { fail "no stream from the new primary" }
            assert_equal 1 [r get before-failover]
            wait_for_log "*FAILOVER requested to 127.0.0.1:[srv 0 port].*" -level -1
        }

        test "FAILOVER log lines: any replica, aborted; FORCE after the timeout (Redis 7.0's texts)" {
            # srv 0 is the primary now, srv -1 its replica
            set replica [srv -1 pid]
            set from [log_line_count 0]
            ::harness::send_signal STOP $replica
            try {
                r set unacked 1
                assert_equal OK [r failover]
                wait_for_log "*FAILOVER requested to any replica.*" -from $from
                assert_equal OK [r failover abort]
                wait_for_log "*FAILOVER to any replica aborted: Failover manually aborted*" -from $from
                r set unacked 2
                assert_equal OK [r failover to 127.0.0.1 [srv -1 port] timeout 100 force]
                wait_for_log "*FAILOVER to 127.0.0.1:[srv -1 port] time out exceeded, failing over.*" -from $from
            } finally {
                ::harness::send_signal CONT $replica
            }
            wait_for_condition 100 100 {[lindex [r -1 role] 0] eq "master" && [lindex [r role] 0] eq "slave"} else {
                fail "no forced failover: [r role] / [r -1 role]"
            }
            wait_link_up 0
            assert_equal 2 [r -1 get unacked]
        }
    }
}

start_server {overrides {repl-diskless-sync-delay 0 requirepass s3cret}} {
    r auth s3cret
    r set guarded 1
    start_server {overrides {replica-announce-ip 10.1.2.3 replica-announce-port 4567}} {
        test "masterauth: without it the handshake fails with a logged reason; with it the link comes up" {
            r replicaof 127.0.0.1 [srv -1 port]
            wait_for_log "*Unexpected reply to PSYNC from master: -NOAUTH*" -tries 100
            r config set masterauth s3cret
            wait_link_up 0
            assert_equal 1 [r get guarded]
        }

        test "replica-announce-ip/port are what the primary lists" {
            wait_for_condition 50 100 {[string match "*slave0:ip=10.1.2.3,port=4567,state=online*" [r -1 info replication]]} else {
                fail "announced address not listed: [r -1 info replication]"
            }
            assert_equal {10.1.2.3 4567} [lrange [lindex [lindex [r -1 role] 2] 0] 0 1]
        }
    }
}

start_server {overrides {repl-diskless-sync-delay 0}} {
    r config set requirepass "pass\x00word"
    start_server {} {
        test "masterauth is binary-safe: a prefix up to a NUL byte is refused, the whole password works" {
            r config set masterauth "pass"
            r replicaof 127.0.0.1 [srv -1 port]
            wait_for_log "*Unable to AUTH to MASTER*" -tries 100
            assert_equal down [s 0 master_link_status]
            r config set masterauth "pass\x00word"
            assert_equal "masterauth pass\x00word" [r config get masterauth]
            wait_link_up 0
        }
    }
}

start_server {overrides {repl-diskless-sync no}} {
    start_server {} {
        test "one snapshot at a time: BGSAVE and SAVE during a full sync's, a full sync during a BGSAVE" {
            r -1 debug populate 10000
            r -1 config set rdb-key-save-delay [::harness::scaled 200]
            r replicaof 127.0.0.1 [srv -1 port]
            wait_for_condition 100 50 {[s -1 rdb_bgsave_in_progress] == 1} else { fail "no snapshot for the sync" }
            assert_error "*Background save already in progress*" {r -1 bgsave}
            assert_error "*Background save already in progress*" {r -1 save}
            assert_match "*scheduled*" [r -1 bgrewriteaof]
            r -1 config set rdb-key-save-delay 0
            wait_link_up 0
            wait_for_condition 100 100 {[aof_rewrite_idle -1]} else {
                fail "the scheduled rewrite never ran"
            }
            wait_for_condition 100 100 {[s -1 rdb_bgsave_in_progress] == 0} else { fail "snapshot still running" }
            # a replica asking while a BGSAVE runs waits for it, then syncs
            r replicaof no one
            r -1 config set rdb-key-save-delay [::harness::scaled 100]
            assert_equal "Background saving started" [r -1 bgsave]
            r -1 set during-bgsave 1
            r replicaof 127.0.0.1 [srv -1 port]
            after 300
            assert_equal down [s master_link_status]
            r -1 config set rdb-key-save-delay 0
            wait_link_up 0
            wait_same_digest -1 0
            assert_equal 1 [r get during-bgsave]
        }
    }
}

start_server {overrides {repl-diskless-sync no}} {
    start_server {} {
        start_server {} {
            test "a replica asking during a disk-based full sync shares its snapshot" {
                r -2 debug populate 10000
                r -2 config set rdb-key-save-delay [::harness::scaled 200]
                r -1 replicaof 127.0.0.1 [srv -2 port]
                wait_for_condition 100 50 {[s -2 rdb_bgsave_in_progress] == 1} else { fail "no snapshot for the sync" }
                r -2 incr between
                r replicaof 127.0.0.1 [srv -2 port]
                wait_for_log "*Waiting for end of BGSAVE for SYNC*" -level -2
                r -2 incr between
                r -2 config set rdb-key-save-delay 0
                wait_link_up -1
                wait_link_up 0
                r -2 incr between
                wait_same_digest -2 -1
                wait_same_digest -2 0
                assert_equal 3 [r get between]
                assert_equal 2 [s -2 sync_full]
            }
        }
    }
}

start_server {} {
    start_server {} {
        test "REPLICAOF: clients blocked in WAIT or BLPOP get -UNBLOCKED and are disconnected, as Redis" {
            set waiter [redis_deferring_client]
            set popper [redis_deferring_client]
            $waiter wait 1 0
            $popper blpop nokey 0
            wait_for_blocked_clients 2
            r replicaof 127.0.0.1 [srv -1 port]
            foreach c [list $waiter $popper] {
                assert_error "UNBLOCKED force unblock from blocking operation, instance state changed (master -> replica?)" {$c read}
                assert_error "*" {$c ping; $c read}
                $c close
            }
            assert_equal 0 [s blocked_clients]
            r replicaof no one
        }
    }
}

start_server {overrides {repl-diskless-sync yes repl-diskless-sync-delay 0}} {
    fill_every_type 0 mem 100
    start_server {overrides {repl-diskless-load on-empty-db}} {
        set dump [file join [srv 0 dir] dump.rdb]
        test "repl-diskless-load on-empty-db: an empty replica loads from memory (no file), a non-empty one via the disk" {
            r replicaof 127.0.0.1 [srv -1 port]
            wait_link_up 0
            wait_same_digest -1 0
            assert_equal 0 [file exists $dump]
            r replicaof no one
            r set local 1
            r replicaof 127.0.0.1 [srv -1 port]
            wait_link_up 0
            wait_same_digest -1 0
            assert_equal 1 [file exists $dump]
        }

        test "repl-diskless-load swapdb: loaded from memory, \$EOF and \$len framing" {
            r config set repl-diskless-load swapdb
            foreach sync {yes no} {
                file delete $dump
                r -1 config set repl-diskless-sync $sync
                r replicaof no one
                r set local 2
                r replicaof 127.0.0.1 [srv -1 port]
                wait_link_up 0
                r -1 incr after-sync
                wait_same_digest -1 0
                assert_equal 0 [file exists $dump]
            }
        }
    }
}

# A replica running a busy script only reads its primary's stream, and runs
# it when the script ends, as Redis 7.0 does: running it then got -BUSY,
# which dropped the write (the replica diverged) or, with
# propagation-error-behavior panic, crashed the replica.
start_server {overrides {repl-diskless-sync-delay 0}} {
    start_server {overrides {busy-reply-threshold 50 propagation-error-behavior panic}} {
        test "the primary's stream is held while the replica runs a busy script, then applied" {
            r replicaof 127.0.0.1 [srv -1 port]
            wait_link_up 0
            set rd [redis_deferring_client 0]
            $rd eval {while true do redis.call('get', 'spin') end} 0
            $rd flush
            wait_for_condition 100 50 {[catch {r ping} e] && [string match BUSY* $e]} else {
                fail "the script never became busy"
            }
            r -1 set during-script 1
            r -1 incr counter
            r -1 rpush list a b c
            # (INFO is refused while the script is busy: wait until the
            # primary has sent the stream, then give the replica's event
            # processing inside the script time to read it)
            wait_for_condition 100 50 {[string match "*obl=0 oll=0*" [r -1 client list type replica]]} else {
                fail "the primary did not send the stream"
            }
            ::harness::sleep_ms [::harness::scaled 300]
            assert_equal {} [r -1 get nosuch] ;# the primary is fine meanwhile
            r script kill
            catch {$rd read}
            $rd close
            wait_for_condition 100 50 {[r get during-script] eq 1} else {
                fail "the stream read during the script was never applied"
            }
            assert_equal 1 [r get counter]
            assert_equal {a b c} [r lrange list 0 -1]
            wait_same_digest -1 0
            assert_no_match "*BUSY*" [::harness::read_file [srv 0 stdout]]
            r -1 set after-script 2
            wait_for_condition 100 50 {[r get after-script] eq 2} else { fail "the link stopped after the script" }
        }
    }
}

# A replica that holds functions takes a second full sync in every load
# mode: the primary's libraries replace its own (it kept them and failed
# every load with "Library 'lib1' already exists", retrying with stale data).
start_server {overrides {repl-diskless-sync-delay 0}} {
    r function load {#!lua name=lib1
        redis.register_function{function_name='f1', callback=function() return 'v1' end, flags={'no-writes'}}}
    r set k1 v1
    start_server {} {
        foreach mode {disabled on-empty-db swapdb} {
            test "a second full sync replaces a replica's functions (repl-diskless-load $mode)" {
                r config set repl-diskless-load $mode
                r replicaof 127.0.0.1 [srv -1 port]
                wait_link_up 0
                wait_same_digest -1 0
                assert_equal [r -1 fcall_ro f1 0] [r fcall_ro f1 0]
                set full [s -1 sync_full]
                r replicaof no one
                r set local 1
                r function load replace {#!lua name=lib1
                    redis.register_function('f1', function() return 'replica' end)}
                r function load {#!lua name=mine
                    redis.register_function('mine', function() return 1 end)}
                r -1 function load replace "#!lua name=lib1\nredis.register_function{function_name='f1', callback=function() return '$mode' end, flags={'no-writes'}}"
                r replicaof 127.0.0.1 [srv -1 port]
                wait_link_up 0
                wait_same_digest -1 0
                assert_equal [expr {$full + 1}] [s -1 sync_full]
                assert_equal $mode [r fcall_ro f1 0]
                assert_equal {lib1} [lsort [lmap l [r function list] {dict get $l library_name}]]
                assert_no_match "*already exists*" [::harness::read_file [srv 0 stdout]]
                r replicaof no one
            }
        }
    }
}

start_server {} {
    test "REPLICAOF a dead port or itself: logged, retried, never a crash" {
        set dead [::harness::find_free_port]
        r replicaof 127.0.0.1 $dead
        wait_for_log "*Error condition on socket for SYNC*" -tries 100
        assert_equal down [s master_link_status]
        r replicaof 127.0.0.1 [srv port]
        after 1500
        assert_equal PONG [r ping]
        assert_equal "OK Already connected to specified master" [r replicaof 127.0.0.1 [srv port]]
        r replicaof 127.0.0.1 $dead
        assert_error "READONLY*" {r set stale 1}
    }

    test "replica-serve-stale-data no: -MASTERDOWN while the link is down, INFO still answers" {
        r config set replica-serve-stale-data no
        assert_error "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'." {r get x}
        assert_match "*master_link_status:down*" [r info replication]
        r config set replica-serve-stale-data yes
        assert_equal {} [r get x]
        r replicaof no one
        assert_equal master [lindex [r role] 0]
    }
}

# A fake primary: answers the handshake, then sends `payload` after
# +FULLRESYNC (with the given replid and offset 0).
proc fake_primary_accept {payload sock addr port} {
    fconfigure $sock -translation binary -buffering none -blocking 1
    set ::fake_conn $sock
    while {[gets $sock line] >= 0} {
        if {[string match {\*[0-9]*} $line]} {
            set n [string range $line 1 end]
            set words {}
            for {set j 0} {$j < $n} {incr j} {
                gets $sock len
                set w [read $sock [expr {[string range $len 1 end] + 2}]]
                lappend words [string range $w 0 end-2]
            }
            switch -nocase -- [lindex $words 0] {
                ping { puts -nonewline $sock "+PONG\r\n" }
                replconf { puts -nonewline $sock "+OK\r\n" }
                psync {
                    puts -nonewline $sock "+FULLRESYNC [string repeat a 40] 0\r\n"
                    puts -nonewline $sock $payload
                    flush $sock
                    return
                }
            }
            flush $sock
        }
    }
}

proc with_fake_primary {payload body} {
    set port [::harness::find_free_port]
    set srv [socket -server [list fake_primary_accept $payload] -myaddr 127.0.0.1 $port]
    set code [catch {uplevel 1 [list set fake_port $port]; uplevel 1 $body} err]
    close $srv
    catch {close $::fake_conn}
    if {$code} { return -code $code $err }
}

proc wait_for_log_pumping {pattern} {
    wait_for_condition 100 100 {[update; string match $pattern [log_tail 0 40]]} else {
        fail "never logged $pattern: [log_tail 0 20]"
    }
}

start_server {} {
    r debug populate 100 mine
    test "a primary sending garbage: a clear log line and a retry" {
        with_fake_primary "this is not RESP\r\n" {
            r replicaof 127.0.0.1 $fake_port
            wait_for_log_pumping "*Bad protocol from MASTER*"
            r replicaof no one
        }
        assert_equal 100 [r dbsize]
    }

    test "a truncated RDB: the load fails, nothing half-loaded is served" {
        if {![ours]} { skip "Redis 7.0 exits on a truncated snapshot from its primary" }
        set rdb "REDIS0010\xfa\x09redis-ver\x067.0.15\xfe\x00\xfb\x02\x00\x00\x01k\x01v\x00\x02k2"
        with_fake_primary "\$[string length $rdb]\r\n$rdb" {
            r replicaof 127.0.0.1 $fake_port
            wait_for_log_pumping "*Failed trying to load the MASTER synchronization DB*"
            assert_equal 0 [r dbsize]
            r replicaof no one
        }
    }

    test "a truncated RDB with repl-diskless-load swapdb: the old dataset stays, with its functions" {
        if {![ours]} { skip "Redis 7.0 exits on a truncated snapshot from its primary" }
        r debug populate 50 kept
        r function load {#!lua name=keptlib
            redis.register_function{function_name='kept', callback=function() return 'still here' end, flags={'no-writes'}}}
        r config set repl-diskless-load swapdb
        set rdb "REDIS0010\xfa\x09redis-ver\x067.0.15\xfe\x00\xfb\x02\x00\x00\x01k\x01v\x00\x02k2"
        with_fake_primary "\$[string length $rdb]\r\n$rdb" {
            r replicaof 127.0.0.1 $fake_port
            wait_for_log_pumping "*Discarding temporary DB in background*"
            assert_equal 50 [r dbsize]
            assert_equal {still here} [r fcall_ro kept 0]
            r replicaof no one
        }
        r function flush
        r config set repl-diskless-load disabled
    }

    test "a wrong \$EOF marker: the transfer never completes and times out" {
        r config set repl-timeout 2
        set mark [string repeat b 40]
        with_fake_primary "\$EOF:$mark\r\nREDIS0010\xff[string repeat c 40]" {
            r replicaof 127.0.0.1 $fake_port
            wait_for_log_pumping "*Timeout receiving bulk data from MASTER*"
            r replicaof no one
        }
        assert_equal PONG [r ping]
    }
}

start_server {} {
    start_server {} {
        test "a big command from the primary leaves no buffer of its size on the replica" {
            r replicaof 127.0.0.1 [srv -1 port]
            wait_link_up 0
            set before [s used_memory]
            r -1 set big [string repeat x [expr {8 * 1024 * 1024}]]
            wait_offsets_equal -1 0
            set value [r memory usage big]
            # the value, plus at most a few MB (backlog, reply buffers): the
            # buffer of bytes still to feed on to sub-replicas kept 8+ MB more
            wait_for_condition 50 100 {[s used_memory] - $before < $value + 3 * 1024 * 1024} else {
                fail "the replica holds [expr {[s used_memory] - $before}] bytes more for a value of $value"
            }
        }
    }
}

start_server {overrides {save {3600 1}}} {
    start_server {} {
        test "a restarted primary continues its history: old id as secondary, expired keys' DELs after it, partial resync" {
            r replicaof 127.0.0.1 [srv -1 port]
            wait_link_up 0
            r -1 debug set-active-expire 0
            for {set i 0} {$i < 10} {incr i} { r -1 set vol$i x px 50 }
            r -1 select 3
            r -1 set keep yes
            r -1 select 9
            wait_offsets_equal -1 0
            set id [s -1 master_replid]
            set offset [s -1 master_repl_offset]
            r -1 config resetstat
            assert_equal 0 [s -1 sync_full] ;# CONFIG RESETSTAT clears the sync counters, as in Redis
            after 100 ;# the ten keys are past their time when the primary loads them
            restart_server -1
            wait_link_up 0
            assert_equal $id [s -1 master_replid2]
            assert_equal [expr {$offset + 1}] [s -1 second_repl_offset]
            assert {[s -1 master_replid] ne $id}
            assert_equal 10 [s -1 rdb_last_load_keys_expired]
            assert_morethan [s -1 master_repl_offset] $offset ;# their DELs, fed before any replica came
            wait_for_condition 50 100 {[s -1 sync_partial_ok] == 1} else { fail "no partial resync" }
            assert_equal 0 [s -1 sync_full]
            wait_offsets_equal -1 0
            wait_same_digest -1 0
            r select 3
            assert_equal yes [r get keep]
            r select 9
            assert_equal 0 [r exists vol0 vol9]
        }
    }
}

# ---- with Debian's Redis 7.0.15 ---------------------------------------------------------

if {![have_reference]} {
    test "interoperability with Redis 7.0.15" { skip "$::reference_bin is not installed" }
} else {
    start_reference_server {repl-diskless-sync-delay 0} {
        start_server {} {
            test "our replica of a Redis primary: full sync with writes during it, equal digests" {
                fill_every_type -1 before 100
                r -1 config set rdb-key-save-delay 300
                r replicaof 127.0.0.1 [srv -1 port]
                wait_for_condition 50 100 {[s -1 connected_slaves] == 1} else { fail "no replica" }
                fill_every_type -1 during 30
                r -1 config set rdb-key-save-delay 0
                wait_link_up 0
                wait_same_digest -1 0
            }
            test "our replica of a Redis primary: partial resync after CLIENT KILL on either side" {
                set ok [s -1 sync_partial_ok]
                r client kill type master
                r -1 incr c
                wait_for_condition 50 100 {[s -1 sync_partial_ok] == $ok + 1} else { fail "no partial resync" }
                r -1 client kill type replica
                r -1 incr c
                wait_for_condition 50 100 {[s -1 sync_partial_ok] == $ok + 2} else { fail "no partial resync" }
                wait_same_digest -1 0
            }
            start_server {} {
                test "a chain Redis -> ours -> ours" {
                    r replicaof 127.0.0.1 [srv -1 port]
                    wait_link_up 0
                    r -2 set chained yes
                    wait_for_condition 50 100 {[r get chained] eq "yes"} else { fail "not chained" }
                    wait_same_digest -2 0
                }
            }
        }
    }

    start_server {overrides {repl-diskless-sync-delay 0}} {
        start_reference_server {} {
            test "a Redis replica of our primary: full sync with writes during it, equal digests" {
                fill_every_type -1 before 100
                r -1 config set rdb-key-save-delay 300
                r replicaof 127.0.0.1 [srv -1 port]
                wait_for_condition 50 100 {[s -1 connected_slaves] == 1} else { fail "no replica" }
                fill_every_type -1 during 30
                r -1 config set rdb-key-save-delay 0
                wait_link_up 0
                wait_same_digest -1 0
            }
            test "a Redis replica of our primary: partial resync after CLIENT KILL on either side" {
                set ok [s -1 sync_partial_ok]
                r client kill type master
                r -1 incr c
                wait_for_condition 50 100 {[s -1 sync_partial_ok] == $ok + 1} else { fail "no partial resync" }
                r -1 client kill type replica
                r -1 incr c
                wait_for_condition 50 100 {[s -1 sync_partial_ok] == $ok + 2} else { fail "no partial resync" }
                assert_equal 1 [r -1 wait 1 5000]
                wait_same_digest -1 0
            }
            start_server {} {
                test "a chain ours -> Redis -> ours" {
                    r replicaof 127.0.0.1 [srv -1 port]
                    wait_link_up 0
                    r -2 set chained yes
                    wait_for_condition 50 100 {[r get chained] eq "yes"} else { fail "not chained" }
                    wait_same_digest -2 0
                }
            }
        }
    }
}

}

# CONFIG SET repl-backlog-size takes effect at once, as in Redis 7.0 (its
# cluster suite 22-replica-in-sync shrinks the backlog to force a full sync).
start_server {overrides {repl-diskless-sync-delay 0}} {
    start_server {} {
        test "CONFIG SET repl-backlog-size: 16 KB at least, the ring resized at once: a replica within it resyncs partially, one further behind in full" {
            r replicaof 127.0.0.1 [srv -1 port]
            wait_link_up 0
            r -1 config set repl-backlog-size 100
            assert_equal {repl-backlog-size 16384} [r -1 config get repl-backlog-size]
            r -1 set small v
            wait_offsets_equal -1 0
            set partial [s -1 sync_partial_ok]
            set full [s -1 sync_full]
            r -1 multi
            r -1 client kill type replica
            r -1 set within-backlog [string repeat B 1000]
            r -1 exec
            wait_link_up 0
            wait_for_condition 50 100 {[s -1 sync_partial_ok] == $partial + 1} else { fail "no partial resync" }
            wait_offsets_equal -1 0
            r -1 multi
            r -1 client kill type replica
            for {set j 0} {$j < 40} {incr j} { r -1 set big$j [string repeat A 1024] }
            r -1 exec
            wait_for_condition 50 100 {[s -1 sync_full] == $full + 1} else { fail "no full sync: [r -1 info replication]" }
            assert_equal $partial [expr {[s -1 sync_partial_ok] - 1}]
            wait_link_up 0
            wait_same_digest -1 0
            # growing it keeps what it holds: a short outage still resyncs partially
            r -1 config set repl-backlog-size 1mb
            r -1 multi
            r -1 client kill type replica
            r -1 set after-grow v
            r -1 exec
            wait_for_condition 50 100 {[s -1 sync_partial_ok] == $partial + 2} else { fail "no partial resync after growing" }
            wait_link_up 0
            wait_same_digest -1 0
            # a size no machine (and no 32-bit size_t) holds: accepted, as Redis
            # (which grows its backlog as data comes), the ring kept as it is
            assert_equal OK [r -1 config set repl-backlog-size 1000000gb]
            if {[ours]} { ;# our line; Redis's backlog has nothing to resize
                wait_for_log "*Can't resize the replication backlog to 1073741824000000 bytes: it stays at 1048576 bytes*" -level -1
            }
            r -1 set after-huge v
            wait_same_digest -1 0
            r -1 config set repl-backlog-size 1mb
        }
    }
}
