# server.tcl -- starting, talking to and stopping the servers under test.
#
#   start_server {tags {...} overrides {directive value ...} config_lines {...}} {
#       r set foo bar            ;# default client of the innermost server
#       r -1 get foo             ;# ... of the enclosing one
#       set rd [redis_deferring_client]
#   }
#
# Design decisions:
# - Every block gets a fresh directory RUN_DIR/<file>.<pid>.<n>/ holding its
#   config file, the log (stdout) and stderr. The config file has a small fixed
#   set of directives (see default_directives and tests/README.md) so the
#   server under test only has to support those; overrides replace a default
#   of the same name or are appended, config_lines are appended verbatim.
# - The server is started through a Tcl pipe (its stdin is the pipe, its
#   output goes to files), so it stays our child: closing the pipe once it
#   has died reports its exact exit status or signal (SIGBUS, SIGSEGV ...),
#   even when it runs under an emulator wrapper such as qemu-user.
# - Ready means "answers PING" (a -LOADING reply means not yet); failing to
#   bind because the port was taken meanwhile makes us retry on another port.
# - It is stopped with SIGTERM, then SIGKILL after a bounded wait. A server
#   that crashes, exits non-zero or ignores SIGTERM at shutdown is a failure
#   of its block, reported with its log.
# - With --host/--port (external mode) no process is started: every block
#   uses that server, overrides are applied with CONFIG SET and restored at
#   the end, and the outermost block starts with FLUSHALL.

namespace eval ::harness {
    variable stack {}
    variable S
    variable next_sid 0
    variable start_timeout_s 10
    variable stop_timeout_s 10
}

proc ::harness::external {} {
    variable opt
    return [expr {$opt(port) ne ""}]
}

# REDIS_TEST_FORKLESS=1 (make test-forkless): every server persists without
# fork() (persistence-mode forkless, snapshot.c).
proc ::harness::default_directives {port dir} {
    set directives [list \
        port $port \
        bind 127.0.0.1 \
        dir $dir \
        logfile [file join $dir stdout] \
        save {""} \
        appendonly no \
        enable-debug-command yes \
        shutdown-timeout 0]
    if {[info exists ::env(REDIS_TEST_FORKLESS)] && $::env(REDIS_TEST_FORKLESS)} {
        lappend directives persistence-mode forkless
    }
    return $directives
}

# ---- start_server -------------------------------------------------------------------

proc start_server {options body} {
    set tags {}
    set overrides {}
    set config_lines {}
    set unixsocket 0
    set extra_args {}
    foreach {key value} $options {
        switch -- $key {
            tags         { set tags $value }
            overrides    { set overrides $value }
            config_lines { set config_lines $value }
            unixsocket   { set unixsocket [expr {!!$value}] }
            args         { set extra_args $value }
            default      { error "start_server: unknown option '$key'" }
        }
    }
    if {[llength $overrides] % 2} { error "start_server: overrides must be directive/value pairs" }
    set where [::harness::block_name [info frame -1] $tags]
    set reason [::harness::tag_skip_reason [concat $::harness::tag_stack $tags] 0]
    if {$reason ne ""} {
        ::harness::report_skip $where $reason
        return
    }
    if {[::harness::external]} {
        set sid [::harness::attach_external $overrides $config_lines $unixsocket]
        if {![string is integer -strict $sid]} {
            ::harness::report_skip $where $sid
            return
        }
    } else {
        if {[catch {::harness::launch $overrides $config_lines $unixsocket $extra_args} sid opts]} {
            if {[lrange [dict get $opts -errorcode] 0 1] ne {HARNESS STARTUP}} {
                return -options $opts $sid
            }
            ::harness::report_fail "$where: no server" "" $sid
            return
        }
    }
    set depth [llength $tags]
    set ::harness::tag_stack [concat $::harness::tag_stack $tags]
    lappend ::harness::stack $sid
    set code [catch {::harness::eval_body [info frame -1] $body} result opts]
    set ::harness::stack [lrange $::harness::stack 0 end-1]
    set ::harness::tag_stack [lrange $::harness::tag_stack 0 end-$depth]
    set problem [::harness::shutdown $sid]
    if {$problem ne ""} {
        ::harness::report_fail "shutdown of the server of $where" "" $problem
    }
    if {$code == 1} { return -options $opts $result }
    return
}

proc ::harness::block_name {frame tags} {
    set name "start_server block"
    if {[llength $tags]} { append name " (tags: [join $tags { }])" }
    set location [frame_location $frame]
    if {$location ne ""} { append name " at [join $location :]" }
    return $name
}

# ---- launching ----------------------------------------------------------------------------

proc ::harness::launch {overrides config_lines unixsocket extra_args} {
    variable S
    variable next_sid
    variable opt
    set sid [incr next_sid]
    set dir [file join $opt(run_dir) "[file rootname [file tail $::harness::test_file]].[pid].$sid"]
    file mkdir $dir
    array set S [list $sid,external 0 $sid,dir $dir $sid,host 127.0.0.1 \
        $sid,stdout [file join $dir stdout] $sid,stderr [file join $dir stderr] \
        $sid,config_file [file join $dir redis.conf] $sid,unixsocket "" \
        $sid,clients {} $sid,client "" $sid,dead 0 $sid,chan "" $sid,pid "" \
        $sid,status "" $sid,args $extra_args]
    if {$unixsocket || $opt(shm)} { set S($sid,unixsocket) [file join $dir socket] }
    # An overridden log file is where the log is; an empty one means the
    # server's stdout, which goes to our stdout file anyway.
    set logfile [dict_get_nocase $overrides logfile]
    if {$logfile ni {"" {""}}} { set S($sid,stdout) [file normalize $logfile] }
    set fixed_port [dict_get_nocase $overrides port]
    for {set attempt 1} {1} {incr attempt} {
        set port [expr {$fixed_port ne "" ? $fixed_port : [find_free_port]}]
        set S($sid,port) $port
        write_config $sid $overrides $config_lines
        start_process $sid
        set outcome [wait_ready $sid]
        if {$outcome eq "ready"} { break }
        set status [reap $sid]
        if {$outcome eq "port-taken" && $fixed_port eq "" && $attempt < 3} {
            verbose "port $port was taken meanwhile, retrying"
            continue
        }
        set text "the server did not start ($outcome; $status)"
        append text [log_excerpt $sid]
        if {!$opt(dont_clean)} { file delete -force $dir }
        return -code error -errorcode {HARNESS STARTUP} $text
    }
    verbose "started server pid $S($sid,pid) on port $S($sid,port) ($dir)"
    return $sid
}

proc ::harness::has_key_nocase {pairs key} {
    foreach {k v} $pairs {
        if {[string equal -nocase $k $key]} { return 1 }
    }
    return 0
}

proc ::harness::dict_get_nocase {pairs key} {
    foreach {k v} $pairs {
        if {[string equal -nocase $k $key]} { return $v }
    }
    return ""
}

# Writes the value so the config parser reads it back unchanged: bare when
# it is a plain word or a list of words (multi-argument directives), in
# double quotes with escapes when it is empty or has special characters.
proc ::harness::config_value {value} {
    if {$value eq {""}} { return $value }
    if {$value ne "" && [regexp {^[^\s"'\\]+(\s+[^\s"'\\]+)*$} $value]} { return $value }
    set escaped [string map [list \\ \\\\ \" \\\" \n \\n \r \\r \t \\t] $value]
    return "\"$escaped\""
}

proc ::harness::write_config {sid overrides config_lines} {
    variable S
    set lines {}
    set used {}
    foreach {directive value} [default_directives $S($sid,port) $S($sid,dir)] {
        if {[has_key_nocase $overrides $directive]} {
            set value [config_value [dict_get_nocase $overrides $directive]]
            lappend used [string tolower $directive]
        }
        lappend lines "$directive $value"
    }
    foreach {directive value} $overrides {
        if {[string tolower $directive] in $used} { continue }
        lappend lines "$directive [config_value $value]"
    }
    if {$S($sid,unixsocket) ne ""} {
        lappend lines "unixsocket [config_value $S($sid,unixsocket)]" "unixsocketperm 700"
    }
    foreach line $config_lines { lappend lines $line }
    set fd [open $S($sid,config_file) w]
    puts $fd [join $lines \n]
    close $fd
}

proc ::harness::start_process {sid} {
    variable S
    variable opt
    set cmd [concat $opt(wrapper) [list $opt(server) $S($sid,config_file)] $S($sid,args)]
    lappend cmd >>$S($sid,stdout) 2>>$S($sid,stderr)
    set S($sid,chan) [open |$cmd w]
    set S($sid,pid) [lindex [pid $S($sid,chan)] 0]
    set S($sid,dead) 0
    set S($sid,status) ""
    registry_add $S($sid,pid) $opt(server) $S($sid,dir) $S($sid,port)
}

# Returns ready, died, port-taken or "no answer within N s".
proc ::harness::wait_ready {sid} {
    variable S
    variable start_timeout_s
    set limit [scaled $start_timeout_s]
    set deadline [expr {[clock milliseconds] + 1000 * $limit}]
    while 1 {
        if {![pid_alive $S($sid,pid)]} {
            if {[regexp -nocase {address already in use|EADDRINUSE} [read_file $S($sid,stdout)][read_file $S($sid,stderr)]]} {
                return port-taken
            }
            return died
        }
        if {[ping_once $sid]} { return ready }
        if {[clock milliseconds] > $deadline} {
            terminate_pid $S($sid,pid) 1000
            return "no answer to PING within $limit s"
        }
        sleep_ms 20
    }
}

# 1 when the server answers on its port -- and it is this one: another
# test run on the machine may hold the port (it was free when picked), and
# our server then exits with "Address already in use" while theirs answers
# (a cluster-enabled server of another run once answered a replication
# test's REPLICAOF). INFO's process_id tells them apart; a server that
# refuses INFO (AUTH required, renamed) is taken as ours.
proc ::harness::ping_once {sid} {
    variable S
    if {[catch {connect_to $sid [list -timeout [scaled 2]]} client]} { return 0 }
    set code [catch {$client ping} reply opts]
    if {$code == 0 || ![string match LOADING* $reply]} {
        if {![catch {$client info server} info] && [regexp {process_id:(\d+)} $info -> pid] && $pid != $S($sid,pid)} {
            catch {$client close}
            return 0
        }
    }
    catch {$client close}
    if {$code == 0} { return 1 }
    # Any error reply but -LOADING means the server is up and answering.
    set errorcode [dict get $opts -errorcode]
    return [expr {[lindex $errorcode 0] eq "REDIS" && ![string match LOADING* $reply]}]
}

proc ::harness::connect_to {sid options} {
    variable S
    variable opt
    if {$opt(shm) && $S($sid,unixsocket) ne ""} {
        return [connect_shm $S($sid,unixsocket) $options]
    }
    if {$S($sid,port) eq "0" && $S($sid,unixsocket) ne ""} {
        return [::resp::connect_unix $S($sid,unixsocket) {*}$options]
    }
    return [::resp::connect $S($sid,host) $S($sid,port) {*}$options]
}

# ./runtest --shm: a client of the server's unix socket whose bytes go
# through shared memory, relayed by utils/shm-example.c (built once per
# worker with the system compiler; tests/unit/shm.tcl uses the same relay).
proc ::harness::shm_relay {} {
    variable opt
    variable shm_relay_path
    if {[info exists shm_relay_path] && [file executable $shm_relay_path]} { return $shm_relay_path }
    set cc [auto_execok cc]
    if {$cc eq ""} { set cc [auto_execok gcc] }
    if {$cc eq ""} { error "--shm needs a C compiler (cc) to build utils/shm-example.c" }
    set src [file join [file dirname [file dirname $::harness_dir]] utils shm-example.c]
    set shm_relay_path [file join $opt(run_dir) shm-relay.[pid]]
    exec {*}$cc -O2 -o $shm_relay_path $src
    return $shm_relay_path
}

proc ::harness::connect_shm {path options} {
    set ::resp::relay_override [list [shm_relay]]
    set code [catch {::resp::connect_unix $path {*}$options} client opts]
    unset ::resp::relay_override
    return -options $opts $client
}

# ---- stopping -------------------------------------------------------------------------------

# Closes the pipe of a dead server and returns how it ended.
proc ::harness::reap {sid} {
    variable S
    if {$S($sid,chan) eq ""} { return $S($sid,status) }
    set chan $S($sid,chan)
    set S($sid,chan) ""
    if {[pid_alive $S($sid,pid)]} {
        # Still running (should not happen): detach instead of blocking.
        catch {fconfigure $chan -blocking 0}
        catch {close $chan}
        set S($sid,status) "still running, detached"
        return $S($sid,status)
    }
    if {[catch {close $chan} err opts]} {
        set ec [dict get $opts -errorcode]
        switch -- [lindex $ec 0] {
            CHILDSTATUS { set S($sid,status) "exited with status [lindex $ec 2]" }
            CHILDKILLED { set S($sid,status) "killed by [lindex $ec 2]" }
            default     { set S($sid,status) "ended: $err" }
        }
    } else {
        set S($sid,status) "exited with status 0"
    }
    registry_remove $S($sid,pid)
    return $S($sid,status)
}

proc ::harness::close_clients {sid} {
    variable S
    foreach c $S($sid,clients) {
        if {[llength [info commands $c]]} { catch {$c close} }
    }
    set S($sid,clients) {}
    set S($sid,client) ""
}

# Ends a block's server; returns a problem description or "".
proc ::harness::shutdown {sid} {
    variable S
    variable opt
    variable stop_timeout_s
    close_clients $sid
    if {$S($sid,external)} { return [detach_external $sid] }
    set problem ""
    if {$S($sid,dead)} {
        reap $sid
    } elseif {![pid_alive $S($sid,pid)]} {
        set problem [death_report $sid]
    } else {
        set how [terminate_pid $S($sid,pid) [expr {1000 * [scaled $stop_timeout_s]}]]
        set status [reap $sid]
        if {$how ne "term"} {
            set problem "the server (pid $S($sid,pid)) did not exit within\
                [scaled $stop_timeout_s] s of SIGTERM; [expr {$how eq "kill" ?
                "it was killed with SIGKILL" : "it survived even SIGKILL"}]"
        } elseif {$status ne "exited with status 0"} {
            set problem "the server (pid $S($sid,pid), port $S($sid,port)) $status at shutdown"
            set crash [crash_report_line [list $S($sid,stdout) $S($sid,stderr)]]
            if {$crash ne ""} { append problem "\ncrash report in the log: $crash" }
        }
    }
    if {$problem ne ""} { append problem [log_excerpt $sid] }
    verbose "stopped server pid $S($sid,pid) on port $S($sid,port): $S($sid,status)"
    registry_remove $S($sid,pid)
    if {!$opt(dont_clean)} { file delete -force $S($sid,dir) }
    return $problem
}

proc ::harness::death_report {sid} {
    variable S
    set S($sid,dead) 1
    set status [reap $sid]
    set text "the server (pid $S($sid,pid), port $S($sid,port)) died unexpectedly: $status"
    set crash [crash_report_line [list $S($sid,stdout) $S($sid,stderr)]]
    if {$crash ne ""} {
        append text "\ncrash report in the log: yes ($crash)"
    } else {
        append text "\ncrash report in the log: none"
    }
    return $text
}

# Dead servers of the enclosing blocks, newly noticed, as a report or "".
proc ::harness::dead_servers_report {} {
    variable S
    variable stack
    set reports {}
    foreach sid $stack {
        if {$S($sid,external) || $S($sid,dead)} { continue }
        if {![pid_alive $S($sid,pid)]} { lappend reports [death_report $sid] }
    }
    return [join $reports \n]
}

# The last lines of the server's log and stderr; for a file holding a crash
# report, its first lines instead, which name the signal and the stack.
proc ::harness::log_excerpt {sid {lines 30}} {
    variable S
    if {$S($sid,external)} { return "" }
    set text ""
    foreach {what path} [list log $S($sid,stdout) stderr $S($sid,stderr)] {
        set crash [crash_report_start $path]
        if {$crash >= 0} {
            set all [split [read_file $path] \n]
            set part [lrange $all $crash [expr {$crash + $lines - 1}]]
            set label "lines [expr {$crash + 1}]-[expr {$crash + [llength $part]}] (the crash report)"
        } else {
            set part [tail_lines $path $lines]
            set label "last [llength $part] lines"
        }
        if {![llength $part]} { continue }
        append text "\n--- $label of the server $what\
            ([relative_path $path], port $S($sid,port)):\n" [join $part \n]
    }
    return $text
}

proc ::harness::server_logs_for_failure {} {
    variable stack
    set text ""
    foreach sid [lreverse $stack] { append text [log_excerpt $sid] }
    return $text
}

proc ::harness::stop_all_servers {} {
    variable stack
    foreach sid [lreverse $stack] { catch {shutdown $sid} }
    set stack {}
}

proc ::harness::verbose {text} {
    if {$::harness::opt(verbose)} { say "      ($text)" }
}

# ---- external mode ---------------------------------------------------------------------------

# Returns a server id, or the reason the block cannot run.
proc ::harness::attach_external {overrides config_lines unixsocket} {
    variable S
    variable next_sid
    variable opt
    variable stack
    if {$unixsocket} { return "needs a unix socket: not possible against an external server" }
    set sid [incr next_sid]
    array set S [list $sid,external 1 $sid,host $opt(host) $sid,port $opt(port) \
        $sid,dir "" $sid,stdout "" $sid,stderr "" $sid,config_file "" \
        $sid,unixsocket "" $sid,clients {} $sid,client "" $sid,dead 0 \
        $sid,chan "" $sid,pid "" $sid,status "" $sid,restore {}]
    set client [connect_to $sid {}]
    lappend S($sid,clients) $client
    set S($sid,client) $client
    if {![llength $stack]} { $client flushall }
    set settings $overrides
    foreach line $config_lines {
        lappend settings [lindex $line 0] [lrange $line 1 end]
    }
    foreach {directive value} $settings {
        if {[catch {$client config get $directive} old] || ![llength $old]} {
            detach_external $sid
            return "cannot read '$directive' of the external server with CONFIG GET"
        }
        if {[catch {$client config set $directive $value} err]} {
            detach_external $sid
            return "cannot apply '$directive $value' to the external server: $err"
        }
        set S($sid,restore) [linsert $S($sid,restore) 0 $directive [lindex $old 1]]
    }
    return $sid
}

proc ::harness::detach_external {sid} {
    variable S
    set problem ""
    if {[llength $S($sid,restore)]} {
        if {[catch {connect_to $sid {}} client]} {
            return "cannot reconnect to the external server to restore its config: $client"
        }
        foreach {directive value} $S($sid,restore) {
            if {[catch {$client config set $directive $value} err]} {
                append problem "cannot restore '$directive': $err\n"
            }
        }
        catch {$client close}
    }
    close_clients $sid
    return [string trimright $problem]
}

# ---- talking to servers -------------------------------------------------------------------

proc ::harness::sid_at {level} {
    variable stack
    if {![string is integer -strict $level] || $level > 0} {
        error "bad server level '$level': use 0 (innermost), -1, -2 ..."
    }
    if {![llength $stack]} { error "no server: call this inside start_server" }
    set index [expr {[llength $stack] - 1 + $level}]
    if {$index < 0} { error "no server at level $level (only [llength $stack] running)" }
    return [lindex $stack $index]
}

proc ::harness::new_client {level options} {
    variable S
    variable opt
    set sid [sid_at $level]
    set unix 0
    set connect_opts {}
    foreach {key value} $options {
        if {$key eq "-unix"} { set unix $value } else { lappend connect_opts $key $value }
    }
    if {$unix} {
        if {$S($sid,unixsocket) eq ""} { error "this server has no unix socket (start_server {unixsocket 1})" }
        if {$opt(shm)} {
            set client [connect_shm $S($sid,unixsocket) $connect_opts]
        } else {
            set client [::resp::connect_unix $S($sid,unixsocket) {*}$connect_opts]
        }
    } else {
        set client [connect_to $sid $connect_opts]
    }
    lappend S($sid,clients) $client
    return $client
}

proc ::harness::default_client {level} {
    variable S
    set sid [sid_at $level]
    set client $S($sid,client)
    if {$client eq "" || ![llength [info commands $client]]} {
        set client [connect_to $sid {}]
        set S($sid,client) $client
        lappend S($sid,clients) $client
    }
    return $client
}

# r ?level? command args...
proc r {args} {
    set level 0
    if {[string is integer -strict [lindex $args 0]]} {
        set level [lindex $args 0]
        set args [lrange $args 1 end]
    }
    set client [::harness::default_client $level]
    try {
        return [$client {*}$args]
    } trap {RESP TIMEOUT} {msg opts} {
        # Its reply may still come, and the next command would read it as
        # its own: the next `r` gets a new connection instead, so one slow
        # command fails one test, not every test after it.
        catch {$client close}
        return -options $opts $msg
    }
}

# redis_client ?level? ?-deferred 1? ?-unix 1? ?-timeout s? ?-readraw 1?
proc redis_client {args} {
    set level 0
    if {[string is integer -strict [lindex $args 0]]} {
        set level [lindex $args 0]
        set args [lrange $args 1 end]
    }
    return [::harness::new_client $level $args]
}

proc redis_deferring_client {{level 0}} {
    return [::harness::new_client $level {-deferred 1}]
}

proc rd {{level 0}} {
    return [redis_deferring_client $level]
}

# srv ?level? property
proc srv {args} {
    variable ::harness::S
    switch [llength $args] {
        1 { set level 0; set property [lindex $args 0] }
        2 { lassign $args level property }
        default { error "usage: srv ?level? property" }
    }
    set sid [::harness::sid_at $level]
    switch -- $property {
        client  { return [::harness::default_client $level] }
        host - port - pid - stdout - stderr - dir - config_file - unixsocket {
            return $S($sid,$property)
        }
        default {
            error "srv: unknown property '$property' (host port pid stdout stderr dir config_file unixsocket client)"
        }
    }
}

# s ?level? field: one field of INFO.
proc s {args} {
    if {[llength $args] == 2} { lassign $args level field } else { set level 0; set field [lindex $args 0] }
    return [info_field [r $level info] $field]
}

proc info_field {info field} {
    foreach line [split $info \n] {
        set line [string trimright $line \r]
        if {[string match "$field:*" $line]} {
            return [string range $line [string length $field]+1 end]
        }
    }
    return ""
}

# A CLIENT LIST / CLIENT INFO line with the transport's flags taken out of
# flags= (U: a unix socket, m: shared memory), "N" when nothing is left: the
# line a TCP client would show, so a test of other flags passes over every
# transport (./runtest --shm).
proc without_transport_flags {line} {
    if {![regexp {(^|\s)flags=(\S*)} $line -> lead flags]} { return $line }
    set kept [string map {U "" m "" N ""} $flags]
    if {$kept eq ""} { set kept N }
    return [regsub {(^|\s)flags=\S*} $line "\\1flags=$kept"]
}

# One field of a CLIENT LIST / CLIENT INFO line.
proc client_field {line field} {
    foreach pair [split [string trim $line] " "] {
        set eq [string first = $pair]
        if {[string range $pair 0 [expr {$eq - 1}]] eq $field} {
            return [string range $pair [expr {$eq + 1}] end]
        }
    }
    error "no field '$field' in '$line'"
}

proc wait_for_blocked_clients {count {level 0}} {
    wait_for_condition 100 20 {[s $level blocked_clients] == $count} else {
        fail "expected $count blocked clients, INFO says [s $level blocked_clients]"
    }
}

# restart_server ?level? ?-kill?: stops the server (SIGTERM, or SIGKILL to
# simulate a crash) and starts it again with the same config, dir and port.
proc restart_server {args} {
    set level 0
    set signal TERM
    foreach a $args {
        if {$a eq "-kill"} { set signal KILL } else { set level $a }
    }
    set sid [::harness::sid_at $level]
    variable ::harness::S
    if {$S($sid,external)} { error "restart_server is not possible against an external server (tag the test needs:restart)" }
    ::harness::close_clients $sid
    if {[::harness::pid_alive $S($sid,pid)]} {
        if {$signal eq "KILL"} {
            ::harness::send_signal KILL $S($sid,pid)
            ::harness::wait_pid_exit $S($sid,pid) 5000
        } else {
            ::harness::terminate_pid $S($sid,pid) [expr {1000 * [::harness::scaled $::harness::stop_timeout_s]}]
        }
    }
    set status [::harness::reap $sid]
    if {$signal eq "TERM" && $status ne "exited with status 0"} {
        error "the server $status when stopped for a restart[::harness::log_excerpt $sid]"
    }
    ::harness::start_process $sid
    set outcome [::harness::wait_ready $sid]
    if {$outcome ne "ready"} {
        set status [::harness::reap $sid]
        set S($sid,dead) 1
        error "the server did not restart ($outcome; $status)[::harness::log_excerpt $sid]"
    }
}

# Stops the server with SHUTDOWN NOSAVE and waits until its process is gone;
# restart_server then only starts it again (for file surgery in between).
proc shutdown_server {{level 0}} {
    catch {[srv $level client] shutdown nosave}
    wait_for_condition 100 50 {![::harness::pid_alive [srv $level pid]]} else { fail "server did not stop" }
}

# Runs the server binary on the block's config file plus ARGS, with the
# same wrapper, appending to its log, and returns its exit status: for a
# server that must refuse to start. Bounded by `timeout`.
proc server_exit_status {args} {
    variable ::harness::opt
    set cmd [concat timeout [::harness::scaled 60] $opt(wrapper) [list $opt(server) [srv config_file]] $args]
    if {[catch {exec {*}$cmd >>& [srv stdout]} err opts]} {
        return [lindex [dict get $opts -errorcode] 2]
    }
    return 0
}

# ---- logs ------------------------------------------------------------------------------------

proc log_tail {{level 0} {lines 30}} {
    return [join [::harness::tail_lines [srv $level stdout] $lines] \n]
}

# Number of lines in the log so far, to pass to wait_for_log -from.
proc log_line_count {{level 0}} {
    # complete lines: the text after the last newline is not a line yet
    return [regexp -all \n [::harness::read_file [srv $level stdout]]]
}

# wait_for_log pattern ?-level n? ?-from line? ?-tries n? ?-delay ms?
# Waits until a log line (after line -from) matches the glob pattern;
# returns that line.
proc wait_for_log {pattern args} {
    array set o {-level 0 -from 0 -tries 100 -delay 50}
    array set o $args
    set path [srv $o(-level) stdout]
    set tries [::harness::scaled $o(-tries)]
    for {set i 0} {$i < $tries} {incr i} {
        set lines [lrange [split [::harness::read_file $path] \n] $o(-from) end]
        foreach line $lines {
            if {[string match $pattern $line]} { return $line }
        }
        ::harness::sleep_ms $o(-delay)
    }
    fail "no line of the server log matched [::harness::show $pattern]"
}
