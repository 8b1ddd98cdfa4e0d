# A diskless full sync to several replicas goes through the primary, as in
# Redis 7.0: the fork child writes the snapshot to a pipe, the primary
# writes each buffer to every replica of the batch (repl_rdbpipe.c). What
# operators see of it are Redis's log lines ("Diskless rdb transfer, done
# reading from pipe, N replicas still up.", "Disconnecting timedout replica
# (full sync): ..."), and a replica that stopped reading is dropped after
# repl-timeout while the others get their snapshot.
#
# The snapshot (30 MB, uncompressed) is bigger than the kernel's socket
# buffers, so a stopped replica does hold the transfer back. Runs against
# Debian's Redis 7.0.15 too (--server /usr/bin/redis-server).

source [file join $::harness_dir replication.tcl] ;# wait_link_up, wait_same_digest

tags {replication external:skip} {

# The primary's INFO lists n replicas waiting for their snapshot.
proc rdbpipe_waiting {level n} {
    wait_for_condition 100 100 {
        [regexp -all {slave[0-9]+:[^\r\n]*state=wait_bgsave} [r $level info replication]] == $n
    } else {
        fail "not $n replicas waiting for a full sync: [r $level info replication]"
    }
}

start_server {overrides {repl-diskless-sync yes repl-diskless-sync-delay 3600 repl-diskless-sync-max-replicas 2
                         rdbcompression no}} {
    r debug populate 3000 key 10000
    start_server {} {
        start_server {} {
            test "diskless sync to two replicas: both loaded, and the primary logs Redis's 'done reading from pipe, 2 replicas still up'" {
                set from [log_line_count -2]
                r -1 replicaof 127.0.0.1 [srv -2 port]
                r replicaof 127.0.0.1 [srv -2 port]
                wait_link_up -1
                wait_link_up 0
                wait_for_log "*Diskless rdb transfer, done reading from pipe, 2 replicas still up*" -level -2 -from $from
                wait_same_digest -2 -1
                wait_same_digest -2 0
                r -1 replicaof no one
                r replicaof no one
            }

            test "diskless sync: a stopped replica is dropped after repl-timeout ('Disconnecting timedout replica (full sync)'), the other one gets the snapshot" {
                set from [log_line_count -2]
                r -2 config set repl-timeout [::harness::scaled 2]
                r -1 replicaof 127.0.0.1 [srv -2 port]
                rdbpipe_waiting -2 1
                set stopped_pid [srv -1 pid]
                ::harness::send_signal STOP $stopped_pid
                if {[catch {
                    r replicaof 127.0.0.1 [srv -2 port]
                    wait_for_log "*Disconnecting timedout replica (full sync): 127.0.0.1:[srv -1 port]*" -level -2 -from $from -tries 600
                    r -2 config set repl-timeout 60
                    wait_for_log "*Diskless rdb transfer, done reading from pipe, 1 replicas still up*" -level -2 -from $from -tries 600
                    wait_link_up 0
                    wait_same_digest -2 0
                } err]} {
                    ::harness::send_signal CONT $stopped_pid
                    error $err $::errorInfo
                }
                # the dropped replica syncs again once it runs
                r -2 config set repl-diskless-sync-delay 0
                ::harness::send_signal CONT $stopped_pid
                wait_link_up -1
                wait_same_digest -2 -1
                r -1 replicaof no one
                r replicaof no one
            }
        }
    }
}

}
