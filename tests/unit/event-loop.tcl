# event-loop.tcl -- event-loop-spin-us, this server's own directive (not in
# Redis): after a pass that served clients the event loop polls without
# blocking for up to that many microseconds before it sleeps (src/lib/ae.c).
# Its CONFIG GET/SET and bounds, that commands are still answered with the
# spin on, and that an idle server with the spin at its largest does not
# burn CPU.
#
# Design decisions:
# - The directive is ours, so the file is tagged our-own (as shm.tcl is)
#   and external:skip: it does not run against the reference server.
# - CPU time is read from /proc/PID/stat (utime + stime, in clock ticks), so
#   the idle test needs Linux's /proc and the server's own pid: it skips
#   under a wrapper (an emulator's pid is not the server's CPU alone) or
#   without /proc. The limit, 5% of a core over 1 s, is generous: the
#   server's cron alone costs well under 1%, while a loop that kept spinning
#   would cost close to 100%.
# - The spin logic itself (never after an idle pass, never past a timer,
#   catching an event that arrives during the spin) is unit-tested in
#   tests/c/test_ae.c.

# utime + stime of process pid, in clock ticks (fields 14 and 15 of
# /proc/PID/stat; the command name in field 2 may contain spaces, so the
# fields are counted after its closing parenthesis).
proc cpu_ticks {pid} {
    set stat [::harness::read_file /proc/$pid/stat]
    set rest [string range $stat [string last ")" $stat]+2 end]
    return [expr {[lindex $rest 11] + [lindex $rest 12]}]
}

proc clock_ticks_per_second {} {
    if {[catch {exec getconf CLK_TCK} hz] || ![string is integer -strict $hz]} { return 100 }
    return $hz
}

tags {our-own external:skip} {
start_server {} {
    test "event-loop-spin-us: CONFIG GET/SET and its bounds" {
        assert_equal {event-loop-spin-us 20} [r config get event-loop-spin-us] "the default"
        r config set event-loop-spin-us 1000
        assert_equal {event-loop-spin-us 1000} [r config get event-loop-spin-us]
        r config set event-loop-spin-us 0
        assert_equal {event-loop-spin-us 0} [r config get event-loop-spin-us]
        foreach {bad reason} {
            1001 "argument must be between 0 and 1000 inclusive"
            -1   "argument must be between 0 and 1000 inclusive"
            abc  "argument couldn't be parsed into an integer"
            1.5  "argument couldn't be parsed into an integer"
        } {
            assert_equal "ERR CONFIG SET failed (possibly related to argument 'event-loop-spin-us') - $reason" \
                [error_of r config set event-loop-spin-us $bad] "value '$bad'"
        }
        assert_equal {event-loop-spin-us 0} [r config get event-loop-spin-us] "a refused value changes nothing"
        r config set event-loop-spin-us 20
    }

    test "event-loop-spin-us: clients are served with the spin on" {
        r config set event-loop-spin-us 1000
        set clients {}
        for {set i 0} {$i < 5} {incr i} { lappend clients [redis_deferring_client] }
        for {set round 0} {$round < 20} {incr round} {
            foreach c $clients { $c incr spin-counter }
            foreach c $clients { $c read }
        }
        assert_equal 100 [r get spin-counter]
        foreach c $clients { $c close }
        r config set event-loop-spin-us 20
    }

    test "event-loop-spin-us: an idle server does not spin" {
        set pid [srv pid]
        if {![file readable /proc/$pid/stat]} { skip "no /proc/$pid/stat (not Linux?)" }
        if {$::harness::opt(wrapper) ne ""} { skip "under a wrapper the pid's CPU time is not the server's" }
        r config set event-loop-spin-us 1000
        # Traffic first, so the last pass that served it had events; then
        # 50 clients connected and silent.
        set idle {}
        for {set i 0} {$i < 50} {incr i} {
            set c [redis_client]
            $c ping
            lappend idle $c
        }
        for {set i 0} {$i < 200} {incr i} { r ping }
        after 100
        set hz [clock_ticks_per_second]
        set before [cpu_ticks $pid]
        set t0 [clock milliseconds]
        after 1000
        set ticks [expr {[cpu_ticks $pid] - $before}]
        set ms [expr {[clock milliseconds] - $t0}]
        set percent [expr {100.0 * $ticks / $hz * 1000.0 / $ms}]
        foreach c $idle { $c close }
        r config set event-loop-spin-us 20
        assert {$percent < 5} "idle server used $percent% of a core over $ms ms ($ticks ticks at $hz Hz)"
    }
}
}
