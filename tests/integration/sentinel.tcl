# Debian's redis-sentinel 7.0.15 monitoring our servers: a primary and two
# replicas, three sentinels (quorum 2, short timeouts). The primary is killed
# with SIGKILL while a client writes with WAIT 1; a replica is promoted, the
# other follows it, and no write acknowledged by WAIT is missing.

set ::sentinel_bin /usr/bin/redis-sentinel
set ::cli_bin [file normalize src/redis-cli]

proc sentinel_cli {port args} { exec $::cli_bin -p $port {*}$args }

proc start_sentinels {primary_port} {
    set ::sentinels {}
    for {set i 0} {$i < 3} {incr i} {
        set port [::harness::find_free_port]
        set dir [file join [srv 0 dir] sentinel-$i]
        file mkdir $dir
        set fd [open [file join $dir sentinel.conf] w]
        puts $fd "port $port\nbind 127.0.0.1\ndir [list $dir]\nlogfile [list [file join $dir log]]"
        puts $fd "sentinel monitor mymaster 127.0.0.1 $primary_port 2"
        puts $fd "sentinel down-after-milliseconds mymaster 1000"
        puts $fd "sentinel failover-timeout mymaster 10000"
        puts $fd "sentinel parallel-syncs mymaster 1"
        close $fd
        set pid [exec $::sentinel_bin [file join $dir sentinel.conf] > /dev/null 2>@1 &]
        lappend ::sentinels [list $pid $port $dir]
    }
}

proc stop_sentinels {} {
    foreach s $::sentinels { catch {exec kill [lindex $s 0]} }
    set ::sentinels {}
}

# A command on a fresh connection: Sentinel kills the normal clients of a
# server it reconfigures (CLIENT KILL TYPE normal), the harness's included.
proc fresh {level args} {
    set c [redis_client $level]
    set code [catch {$c {*}$args} res]
    catch {$c close}
    if {$code} { error $res }
    return $res
}

proc link_up {level} { string match *master_link_status:up* [fresh $level info replication] }

proc first_sentinel_port {} { lindex [lindex $::sentinels 0] 1 }

proc sentinel_primary_port {} {
    if {[catch {sentinel_cli [first_sentinel_port] sentinel get-master-addr-by-name mymaster} out]} { return "" }
    lindex [split $out \n] 1
}

proc sentinel_master_field {field} {
    if {[catch {sentinel_cli [first_sentinel_port] sentinel master mymaster} out]} { return "" }
    set reply [split $out \n]
    set j [lsearch -exact $reply $field]
    if {$j < 0} { return "" }
    lindex $reply [expr {$j + 1}]
}

tags {sentinel external:skip} {

if {![file executable $::sentinel_bin]} {
    test "a Sentinel failover" { skip "$::sentinel_bin is not installed" }
} else {

start_server {overrides {repl-diskless-sync-delay 0 repl-ping-replica-period 1}} {
    start_server {overrides {repl-diskless-sync-delay 0}} {
        start_server {overrides {repl-diskless-sync-delay 0}} {
            test "three sentinels fail over from a killed primary; no WAIT-acknowledged write is lost" {
                set primary_port [srv -2 port]
                r -1 replicaof 127.0.0.1 $primary_port
                r 0 replicaof 127.0.0.1 $primary_port
                wait_for_condition 100 100 {[s -2 connected_slaves] == 2} else { fail "replicas not attached" }
                start_sentinels $primary_port
                if {[catch {
                    wait_for_condition 150 100 {
                        [sentinel_master_field num-slaves] == 2 && [sentinel_master_field num-other-sentinels] == 2
                    } else { fail "sentinels never saw the replicas and each other" }

                    set acked {}
                    set writer [redis_client -2]
                    for {set i 0} {$i < 400} {incr i} {
                        if {$i == 200} { exec kill -9 [srv -2 pid] } ;# mid-stream: the next writes fail
                        if {[catch {$writer set key:$i $i; $writer wait 1 1000} n]} break
                        if {$n >= 1} { lappend acked $i }
                    }
                    catch {$writer close}
                    assert_morethan [llength $acked] 0

                    wait_for_condition 300 100 {
                        [sentinel_primary_port] ni [list $primary_port ""]
                    } else { fail "no failover" }
                    set new_port [sentinel_primary_port]
                    if {$new_port == [srv -1 port]} {
                        set new -1; set other 0
                    } else {
                        set new 0; set other -1
                    }
                    assert_equal $new_port [srv $new port]
                    wait_for_condition 100 100 {[lindex [fresh $new role] 0] eq "master"} else { fail "not promoted" }
                    foreach i $acked { assert_equal $i [fresh $new get key:$i] "acknowledged write key:$i lost" }
                    wait_for_condition 300 100 {
                        [lindex [fresh $other role] 2] == $new_port && [link_up $other]
                    } else { fail "the other replica does not follow the new primary: [fresh $other role]" }
                    fresh $new set after-failover yes
                    wait_for_condition 50 100 {[fresh $other get after-failover] eq "yes"} else { fail "no stream" }
                } err opts]} {
                    stop_sentinels
                    return -options $opts $err
                }
                stop_sentinels
                restart_server -2 -kill
            }
        }
    }
}

}
}
