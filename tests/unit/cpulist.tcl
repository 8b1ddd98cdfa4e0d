# cpulist.tcl -- the CPU affinity directives server_cpulist, bio_cpulist,
# aof_rewrite_cpulist and bgsave_cpulist: CONFIG GET, CONFIG SET refused
# (start-up only, as in Redis), the list syntax at start-up, and the effect
# read back from /proc: the main thread, the background fsync thread
# (bio_aof_fsync) and the AOF rewrite / BGSAVE children land on the CPUs
# asked for. Also rdb-key-save-delay, which keeps those children alive long
# enough to be looked at.
#
# Design decisions:
# - The effect tests pick two CPUs this test process may use (from
#   /proc/self/status) instead of assuming CPU 0 and 1 exist, and skip with
#   the reason on a machine with one CPU or without /proc.
# - A child's pid comes from the server's log line "... started by pid N",
#   which Redis prints in the same words; its mask is polled, since the child
#   sets it right after fork() while the parent is already logging.
# - Redis 7 accepts any string here and silently ignores a list it can't
#   parse; this server refuses it at start-up. Those tests carry the tag
#   strict-cpulist: against the reference run with --tags -strict-cpulist.

# ---- helpers -----------------------------------------------------------------------------

# "0-2,5" -> {0 1 2 5}
proc expand_cpu_list {list} {
    set cpus {}
    foreach part [split $list ,] {
        if {[regexp {^(\d+)-(\d+)$} $part -> a b]} {
            for {set c $a} {$c <= $b} {incr c} { lappend cpus $c }
        } elseif {$part ne ""} {
            lappend cpus $part
        }
    }
    return $cpus
}

# The Cpus_allowed_list of a /proc status file ("" when it is gone).
proc cpus_allowed {status_path} {
    if {[catch {::harness::read_file $status_path} text]} { return "" }
    if {![regexp -line {^Cpus_allowed_list:\s*(\S+)} $text -> list]} { return "" }
    return $list
}

# CPUs this process may run on; the server inherits the same mask.
proc usable_cpus {} {
    if {![file readable /proc/self/status]} { return {} }
    return [expand_cpu_list [cpus_allowed /proc/self/status]]
}

proc need_two_cpus {} {
    if {[llength [usable_cpus]] < 2} {
        skip "needs /proc and two usable CPUs (nproc: [exec nproc])"
    }
}

# The /proc status file of the server's thread named NAME, or "".
proc thread_status {pid name} {
    foreach comm [glob -nocomplain /proc/$pid/task/*/comm] {
        if {[catch {string trim [::harness::read_file $comm]} got]} continue
        if {$got eq $name} { return [file join [file dirname $comm] status] }
    }
    return ""
}

# Waits for the log line "<what> started by pid N" after line FROM; returns N.
proc child_pid {what from} {
    set line [wait_for_log "*$what started by pid *" -from $from]
    if {![regexp {started by pid (\d+)} $line -> pid]} { fail "no pid in '$line'" }
    return $pid
}

# Polls until process PID's mask reads WANT (the child sets it after fork).
proc wait_for_mask {pid want} {
    wait_for_condition 100 20 {[cpus_allowed /proc/$pid/status] eq $want} else {
        fail "pid $pid: Cpus_allowed_list is '[cpus_allowed /proc/$pid/status]', expected '$want'"
    }
}

proc fill_keys {n} {
    for {set i 0} {$i < $n} {incr i} { r set key:$i $i }
}

# A BGSAVE slow enough (20 ms a key) to look at its child; returns its pid.
proc start_slow_bgsave {} {
    fill_keys 20
    r config set rdb-key-save-delay 20000
    set from [log_line_count]
    r bgsave
    return [child_pid "Background saving" $from]
}

# The same for BGREWRITEAOF (the server must have appendonly yes).
proc start_slow_rewrite {} {
    fill_keys 20
    wait_for_condition 200 50 {[s aof_rewrite_in_progress] == 0} else { fail "a rewrite is still running" }
    r config set rdb-key-save-delay 20000
    set from [log_line_count]
    r bgrewriteaof
    return [child_pid "Background append only file rewriting" $from]
}

proc finish_slow_rewrite {} {
    r config set rdb-key-save-delay 0
    wait_for_condition 200 50 {[s aof_rewrite_in_progress] == 0} else { fail "the rewrite never finished" }
    assert_equal ok [s aof_last_bgrewrite_status]
}

proc finish_slow_bgsave {} {
    r config set rdb-key-save-delay 0
    wait_for_condition 200 50 {[s rdb_bgsave_in_progress] == 0} else { fail "BGSAVE still running" }
}




set cpulist_names {server_cpulist bio_cpulist aof_rewrite_cpulist bgsave_cpulist}

# ---- CONFIG GET / SET ----------------------------------------------------------------------

start_server {tags {config cpulist}} {
    test "CONFIG GET *cpulist* lists the four directives, empty by default" {
        set got [r config get *cpulist*]
        assert_equal [lsort $cpulist_names] [lsort [dict keys $got]]
        foreach name $cpulist_names { assert_equal "" [dict get $got $name] $name }
    }

    test "the cpulist directives are start-up only: CONFIG SET refuses them" {
        foreach name $cpulist_names {
            assert_error "ERR CONFIG SET failed (possibly related to argument '$name') - can't set immutable config" {
                r config set $name 1
            }
            assert_error "*can't set immutable config" { r config set $name "" }
        }
        assert_equal "" [lindex [r config get server_cpulist] 1]
    }

    test "the names are spelt with underscores only" {
        assert_error "ERR Unknown option or number of arguments for CONFIG SET - 'server-cpulist'" {
            r config set server-cpulist 1
        }
        assert_equal {} [r config get server-cpulist]
    }

    test "rdb-key-save-delay is a plain integer, negative values included" {
        assert_equal {rdb-key-save-delay 0} [r config get rdb-key-save-delay]
        assert_equal OK [r config set rdb-key-save-delay -5]
        assert_equal {rdb-key-save-delay -5} [r config get rdb-key-save-delay]
        assert_error "*argument couldn't be parsed into an integer*" { r config set rdb-key-save-delay 1.5 }
        r config set rdb-key-save-delay 0
    }
}

start_server {tags {config cpulist external:skip}
              overrides {server_cpulist 0-7:2 bio_cpulist 1,10-11 aof_rewrite_cpulist 0-1023 bgsave_cpulist 0}} {
    test "CONFIG GET returns the lists as written" {
        set got [r config get *cpulist*]
        assert_equal 0-7:2 [dict get $got server_cpulist]
        assert_equal 1,10-11 [dict get $got bio_cpulist]
        assert_equal 0-1023 [dict get $got aof_rewrite_cpulist]
        assert_equal 0 [dict get $got bgsave_cpulist]
    }
}

# ---- the list syntax at start-up -------------------------------------------------------------

tags {config cpulist external:skip strict-cpulist} {
    test "a bad CPU list stops start-up with the line and the reason" {
        set dir [file join $::harness::opt(run_dir) "cpulist-[pid]"]
        file delete -force $dir
        file mkdir $dir
        set cases {
            server_cpulist 1-            "expected a CPU number at the end"
            bio_cpulist a                "expected a CPU number at 'a'"
            aof_rewrite_cpulist 3-1      "range 3-1 goes downwards"
            bgsave_cpulist 0-7:0         "a step must be at least 1"
            server_cpulist 1024          "CPU numbers go up to 1023"
            server_cpulist 99999999999   "CPU numbers go up to 1023"
            server_cpulist 0-1024        "CPU numbers go up to 1023"
            server_cpulist 1,            "expected a CPU number after the last ','"
            server_cpulist 1,,2          "expected a CPU number at ',2'"
            server_cpulist -1            "expected a CPU number at '-1'"
            server_cpulist 1:2           "unexpected ':'"
            server_cpulist 1-3:          "expected a CPU number at the end"
            server_cpulist {1, 2}        "expected a CPU number at ' 2'"
        }
        set version [server_version]
        foreach {name value reason} $cases {
            set conf [file join $dir bad.conf]
            set fd [open $conf w]
            puts $fd "port 0\n# a comment\n$name \"$value\""
            close $fd
            lassign [run_failing_server $conf] status err
            assert_equal 1 $status "exit status for $name '$value'"
            set expected "\n*** FATAL CONFIG FILE ERROR (Redis $version) ***\n"
            append expected "Reading the configuration file, at line 3\n>>> '$name \"$value\"'\n"
            append expected "Invalid CPU list '$value': $reason\n"
            assert_equal $expected $err "stderr for $name '$value'"
        }
    }
}

# ---- the effect ------------------------------------------------------------------------------

set cpus [usable_cpus]
set cpu_a [lindex $cpus 0]
set cpu_b [lindex $cpus 1]
if {$cpu_b eq ""} { set cpu_b $cpu_a }

start_server [list tags {cpulist external:skip} overrides [list server_cpulist $cpu_a]] {
    test "server_cpulist pins the main thread" {
        need_two_cpus
        assert_equal $cpu_a [cpus_allowed /proc/[srv pid]/status]
    }

    test "a fork child without its own list stays on the server's CPUs" {
        need_two_cpus
        set child [start_slow_bgsave]
        assert_equal $cpu_a [cpus_allowed /proc/$child/status]
        finish_slow_bgsave
    }
}

start_server [list tags {cpulist aof external:skip} \
                  overrides [list appendonly yes appendfsync everysec server_cpulist $cpu_a bio_cpulist $cpu_b]] {
    test "bio_cpulist pins the background fsync thread (bio_aof_fsync)" {
        need_two_cpus
        r set k v
        wait_for_condition 100 50 {[thread_status [srv pid] bio_aof_fsync] ne ""} else {
            fail "no thread named bio_aof_fsync"
        }
        wait_for_condition 100 20 {[cpus_allowed [thread_status [srv pid] bio_aof_fsync]] eq $cpu_b} else {
            fail "bio_aof_fsync: Cpus_allowed_list is '[cpus_allowed [thread_status [srv pid] bio_aof_fsync]]'"
        }
        assert_equal $cpu_a [cpus_allowed /proc/[srv pid]/status] "the main thread keeps server_cpulist"
    }
}

start_server [list tags {cpulist aof external:skip} \
                  overrides [list appendonly yes appendfsync everysec server_cpulist $cpu_a]] {
    test "without bio_cpulist the fsync thread keeps the mask the server started with" {
        need_two_cpus
        r set k v
        wait_for_condition 100 50 {[thread_status [srv pid] bio_aof_fsync] ne ""} else {
            fail "no thread named bio_aof_fsync"
        }
        assert_equal [cpus_allowed /proc/self/status] [cpus_allowed [thread_status [srv pid] bio_aof_fsync]]
    }
}

start_server [list tags {cpulist aof external:skip} \
                  overrides [list appendonly yes server_cpulist $cpu_a aof_rewrite_cpulist $cpu_b]] {
    foreach preamble {yes no} {
        test "aof_rewrite_cpulist pins the rewrite child (aof-use-rdb-preamble $preamble)" {
            need_two_cpus
            r config set aof-use-rdb-preamble $preamble
            set child [start_slow_rewrite]
            wait_for_mask $child $cpu_b
            assert_equal $cpu_a [cpus_allowed /proc/[srv pid]/status] "the server stays where it was"
            finish_slow_rewrite
        }
    }
}

start_server [list tags {cpulist rdb external:skip} overrides [list server_cpulist $cpu_a bgsave_cpulist $cpu_b]] {
    test "bgsave_cpulist pins the BGSAVE child" {
        need_two_cpus
        set child [start_slow_bgsave]
        wait_for_mask $child $cpu_b
        finish_slow_bgsave
        assert_equal ok [s rdb_last_bgsave_status]
    }
}

start_server [list tags {cpulist forkless external:skip} \
                  overrides [list persistence-mode forkless server_cpulist $cpu_a bgsave_cpulist $cpu_b]] {
    test "bgsave_cpulist pins a forkless snapshot's writer thread (snapshot_writer)" {
        need_two_cpus
        fill_keys 20
        r config set rdb-key-save-delay 20000
        r bgsave
        wait_for_condition 100 20 {[cpus_allowed [thread_status [srv pid] snapshot_writer]] eq $cpu_b} else {
            fail "snapshot_writer: Cpus_allowed_list is '[cpus_allowed [thread_status [srv pid] snapshot_writer]]'"
        }
        assert_equal $cpu_a [cpus_allowed /proc/[srv pid]/status] "the main thread keeps server_cpulist"
        finish_slow_bgsave
        assert_equal ok [s rdb_last_bgsave_status]
    }
}

# ---- bgchild-nice ----------------------------------------------------------------------------

# The nice value of process PID (field 19 of /proc/PID/stat; the fields after
# the ")" that closes the command name start with field 3).
proc nice_of {pid} {
    set fd [open /proc/$pid/stat]
    set stat [read $fd]
    close $fd
    return [lindex [string range $stat [expr {[string last ")" $stat] + 2}] end] 16]
}

proc need_proc {} {
    if {![file readable /proc/self/stat]} { skip "needs /proc" }
}

# Polls until the child (which lowers its priority right after fork) is at WANT.
proc wait_for_nice {pid want} {
    wait_for_condition 100 20 {[nice_of $pid] == $want} else {
        fail "pid $pid: nice is [nice_of $pid], expected $want"
    }
}

start_server {tags {cpulist external:skip}} {
    test "bgchild-nice: 0 by default (Redis's behaviour), 0..19, settable at run time" {
        assert_equal {bgchild-nice 0} [r config get bgchild-nice]
        assert_error "*argument must be between 0 and 19 inclusive*" {r config set bgchild-nice 20}
        assert_error "*argument must be between 0 and 19 inclusive*" {r config set bgchild-nice -1}
        assert_error "*argument couldn't be parsed into an integer*" {r config set bgchild-nice low}
        r config set bgchild-nice 3
        assert_equal {bgchild-nice 3} [r config get bgchild-nice]
    }

    test "bgchild-nice lowers the BGSAVE child's priority, not the server's" {
        need_proc
        set server_nice [nice_of [srv pid]]
        r config set bgchild-nice 7
        set child [start_slow_bgsave]
        wait_for_nice $child [expr {min(19, $server_nice + 7)}]
        assert_equal $server_nice [nice_of [srv pid]]
        finish_slow_bgsave
        assert_equal ok [s rdb_last_bgsave_status]
    }

    test "bgchild-nice 0 leaves the child at the server's priority" {
        need_proc
        r config set bgchild-nice 0
        set child [start_slow_bgsave]
        after 100
        assert_equal [nice_of [srv pid]] [nice_of $child]
        finish_slow_bgsave
    }
}

# The scheduling policy of process PID (field 41 of /proc/PID/stat): 0 normal, 5 idle.
proc policy_of {pid} {
    set fd [open /proc/$pid/stat]
    set stat [read $fd]
    close $fd
    return [lindex [string range $stat [expr {[string last ")" $stat] + 2}] end] 38]
}

start_server {tags {cpulist external:skip}} {
    test "bgchild-sched-idle: no by default; yes puts the BGSAVE child, not the server, under SCHED_IDLE" {
        need_proc
        assert_equal {bgchild-sched-idle no} [r config get bgchild-sched-idle]
        assert_error "*argument must be 'yes' or 'no'*" {r config set bgchild-sched-idle maybe}
        r config set bgchild-sched-idle yes
        set child [start_slow_bgsave]
        wait_for_condition 100 20 {[policy_of $child] == 5} else {
            fail "the child's policy is [policy_of $child], expected 5 (SCHED_IDLE)"
        }
        assert_equal 0 [policy_of [srv pid]]
        finish_slow_bgsave
        assert_equal ok [s rdb_last_bgsave_status]
        r config set bgchild-sched-idle no
        set child [start_slow_bgsave]
        after 100
        assert_equal 0 [policy_of $child]
        finish_slow_bgsave
    }
}

start_server {tags {cpulist aof external:skip} overrides {appendonly yes bgchild-nice 19}} {
    test "bgchild-nice lowers the AOF rewrite child's priority" {
        need_proc
        set child [start_slow_rewrite]
        wait_for_nice $child 19
        finish_slow_rewrite
    }
}

# ---- manners while a fork child exists ----------------------------------------------------
# Pages the parent writes while a child shares them get copied, so (as in
# Redis) reads leave access times alone and the keyspace table does not
# grow until it is far out of proportion.

# The sizes of the keyspace tables of db 0: one, or two while rehashing.
proc keyspace_table_sizes {} {
    set stats [r debug htstats 0]
    set main [string range $stats 0 [string first {[Expires HT]} $stats]]
    return [regexp -all -inline -- {table size: \d+} $main]
}

start_server {tags {cpulist external:skip}} {
    test "While a BGSAVE child exists, reads leave a key's access time alone" {
        r set idle v
        after 1100
        set child [start_slow_bgsave]
        r get idle
        assert_morethan [r object idletime idle] 0
        finish_slow_bgsave
        r get idle
        assert_equal 0 [r object idletime idle]
    }

    test "While a BGSAVE child exists, the keyspace table does not grow" {
        r flushall
        for {set i 0} {$i < 100} {incr i} { r set grow:$i $i }
        wait_for_condition 100 20 {[keyspace_table_sizes] eq {{table size: 128}}} else {
            fail "keyspace tables: [keyspace_table_sizes]"
        }
        r config set rdb-key-save-delay 20000
        r bgsave
        wait_for_condition 100 20 {[s rdb_bgsave_in_progress] == 1} else { fail "no BGSAVE" }
        for {set i 100} {$i < 200} {incr i} { r set grow:$i $i }
        assert_equal {{table size: 128}} [keyspace_table_sizes]
        finish_slow_bgsave
        after 300 ;# the cron notices the child is gone
        r set grow:200 x
        wait_for_condition 100 20 {[keyspace_table_sizes] eq {{table size: 256}}} else {
            fail "keyspace tables: [keyspace_table_sizes]"
        }
        assert_equal 201 [r dbsize]
    }
}
