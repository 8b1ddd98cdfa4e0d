# util.tcl -- process, port, time and file helpers shared by the test runner
# and the per-file worker.
#
# Design decisions:
# - Processes are only ever addressed by PID, never by name. A PID is
#   trusted only while its command line still contains what we started
#   (pid_matches), so a recycled PID is never signalled.
# - Liveness is read from /proc/PID/stat where it exists (no fork), else from
#   ps. A zombie counts as dead: a server that exited but was not yet reaped
#   by its parent is gone as far as the tests are concerned.
# - Signals are sent with the shell's builtin kill, which every system has,
#   rather than a kill binary that minimal images may lack.
# - Every started server is recorded as a file named after its PID in
#   RUN_DIR/pids/, so whoever outlives a crashed or killed worker (the
#   runner, or the runtest shell wrapper on an interrupt) can stop it.
# - All waiting goes through the event loop (vwait with a timer), so queued
#   client output keeps flowing while a test sleeps.

namespace eval ::harness {
    # Options shared by runner and worker; the runner fills them from the
    # command line and hands them to each worker.
    variable opt
    array set opt {
        time_factor 1 verbose 0 dont_clean 0 run_dir "" server ""
        wrapper "" tags "" host "" port "" port_base 21000 port_range 500 shm 0
    }
    variable port_cursor -1
    variable sleep_seq 0
    # Lines that start a crash report or a sanitizer finding.
    variable crash_patterns {
        "*crashed by signal*" "*BUG REPORT START*" "*ASSERTION FAILED*"
        "*Guru Meditation*" "*ERROR: AddressSanitizer*" "*ERROR: LeakSanitizer*"
        "*runtime error:*" "*panic:*" "*uncaught target signal*"
    }
}

# ---- time -------------------------------------------------------------------------

proc ::harness::factor {} {
    variable opt
    return $opt(time_factor)
}

# Scales a duration (any unit) by the time factor, rounding up.
proc ::harness::scaled {amount} {
    return [expr {int(ceil($amount * [factor]))}]
}

# 1 when the server under test runs under an emulator (--wrapper), where
# a test's data size is cut so the file stays within the cross matrix's time.
proc ::harness::emulated {} {
    variable opt
    return [expr {$opt(wrapper) ne ""}]
}

# Sleeps while still serving the event loop.
proc ::harness::sleep_ms {ms} {
    variable sleep_seq
    set var ::harness::wake[incr sleep_seq]
    set $var 0
    after $ms [list set $var 1]
    vwait $var
    unset $var
}

# ---- processes -----------------------------------------------------------------------

# Process state letter (R, S, D, Z, ...) or "" when there is no such process.
proc ::harness::pid_state {pid} {
    if {![string is integer -strict $pid] || $pid <= 0} { return "" }
    if {[file isdirectory /proc/self]} {
        if {[catch {open /proc/$pid/stat r} fd]} { return "" }
        set stat [read $fd]
        close $fd
        # The command name is in parentheses and may itself contain them.
        set after_name [string range $stat [string last ")" $stat]+1 end]
        return [lindex $after_name 0]
    }
    if {[catch {exec ps -o stat= -p $pid} state]} { return "" }
    return [string index [string trim $state] 0]
}

proc ::harness::pid_alive {pid} {
    set state [pid_state $pid]
    return [expr {$state ne "" && $state ni {Z X x}}]
}

proc ::harness::pid_cmdline {pid} {
    if {[file readable /proc/$pid/cmdline]} {
        if {[catch {open /proc/$pid/cmdline r} fd]} { return "" }
        fconfigure $fd -translation binary
        set line [string map [list \0 " "] [read $fd]]
        close $fd
        return [string trim $line]
    }
    if {[catch {exec ps -o args= -p $pid} line]} { return "" }
    return [string trim $line]
}

# True when PID is alive and its command line contains PATTERN (a plain
# substring, typically the binary path we started).
proc ::harness::pid_matches {pid pattern} {
    if {![pid_alive $pid]} { return 0 }
    return [expr {[string first $pattern [pid_cmdline $pid]] >= 0}]
}

proc ::harness::send_signal {sig pid} {
    catch {exec /bin/sh -c {kill -s "$0" "$1"} $sig $pid 2>@1}
}

# Waits up to MS milliseconds for PID to die; returns 1 if it did.
proc ::harness::wait_pid_exit {pid ms} {
    set deadline [expr {[clock milliseconds] + $ms}]
    while {[pid_alive $pid]} {
        if {[clock milliseconds] >= $deadline} { return 0 }
        sleep_ms 20
    }
    return 1
}

# SIGTERM, then SIGKILL after TERM_MS. Returns "term", "kill" or "stuck".
proc ::harness::terminate_pid {pid term_ms} {
    if {![pid_alive $pid]} { return term }
    send_signal TERM $pid
    if {[wait_pid_exit $pid $term_ms]} { return term }
    send_signal KILL $pid
    if {[wait_pid_exit $pid 5000]} { return kill }
    return stuck
}

proc ::harness::signal_name {number} {
    set names {1 SIGHUP 2 SIGINT 3 SIGQUIT 4 SIGILL 5 SIGTRAP 6 SIGABRT 7 SIGBUS
               8 SIGFPE 9 SIGKILL 10 SIGUSR1 11 SIGSEGV 12 SIGUSR2 13 SIGPIPE
               14 SIGALRM 15 SIGTERM}
    if {[dict exists $names $number]} { return [dict get $names $number] }
    return "signal $number"
}

# ---- the registry of started servers ------------------------------------------------------

proc ::harness::registry_dir {} {
    variable opt
    return [file join $opt(run_dir) pids]
}

# Records a started server: line 1 is the pattern its command line must
# contain, then the worker PID, its directory and its port.
proc ::harness::registry_add {pid pattern dir port} {
    set reg [registry_dir]
    file mkdir $reg
    set fd [open [file join $reg $pid] w]
    puts $fd $pattern
    puts $fd [pid]
    puts $fd $dir
    puts $fd $port
    close $fd
}

proc ::harness::registry_remove {pid} {
    file delete -force [file join [registry_dir] $pid]
}

# Entries as {pid pattern worker dir port}, optionally only one worker's.
proc ::harness::registry_entries {{worker ""}} {
    set entries {}
    foreach f [glob -nocomplain -directory [registry_dir] *] {
        if {[catch {open $f r} fd]} { continue }
        set lines [split [read $fd] \n]
        close $fd
        lassign $lines pattern owner dir port
        if {$worker ne "" && $owner ne $worker} { continue }
        lappend entries [list [file tail $f] $pattern $owner $dir $port]
    }
    return $entries
}

# Stops every server a (dead) worker left behind; returns what it did as
# a list of human-readable lines.
proc ::harness::registry_sweep {{worker ""}} {
    set report {}
    foreach entry [registry_entries $worker] {
        lassign $entry pid pattern owner dir port
        if {[pid_matches $pid $pattern]} {
            set how [terminate_pid $pid 5000]
            lappend report "stopped leftover server pid $pid (port $port, $how)"
        }
        registry_remove $pid
    }
    return $report
}

# ---- ports --------------------------------------------------------------------------------------

proc ::harness::port_is_free {port} {
    if {[catch {socket -server ::harness::refuse -myaddr 127.0.0.1 $port} sock]} {
        return 0
    }
    close $sock
    return 1
}

proc ::harness::refuse {sock args} { close $sock }

# Each parallel worker draws from its own range (port_base .. +port_range),
# starting at a random offset, so concurrent files never race for a port.
proc ::harness::find_free_port {} {
    variable opt
    variable port_cursor
    set range $opt(port_range)
    if {$port_cursor < 0} { set port_cursor [expr {int(rand() * $range)}] }
    for {set tries 0} {$tries < $range} {incr tries} {
        set port [expr {$opt(port_base) + $port_cursor}]
        set port_cursor [expr {($port_cursor + 1) % $range}]
        if {[port_is_free $port]} { return $port }
    }
    error "no free TCP port in $opt(port_base)..[expr {$opt(port_base) + $range - 1}]"
}

# ---- files ----------------------------------------------------------------------------------------

proc ::harness::read_file {path} {
    if {[catch {open $path r} fd]} { return "" }
    fconfigure $fd -translation binary
    set data [read $fd]
    close $fd
    return $data
}

# Writes bytes as they are (no newline translation): fixtures built by hand.
proc ::harness::write_file {path bytes} {
    set fd [open $path w]
    fconfigure $fd -translation binary
    puts -nonewline $fd $bytes
    close $fd
}

proc ::harness::tail_lines {path n} {
    set lines [split [string trimright [read_file $path] \n] \n]
    if {[lindex $lines 0] eq "" && [llength $lines] == 1} { return {} }
    return [lrange $lines end-[expr {$n - 1}] end]
}

# Index of the first line of PATH that starts a crash report, or -1.
proc ::harness::crash_report_start {path} {
    set index 0
    foreach line [split [read_file $path] \n] {
        foreach p $::harness::crash_patterns {
            if {[string match $p $line]} { return $index }
        }
        incr index
    }
    return -1
}

# The first crash report line found in any of PATHS, or "".
proc ::harness::crash_report_line {paths} {
    foreach path $paths {
        set index [crash_report_start $path]
        if {$index >= 0} {
            return [string trim [lindex [split [read_file $path] \n] $index]]
        }
    }
    return ""
}

# Prints a line of the worker's report. If the runner went away the output
# is lost, but the file still runs to its end and stops its servers.
proc ::harness::say {line} {
    catch {puts $line}
}

# Indents every line of TEXT (for details under a result line).
proc ::harness::indent {text {prefix "      "}} {
    set out {}
    foreach line [split $text \n] { lappend out "$prefix$line" }
    return [join $out \n]
}

proc ::harness::relative_path {path} {
    set root [pwd]/
    if {[string first $root $path] == 0} {
        return [string range $path [string length $root] end]
    }
    return $path
}
