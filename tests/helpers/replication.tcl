# replication.tcl -- what the replication test files share (sourced by
# them): waits for a replica's link, for equal digests and for equal
# offsets, each polled with the port's time factor.

proc wait_link_up {level} {
    wait_for_condition 100 100 {[string match *master_link_status:up* [r $level info replication]]} else {
        fail "the replica's link never came up: [r $level info replication]"
    }
}

proc wait_same_digest {a b} {
    wait_for_condition 100 100 {[r $a debug digest] eq [r $b debug digest]} else {
        fail "digests differ: [r $a debug digest] vs [r $b debug digest]"
    }
}

proc wait_offsets_equal {primary replica} {
    wait_for_condition 100 100 {
        [s $primary master_repl_offset] == [s $replica master_repl_offset]
    } else {
        fail "offsets differ: [s $primary master_repl_offset] vs [s $replica master_repl_offset]"
    }
}
