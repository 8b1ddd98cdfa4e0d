# binaries.tcl -- running server binaries outside start_server: our server
# for start-up failures (bad configs, bad files), and Debian's Redis as a
# reference on a given dump.
#
#   server_command ARGS...           the command line of our server (with the --wrapper)
#   server_version                   "7.0.15", from --version
#   run_failing_server ARGS...       runs it; it must exit during start-up -> {status stderr}
#   reference_server                 /usr/bin/redis-server, or "" when not installed
#   start_reference REF RDB PIDVAR   the reference serving a copy of RDB -> client
#   stop_reference CLIENT PID
#   check_aof ARGS...                redis-check-aof of the same build (and wrapper) -> {status output}
#
# Design decisions:
# - A server that wrongly starts is stopped by timeout(1) when it exists,
#   so a test of a refused start-up can't hang the run.
# - Each run gets its own directory under the run directory, so parallel
#   workers and repeated runs never read each other's output.

proc server_command {args} {
    return [concat $::harness::opt(wrapper) [list $::harness::opt(server)] $args]
}

proc server_version {} {
    set out [exec {*}[server_command --version]]
    if {![regexp {v=(\S+)} $out -> version]} { fail "no version in '$out'" }
    return $version
}

proc ::harness::fresh_run_dir {name} {
    set dir [file join $::harness::opt(run_dir) "$name-[pid]-[incr ::harness::fresh_runs]"]
    file delete -force $dir
    file mkdir $dir
    return $dir
}

# Runs the server with ARGS, which must make it exit during start-up (a
# timeout stops it if it wrongly starts). Returns {exit-status stderr stdout}.
proc run_failing_server {args} {
    set dir [::harness::fresh_run_dir failing]
    set errfile [file join $dir stderr]
    set cmd [server_command {*}$args]
    set timeout [auto_execok timeout]
    if {$timeout ne ""} { set cmd [concat $timeout [::harness::scaled 30] $cmd] }
    set status 0
    if {[catch {exec {*}$cmd < /dev/null > [file join $dir stdout] 2> $errfile} result opts]} {
        set code [dict get $opts -errorcode]
        if {[lindex $code 0] ne "CHILDSTATUS"} { error "running the server: $result" }
        set status [lindex $code 2]
    }
    return [list $status [::harness::read_file $errfile] [::harness::read_file [file join $dir stdout]]]
}

proc reference_server {} {
    if {[file executable /usr/bin/redis-server]} { return /usr/bin/redis-server }
    return ""
}

# True unless the server under test is the reference (a file run with
# --server /usr/bin/redis-server checks its expectations against Redis).
proc ours {} { expr {[file normalize $::harness::opt(server)] ne "/usr/bin/redis-server"} }

# In a test's body: the rest of the test runs on our server only; on the
# reference it says why and the test ends (passing).
proc ours_only {why} {
    if {[ours]} return
    puts "    (skipped on the reference: $why)"
    return -code return
}

# Runs the reference REF on a copy of the dump RDB; returns a client, and
# its pid in the variable named by PIDVAR.
proc start_reference {ref rdb pidvar} {
    upvar $pidvar pid
    set dir [::harness::fresh_run_dir reference]
    file copy -force $rdb [file join $dir dump.rdb]
    set port [::harness::find_free_port]
    set pid [exec $ref --port $port --bind 127.0.0.1 --dir $dir --save "" --enable-debug-command yes \
                 --logfile [file join $dir log] &]
    set c ""
    wait_for_condition 100 50 {![catch {set c [::resp::connect 127.0.0.1 $port]}] && ![catch {$c ping}]} else {
        catch {exec kill $pid}
        fail "reference server did not start: [::harness::read_file [file join $dir log]]"
    }
    return $c
}

proc stop_reference {c pid} {
    catch {$c shutdown nosave}
    catch {$c close}
    wait_for_condition 100 50 {![::harness::pid_alive $pid]} else { catch {exec kill -9 $pid} }
}

# redis-check-aof, from the same build as the server (under its wrapper).
# Skips the test when redis-check-aof is not built next to the server; tests
# that stop their server first call it before that, with no arguments.
proc need_check_aof {} {
    set tool [file join [file dirname $::harness::opt(server)] redis-check-aof]
    if {![file executable $tool]} { skip "redis-check-aof not built next to the server" }
    return $tool
}

proc check_aof {args} {
    set tool [need_check_aof]
    set status 0
    if {[catch {exec {*}$::harness::opt(wrapper) $tool {*}$args} out opts]} {
        set status [lindex [dict get $opts -errorcode] 2]
    }
    return [list $status $out]
}

# A nested start_server running Redis's binary ($::reference_bin, Debian's
# /usr/bin/redis-server unless the file sets it) instead of ours: natively,
# without the emulator (or the no-fork launcher) our server runs under in
# the cross-port suites and `make test-forkless`, and without our
# persistence-mode directive (REDIS_TEST_FORKLESS).
proc start_reference_server {overrides body} {
    if {![info exists ::reference_bin]} { set ::reference_bin /usr/bin/redis-server }
    set forkless [expr {[info exists ::env(REDIS_TEST_FORKLESS)] ? $::env(REDIS_TEST_FORKLESS) : 0}]
    set saved [list $::harness::opt(server) $::harness::opt(wrapper) $forkless]
    set ::harness::opt(server) $::reference_bin
    set ::harness::opt(wrapper) {}
    set ::env(REDIS_TEST_FORKLESS) 0
    set restore "lassign [list $saved] ::harness::opt(server) ::harness::opt(wrapper) ::env(REDIS_TEST_FORKLESS)\n"
    set code [catch {uplevel 1 [list start_server [list overrides $overrides] $restore$body]} err]
    lassign $saved ::harness::opt(server) ::harness::opt(wrapper) ::env(REDIS_TEST_FORKLESS)
    if {$code} { return -code $code $err }
}

# Whether the server under test was built with TLS: its directive list has
# tls-port itself (cluster-announce-tls-port is there in every build, so the
# whole line is matched). Redis's own server has no such option: it is
# built with TLS here.
proc server_built_with_tls {} {
    if {[file normalize $::harness::opt(server)] eq "/usr/bin/redis-server"} { return 1 }
    set out ""
    catch {exec {*}[server_command --list-config-directives]} out
    return [expr {[lsearch -exact [split $out \n] tls-port] >= 0}]
}
