# The cluster bus over TLS (tls-cluster yes, src/cluster_bus.c on tls.c's
# connections): nodes that meet and agree with every bus link encrypted;
# what a client is told about ports (a node is known by its TLS port, and a
# plain client gets the plain one: CLUSTER NODES, SLOTS, REPLICAS, SHARDS,
# -MOVED); nodes.conf keeps the TLS port; a bus peer without a certificate
# our CA signed, or speaking plaintext, is refused and logged while the
# cluster stays ok; MIGRATE over TLS driven by our redis-cli --tls --cluster
# reshard, keys intact; a replica (tls-replication) elected when its
# primary stops, the old primary following it; and a mixed cluster with
# Debian's Redis 7.0.15 over a TLS bus, slots and keys moved both ways.
#
# Skipped, with the reason printed: a build without TLS (the cross and
# static ports have no OpenSSL for their target), no openssl command, no
# redis-cli next to the server, external mode. The Redis part skips without
# /usr/bin/redis-server. Validated against Debian's Redis 7.0.15 with
# --server /usr/bin/redis-server.

set ::reference_bin /usr/bin/redis-server
set ::ct_cli [file join [file dirname $::harness::opt(server)] redis-cli]
set ::ct_dir [file join $::harness::opt(run_dir) cluster-tls-[pid]]

source [file join $::harness_dir cluster.tcl] ;# cluster_node_overrides, cluster_poll, cluster_states_ok

proc ct_why_not {} {
    if {[::harness::external]} { return "external mode: TLS nodes are started with their certificates" }
    if {![server_built_with_tls]} { return "this build has no TLS (make BUILD_TLS=yes, which needs libssl-dev)" }
    if {[auto_execok openssl] eq ""} { return "no openssl command to make certificates with (Debian: openssl)" }
    if {![file executable $::ct_cli]} { return "no redis-cli next to the server" }
    return ""
}

set ::ct_skip [ct_why_not]
if {$::ct_skip ne ""} {
    test "cluster bus over TLS" { skip $::ct_skip }
    return
}
file mkdir $::ct_dir
exec [file join [pwd] tests helpers gen-certs.sh] $::ct_dir

proc ct_cert {name} { file join $::ct_dir $name }

proc ct_tls_overrides {} {
    list tls-port [::harness::find_free_port] tls-cluster yes tls-replication yes \
        tls-cert-file [ct_cert server.crt] tls-key-file [ct_cert server.key] tls-ca-cert-file [ct_cert ca.crt]
}

proc ct_overrides {} { concat [cluster_node_overrides] [ct_tls_overrides] loglevel verbose }

proc ct_tls_port {level} { lindex [r $level config get tls-port] 1 }

# Runs a program bounded by timeout(1): {status output}.
proc ct_run {args} {
    set limit [expr {int(120 * [::harness::factor])}]
    if {[auto_execok timeout] ne ""} { set args [list timeout $limit {*}$args] }
    set ::env(TERM) dumb
    set status [catch {exec {*}$args < /dev/null 2>@1} out]
    return [list $status $out]
}

# Our redis-cli (or Debian's: -prog ref) over TLS with the client certificate.
proc ct_cli {args} {
    set prog [list {*}$::harness::opt(wrapper) $::ct_cli]
    if {[lindex $args 0] eq "-prog"} {
        set args [lrange $args 2 end]
        set prog /usr/bin/redis-cli
    }
    ct_run {*}$prog --tls --cacert [ct_cert ca.crt] --cert [ct_cert client.crt] --key [ct_cert client.key] {*}$args
}

# stdout of a TLS redis-cli command that must succeed.
proc ct_cli_ok {args} {
    lassign [ct_cli {*}$args] status out
    if {$status != 0} { fail "redis-cli --tls $args: exit $status: $out" }
    return [string trim $out]
}

# Polls --cluster check (our tool or Debian's: ref) through the TLS port
# until it is clean: nodes agree, every slot covered, none open.
proc ct_wait_check {prog port} {
    set opts [expr {$prog eq "ref" ? {-prog ref} : {}}]
    set ok [cluster_poll {[lindex [set res [ct_cli {*}$opts --cluster check 127.0.0.1:$port]] 0] == 0 &&
                          [string match {*\[OK\] All nodes agree about slots configuration.*\[OK\] All 16384 slots covered.*} [lindex $res 1]]} 100]
    if {!$ok} { fail "--cluster check through $port: [lindex $res 1]" }
}

# CLUSTER NODES's "ip:port@cport" of node id, as text.
proc ct_addr_in {nodes id} {
    foreach line [split [string trim $nodes] "\n"] {
        if {[lindex $line 0] eq $id} { return [lindex [split [lindex $line 1] ,] 0] }
    }
    return {}
}

# Meets every level with the first over the TLS bus (its TLS port, its cluster-port).
proc ct_meet {levels} {
    set first [lindex $levels 0]
    foreach l [lrange $levels 1 end] {
        assert_equal OK [r $l cluster meet 127.0.0.1 [ct_tls_port $first] [cluster_bus_port $first]]
    }
}

proc ct_known_by_all {levels} {
    foreach l $levels {
        if {[llength [split [string trim [r $l cluster nodes]] "\n"]] != [llength $levels]} { return 0 }
        if {[string match *handshake* [r $l cluster nodes]] || [string match *disconnected* [r $l cluster nodes]]} { return 0 }
    }
    return 1
}

# n hash tags whose slots are below limit (their keys move with a reshard of the lowest slots).
proc ct_low_tags {level n limit} {
    set tags {}
    for {set i 0} {[llength $tags] < $n && $i < 100000} {incr i} {
        if {[r $level cluster keyslot "{t$i}"] < $limit} { lappend tags "{t$i}" }
    }
    return $tags
}

start_server [list overrides [ct_overrides]] {
start_server [list overrides [ct_overrides]] {
start_server [list overrides [ct_overrides]] {
start_server [list overrides [ct_overrides]] {
    set levels {0 -1 -2}
    set all {0 -1 -2 -3}

    test {TLS cluster: nodes meet and agree with every bus link over TLS} {
        ct_meet $all
        assert_equal OK [r 0 cluster addslotsrange 0 5460]
        assert_equal OK [r -1 cluster addslotsrange 5461 10922]
        assert_equal OK [r -2 cluster addslotsrange 10923 16383]
        wait_for_condition 200 100 {[ct_known_by_all $all] && [cluster_states_ok $all]} else {
            fail "no agreement over the TLS bus: [r 0 cluster nodes]"
        }
        # a link both ways with each peer
        assert_equal 6 [llength [r 0 cluster links]]
        assert_equal 0 [llength [lsearch -all [split [::harness::read_file [srv 0 stdout]] "\n"] "*Error accepting cluster node*"]]
    }

    test {TLS cluster: a plain client is told plain ports, a TLS client TLS ports (NODES, SLOTS, REPLICAS, MOVED)} {
        set id1 [r -1 cluster myid]
        set plain [srv -1 port]
        set tls [ct_tls_port -1]
        set cport [cluster_bus_port -1]
        assert_equal "127.0.0.1:$plain@$cport" [ct_addr_in [r 0 cluster nodes] $id1]
        assert_equal "127.0.0.1:$tls@$cport" [ct_addr_in [ct_cli_ok -p [ct_tls_port 0] cluster nodes] $id1]
        # CLUSTER SLOTS: the range 5461-10922 is node -1's
        foreach range [r 0 cluster slots] {
            if {[lindex $range 0] == 5461} { assert_equal $plain [lindex $range 2 1] }
        }
        assert_match "*5461\n10922\n127.0.0.1\n$tls\n$id1*" [ct_cli_ok -p [ct_tls_port 0] cluster slots]
        # -MOVED: key "b" is in slot 3300 (node 0), "a" in 15495 (node -2)
        assert_error "MOVED 15495 127.0.0.1:[srv -2 port]" {r 0 get a}
        assert_equal "MOVED 15495 127.0.0.1:[ct_tls_port -2]" [ct_cli_ok -p [ct_tls_port 0] get a]
        # a replica: node -3 follows node -1 (its link to the primary is TLS: tls-replication)
        assert_equal OK [r -3 cluster replicate $id1]
        wait_for_condition 200 100 {[string match *master_link_status:up* [r -3 info replication]] &&
                                    [llength [r 0 cluster replicas $id1]] == 1} else {
            fail "no TLS replica: [r -3 info replication]"
        }
        set rid [r -3 cluster myid]
        assert_match "$rid 127.0.0.1:[srv -3 port]@*" [lindex [r 0 cluster replicas $id1] 0]
        assert_match "$rid 127.0.0.1:[ct_tls_port -3]@*" [ct_cli_ok -p [ct_tls_port 0] cluster replicas $id1]
        assert_match "*master_host:127.0.0.1*master_port:$tls*" [r -3 info replication]
    }

    test {TLS cluster: CLUSTER SHARDS gives each node's port and tls-port} {
        set found 0
        foreach shard [r 0 cluster shards] {
            foreach node [dict get $shard nodes] {
                if {[dict get $node id] ne [r -1 cluster myid]} continue
                assert_equal [srv -1 port] [dict get $node port]
                assert_equal [ct_tls_port -1] [dict get $node tls-port]
                incr found
            }
        }
        assert_equal 1 $found
    }

    test {TLS cluster: nodes.conf keeps the TLS port} {
        set file [file join [srv 0 dir] [lindex [r 0 config get cluster-config-file] 1]]
        wait_for_condition 50 100 {[string match "*127.0.0.1:[ct_tls_port -1]@*" [::harness::read_file $file]]} else {
            fail "nodes.conf: [::harness::read_file $file]"
        }
        assert_no_match "*127.0.0.1:[srv -1 port]@*" [::harness::read_file $file]
    }

    test {TLS cluster: a bus peer without a certificate, with another CA's, or in plaintext is refused; the cluster stays ok} {
        set cport [cluster_bus_port 0]
        set from [log_line_count]
        ct_run openssl s_client -connect 127.0.0.1:$cport -CAfile [ct_cert ca.crt]
        wait_for_log "*Error accepting cluster node connection*certificate*" -from $from
        set from [log_line_count]
        ct_run openssl s_client -connect 127.0.0.1:$cport -CAfile [ct_cert ca.crt] \
            -cert [ct_cert other.crt] -key [ct_cert other.key]
        wait_for_log "*Error accepting cluster node connection*" -from $from
        # a plaintext PING header's first bytes
        set from [log_line_count]
        set s [socket 127.0.0.1 $cport]
        fconfigure $s -translation binary
        puts -nonewline $s "RCmb\x00\x00\x08\x00\x00\x01\x00\x00[string repeat \x00 64]"
        flush $s
        fconfigure $s -blocking 1
        catch {read $s}
        close $s
        wait_for_log "*Error accepting cluster node connection*" -from $from
        # a certified peer completes the handshake (a node would)
        lassign [ct_run openssl s_client -connect 127.0.0.1:$cport -CAfile [ct_cert ca.crt] \
                     -cert [ct_cert client.crt] -key [ct_cert client.key]] status out
        assert_match "*Verify return code: 0 (ok)*" $out
        assert_equal PONG [r 0 ping]
        assert_equal 1 [cluster_states_ok $all]
    }

    test {TLS cluster: redis-cli --tls --cluster reshard moves slots with their keys (MIGRATE over TLS)} {
        set tags [ct_low_tags 0 20 500]
        assert_equal 20 [llength $tags]
        foreach t $tags {
            for {set i 0} {$i < 10} {incr i} { r 0 set "$t:$i" "v$t$i" }
        }
        assert_equal 200 [r 0 dbsize]
        set from [r 0 cluster myid]
        set to [r -2 cluster myid]
        set out [ct_cli_ok --cluster reshard 127.0.0.1:[ct_tls_port 0] --cluster-from $from --cluster-to $to \
                     --cluster-slots 500 --cluster-yes]
        assert_match "*Moving slot 499 from 127.0.0.1:[ct_tls_port 0] to 127.0.0.1:[ct_tls_port -2]*" $out
        assert_equal 0 [r 0 dbsize]
        assert_equal 200 [r -2 dbsize]
        # a node that took no part learns the new owners by gossip
        ct_wait_check ours [ct_tls_port -1]
        foreach t [lrange $tags 0 4] {
            assert_equal "v${t}3" [ct_cli_ok -c -p [ct_tls_port -1] get "$t:3"]
        }
        # and back, with MIGRATE's keys-at-once form (--cluster-pipeline)
        set out [ct_cli_ok --cluster reshard 127.0.0.1:[ct_tls_port -2] --cluster-from $to --cluster-to $from \
                     --cluster-slots 500 --cluster-yes --cluster-pipeline 7]
        assert_equal 200 [r 0 dbsize]
        assert_equal "v[lindex $tags 7]9" [r 0 get "[lindex $tags 7]:9"]
    }

    test {TLS cluster: MIGRATE to a peer that does not speak TLS fails with -IOERR, the key stays, the node serves on} {
        set tags [ct_low_tags 0 1 500]
        set key "[lindex $tags 0]:bad"
        r 0 set $key v
        # a plain port (the handshake gets RESP back), a closed port, a port that only swallows bytes
        set sink [socket -server {apply {{ch addr port} {
            fconfigure $ch -blocking 0
            fileevent $ch readable [list apply {{ch} {read $ch; if {[eof $ch]} { close $ch }}} $ch]
        }}} 0]
        set sink_port [lindex [fconfigure $sink -sockname] 2]
        foreach port [list [srv -1 port] [::harness::find_free_port] $sink_port] {
            catch {r 0 migrate 127.0.0.1 $port $key 0 500} err
            assert_match "*IOERR*" $err
            assert_equal v [r 0 get $key]
        }
        close $sink
        r 0 del $key
        assert_equal PONG [r 0 ping]
    }

    test {TLS cluster: a TLS replica is elected when its primary stops; the old primary follows it} {
        set pid [srv -1 pid]
        set rid [r -3 cluster myid]
        exec kill -STOP $pid
        set ok [cluster_poll {[string match "*$rid *master*" [r 0 cluster nodes]] &&
                              [string match *myself,master* [r -3 cluster nodes]] && [cluster_states_ok {0 -2 -3}]} 400]
        exec kill -CONT $pid
        if {!$ok} { fail "no election over the TLS bus: [r 0 cluster nodes]" }
        wait_for_condition 300 100 {[string match "*myself,slave $rid *" [r -1 cluster nodes]] &&
                                    [string match *master_link_status:up* [r -1 info replication]] &&
                                    [cluster_states_ok $all]} else {
            fail "the old primary did not follow over TLS: [r -1 cluster nodes]"
        }
        assert_match "*master_port:[ct_tls_port -3]*" [r -1 info replication]
    }
}
}
}
}

# ---- the bus port without cluster-port ------------------------------------------------------

# A free port whose +10000 is free too (the default bus port).
proc ct_port_pair {} {
    for {set i 0} {$i < 200} {incr i} {
        set p [::harness::find_free_port]
        if {$p + 10000 < 65536 && [::harness::port_is_free [expr {$p + 10000}]]} { return $p }
    }
    error "no free port pair"
}

test {TLS cluster: without cluster-port the bus listens on port+10000; tls-cluster set later, the node's TLS port is announced with that bus port} {
    # Redis 7.0 announces tls-port+10000 there, where nothing listens
    if {![ours]} { skip "Redis 7.0 announces a bus port nothing listens on here" }
    set dir [::harness::fresh_run_dir cluster-tls-busport]
    set port [ct_port_pair]
    set tls_port [::harness::find_free_port]
    set pid [exec {*}[server_command --port $port --bind 127.0.0.1 --dir $dir --logfile [file join $dir log] \
                          --cluster-enabled yes --tls-port $tls_port --tls-cert-file [ct_cert server.crt] \
                          --tls-key-file [ct_cert server.key] --tls-ca-cert-file [ct_cert ca.crt]] < /dev/null &]
    ::harness::registry_add $pid $::harness::opt(server) $dir $port
    set c {}
    wait_for_condition 200 50 {![catch {::resp::connect 127.0.0.1 $port} c] && ![catch {$c ping}]} else {
        ::harness::terminate_pid $pid 5000
        fail "the node did not start: [::harness::read_file [file join $dir log]]"
    }
    set cport [expr {$port + 10000}]
    try {
        # (a lone node's ip is empty until a peer tells it)
        assert_match "* :$port@$cport myself,*" " [$c cluster nodes]"
        # as Redis 7.0: tls-cluster alone does not change what the node announces...
        assert_equal OK [$c config set tls-cluster yes]
        assert_match "* :$port@$cport myself,*" " [ct_cli_ok -p $tls_port cluster nodes]"
        # ... a cluster-announce-* directive changed does: known by its TLS port, the
        # bus where it listens (the announced TLS port comes with the announced
        # plain port, none here, so a plain client is told the TLS one too, as Redis)
        assert_equal OK [$c config set cluster-announce-tls-port $tls_port]
        assert_match "* :$tls_port@$cport myself,*" " [ct_cli_ok -p $tls_port cluster nodes]"
        assert_match "* :$tls_port@$cport myself,*" " [$c cluster nodes]"
    } finally {
        catch {$c close}
        ::harness::terminate_pid $pid 5000
        ::harness::registry_remove $pid
    }
}

# ---- mixed: Debian's Redis 7.0.15 on the same TLS bus ------------------------------------

if {![file executable $::reference_bin]} {
    test {TLS cluster with Redis 7.0.15} { skip "$::reference_bin not installed: no Redis node to mix with" }
} elseif {![ours]} {
    test {TLS cluster with Redis 7.0.15} { skip "the server under test is Redis itself" }
} else {
    start_reference_server [concat cluster-enabled yes cluster-node-timeout [cluster_node_timeout] \
                                cluster-port [::harness::find_free_port] [ct_tls_overrides]] {
    start_server [list overrides [ct_overrides]] {
        test {TLS cluster with Redis 7.0.15: both kinds meet over TLS and agree; each sees the other's plain and TLS ports} {
            ct_meet {0 -1}
            assert_equal OK [r 0 cluster addslotsrange 0 16383]
            wait_for_condition 200 100 {[ct_known_by_all {0 -1}] && [cluster_states_ok {0 -1}]} else {
                fail "no agreement with Redis over TLS: [r -1 cluster nodes]"
            }
            set ours_id [r 0 cluster myid]
            set redis_id [r -1 cluster myid]
            set cport0 [cluster_bus_port 0]
            assert_equal "127.0.0.1:[srv 0 port]@$cport0" [ct_addr_in [r -1 cluster nodes] $ours_id]
            assert_equal "127.0.0.1:[ct_tls_port 0]@$cport0" \
                [ct_addr_in [ct_cli_ok -prog ref -p [ct_tls_port -1] cluster nodes] $ours_id]
            set cport1 [cluster_bus_port -1]
            assert_equal "127.0.0.1:[srv -1 port]@$cport1" [ct_addr_in [r 0 cluster nodes] $redis_id]
            assert_equal "127.0.0.1:[ct_tls_port -1]@$cport1" [ct_addr_in [ct_cli_ok -p [ct_tls_port 0] cluster nodes] $redis_id]
        }

        test {TLS cluster with Redis 7.0.15: slots and keys move both ways over TLS (our MIGRATE to Redis, Redis's to ours)} {
            set tags [ct_low_tags 0 10 300]
            foreach t $tags {
                for {set i 0} {$i < 10} {incr i} { r 0 set "$t:$i" "v$t$i" }
            }
            set ours_id [r 0 cluster myid]
            set redis_id [r -1 cluster myid]
            ct_cli_ok --cluster reshard 127.0.0.1:[ct_tls_port 0] --cluster-from $ours_id --cluster-to $redis_id \
                --cluster-slots 300 --cluster-yes
            assert_equal 100 [r -1 dbsize]
            assert_equal "v[lindex $tags 2]5" [ct_cli_ok -c -p [ct_tls_port 0] get "[lindex $tags 2]:5"]
            ct_cli_ok -prog ref --cluster reshard 127.0.0.1:[ct_tls_port -1] --cluster-from $redis_id --cluster-to $ours_id \
                --cluster-slots 300 --cluster-yes
            assert_equal 0 [r -1 dbsize]
            assert_equal 100 [r 0 dbsize]
            ct_wait_check ref [ct_tls_port -1]
        }
    }
    }
}
