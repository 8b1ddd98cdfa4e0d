# daemonize yes: the server forks into the background at start-up, and the
# daemon's fork children (BGSAVE, BGREWRITEAOF, a replica's full sync) must
# work as a foreground server's do. A fault found in stop 46's TLS cluster
# work: the daemon kept the pid of the process that started it as its own,
# so every fork child took its parent for dead (setupForkChild) and exited
# at once -- snapshots failed, a replica never synced.

proc dz_start {dir port} {
    set pidfile [file join $dir redis.pid]
    exec {*}[server_command --port $port --bind 127.0.0.1 --dir $dir --logfile [file join $dir log] \
                 --daemonize yes --pidfile $pidfile --save "" --repl-diskless-sync-delay 0 --enable-debug-command yes] < /dev/null
    set client {}
    for {set i 0} {$i < [::harness::scaled 200]} {incr i} {
        if {[file exists $pidfile] && ![catch {::resp::connect 127.0.0.1 $port} client]} {
            if {![catch {$client ping}]} break
            catch {$client close}
            set client {}
        }
        ::harness::sleep_ms 50
    }
    if {$client eq {}} { fail "the daemon did not start: [::harness::read_file [file join $dir log]]" }
    set pid [string trim [::harness::read_file $pidfile]]
    ::harness::registry_add $pid $::harness::opt(server) $dir $port
    return [list $pid $client]
}

proc dz_field {client field} {
    regexp "$field:(\[^\r\n\]*)" [$client info] - v
    return $v
}

if {[::harness::external]} {
    test "daemonize" { skip "external mode: the test starts its own daemon" }
    return
}

set dir [::harness::fresh_run_dir daemonize]
set port [::harness::find_free_port]
lassign [dz_start $dir $port] pid client

test {daemonize yes: the daemon's BGSAVE child writes the snapshot} {
    assert_equal $pid [dz_field $client process_id]
    $client debug populate 1000
    assert_equal {Background saving started} [$client bgsave]
    wait_for_condition 200 50 {[dz_field $client rdb_bgsave_in_progress] == 0} else { fail "BGSAVE never ended" }
    assert_equal ok [dz_field $client rdb_last_bgsave_status]
    assert [file exists [file join $dir dump.rdb]]
}

test {daemonize yes: the daemon's AOF rewrite child completes} {
    $client config set appendonly yes
    wait_for_condition 200 50 {[dz_field $client aof_rewrite_in_progress] == 0 &&
                               [dz_field $client aof_rewrite_scheduled] == 0} else { fail "the rewrite never ended" }
    assert_equal ok [dz_field $client aof_last_bgrewrite_status]
    $client config set appendonly no
}

start_server {} {
    test {daemonize yes: a replica completes a full sync from the daemon (disk and diskless)} {
        foreach diskless {no yes} {
            $client config set repl-diskless-sync $diskless
            r replicaof no one
            r flushall
            r replicaof 127.0.0.1 $port
            wait_for_condition 200 50 {[string match *master_link_status:up* [r info replication]]} else {
                fail "no sync from the daemon (diskless $diskless): [::harness::read_file [file join $dir log]]"
            }
            assert_equal 1000 [r dbsize]
        }
        r replicaof no one
    }
}

catch {$client shutdown nosave}
catch {$client close}
::harness::terminate_pid $pid [expr {1000 * [::harness::scaled 10]}]
::harness::registry_remove $pid
