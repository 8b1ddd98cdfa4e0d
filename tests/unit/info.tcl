# info.tcl -- INFO: section selection and order, the text format, RESP3
# verbatim replies, and the counters behind the fields (commands, errors,
# keyspace hits, per-command stats, keyspace sizes, instantaneous ops).
#
# Counters are checked as differences between two INFO calls, so the tests
# do not depend on what ran before them in the same server.

# The "# Title" lines of an INFO reply, in order.
proc info_titles {text} {
    set titles {}
    foreach line [split $text \n] {
        if {[regexp {^# (\S+)\r$} $line -> title]} { lappend titles $title }
    }
    return $titles
}

# The cmdstat_<name> line's fields as a dict (calls usec usec_per_call ...),
# or an empty dict when the command has no stats yet.
proc cmdstat {name} {
    set line [info_field [r info commandstats] cmdstat_$name]
    set out {}
    foreach pair [split $line ,] {
        lassign [split $pair =] k v
        if {$k ne ""} { dict set out $k $v }
    }
    return $out
}

proc cmdstat_field {name field} {
    set stats [cmdstat $name]
    if {[dict exists $stats $field]} { return [dict get $stats $field] }
    return 0
}

# How INFO writes a byte count: 1023B, 1.00K, 2.50M ... up to E.
proc bytes_to_human {n} {
    if {$n < 1024} { return "${n}B" }
    set d [expr {$n / 1024.0}]
    foreach unit {K M G T P} {
        if {$d < 1024} { return [format %.2f%s $d $unit] }
        set d [expr {$d / 1024}]
    }
    return [format %.2fE $d]
}

proc errorstat {code} {
    set line [info_field [r info errorstats] errorstat_$code]
    if {$line eq ""} { return 0 }
    regexp {^count=(\d+)$} $line -> n
    return $n
}

start_server {tags {info}} {
    test "INFO with no argument lists the default sections in Redis's order" {
        assert_equal {Server Clients Memory Persistence Stats Replication CPU Modules Errorstats Cluster Keyspace} \
            [info_titles [r info]]
        assert_equal [info_titles [r info]] [info_titles [r info default]]
    }

    test "INFO all and everything add Commandstats and Latencystats" {
        set all {Server Clients Memory Persistence Stats Replication CPU Modules Commandstats Errorstats Latencystats Cluster Keyspace}
        assert_equal $all [info_titles [r info all]]
        assert_equal $all [info_titles [r info everything]]
    }

    test "INFO sections are case-insensitive and always come out in the same order" {
        assert_equal {Server Clients} [info_titles [r info CLIENTS server]]
        assert_equal {Commandstats Keyspace} [info_titles [r info keyspace commandstats keyspace]]
        assert_equal {CPU} [info_titles [r info Cpu]]
    }

    test "INFO with an unknown section is empty, and unknown names are ignored" {
        assert_equal "" [r info no-such-section]
        assert_equal {Server} [info_titles [r info no-such-section server]]
    }

    test "INFO text format: CRLF lines, field:value, one blank line between sections" {
        set text [r info all]
        assert_equal "# Server\r\n" [string range $text 0 9]
        assert_equal "\r\n" [string range $text end-1 end]
        assert_no_match "*\r\n\r\n\r\n*" $text
        set lines [split [string range $text 0 end-1] \n]
        set previous ""
        foreach line $lines {
            assert_equal "\r" [string index $line end] "line '$line' must end with CRLF"
            set line [string range $line 0 end-1]
            if {$line eq ""} {
                assert_match "?*" $previous "no two blank lines in a row"
            } elseif {![string match "# *" $line]} {
                assert_match {[a-z]*:*} $line
                assert_no_match "* *:*" [lindex [split $line :] 0]
            }
            set previous $line
        }
        # A section header follows each blank line.
        assert_equal [expr {[llength [info_titles $text]] - 1}] \
            [llength [regexp -all -inline {\r\n\r\n# } $text]]
    }

    test "RESP3 clients get INFO as a verbatim string (txt), RESP2 clients a bulk string" {
        set c [redis_client]
        $c hello 3
        $c readraw 1
        set header [$c info server]
        set payload [$c read]
        assert_match {=*} $header
        assert_equal [string range $header 1 end] [string length $payload]
        assert_equal "txt:# Server\r\n" [string range $payload 0 13]
        $c close
        set c [redis_client -readraw 1]
        assert_match {$*} [$c info server]
        assert_equal "# Server\r\n" [string range [$c read] 0 9]
        $c close
    }

    test "INFO server describes this process" {
        assert_match "7.*" [s redis_version]
        assert_equal standalone [s redis_mode]
        if {[srv pid] ne ""} { assert_equal [srv pid] [s process_id] }
        assert_equal [srv port] [s tcp_port]
        assert [expr {[s arch_bits] in {32 64}}]
        assert [expr {[s multiplexing_api] in {epoll kqueue poll}}]
        assert_match {[0-9a-f]*} [s run_id]
        assert_equal 40 [string length [s run_id]]
        assert_equal [s run_id] [s run_id] "the run id is stable"
        assert [string is integer -strict [s uptime_in_seconds]]
        assert_equal [expr {[s uptime_in_seconds] / 86400}] [s uptime_in_days]
        assert_range [s hz] 1 500
        assert [string is integer -strict [s lru_clock]]
        assert_match "?*" [s executable]
    }

    # Clients switch on the version (rq used XADD inside MULTI on seeing 7.2):
    # every place that states it must name the release we match, 7.0.
    test "INFO, HELLO, --version and the RDB file name the same Redis 7.0 release" {
        set version [s redis_version]
        assert_match "7.0.*" $version
        set hello [r hello 2]
        assert_equal redis [dict get $hello server]
        assert_equal $version [dict get $hello version]
        assert_equal $version [server_version]
        r save
        set fd [open [file join [srv dir] dump.rdb] rb]
        set rdb [read $fd]
        close $fd
        assert_equal "REDIS0010" [string range $rdb 0 8] "Redis 7.0 writes and reads RDB version 10"
        set aux "redis-ver[binary format c [string length $version]]$version"
        assert {[string first $aux $rdb] > 0} "no '$aux' in the RDB file"
    } {needs:restart}

    test "INFO server names this project in fields of its own" {
        set name [s server_name]
        if {$name eq ""} { skip "the reference Redis has no server_name" }
        assert_not_equal redis $name
        set ours [s ${name}_version]
        assert_match {[0-9]*.[0-9]*.[0-9]*} $ours
        assert_match "* build=$name-$ours" [exec {*}[server_command --version]]
    } {needs:restart}

    test "INFO clients counts connections" {
        # the clients of earlier tests may still be going (a relayed shm
        # client is let go a little later): start from this file's one client
        wait_for_condition 100 50 {[s connected_clients] == 1} else {
            fail "clients left over: [r client list]"
        }
        set c [redis_client]
        $c ping
        assert_equal 2 [s connected_clients]
        $c close
        wait_for_condition 100 50 {[s connected_clients] == 1} else {
            fail "connected_clients stayed at [s connected_clients]"
        }
        assert_equal 0 [s blocked_clients]
        assert_morethan [s maxclients] 0
    }

    test "INFO memory reports sizes and their human-readable forms" {
        set memory [r info memory]
        foreach field {used_memory used_memory_rss used_memory_peak maxmemory total_system_memory} {
            set bytes [info_field $memory $field]
            assert [string is wide -strict $bytes] "$field is an integer"
            assert_equal [bytes_to_human $bytes] [info_field $memory ${field}_human] $field
        }
        assert {[info_field $memory used_memory_peak] >= [info_field $memory used_memory]}
        assert_equal noeviction [s maxmemory_policy]
        assert_match "?*" [s mem_allocator]
        set before [s used_memory]
        r set big-value [string repeat x 200000]
        assert_morethan [s used_memory] [expr {$before + 150000}]
        r del big-value
    }

    test "INFO persistence: changes since the last save count writes" {
        set before [s rdb_changes_since_last_save]
        r set p1 a
        r set p2 b
        assert_equal [expr {$before + 2}] [s rdb_changes_since_last_save]
        assert_equal 0 [s loading]
        assert_equal 0 [s rdb_bgsave_in_progress]
        assert_equal 0 [s aof_rewrite_in_progress]
        assert [string is integer -strict [s rdb_last_save_time]]
    }

    test "INFO stats: total_commands_processed counts every command, INFO included" {
        set before [s total_commands_processed]
        r ping
        r ping
        r ping
        # the first INFO and three PINGs
        assert_equal [expr {$before + 4}] [s total_commands_processed]
    }

    test "INFO stats: keyspace hits and misses" {
        r set hit-key v
        set hits [s keyspace_hits]
        set misses [s keyspace_misses]
        r get hit-key
        r get hit-key
        r get no-such-key
        assert_equal [expr {$hits + 2}] [s keyspace_hits]
        assert_equal [expr {$misses + 1}] [s keyspace_misses]
    }

    test "INFO stats: connections received and network bytes grow" {
        set conns [s total_connections_received]
        set in [s total_net_input_bytes]
        set c [redis_client]
        $c ping
        $c close
        assert_equal [expr {$conns + 1}] [s total_connections_received]
        assert_morethan [s total_net_input_bytes] $in
        assert_morethan [s total_net_output_bytes] 0
    }

    test "INFO stats: instantaneous_ops_per_sec sees a burst of commands" {
        set rd [redis_deferring_client]
        set seen 0
        for {set round 0} {$round < 100 && !$seen} {incr round} {
            for {set i 0} {$i < 200} {incr i} { $rd ping }
            $rd flush
            for {set i 0} {$i < 200} {incr i} { $rd read }
            set seen [expr {[s instantaneous_ops_per_sec] > 0}]
        }
        $rd close
        assert $seen "instantaneous_ops_per_sec never went above 0"
    }

    test "INFO stats and errorstats count error replies by their code" {
        set total [s total_error_replies]
        set err [errorstat ERR]
        catch {r no-such-command}
        catch {r set}
        assert_equal [expr {$err + 2}] [errorstat ERR]
        catch {r eval {return redis.error_reply('MYCODE something failed')} 0}
        assert_equal 1 [errorstat MYCODE]
        assert_equal [expr {$total + 3}] [s total_error_replies]
        # DEBUG ERROR's line is sent as it is, counted nowhere (as in 7.0)
        catch {r debug error "MYOTHER failed"}
        assert_equal 0 [errorstat MYOTHER]
        assert_equal [expr {$total + 3}] [s total_error_replies]
    }

    test "INFO commandstats: calls, usec, usec_per_call, rejected and failed calls" {
        set calls [cmdstat_field set calls]
        r set cs1 a
        r set cs2 b
        set stats [cmdstat set]
        assert_equal [expr {$calls + 2}] [dict get $stats calls]
        assert [string is integer -strict [dict get $stats usec]]
        assert_match {*.??} [dict get $stats usec_per_call]
        set expected [expr {double([dict get $stats usec]) / [dict get $stats calls]}]
        assert_range [dict get $stats usec_per_call] [expr {$expected - 0.01}] [expr {$expected + 0.01}]

        set rejected [cmdstat_field set rejected_calls]
        catch {r set only-a-key}
        assert_equal [expr {$rejected + 1}] [cmdstat_field set rejected_calls]

        r set not-a-number abc
        set failed [cmdstat_field incr failed_calls]
        catch {r incr not-a-number}
        assert_equal [expr {$failed + 1}] [cmdstat_field incr failed_calls]
    }

    test "INFO commandstats names subcommands parent|sub" {
        r client id
        assert_morethan [cmdstat_field client|id calls] 0
        assert_match "*cmdstat_client|id:calls=*" [r info commandstats]
    }

    test "INFO keyspace lists only databases with keys, with expires and avg_ttl" {
        r flushall
        assert_equal "# Keyspace\r\n" [r info keyspace]
        r set k1 v
        r set k2 v ex 1000
        assert_match "keys=2,expires=1,avg_ttl=*" [s db0]
        r select 9
        r set other v
        assert_equal "keys=1,expires=0,avg_ttl=0" [s db9]
        r select 0
        assert_equal {} [s db1]
    }

    test "INFO cpu reports seconds with microsecond precision" {
        foreach field {used_cpu_sys used_cpu_user used_cpu_sys_children used_cpu_user_children} {
            assert_match {*.??????} [s $field]
            assert [string is double -strict [s $field]]
        }
    }

    test "INFO stats, memory and cpu have Redis's fields in Redis's order" {
        # the fields names in `fields` that INFO <section> has, in INFO's order
        proc present_in_order {section fields} {
            set names {}
            foreach line [split [r info $section] \n] {
                if {[regexp {^([a-z_]+):} $line -> name] && $name in $fields} { lappend names $name }
            }
            return $names
        }
        set stats {total_net_input_bytes total_net_output_bytes total_net_repl_input_bytes
            total_net_repl_output_bytes instantaneous_input_kbps instantaneous_output_kbps
            instantaneous_input_repl_kbps instantaneous_output_repl_kbps rejected_connections sync_full
            sync_partial_ok sync_partial_err expired_keys expired_stale_perc expired_time_cap_reached_count
            expire_cycle_cpu_milliseconds evicted_keys evicted_clients total_eviction_exceeded_time
            current_eviction_exceeded_time keyspace_hits keyspace_misses pubsub_channels pubsub_patterns
            pubsubshard_channels latest_fork_usec total_forks migrate_cached_sockets
            slave_expires_tracked_keys active_defrag_hits active_defrag_misses active_defrag_key_hits
            active_defrag_key_misses total_active_defrag_time current_active_defrag_time
            tracking_total_keys tracking_total_items tracking_total_prefixes unexpected_error_replies
            total_error_replies dump_payload_sanitizations total_reads_processed total_writes_processed
            io_threaded_reads_processed
            io_threaded_writes_processed reply_buffer_shrinks reply_buffer_expands}
        assert_equal [join $stats] [join [present_in_order stats $stats]]
        set memory {used_memory used_memory_peak used_memory_overhead used_memory_startup
            used_memory_dataset used_memory_dataset_perc allocator_allocated allocator_active
            allocator_resident total_system_memory used_memory_lua
            used_memory_vm_eval used_memory_scripts_eval number_of_cached_scripts number_of_functions
            number_of_libraries used_memory_vm_functions used_memory_vm_total used_memory_functions
            used_memory_scripts maxmemory maxmemory_policy allocator_frag_ratio allocator_frag_bytes
            allocator_rss_ratio allocator_rss_bytes rss_overhead_ratio rss_overhead_bytes
            mem_fragmentation_ratio mem_fragmentation_bytes
            mem_replication_backlog mem_total_replication_buffers mem_clients_slaves mem_cluster_links
            mem_allocator active_defrag_running lazyfree_pending_objects lazyfreed_objects}
        assert_equal [join $memory] [join [present_in_order memory $memory]]
        set persistence {loading async_loading current_cow_peak current_cow_size current_cow_size_age
            current_fork_perc current_save_keys_processed current_save_keys_total rdb_changes_since_last_save
            rdb_bgsave_in_progress rdb_last_save_time rdb_last_bgsave_status rdb_last_bgsave_time_sec
            rdb_current_bgsave_time_sec rdb_saves rdb_last_cow_size aof_enabled aof_rewrite_in_progress
            aof_rewrite_scheduled aof_last_rewrite_time_sec aof_current_rewrite_time_sec
            aof_last_bgrewrite_status aof_rewrites aof_rewrites_consecutive_failures aof_last_write_status
            aof_last_cow_size module_fork_in_progress module_fork_last_cow_size}
        assert_equal [join $persistence] [join [present_in_order persistence $persistence]]
        if {$::tcl_platform(os) eq "Linux"} {
            set cpu {used_cpu_sys used_cpu_user used_cpu_sys_children used_cpu_user_children
                used_cpu_sys_main_thread used_cpu_user_main_thread}
            assert_equal [join $cpu] [join [present_in_order cpu $cpu]]
        }
    }

    test "INFO memory: dataset + overhead = used_memory, startup <= overhead, allocator figures ordered" {
        r flushall
        r debug populate 2000 key 100
        set info [r info memory]
        set used [info_field $info used_memory]
        set overhead [info_field $info used_memory_overhead]
        set dataset [info_field $info used_memory_dataset]
        set startup [info_field $info used_memory_startup]
        assert_equal $used [expr {$overhead + $dataset}]
        assert {$startup > 0 && $startup <= $overhead}
        assert {$dataset > 2000 * 100}
        set perc [expr {100.0 * $dataset / ($used - $startup)}]
        assert_equal [format %.2f%% $perc] [info_field $info used_memory_dataset_perc]
        set allocated [info_field $info allocator_allocated]
        set active [info_field $info allocator_active]
        set resident [info_field $info allocator_resident]
        assert {$allocated > 0}
        if {[string match jemalloc* [info_field $info mem_allocator]]} {
            assert {$active >= $allocated}
            assert {$resident >= $active}
        }
        assert_equal [format %.2f [expr {double($active) / $allocated}]] [info_field $info allocator_frag_ratio]
        assert_equal [expr {$active - $allocated}] [info_field $info allocator_frag_bytes]
        assert_equal [format %.2f [expr {double($resident) / $active}]] [info_field $info allocator_rss_ratio]
        assert_equal [expr {$resident - $active}] [info_field $info allocator_rss_bytes]
        set rss [info_field $info used_memory_rss]
        assert_equal [format %.2f [expr {double($rss) / $resident}]] [info_field $info rss_overhead_ratio]
        assert_equal [expr {$rss - $resident}] [info_field $info rss_overhead_bytes]
        r flushall
    }

    test "INFO memory and MEMORY STATS agree on startup, overhead and dataset" {
        r debug populate 500 key 10
        # in one transaction nothing runs between the two (no cron, no other
        # client): they differ only by the MEMORY STATS reply now queued in
        # this client's output buffer
        r multi
        r memory stats
        r info memory
        lassign [r exec] stats info
        assert_equal [dict get $stats startup.allocated] [info_field $info used_memory_startup]
        set from_stats [dict get $stats overhead.total]
        set from_info [info_field $info used_memory_overhead]
        assert {$from_info >= $from_stats && $from_info - $from_stats < 16 * 1024} \
            "MEMORY STATS overhead $from_stats, INFO $from_info"
        r flushall
    }

    test "INFO stats: total_reads_processed and total_writes_processed grow with each round trip" {
        set reads [s total_reads_processed]
        set writes [s total_writes_processed]
        for {set i 0} {$i < 10} {incr i} { r ping }
        assert {[s total_reads_processed] >= $reads + 10}
        assert {[s total_writes_processed] >= $writes + 10}
        r config resetstat
        assert {[s total_reads_processed] < 5}
    }

    test "INFO replication of a standalone server" {
        assert_equal master [s role]
        assert_equal 0 [s connected_slaves]
        assert_equal 40 [string length [s master_replid]]
    }

    test "INFO cluster says cluster mode is off" {
        assert_equal 0 [s cluster_enabled]
    }
}
