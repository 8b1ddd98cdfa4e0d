# worker.tcl -- runs one test file in its own tclsh process (started by the
# runner, one per file, so files cannot leak state into each other and a
# hung file can be killed without touching the others).
#
#   tclsh worker.tcl --run_dir DIR --server PATH ... FILE
#
# It prints one result line per test ([ok], [err], [skip]) and finally
# "@@harness done PASSED FAILED SKIPPED"; the exit status is 1 when anything
# failed. Whatever happens inside the file, the servers it started are
# stopped before the worker exits.

package require Tcl 8.6

set ::harness_dir [file dirname [file normalize [info script]]]
foreach helper {util redis test server binaries aof} {
    source [file join $::harness_dir $helper.tcl]
}

proc ::harness::worker_main {argv} {
    variable opt
    set file [lindex $argv end]
    foreach {key value} [lrange $argv 0 end-1] {
        set name [string map {- _} [string trimleft $key -]]
        if {![info exists opt($name)]} { error "worker: unknown option $key" }
        set opt($name) $value
    }
    fconfigure stdout -buffering line -translation lf
    fconfigure stderr -buffering line
    set ::resp::default_timeout [expr {10.0 * [factor]}]
    set ::harness::test_file [file normalize $file]

    set code [catch {uplevel #0 [list source $file]} result opts]
    if {$code == 1} { report_file_error $file $result $opts }
    stop_all_servers
    foreach line [registry_sweep [pid]] {
        report_fail "cleanup after [relative_path $::harness::test_file]" "" $line
    }
    variable counts
    say "@@harness done $counts(passed) $counts(failed) $counts(skipped)"
    exit [expr {$counts(failed) > 0}]
}

proc ::harness::report_file_error {file result opts} {
    set errorcode [dict get $opts -errorcode]
    set name [relative_path [file normalize $file]]
    if {[lrange $errorcode 0 1] eq {HARNESS SERVER_DIED}} {
        # The failing test was already counted; say why the rest did not run.
        say [indent "($name aborted: $result)"]
        return
    }
    if {[lrange $errorcode 0 1] eq {HARNESS STARTUP}} {
        report_fail "start_server" "" $result
        return
    }
    set trace [lrange [split [dict get $opts -errorinfo] \n] 0 29]
    report_fail "error outside of a test" "" "error: $result\n[join $trace \n]"
}

::harness::worker_main $argv
