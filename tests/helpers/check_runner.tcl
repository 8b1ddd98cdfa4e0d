# check_runner.tcl -- checks of ./runtest itself, the parts a test file
# cannot check from inside: parallel files, --single, --tags, failures and
# the exit status, the per-file timeout, external mode, an interrupted run,
# and that no server the harness started is left running.
#
#   tclsh tests/helpers/check_runner.tcl [--server PATH] [--wrapper "CMD"] [--time-factor N]
#
# It writes small test files into tests/tmp/check.PID/, runs ./runtest on
# them and inspects the output, the exit status and the PIDs the files
# recorded. It prints "N passed, N failed" and exits non-zero on a failure.

package require Tcl 8.6

set ::harness_dir [file dirname [file normalize [info script]]]
source [file join $::harness_dir util.tcl]
source [file join $::harness_dir redis.tcl]

namespace eval ::check {
    variable root [file dirname [file dirname $::harness_dir]]
    variable server src/redis-server
    variable wrapper ""
    variable factor 1
    variable dir ""
    variable passed 0
    variable failed 0
}

proc ::check::parse_args {argv} {
    variable server
    variable wrapper
    variable factor
    foreach {key value} $argv {
        switch -- $key {
            --server      { set server $value }
            --wrapper     { set wrapper $value }
            --time-factor { set factor $value }
            default       { puts stderr "usage: check_runner.tcl ?--server PATH? ?--wrapper CMD? ?--time-factor N?"; exit 2 }
        }
    }
    set server [file normalize $server]
}

# Writes a test file into the check directory; @PIDS@ in its text becomes
# the file every test file appends its servers' PIDs to.
proc ::check::write_test {name text} {
    variable dir
    set path [file join $dir $name.tcl]
    set fd [open $path w]
    puts $fd [string map [list @PIDS@ [file join $dir pids.txt]] $text]
    close $fd
    return $path
}

# Runs ./runtest with ARGS; returns {exit-status output}.
proc ::check::runtest {args} {
    variable server
    variable wrapper
    variable factor
    set cmd [list ./runtest --server $server --time-factor $factor {*}$args]
    if {$wrapper ne ""} { lappend cmd --wrapper $wrapper }
    set status 0
    if {[catch {exec {*}$cmd 2>@1} output opts]} {
        set ec [dict get $opts -errorcode]
        set status [expr {[lindex $ec 0] eq "CHILDSTATUS" ? [lindex $ec 2] : -1}]
        regsub {\nchild process exited abnormally$} $output "" output
    }
    return [list $status $output]
}

proc ::check::check {name body} {
    variable passed
    variable failed
    set start [clock milliseconds]
    if {[catch {uplevel 1 $body} err]} {
        incr failed
        puts "\[err\] $name\n[::harness::indent $err]"
    } else {
        incr passed
        puts "\[ok\] $name ([expr {[clock milliseconds] - $start}] ms)"
    }
}

proc ::check::expect {condition message {output ""}} {
    if {[uplevel 1 [list expr $condition]]} { return }
    if {$output ne ""} { append message "\n--- output:\n$output" }
    error $message
}

proc ::check::closing_line {output} {
    set line [lindex [split [string trimright $output \n] \n] end]
    if {![regexp {^(\d+) passed, (\d+) failed, (\d+) skipped$} $line -> p f s]} {
        error "no closing line; the output ends with: $line"
    }
    return [list $p $f $s]
}

proc ::check::recorded_pids {} {
    variable dir
    return [string trim [::harness::read_file [file join $dir pids.txt]]]
}

proc ::check::alive_pids {pids} {
    set alive {}
    foreach pid $pids {
        if {[::harness::pid_alive $pid]} { lappend alive $pid }
    }
    return $alive
}

# ---- the checks -------------------------------------------------------------------------

proc ::check::quick_file {name tags} {
    return [write_test $name [string map [list @NAME@ $name @TAGS@ $tags] {
        start_server {tags {@TAGS@}} {
            set fd [open @PIDS@ a]; puts $fd [srv pid]; close $fd
            test "@NAME@ set/get" {
                r set k @NAME@
                assert_equal @NAME@ [r get k]
            }
            test "@NAME@ slow" {
                after 200
                assert_equal PONG [r ping]
            } {slow}
        }
    }]]
}

proc ::check::run_all {} {
    variable dir
    set a [quick_file a one]
    set b [quick_file b two]
    set c [quick_file c three]

    check "--single on the harness self-test passes" {
        lassign [runtest --single unit/harness] status output
        lassign [closing_line $output] p f s
        expect {$status == 0 && $f == 0 && $p >= 15} "status $status, $p passed, $f failed" $output
    }

    check "--clients 2 runs three files, each file's output in one piece" {
        lassign [runtest --clients 2 --single $a --single $b --single $c] status output
        expect {$status == 0} "exit status $status" $output
        expect {[closing_line $output] eq {6 0 0}} "expected 6 passed" $output
        # Between a file's header and its footer only its own tests appear.
        foreach name {a b c} {
            set block [regexp -inline "=== \[^\n\]*/$name.tcl\n(.*?)\n--- \[^\n\]*/$name.tcl:" $output]
            expect {[llength $block]} "no block for $name.tcl" $output
            set other [regexp -all -inline {\[ok\] (\w) } [lindex $block 1]]
            foreach {- who} $other { expect {$who eq $name} "$name.tcl's block holds a test of $who" $output }
        }
    }

    check "--tags -slow skips the slow tests, --tags slow runs only them" {
        lassign [runtest --single $a --single $b --tags -slow] status output
        expect {$status == 0 && [closing_line $output] eq {2 0 2}} "status $status" $output
        expect {[string match "*?skip? a slow: excluded by --tags*" $output]} "no skip reason" $output
        lassign [runtest --single $a --tags slow] status output
        expect {$status == 0 && [closing_line $output] eq {1 0 1}} "status $status" $output
        lassign [runtest --single $a --tags -three --single $c] status output
        expect {[string match "*?skip? start_server block (tags: three)*" $output]} "block not skipped" $output
    }

    check "--baseport moves the servers' ports, --skip-file leaves a file out" {
        set ported [write_test ported {
            start_server {} {
                test "the server's port is in the first slot's range" {
                    assert_range [srv port] 25000 25499
                }
            }
        }]
        lassign [runtest --baseport 25000 --single $ported --single $a --skip-file $a] status output
        expect {$status == 0 && [closing_line $output] eq {1 0 0}} "status $status" $output
        lassign [runtest --baseport 80 --single $ported] status output
        expect {$status == 2 && [string match "*--baseport needs a port number*" $output]} "status $status" $output
    }

    check "a failing test makes the exit status non-zero and is listed" {
        set bad [write_test bad {
            start_server {} {
                test "this one fails" { assert_equal 1 [r incr n] ; assert_equal 5 [r incr n] }
                test "this one passes" { assert_equal PONG [r ping] }
            }
        }]
        lassign [runtest --single $bad] status output
        expect {$status == 1} "exit status $status" $output
        expect {[closing_line $output] eq {1 1 0}} "wrong totals" $output
        expect {[string match "*failed:*bad.tcl: this one fails*" $output]} "not listed" $output
        expect {[string match "*expected '2' to equal '5'*bad.tcl:3:*" $output]} "no location" $output
    }

    check "a file over --timeout fails, and its worker and servers are killed" {
        set hung [write_test hung {
            start_server {} {
                start_server {} {
                    set fd [open @PIDS@ a]; puts $fd "[srv pid] [srv -1 pid]"; close $fd
                    test "hangs" { after 600000 }
                }
            }
        }]
        set before [recorded_pids]
        set start [clock milliseconds]
        lassign [runtest --single $hung --single $b --timeout 2] status output
        set elapsed [expr {[clock milliseconds] - $start}]
        expect {$status == 1} "exit status $status" $output
        expect {[string match "*hung.tcl: timed out*" $output]} "no timeout reported" $output
        expect {[closing_line $output] eq {2 1 0}} "the next file did not run" $output
        expect {$elapsed < 15000} "took $elapsed ms" $output
        # hung.tcl's two servers, then b.tcl's one.
        set pids [lrange [recorded_pids] [llength $before] end]
        expect {[llength $pids] == 3} "expected 3 new servers, got '$pids'" $output
        expect {[alive_pids $pids] eq ""} "servers still alive: [alive_pids $pids]" $output
    }

    check "external mode: --host/--port uses a running server, starts none" {
        variable server
        variable wrapper
        set port [::harness::find_free_port]
        set ext [file join $dir external]
        file mkdir $ext
        set fd [open [file join $ext redis.conf] w]
        puts $fd "port $port\nbind 127.0.0.1\ndir $ext\nlogfile $ext/stdout\nsave \"\"\nappendonly no"
        close $fd
        set chan [open |[concat $wrapper [list $server [file join $ext redis.conf] >>$ext/stdout 2>@1]] w]
        set pid [lindex [pid $chan] 0]
        try {
            wait_for_port $port
            set file [write_test ext {
                start_server {tags {ext}} {
                    test "talks to the external server" {
                        r set external yes
                        assert_equal yes [r get external]
                        assert_equal "" [srv pid]
                    }
                    test "a restart is impossible here" { restart_server } {needs:restart}
                }
            }]
            lassign [runtest --host 127.0.0.1 --port $port --single $file] status output
            expect {$status == 0 && [closing_line $output] eq {1 0 1}} "status $status" $output
            expect {[string match "*needs:restart*external server*" $output]} "no skip reason" $output
            set c [::resp::connect 127.0.0.1 $port]
            expect {[$c get external] eq "yes"} "the test did not use the external server"
            $c close
        } finally {
            ::harness::send_signal TERM $pid
            ::harness::wait_pid_exit $pid 10000
            catch {close $chan}
        }
    }

    check "an interrupted run stops its runner, workers and servers" {
        set hung2 [write_test hung2 {
            start_server {} {
                set fd [open @PIDS@ a]; puts $fd [srv pid]; close $fd
                test "hangs" { after 600000 }
            }
        }]
        set before [llength [recorded_pids]]
        variable server
        set chan [open |[list ./runtest --server $server --single $hung2 2>@1] r]
        set wrapper_pid [lindex [pid $chan] 0]
        set deadline [expr {[clock milliseconds] + 10000}]
        while {[llength [recorded_pids]] == $before && [clock milliseconds] < $deadline} {
            ::harness::sleep_ms 50
        }
        set pids [lrange [recorded_pids] $before end]
        expect {[llength $pids] == 1} "the file never started its server"
        set run_dir [file join tests tmp run.$wrapper_pid]
        set workers [glob -nocomplain -tails -directory [file join $run_dir workers] *]
        ::harness::send_signal TERM $wrapper_pid
        fconfigure $chan -blocking 1
        set output [read $chan]
        catch {close $chan}
        expect {[string match "*interrupted*" $output]} "no interruption message" $output
        expect {[alive_pids [concat $pids $workers]] eq ""} "still alive: [alive_pids [concat $pids $workers]]" $output
        expect {![file exists $run_dir]} "$run_dir was not removed" $output
    }

    check "no server started by these checks is left running" {
        set all [recorded_pids]
        expect {[llength $all] >= 6} "only [llength $all] servers were recorded"
        expect {[alive_pids $all] eq ""} "still alive: [alive_pids $all]"
    }
}

proc ::check::wait_for_port {port} {
    for {set i 0} {$i < 200} {incr i} {
        if {![catch {::resp::connect 127.0.0.1 $port} c]} {
            if {![catch {$c ping}]} { $c close; return }
            $c close
        }
        ::harness::sleep_ms 50
    }
    error "the external server did not come up on port $port"
}

proc ::check::main {argv} {
    variable root
    variable dir
    variable passed
    variable failed
    cd $root
    parse_args $argv
    set dir [file normalize tests/tmp/check.[pid]]
    file mkdir $dir
    set ::harness::opt(port_base) 32100
    set ::harness::opt(port_range) 500
    set start [clock milliseconds]
    try {
        run_all
    } finally {
        file delete -force $dir
    }
    puts [format "runner checks took %.1f s" [expr {([clock milliseconds] - $start) / 1000.0}]]
    puts "$passed passed, $failed failed"
    exit [expr {$failed > 0}]
}

::check::main $argv
