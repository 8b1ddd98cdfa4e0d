# runner.tcl -- the test runner behind ./runtest: finds the test files, runs
# each in its own worker process (up to --clients at a time), enforces the
# per-file timeout and adds up the results into the closing line
# "N passed, N failed, N skipped".
#
# Design decisions:
# - One tclsh per file. A file that hangs or crashes Tcl is killed alone; the
#   servers it started are found in the PID registry (RUN_DIR/pids) and
#   stopped, and their logs are shown.
# - Results are counted from the workers' "[ok]/[err]/[skip]" lines, and the
#   worker's final "@@harness done" line confirms the totals. A worker that
#   ends without it (crash, timeout) counts as a failure, so nothing can pass
#   by stopping early.
# - With one client the output streams live; with several, each file's output
#   is held and printed as one piece when the file ends.
# - Every wait is bounded: each file by --timeout x time-factor, and the
#   event loop ticks every 200 ms to check it.

package require Tcl 8.6

set ::harness_dir [file dirname [file normalize [info script]]]
source [file join $::harness_dir util.tcl]
source [file join $::harness_dir redis.tcl]

namespace eval ::runner {
    variable root [file dirname [file dirname $::harness_dir]]
    variable o
    array set o {
        singles {} skips {} tags {} host "" port "" clients 1 server src/redis-server
        wrapper "" time_factor 1 timeout 600 verbose 0 dont_clean 0
        list_tests 0 run_dir "" shm 0 baseport 21000
    }
    variable queue {}
    variable running {}
    variable job
    variable totals
    array set totals {passed 0 failed 0 skipped 0}
    variable failures {}
    variable finished 0
    variable total_files 0
    variable next_job 0
    variable stdout_ok 1
}

proc ::runner::usage {} {
    return {usage: ./runtest [options]
  --single FILE        run only this test file (repeatable; "unit/foo" is enough)
  --skip-file FILE     run every file but this one (repeatable; a port that
                       another port's run already covers, see ports/*/port.mk)
  --tags "a -b"        run only tests tagged a, never tests tagged b
  --host H --port P    use the server already running there; start no server
  --clients N          run N test files in parallel (default 1)
  --baseport N         first TCP port of the servers' ranges (default 21000;
                       worker slot k draws from N+500k .. N+500k+499, and a
                       cluster node's bus port is its port + 10000): two runs
                       at once with --clients 4 or fewer take bases 2000
                       apart so they never race for a port
  --server PATH        server binary to start (default src/redis-server)
  --wrapper "CMD ARGS" prefix for starting the server (e.g. an emulator)
  --time-factor N      multiply every timeout and wait (default 1)
  --timeout SECONDS    limit per test file, times the time factor (default 600)
  --verbose            more output (each test as it starts, server start/stop)
  --dont-clean         keep the servers' directories under tests/tmp/
  --list-tests         list the test files that would run, and exit
  --shm                every server also gets a unix socket, and the test's
                       clients talk to it through shared memory (CLIENT SHM,
                       relayed by utils/shm-example.c built here)}
}

proc ::runner::die {message} {
    puts stderr "runtest: $message"
    exit 2
}

proc ::runner::parse_args {argv} {
    variable o
    while {[llength $argv]} {
        set argv [lassign $argv arg]
        switch -- $arg {
            --verbose    { set o(verbose) 1; continue }
            --dont-clean { set o(dont_clean) 1; continue }
            --list-tests { set o(list_tests) 1; continue }
            --shm        { set o(shm) 1; continue }
            --help - -h  { puts [usage]; exit 0 }
        }
        if {$arg ni {--single --skip-file --tags --host --port --clients --server --wrapper
                     --time-factor --timeout --run-dir --baseport}} {
            die "unknown option $arg\n[usage]"
        }
        if {![llength $argv]} { die "option $arg needs a value (see --help)" }
        set argv [lassign $argv value]
        switch -- $arg {
            --single      { lappend o(singles) $value }
            --skip-file   { lappend o(skips) $value }
            --tags        { set o(tags) [concat $o(tags) $value] }
            --host        { set o(host) $value }
            --port        { set o(port) $value }
            --clients     { set o(clients) $value }
            --server      { set o(server) $value }
            --wrapper     { set o(wrapper) $value }
            --time-factor { set o(time_factor) $value }
            --timeout     { set o(timeout) $value }
            --run-dir     { set o(run_dir) $value }
            --baseport    { set o(baseport) $value }
        }
    }
    check_values
}

proc ::runner::check_values {} {
    variable o
    if {![string is integer -strict $o(clients)] || $o(clients) < 1} { die "--clients needs a positive integer" }
    if {![string is integer -strict $o(baseport)] || $o(baseport) < 1024 || $o(baseport) > 45000} {
        die "--baseport needs a port number between 1024 and 45000"
    }
    if {![string is double -strict $o(time_factor)] || $o(time_factor) <= 0} { die "--time-factor needs a positive number" }
    if {![string is double -strict $o(timeout)] || $o(timeout) <= 0} { die "--timeout needs a positive number of seconds" }
    if {[catch {llength $o(wrapper)}]} { die "--wrapper must be a command and its arguments" }
    if {$o(host) ne "" && $o(port) eq ""} { die "--host needs --port" }
    if {$o(port) ne ""} {
        if {![string is integer -strict $o(port)] || $o(port) < 1 || $o(port) > 65535} { die "--port needs a port number" }
        if {$o(host) eq ""} { set o(host) 127.0.0.1 }
    }
}

# ---- finding the files -----------------------------------------------------------------

proc ::runner::tcl_files_under {dir} {
    set files [glob -nocomplain -types f -directory $dir *.tcl]
    foreach sub [glob -nocomplain -types d -directory $dir *] {
        lappend files {*}[tcl_files_under $sub]
    }
    return $files
}

proc ::runner::all_files {} {
    set files [concat [tcl_files_under tests/unit] \
                      [glob -nocomplain -types f -directory tests/integration *.tcl]]
    return [lsort $files]
}

proc ::runner::resolve_single {name} {
    foreach candidate [list $name tests/$name tests/$name.tcl $name.tcl] {
        if {[file isfile $candidate]} { return [::harness::relative_path [file normalize $candidate]] }
    }
    die "--single $name: no such test file"
}

proc ::runner::selected_files {} {
    variable o
    if {![llength $o(singles)]} {
        set files [all_files]
    } else {
        set files {}
        foreach name $o(singles) { lappend files [resolve_single $name] }
    }
    foreach name $o(skips) {
        set skip [resolve_single $name]
        set files [lsearch -all -inline -exact -not $files $skip]
    }
    return $files
}

# ---- the run directory -------------------------------------------------------------------------

# Removes what runs that died without cleaning up left in tests/tmp/, after
# stopping any server they still have registered.
proc ::runner::sweep_stale_runs {} {
    variable o
    foreach dir [glob -nocomplain -types d -directory tests/tmp run.*] {
        set owner [lindex [split [file tail $dir] .] end]
        if {[file normalize $dir] eq [file normalize $o(run_dir)]} { continue }
        if {![string is integer -strict $owner] || [::harness::pid_alive $owner]} { continue }
        set ::harness::opt(run_dir) $dir
        foreach line [::harness::registry_sweep] { emit "runtest: stale run [file tail $dir]: $line" }
        if {![file exists [file join $dir keep]]} { file delete -force $dir }
    }
    set ::harness::opt(run_dir) $o(run_dir)
}

proc ::runner::prepare_run_dir {} {
    variable o
    if {$o(run_dir) eq ""} { set o(run_dir) tests/tmp/run.[pid] }
    set o(run_dir) [file normalize $o(run_dir)]
    file mkdir [file join $o(run_dir) pids] [file join $o(run_dir) workers]
    set ::harness::opt(run_dir) $o(run_dir)
    sweep_stale_runs
}

proc ::runner::finish_run_dir {} {
    variable o
    if {$o(dont_clean)} {
        close [open [file join $o(run_dir) keep] w]
        emit "server directories kept in [::harness::relative_path $o(run_dir)]"
    } else {
        file delete -force $o(run_dir)
    }
}

# ---- the server ----------------------------------------------------------------------------------

proc ::runner::resolve_server {} {
    variable o
    if {$o(port) ne ""} { return }
    set path $o(server)
    if {[file pathtype $path] eq "relative" && [string first / $path] < 0 && ![file exists $path]} {
        set found [auto_execok $path]
        if {$found ne ""} { set path [lindex $found 0] }
    }
    if {![file isfile $path]} {
        die "server binary '$o(server)' not found (build it with make, or pass --server PATH)"
    }
    set o(server) [file normalize $path]
}

proc ::runner::check_external {} {
    variable o
    if {$o(port) eq ""} { return }
    if {[catch {
        set c [::resp::connect $o(host) $o(port) -timeout [expr {5 * $o(time_factor)}]]
        $c ping
        $c close
    } err]} {
        die "no server answering PING at $o(host):$o(port): $err"
    }
    if {$o(clients) > 1} {
        emit "runtest: one server is shared in --host/--port mode, so files run one at a time"
        set o(clients) 1
    }
}

# ---- running workers ------------------------------------------------------------------------------

proc ::runner::worker_command {file slot} {
    variable o
    set cmd [list [info nameofexecutable] [file join $::harness_dir worker.tcl]]
    foreach key {time_factor verbose dont_clean run_dir server wrapper tags host port shm} {
        lappend cmd --$key $o($key)
    }
    lappend cmd --port_base [expr {$o(baseport) + 500 * ($slot % 20)}] $file
    return $cmd
}

proc ::runner::free_slot {} {
    variable running
    variable job
    set used {}
    foreach j $running { lappend used $job($j,slot) }
    for {set slot 0} {$slot in $used} {incr slot} {}
    return $slot
}

proc ::runner::start_next {} {
    variable queue
    variable running
    variable job
    variable o
    variable next_job
    if {![llength $queue]} { return }
    set queue [lassign $queue file]
    set j [incr next_job]
    set slot [free_slot]
    set chan [open |[concat [worker_command $file $slot] [list </dev/null 2>@1]] r]
    fconfigure $chan -blocking 0 -buffering line -translation lf
    set pid [lindex [pid $chan] 0]
    close [open [file join $o(run_dir) workers $pid] w]
    array set job [list $j,file $file $j,chan $chan $j,pid $pid $j,slot $slot \
        $j,start [clock milliseconds] $j,output {} $j,done "" $j,timed_out 0 \
        $j,counted {0 0 0} $j,failed_names {} $j,extra {}]
    lappend running $j
    if {$o(clients) == 1} { emit "=== [file_label $file]" }
    fileevent $chan readable [list ::runner::on_output $j]
}

proc ::runner::file_label {file} {
    variable finished
    variable total_files
    return "\[[expr {$finished + 1}]/$total_files\] $file"
}

# Prints a line of the report. When stdout went away (a closed pipe) the run
# goes on silently, so its servers are still stopped and its exit status
# still tells the truth.
proc ::runner::emit {line} {
    variable stdout_ok
    if {$stdout_ok && [catch {puts $line}]} { set stdout_ok 0 }
}

# An error in the runner itself: report it, stop every worker and server,
# and end the run as failed rather than wait forever.
proc ::runner::internal_error {message options} {
    variable running
    variable job
    variable totals
    variable failures
    catch {puts stderr "runtest: internal error: [dict get $options -errorinfo]"}
    foreach j $running {
        catch {fileevent $job($j,chan) readable {}}
        ::harness::send_signal KILL $job($j,pid)
        ::harness::wait_pid_exit $job($j,pid) 5000
        sweep_servers $job($j,pid)
    }
    set running {}
    incr totals(failed)
    lappend failures "runtest internal error: $message"
    set ::runner::all_done 1
}

proc ::runner::on_output {j} {
    variable job
    variable o
    set chan $job($j,chan)
    while {[gets $chan line] >= 0} {
        if {[regexp {^@@harness done (\d+) (\d+) (\d+)$} $line -> p f s]} {
            set job($j,done) [list $p $f $s]
            continue
        }
        count_line $j $line
        if {$o(clients) == 1} { emit $line } else { lappend job($j,output) $line }
    }
    if {[eof $chan]} { finish $j }
}

proc ::runner::count_line {j line} {
    variable job
    lassign $job($j,counted) p f s
    if {[string match {\[ok\] *} $line]} { incr p }
    if {[string match {\[skip\] *} $line]} { incr s }
    if {[regexp {^\[err\] (.*?)( \(\d+ ms\))?$} $line -> name]} {
        incr f
        lappend job($j,failed_names) $name
    }
    set job($j,counted) [list $p $f $s]
}

proc ::runner::check_timeouts {} {
    variable running
    variable job
    variable o
    set limit_ms [expr {int(1000 * $o(timeout) * $o(time_factor))}]
    foreach j $running {
        if {$job($j,timed_out)} { continue }
        if {[clock milliseconds] - $job($j,start) > $limit_ms} { kill_job $j }
    }
    after 200 ::runner::check_timeouts
}

# The file ran over its limit: kill its worker, then its servers. Its
# output events are switched off first, so nothing else can finish the job
# while this waits for the processes to die.
proc ::runner::kill_job {j} {
    variable job
    variable o
    set job($j,timed_out) 1
    fileevent $job($j,chan) readable {}
    ::harness::send_signal KILL $job($j,pid)
    ::harness::wait_pid_exit $job($j,pid) 5000
    lappend job($j,extra) "the file ran longer than [expr {$o(timeout) * $o(time_factor)}] s;\
        its worker (pid $job($j,pid)) was killed"
    set servers [sweep_servers $job($j,pid)]
    if {[llength $servers]} {
        lappend job($j,extra) "and so were the servers it had started:" {*}$servers
    }
    fconfigure $job($j,chan) -blocking 1
    on_output $j
}

# Stops the servers a worker left registered; returns report lines with
# the tail of each one's log.
proc ::runner::sweep_servers {worker} {
    set lines {}
    foreach entry [::harness::registry_entries $worker] {
        lassign $entry pid pattern owner dir port
        set tail [::harness::tail_lines [file join $dir stdout] 30]
        if {[::harness::pid_matches $pid $pattern]} {
            set how [dict get {term SIGTERM kill SIGKILL stuck "SIGKILL, but it is still there"} \
                [::harness::terminate_pid $pid 5000]]
            lappend lines "stopped its server pid $pid (port $port) with $how"
        }
        ::harness::registry_remove $pid
        if {[llength $tail]} {
            lappend lines "--- last [llength $tail] lines of that server's log\
                ([::harness::relative_path [file join $dir stdout]]):" {*}$tail
        }
    }
    return $lines
}

proc ::runner::worker_status {chan} {
    fconfigure $chan -blocking 1
    if {![catch {close $chan} err opts]} { return 0 }
    set ec [dict get $opts -errorcode]
    switch -- [lindex $ec 0] {
        CHILDSTATUS { return [lindex $ec 2] }
        CHILDKILLED { return [lindex $ec 2] }
    }
    return $err
}

proc ::runner::finish {j} {
    variable job
    variable running
    variable finished
    variable totals
    variable failures
    variable o
    fileevent $job($j,chan) readable {}
    set status [worker_status $job($j,chan)]
    file delete [file join $o(run_dir) workers $job($j,pid)]
    set leftovers [sweep_servers $job($j,pid)]
    lassign [expr {$job($j,done) ne "" ? $job($j,done) : $job($j,counted)}] p f s
    set problems $job($j,extra)
    if {$job($j,done) eq "" && !$job($j,timed_out)} {
        lappend problems "the worker ended without finishing the file (exit status $status)"
    } elseif {!$job($j,timed_out) && $status ne "0" && $f == 0} {
        lappend problems "the worker exited with status $status"
    }
    if {[llength $leftovers]} {
        lappend problems "servers were still running after the file ended:" {*}$leftovers
    }
    set file $job($j,file)
    foreach name $job($j,failed_names) { lappend failures "$file: $name" }
    set ms [expr {[clock milliseconds] - $job($j,start)}]
    set lines $job($j,output)
    if {[llength $problems]} {
        incr f
        set what [expr {$job($j,timed_out) ? "timed out" : "did not finish cleanly"}]
        lappend failures "$file: $what"
        lappend lines "\[err\] $file: $what" {*}[split [::harness::indent [join $problems \n]] \n]
    }
    set footer [format "--- %s: %d passed, %d failed, %d skipped (%.1f s)" $file $p $f $s [expr {$ms / 1000.0}]]
    if {$o(clients) == 1} {
        foreach line [lrange $lines [llength $job($j,output)] end] { emit $line }
        emit $footer
    } else {
        emit "=== [file_label $file]"
        foreach line $lines { emit $line }
        emit $footer
    }
    incr totals(passed) $p
    incr totals(failed) $f
    incr totals(skipped) $s
    incr finished
    set running [lsearch -all -inline -not -exact $running $j]
    array unset job $j,*
    start_next
    if {![llength $running]} { set ::runner::all_done 1 }
}

# ---- main --------------------------------------------------------------------------------------------

proc ::runner::main {argv} {
    variable o
    variable root
    variable queue
    variable totals
    variable failures
    variable total_files
    fconfigure stdout -buffering line
    interp bgerror {} ::runner::internal_error
    cd $root
    parse_args $argv
    set files [selected_files]
    if {$o(list_tests)} {
        foreach f $files { puts $f }
        exit 0
    }
    resolve_server
    prepare_run_dir
    check_external
    array set ::harness::opt [list time_factor $o(time_factor)]
    set queue $files
    set total_files [llength $files]
    set start [clock milliseconds]
    if {$total_files == 0} { set ::runner::all_done 1 }
    for {set i 0} {$i < $o(clients)} {incr i} { start_next }
    after 200 ::runner::check_timeouts
    if {$total_files > 0} { vwait ::runner::all_done }
    finish_run_dir
    summary [expr {([clock milliseconds] - $start) / 1000.0}]
}

proc ::runner::summary {seconds} {
    variable totals
    variable failures
    variable total_files
    emit ""
    if {[llength $failures]} {
        emit "failed:"
        foreach f $failures { emit "  $f" }
    }
    emit [format "%d test files in %.1f s" $total_files $seconds]
    emit "$totals(passed) passed, $totals(failed) failed, $totals(skipped) skipped"
    if {$totals(failed) > 0} { exit 1 }
    if {$totals(passed) == 0} {
        catch {puts stderr "runtest: no test passed (nothing ran?)"}
        exit 1
    }
    exit 0
}

::runner::main $argv
