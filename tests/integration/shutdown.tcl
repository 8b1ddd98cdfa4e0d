# shutdown.tcl -- shutdown-timeout (Redis 7.0): a primary that is stopped
# (SHUTDOWN without NOW, SIGTERM, SIGINT) while a replica has not
# acknowledged the whole replication stream pauses writes, asks for an ACK
# and waits up to shutdown-timeout seconds, so the replica gets every
# acknowledged write; it then exits either way, logging each replica still
# behind. SHUTDOWN ABORT cancels the wait; SHUTDOWN NOW skips it.
#
# The replica is made to lag by stopping its process (SIGSTOP), and always
# continued (SIGCONT) before its block ends.

proc stop_process {pid} { ::harness::send_signal STOP $pid }
proc continue_process {pid} { ::harness::send_signal CONT $pid }

proc wait_primary_gone {} {
    wait_for_condition 200 50 {![::harness::pid_alive [srv -1 pid]]} else { fail "the primary did not exit" }
}

proc wait_link_up_here {} {
    wait_for_condition 100 100 {[string match *master_link_status:up* [r info replication]]} else {
        fail "the replica's link never came up"
    }
}

start_server {tags {shutdown repl} overrides {repl-diskless-sync-delay 0 shutdown-timeout 10}} {
    start_server {} {
        r replicaof 127.0.0.1 [srv -1 port]
        wait_link_up_here

        test "CONFIG shutdown-timeout: 0 and up, seconds" {
            assert_equal {shutdown-timeout 10} [r -1 config get shutdown-timeout]
            assert_error "*shutdown-timeout*" {r -1 config set shutdown-timeout -1}
            assert_error "*shutdown-timeout*" {r -1 config set shutdown-timeout abc}
        }

        test "SHUTDOWN waits for a lagging replica, which gets every write before the primary exits" {
            set replica [srv 0 pid]
            stop_process $replica
            try {
                for {set i 0} {$i < 100} {incr i} { r -1 set key:$i $i }
                set from [log_line_count -1]
                set rd [redis_deferring_client -1]
                $rd shutdown nosave
                $rd flush
                wait_for_log "*Waiting for replicas before shutting down.*" -level -1 -from $from
                assert_equal 99 [r -1 get key:99] ;# reads are served meanwhile
                assert {[::harness::pid_alive [srv -1 pid]]}
            } finally {
                continue_process $replica
            }
            wait_primary_gone
            assert_equal 100 [r dbsize]
            assert_equal 99 [r get key:99]
            wait_for_log "*1 of 1 replicas are in sync when shutting down.*" -level -1 -from $from
            restart_server -kill -1
            wait_link_up_here
        } {needs:restart}

        test "shutdown-timeout passes (SIGTERM): the primary exits anyway and logs the lagging replica" {
            r -1 config set shutdown-timeout 1
            set replica [srv 0 pid]
            stop_process $replica
            try {
                r -1 set late 1
                set from [log_line_count -1]
                ::harness::send_signal TERM [srv -1 pid]
                wait_for_log "*Waiting for replicas before shutting down.*" -level -1 -from $from
                wait_primary_gone
            } finally {
                continue_process $replica
            }
            wait_for_log "*Lagging replica 127.0.0.1:* reported offset * behind master, lag=*, state=online.*" \
                -level -1 -from $from
            wait_for_log "*0 of 1 replicas are in sync when shutting down.*" -level -1 -from $from
            restart_server -kill -1
            wait_link_up_here
        } {needs:restart}

        test "SHUTDOWN ABORT while it waits: the SHUTDOWN gets an error, writes go on" {
            if {[s -1 server_name] eq ""} { skip "Redis 7.0.15 aborts (assertion, SIGABRT) on SHUTDOWN ABORT while a SHUTDOWN waits" }
            r -1 config set shutdown-timeout 60
            set replica [srv 0 pid]
            stop_process $replica
            try {
                r -1 set before-abort 1
                set from [log_line_count -1]
                set rd [redis_deferring_client -1]
                $rd shutdown nosave
                $rd flush
                wait_for_log "*Waiting for replicas before shutting down.*" -level -1 -from $from
                # INFO shows what is left of the wait only while it lasts
                set left [s -1 shutdown_in_milliseconds]
                assert_range $left 1 60000
                assert_equal OK [r -1 shutdown abort]
                assert_equal {} [s -1 shutdown_in_milliseconds]
                assert_error "ERR Errors trying to SHUTDOWN. Check logs." {$rd read}
                $rd ping
                $rd flush
                assert_equal PONG [$rd read] ;# the connection is usable again
                $rd close
                assert_equal OK [r -1 set after-abort 1]
                assert_error "ERR No shutdown in progress." {r -1 shutdown abort}
                wait_for_log "*Shutdown manually aborted.*" -level -1 -from $from
            } finally {
                continue_process $replica
            }
            wait_for_condition 100 50 {[r get after-abort] eq 1} else { fail "the replica did not catch up" }
        }

        test "SHUTDOWN NOW does not wait for the lagging replica" {
            set replica [srv 0 pid]
            stop_process $replica
            try {
                r -1 set now 1
                set from [log_line_count -1]
                catch {r -1 shutdown nosave now}
                wait_primary_gone
            } finally {
                continue_process $replica
            }
            set log [lrange [split [::harness::read_file [srv -1 stdout]] \n] $from end]
            assert_equal {} [lsearch -all -glob $log "*Waiting for replicas*"]
            assert_equal 1 [llength [lsearch -all -glob $log "*0 of 1 replicas are in sync*"]]
            restart_server -kill -1
            wait_link_up_here
        } {needs:restart}

        test "Replicas in sync: SHUTDOWN exits without waiting out the timeout" {
            r -1 config set shutdown-timeout 60
            r -1 set in-sync 1
            wait_for_condition 100 50 {[r get in-sync] eq 1} else { fail "the replica did not catch up" }
            set from [log_line_count -1]
            catch {r -1 shutdown nosave}
            wait_primary_gone
            wait_for_log "*1 of 1 replicas are in sync when shutting down.*" -level -1 -from $from
            restart_server -kill -1
        } {needs:restart}
    }
}
