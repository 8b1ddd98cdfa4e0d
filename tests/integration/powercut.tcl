# powercut.tcl -- power-cut safety of the data files (issue #37), through the
# checker in utils/powercut (its README states the model): the server runs a
# workload under the recording shim, the states a power cut may leave are
# drawn from the record, and the server is started on each.
#
# Regression cases, one per fault the checker found in our server:
# - CONFIG REWRITE and ACL SAVE renamed the new file into place without
#   fsyncing the directory: after an acknowledged rewrite a power cut could
#   bring the old file back.
# - The AOF manifest was renamed into place before the files it names (a new
#   INCR file, a new BASE renamed in by a rewrite) were durable in the
#   directory: a power cut could leave a manifest naming a missing file,
#   and the server refusing to start.
# - The AOF directory was created without fsyncing its parent: a power cut
#   could undo the mkdir and with it the whole AOF, and the server started
#   empty over acknowledged writes.
# - A replica renamed the snapshot it received over dump.rdb without
#   fsyncing it (nor the directory after): a power cut could leave a partial
#   dump.rdb where a good one was.
# - When a rewrite started, the manifest naming a new INCR file was written
#   before the old one was fsynced (everysec, no): a power cut could leave
#   the old file with a cut-short tail that is no longer the last one, and
#   the server refusing to start.
# - An append a power cut interrupted can leave the file's new size with
#   zeros where the data was: the server refused to start (Redis 7.0.15
#   does); now a last file that ends in a cut-short command and zeros is
#   truncated like a short read (aof-load-truncated). The live runs use
#   --strict (a refused start fails), which they failed before these fixes.
# For each, the record of our server before the fix is kept in
# tests/assets/powercut/<workload>-before-fix (the recorded sequence): the
# checker must still flag it, and the current server must pass the same
# workload live (which it failed before the fix).
#
# Design decisions:
# - The checker is a Python program run per test (python3, standard library
#   only); each run is bounded (a fixed number of crash states, seeded) and
#   takes seconds.
# - The shim is a host library, loaded into the server by LD_PRELOAD: the
#   tests run on native builds only (they skip under an emulator wrapper),
#   and need build/powercut-shim.so (make test builds it first); a server
#   the shim does not load into (the static musl port, the i386 port on an
#   x86_64 host) skips them too, found by a probe rather than by name.
# - Debian's Redis 7.0.15 fails the live checks (the issue's note has its
#   table): they run on our server only.

set pc_tool [file normalize utils/powercut/powercut.py]
set pc_shim [file normalize build/powercut-shim.so]
set pc_assets [file normalize tests/assets/powercut]

proc pc_why_not {} {
    if {[::harness::external]} { return "external mode: the checker starts its own servers" }
    if {[llength $::harness::opt(wrapper)] > 0} { return "the recording shim is a host library: native servers only" }
    if {![file exists $::pc_shim]} { return "build/powercut-shim.so is not built (make build/powercut-shim.so)" }
    if {[auto_execok python3] eq ""} { return "no python3" }
    if {![pc_shim_loads]} { return "the recording shim does not load into this server (a static binary, or another architecture's)" }
    return ""
}

# True when build/powercut-shim.so is loaded into the server under test: the
# shim creates its log at load, so `--version` with it preloaded leaves the
# file behind. A static binary ignores LD_PRELOAD, and the dynamic loader
# skips (with a warning) a library of another ELF class (the i386 port runs
# natively on x86_64 hosts).
proc pc_shim_loads {} {
    set dir [file normalize [file join tests tmp powercut-probe-[pid]]]
    file mkdir $dir
    set counter [open [file join $dir counter] w]
    fconfigure $counter -translation binary
    puts -nonewline $counter [string repeat \0 24]
    close $counter
    set log [file join $dir record.log]
    catch {exec env LD_PRELOAD=$::pc_shim POWERCUT_DIR=$dir POWERCUT_LOG=$log \
               POWERCUT_COUNTER=[file join $dir counter] $::harness::opt(server) --version 2>@1} out
    set loaded [file exists $log]
    file delete -force $dir
    return $loaded
}

proc pc_is_redis {} {
    expr {![string match *portable* [exec {*}$::harness::opt(wrapper) $::harness::opt(server) --version]]}
}

# Runs the checker with ARGS; returns its "N passed, N failed" line, and
# its whole output in the error detail when that line is not as expected.
proc pc_check {expected args} {
    set limit [::harness::scaled 240]
    catch {exec timeout $limit python3 $::pc_tool {*}$args --shim $::pc_shim 2>@1} out
    set line [lindex [regexp -all -inline -line {^\d+ passed, \d+ failed$} $out] end]
    assert_equal $expected $line $out
}

set pc_skip [pc_why_not]
set pc_server [file normalize $::harness::opt(server)]

foreach {case needs_server} {
    config-rewrite-before-fix 0
    acl-save-before-fix 0
    aof-always-before-fix 1
    forkless-aof-before-fix 1
    replica-sync-before-fix 0
    aof-everysec-before-fix 1
} {
    test "power cut: the checker flags the recorded sequence $case" {
        # without a server the check is host-side only: it runs under an emulator too
        if {$needs_server && $::pc_skip ne ""} { skip $::pc_skip }
        if {[auto_execok python3] eq ""} { skip "no python3" }
        set server_args [expr {$needs_server ? [list --server $::pc_server] : {}}]
        pc_check "1 passed, 0 failed" check-record [file join $::pc_assets $case] --expect-violations --strict \
            {*}$server_args
    }
}

foreach {workload what} {
    config-rewrite "CONFIG REWRITE leaves the old or the new file, the new one once acknowledged"
    acl-save "ACL SAVE leaves the old or the new file, the new one once acknowledged"
    aof-always "appendfsync always with a rewrite in the middle: no acknowledged write lost, no manifest naming a missing file"
    aof-everysec "appendfsync everysec with a rewrite in the middle: all but the last 2 s kept, the server starts"
    forkless-aof "the same with a fork-less rewrite"
    replica-sync "a replica's full sync never leaves half a snapshot as dump.rdb"
} {
    test "power cut: $what" {
        if {$::pc_skip ne ""} { skip $::pc_skip }
        if {[pc_is_redis]} { skip "our server only (Redis 7.0.15: make powercut POWERCUT_SERVERS=/usr/bin/redis-server)" }
        pc_check "1 passed, 0 failed" run --server $::pc_server --workloads $workload --strict
    }
}

# ---- a last AOF file that ends in zeros ------------------------------------------------------

proc pc_incr_path {} { return [::harness::aof_last_incr] }

# Overwrites the last N bytes of PATH with zeros and appends PAD more: an
# append whose size reached the disk but whose data did not.
proc pc_zero_tail {path n pad} {
    set fd [open $path r+]
    fconfigure $fd -translation binary
    seek $fd [expr {[file size $path] - $n}]
    puts -nonewline $fd [string repeat \0 [expr {$n + $pad}]]
    close $fd
}

proc truncate_file_to {path size} {
    set fd [open $path r+]
    chan truncate $fd $size
    close $fd
}

start_server {tags {aof external:skip} overrides {appendonly yes}} {
    test "power cut: a last command cut short by zeros to the end of the file is cut off, and loading goes on" {
        if {[pc_is_redis]} { skip "Redis 7.0.15 refuses to start (Bad file format)" }
        r set a 1
        r set b 2
        set path [pc_incr_path]
        shutdown_server
        set size [file size $path]
        set cmd_b "*3\r\n\$3\r\nset\r\n\$1\r\nb\r\n\$1\r\n2\r\n"
        pc_zero_tail $path 5 4000
        restart_server
        assert_equal 1 [r get a]
        assert_equal {} [r get b]
        assert_match "*ends in zero bytes after byte*Truncating the AOF*" [log_tail 0 100]
        assert_equal [expr {$size - [string length $cmd_b]}] [file size $path]
    }

    test "power cut: zeros then more data is still a bad file (start-up stops)" {
        r set keep2 x
        r set c 3
        set path [pc_incr_path]
        shutdown_server
        pc_zero_tail $path 3 100
        set fd [open $path a]
        puts -nonewline $fd "x"
        close $fd
        assert_equal 1 [server_exit_status]
        assert_match "*Bad file format reading the append only file*" [log_tail 0 20]
        truncate_file_to $path [expr {[file size $path] - 104}]
        restart_server
        assert_equal x [r get keep2]
    }

    test "power cut: with aof-load-truncated no, a zero tail stops start-up" {
        r set keep3 y
        r set d 4
        set path [pc_incr_path]
        shutdown_server
        pc_zero_tail $path 2 10
        assert_equal 1 [server_exit_status --aof-load-truncated no]
        assert_match "*Bad file format reading the append only file*" [log_tail 0 20]
        truncate_file_to $path [expr {[file size $path] - 12}] ;# the zeros gone: a short read
        restart_server
        assert_equal y [r get keep3]
    }
}

