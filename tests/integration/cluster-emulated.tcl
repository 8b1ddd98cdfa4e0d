# A node of ours in a cluster with native Redis 7.0.15 nodes. Its point is
# the cross-port runs: there our node runs under QEMU (sparc64: big-endian
# and trapping on unaligned access), so every bus message it sends and
# reads -- PING/PONG with gossip, MEET, FAIL, PUBLISH, UPDATE -- crosses
# between byte orders, as a Pi or a SPARC box joining an x86 cluster would.
# cluster-bus.tcl covers far more, natively; this file is the short one CI
# runs on the big-endian port. Natively it runs too (a quick mixed check).
#
# Skipped without /usr/bin/redis-server, in external mode, and when the
# server under test is Redis itself.

set ::reference_bin /usr/bin/redis-server
set ::ce_cli [file join [file dirname $::harness::opt(server)] redis-cli]

source [file join $::harness_dir cluster.tcl] ;# cluster_node_overrides, cluster_poll, cluster_states_ok

if {[::harness::external]} {
    test {cluster with native Redis nodes} { skip "external mode: the test starts its own nodes" }
    return
}
if {![file executable $::reference_bin]} {
    test {cluster with native Redis nodes} { skip "$::reference_bin not installed: no Redis nodes to mix with" }
    return
}
if {![ours]} {
    test {cluster with native Redis nodes} { skip "the server under test is Redis itself" }
    return
}

# Flags of node id in level's CLUSTER NODES.
proc ce_flags {level id} {
    foreach line [split [r $level cluster nodes] "\n"] {
        if {[lindex $line 0] eq $id} { return [lindex $line 2] }
    }
    return {}
}

proc ce_agree {levels} {
    foreach l $levels {
        set nodes [r $l cluster nodes]
        if {[llength [split [string trim $nodes] "\n"]] != [llength $levels]} { return 0 }
        if {[string match *handshake* $nodes] || [string match *fail* $nodes] || [string match *disconnected* $nodes]} { return 0 }
    }
    return [cluster_states_ok $levels]
}

set ref_over [list cluster-enabled yes cluster-node-timeout [cluster_node_timeout] cluster-port [::harness::find_free_port] \
                  appendonly no]
start_reference_server $ref_over {
set ref_over [lreplace $ref_over 5 5 [::harness::find_free_port]]
start_reference_server $ref_over {
start_server [list overrides [cluster_node_overrides]] {
    set levels {0 -1 -2}

    test {Our node and two native Redis 7.0.15 nodes meet and agree on one cluster} {
        assert_equal OK [r -1 cluster meet 127.0.0.1 [srv 0 port] [cluster_bus_port 0]]
        assert_equal OK [r -2 cluster meet 127.0.0.1 [srv 0 port] [cluster_bus_port 0]]
        assert_equal OK [r 0 cluster addslotsrange 0 5460]
        assert_equal OK [r -1 cluster addslotsrange 5461 10922]
        assert_equal OK [r -2 cluster addslotsrange 10923 16383]
        wait_for_condition 300 100 {[ce_agree $levels]} else {
            fail "no agreement: [r 0 cluster nodes]\n---\n[r -1 cluster nodes]"
        }
        # each sees the others' slots as they were assigned
        assert_match "* 10923-16383*" [r 0 cluster nodes]
        assert_match "* 0-5460*" [r -2 cluster nodes]
    }

    test {Keys through every node with -MOVED followed; PUBLISH crosses the bus both ways} {
        # {b} hashes to slot 3300 (ours), {c} to 7365, {a} to 15495 (Redis's)
        foreach l $levels {
            foreach k {a b c} {
                set out [exec {*}$::harness::opt(wrapper) $::ce_cli -c -p [srv $l port] set "{$k}:$l" v$l]
                assert_equal OK [string trim $out]
            }
        }
        assert_equal v-1 [r 0 get "{b}:-1"]
        assert_equal v0 [r -2 get "{a}:0"]
        foreach {from to} {0 -1 -2 0} {
            set sub [redis_deferring_client $to]
            $sub subscribe busch
            assert_equal {subscribe busch 1} [$sub read]
            # the subscription is in place: one PUBLISH must arrive
            r $from publish busch hello$from
            if {![cluster_poll {[$sub ready]} 100]} { fail "no PUBLISH from [srv $from port] to [srv $to port]" }
            assert_equal [list message busch hello$from] [$sub read]
            $sub close
        }
    }

    test {Our node stopped is FAIL for the Redis nodes, and back when it resumes} {
        set id [r 0 cluster myid]
        set pid [srv 0 pid]
        exec kill -STOP $pid
        set failed [cluster_poll {[string match *fail* [ce_flags -1 $id]] && [string match *fail* [ce_flags -2 $id]]} 600]
        exec kill -CONT $pid
        if {!$failed} { fail "not FAIL: [r -1 cluster nodes]" }
        wait_for_condition 600 100 {[ce_agree $levels]} else {
            fail "no recovery: [r -1 cluster nodes]\n---\n[r 0 cluster nodes]"
        }
    }

    test {A Redis node stopped is FAIL for ours (its own report and Redis's FAIL message), and back when it resumes} {
        set id [r -1 cluster myid]
        set pid [srv -1 pid]
        exec kill -STOP $pid
        set failed [cluster_poll {[string match *fail* [ce_flags 0 $id]] && ![string match *fail?* [ce_flags 0 $id]]} 600]
        exec kill -CONT $pid
        if {!$failed} { fail "not FAIL in our view: [r 0 cluster nodes]" }
        wait_for_condition 600 100 {[ce_agree $levels]} else {
            fail "no recovery: [r 0 cluster nodes]"
        }
        assert_equal v-1 [r -1 get "{c}:-1"]
    }
}
}
}
