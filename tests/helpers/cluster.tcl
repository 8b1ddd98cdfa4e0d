# cluster.tcl -- what the multi-node cluster test files share (sourced by
# them): a node's overrides with its own bus port, the node timeout scaled
# for emulated ports, and the agreement check on cluster_state.

# A small node timeout keeps the files short; scaled for emulated ports.
proc cluster_node_timeout {} { expr {int(1500 * [::harness::factor])} }

proc cluster_node_overrides {} {
    list cluster-enabled yes cluster-port [::harness::find_free_port] cluster-node-timeout [cluster_node_timeout] \
        repl-diskless-sync-delay 0
}

proc cluster_bus_port {level} { lindex [r $level config get cluster-port] 1 }

# 1 when every node of levels says cluster_state:ok.
proc cluster_states_ok {levels} {
    foreach l $levels {
        if {![string match *cluster_state:ok* [r $l cluster info]]} { return 0 }
    }
    return 1
}

# Polls cond (an expression, in the caller's frame) every 100 ms, up to
# tries times, scaled for emulated ports: 1 as soon as it holds, else 0.
proc cluster_poll {cond tries} {
    set n [expr {int($tries * [::harness::factor])}]
    for {set i 0} {$i < $n} {incr i} {
        if {[uplevel 1 [list expr $cond]]} { return 1 }
        after 100
    }
    return 0
}
