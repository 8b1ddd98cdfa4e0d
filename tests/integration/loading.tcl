# Loading a dataset (the RDB at start-up, the AOF with or without an RDB
# base, DEBUG RELOAD, DEBUG LOADAOF) keeps the server answering: a client
# that connects meanwhile gets -LOADING for what needs the data, INFO shows
# loading:1 and the loading_* fields, and the log says what was loaded, as
# Redis 7.0 does. key-load-delay (microseconds per key) makes the load last
# a few seconds; loading-process-events-interval-bytes 1024 makes Redis 7.0
# serve clients often enough to be observed too (ours serves every ~2 ms
# anyway), so these tests also run against the reference server.

proc is_reference_server {} { expr {[file normalize $::harness::opt(server)] eq "/usr/bin/redis-server"} }

# Stops the server (SIGTERM) and starts it again without waiting for it to
# answer PING: the caller watches it load.
proc restart_without_waiting {} {
    set sid [::harness::sid_at 0]
    variable ::harness::S
    ::harness::close_clients $sid
    if {[::harness::pid_alive $S($sid,pid)]} {
        ::harness::terminate_pid $S($sid,pid) [expr {1000 * [::harness::scaled $::harness::stop_timeout_s]}]
    }
    set status [::harness::reap $sid]
    if {$status ne "exited with status 0"} { fail "the server $status when stopped" }
    ::harness::start_process $sid
}

# A new connection, retried until the server listens.
proc loading_client {} {
    for {set i 0} {$i < [::harness::scaled 250]} {incr i} {
        if {![catch {::resp::connect [srv host] [srv port] -timeout [::harness::scaled 10]} c]} { return $c }
        after 20
    }
    fail "could not connect to the server"
}

proc persistence_fields {c} {
    set fields {}
    foreach line [split [$c info persistence] \r\n] {
        if {[regexp {^([a-z_]+):(.*)$} $line -> k v]} { dict set fields $k $v }
    }
    return $fields
}

# Waits until INFO on c says loading:1 with some bytes loaded; returns the fields.
proc wait_loading {c} {
    for {set i 0} {$i < [::harness::scaled 500]} {incr i} {
        set f [persistence_fields $c]
        if {[dict get $f loading] == 1 && [dict exists $f loading_loaded_bytes] &&
            [dict get $f loading_loaded_bytes] > 0} { return $f }
        after 10
    }
    fail "the server was never seen loading: $f"
}

proc wait_loaded {c} {
    wait_for_condition [::harness::scaled 1500] 20 {[catch {$c ping} reply] == 0} else {
        fail "still not answering PING after the load: $reply"
    }
}

# The loading_* fields while loading: Redis 7.0's names, in its order, with sane values.
proc assert_loading_fields {f total} {
    set names [dict keys $f]
    set at [lsearch $names loading_start_time]
    assert {$at > 0}
    set expected {loading_start_time loading_total_bytes loading_rdb_used_mem loading_loaded_bytes
        loading_loaded_perc loading_eta_seconds}
    assert_equal [join $expected] [join [lrange $names $at end]]
    assert_equal 1 [dict get $f loading]
    assert_equal 0 [dict get $f async_loading]
    set now [clock seconds]
    assert_range [dict get $f loading_start_time] [expr {$now - 120}] [expr {$now + 1}]
    assert_equal $total [dict get $f loading_total_bytes]
    set loaded [dict get $f loading_loaded_bytes]
    assert_range $loaded 1 $total
    assert_match {*.??} [dict get $f loading_loaded_perc]
    assert_range [dict get $f loading_loaded_perc] 0 100
    assert_equal [format %.2f [expr {double($loaded) / ($total + 1) * 100}]] [dict get $f loading_loaded_perc]
    assert {[dict get $f loading_eta_seconds] >= 0}
}

# While loading: what needs the data is refused, INFO answers, and the
# loaded bytes grow. total_script gives the size of what loads (read once
# loading: DEBUG RELOAD saves first). Returns the first fields seen.
proc check_while_loading {c total_script} {
    set f [wait_loading $c]
    set total [uplevel 1 $total_script]
    assert_loading_fields $f $total
    assert_error "LOADING Redis is loading the dataset in memory" {$c get key:1}
    assert_error "LOADING Redis is loading the dataset in memory" {$c ping}
    assert_error "LOADING*" {$c dbsize}
    assert_equal hi [$c echo hi]
    # the commands flagged "loading" answer, every INFO section included
    # (INFO at start-up once crashed: the replicas' list did not exist yet)
    assert_match "*# Replication*# Keyspace*" [$c info everything]
    foreach cmd {{role} {client list} {config get maxmemory} {lastsave} {command count} {info memory}} {
        if {[catch {$c {*}$cmd} err]} { fail "$cmd while loading: $err" }
    }
    $c config set loglevel [lindex [$c config get loglevel] 1]
    set before [dict get $f loading_loaded_bytes]
    wait_for_condition [::harness::scaled 300] 10 {
        [dict get [set g [persistence_fields $c]] loading] == 0 ||
        [dict get $g loading_loaded_bytes] > $before
    } else { fail "the loaded bytes did not grow" }
    if {[dict get $g loading]} { assert_loading_fields $g $total }
    return $f
}

proc log_since {from} {
    return [join [lrange [split [::harness::read_file [srv stdout]] \n] $from end] \n]
}

# The size of the files of the server's directory matching the patterns.
proc files_size {args} {
    set total 0
    foreach path [glob -directory [srv dir] {*}$args] { incr total [file size $path] }
    return $total
}

# Keys of the loaded datasets: with key-load-delay 100 (microseconds per
# key) a load lasts 1-2 s, natively and emulated, long enough for a client
# to connect and watch it (20000 before: 45 s of the file natively, 60 s
# under QEMU, for no more checked).
set ::loading_keys 10000
set size_script {files_size dump.rdb}
start_server {tags {loading} overrides {key-load-delay 100 loading-process-events-interval-bytes 1024}} {
    test "RDB at start-up: -LOADING meanwhile, INFO's loading_* fields, Redis 7.0's log lines" {
        r debug populate $::loading_keys key 10
        r set vol x px 500
        r save
        after 600
        set from [log_line_count]
        restart_without_waiting
        set c [loading_client]
        set f [check_while_loading $c $::size_script]
        assert {[dict get $f loading_rdb_used_mem] > 0}
        assert_range [dict get $f rdb_last_load_keys_loaded] 0 [expr {$::loading_keys - 1}]
        wait_loaded $c
        $c close
        assert_equal $::loading_keys [r dbsize]
        assert_equal 0 [s loading]
        assert_no_match "*loading_*" [r info persistence]
        assert_equal $::loading_keys [s rdb_last_load_keys_loaded]
        assert_equal 1 [s rdb_last_load_keys_expired]
        wait_for_log "*Loading RDB produced by version [s redis_version]" -from $from
        wait_for_log "*RDB age * seconds" -from $from
        wait_for_log "*RDB memory usage when created *.?? Mb" -from $from
        wait_for_log "*Done loading RDB, keys loaded: $::loading_keys, keys expired: 1." -from $from
        wait_for_log "*DB loaded from disk: *.??? seconds" -from $from
    }

    test "DEBUG RELOAD: other clients get -LOADING and see the progress; the reloading client's next command waits" {
        set from [log_line_count]
        set rd [rd]
        $rd debug reload
        $rd get key:7 ;# pipelined: runs after the reload, not during it
        set c [loading_client]
        check_while_loading $c $::size_script
        assert_equal OK [$rd read]
        assert_match "value:7*" [$rd read]
        $rd close
        $c close
        assert_equal $::loading_keys [r dbsize]
        assert_equal $::loading_keys [s rdb_last_load_keys_loaded]
        assert_equal 0 [s rdb_last_load_keys_expired]
        wait_for_log "*Done loading RDB, keys loaded: $::loading_keys, keys expired: 0." -from $from
        wait_for_log "*DB reloaded by DEBUG RELOAD" -from $from
    }

    test "While loading: EXEC of a queued write is aborted, a transaction of INFO runs" {
        wait_loaded [srv client]
        set b [redis_client]
        $b multi
        $b set z 1
        set rd [rd]
        $rd debug reload
        set c [loading_client]
        wait_loading $c
        assert_error "EXECABORT Transaction discarded because of: LOADING Redis is loading the dataset in memory" {$b exec}
        $c multi
        $c info persistence
        assert_match "*loading:1*loading_loaded_bytes*" [lindex [$c exec] 0]
        assert_equal OK [$rd read]
        assert_equal 0 [r exists z]
        foreach x [list $b $c $rd] { $x close }
    }

    test "CLIENT KILL of the reloading client during the load: the load finishes, the client goes after" {
        set rd [rd]
        $rd client id
        set id [$rd read]
        $rd debug reload
        set c [loading_client]
        wait_loading $c
        assert_equal 1 [$c client kill id $id]
        wait_loaded $c
        assert_equal $::loading_keys [$c dbsize]
        assert_no_match "*id=$id *" [$c client list]
        $c close
        catch {$rd close}
    }

    test "While loading, a maxmemory below the usage evicts none of the keys being loaded" {
        wait_loaded [srv client]
        r config set maxmemory-policy allkeys-random
        set rd [rd]
        $rd debug reload
        set c [loading_client]
        wait_loading $c
        $c config set maxmemory 1
        assert_equal x [$c echo x] ;# a command evicts first, when evictions are allowed
        assert_equal 0 [info_field [$c info stats] evicted_keys]
        $c config set maxmemory 0
        assert_equal OK [$rd read]
        assert_equal $::loading_keys [r dbsize]
        r config set maxmemory-policy noeviction
        $rd close
        $c close
    }

    test "While loading, DEBUG RELOAD, LOADAOF and POPULATE are refused (ours: they would corrupt the load)" {
        if {[is_reference_server]} { skip "Redis 7.0 runs them, re-entering the loader" }
        set rd [rd]
        $rd debug reload
        set c [loading_client]
        wait_loading $c
        assert_error "LOADING*" {$c debug reload}
        assert_error "LOADING*" {$c debug loadaof}
        assert_error "LOADING*" {$c debug populate 10 other}
        assert_equal OK [$rd read]
        assert_equal $::loading_keys [r dbsize]
        $rd close
        $c close
    }
}

start_server {tags {loading} overrides {save {3600 1} key-load-delay 100 loading-process-events-interval-bytes 1024}} {
    test "SIGTERM and SHUTDOWN while loading stop the server without saving the half-loaded dataset" {
        r debug populate $::loading_keys key 10
        set path [file join [lindex [r config get dir] 1] dump.rdb]
        foreach how {SIGTERM SHUTDOWN} {
            restart_without_waiting ;# saves first (save points), then loads that
            set saved [::harness::read_file $path]
            set c [loading_client]
            wait_loading $c
            set from [log_line_count]
            if {$how eq "SIGTERM"} {
                ::harness::send_signal TERM [srv pid]
            } else {
                catch {$c shutdown}
            }
            wait_for_condition [::harness::scaled 250] 20 {![::harness::pid_alive [srv pid]]} else {
                fail "$how during the load did not stop the server"
            }
            assert_equal "exited with status 0" [::harness::reap [::harness::sid_at 0]]
            catch {$c close}
            assert {[::harness::read_file $path] eq $saved} "$how during the load rewrote the dump"
            assert_no_match "*DB saved on disk*" [log_since $from]
        }
        restart_server
        assert_equal $::loading_keys [r dbsize]
    }

}

set size_script {files_size appendonlydir/*.base.* appendonlydir/*.incr.*}

# An AOF of $::loading_keys keys in its base and one in its incremental file, loaded
# slowly at a restart: returns {client first-fields} of check_while_loading.
proc restart_loading_aof {} {
    r config set key-load-delay 0
    r debug populate $::loading_keys key 10
    r bgrewriteaof
    wait_for_condition 500 20 {[s aof_rewrite_in_progress] == 0} else { fail "rewrite did not end" }
    r set after-base 1
    r config set key-load-delay 100
    restart_without_waiting
    set c [loading_client]
    return [list $c [check_while_loading $c $::size_script]]
}
start_server {tags {loading aof} overrides {appendonly yes aof-use-rdb-preamble yes key-load-delay 100 loading-process-events-interval-bytes 1024}} {
    test "AOF with an RDB base at start-up: -LOADING meanwhile, INFO's fields, Redis 7.0's log lines" {
        set from [log_line_count]
        lassign [restart_loading_aof] c f
        assert {[dict get $f loading_rdb_used_mem] > 0}
        wait_loaded $c
        $c close
        assert_equal [expr {$::loading_keys + 1}] [r dbsize]
        assert_equal $::loading_keys [s rdb_last_load_keys_loaded]
        assert_equal 0 [s rdb_last_load_keys_expired]
        wait_for_log "*Reading RDB base file on AOF loading..." -from $from
        wait_for_log "*RDB is base AOF" -from $from
        wait_for_log "*Done loading RDB, keys loaded: $::loading_keys, keys expired: 0." -from $from
        wait_for_log "*DB loaded from base file appendonly.aof.*.base.rdb: *.??? seconds" -from $from
        wait_for_log "*DB loaded from incr file appendonly.aof.*.incr.aof: *.??? seconds" -from $from
        wait_for_log "*DB loaded from append only file: *.??? seconds" -from $from
    }

    test "DEBUG LOADAOF: other clients get -LOADING and see the progress" {
        set rd [rd]
        $rd debug loadaof
        set c [loading_client]
        check_while_loading $c $::size_script
        assert_equal OK [$rd read]
        $rd close
        $c close
        assert_equal [expr {$::loading_keys + 1}] [r dbsize]
    }

    test "An expired key of the AOF's RDB base is loaded: the incremental file may make it persistent" {
        r config set key-load-delay 0
        r flushall
        r set vol1 x px 1000
        r set vol2 x px 1000
        r bgrewriteaof
        wait_for_condition 500 20 {[s aof_rewrite_in_progress] == 0} else { fail "rewrite did not end" }
        r persist vol2
        after 1100
        set from [log_line_count]
        restart_server
        wait_for_log "*Done loading RDB, keys loaded: 2, keys expired: 0." -from $from
        assert_equal {vol2} [r keys *]
        assert_equal -1 [r ttl vol2]
        assert_equal 2 [s rdb_last_load_keys_loaded]
        assert_equal 0 [s rdb_last_load_keys_expired]
    }
}

start_server {tags {loading aof} overrides {appendonly yes aof-use-rdb-preamble no key-load-delay 100 loading-process-events-interval-bytes 1024}} {
    test "Plain AOF at start-up: -LOADING meanwhile, INFO's fields, no RDB keys counted" {
        set from [log_line_count]
        lassign [restart_loading_aof] c f
        assert_equal 0 [dict get $f loading_rdb_used_mem]
        wait_loaded $c
        $c close
        assert_equal [expr {$::loading_keys + 1}] [r dbsize]
        assert_equal 0 [s rdb_last_load_keys_loaded]
        assert_equal 0 [s rdb_last_load_keys_expired]
        wait_for_log "*DB loaded from base file appendonly.aof.*.base.aof: *.??? seconds" -from $from
        wait_for_log "*DB loaded from append only file: *.??? seconds" -from $from
    }
}
