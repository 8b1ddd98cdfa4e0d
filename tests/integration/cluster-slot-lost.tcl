# A primary that loses slots to a newer configuration learnt over the bus
# (another primary claims them with a greater config epoch): the keys it
# still holds in those slots are deleted, and a primary left with no slot
# becomes a replica of the winner, as Redis 7.0 does
# (clusterUpdateSlotsConfigWith's rules; Redis 7.0.15 logs nothing for the
# deletion, and "Configuration change detected. Reconfiguring myself as a
# replica of <id>" for the demotion). Runs against Redis 7.0.15 too
# (--server /usr/bin/redis-server).

source [file join $::harness_dir cluster.tcl] ;# cluster_node_overrides, cluster_bus_port, cluster_states_ok

proc sl_owner {level slot} {
    foreach range [r $level cluster slots] {
        if {$slot >= [lindex $range 0] && $slot <= [lindex $range 1]} { return [lindex $range 2 2] }
    }
    return {}
}

# Keys whose slots are the given ones: name{tag} with tags found by KEYSLOT.
proc sl_tag_for_slot {level slot} {
    for {set i 0} {$i < 200000} {incr i} {
        if {[r $level cluster keyslot "t$i"] == $slot} { return "t$i" }
    }
    error "no tag for slot $slot"
}

start_server [list overrides [cluster_node_overrides]] {
start_server [list overrides [cluster_node_overrides]] {
    # level 0 = A (epoch 1), level -1 = B (epoch 2): B's claims win
    set a 0
    set b -1
    set aid [r $a cluster myid]
    set bid [r $b cluster myid]

    test {Setup: A (config epoch 1) owns 0-199, B (epoch 2) 200-16383} {
        assert_equal OK [r $a cluster set-config-epoch 1]
        assert_equal OK [r $b cluster set-config-epoch 2]
        assert_equal OK [r $a cluster addslotsrange 0 199]
        assert_equal OK [r $b cluster addslotsrange 200 16383]
        assert_equal OK [r $a cluster meet 127.0.0.1 [srv $b port] [cluster_bus_port $b]]
        wait_for_condition 100 100 {[cluster_states_ok {0 -1}] && [sl_owner $b 0] eq $aid && [sl_owner $a 9000] eq $bid && [sl_owner $b 199] eq $aid} else {
            fail "no agreement: [r $a cluster nodes]\n---\n[r $b cluster nodes]"
        }
    }

    test {A slot claimed by B with a greater epoch: A deletes its keys there, keeps the others} {
        set t5 [sl_tag_for_slot $a 5]
        set t6 [sl_tag_for_slot $a 6]
        for {set i 0} {$i < 50} {incr i} {
            r $a set "k{$t5}$i" v
            r $a set "k{$t6}$i" v
        }
        r $a expire "k{$t5}0" 1000
        assert_equal 50 [r $a cluster countkeysinslot 5]
        # B takes slot 5 by itself: its PINGs now claim it at epoch 2 > 1
        assert_equal OK [r $b cluster setslot 5 node $bid]
        wait_for_condition 100 100 {[sl_owner $a 5] eq $bid} else { fail "A did not learn B owns slot 5" }
        wait_for_condition 100 100 {[r $a cluster countkeysinslot 5] == 0} else { fail "keys of slot 5 left on A" }
        assert_equal {} [r $a cluster getkeysinslot 5 100]
        assert_equal 50 [r $a cluster countkeysinslot 6]
        assert_equal 50 [r $a dbsize]
        # the key is B's now: A redirects, and B does not have it
        assert_error "MOVED 5 *" {r $a exists "k{$t5}1"}
        assert_equal 0 [r $b exists "k{$t5}1"]
        # A is still a primary of the rest
        assert_match "*myself,master*" [r $a cluster nodes]
        assert_equal 0 [r $b dbsize]
    }

    # A resharding step as redis-cli does it: MIGRATE sends RESTORE-ASKING in
    # cluster mode, which the importing node takes without -MOVED.
    test {MIGRATE of the keys of a migrating slot to the importing node, then SETSLOT NODE on both} {
        set t7 [sl_tag_for_slot $a 7]
        for {set i 0} {$i < 5} {incr i} { r $a set "m{$t7}$i" v$i }
        assert_equal OK [r $b cluster setslot 7 importing $aid]
        assert_equal OK [r $a cluster setslot 7 migrating $bid]
        set keys [r $a cluster getkeysinslot 7 100]
        assert_equal 5 [llength $keys]
        assert_equal OK [r $a migrate 127.0.0.1 [srv $b port] "" 0 5000 keys {*}$keys]
        assert_equal 0 [r $a cluster countkeysinslot 7]
        assert_equal 5 [r $b cluster countkeysinslot 7]
        assert_equal [lsort $keys] [lsort [r $b cluster getkeysinslot 7 100]]
        assert_equal OK [r $b cluster setslot 7 node $bid]
        assert_equal OK [r $a cluster setslot 7 node $bid]
        wait_for_condition 100 100 {[sl_owner $a 7] eq $bid && [sl_owner $b 7] eq $bid} else {
            fail "slot 7 not B's everywhere"
        }
        assert_equal v3 [r $b get "m{$t7}3"]
        r $b flushall
    }

    # Redis's unit/cluster/misc.tcl: a key past its expire time in a migrating
    # slot counts as missing, so the client is sent to the importing node.
    test {A key expired but not yet deleted, in a migrating slot: -ASK} {
        r $a debug set-active-expire 0
        set t8 [sl_tag_for_slot $a 8]
        r $a set "e{$t8}" v px 10
        assert_equal OK [r $b cluster setslot 8 importing $aid]
        assert_equal OK [r $a cluster setslot 8 migrating $bid]
        wait_for_condition 100 20 {[catch {r $a get "e{$t8}"} e] && [string match "ASK 8 *" $e]} else {
            fail "no -ASK for the expired key"
        }
        assert_equal PONG [r $a ping]
        assert_equal OK [r $a cluster setslot 8 stable]
        assert_equal OK [r $b cluster setslot 8 stable]
        r $a debug set-active-expire 1
    }

    test {A primary that loses its last slot becomes a replica of the winner} {
        # leave A one slot range, then B claims it all
        r $a flushall
        assert_equal OK [r $b cluster setslot 6 node $bid]
        set claimed {}
        for {set s 0} {$s <= 199} {incr s} {
            if {$s != 5 && $s != 6} { lappend claimed $s }
        }
        # one SETSLOT per slot: ADDSLOTS cannot take an owned slot
        foreach s $claimed { r $b cluster setslot $s node $bid }
        wait_for_condition 200 100 {[string match "*myself,slave $bid*" [r $a cluster nodes]]} else {
            fail "A is not a replica of B: [r $a cluster nodes]"
        }
        wait_for_log "*Configuration change detected. Reconfiguring myself as a replica of $bid*" -level $a
        wait_for_condition 100 100 {[string match "*$aid * slave $bid *" [r $b cluster nodes]]} else {
            fail "B does not see A as its replica: [r $b cluster nodes]"
        }
        r $b set after-demotion 1
        wait_for_condition 100 100 {[r $a dbsize] == 1} else { fail "A does not replicate B" }
        assert_equal slave [lindex [r $a role] 0]
    }

    test {Bad input: SETSLOT of an owned slot to an unknown node, to a replica} {
        assert_error {ERR Unknown node 0123456789abcdef0123456789abcdef01234567} \
            {r $b cluster setslot 7 node 0123456789abcdef0123456789abcdef01234567}
        assert_error {ERR Target node is not a master} {r $b cluster setslot 7 node $aid}
    }
}
}
