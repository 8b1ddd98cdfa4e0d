# aof.tcl -- what a running server appends to its AOF, for tests of
# propagation.
#
#   aof_commands_written SCRIPT   runs SCRIPT in the caller's scope and
#                                 returns the commands the server appended to
#                                 its last incremental AOF meanwhile, each as a
#                                 list (SELECTs and #TS annotations left out)
#   aof_rewrite_idle ?level?      no AOF rewrite running or scheduled, read
#                                 from one INFO (two calls race the cron
#                                 starting a scheduled rewrite in between)
#
# The server of level 0 must run with appendonly yes and appendfsync always
# (so each command is in the file when its reply comes) and without an RDB
# preamble in the increment. The file is found through the manifest, whose
# last line names the current incremental file.

proc ::harness::aof_last_incr {} {
    set dir [file join [srv dir] appendonlydir]
    set fd [open [file join $dir appendonly.aof.manifest]]
    set lines [split [string trim [read $fd]] \n]
    close $fd
    return [file join $dir [lindex [lindex $lines end] 1]]
}

# The RESP arrays in DATA, as lists (annotation lines, "#TS:...", skipped).
proc ::harness::parse_resp_arrays {data} {
    set commands {}
    set pos 0
    while {$pos < [string length $data]} {
        set eol [string first "\r\n" $data $pos]
        set line [string range $data $pos [expr {$eol - 1}]]
        set pos [expr {$eol + 2}]
        if {[string index $line 0] eq "#"} continue
        set argc [string range $line 1 end]
        set argv {}
        for {set j 0} {$j < $argc} {incr j} {
            set eol [string first "\r\n" $data $pos]
            set len [string range $data [expr {$pos + 1}] [expr {$eol - 1}]]
            set pos [expr {$eol + 2}]
            lappend argv [string range $data $pos [expr {$pos + $len - 1}]]
            set pos [expr {$pos + $len + 2}]
        }
        lappend commands $argv
    }
    return $commands
}

proc aof_commands_written {script} {
    set path [::harness::aof_last_incr]
    set mark [file size $path]
    uplevel 1 $script
    set fd [open $path rb]
    seek $fd $mark
    set data [read $fd]
    close $fd
    set commands {}
    foreach argv [::harness::parse_resp_arrays $data] {
        if {[string toupper [lindex $argv 0]] ne "SELECT"} { lappend commands $argv }
    }
    return $commands
}

proc aof_rewrite_idle {{level 0}} {
    set info [r $level info persistence]
    expr {[info_field $info aof_rewrite_in_progress] == 0 && [info_field $info aof_rewrite_scheduled] == 0}
}
