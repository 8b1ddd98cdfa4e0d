# forkless.tcl -- persistence-mode forkless (snapshot.c): a BGSAVE and an
# AOF rewrite written by the main thread in time slices, while clients
# write. The file must be the dataset as it was when the command ran.
#
# How it is checked: writers are held with CLIENT PAUSE WRITE around
# DEBUG DIGEST and the command, then write on (overwrites, deletes, type
# changes, expiries, SWAPDB, FLUSHDB, MOVE, RENAME, new keys, an external
# redis-benchmark) while the snapshot runs; the file, loaded by a restarted
# server, must have the digest taken at the start. rdb-key-save-delay (which
# paces the forkless cursor instead of sleeping) keeps the snapshot running
# long enough for the writes to land in the middle of it.
# Faults: write errors, FLUSHALL, SHUTDOWN, DEBUG RELOAD in the middle, a
# second BGSAVE, eviction.

proc wait_for_bgsave {} {
    wait_for_condition 600 50 {[s rdb_bgsave_in_progress] == 0} else { fail "BGSAVE still running" }
}

# DEBUG DIGEST and DEBUG RELOAD of 200k-element values take seconds
# natively and more than the default reply timeout on a loaded machine with
# musl's allocator (seen in CI): SCRIPT runs with six times that timeout.
proc with_slow_replies {script} {
    r read_timeout [expr {$::resp::default_timeout * 6}]
    try {
        uplevel 1 $script
    } finally {
        r read_timeout $::resp::default_timeout
    }
}

proc wait_for_rewrite {} {
    wait_for_condition 600 50 {[s aof_rewrite_in_progress] == 0} else { fail "AOF rewrite still running" }
}

# Every type, some keys with a TTL, keys in several databases.
proc fill_dataset {n} {
    r flushall
    r debug populate $n key 20
    for {set i 0} {$i < 300} {incr i} {
        r rpush list:$i a b $i
        r sadd set:$i x y $i
        r hset hash:$i f $i g v
        r zadd zset:$i 1 a $i b
        r set ttl:$i v ex 100000
    }
    r rpush biglist {*}[lrepeat 2000 elem]
    foreach db {1 2 9} {
        r select $db
        r debug populate 500 db$db 10
        r select 0
    }
}

# One round of writes of every kind while a snapshot runs.
proc churn {round} {
    set i [expr {$round % 300}]
    r set key:$round overwritten              ;# overwrite an existing string
    r del list:$i                              ;# delete
    r set set:$i now-a-string                  ;# type change
    r del hash:$i
    r rpush hash:$i recreated as list          ;# deleted and recreated with another type
    r zadd zset:$i 99 c                        ;# in-place change
    r pexpire ttl:$i 1                         ;# expiry fires during the snapshot
    r expire key:[expr {$round + 5000}] 1000   ;# a TTL added
    r persist ttl:[expr {($i + 150) % 300}]    ;# a TTL removed
    r set new:$round brand-new                 ;# a key created after the start
    r rename key:[expr {$round + 7000}] renamed:$round
    r move key:[expr {$round + 9000}] 3
    r lpush biglist head
    r incr counter
    if {$round == 20} { r swapdb 1 2 }
    if {$round == 40} { r select 9; r flushdb; r select 0 }
}

# The keys churn gave a 1 ms TTL are deleted now (a digest taken before
# would count them, a restart would not load them).
proc expire_churned {} {
    after 5
    for {set i 0} {$i < 300} {incr i} { r exists ttl:$i }
}

# Churns while the job behind FIELD runs. With MIN, the job is slowed by
# the caller (a long rdb-key-save-delay) and let go after MIN rounds: the
# overlap is counted in rounds, never in time (a loaded emulator writes
# fewer rounds per second).
proc churn_while {field {min 0}} {
    set round 0
    while {[s $field] == 1} {
        churn $round
        incr round
        if {$round == $min} { r config set rdb-key-save-delay 0 }
    }
    return $round
}

proc start_writer {} {
    return [exec src/redis-benchmark -p [srv port] -n 10000000 -r 50000 -P 16 -t set,lpush,sadd,hset,incr -q \
                >/dev/null 2>@1 &]
}

# Stops redis-benchmark and waits until the server has dropped its
# connections (nothing of it is still queued in the server).
proc stop_writer {pid} {
    catch {exec kill $pid}
    wait_for_condition 200 50 {[s connected_clients] == 1} else { fail "the writer's clients are still connected" }
}

tags {forkless} {
    start_server {overrides {persistence-mode forkless}} {
        test "forkless BGSAVE: the file has the digest the dataset had when BGSAVE ran" {
            fill_dataset 20000
            r config set rdb-key-save-delay 1000 ;# 20 s for 20000 keys, cut short after 11 rounds
            set writer [start_writer]
            after 100
            r client pause 100000 write
            set digest [r debug digest]
            assert_equal {Background saving started} [r bgsave]
            r client unpause
            set rounds [churn_while rdb_bgsave_in_progress 11]
            stop_writer $writer
            assert_morethan $rounds 10
            assert_equal ok [s rdb_last_bgsave_status]
            assert_morethan [s forkless_snapshot_barrier_keys] 0
            assert_equal 0 [s forkless_snapshot_in_progress]
            r config set rdb-key-save-delay 0
            restart_server
            assert_equal $digest [r debug digest]
        }

        test "forkless BGSAVE: INFO current_save_keys_processed/_total show its progress" {
            wait_for_bgsave
            fill_dataset 2000
            set total 0
            foreach {- n} [regexp -all -inline {keys=(\d+)} [r info keyspace]] { incr total $n }
            r config set rdb-key-save-delay 500
            r bgsave
            wait_for_condition 100 20 {[s current_save_keys_processed] > 0} else { fail "no progress shown" }
            assert_equal $total [s current_save_keys_total]
            assert_lessthan [s current_save_keys_processed] $total
            assert_morethan [s current_fork_perc] 0
            r config set rdb-key-save-delay 0
            wait_for_bgsave
            assert_equal 0 [s current_save_keys_processed]
            assert_equal 0 [s current_save_keys_total]
        }

        test "forkless BGSAVE: a second BGSAVE is refused while one runs" {
            r config set rdb-key-save-delay 100
            r bgsave
            assert_error "*Background save already in progress*" {r bgsave}
            assert_error "*Background save already in progress*" {r save}
            r config set rdb-key-save-delay 0
            wait_for_bgsave
            assert_equal ok [s rdb_last_bgsave_status]
        }

        test "forkless BGSAVE: SWAPDB, FLUSHDB and a reload in the middle" {
            fill_dataset 5000
            r config set rdb-key-save-delay 100
            set digest [r debug digest]
            r bgsave
            r swapdb 0 1
            r select 2
            r flushdb
            r select 0
            r set after-swap x
            r debug reload nosave   ;# empties and loads the old dump.rdb: tables handed to the snapshot
            r flushdb
            r config set rdb-key-save-delay 0
            wait_for_bgsave
            assert_equal ok [s rdb_last_bgsave_status]
            r debug reload nosave
            assert_equal $digest [r debug digest]
        }

        test "forkless BGSAVE: FLUSHALL in the middle stops it cleanly" {
            fill_dataset 5000
            r config set rdb-key-save-delay 100
            r bgsave
            r flushall
            assert_equal 0 [s rdb_bgsave_in_progress]
            assert_equal {} [glob -nocomplain [srv dir]/temp-*.rdb]
            r config set rdb-key-save-delay 0
            r set k v
            r bgsave
            wait_for_bgsave
            assert_equal ok [s rdb_last_bgsave_status]
        }

        test "forkless BGSAVE: a write error fails it cleanly, the next one succeeds" {
            fill_dataset 20000
            set digest [r debug digest]
            r debug aof-fault write eio
            r bgsave
            wait_for_bgsave
            assert_equal err [s rdb_last_bgsave_status]
            assert_equal {} [glob -nocomplain [srv dir]/temp-*.rdb]
            r debug aof-fault write short 1
            r bgsave
            wait_for_bgsave
            assert_equal err [s rdb_last_bgsave_status]
            r debug aof-fault write off
            r bgsave
            wait_for_bgsave
            assert_equal ok [s rdb_last_bgsave_status]
            r debug reload nosave
            assert_equal $digest [r debug digest]
        }

        test "forkless BGSAVE: keys evicted and expired during it are in the file" {
            fill_dataset 20000
            r config set rdb-key-save-delay 20
            set digest [r debug digest]
            r bgsave
            r config set maxmemory-policy allkeys-random
            r config set maxmemory [expr {[s used_memory] - 500000}]
            # eviction may not keep up with the fillers (OOM): only the digest matters
            catch {for {set i 0} {$i < 200} {incr i} { r pexpire key:$i 1; r set filler:$i [string repeat x 1000] }}
            after 50
            r config set maxmemory 0
            assert_morethan [s evicted_keys] 0
            r config set rdb-key-save-delay 0
            wait_for_bgsave
            assert_equal ok [s rdb_last_bgsave_status]
            r debug reload nosave
            assert_equal $digest [r debug digest]
        }

        test "forkless BGSAVE: over forkless-max-pending-memory the rest is written at once" {
            fill_dataset 20000
            r config set rdb-key-save-delay 50
            r config set forkless-max-pending-memory 20000
            set digest [r debug digest]
            r bgsave
            churn_while rdb_bgsave_in_progress
            assert_morethan [s forkless_pending_cap_hits] 0
            r config set forkless-max-pending-memory 256mb
            r config set rdb-key-save-delay 0
            assert_equal ok [s rdb_last_bgsave_status]
            r debug reload nosave
            assert_equal $digest [r debug digest]
        }

        test "forkless BGSAVE: with little room for the writer thread's queue, slices wait for it instead of blocking" {
            fill_dataset 20000
            r config set forkless-max-pending-memory 20000
            set hits [s forkless_pending_cap_hits]
            set digest [r debug digest]
            r bgsave
            wait_for_bgsave
            r config set forkless-max-pending-memory 256mb
            assert_equal ok [s rdb_last_bgsave_status]
            assert_equal $hits [s forkless_pending_cap_hits] ;# nothing wrote: no barrier reached the cap
            # the slices' own accounting: they ran, and their CPU time is
            # within their wall time (two clocks, each slice's figures rounded
            # to microseconds: allow a few per slice)
            set slices [s forkless_slices]
            assert_morethan $slices 1
            assert {[regexp {wall_us=(\d+),cpu_us=(\d+)} [s forkless_slices_usage] -> wall cpu]}
            assert_morethan $wall 0
            assert {$cpu <= $wall + 5 * $slices}
            r debug reload nosave
            assert_equal $digest [r debug digest]
        }

        # Big collections are written in parts over many slices; a write to
        # one that is partly written has the rest written first.
        proc fill_big {name kind n} {
            for {set i 0} {$i < $n} {incr i 5000} {
                set batch {}
                for {set j $i} {$j < $i + 5000 && $j < $n} {incr j} {
                    switch $kind {
                        set { lappend batch m$j }
                        list { lappend batch e$j }
                        hash { lappend batch f$j v$j }
                        zset { lappend batch $j m$j }
                    }
                }
                switch $kind {
                    set { r sadd $name {*}$batch }
                    list { r rpush $name {*}$batch }
                    hash { r hset $name {*}$batch }
                    zset { r zadd $name {*}$batch }
                }
            }
        }

        proc write_big {kind name round} {
            switch $kind {
                set { r sadd $name new$round; r srem $name m$round }
                list { r rpush $name tail$round; r lpop $name }
                hash { r hset $name f$round changed; r hdel $name f[expr {$round + 50000}] }
                zset { r zincrby $name 1 m$round; r zrem $name m[expr {$round + 50000}] }
            }
        }

        foreach kind {set list hash zset} {
            test "forkless BGSAVE: a big $kind is written in parts, a write in the middle has the rest written first" {
                r flushall
                fill_big big $kind 100000
                r pexpire big 100000000
                r debug populate 100 small 10
                set digest [r debug digest]
                r config set rdb-key-save-delay 100 ;# per 64 elements of a big key
                r bgsave
                # (a key ahead of the cursor would be written whole by the barrier)
                wait_for_condition 1000 1 {[s forkless_big_values] >= 1} else { fail "the big key not started" }
                set round 0
                while {[s rdb_bgsave_in_progress] == 1} {
                    r set small:[expr {$round % 100}] x ;# the barrier writes it while the big key is open
                    if {$round < 30} { write_big $kind big $round }
                    if {$round == 30} { r del big; r set big now-a-string }
                    incr round
                }
                r config set rdb-key-save-delay 0
                assert_equal ok [s rdb_last_bgsave_status]
                assert_equal 1 [s forkless_big_values]
                assert_equal 1 [s forkless_big_values_finished_by_barrier]
                r debug reload nosave
                assert_equal $digest [r debug digest]
            }
        }

        # 200k elements per key natively; 30k under an emulator, still about
        # 30 times BIG_VALUE_ELEMENTS (the 200k version took 4-7 minutes there)
        set ::forkless_big_n [expr {[::harness::emulated] ? 30000 : 200000}]

        test "forkless BGSAVE: big keys nobody writes are written over many slices, each near its budget" {
          with_slow_replies {
            r flushall
            foreach kind {set list hash zset} { fill_big big$kind $kind $::forkless_big_n }
            set digest [r debug digest]
            r bgsave
            wait_for_bgsave
            assert_equal ok [s rdb_last_bgsave_status]
            assert_equal 4 [s forkless_big_values]
            assert_equal 0 [s forkless_big_values_finished_by_barrier]
            # a 200k-element value whole takes tens of ms; the slices keep near 1 ms
            assert_lessthan [s forkless_longest_slice_cpu_us] [::harness::scaled 10000]
            puts "    (longest slice [s forkless_longest_slice_us] us, [s forkless_longest_slice_cpu_us] us of CPU)"
            r debug reload nosave
            assert_equal $digest [r debug digest]
          }
        }

        test "forkless BGSAVE: a big key ahead of the cursor is written whole by the barrier" {
          with_slow_replies {
            r flushall
            fill_big bigset set $::forkless_big_n
            set digest [r debug digest]
            # one write: the server runs both before the snapshot's first
            # slice (a timer), so the key is ahead of the cursor whatever
            # the load -- sent apart, a slice could start it first
            r write "[::resp::encode_command {bgsave}][::resp::encode_command {sadd bigset new-member}]"
            assert_match {Background saving started*} [r read]
            assert_equal 1 [r read]
            wait_for_bgsave
            assert_equal ok [s rdb_last_bgsave_status]
            assert_morethan [s forkless_longest_barrier_us] 0
            r debug reload nosave
            assert_equal $digest [r debug digest]
          }
        }

        test "forkless: SHUTDOWN in the middle saves the dataset as it is then" {
            fill_dataset 20000
            r config set rdb-key-save-delay 200
            r bgsave
            churn 1
            expire_churned
            set digest [r debug digest]
            r config set save "3600 1"   ;# SIGTERM's shutdown saves (rdbSaveOnShutdown, as SHUTDOWN SAVE)
            r config set rdb-key-save-delay 0 ;# SAVE would sleep per key
            restart_server
            assert_equal $digest [r debug digest]
            r config set save ""
        }
    }

    start_server {overrides {persistence-mode forkless appendonly yes}} {
        test "forkless AOF rewrite: nothing lost or applied twice, restart has the final digest" {
            fill_dataset 20000
            r config set rdb-key-save-delay 1000 ;# cut short after 4 rounds
            set writer [start_writer]
            after 100
            r client pause 100000 write
            r bgrewriteaof
            r client unpause
            set rounds [churn_while aof_rewrite_in_progress 4]
            stop_writer $writer
            assert_morethan $rounds 3
            assert_equal ok [s aof_last_bgrewrite_status]
            r config set rdb-key-save-delay 0
            expire_churned
            set digest [r debug digest]
            restart_server
            assert_equal $digest [r debug digest]
        }

        test "forkless AOF rewrite without the RDB preamble" {
            fill_dataset 20000
            r config set aof-use-rdb-preamble no
            r config set rdb-key-save-delay [::harness::scaled 30]
            r bgrewriteaof
            set rounds [churn_while aof_rewrite_in_progress]
            assert_equal ok [s aof_last_bgrewrite_status]
            r config set rdb-key-save-delay 0
            expire_churned
            set digest [r debug digest]
            restart_server
            assert_equal $digest [r debug digest]
        }
    }
}

# Replication from a forkless primary: the full sync's RDB is written by
# snapshot.c in slices (no fork child) and sent from dump.rdb; a diskless
# sync falls back to that. Runs under the no-fork launcher too.
proc forkless_wait_link_up {} {
    wait_for_condition 200 100 {[string match *master_link_status:up* [r info replication]]} else {
        fail "the replica's link never came up: [r info replication]"
    }
}

proc forkless_writes_while_syncing {} {
    set n 0
    while {![string match *master_link_status:up* [r info replication]] && $n < 20000} {
        r -1 incr counter
        r -1 set during:$n v$n
        r -1 del key:$n
        r -1 rpush list:[expr {$n % 300}] new
        incr n
    }
    return $n
}

tags {forkless replication} {
    start_server {overrides {persistence-mode forkless repl-diskless-sync no}} {
        start_server {overrides {persistence-mode forkless}} {
            test "forkless primary: a full sync with writes during it, a partial resync, a diskless sync via the disk" {
                r -1 debug populate 20000 key 20
                for {set i 0} {$i < 300} {incr i} { r -1 rpush list:$i a b $i }
                r -1 config set rdb-key-save-delay [::harness::scaled 30]
                r replicaof 127.0.0.1 [srv -1 port]
                set writes [forkless_writes_while_syncing]
                forkless_wait_link_up
                r -1 config set rdb-key-save-delay 0
                assert_morethan $writes 10
                wait_for_condition 100 100 {[r -1 debug digest] eq [r debug digest]} else { fail "digests differ" }
                wait_for_log "*Background RDB transfer started (forkless, disk)*" -level -1
                assert_equal 1 [s -1 sync_full]

                # the link drops: a partial resync from the backlog
                r client kill type master
                r -1 incr after-kill
                wait_for_condition 100 100 {[s -1 sync_partial_ok] == 1} else { fail "no partial resync" }
                forkless_wait_link_up
                wait_for_condition 100 100 {[r -1 debug digest] eq [r debug digest]} else { fail "digests differ" }

                # diskless asked for: logged, and done through the disk
                r -1 config set repl-diskless-sync yes
                r -1 config set repl-diskless-sync-delay 0
                r replicaof no one
                r replicaof 127.0.0.1 [srv -1 port]
                forkless_wait_link_up
                assert_equal 2 [s -1 sync_full]
                wait_for_log "*Diskless sync is not available without a fork child*" -level -1
                r -1 set last v
                wait_for_condition 100 100 {[r -1 debug digest] eq [r debug digest]} else { fail "digests differ" }
            }

            test "a BGSAVE during a forkless full sync: 'already in progress', as Redis" {
                r replicaof no one
                r -1 config set rdb-key-save-delay [::harness::scaled 100]
                r -1 config set repl-diskless-sync no
                r replicaof 127.0.0.1 [srv -1 port]
                wait_for_condition 100 50 {[s -1 rdb_bgsave_in_progress] == 1} else { fail "no sync snapshot" }
                assert_error "*Background save already in progress*" {r -1 bgsave}
                r -1 config set rdb-key-save-delay 0
                forkless_wait_link_up
                wait_for_condition 100 100 {[r -1 debug digest] eq [r debug digest]} else { fail "digests differ" }
            }
        }
    }
}
