# moduleapi-cluster.tcl -- the cluster API of Redis 7.0 modules
# (src/module_cluster.c: the node list and node info, SetClusterFlags,
# messages over the cluster bus) through the test module
# tests/modules/mcluster.c: outside cluster mode, on three nodes of ours
# (two primaries, one replica), and between a node of ours and a Redis
# 7.0.15 node loading the same .so (the module id on the wire). Run with
# --server /usr/bin/redis-server to check the expectations against Debian's
# Redis 7.0.15 (the mixed part then skips).

source [file join $::harness_dir modules.tcl] ;# module_skip_reason, need_modules
source [file join $::harness_dir cluster.tcl] ;# cluster_node_overrides, cluster_bus_port, cluster_states_ok

proc mc_load {level} { r $level module load [file join $::module_dir mcluster.so] }


# The ids and flags CLUSTER NODES shows on level (without "myself").
proc mc_nodes {level} {
    set out {}
    foreach line [split [string trim [r $level cluster nodes]] "\n"] {
        lappend out [lindex $line 0] [string map {myself, {}} [lindex $line 2]]
    }
    return $out
}

start_server {tags {module} overrides {enable-module-command yes}} {
    test "Cluster API outside cluster mode: nil, 0, errors; registering does nothing" {
        need_modules
        mc_load 0
        assert_equal {} [r mcluster.myid]
        assert_equal 0 [r mcluster.size]
        assert_equal {} [r mcluster.nodes]
        # Redis 7.0.15 crashes here (it looks the node up in a cluster state it
        # does not have): ours answers REDISMODULE_ERR
        if {[ours]} { assert_error {*no such node*} {r mcluster.info 0123456789012345678901234567890123456789} }
        assert_error {*send failed*} {r mcluster.send * 1 hello}
        assert_equal OK [r mcluster.listen 1 on]
        assert_equal OK [r mcluster.flags noredirection]
        r set foo bar
        assert_equal bar [r get foo]
    }
}

set mc_over [concat [cluster_node_overrides] enable-module-command yes]
start_server [list tags {module} overrides $mc_over] {
start_server [list overrides [concat [cluster_node_overrides] enable-module-command yes]] {
start_server [list overrides [concat [cluster_node_overrides] enable-module-command yes]] {
    set ready 0
    test "Cluster API: three nodes (two primaries, a replica) agree" {
        need_modules
        foreach l {0 -1 -2} { mc_load $l }
        assert_equal OK [r 0 cluster meet 127.0.0.1 [srv -1 port] [cluster_bus_port -1]]
        assert_equal OK [r 0 cluster meet 127.0.0.1 [srv -2 port] [cluster_bus_port -2]]
        assert_equal OK [r 0 cluster addslotsrange 0 8191]
        assert_equal OK [r -1 cluster addslotsrange 8192 16383]
        set ::mc_id0 [r 0 cluster myid]
        set ::mc_id1 [r -1 cluster myid]
        set ::mc_id2 [r -2 cluster myid]
        assert [cluster_poll {[llength [mc_nodes -2]] == 6 && ![string match *handshake* [mc_nodes -2]]} 100]
        assert_equal OK [r -2 cluster replicate $::mc_id0]
        assert [cluster_poll {[cluster_states_ok {0 -1 -2}] && [dict get [mc_nodes 0] $::mc_id2] eq "slave" &&
                         [dict get [mc_nodes -1] $::mc_id2] eq "slave"} 200]
        set ready 1
    }

    test "GetMyClusterID, GetClusterSize, GetClusterNodesList: as CLUSTER MYID and CLUSTER NODES" {
        need_modules
        if {!$ready} { skip "the cluster did not form" }
        foreach l {0 -1 -2} id [list $::mc_id0 $::mc_id1 $::mc_id2] {
            assert_equal $id [r $l mcluster.myid]
            assert_equal 3 [r $l mcluster.size]
            assert_equal [lsort [list $::mc_id0 $::mc_id1 $::mc_id2]] [lsort [r $l mcluster.nodes]]
        }
    }

    test "GetClusterNodeInfo: address, primary, port and flags; unknown and short ids refused" {
        need_modules
        if {!$ready} { skip "the cluster did not form" }
        # REDISMODULE_NODE_MYSELF 1, MASTER 2, SLAVE 4
        assert_equal [list 127.0.0.1 - [srv 0 port] 3] [r 0 mcluster.info $::mc_id0]
        assert_equal [list 127.0.0.1 - [srv -1 port] 2] [r 0 mcluster.info $::mc_id1]
        assert_equal [list 127.0.0.1 $::mc_id0 [srv -2 port] 4] [r 0 mcluster.info $::mc_id2]
        assert_equal [list 127.0.0.1 $::mc_id0 [srv -2 port] 5] [r -2 mcluster.info $::mc_id2]
        assert_error {*no such node*} {r 0 mcluster.info 0123456789012345678901234567890123456789}
        assert_error {*no such node*} {r 0 mcluster.info [string range $::mc_id1 0 38]}
        assert_error {*no such node*} {r 0 mcluster.info {}}
    }

    test "SendClusterMessage to every node: each listening node gets it once, with the sender's id" {
        need_modules
        if {!$ready} { skip "the cluster did not form" }
        foreach l {0 -1 -2} { assert_equal OK [r $l mcluster.listen 1 on] }
        assert_equal OK [r 0 mcluster.send * 1 hello]
        assert [cluster_poll {[llength [r -1 mcluster.received]] == 1 && [llength [r -2 mcluster.received]] == 1} 100]
        assert_equal [list $::mc_id0:1:hello] [r -1 mcluster.received]
        assert_equal [list $::mc_id0:1:hello] [r -2 mcluster.received]
        assert_equal {} [r 0 mcluster.received] ;# not to itself
    }

    test "SendClusterMessage to one node; other types unheard; an empty payload; binary payload" {
        need_modules
        if {!$ready} { skip "the cluster did not form" }
        assert_equal OK [r 0 mcluster.send $::mc_id1 1 "only one"]
        assert_equal OK [r 0 mcluster.send $::mc_id1 7 "nobody listens"]
        assert_equal OK [r 0 mcluster.send $::mc_id1 1 ""]
        assert_equal OK [r 0 mcluster.send $::mc_id1 1 "a\x00b"]
        assert [cluster_poll {[llength [r -1 mcluster.received]] == 4} 100]
        assert_equal [list $::mc_id0:1:hello "$::mc_id0:1:only one" $::mc_id0:1: "$::mc_id0:1:a\x00b"] \
            [r -1 mcluster.received]
        # the replica heard none of them: a later broadcast is its next message
        assert_equal OK [r 0 mcluster.send * 1 second]
        assert [cluster_poll {[llength [r -2 mcluster.received]] == 2} 100]
        assert_equal [list $::mc_id0:1:hello $::mc_id0:1:second] [r -2 mcluster.received]
    }

    test "SendClusterMessage: an unknown node, a short id or this node itself is an error" {
        need_modules
        if {!$ready} { skip "the cluster did not form" }
        assert_error {*send failed*} {r 0 mcluster.send 0123456789012345678901234567890123456789 1 x}
        assert_error {*send failed*} {r 0 mcluster.send [string range $::mc_id1 0 20] 1 x}
        assert_error {*send failed*} {r 0 mcluster.send $::mc_id0 1 x}
    }

    test "RegisterClusterMessageReceiver with NULL stops that type; MODULE UNLOAD drops the receivers" {
        need_modules
        if {!$ready} { skip "the cluster did not form" }
        # Redis 7.0.15 unlinks the wrong entry when the receiver removed is
        # the first of its list (freed but still reachable): ours only.
        if {![ours]} { skip "Redis 7.0.15 mishandles removing the first receiver" }
        assert_equal OK [r -2 mcluster.listen 1 off]
        assert_equal OK [r -2 mcluster.listen 2 on]
        assert_equal OK [r 0 mcluster.send * 1 unheard]
        assert_equal OK [r 0 mcluster.send * 2 heard]
        assert [cluster_poll {[llength [r -2 mcluster.received]] == 3} 100]
        assert_equal [list $::mc_id0:1:hello $::mc_id0:1:second $::mc_id0:2:heard] [r -2 mcluster.received]
        assert_equal OK [r -2 module unload mclustert]
        assert_equal OK [r 0 mcluster.send * 2 "after unload"]
        assert [cluster_poll {[llength [r -1 mcluster.received]] == 6} 100]
        assert_equal PONG [r -2 ping]
    }

    test "SetClusterFlags NO_REDIRECTION: keys of every slot are served here" {
        need_modules
        if {!$ready} { skip "the cluster did not form" }
        # "foo" is slot 12182: node -1's
        assert_error {MOVED 12182 *} {r 0 set foo bar}
        assert_equal OK [r 0 mcluster.flags noredirection]
        assert_equal OK [r 0 set foo bar]
        assert_equal bar [r 0 get foo]
        assert_equal OK [r 0 mset {a} 1 {b} 2]
    }
}
}
}

if {![file executable /usr/bin/redis-server]} {
    test {Cluster messages between Redis 7.0.15 and ours} { skip "/usr/bin/redis-server not installed" }
} elseif {![ours]} {
    test {Cluster messages between Redis 7.0.15 and ours} { skip "the server under test is Redis itself" }
} else {
    set ::reference_bin /usr/bin/redis-server
    start_reference_server [list cluster-enabled yes cluster-port [::harness::find_free_port] \
                                cluster-node-timeout [cluster_node_timeout] enable-module-command yes] {
    start_server [list tags {module} overrides [concat [cluster_node_overrides] enable-module-command yes]] {
        test "Cluster messages between Redis 7.0.15 and ours, both ways (the module id on the wire)" {
            need_modules
            mc_load 0
            mc_load -1
            assert_equal OK [r 0 cluster meet 127.0.0.1 [srv -1 port] [cluster_bus_port -1]]
            set ours [r 0 cluster myid]
            set theirs [r -1 cluster myid]
            assert [cluster_poll {[llength [r -1 mcluster.nodes]] == 2 && [llength [r 0 mcluster.nodes]] == 2 &&
                             ![string match *handshake* [r -1 cluster nodes]] &&
                             ![string match *handshake* [r 0 cluster nodes]]} 100]
            assert_equal OK [r 0 mcluster.listen 9 on]
            assert_equal OK [r -1 mcluster.listen 9 on]
            assert [cluster_poll {![catch {r 0 mcluster.send $theirs 9 from-ours}]} 50]
            assert [cluster_poll {[llength [r -1 mcluster.received]] == 1} 100]
            assert_equal [list $ours:9:from-ours] [r -1 mcluster.received]
            assert [cluster_poll {![catch {r -1 mcluster.send $ours 9 from-redis}]} 50]
            assert [cluster_poll {[llength [r 0 mcluster.received]] == 1} 100]
            assert_equal [list $theirs:9:from-redis] [r 0 mcluster.received]
            assert_equal [list 127.0.0.1 - [srv -1 port] 2] [r 0 mcluster.info $theirs]
            assert_equal [list 127.0.0.1 - [srv 0 port] 2] [r -1 mcluster.info $ours]
        }
    }
    }
}

# NO_FAILOVER: a replica whose module set it is not promoted when its
# primary fails (three primaries, so the other two can agree on FAIL).
start_server [list tags {module} overrides [concat [cluster_node_overrides] enable-module-command yes]] {
start_server [list overrides [concat [cluster_node_overrides] enable-module-command yes]] {
start_server [list overrides [concat [cluster_node_overrides] enable-module-command yes]] {
start_server [list overrides [concat [cluster_node_overrides] enable-module-command yes]] {
    test "SetClusterFlags NO_FAILOVER: the replica of a failed primary stays a replica; a module-blocked client gets -CLUSTERDOWN; RM_Call refused keys not served here or when down" {
        need_modules
        foreach l {-1 -2 -3} { assert_equal OK [r 0 cluster meet 127.0.0.1 [srv $l port] [cluster_bus_port $l]] }
        assert_equal OK [r 0 cluster addslotsrange 0 5460]
        assert_equal OK [r -1 cluster addslotsrange 5461 10922]
        assert_equal OK [r -2 cluster addslotsrange 10923 16383]
        set primary [r 0 cluster myid]
        set replica [r -3 cluster myid]
        assert [cluster_poll {[llength [mc_nodes -3]] == 8 && ![string match *handshake* [mc_nodes -3]]} 100]
        assert_equal OK [r -3 cluster replicate $primary]
        assert [cluster_poll {[cluster_states_ok {0 -1 -2 -3}] && [dict get [mc_nodes 0] $replica] eq "slave"} 200]
        assert [cluster_poll {[string match *master_link_status:up* [r -3 info replication]]} 100]
        mc_load -3
        assert_equal OK [r -3 mcluster.flags nofailover]
        # a client blocked in a module's command on no key, on a live primary:
        # the cluster going down ends its wait with -CLUSTERDOWN (7.0)
        r -1 module load [file join $::module_dir mblock.so]
        # RM_Call (mtest.call: "ERR call failed" when Call refuses) serves
        # only this node's keys
        r -1 module load [file join $::module_dir mtest.so]
        for {set i 0} {[set slot [r -1 cluster keyslot k$i]] < 5461 || $slot > 10922} {incr i} {}
        set local k$i
        assert_equal OK [r -1 mtest.call set $local v]
        assert_error {*call failed*} {r -1 mtest.call set foo bar} ;# slot 12182: node -2's
        set rd [redis_deferring_client -1]
        $rd mb.block 0
        wait_for_condition 50 100 {[s -1 blocked_clients] == 1} else { fail "mb.block did not block" }
        set pid [srv 0 pid]
        exec kill -STOP $pid
        set failed [cluster_poll {[string match *fail* [dict get [mc_nodes -3] $primary]] &&
                             ![string match *fail?* [dict get [mc_nodes -3] $primary]]} 300]
        # a replica allowed to fail over starts its election 0.5-1 s after
        # FAIL (rank 0): give it three times that, scaled
        if {$failed} { after [expr {int(3000 * [::harness::factor])}] }
        set role [dict get [mc_nodes -3] $replica]
        set state [r -3 cluster info]
        set down [cluster_poll {[string match *cluster_state:fail* [r -1 cluster info]]} 100]
        set blocked_reply [catch {$rd read} e]
        set call_down [catch {r -1 mtest.call get $local} call_err]
        exec kill -CONT $pid
        assert $failed
        assert_equal slave $role
        assert_match *cluster_state:fail* $state
        assert {![string match "*Start of election*" [exec cat [srv -3 stdout]]]}
        assert $down
        assert_match {*CLUSTERDOWN*} $e
        # ... and nothing with keys while the cluster is down (7.0: ENETDOWN)
        assert_equal 1 $call_down
        assert_match {*call failed*} $call_err
        assert_equal 0 [s -1 blocked_clients]
        assert_equal 1 [lindex [r -1 mb.stats] 2] ;# its disconnect callback ran
        $rd close
    }
}
}
}
}
