# Replicas in a cluster beyond the plain election (src/cluster_failover.c),
# with Redis 7.0's rules:
# - replica migration: a primary left with no working replica, that had
#   one, gets one from the primary with the most (at least 2, more than
#   cluster-migration-barrier): the replica with the smallest node id of
#   those moves, 5 s after the primary became orphaned;
# - cluster-replica-validity-factor: a replica disconnected from its primary
#   for longer than node timeout x factor + repl-ping-replica-period (beyond
#   the node timeout) does not run for election, and says so in its log.
# Six nodes on 127.0.0.1: primaries A B C, replicas R1 R2 of B and R3 of C.
# Runs against Redis 7.0.15 too (--server /usr/bin/redis-server).

source [file join $::harness_dir cluster.tcl] ;# cluster_node_overrides, cluster_bus_port, cluster_states_ok

# The primary id a node says it replicates ("" for a primary).
proc cr_primary_of {level} {
    foreach line [split [r $level cluster nodes] "\n"] {
        if {[string match "*myself*" [lindex $line 2]]} {
            return [expr {[lindex $line 3] eq "-" ? "" : [lindex $line 3]}]
        }
    }
}

proc cr_link_up {level} { string match *master_link_status:up* [r $level info replication] }

start_server [list overrides [cluster_node_overrides]] {
start_server [list overrides [cluster_node_overrides]] {
start_server [list overrides [cluster_node_overrides]] {
start_server [list overrides [cluster_node_overrides]] {
start_server [list overrides [cluster_node_overrides]] {
start_server [list overrides [cluster_node_overrides]] {
    set all {0 -1 -2 -3 -4 -5}
    lassign {0 -1 -2 -3 -4 -5} A B C R1 R2 R3
    set id {}
    foreach l $all { dict set id $l [r $l cluster myid] }

    test {Setup: three primaries, R1 and R2 replicas of B, R3 of C} {
        foreach l [lrange $all 1 end] {
            assert_equal OK [r $A cluster meet 127.0.0.1 [srv $l port] [cluster_bus_port $l]]
        }
        r $A cluster addslotsrange 0 5460
        r $B cluster addslotsrange 5461 10922
        r $C cluster addslotsrange 10923 16383
        wait_for_condition 100 100 {
            [string match "*cluster_known_nodes:6*" [r $R3 cluster info]] &&
            [string match "*[dict get $id $C]*connected 10923-16383*" [r $R3 cluster nodes]] &&
            [string match "*[dict get $id $B]*connected 5461-10922*" [r $R2 cluster nodes]]
        } else { fail "no agreement: [r $R3 cluster nodes]" }
        assert_equal OK [r $R1 cluster replicate [dict get $id $B]]
        assert_equal OK [r $R2 cluster replicate [dict get $id $B]]
        assert_equal OK [r $R3 cluster replicate [dict get $id $C]]
        wait_for_condition 200 100 {
            [cluster_states_ok $all] && [cr_link_up $R1] && [cr_link_up $R2] && [cr_link_up $R3] &&
            [llength [lsearch -all [split [r $A cluster nodes] "\n"] "* slave *"]] == 3
        } else { fail "replicas not up: [r $A cluster nodes]" }
    }

    test {Replica migration: C's only replica fails, the smaller-id replica of B moves to C} {
        set movers [lsort [list [dict get $id $R1] [dict get $id $R2]]]
        set mover [expr {[dict get $id $R1] eq [lindex $movers 0] ? $R1 : $R2}]
        set stayer [expr {$mover == $R1 ? $R2 : $R1}]
        set pid [srv $R3 pid]
        exec kill -STOP $pid
        wait_for_condition 300 100 {[cr_primary_of $mover] eq [dict get $id $C]} else {
            exec kill -CONT $pid
            fail "no replica moved to C: [r $mover cluster nodes]"
        }
        wait_for_log "*Migrating to orphaned master [dict get $id $C]*" -level $mover
        assert_equal [dict get $id $B] [cr_primary_of $stayer]
        exec kill -CONT $pid
        wait_for_condition 200 100 {[cluster_states_ok $all] && [cr_link_up $mover] && [cr_link_up $R3]} else {
            fail "not back: [r $A cluster nodes]"
        }
        set ::cr_stayer $stayer
    }

    test {cluster-replica-validity-factor: a replica whose data is too old does not run for election} {
        set n $::cr_stayer
        set pid [srv $B pid]
        r $n config set cluster-replica-validity-factor 1
        r $n config set repl-ping-replica-period 1
        # cut n from B and keep it busy past the limit, while B stops for good
        set secs [expr {(2 * [cluster_node_timeout] + 2000) / 1000 + 1}]
        set rd [redis_deferring_client $n]
        $rd multi
        $rd client kill type master
        $rd debug sleep $secs
        $rd exec
        # the replies come once the sleep is over
        exec kill -STOP $pid
        assert_equal {OK QUEUED QUEUED} [list [$rd read] [$rd read] [$rd read]]
        assert_equal {1 OK} [$rd read]
        $rd close
        wait_for_log "*Currently unable to failover: Disconnected from master for longer than allowed. Please check the 'cluster-replica-validity-factor' configuration option.*" \
            -level $n -tries 600 -delay 100
        assert_equal slave [lindex [r $n role] 0]
        assert_match "*cluster_state:fail*" [r $A cluster info]
        exec kill -CONT $pid
        wait_for_condition 200 100 {[cluster_states_ok $all] && [cr_link_up $n]} else { fail "not back: [r $A cluster nodes]" }
        assert_equal [dict get $id $B] [cr_primary_of $n]
    }

    test {Bad input: the replica settings' ranges} {
        assert_error {ERR *} {r $A config set cluster-replica-validity-factor -1}
        assert_error {ERR *} {r $A config set cluster-migration-barrier -1}
        assert_error {ERR *} {r $A config set cluster-allow-replica-migration maybe}
    }
}
}
}
}
}
}

# A replica loading a full sync has no history of its primary: it announces
# offset 0 on the bus (Redis's replicationGetSlaveOffset), so its primary
# leaves it out of CLUSTER SLOTS until the load is done and the replica has
# an offset again (Redis's cluster suite 22-replica-in-sync).
proc cr_in_slots {level id} { expr {[string first $id [r $level cluster slots]] != -1} }

# A field of node id's entry in CLUSTER SHARDS as node level sees it.
proc cr_shard_field {level id field} {
    foreach shard [r $level cluster shards] {
        foreach node [dict get $shard nodes] {
            if {[dict get $node id] eq $id} { return [dict get $node $field] }
        }
    }
    return ""
}

start_server [list overrides [concat [cluster_node_overrides] repl-backlog-size 16kb]] {
start_server [list overrides [cluster_node_overrides]] {
    lassign {-1 0} P R ;# the primary is the outer server (its small backlog)
    set pid [r $P cluster myid]
    set rid [r $R cluster myid]

    test {A replica loading a full sync announces offset 0: hidden from its primary's CLUSTER SLOTS until loaded} {
        assert_equal OK [r $P cluster meet 127.0.0.1 [srv $R port] [cluster_bus_port $R]]
        r $P cluster addslotsrange 0 16383
        wait_for_condition 100 100 {[cluster_states_ok {0 -1}]} else { fail "no agreement: [r $R cluster nodes]" }
        assert_equal OK [r $R cluster replicate $pid]
        r $P debug populate 1000 key 1000
        r $P set "{0}first" v ;# an offset above 0 for the replica once synced
        wait_for_condition 200 100 {[cr_link_up $R] && [cr_in_slots $P $rid]} else {
            fail "the replica never listed: [r $P cluster slots]"
        }
        # a slow load (4 ms a key, scaled) that serves the bus meanwhile
        r $R config set key-load-delay [::harness::scaled 4000]
        r $R config set loading-process-events-interval-bytes 1024
        # more than the 16 KB backlog after the link is cut: a full sync
        r $P multi
        r $P client kill type replica
        for {set j 0} {$j < 100} {incr j} { r $P set "{0}$j" [string repeat A 1024] }
        r $P exec
        # The replica has no history from +FULLRESYNC on, so it may be hidden
        # while the payload still streams in: poll for both at once (the load
        # takes 1100 keys x 4 ms x the time factor, plenty of room).
        wait_for_condition [::harness::scaled 200] 50 {[s $R loading] == 1 && ![cr_in_slots $P $rid]} else {
            fail "the loading replica stayed in CLUSTER SLOTS (loading:[s $R loading]): [r $P cluster slots]"
        }
        wait_for_condition 600 100 {[cr_link_up $R]} else { fail "the replica never finished its load" }
        r $R config set key-load-delay 0
        r $R config set loading-process-events-interval-bytes 2097152
        wait_for_condition 200 100 {[cr_in_slots $P $rid] && [cr_in_slots $R $rid]} else {
            fail "the replica did not come back to CLUSTER SLOTS: [r $P cluster slots]"
        }
    }

    test {A replica whose load failed after flushing announces offset 0 until a sync succeeds} {
        assert {[cr_shard_field $R $rid replication-offset] > 0}
        # the replica empty, and loading from the link into it (on-empty-db):
        # its old dataset is gone from the load's start
        r $R config set repl-diskless-load on-empty-db
        r $R config set loading-process-events-interval-bytes 1024 ;# INFO answered during the load
        r $P flushall
        wait_for_condition [::harness::scaled 100] 50 {[r $R dbsize] == 0} else { fail "the replica kept its keys" }
        # a slow full sync (the primary's child writes 300 keys of 16 KB, 10 ms each)...
        r $P config set rdb-key-save-delay 10000
        r $P multi
        r $P client kill type replica
        for {set j 0} {$j < 300} {incr j} { r $P set "{0}$j" [string repeat B 16384] }
        r $P exec
        wait_for_condition [::harness::scaled 200] 50 {[s $R loading] == 1} else {
            fail "no load from the link started: [r $R info replication]"
        }
        # ...cut, and no new one: the primary now refuses the replica's handshake
        r $P config set requirepass cr-secret
        r $P client kill type replica
        wait_for_condition [::harness::scaled 200] 50 {[s $R loading] == 0} else {
            fail "the load did not fail: [r $R info replication]"
        }
        # the replica emptied what it half-loaded: no history of its primary,
        # so it announces 0 and the primary hides it, as Redis 7.0 (whose
        # replica dropped its cached primary at the flush)
        assert_equal 0 [r $R dbsize]
        assert_equal 0 [cr_shard_field $R $rid replication-offset]
        assert_equal loading [cr_shard_field $R $rid health]
        assert_equal 1 [s $R slave_repl_offset]
        wait_for_condition [::harness::scaled 100] 100 {![cr_in_slots $P $rid]} else {
            fail "the primary lists a replica with no data: [r $P cluster slots]"
        }
        # it stays so while its handshakes fail
        after [::harness::scaled 1500]
        assert_equal 0 [cr_shard_field $R $rid replication-offset]
        r $P config set requirepass ""
        r $P config set rdb-key-save-delay 0
        r $R config set loading-process-events-interval-bytes 2097152
        wait_for_condition [::harness::scaled 300] 100 {[cr_link_up $R] && [cr_in_slots $P $rid]} else {
            fail "the replica did not sync again: [r $R info replication]"
        }
        assert {[cr_shard_field $R $rid replication-offset] > 0}
        assert_equal [r $P debug digest] [r $R debug digest]
    }
}
}
