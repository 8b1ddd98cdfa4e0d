# Cluster mode on one node (no bus yet): start-up with cluster-enabled yes,
# nodes.conf (Redis 7.0's format both ways, atomic rewrite, corrupt or
# unwritable files refuse start-up naming the file), INFO and CLUSTER
# replies, key slots and per-slot key counts, and the redirection rules
# (-MOVED, -ASK, -CROSSSLOT, -TRYAGAIN, -CLUSTERDOWN, ASKING, READONLY,
# MULTI/EXEC, EVAL) against a second node written into nodes.conf.
# Replies were taken from Debian's Redis 7.0.15; the file also runs against it
# (--server /usr/bin/redis-server).

set ::reference_bin /usr/bin/redis-server
proc have_reference {} { file executable $::reference_bin }

# A node id that is not ours: the owner of the slots we redirect to.
set ::other_id 0123456789abcdef0123456789abcdef01234567

# A peer that is only written in nodes.conf never answers on the bus: the
# blocks with one use a long node timeout, so it is not PFAIL (which would
# put the cluster down, as it does on Redis) while they run.
proc cluster_overrides {{timeout 3000}} {
    return [list cluster-enabled yes cluster-port [::harness::find_free_port] cluster-node-timeout $timeout \
                repl-diskless-sync-delay 0]
}

proc nodes_conf {{level 0}} { file join [srv $level dir] nodes.conf }

proc read_text {path} {
    set fd [open $path r]
    set text [read $fd]
    close $fd
    return $text
}

proc write_text {path text} {
    set fd [open $path w]
    puts -nonewline $fd $text
    close $fd
}

# Waits for cluster_state:ok (a primary waits ~2 s after start-up, as Redis).
proc wait_cluster_ok {{level 0}} {
    wait_for_condition 100 100 {[string match *cluster_state:ok* [r $level cluster info]]} else {
        fail "cluster_state never became ok: [r $level cluster info]"
    }
}

start_server [list overrides [cluster_overrides]] {
    set myid [r cluster myid]

    test {A new node: a random 40-hex id, nodes.conf written, INFO and CLUSTER INFO as Redis 7.0} {
        assert_match {[0-9a-f]*} $myid
        assert_equal 40 [string length $myid]
        assert_equal 0 [regexp {[^0-9a-f]} $myid]
        # (Redis 7.0 writes ":0@0" before it knows its ports; we write them)
        assert_match "$myid :*@* myself,master - 0 0 0 connected\nvars currentEpoch 0 lastVoteEpoch 0\n" \
            [read_text [nodes_conf]]
        assert_match "*# Cluster\r\ncluster_enabled:1\r\n*" [r info]
        set info [r cluster info]
        assert_match "cluster_state:fail\r\ncluster_slots_assigned:0\r\n*cluster_known_nodes:1\r\ncluster_size:1\r\ncluster_current_epoch:0\r\ncluster_my_epoch:0\r\ncluster_stats_messages_sent:0\r\ncluster_stats_messages_received:0\r\ntotal_cluster_links_buffer_limit_exceeded:0\r\n" $info
        assert_match "*No cluster configuration found, I'm $myid*" [log_tail 0 200]
        assert_match "*Running mode=cluster*" [log_tail 0 200]
    }

    test {cluster-* directives: Redis 7.0's names and defaults} {
        assert_equal {cluster-node-timeout 3000} [r config get cluster-node-timeout]
        assert_equal {cluster-config-file nodes.conf} [r config get cluster-config-file]
        assert_equal {cluster-require-full-coverage yes} [r config get cluster-require-full-coverage]
        assert_equal {cluster-allow-reads-when-down no} [r config get cluster-allow-reads-when-down]
        assert_equal {cluster-preferred-endpoint-type ip} [r config get cluster-preferred-endpoint-type]
        assert_equal {cluster-announce-hostname {}} [r config get cluster-announce-hostname]
        assert_equal {cluster-migration-barrier 1} [r config get cluster-migration-barrier]
        assert_error {*cluster-enabled*} {r config set cluster-enabled no}
        assert_error {*alphanumeric characters, hyphens or dots*} {r config set cluster-announce-hostname a_b}
        # the announced address is myself's, in CLUSTER NODES and nodes.conf
        r config set cluster-announce-ip 10.1.2.3
        r config set cluster-announce-port 7001
        r config set cluster-announce-bus-port 17001
        r config set cluster-announce-hostname my-host
        assert_match "$myid 10.1.2.3:7001@17001,my-host myself,master *" [r cluster nodes]
        r cluster saveconfig
        assert_match "$myid 10.1.2.3:7001@17001,my-host myself,master *" [read_text [nodes_conf]]
        r config set cluster-announce-ip ""
        r config set cluster-announce-port 0
        r config set cluster-announce-bus-port 0
        r config set cluster-announce-hostname ""
        assert_match "$myid :[srv port]@* myself,master *" [r cluster nodes]
    }

    test {CLUSTER KEYSLOT: CRC16 of the key or its hash tag, Redis's slots} {
        foreach {key slot} {foo 12182 {} 0 {{}} 15257 \{ 4092 \} 12090 {{}{a}} 13650 {a{b}c} 3300
                            {foo{}{bar}} 8363 {foo{{bar}}zap} 4015 {foo{bar}{zap}} 5061
                            {{user1000}.following} 3443 \{bar 4015 123456789 12739} {
            assert_equal $slot [r cluster keyslot $key]
        }
    }

    test {Slots: ADDSLOTS, ADDSLOTSRANGE, DELSLOTS errors and NODES/SLOTS/SHARDS replies} {
        assert_error {ERR Invalid or out of range slot} {r cluster addslots 16384}
        assert_error {ERR Invalid or out of range slot} {r cluster addslots x}
        assert_error {ERR Slot 3 specified multiple times} {r cluster addslots 3 3}
        assert_error {ERR start slot number 9 is greater than end slot number 8} {r cluster addslotsrange 9 8}
        assert_error {ERR wrong number of arguments for 'cluster|addslotsrange' command} {r cluster addslotsrange 1 2 3}
        assert_error {ERR Slot 7 is already unassigned} {r cluster delslots 7}
        assert_equal OK [r cluster addslots 0 1 2 5]
        assert_equal OK [r cluster addslotsrange 100 200]
        assert_error {ERR Slot 5 is already busy} {r cluster addslots 5}
        set line [r cluster nodes]
        assert_match "$myid :[srv port]@* myself,master - 0 0 0 connected 0-2 5 100-200\n" $line
        assert_equal [list [list 0 2 [list {} [srv port] $myid {}]] [list 5 5 [list {} [srv port] $myid {}]] \
                          [list 100 200 [list {} [srv port] $myid {}]]] [r cluster slots]
        set shard [lindex [r cluster shards] 0]
        assert_equal {0 2 5 5 100 200} [dict get $shard slots]
        set node [lindex [dict get $shard nodes] 0]
        assert_equal $myid [dict get $node id]
        assert_equal master [dict get $node role]
        assert_equal online [dict get $node health]
        assert_equal OK [r cluster delslotsrange 100 199]
        assert_equal OK [r cluster delslots 200]
        assert_match "* connected 0-2 5\n" [r cluster nodes]
        # saved before the next reply of the event loop
        wait_for_condition 50 50 {[string match "* 0-2 5\nvars *" [read_text [nodes_conf]]]} else {
            fail "nodes.conf not rewritten: [read_text [nodes_conf]]"
        }
    }

    test {Epochs: BUMPEPOCH, SET-CONFIG-EPOCH, SAVECONFIG, COUNT-FAILURE-REPORTS, LINKS} {
        assert_equal {BUMPED 1} [r cluster bumpepoch]
        assert_equal {STILL 1} [r cluster bumpepoch]
        assert_error {ERR Node config epoch is already non-zero} {r cluster set-config-epoch 5}
        assert_error {ERR Invalid config epoch specified: -1} {r cluster set-config-epoch -1}
        assert_equal OK [r cluster saveconfig]
        assert_match "*vars currentEpoch 1 lastVoteEpoch 0\n" [read_text [nodes_conf]]
        assert_equal 0 [r cluster count-failure-reports $myid]
        assert_error {ERR Unknown node nosuchnode} {r cluster count-failure-reports nosuchnode}
        assert_equal {} [r cluster links]
        assert_error {ERR I tried hard but I can't forget myself...} {r cluster forget $myid}
        assert_error {ERR Can't replicate myself} {r cluster replicate $myid}
        assert_error {ERR You should send CLUSTER FAILOVER to a replica} {r cluster failover}
        assert_error {ERR unknown subcommand or wrong number of arguments for 'failover'. Try CLUSTER HELP.} {r cluster failover a b}
    }

    test {Keys per slot: COUNTKEYSINSLOT, GETKEYSINSLOT, deletes and FLUSHALL; only db 0} {
        assert_equal OK [r cluster flushslots]
        r cluster addslotsrange 0 16383
        wait_cluster_ok
        foreach k {x{a}1 x{a}2 x{a}3 b} { r set $k v }
        set slot [r cluster keyslot {{a}}]
        assert_equal 3 [r cluster countkeysinslot $slot]
        assert_equal 1 [r cluster countkeysinslot [r cluster keyslot b]]
        assert_equal [lsort {x{a}1 x{a}2 x{a}3}] [lsort [r cluster getkeysinslot $slot 10]]
        assert_equal 2 [llength [r cluster getkeysinslot $slot 2]]
        assert_equal {} [r cluster getkeysinslot 7 10]
        assert_error {ERR Invalid slot or number of keys} {r cluster getkeysinslot $slot -1}
        assert_error {ERR Invalid slot} {r cluster countkeysinslot 16384}
        r del x{a}1
        r rename x{a}2 x{a}4
        assert_equal 2 [r cluster countkeysinslot $slot]
        r set x{a}tmp v px 1
        wait_for_condition 50 20 {[r exists x{a}tmp] == 0} else { fail "key did not expire" }
        assert_equal 2 [r cluster countkeysinslot $slot]
        assert_error {ERR DB must be empty to perform CLUSTER FLUSHSLOTS.} {r cluster flushslots}
        assert_error {ERR CLUSTER RESET can't be called with master nodes containing keys} {r cluster reset}
        assert_error {ERR SELECT is not allowed in cluster mode} {r select 1}
        assert_equal OK [r select 0]
        assert_error {ERR MOVE is not allowed in cluster mode} {r move b 1}
        assert_error {ERR SWAPDB is not allowed in cluster mode} {r swapdb 0 1}
        r flushall
        assert_equal 0 [r cluster countkeysinslot $slot]
        assert_equal {} [r cluster getkeysinslot $slot 10]
    }

    # The per-slot index (src/cluster_slotindex.c) through growth, shrinking,
    # entries rebuilt by EXPIRE/PERSIST, RENAME, a reload: GETKEYSINSLOT hands
    # out each key of the slot exactly once, and only those.
    test {Keys per slot at scale: one slot of 3000 keys and 3000 spread, deletes, EXPIRE, DEBUG RELOAD} {
        r flushall
        set slot [r cluster keyslot {{big}}]
        for {set i 0} {$i < 3000} {incr i} {
            r set "k{big}$i" v
            r set "spread$i" v
        }
        for {set i 0} {$i < 3000} {incr i 3} { r del "k{big}$i" }
        for {set i 1} {$i < 3000} {incr i 3} { r expire "k{big}$i" 1000 }
        for {set i 1} {$i < 3000} {incr i 6} { r persist "k{big}$i" }
        r rename "k{big}1" "k{big}renamed"
        set want [lsort [r keys "k{big}*"]]
        assert_equal 2000 [llength $want]
        assert_equal 2000 [r cluster countkeysinslot $slot]
        assert_equal $want [lsort [r cluster getkeysinslot $slot 5000]]
        assert_equal 10 [llength [lsort -unique [r cluster getkeysinslot $slot 10]]]
        set s2 [r cluster keyslot spread7]
        set in_s2 {}
        foreach k [r keys spread*] { if {[r cluster keyslot $k] == $s2} { lappend in_s2 $k } }
        assert_equal [llength $in_s2] [r cluster countkeysinslot $s2]
        assert_equal [lsort $in_s2] [lsort [r cluster getkeysinslot $s2 100]]
        r debug reload
        assert_equal 2000 [r cluster countkeysinslot $slot]
        assert_equal $want [lsort [r cluster getkeysinslot $slot 5000]]
        # down to a few keys: the set shrinks and still finds them
        foreach k [lrange $want 3 end] { r del $k }
        assert_equal [lrange $want 0 2] [lsort [r cluster getkeysinslot $slot 5000]]
        assert_equal {} [r cluster getkeysinslot $slot 0]
        assert_error {ERR value is not an integer or out of range} {r cluster getkeysinslot $slot abc}
        assert_error {ERR Invalid slot or number of keys} {r cluster getkeysinslot 16384 1}
        r flushall
    }

    test {CROSSSLOT for multi-key commands, MULTI/EXEC and EVAL with keys in two slots} {
        assert_error {CROSSSLOT Keys in request don't hash to the same slot} {r mset a 1 b 2}
        assert_equal OK [r mset a{t} 1 b{t} 2]
        assert_equal {1 2} [r mget a{t} b{t}]
        r multi
        r set a 1
        r set b 2
        assert_error {CROSSSLOT*} {r exec}
        assert_error {CROSSSLOT*} {r eval {return 1} 2 a b}
        assert_equal 1 [r eval {return 1} 2 a{t} b{t}]
        assert_equal 1 [r eval {return 1} 0]
    }

    test {RESET HARD: a new id, epochs 0, no slots; nodes.conf follows} {
        r flushall
        assert_equal OK [r cluster reset hard]
        set newid [r cluster myid]
        assert {$newid ne $myid}
        assert_match "$newid * myself,master - 0 0 0 connected\n" [r cluster nodes]
        assert_match "*cluster_current_epoch:0*" [r cluster info]
        wait_for_condition 50 50 {[string match "$newid *vars currentEpoch 0 lastVoteEpoch 0\n" [read_text [nodes_conf]]]} else {
            fail "nodes.conf not rewritten: [read_text [nodes_conf]]"
        }
    }
}

# A node whose nodes.conf (written before start-up, in Redis's format) names
# another primary owning slots 0-8191 and our node owning the rest.
start_server [list overrides [cluster_overrides 60000]] {
    set myid [r cluster myid]
    shutdown_server
    write_text [nodes_conf] "$::other_id 127.0.0.1:7777@17777,other-host master - 0 1700000000000 4 connected 0-8191\n$myid 127.0.0.1:[srv port]@[expr {[srv port] + 10000}] myself,master - 0 0 3 connected 8192-16383\nvars currentEpoch 5 lastVoteEpoch 4\n"
    restart_server

    test {nodes.conf in Redis's format is read: nodes, slots, epochs, hostname} {
        assert_equal $myid [r cluster myid]
        assert_match "*Node configuration loaded, I'm $myid*" [log_tail 0 200]
        set nodes [r cluster nodes]
        assert_match "*$::other_id 127.0.0.1:7777@17777,other-host master - * * 4 disconnected 0-8191\n*" $nodes
        assert_match "*$myid 127.0.0.1:[srv port]@* myself,master - 0 0 3 connected 8192-16383\n*" $nodes
        assert_match "*cluster_current_epoch:5*cluster_my_epoch:3*" [r cluster info]
        wait_cluster_ok
        assert_match "*cluster_known_nodes:2*cluster_size:2*" [r cluster info]
    }

    test {MOVED to the slot's owner; keyless commands are served} {
        set slot [r cluster keyslot foo]
        assert_equal 12182 $slot
        assert_equal OK [r set foo bar]
        assert_error "MOVED 5061 127.0.0.1:7777" {r get bar}
        assert_error "MOVED 5061 127.0.0.1:7777" {r set bar 1}
        assert_equal PONG [r ping]
        assert_match {*rejected_calls=*} [r info commandstats]
        # shard channels route like keys
        assert_error "MOVED 5061 127.0.0.1:7777" {r spublish bar hello}
        assert_equal 0 [r spublish foo hello]
        assert_error "MOVED 5061 127.0.0.1:7777" {r ssubscribe bar}
        assert_error {CROSSSLOT*} {r ssubscribe foo a}
        r config set cluster-preferred-endpoint-type hostname
        assert_error "MOVED 5061 other-host:7777" {r get bar}
        assert_equal [list 0 8191 [list other-host 7777 $::other_id [list ip 127.0.0.1]]] [lindex [r cluster slots] 0]
        r config set cluster-preferred-endpoint-type unknown-endpoint
        assert_error "MOVED 5061 :7777" {r get bar}
        r config set cluster-preferred-endpoint-type ip
    }

    test {Scripts: only local keys, of one slot unless allow-cross-slot-keys; no-cluster scripts refused} {
        assert_equal 15495 [r cluster keyslot a]
        assert_error {*Script attempted to access a non local key in a cluster node*} \
            {r eval {return redis.call('get','bar')} 0}
        # a body with a shebang stays in one slot (the declared keys', or the first touched)
        assert_error {*Script attempted to access keys that do not hash to the same slot*} \
            {r eval "#!lua\nredis.call('get','foo'); return redis.call('get','a')" 0}
        assert_error {*Script attempted to access keys that do not hash to the same slot*} \
            {r eval "#!lua\nreturn redis.call('get','a')" 1 foo}
        assert_equal bar [r eval "#!lua\nredis.call('get','foo'); return redis.call('get','foo')" 0]
        assert_equal bar [r eval "#!lua flags=allow-cross-slot-keys\nredis.call('get','a'); return redis.call('get','foo')" 0]
        # one without (Redis 7.0's compatibility mode) may cross slots of this node
        assert_equal bar [r eval {redis.call('get','a'); return redis.call('get','foo')} 0]
        assert_error {ERR Can not run script on cluster, 'no-cluster' flag is set.} {r eval "#!lua flags=no-cluster\nreturn 1" 0}
    }

    test {MULTI/EXEC: a queued command for another node's slot aborts EXEC} {
        r multi
        assert_error "MOVED 5061 127.0.0.1:7777" {r get bar}
        assert_error {EXECABORT*} {r exec}
    }

    test {MIGRATING: a missing key is asked to the target, a present one served, both at once TRYAGAIN} {
        r set x{foo} 1
        assert_equal OK [r cluster setslot 12182 migrating $::other_id]
        assert_match "*\\\[12182->-$::other_id\\\]*" [r cluster nodes]
        assert_equal bar [r get foo]
        assert_error "ASK 12182 127.0.0.1:7777" {r get missing{foo}}
        assert_error {TRYAGAIN Multiple keys request during rehashing of slot} {r mget foo missing{foo}}
        assert_error {ERR I don't know about node nosuch} {r cluster setslot 12182 migrating nosuch}
        assert_error {ERR I'm not the owner of hash slot 100} {r cluster setslot 100 migrating $::other_id}
        assert_error "ERR Can't assign hashslot 12182 to a different node while I still hold keys for this hash slot." \
            {r cluster setslot 12182 node $::other_id}
        assert_equal OK [r cluster setslot 12182 stable]
        assert_error {ERR Invalid CLUSTER SETSLOT action or number of arguments. Try CLUSTER HELP} {r cluster setslot 12182 bogus}
    }

    test {IMPORTING: served only after ASKING (one command), or for RESTORE-ASKING} {
        assert_equal OK [r cluster setslot 5061 importing $::other_id]
        assert_error {ERR I'm already the owner of hash slot 12182} {r cluster setslot 12182 importing $::other_id}
        assert_error "MOVED 5061 127.0.0.1:7777" {r get bar}
        assert_equal OK [r asking]
        assert_equal {} [r get bar]
        assert_error "MOVED 5061 127.0.0.1:7777" {r get bar}
        assert_equal OK [r asking]
        assert_equal OK [r set bar imported]
        assert_equal 1 [r cluster countkeysinslot 5061]
        # the slot becomes ours: the epoch is bumped, as Redis does
        assert_equal OK [r cluster setslot 5061 node $myid]
        assert_equal imported [r get bar]
        assert_match "*configEpoch updated after importing slot 5061*" [log_tail 0 200]
        assert_match "*cluster_my_epoch:6*" [r cluster info]
    }

    test {A client blocked on a key whose slot moves away gets -MOVED} {
        set rd [redis_deferring_client]
        $rd blpop a 0
        wait_for_blocked_clients 1
        assert_equal OK [r cluster setslot 15495 node $::other_id]
        assert_error "MOVED 15495 127.0.0.1:7777" {$rd read}
        $rd close
        assert_equal 0 [s blocked_clients]
    }

    test {Shard channel subscribers get sunsubscribe when their slot leaves the node (SETSLOT NODE, DELSLOTS)} {
        # two channels in two of our slots that hold no keys
        set chans {}
        for {set i 0} {[llength $chans] < 2} {incr i} {
            set slot [r cluster keyslot ch$i]
            if {$slot >= 8192 && $slot != 15495 && [r cluster countkeysinslot $slot] == 0 &&
                ([llength $chans] == 0 || $slot != [lindex $chans 0 1])} { lappend chans [list ch$i $slot] }
        }
        lassign $chans one two
        lassign $one ch1 slot1
        lassign $two ch2 slot2
        set rd [redis_deferring_client]
        $rd ssubscribe $ch1
        assert_equal "ssubscribe $ch1 1" [$rd read]
        $rd ssubscribe $ch2
        assert_equal "ssubscribe $ch2 2" [$rd read]
        assert_equal OK [r cluster setslot $slot1 node $::other_id]
        assert_equal "sunsubscribe $ch1 1" [$rd read]
        assert_equal "$ch1 0" [r pubsub shardnumsub $ch1]
        assert_equal 1 [r spublish $ch2 still-here]
        assert_equal "smessage $ch2 still-here" [$rd read]
        assert_equal OK [r cluster delslots $slot2]
        assert_equal "sunsubscribe $ch2 0" [$rd read]
        assert_equal {} [r pubsub shardchannels]
        $rd ping
        assert_equal PONG [$rd read] ;# no longer in subscribed mode
        $rd close
        assert_equal OK [r cluster addslots $slot2]
        assert_equal OK [r cluster setslot $slot1 node [r cluster myid]]
    }

    test {READONLY/READWRITE/ASKING answer OK; FORGET and REPLICAS of a known node} {
        assert_equal OK [r readonly]
        assert_equal OK [r readwrite]
        assert_equal {} [r cluster replicas $::other_id]
        assert_error {ERR Unknown node nosuch} {r cluster replicas nosuch}
        assert_error {ERR To set a master the node must be empty and without assigned slots.} {r cluster replicate $::other_id}
        assert_equal OK [r cluster forget $::other_id]
        assert_match "*cluster_known_nodes:1*" [r cluster info]
        assert_error {CLUSTERDOWN *} {r get zz}
    }

    test {CLUSTER MEET: bad addresses refused as Redis; a good one is a handshake node} {
        assert_error {ERR Invalid node address specified: nosuch.invalid:7000} {r cluster meet nosuch.invalid 7000}
        assert_error {ERR Invalid TCP base port specified: x} {r cluster meet 127.0.0.1 x}
        assert_error {ERR Invalid TCP bus port specified: y} {r cluster meet 127.0.0.1 7000 y}
        assert_equal OK [r cluster meet 127.0.0.1 1]
        assert_match "* 127.0.0.1:1@10001 handshake *" [r cluster nodes]
    }
}

start_server [list overrides [cluster_overrides]] {
    test {A corrupt nodes.conf refuses start-up, naming the file} {
        shutdown_server
        write_text [nodes_conf] "this is not a node line\n"
        assert {[server_exit_status] != 0}
        assert_match "*Unrecoverable error: corrupted cluster config file*" [log_tail 0 20]
        # Redis's line ends there; ours also names the file and the fault
        if {[ours]} { assert_match "*corrupted cluster config file \"nodes.conf\" (a node line has fewer*" [log_tail 0 20] }
        write_text [nodes_conf] "0123 127.0.0.1:1@2 master - 0 0 0 connected\n"
        assert {[server_exit_status] != 0}
        write_text [nodes_conf] "$::other_id 127.0.0.1:1@2 master - 0 0 0 connected 0-99999\n"
        assert {[server_exit_status] != 0}
        # no node flagged myself
        write_text [nodes_conf] "$::other_id 127.0.0.1:1@2 master - 0 0 0 connected\n"
        assert {[server_exit_status] != 0}
        file delete [nodes_conf]
        restart_server
    }

    test {An unwritable nodes.conf refuses start-up, naming the file} {
        shutdown_server
        file delete [nodes_conf]
        file mkdir [nodes_conf]
        assert {[server_exit_status] != 0}
        assert_match "*nodes.conf*" [log_tail 0 5]
        file delete -force [nodes_conf]
        restart_server
        assert_equal 40 [string length [r cluster myid]]
    }

    test {BUMPEPOCH: a config epoch that is the nodes' greatest but under the current epoch is bumped} {
        # (an election elsewhere moved the current epoch on: a slot claimed
        # without consensus must take an epoch above it, or the previous
        # owner's claim, at the current epoch, wins)
        set myid [r cluster myid]
        shutdown_server
        write_text [nodes_conf] "$myid 127.0.0.1:[srv port]@[expr {[srv port] + 10000}] myself,master - 0 0 3 connected 7\nvars currentEpoch 5 lastVoteEpoch 0\n"
        restart_server
        assert_match "*cluster_current_epoch:5\r\ncluster_my_epoch:3\r\n*" [r cluster info]
        assert_equal {BUMPED 6} [r cluster bumpepoch]
        assert_equal {STILL 6} [r cluster bumpepoch]
    }
}

if {[have_reference]} {
    start_server [list overrides [cluster_overrides]] {
        test {Redis 7.0.15 reads our nodes.conf and we read its own} {
            r cluster addslotsrange 10 20
            r cluster bumpepoch
            set myid [r cluster myid]
            shutdown_server
            set ours [read_text [nodes_conf]]
            set dir [file join [srv dir] reference]
            file mkdir $dir
            set port [::harness::find_free_port]
            set cport [::harness::find_free_port]
            write_text [file join $dir nodes.conf] [string map [list ":[srv port]@" ":$port@"] $ours]
            set pid [exec $::reference_bin --port $port --bind 127.0.0.1 --dir $dir --cluster-enabled yes \
                         --cluster-port $cport --save {} --logfile [file join $dir log] &]
            wait_for_condition 100 50 {![catch {exec redis-cli -p $port ping}]} else { fail "reference did not start" }
            assert_equal $myid [exec redis-cli -p $port cluster myid]
            assert_match "$myid *myself,master - 0 0 1 connected 10-20*" [exec redis-cli -p $port cluster nodes]
            exec redis-cli -p $port cluster addslots 30
            exec redis-cli -p $port cluster saveconfig
            exec kill $pid
            wait_for_condition 100 50 {[catch {exec redis-cli -p $port ping}]} else { fail "reference did not stop" }
            write_text [nodes_conf] [read_text [file join $dir nodes.conf]]
            restart_server
            assert_equal $myid [r cluster myid]
            assert_match "$myid *myself,master - 0 0 1 connected 10-20 30\n" [r cluster nodes]
        }
    }
}

# ---- a replica in the cluster: CLUSTER REPLICATE starts replication -----------------


# Levels: 0 the primary (all slots), -1 our replica-to-be. Both learn the
# other from nodes.conf (there is no bus to introduce them).
proc replica_pair_tests {primary_kind} {
    set a [r cluster myid]
    set b [r -1 cluster myid]
    set pa [srv 0 port]
    set pb [srv -1 port]
    set line_a "$a 127.0.0.1:$pa@[expr {$pa + 10000}]"
    set line_b "$b 127.0.0.1:$pb@[expr {$pb + 10000}]"
    shutdown_server 0
    shutdown_server -1
    file delete [file join [srv -1 dir] dump.rdb]
    write_text [nodes_conf 0] "$line_a myself,master - 0 0 1 connected 0-16383\n$line_b master - 0 0 0 connected\nvars currentEpoch 1 lastVoteEpoch 0\n"
    write_text [nodes_conf -1] "$line_a master - 0 0 1 connected 0-16383\n$line_b myself,master - 0 0 0 connected\nvars currentEpoch 1 lastVoteEpoch 0\n"
    restart_server 0
    restart_server -1

    test "CLUSTER REPLICATE of $primary_kind: the replica syncs, READONLY reads, writes and plain reads MOVED" {
        wait_cluster_ok 0
        r set foo bar
        assert_error {ERR REPLICAOF not allowed in cluster mode.} {r -1 replicaof 127.0.0.1 $pa}
        assert_equal OK [r -1 cluster replicate $a]
        wait_for_condition 100 100 {[string match *master_link_status:up* [r -1 info replication]]} else {
            fail "the replica never synced: [r -1 info replication]"
        }
        assert_match "*$b 127.0.0.1:$pb@* myself,slave $a 0 * 1 connected*" [r -1 cluster nodes]
        assert_match "$b *slave $a *" [lindex [r -1 cluster replicas $a] 0]
        assert_error "MOVED 12182 127.0.0.1:$pa" {r -1 get foo}
        assert_equal OK [r -1 readonly]
        wait_for_condition 100 50 {[r -1 get foo] eq "bar"} else { fail "foo never reached the replica" }
        assert_equal 1 [r -1 cluster countkeysinslot 12182]
        assert_error "MOVED 12182 127.0.0.1:$pa" {r -1 set foo x}
        # a script's declared flags count, as Redis 7.0's: one that may
        # write goes to the primary, a no-writes one reads here (Redis's
        # cluster suite, 16-transactions-on-replica)
        assert_error "MOVED 12182 127.0.0.1:$pa" {r -1 eval "#!lua\nreturn redis.call('del', KEYS\[1\])" 1 foo}
        assert_equal bar [r -1 eval "#!lua flags=no-writes\nreturn redis.call('get', KEYS\[1\])" 1 foo]
        assert_equal OK [r -1 readwrite]
        assert_error "MOVED 12182 127.0.0.1:$pa" {r -1 get foo}
        assert_error {ERR Can't forget my master!} {r -1 cluster forget $a}
        # a replica's RESET makes it an empty primary again
        assert_equal OK [r -1 cluster reset]
        assert_match "*role:master*" [r -1 info replication]
        assert_equal 0 [r -1 dbsize]
        assert_match "$b * myself,master - 0 * 0 connected\n" [r -1 cluster nodes]
    }
}

start_server [list overrides [cluster_overrides]] {
    start_server [list overrides [cluster_overrides]] {
        replica_pair_tests "our primary"
    }
    if {[have_reference] && [ours]} {
        start_reference_server [list cluster-enabled yes cluster-node-timeout 3000 repl-diskless-sync-delay 0] {
            replica_pair_tests "a Redis 7.0.15 primary"
        }
    }
}
