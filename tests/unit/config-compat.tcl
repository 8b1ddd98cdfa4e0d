# config-compat.tcl -- a Redis 7 configuration file loads: Debian's
# /etc/redis/redis.conf serves as it is (bar where it puts files); the
# replication tuning / ACL-log / stream directives it sets are accepted with Redis's
# types, bounds, defaults and error texts; the process title
# (proc-title-template) is really set, for the server and its fork children;
# aof-timestamp-enabled writes "#TS:" annotations that load back, and
# redis-check-aof reads (and can cut at) them; jemalloc-bg-thread starts and
# stops jemalloc's background thread.
#
# Design decisions:
# - Every test also runs against the reference server
#   (./runtest --server /usr/bin/redis-server --single unit/config-compat),
#   so the expectations are Redis 7.0's. What only this server does (the
#   start-up warning about directives without effect) is skipped there.
# - Debian's file is copied with the directives that place files or
#   processes (port, bind, dir, pidfile, logfile, daemonize, supervised,
#   unixsocket) removed, and included after the harness's own lines. A
#   directive another part of this project has not landed yet is listed in
#   `pending_directives`: it is dropped from the copy only while the server
#   under test doesn't know it, and the test says so.
# - The process title is read from /proc/PID/cmdline up to its first NUL:
#   Redis pads the rest of the argv area with NULs and a '.', we with NULs.
# - `set-proc-title no` leaves the command line alone, always, as Redis's
#   redis.conf describes it; Redis 7.0 itself still retitles on CONFIG SET
#   proc-title-template, so that test is ours only.
# - Fork children are kept alive with rdb-key-save-delay and found through
#   the "... started by pid N" log line (same words in Redis).

set pending_directives {latency-monitor-threshold}



proc set_failed {name reason} {
    return "ERR CONFIG SET failed (possibly related to argument '$name') - $reason"
}

proc config_value {name} { return [lindex [r config get $name] 1] }

proc need_proc_cmdline {} {
    if {![file readable /proc/self/cmdline]} { skip "no /proc/PID/cmdline (not Linux?)" }
    if {$::harness::opt(wrapper) ne ""} {
        skip "under a wrapper (emulator) /proc/PID/cmdline is the wrapper's, not the server's argv area"
    }
}

# The process title: /proc/PID/cmdline up to the first NUL.
proc proc_title {pid} {
    set fd [open /proc/$pid/cmdline rb]
    set raw [read $fd]
    close $fd
    return [lindex [split $raw "\0"] 0]
}

proc wait_for_title {pid pattern} {
    wait_for_condition 100 20 {[string match $pattern [proc_title $pid]]} else {
        fail "pid $pid: title is '[proc_title $pid]', expected '$pattern'"
    }
}

# ---- Debian's redis.conf -------------------------------------------------------------

set debian_conf /etc/redis/redis.conf
set placing {port bind dir pidfile logfile daemonize supervised unixsocket unixsocketperm}

# The copy of Debian's file with the placing directives (and `drop`) removed.
proc debian_copy {dir drop} {
    set fd [open $::debian_conf]
    set text [read $fd]
    close $fd
    set out {}
    foreach line [split $text \n] {
        set word [string tolower [lindex [regexp -inline {^\s*(\S+)} $line] 1]]
        if {$word in $::placing || $word in $drop} { set line "# (removed for the test) $line" }
        lappend out $line
    }
    file mkdir $dir
    set path [file join $dir debian-redis.conf]
    set fd [open $path w]
    puts $fd [join $out \n]
    close $fd
    return $path
}

if {![file readable $debian_conf]} {
    test "Debian's redis.conf loads" { skip "$debian_conf is not readable (not installed, or no permission)" }
} else {
    # Which pending directives the server under test doesn't know yet.
    set drop {}
    start_server {} {
        foreach d $pending_directives {
            if {[r config get $d] eq ""} { lappend drop $d }
        }
    }
    set copy [debian_copy [file join $::harness::opt(run_dir) "debian-conf-[pid]"] $drop]
    start_server [list config_lines [list "include $copy"]] {
        test "Debian's redis.conf loads and the server serves" {
            if {$drop ne ""} { puts "      (not yet known to this server, removed from the copy: $drop)" }
            assert_equal PONG [r ping]
            r set k v
            assert_equal v [r get k]
            # values the file sets, read back
            assert_equal {10000} [config_value slowlog-log-slower-than]
            assert_equal {{title} {listen-addr} {server-mode}} [config_value proc-title-template]
            assert_equal yes [config_value jemalloc-bg-thread]
            assert_equal no [config_value aof-timestamp-enabled]
            assert_equal 100 [config_value replica-priority]
        }
    }
}

# ---- the compatibility directives ------------------------------------------------------

# name  default  a good value and how CONFIG GET shows it  a bad value  its error
set directives {
    rdb-del-sync-files              no       yes yes        x    {argument must be 'yes' or 'no'}
    replica-serve-stale-data        yes      no no          2    {argument must be 'yes' or 'no'}
    slave-serve-stale-data          yes      no no          2    {argument must be 'yes' or 'no'}
    replica-read-only               yes      no no          on   {argument must be 'yes' or 'no'}
    slave-read-only                 yes      no no          on   {argument must be 'yes' or 'no'}
    repl-diskless-sync              yes      no no          1    {argument must be 'yes' or 'no'}
    repl-diskless-sync-delay        5        0 0            -1   {argument must be between 0 and 2147483647 inclusive}
    repl-diskless-sync-max-replicas 0        3 3            abc  {argument couldn't be parsed into an integer}
    repl-diskless-load              disabled SWAPDB swapdb  foo  {argument(s) must be one of the following: disabled, on-empty-db, swapdb}
    repl-disable-tcp-nodelay        no       yes yes        0    {argument must be 'yes' or 'no'}
    replica-priority                100      0 0            -1   {argument must be between 0 and 2147483647 inclusive}
    slave-priority                  100      7 7            1.5  {argument couldn't be parsed into an integer}
    replica-lazy-flush              no       yes yes        y    {argument must be 'yes' or 'no'}
    slave-lazy-flush                no       yes yes        y    {argument must be 'yes' or 'no'}
    acllog-max-len                  128      0 0            -1   {argument must be between 0 and LONG_MAX inclusive}
    stream-node-max-bytes           4096     1k 1000        -1   {argument must be a memory value}
    stream-node-max-entries         100      0 0            -1   {argument must be between 0 and 9223372036854775807 inclusive}
    aof-timestamp-enabled           no       yes yes        1    {argument must be 'yes' or 'no'}
    jemalloc-bg-thread              yes      no no          maybe {argument must be 'yes' or 'no'}
}

start_server {tags {config}} {
    foreach {name default good shown bad err} $directives {
        test "$name: default, CONFIG SET, CONFIG GET and the error for '$bad'" {
            # a C long, as in Redis: its maximum depends on the build
            set err [string map [list LONG_MAX [expr {[s arch_bits] == 32 ? 2147483647 : 9223372036854775807}]] $err]
            assert_equal [list $name $default] [r config get $name]
            assert_equal OK [r config set $name $good]
            assert_equal $shown [config_value $name]
            assert_equal [set_failed $name $err] [error_of r config set $name $bad]
            assert_equal $shown [config_value $name] "a refused value changes nothing"
            r config set $name $default
        }
    }

    test "an alias and its directive are one setting" {
        r config set slave-priority 12
        assert_equal 12 [config_value replica-priority]
        r config set replica-priority 100
        assert_equal 100 [config_value slave-priority]
    }

    test "replicaof is set in the file or by REPLICAOF, not by CONFIG SET; masterauth is" {
        assert_match "*can't set immutable config" [error_of r config set replicaof "127.0.0.1 1"]
        assert_equal {replicaof {}} [r config get replicaof]
        assert_equal OK [r config set masterauth secret]
        assert_equal {masterauth secret} [r config get masterauth]
        r config set masterauth ""
    }
}

start_server {tags {config} config_lines {"replica-priority 7" "stream-node-max-entries 50" "slave-lazy-flush yes" "repl-disable-tcp-nodelay yes"}} {
    test "compatibility directives from the file, CONFIG REWRITE keeps them" {
        assert_equal 7 [config_value replica-priority]
        assert_equal 50 [config_value stream-node-max-entries]
        assert_equal yes [config_value replica-lazy-flush]
        r config set repl-diskless-load on-empty-db
        r config set stream-node-max-entries 100
        assert_equal OK [r config rewrite]
        set fd [open [srv config_file]]
        set text [read $fd]
        close $fd
        assert_match "*\nreplica-priority 7\n*" $text
        assert_match "*\nrepl-diskless-load on-empty-db\n*" $text
        assert_match "*\nreplica-lazy-flush yes\n*" $text
        restart_server
        assert_equal 7 [config_value replica-priority]
        assert_equal on-empty-db [config_value repl-diskless-load]
        assert_equal 100 [config_value stream-node-max-entries]
    } {needs:restart}

    test "one start-up warning names the directives that have no effect" {
        if {![ours]} { skip "Redis implements these directives" }
        wait_for_log "*have no effect*"
        set line [lindex [lsearch -all -inline [split [log_tail 0 100] \n] "*have no effect*"] end]
        assert_no_match "*replica-priority*" $line "replication is built"
        assert_match "*repl-disable-tcp-nodelay*" $line
        assert_no_match "*replica-lazy-flush*" $line "the replica flushes lazily with it"
        assert_no_match "*repl-diskless-load*" $line "replication is built"
        assert_no_match "*stream-node-max-entries*" $line "back at its default"
    } {needs:restart}
}

start_server {tags {config} config_lines {"cluster-enabled no" "cluster-config-file nodes-x.conf"}} {
    test "cluster-enabled no is accepted: it asks for what the server is" {
        assert_equal PONG [r ping]
        assert_equal {cluster-enabled no} [r config get cluster-enabled]
        assert_equal {cluster-config-file nodes-x.conf} [r config get cluster-config-file]
    }
}

start_server {tags {config} config_lines {"io-threads 4" "io-threads-do-reads yes"}} {
    test "io-threads and io-threads-do-reads are accepted and shown by CONFIG GET" {
        assert_equal 4 [config_value io-threads]
        assert_equal yes [config_value io-threads-do-reads]
        assert_match "*io-threads*" [error_of r config set io-threads 2]
    }

    test "io-threads above 1 gets a start-up warning: the server is single-threaded" {
        if {![ours]} { skip "Redis runs I/O threads" }
        wait_for_log "*io-threads 4 and io-threads-do-reads yes ignored: this server is single-threaded by design*"
    }
}

start_server {tags {config} config_lines {"io-threads 1"}} {
    test "io-threads 1 is accepted silently" {
        assert_equal 1 [config_value io-threads]
        assert_equal {} [lsearch -all -inline [split [log_tail 0 100] \n] "*io-threads*"]
    }
}

# ---- process title ----------------------------------------------------------------------

start_server {tags {config proctitle}} {
    test "the process title follows the default template" {
        need_proc_cmdline
        set pid [srv pid]
        set port [srv port]
        wait_for_title $pid "*redis-server 127.0.0.1:$port"
    }

    test "CONFIG SET proc-title-template retitles the running server" {
        need_proc_cmdline
        set pid [srv pid]
        set port [srv port]
        set template "{title} x{port}y \{\{z\} {listen-addr} {server-mode} {tls-port}"
        assert_equal OK [r config set proc-title-template $template]
        wait_for_title $pid "*redis-server x${port}y \{z\} 127.0.0.1:$port  0"
        r config set proc-title-template "  plain title  "
        wait_for_title $pid "plain title"
        r config set proc-title-template "{config-file}"
        wait_for_title $pid [file normalize [srv config_file]]
        r config set proc-title-template [string repeat t 2000]
        assert_match "tttt*" [proc_title $pid] "a title longer than the argv area is cut"
        r config set proc-title-template "{title} {listen-addr} {server-mode}"
        wait_for_title $pid "*redis-server 127.0.0.1:$port"
    }

    test "proc-title-template: invalid templates are refused with Redis's error" {
        set err [set_failed proc-title-template "template format is invalid or contains unknown variables"]
        foreach bad [list "{title}" "{nope}" "\{" "\{title" "{}" "   " "{server-mode}" "x \{port"] {
            assert_equal $err [error_of r config set proc-title-template $bad] "template '$bad'"
        }
        assert_equal {{title} {listen-addr} {server-mode}} [config_value proc-title-template]
        foreach good [list "\}" "{{}}" "a\}\}b" "x {title}"] {
            assert_equal OK [r config set proc-title-template $good] "template '$good'"
        }
        r config set proc-title-template "{title} {listen-addr} {server-mode}"
    }

    test "set-proc-title is start-up only" {
        assert_equal [set_failed set-proc-title "can't set immutable config"] [error_of r config set set-proc-title no]
    }

    test "fork children have their own titles: redis-rdb-bgsave, redis-aof-rewrite" {
        need_proc_cmdline
        set pid [srv pid]
        set port [srv port]
        for {set i 0} {$i < 20} {incr i} { r set key:$i $i }
        r config set rdb-key-save-delay 200000
        set from [log_line_count]
        r bgsave
        set line [wait_for_log "*Background saving started by pid *" -from $from]
        regexp {pid (\d+)} $line -> child
        wait_for_title $child "redis-rdb-bgsave 127.0.0.1:$port"
        r config set rdb-key-save-delay 0
        wait_for_condition 200 50 {[s rdb_bgsave_in_progress] == 0} else { fail "BGSAVE still running" }

        r config set appendonly yes
        wait_for_condition 200 50 {[aof_rewrite_idle]} else {
            fail "initial AOF rewrite still running"
        }
        r config set rdb-key-save-delay 200000
        set from [log_line_count]
        r bgrewriteaof
        set line [wait_for_log "*rewriting started by pid *" -from $from]
        regexp {pid (\d+)} $line -> child
        wait_for_title $child "redis-aof-rewrite 127.0.0.1:$port"
        r config set rdb-key-save-delay 0
        wait_for_condition 200 50 {[s aof_rewrite_in_progress] == 0} else { fail "rewrite still running" }
        assert_match "*redis-server 127.0.0.1:$port" [proc_title $pid] "the parent keeps its title"
    }
}

start_server {tags {config proctitle} overrides {set-proc-title no}} {
    test "with set-proc-title no the command line is left alone" {
        need_proc_cmdline
        if {![ours]} {
            skip "Redis 7.0 retitles on CONFIG SET proc-title-template even with set-proc-title no (its redis.conf says it leaves the name alone)"
        }
        r config set proc-title-template "changed {port}"
        assert_no_match "changed*" [proc_title [srv pid]]
        assert_match "*redis-server" [proc_title [srv pid]]
    }
}

# ---- jemalloc-bg-thread --------------------------------------------------------------------

proc thread_names {pid} {
    set names {}
    foreach comm [glob -nocomplain /proc/$pid/task/*/comm] {
        catch { lappend names [string trim [::harness::read_file $comm]] }
    }
    return $names
}

start_server {tags {config}} {
    test "jemalloc-bg-thread starts and stops jemalloc's background thread" {
        if {![string match jemalloc* [s mem_allocator]]} { skip "allocator is [s mem_allocator]: no background thread" }
        if {![file isdirectory /proc/[srv pid]/task]} { skip "no /proc/PID/task" }
        set pid [srv pid]
        wait_for_condition 100 20 {"jemalloc_bg_thd" in [thread_names $pid]} else {
            fail "no jemalloc_bg_thd thread: [thread_names $pid]"
        }
        r config set jemalloc-bg-thread no
        wait_for_condition 100 20 {"jemalloc_bg_thd" ni [thread_names $pid]} else {
            fail "jemalloc_bg_thd still running: [thread_names $pid]"
        }
        r config set jemalloc-bg-thread yes
        wait_for_condition 100 20 {"jemalloc_bg_thd" in [thread_names $pid]} else {
            fail "jemalloc_bg_thd not restarted: [thread_names $pid]"
        }
        # a fork with the thread running: the child works, and so does the parent
        r set a 1
        r bgsave
        wait_for_condition 200 50 {[s rdb_bgsave_in_progress] == 0} else { fail "BGSAVE still running" }
        assert_equal ok [s rdb_last_bgsave_status]
    }
}

# ---- AOF timestamps ------------------------------------------------------------------------

proc aof_dir {} { return [file join [srv dir] appendonlydir] }

proc aof_manifest {} { return [file join [aof_dir] appendonly.aof.manifest] }

# The last file the manifest names.
proc last_incr_path {} {
    set fd [open [aof_manifest]]
    set lines [split [string trim [read $fd]] \n]
    close $fd
    return [file join [aof_dir] [lindex [lindex $lines end] 1]]
}

proc file_bytes {path} {
    set fd [open $path rb]
    set data [read $fd]
    close $fd
    return $data
}

proc write_bytes {path bytes {mode w}} {
    set fd [open $path $mode]
    fconfigure $fd -translation binary
    puts -nonewline $fd $bytes
    close $fd
}

proc resp_command {args} {
    set out "*[llength $args]\r\n"
    foreach a $args { append out "\$[string length $a]\r\n$a\r\n" }
    return $out
}


proc wait_next_second {} {
    set now [clock seconds]
    wait_for_condition 300 10 {[clock seconds] > $now} else { fail "the clock stopped" }
}

start_server {tags {aof config} overrides {appendonly yes aof-timestamp-enabled yes}} {
    test "aof-timestamp-enabled writes #TS annotations, one per second with writes" {
        set start [clock seconds]
        r set a 1
        r set b 2
        wait_next_second
        r incr a
        wait_next_second
        r rpush l x y
        set end [clock seconds]
        wait_for_condition 100 20 {[regexp -all {#TS:} [file_bytes [last_incr_path]]] >= 3} else {
            fail "annotations: [regexp -all -inline {#TS:\d+} [file_bytes [last_incr_path]]]"
        }
        set stamps [regexp -all -inline {#TS:(\d+)\r\n} [file_bytes [last_incr_path]]]
        set prev 0
        foreach {whole ts} $stamps {
            assert_range $ts $start $end
            assert_morethan $ts $prev
            set prev $ts
        }
        assert {[llength $stamps] >= 6} "one per second with writes: $stamps"
        assert_match "#TS:*" [file_bytes [last_incr_path]] "the file starts with one"
    }

    test "an AOF with annotations loads: DEBUG LOADAOF and a restart keep the digest" {
        set digest [r debug digest]
        assert_equal OK [r debug loadaof]
        assert_equal $digest [r debug digest]
        restart_server
        assert_equal $digest [r debug digest]
        assert_equal {x y} [r lrange l 0 -1]
    } {needs:restart}

    test "redis-check-aof accepts annotations" {
        lassign [check_aof [aof_manifest]] status out
        assert_equal 0 $status $out
        assert_match "*valid*" $out
    }

    test "a rewritten command base starts with the rewrite's timestamp" {
        r config set aof-use-rdb-preamble no
        set start [clock seconds]
        r bgrewriteaof
        wait_for_condition 200 50 {[aof_rewrite_idle]} else {
            fail "rewrite still running"
        }
        set base [lindex [glob -directory [aof_dir] *.base.aof] 0]
        assert {[regexp {^#TS:(\d+)\r\n\*} [file_bytes $base] -> ts]} "base starts: [string range [file_bytes $base] 0 30]"
        assert_range $ts $start [clock seconds]
        set digest [r debug digest]
        assert_equal OK [r debug loadaof]
        assert_equal $digest [r debug digest]
        r config set aof-use-rdb-preamble yes
    }

    test "with aof-timestamp-enabled no, nothing more is annotated" {
        r config set aof-timestamp-enabled no
        set before [regexp -all {#TS:} [file_bytes [last_incr_path]]]
        wait_next_second
        r set c 3
        wait_next_second
        r set d 4
        wait_for_condition 100 20 {[string match "*\r\nd\r\n*" [file_bytes [last_incr_path]]]} else {
            fail "the write did not reach the AOF"
        }
        assert_equal $before [regexp -all {#TS:} [file_bytes [last_incr_path]]]
        r config set aof-timestamp-enabled yes
    }
}

start_server {tags {aof config} overrides {appendonly yes}} {
    test "a hand-written AOF with annotations between commands and inside MULTI loads" {
        r set seed 1
        set path [last_incr_path]
        shutdown_server
        set body "#TS:1700000000\r\n"
        append body [resp_command SELECT 0] "#TS:1700000001\r\n" [resp_command SET x 10]
        append body "#note written by hand\r\n" [resp_command MULTI] "#TS:1700000002\r\n"
        append body [resp_command INCR x] [resp_command EXEC] "#TS:1700000003\r\n"
        append body [resp_command RPUSH l a b] "#TS:1700000004\r\n"
        write_bytes $path $body
        restart_server
        assert_equal 11 [r get x]
        assert_equal {a b} [r lrange l 0 -1]
        assert_equal 0 [r exists seed]
    } {needs:restart}

    test "an annotation cut short at the end of the file doesn't stop loading" {
        set path [last_incr_path]
        shutdown_server
        write_bytes $path "#TS:17000" a
        restart_server
        assert_equal 11 [r get x]
        assert_equal {a b} [r lrange l 0 -1]
    } {needs:restart}

    test "redis-check-aof: annotations are valid; --truncate-to-timestamp cuts at the first later one" {
        lassign [check_aof [aof_manifest]] status out
        assert_equal 0 $status $out
        set path [last_incr_path]
        shutdown_server
        lassign [check_aof --truncate-to-timestamp 1700000002 [aof_manifest]] status out
        assert_equal 0 $status $out
        assert_match "*runcate*" $out
        set data [file_bytes $path]
        assert_match "*INCR*EXEC\r\n" $data
        assert_no_match "*RPUSH*" $data
        restart_server
        assert_equal 11 [r get x]
        assert_equal 0 [r exists l]
    } {needs:restart}
}
