# A cluster of three of our nodes and three of Debian's Redis 7.0.15 nodes,
# used as an operator and an application would use one:
#   - created by Debian's `redis-cli --cluster create ... --cluster-replicas 1`,
#     each primary given a replica of the other kind, `--cluster check` clean;
#   - `--cluster reshard` of 1000 slots from one of our primaries to a Redis
#     primary (Debian's tool) and of 1000 from that Redis primary to another
#     of ours (our tool), while a redis-py RedisCluster client writes;
#     every acknowledged key is read back through RedisCluster, and each
#     key is in one place only (the primaries' key counts add up);
#   - a primary of each kind killed (SIGKILL), its replica of the other kind
#     elected, the keys still there, and the old primary restarted on its
#     own nodes.conf rejoining as a replica of the new one;
#   - a reshard interrupted by killing our tool (check reports the open
#     slot, fix completes it), and a primary killed in the middle of a
#     slot's migration (fix puts every key in one place, none lost, none
#     twice).
# Skipped, saying why, without /usr/bin/redis-server, Debian's redis-cli or
# python3-redis, in external mode, when the server under test is Redis, and
# under an emulator (cluster-emulated.tcl puts an emulated node among Redis
# nodes; this file's resharding under load is for native speed).

set ::reference_bin /usr/bin/redis-server
set ::ci_cli [file join [file dirname $::harness::opt(server)] redis-cli]
set ::ci_py /usr/bin/python3
set ::ci_dir [file join $::harness::opt(run_dir) cluster-interop-[pid]]

source [file join $::harness_dir cluster.tcl] ;# cluster_node_overrides, cluster_poll, cluster_states_ok

proc ci_why_not {} {
    if {[::harness::external]} { return "external mode: the test starts its own nodes" }
    if {![ours]} { return "the server under test is Redis itself" }
    if {$::harness::opt(wrapper) ne ""} { return "under an emulator: cluster-emulated.tcl mixes an emulated node with Redis nodes" }
    if {![file executable $::reference_bin] || ![file executable /usr/bin/redis-cli]} {
        return "Debian's redis-server / redis-cli 7.0.15 not installed: no Redis nodes to mix with"
    }
    if {![file executable $::ci_cli]} { return "no redis-cli next to the server" }
    if {[catch {exec $::ci_py -c "from redis.cluster import RedisCluster"}]} {
        return "python3-redis with RedisCluster is not installed (apt-get install python3-redis)"
    }
    return ""
}

set ::ci_skip [ci_why_not]
if {$::ci_skip ne ""} {
    test "cluster interop with Redis 7.0.15" { skip $::ci_skip }
    return
}
file mkdir $::ci_dir

# Levels: ours 0 -2 -4, Redis -1 -3 -5 (see the nesting at the end).
set ::ci_levels {0 -1 -2 -3 -4 -5}
proc ci_is_ours {level} { expr {$level in {0 -2 -4}} }

# A redis-cli, ours or Debian's (ref), bounded: its output; exit 0 required.
proc ci_cli {prog args} {
    set bin [expr {$prog eq "ours" ? $::ci_cli : "/usr/bin/redis-cli"}]
    set ::env(TERM) dumb
    set limit [expr {int(300 * [::harness::factor])}]
    if {[catch {exec timeout $limit $bin {*}$args < /dev/null 2>@1} out]} { fail "redis-cli ($prog) $args: $out" }
    return $out
}

proc ci_check_clean {} {
    set ok [cluster_poll {![catch {exec -ignorestderr /usr/bin/redis-cli --cluster check 127.0.0.1:[srv -1 port] < /dev/null} out] &&
                          [string match {*\[OK\] All nodes agree about slots configuration.*\[OK\] All 16384 slots covered.*} $out]} 150]
    if {!$ok} { fail "--cluster check: $out" }
}

# Every running node's view agrees and is ok.
proc ci_agree {levels} {
    if {![cluster_states_ok $levels]} { return 0 }
    set views {}
    foreach l $levels {
        set v {}
        foreach line [split [string trim [r $l cluster nodes]] "\n"] {
            lappend v [list [lindex $line 0] [string map {myself, {}} [lindex $line 2]] [lindex $line 3] {*}[lrange $line 8 end]]
        }
        lappend views [lsort $v]
    }
    foreach v $views { if {$v ne [lindex $views 0]} { return 0 } }
    return [expr {![string match *fail* [lindex $views 0]]}]
}

proc ci_wait_agree {levels what} {
    wait_for_condition 600 100 {[ci_agree $levels]} else {
        fail "$what: no agreement: [join [lmap l $levels {r $l cluster nodes}] "\n---\n"]"
    }
}

# The primary a node says it follows ("" while it answers -LOADING).
proc ci_primary_of {level} {
    if {[catch {r $level cluster nodes} nodes]} { return "" }
    foreach line [split $nodes "\n"] {
        if {[string match *myself* [lindex $line 2]]} { return [lindex $line 3] }
    }
}

# The Python side: a RedisCluster writer (until a stop file appears) and a reader.
set ::ci_writer {
import os, sys
from redis.cluster import RedisCluster
port, stop, out = int(sys.argv[1]), sys.argv[2], sys.argv[3]
rc = RedisCluster(host="127.0.0.1", port=port, cluster_error_retry_attempts=20)
i, failed = 0, []
while not os.path.exists(stop) and i < 1000000:
    try:
        rc.set("iw:%d" % i, str(i))
    except Exception as e:
        failed.append(i)
    i += 1
with open(out + ".tmp", "w") as f:
    f.write("%d\n%s\n" % (i, " ".join(map(str, failed))))
os.rename(out + ".tmp", out)
}

set ::ci_reader {
import sys
from redis.cluster import RedisCluster
port, attempted, failed = int(sys.argv[1]), int(sys.argv[2]), set(map(int, sys.argv[3].split()))
rc = RedisCluster(host="127.0.0.1", port=port, cluster_error_retry_attempts=20)
bad, present = [], 0
for i in range(attempted):
    v = rc.get("iw:%d" % i)
    if v is not None:
        present += 1
    if i not in failed and v != str(i).encode():
        bad.append(i)
print("%d %d %s" % (len(bad), present, " ".join(map(str, bad[:10]))))
}

proc ci_py_file {name code} {
    set path [file join $::ci_dir $name]
    set fd [open $path w]
    puts $fd $code
    close $fd
    return $path
}

# Reads back what the writer recorded; {missing present} with missing == 0 required.
proc ci_read_back {port attempted failed} {
    set out [exec timeout [expr {int(300 * [::harness::factor])}] $::ci_py [ci_py_file reader.py $::ci_reader] \
                 $port $attempted $failed 2>@1]
    lassign $out bad present
    if {$bad != 0} { fail "$bad acknowledged keys lost or wrong (first: [lrange $out 2 end])" }
    return $present
}

proc ci_keys_on_primaries {levels} {
    set n 0
    foreach l $levels {
        if {[string match *myself,master* [r $l cluster nodes]]} { incr n [r $l dbsize] }
    }
    return $n
}

# Restarts the node at level with its own config and nodes.conf (a Redis
# node with Debian's binary).
proc ci_restart {level} {
    if {[ci_is_ours $level]} {
        restart_server $level -kill
        return
    }
    set saved [list $::harness::opt(server) $::harness::opt(wrapper)]
    set ::harness::opt(server) $::reference_bin
    set ::harness::opt(wrapper) {}
    set code [catch {restart_server $level -kill} err]
    lassign $saved ::harness::opt(server) ::harness::opt(wrapper)
    if {$code} { error $err }
}

proc ci_tests {} {
    set levels $::ci_levels

    test {Interop: Debian's redis-cli --cluster create, 3 of ours and 3 Redis 7.0.15 nodes, replicas 1, check clean} {
        set addrs {}
        foreach l $levels { lappend addrs 127.0.0.1:[srv $l port] }
        set out [ci_cli ref --cluster create {*}$addrs --cluster-replicas 1 --cluster-yes]
        assert_match {*\[OK\] All 16384 slots covered.*} $out
        ci_wait_agree $levels "after create"
        # the first three given are the primaries (one address): ours 0, Redis -1, ours -2;
        # each gets a replica of the other kind: Redis -3 of 0, ours -4 of -1, Redis -5 of -2
        foreach {r p} {-3 0 -4 -1 -5 -2} {
            set pid [r $p cluster myid]
            if {[ci_primary_of $r] ne $pid} { assert_equal OK [r $r cluster replicate $pid] }
        }
        wait_for_condition 600 100 {[ci_agree $levels] &&
            [string match *master_link_status:up* [r -3 info replication]] &&
            [string match *master_link_status:up* [r -4 info replication]] &&
            [string match *master_link_status:up* [r -5 info replication]] &&
            [ci_primary_of -3] eq [r 0 cluster myid] && [ci_primary_of -4] eq [r -1 cluster myid] &&
            [ci_primary_of -5] eq [r -2 cluster myid]} else {
            fail "replicas not in place: [r 0 cluster nodes]"
        }
        ci_check_clean
        set out [ci_cli ours --cluster check 127.0.0.1:[srv 0 port]]
        assert_match {*\[OK\] All nodes agree about slots configuration.*\[OK\] All 16384 slots covered.*} $out
    }

    test {Interop: reshard 1000 slots ours -> Redis (Debian's tool) and Redis -> ours (our tool) while RedisCluster writes; every acknowledged key reads back, each in one place} {
        set stop [file join $::ci_dir stop]
        set result [file join $::ci_dir written]
        file delete $stop $result
        set wpid [exec $::ci_py [ci_py_file writer.py $::ci_writer] [srv 0 port] $stop $result \
                      > [file join $::ci_dir writer.log] 2>@1 &]
        # the writer is under way before the slots move
        wait_for_condition 200 50 {[ci_keys_on_primaries $levels] >= 200} else { fail "the writer wrote nothing" }
        set ours0 [r 0 cluster myid]
        set redis1 [r -1 cluster myid]
        set ours2 [r -2 cluster myid]
        ci_cli ref --cluster reshard 127.0.0.1:[srv -1 port] --cluster-from $ours0 --cluster-to $redis1 \
            --cluster-slots 1000 --cluster-yes
        ci_check_clean
        ci_cli ours --cluster reshard 127.0.0.1:[srv 0 port] --cluster-from $redis1 --cluster-to $ours2 \
            --cluster-slots 1000 --cluster-yes
        ci_check_clean
        close [open $stop w]
        wait_for_condition 300 100 {[file exists $result]} else {
            catch {exec kill $wpid}
            fail "the writer did not stop: [::harness::read_file [file join $::ci_dir writer.log]]"
        }
        set lines [split [::harness::read_file $result] "\n"]
        set ::ci_attempted [lindex $lines 0]
        set ::ci_failed [lindex $lines 1]
        assert_morethan $::ci_attempted 1000
        puts "    (RedisCluster wrote $::ci_attempted keys during the reshards, [llength $::ci_failed] SETs failed after its retries)"
        set present [ci_read_back [srv -2 port] $::ci_attempted $::ci_failed]
        assert_equal $present [ci_keys_on_primaries $levels]
        # slots really moved: 1000 went to the Redis primary and 1000 on to ours
        assert_match {*\[OK\] All 16384 slots covered.*} [ci_cli ref --cluster check 127.0.0.1:[srv -2 port]]
        set ::ci_present $present
    }

    # after these, the primaries are -3 (Redis), -4 (ours) and -2 (ours), their replicas 0, -1 and -5
    foreach {kind p r} {ours 0 -3 redis -1 -4} {
        test "Interop: a primary of $kind killed, its replica of the other kind elected, no key lost; the old primary rejoins as its replica from nodes.conf" {
            assert_equal 1 [r $p wait 1 [expr {int(5000 * [::harness::factor])}]]
            set rid [r $r cluster myid]
            set running [lsearch -all -inline -not -exact $levels $p]
            ::harness::send_signal KILL [srv $p pid]
            ::harness::wait_pid_exit [srv $p pid] 5000
            wait_for_condition 600 100 {[string match *myself,master* [r $r cluster nodes]] &&
                                        [cluster_states_ok $running]} else {
                fail "the replica at [srv $r port] was not elected: [r $r cluster nodes]"
            }
            assert_equal $::ci_present [ci_read_back [srv $r port] $::ci_attempted $::ci_failed]
            ci_restart $p
            wait_for_condition 600 100 {[ci_primary_of $p] eq $rid &&
                                        [string match *master_link_status:up* [r $p info replication]] &&
                                        [s $p loading] == 0 &&
                                        [ci_agree $levels]} else {
                fail "the old primary did not rejoin as a replica: [r $p cluster nodes]"
            }
            assert_equal $::ci_present [ci_keys_on_primaries $levels]
        }
    }

    test {Interop: a reshard interrupted by killing our tool: --cluster check reports the open slot, --cluster fix completes it, no key lost} {
        set from [r -4 cluster myid]
        set to [r -3 cluster myid]
        set before [ci_keys_on_primaries $levels]
        # slow enough to be caught in the middle: one key per MIGRATE
        set pid [exec $::ci_cli --cluster reshard 127.0.0.1:[srv -4 port] --cluster-from $from --cluster-to $to \
                     --cluster-slots 3000 --cluster-yes --cluster-pipeline 1 > [file join $::ci_dir reshard.log] 2>@1 &]
        wait_for_condition 300 20 {[regexp -all {Moving slot} [::harness::read_file [file join $::ci_dir reshard.log]]] >= 20} else {
            catch {exec kill -9 $pid}
            fail "the reshard did not start: [::harness::read_file [file join $::ci_dir reshard.log]]"
        }
        exec kill -9 $pid
        # the tool died between SETSLOT IMPORTING/MIGRATING and SETSLOT NODE of a
        # slot (check then names it open), or between two slots
        catch {exec -ignorestderr /usr/bin/redis-cli --cluster check 127.0.0.1:[srv -3 port] < /dev/null} out
        assert_match {*Performing Cluster Check*} $out
        if {[string match {*has slots in * state*} $out]} {
            assert_match {*\[WARNING\] Node * has slots in *ing state*} $out
        }
        ci_cli ours --cluster fix 127.0.0.1:[srv -4 port] --cluster-yes
        ci_check_clean
        assert_equal $before [ci_keys_on_primaries $levels]
        assert_equal $::ci_present [ci_read_back [srv -3 port] $::ci_attempted $::ci_failed]
    }

    test {Interop: a primary killed in the middle of a slot's migration: its replica elected, --cluster fix puts every key in one place} {
        # a slot of primary -2 (ours; its replica -5 is Redis), half its keys moved to -3
        set slot -1
        for {set i 0} {$i < 10000 && $slot < 0} {incr i} {
            if {![catch {r -2 set "{m$i}:probe" 1}]} {
                set tag "{m$i}"
                set slot [r -2 cluster keyslot $tag]
                r -2 del "$tag:probe"
            }
        }
        assert {$slot >= 0}
        for {set j 0} {$j < 100} {incr j} { r -2 set "$tag:$j" $j }
        set src [r -2 cluster myid]
        set dst [r -3 cluster myid]
        assert_equal OK [r -3 cluster setslot $slot importing $src]
        assert_equal OK [r -2 cluster setslot $slot migrating $dst]
        set keys {}
        for {set j 0} {$j < 50} {incr j} { lappend keys "$tag:$j" }
        assert_equal OK [r -2 migrate 127.0.0.1 [srv -3 port] "" 0 5000 KEYS {*}$keys]
        assert_equal 1 [r -2 wait 1 [expr {int(5000 * [::harness::factor])}]]
        set rid [r -5 cluster myid]
        ::harness::send_signal KILL [srv -2 pid]
        ::harness::wait_pid_exit [srv -2 pid] 5000
        set running [lsearch -all -inline -not -exact $levels -2]
        # (the importing node keeps the slot on the dead node's name until fix, as
        # Redis 7.0 takes no owner of a slot it imports from the bus: its state is fail)
        set others [lsearch -all -inline -not -exact $running -3]
        wait_for_condition 600 100 {[string match *myself,master* [r -5 cluster nodes]] && [cluster_states_ok $others]} else {
            fail "the replica was not elected: [join [lmap l $running {list $l [srv $l port] [lindex [split [r $l cluster info] \n] 0] [r $l cluster nodes]}] "\n---\n"]"
        }
        # 50 keys on the importing node, 50 on the new owner: fix gathers them.
        # The dead node is still a master in the tables: without the option both
        # tools refuse ("unreachable masters"), as an operator would then learn
        set out [catch {exec $::ci_cli --cluster fix 127.0.0.1:[srv -4 port] --cluster-yes < /dev/null} msg]
        assert_equal 1 $out
        assert_match "*Fixing open slots with 1 unreachable masters is dangerous*" $msg
        ci_cli ours --cluster fix 127.0.0.1:[srv -4 port] --cluster-yes --cluster-fix-with-unreachable-masters
        wait_for_condition 150 100 {[cluster_states_ok $running] &&![catch {exec -ignorestderr /usr/bin/redis-cli --cluster check 127.0.0.1:[srv -4 port] < /dev/null} out] &&
                                    [string match {*\[OK\] All 16384 slots covered.*} $out]} else {
            fail "--cluster check after fix: $out"
        }
        set total 0
        foreach l $running {
            if {[string match *myself,master* [r $l cluster nodes]]} { incr total [r $l cluster countkeysinslot $slot] }
        }
        assert_equal 100 $total
        for {set j 0} {$j < 100} {incr j 7} {
            assert_equal $j [string trim [exec /usr/bin/redis-cli -c -p [srv -4 port] get "$tag:$j"]]
        }
        ci_restart -2
        wait_for_condition 600 100 {[ci_primary_of -2] eq $rid && [s -2 loading] == 0 &&
                                    [string match *master_link_status:up* [r -2 info replication]] && [ci_agree $levels]} else {
            fail "the old primary did not rejoin as a replica: [r -2 cluster nodes]"
        }
    }
}

set ref_over [list cluster-enabled yes cluster-node-timeout [cluster_node_timeout] repl-diskless-sync-delay 0 appendonly no \
                  cluster-allow-replica-migration no]
proc ci_ref_over {} { concat $::ref_over cluster-port [::harness::find_free_port] }
proc ci_our_over {} { concat [cluster_node_overrides] cluster-allow-replica-migration no }

start_reference_server [ci_ref_over] {
start_server [list overrides [ci_our_over]] {
start_reference_server [ci_ref_over] {
start_server [list overrides [ci_our_over]] {
start_reference_server [ci_ref_over] {
start_server [list overrides [ci_our_over]] {
    ci_tests
}
}
}
}
}
}
