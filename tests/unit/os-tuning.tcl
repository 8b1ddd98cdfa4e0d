# os-tuning.tcl -- Redis 7 directives about the process and the keyspace
# tables: disable-thp, activerehashing, rdb-save-incremental-fsync,
# oom-score-adj and oom-score-adj-values. CONFIG GET/SET (defaults, which are
# mutable, the exact error texts) and their effect, read back from /proc
# where the effect is an OS setting.
#
# Design decisions:
# - Every test runs against the reference server too
#   (./runtest --server /usr/bin/redis-server --single unit/os-tuning), so
#   the expectations are Redis 7.0's.
# - disable-thp only acts when the system's THP setting is `always`; on other
#   machines the /proc check is skipped with the setting it found (the
#   decision itself is unit-tested in tests/c/test_thp.c).
# - activerehashing is watched through DEBUG HTSTATS: a table that is being
#   resized shows a "rehashing target". Nothing touches the keyspace while
#   the test waits, so only the cron could finish the rehash.
# - A fork child's pid comes from the log line "Background saving started by
#   pid N" (same words in Redis), kept alive with rdb-key-save-delay.
# - Lowering an OOM score below where the process started needs
#   CAP_SYS_RESOURCE: that test skips without it (root in a container may
#   lack it).

proc oom_score {pid} {
    if {[catch {string trim [::harness::read_file /proc/$pid/oom_score_adj]} v]} { return "" }
    return $v
}

proc need_proc_oom {} {
    if {![file readable /proc/self/oom_score_adj]} { skip "no /proc/self/oom_score_adj (not Linux?)" }
}

# CAP_SYS_RESOURCE (bit 24) in the effective set: root in a container may lack it.
proc need_sys_resource {} {
    if {[catch {::harness::read_file /proc/self/status} text] ||
        ![regexp -line {^CapEff:\s*([0-9a-fA-F]+)} $text -> caps] ||
        !(("0x$caps" >> 24) & 1)} {
        skip "lowering oom_score_adj needs CAP_SYS_RESOURCE, which this process lacks"
    }
}

proc wait_for_oom_score {pid want} {
    wait_for_condition 100 20 {[oom_score $pid] eq $want} else {
        fail "pid $pid: oom_score_adj is '[oom_score $pid]', expected '$want'"
    }
}

proc start_slow_bgsave {} {
    for {set i 0} {$i < 20} {incr i} { r set key:$i $i }
    r config set rdb-key-save-delay 20000
    set from [log_line_count]
    r bgsave
    set line [wait_for_log "*Background saving started by pid *" -from $from]
    if {![regexp {started by pid (\d+)} $line -> pid]} { fail "no pid in '$line'" }
    return $pid
}

proc finish_slow_bgsave {} {
    r config set rdb-key-save-delay 0
    wait_for_condition 200 50 {[s rdb_bgsave_in_progress] == 0} else { fail "BGSAVE still running" }
}

proc set_error {name} { return "ERR CONFIG SET failed (possibly related to argument '$name') - " }

# ---- CONFIG GET / SET --------------------------------------------------------------------

start_server {tags {config os-tuning}} {
    test "defaults: disable-thp, activerehashing, rdb-save-incremental-fsync, oom-score-adj(-values)" {
        assert_equal {disable-thp yes} [r config get disable-thp]
        assert_equal {activerehashing yes} [r config get activerehashing]
        assert_equal {rdb-save-incremental-fsync yes} [r config get rdb-save-incremental-fsync]
        assert_equal {oom-score-adj no} [r config get oom-score-adj]
        assert_equal {oom-score-adj-values {0 200 800}} [r config get oom-score-adj-values]
    }

    test "disable-thp is start-up only" {
        assert_error "[set_error disable-thp]can't set immutable config" { r config set disable-thp no }
        assert_equal {disable-thp yes} [r config get disable-thp]
    }

    test "activerehashing and rdb-save-incremental-fsync are yes/no and mutable" {
        foreach name {activerehashing rdb-save-incremental-fsync} {
            assert_equal OK [r config set $name no]
            assert_equal [list $name no] [r config get $name]
            assert_error "[set_error $name]argument must be 'yes' or 'no'" { r config set $name maybe }
            assert_equal OK [r config set $name yes]
            assert_equal [list $name yes] [r config get $name]
        }
    }

    test "oom-score-adj takes no, yes, relative, absolute (relative reads back as yes)" {
        assert_error "[set_error oom-score-adj]argument(s) must be one of the following: no, yes, relative, absolute" {
            r config set oom-score-adj sometimes
        }
        foreach {value shown} {absolute absolute relative yes yes yes no no} {
            assert_equal OK [r config set oom-score-adj $value]
            assert_equal [list oom-score-adj $shown] [r config get oom-score-adj]
        }
    }

    test "oom-score-adj-values: three numbers from -2000 to 2000" {
        set range "[set_error oom-score-adj-values]Invalid oom-score-adj-values, elements must be between -2000 and 2000."
        assert_error "[set_error oom-score-adj-values]wrong number of arguments" { r config set oom-score-adj-values "1 2" }
        assert_error "[set_error oom-score-adj-values]wrong number of arguments" { r config set oom-score-adj-values "1 2 3 4" }
        assert_error $range { r config set oom-score-adj-values "1 2 2001" }
        assert_error $range { r config set oom-score-adj-values "-2001 2 3" }
        assert_error $range { r config set oom-score-adj-values "a 2 3" }
        assert_equal {oom-score-adj-values {0 200 800}} [r config get oom-score-adj-values]
        assert_equal OK [r config set oom-score-adj-values "-2000 2 2000"]
        assert_equal {oom-score-adj-values {-2000 2 2000}} [r config get oom-score-adj-values]
        r config set oom-score-adj-values "0 200 800"
    }
}

# ---- disable-thp ------------------------------------------------------------------------------

proc thp_system_setting {} {
    set path /sys/kernel/mm/transparent_hugepage/enabled
    if {[catch {string trim [::harness::read_file $path]} text]} { return "" }
    return $text
}

proc thp_enabled_of {pid} {
    if {[catch {::harness::read_file /proc/$pid/status} text]} { return "" }
    if {![regexp -line {^THP_enabled:\s*(\d+)} $text -> v]} { return "" }
    return $v
}

proc need_thp_always {} {
    set setting [thp_system_setting]
    if {![string match {*\[always\]*} $setting]} {
        skip "THP is '$setting' on this machine, not \[always\]: disable-thp has nothing to do"
    }
    if {[thp_enabled_of self] eq ""} { skip "no THP_enabled in /proc/self/status (kernel before 5.0)" }
}

foreach {value want} {yes 0 no 1} {
    start_server [list tags {os-tuning external:skip} overrides [list disable-thp $value]] {
        test "disable-thp $value: THP_enabled of the server is $want when the system says always" {
            need_thp_always
            assert_equal $want [thp_enabled_of [srv pid]]
        }
    }
}

# ---- activerehashing -------------------------------------------------------------------------

proc keys_rehashing {} { string match "*rehashing target*" [r debug htstats 9] }

start_server {tags {os-tuning needs:debug} overrides {activerehashing no}} {
    test "activerehashing no: a resize of the keyspace waits for traffic; yes lets the cron finish it" {
        r select 9
        set i 0
        while {![keys_rehashing]} {
            r set key:$i $i
            if {[incr i] > 100000} { fail "the keyspace table never started a resize" }
        }
        after 500 ;# five cron runs at hz 10
        assert {[keys_rehashing]}
        assert_equal OK [r config set activerehashing yes]
        wait_for_condition 100 20 {![keys_rehashing]} else { fail "the cron didn't finish the rehash" }
        assert_equal $i [r dbsize]
    }
}

# ---- rdb-save-incremental-fsync --------------------------------------------------------------

start_server {tags {os-tuning needs:debug}} {
    test "rdb-save-incremental-fsync: snapshots over 4 MB load back the same, on and off" {
        r debug populate 1200 key 6000 ;# ~7 MB: the 4 MB step is passed (few keys: 60k small ones took 5 minutes under sparc64 emulation)
        set digest [r debug digest]
        foreach value {yes no} {
            r config set rdb-save-incremental-fsync $value
            assert_equal OK [r save]
            r debug reload
            assert_equal $digest [r debug digest] "rdb-save-incremental-fsync $value"
        }
        r config set rdb-save-incremental-fsync yes
        assert_match "Background saving started" [r bgsave]
        wait_for_condition 200 50 {[s rdb_bgsave_in_progress] == 0} else { fail "BGSAVE still running" }
        assert_equal ok [s rdb_last_bgsave_status]
        r debug reload
        assert_equal $digest [r debug digest]
    }
}

# ---- oom-score-adj ---------------------------------------------------------------------------

start_server {tags {os-tuning external:skip}} {
    set base [oom_score [pid]] ;# the server inherits the test's score

    test "oom-score-adj no leaves the server's score alone" {
        need_proc_oom
        assert_equal $base [oom_score [srv pid]]
    }

    test "oom-score-adj absolute / relative set the main value, no restores the start value" {
        need_proc_oom
        r config set oom-score-adj-values "10 20 30"
        r config set oom-score-adj absolute
        assert_equal 10 [oom_score [srv pid]]
        r config set oom-score-adj relative
        assert_equal [expr {min(1000, $base + 10)}] [oom_score [srv pid]]
        r config set oom-score-adj-values "15 20 30"
        assert_equal [expr {min(1000, $base + 15)}] [oom_score [srv pid]]
        r config set oom-score-adj no
        assert_equal $base [oom_score [srv pid]]
    }

    test "a replica takes the replica value while it has a primary, the main value again after" {
        need_proc_oom
        r config set oom-score-adj-values "15 25 35"
        r config set oom-score-adj absolute
        assert_equal 15 [oom_score [srv pid]]
        r replicaof 127.0.0.1 1 ;# nothing listens there: the role is what counts
        assert_equal 25 [oom_score [srv pid]]
        r config set oom-score-adj-values "15 26 35"
        assert_equal 26 [oom_score [srv pid]]
        r replicaof no one
        assert_equal 15 [oom_score [srv pid]]
        r config set oom-score-adj no
        assert_equal $base [oom_score [srv pid]]
    }

    test "values beyond -1000..1000 are clamped" {
        need_proc_oom
        r config set oom-score-adj-values "2000 200 800"
        r config set oom-score-adj absolute
        assert_equal 1000 [oom_score [srv pid]]
        r config set oom-score-adj relative
        assert_equal 1000 [oom_score [srv pid]]
        r config set oom-score-adj no
        assert_equal $base [oom_score [srv pid]]
    }

    test "a BGSAVE child takes the bgchild value, the server keeps its own" {
        need_proc_oom
        r config set oom-score-adj-values "100 200 300"
        r config set oom-score-adj absolute
        set child [start_slow_bgsave]
        wait_for_oom_score $child 300
        assert_equal 100 [oom_score [srv pid]]
        finish_slow_bgsave
        r config set oom-score-adj relative
        set child [start_slow_bgsave]
        wait_for_oom_score $child [expr {min(1000, $base + 300)}]
        finish_slow_bgsave
        r config set oom-score-adj no
        assert_equal $base [oom_score [srv pid]]
    }

    test "negative values lower the score (needs CAP_SYS_RESOURCE)" {
        need_proc_oom
        need_sys_resource
        r config set oom-score-adj-values "-2000 0 -5"
        r config set oom-score-adj absolute
        assert_equal -1000 [oom_score [srv pid]]
        set child [start_slow_bgsave]
        wait_for_oom_score $child -5
        finish_slow_bgsave
        r config set oom-score-adj no
        assert_equal $base [oom_score [srv pid]]
        r config set oom-score-adj-values "0 200 800"
    }
}

start_server {tags {os-tuning external:skip}
              config_lines {"oom-score-adj-values 7 8 9" "oom-score-adj absolute"}} {
    test "oom-score-adj from the config file applies at start-up" {
        need_proc_oom
        assert_equal {oom-score-adj-values {7 8 9}} [r config get oom-score-adj-values]
        assert_equal 7 [oom_score [srv pid]]
    }
}
