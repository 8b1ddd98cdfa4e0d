# A replica's load into memory (repl-diskless-load swapdb, or on-empty-db
# with no key held), as Redis 7.0 has it: a load from the moment the
# transfer starts (loading:1, -LOADING meanwhile); with swapdb and a
# +FULLRESYNC naming the history the replica already holds, async loading
# instead: the old dataset -- keys and libraries -- served, and only the
# "no_async_loading" commands refused, until the new one is whole. Also the
# primary's side of a full sync: SHUTDOWN stops the sync's snapshot child
# (else the replica never sees its link drop), and a replica in a full
# sync has acknowledged nothing (WAIT, INFO offset=0), and a child whose
# primary was killed dies with it.
#
# Layout: the outer server is the primary (P, level -1), the inner one the
# replica (R, level 0). The primary's rdb-key-save-delay keeps a transfer
# running while a test looks at the replica; every wait polls. Values are
# 1 KB and the replica serves clients every 1 KB it loads
# (loading-process-events-interval-bytes): Redis, which parses while it
# receives, answers INFO during a load only that often.

proc rdl_link_up {level} {
    wait_for_condition 200 100 {[s $level master_link_status] eq "up"} else {
        fail "the replica's link never came up: [r $level info replication]"
    }
}

# A slow next full sync: the primary writes 20 ms a key (1000 keys: 20 s
# natively, the emulated ports slower still; the tests end it sooner), and
# drops its replicas.
proc rdl_force_slow_full_sync {P} {
    r $P config set rdb-key-save-delay 20000
    r $P multi
    r $P client kill type replica
    # more than the 16 KB backlog: the replica's PSYNC gets +FULLRESYNC
    for {set j 0} {$j < 20} {incr j} { r $P set "filler:$j" [string repeat F 2048] }
    r $P exec
}

# The replica's link dropped by its primary, whose next sync waits 5 s
# (scaled): the replica's state after the failed load is looked at before
# it reconnects and loads again.
proc rdl_drop_replica {P} {
    r $P config set repl-diskless-sync-delay [::harness::scaled 5]
    r $P client kill type replica
}

# Syncs go fast again.
proc rdl_fast {P} {
    r $P config set rdb-key-save-delay 0
    r $P config set repl-diskless-sync-delay 0
}

# The replica R starts a full sync from P; returns once P's child runs.
proc rdl_link_down_then_sync {R P} {
    r $R replicaof no one
    r $R replicaof 127.0.0.1 [srv $P port]
    wait_for_condition 200 50 {[s $P rdb_bgsave_in_progress] eq 1} else { fail "no sync child" }
}

start_server {overrides {repl-diskless-sync yes repl-diskless-sync-delay 0 repl-backlog-size 16kb save {}}} {
start_server {overrides {repl-diskless-load swapdb save {} loading-process-events-interval-bytes 1024}} {
    lassign {-1 0} P R
    r $P debug populate 1000 new 1024

    test {swapdb, another history: loading:1 (not async) from the transfer's start, the old dataset back when the link drops} {
        r $R debug populate 200 old 10
        r $R set mykey myvalue
        r $P config set rdb-key-save-delay 10000
        r $R replicaof 127.0.0.1 [srv $P port]
        wait_for_condition 200 50 {[s $R loading] eq 1} else { fail "the replica never showed loading:1" }
        assert_equal 0 [s $R async_loading]
        assert_error {LOADING*} {r $R get mykey}
        assert_equal 1 [s $R master_sync_in_progress]
        set from [log_line_count $P]
        rdl_drop_replica $P
        wait_for_condition 200 50 {[s $R loading] eq 0} else { fail "the replica stayed in its load" }
        # the primary's child, with nobody left to feed, is stopped at once
        wait_for_log "*Diskless rdb transfer, last replica dropped, killing fork child.*" -level $P -from $from
        assert_equal myvalue [r $R get mykey]
        assert_equal 201 [r $R dbsize]
        rdl_fast $P
        rdl_link_up $R
        assert_equal {} [r $R get mykey]
        assert_equal 1000 [r $R dbsize]
    }

    test {swapdb, the same history: async loading serves the old keys and libraries, refuses no_async_loading commands, keeps them when the link drops} {
        # the replica holds the primary's history now: its next full sync is async
        r $R config set replica-read-only no
        r $R set mykey myvalue
        r $R function load {#!lua name=rdl
            redis.register_function('rdl', function() return 'old' end)}
        set offset [s $R slave_repl_offset]
        rdl_force_slow_full_sync $P
        wait_for_condition 200 50 {[s $R async_loading] eq 1} else { fail "the replica never showed async_loading:1" }
        assert_equal 0 [s $R loading]
        assert_equal myvalue [r $R get mykey]
        assert_equal old [r $R fcall rdl 0]
        assert_equal 1001 [r $R dbsize]
        # writable replica: a write lands in the dataset served
        assert_equal OK [r $R set during async]
        assert_equal async [r $R get during]
        assert_error {LOADING*} {r $R replicaof no one}
        assert_error {LOADING*} {r $R config set appendonly yes}
        assert_error {LOADING*} {r $R bgsave}
        # inside MULTI too, at once (as Redis 7.0): the transaction aborts;
        # a no_multi command's own refusal comes first
        r $R multi
        r $R get mykey
        assert_error {*not allowed inside a transaction*} {r $R save}
        assert_error {LOADING*} {r $R bgsave}
        assert_error {EXECABORT*} {r $R exec}
        rdl_drop_replica $P
        wait_for_condition 200 50 {[s $R async_loading] eq 0} else { fail "the replica stayed in its async load" }
        assert_equal myvalue [r $R get mykey]
        assert_equal old [r $R fcall rdl 0]
        assert_equal async [r $R get during]
        # the old dataset is back, and so is its offset (Redis 7.0 drops its
        # cached primary only when a swapdb load swaps)
        assert_equal $offset [s $R slave_repl_offset]
    }

    test {swapdb, the same history: when the load completes, the new keys and libraries replace the old ones} {
        r $P function load REPLACE {#!lua name=rdl
            redis.register_function('rdl', function() return 'new' end)}
        rdl_fast $P
        rdl_link_up $R
        wait_for_condition 200 50 {[r $R dbsize] == [r $P dbsize]} else { fail "dbsize [r $R dbsize] vs [r $P dbsize]" }
        assert_equal {} [r $R get mykey]
        assert_equal new [r $R fcall rdl 0]
        assert_equal [r $P debug digest] [r $R debug digest]
        assert_match "*Swapping active DB with loaded DB*" [exec tail -100 [srv $R stdout]]
    }

    test {async loading with a slow parse: the old dataset served while the new one fills} {
        r $R set mykey myvalue2
        # the parse made slow (a key every 2 ms, scaled), served every 1 KB
        r $R config set key-load-delay [::harness::scaled 2000]
        r $P config set rdb-key-save-delay 0
        r $P multi
        r $P client kill type replica
        for {set j 0} {$j < 20} {incr j} { r $P set "filler:$j" [string repeat G 2048] }
        r $P exec
        # the parser has consumed bytes: keys of the new dataset exist
        wait_for_condition 400 25 {[s $R async_loading] eq 1 && [s $R loading_loaded_bytes] > 0} else {
            fail "never saw the async parse"
        }
        assert_equal myvalue2 [r $R get mykey]
        assert_equal 0 [s $R loading]
        assert_equal 1 [s $R async_loading] ;# the read above was served inside the parse
        r $R config set key-load-delay 0
        rdl_link_up $R
        assert_equal {} [r $R get mykey]
        assert_equal [r $P debug digest] [r $R debug digest]
    }
}
}

# on-empty-db with no key: a load into memory too (loading:1 from the start)
start_server {overrides {repl-diskless-sync yes repl-diskless-sync-delay 0 save {}}} {
start_server {overrides {repl-diskless-load on-empty-db save {} loading-process-events-interval-bytes 1024}} {
    lassign {-1 0} P R
    test {on-empty-db, no key held: loading:1 while the snapshot arrives; a dropped link leaves nothing half-loaded} {
        r $P debug populate 1000 k 1024
        r $P config set rdb-key-save-delay 10000
        r $R replicaof 127.0.0.1 [srv $P port]
        wait_for_condition 200 50 {[s $R loading] eq 1} else { fail "the replica never showed loading:1" }
        assert_equal 0 [s $R async_loading]
        rdl_drop_replica $P
        wait_for_condition 200 50 {[s $R loading] eq 0} else { fail "the replica stayed in its load" }
        assert_equal 0 [r $R dbsize]
        assert_equal 1 [s $R slave_repl_offset] ;# nothing of the primary's history held (as Redis 7.0)
        assert_equal 1 [s $R slave_read_repl_offset]
        rdl_fast $P
        rdl_link_up $R
        assert_equal 1000 [r $R dbsize]
        r $P set after sync
        wait_for_condition 200 50 {[s $R slave_repl_offset] == [s $P master_repl_offset]} else {
            fail "the replica's offset [s $R slave_repl_offset] never reached the primary's"
        }
    }
}
}

# The primary's side: a replica in a full sync has acknowledged nothing, and
# SHUTDOWN stops the snapshot child that feeds it.
start_server {overrides {repl-diskless-sync yes repl-diskless-sync-delay 0 repl-backlog-size 16kb save {} shutdown-timeout 1}} {
start_server {overrides {save {}}} {
    lassign {-1 0} P R
    test {a replica in a full sync has acknowledged nothing: WAIT does not count it, INFO shows offset=0} {
        r $P debug populate 1000 k 10
        r $R replicaof 127.0.0.1 [srv $P port]
        rdl_link_up $R
        # writes, then a full sync whose snapshot holds them: not acknowledged
        # until the replica has loaded it (the replica acked them before: a
        # full sync starts from nothing)
        rdl_force_slow_full_sync $P
        wait_for_condition 200 50 {[string match "*state=wait_bgsave*" [s $P slave0]]} else { fail "no full sync started" }
        assert_equal 0 [r $P wait 1 100]
        assert_match "*state=wait_bgsave*offset=0,*" [s $P slave0]
        assert {[regexp {lag=(\d+)$} [s $P slave0] -> lag] && $lag < 100} ;# seconds since the sync started
    }

    test {SHUTDOWN waits for a replica in a full sync, then stops its sync child: the replica sees its link drop} {
        set from [log_line_count $P]
        shutdown_server $P
        wait_for_log "*0 of 1 replicas are in sync when shutting down.*" -level $P -from $from
        # the child held copies of the replica's socket: the transfer went on
        # (20 ms a key) until it ended, unless stopped with its parent
        wait_for_condition 100 50 {[s $R master_sync_in_progress] eq 0} else {
            fail "the replica still receives a snapshot from a primary that is gone"
        }
        assert_equal down [s $R master_link_status]
        restart_server $P ;# the block stops it
    }

    test {a full sync's child dies with its primary (kill -9): nothing is left writing to the replica} {
        r $P debug populate 1000 k 10
        r $P config set rdb-key-save-delay 100000
        wait_for_condition 200 50 {[s $P rdb_bgsave_in_progress] eq 1} else { fail "no sync child" }
        set child [exec pgrep -P [srv $P pid]]
        restart_server -kill $P
        wait_for_condition 100 50 {![::harness::pid_alive $child]} else { fail "the child outlived its parent" }
        wait_for_condition 100 50 {[s $R master_sync_in_progress] eq 0} else { fail "the replica still receives" }
    }

    test {a sync's child with nobody left to feed stops (disk-based: without save points), and FLUSHALL stops it} {
        r $P debug populate 1000 k 10
        r $P config set repl-diskless-sync no
        r $P config set rdb-key-save-delay 100000
        rdl_link_down_then_sync $R $P
        r $R replicaof no one
        wait_for_condition 100 50 {[s $P rdb_bgsave_in_progress] eq 0} else { fail "the useless child was kept" }
        rdl_link_down_then_sync $R $P
        r $P flushall
        # the replica's sync starts over, from the empty dataset: quick
        r $P config set rdb-key-save-delay 0
        rdl_link_up $R
        assert_equal 0 [r $R dbsize]
    }
}
}

# A diskless load parses the link as it comes: no copy of the snapshot in
# memory, and a replica that parses slowly holds its primary's child back
# through TCP (before, the whole payload was read into memory first). The
# child killed meanwhile is collected, and the replica keeps its data.
start_server {overrides {repl-diskless-sync yes repl-diskless-sync-delay 0 save {} rdbcompression no}} {
start_server {overrides {repl-diskless-load swapdb save {} loading-process-events-interval-bytes 1024}} {
    lassign {-1 0} P R
    test {a slow diskless parse holds the primary's child back; that child killed is collected, the old data kept} {
        # 20 MB: more than the sockets' buffers hold
        r $P debug populate 2000 big 10000
        r $R set mykey myvalue
        r $R config set key-load-delay 100000 ;# 0.1 s a key: minutes for the whole payload
        set from [log_line_count $R]
        r $R replicaof 127.0.0.1 [srv $P port]
        wait_for_log "*Loading DB in memory*" -level $R -from $from -tries 200
        # seconds later the child still writes: the replica reads no faster than it parses
        ::harness::sleep_ms [::harness::scaled 1000]
        assert_equal 1 [s $P rdb_bgsave_in_progress]
        assert {[s $R used_memory] < 15000000}
        set child [exec pgrep -P [srv $P pid]]
        r $P config set repl-diskless-sync-delay [::harness::scaled 5]
        exec kill -9 $child
        wait_for_condition 100 100 {[s $P rdb_bgsave_in_progress] == 0} else { fail "the killed child was not collected" }
        r $R config set key-load-delay 0 ;# what the socket still holds is parsed, then the link's end
        wait_for_condition 200 100 {[s $R loading] == 0} else { fail "the replica stayed in its load" }
        assert_equal myvalue [r $R get mykey]
        rdl_link_up $R
        assert_equal 2000 [r $R dbsize]
    }
}
}
