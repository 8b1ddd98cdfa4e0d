# server-log.tcl -- the log lines sysadmins and log parsers look for, in
# Redis 7.0's words and order: the start-up banner and checks, the signals
# that shut the server down, a port that can't be bound; and --check-system's
# report of the system settings start-up warns about.
#
# Design decisions:
# - Every test also runs against the reference server
#   (./runtest --server /usr/bin/redis-server --single unit/server-log), so
#   the texts are Redis 7.0's; --check-system is ours only.
# - The overcommit warning depends on the machine: the test reads
#   /proc/sys/vm/overcommit_memory itself and expects the warning exactly
#   when it is 0 (skipped where there is no such file).


# The index of the first line of LINES matching each pattern, in order;
# fails naming a pattern that matches no line after the previous one.
proc assert_lines_in_order {lines patterns} {
    set from 0
    foreach pattern $patterns {
        set idx [lsearch -glob [lrange $lines $from end] $pattern]
        if {$idx < 0} { fail "no log line after line $from matches '$pattern':\n[join $lines \n]" }
        set from [expr {$from + $idx + 1}]
    }
}

proc overcommit_setting {} {
    if {![file readable /proc/sys/vm/overcommit_memory]} { return "" }
    return [string trim [::harness::read_file /proc/sys/vm/overcommit_memory]]
}

set overcommit_text "WARNING Memory overcommit must be enabled! Without it, a background save or replication may fail under low memory condition. Being disabled, it can can also cause failures without low memory condition, see https://github.com/jemalloc/jemalloc/issues/1328. To fix this issue add 'vm.overcommit_memory = 1' to /etc/sysctl.conf and then reboot or run the command 'sysctl vm.overcommit_memory=1' for this to take effect."

start_server {tags {log}} {
    test "start-up logs Redis's lines in Redis's order" {
        wait_for_log "*Ready to accept connections*"
        set lines [split [log_tail 0 100] \n]
        assert_lines_in_order $lines {
            "*# oO0OoO0OoO0Oo Redis is starting oO0OoO0OoO0Oo"
            "*# Redis version=7.0.15, bits=*, commit=*, modified=*, pid=*, just started"
            "*# Configuration loaded"
            "** Running mode=standalone, port=*."
            "*# Server initialized"
            "** Ready to accept connections"
        }
        assert_match "*Running mode=standalone, port=[srv port].*" [log_tail 0 100]
    }

    test "start-up warns when vm.overcommit_memory is 0, with Redis's text and fix" {
        set setting [overcommit_setting]
        if {$setting eq ""} { skip "no /proc/sys/vm/overcommit_memory (not Linux?)" }
        set lines [split [log_tail 0 100] \n]
        set found [lsearch -all -inline -glob $lines "*# $::overcommit_text"]
        if {$setting == 0} {
            assert_equal 1 [llength $found]
            assert_lines_in_order $lines {"*Server initialized" "*Memory overcommit must be enabled*" "*Ready to accept*"}
        } else {
            assert_equal 0 [llength $found]
        }
    }

    test "--check-system reports vm.overcommit_memory, with the warning when it is 0" {
        if {![ours]} { skip "--check-system is this server's" }
        set setting [overcommit_setting]
        if {$setting eq ""} { skip "no /proc/sys/vm/overcommit_memory (not Linux?)" }
        set out [exec {*}[server_command --check-system]]
        assert_match "* overcommit_memory=$setting*" [lindex [split $out \n] 0]
        if {$setting == 0} {
            assert_equal $::overcommit_text [lindex [split $out \n] 1]
        } else {
            assert_equal 1 [llength [split $out \n]]
        }
    }

    test "a port in use: Could not create server TCP listening socket, then Failed listening, exit 1" {
        lassign [run_failing_server --port [srv port] --bind 127.0.0.1] status err out
        assert_equal 1 $status
        # strerror(EADDRINUSE): "Address already in use" (glibc), "Address in use" (musl)
        set lines [split $out \n]
        assert_lines_in_order $lines [list \
            "*# Warning: Could not create server TCP listening socket 127.0.0.1:[srv port]: bind: Address*in use" \
            "*# Failed listening on port [srv port] (TCP), aborting."]
    }
}

start_server {tags {log} overrides {always-show-logo yes}} {
    test "always-show-logo: a block with the version, the mode, the port and \" PID: <pid>\" instead of Running mode=" {
        wait_for_log "*Ready to accept connections*"
        set log [log_tail 0 100]
        assert_match "*\n    Port: [srv port]\n    PID: [srv pid]\n*" $log
        assert_match "*Redis 7.0.15, * bit*Running in standalone mode*" $log
        assert_no_match "*Running mode=*" $log
    } {external:skip}
}

start_server {tags {log} overrides {pidfile redis-test.pid}} {
    test "SIGTERM: Received SIGTERM scheduling shutdown..., then the pid file goes" {
        set pidfile [file join [srv dir] redis-test.pid]
        wait_for_condition 50 20 {[file exists $pidfile]} else { fail "no pid file" }
        set from [log_line_count]
        restart_server ;# stops it with SIGTERM
        set lines [lrange [split [::harness::read_file [srv stdout]] \n] $from end]
        assert_lines_in_order $lines {
            "*:signal-handler (*) Received SIGTERM scheduling shutdown..."
            "*# User requested shutdown..."
            "** Removing the pid file."
            "*# Redis is now ready to exit, bye bye..."
        }
    } {needs:restart}

    test "SHUTDOWN ABORT cancels the shutdown a SIGTERM scheduled; with none scheduled it is an error" {
        assert_error "ERR No shutdown in progress." {r shutdown abort}
        assert_error "ERR syntax error" {r shutdown abort nosave}
        r debug pause-cron 1 ;# the cron is what would act on the signal
        set from [log_line_count]
        ::harness::send_signal TERM [srv pid]
        wait_for_log "*Received SIGTERM scheduling shutdown..." -from $from
        assert_equal OK [r shutdown abort]
        wait_for_log "*Shutdown manually aborted.*" -from $from
        r debug pause-cron 0
        after 300
        assert_equal PONG [r ping]
        assert_error "ERR No shutdown in progress." {r shutdown abort}
    } {needs:debug}

    test "A second SIGINT during the shutdown's save exits at once and removes the half-written file" {
        r config set save "3600 1"
        for {set i 0} {$i < 20} {incr i} { r set k$i $i }
        r config set rdb-key-save-delay 100000 ;# 2 s for the 20 keys
        set pid [srv pid]
        set temp [file join [srv dir] temp-$pid.rdb]
        set from [log_line_count]
        ::harness::send_signal INT $pid
        wait_for_condition 100 20 {[file exists $temp]} else { fail "the shutdown's save did not start" }
        ::harness::send_signal INT $pid
        wait_for_condition 100 20 {![::harness::pid_alive $pid]} else { fail "the second SIGINT did not stop the server" }
        assert {![file exists $temp]}
        wait_for_log "*You insist... exiting now.*" -from $from
        file delete [file join [srv dir] dump.rdb]
        restart_server -kill ;# it is gone already, with status 1 as in Redis
        r config set save ""
    } {needs:restart}

    test "SIGINT: Received SIGINT scheduling shutdown..." {
        set from [log_line_count]
        ::harness::send_signal INT [srv pid]
        wait_for_condition 100 50 {![::harness::pid_alive [srv pid]]} else { fail "SIGINT did not stop the server" }
        restart_server
        set lines [lrange [split [::harness::read_file [srv stdout]] \n] $from end]
        assert_lines_in_order $lines {
            "*:signal-handler (*) Received SIGINT scheduling shutdown..."
            "*# User requested shutdown..."
            "*# Redis is now ready to exit, bye bye..."
        }
    } {needs:restart}
}
