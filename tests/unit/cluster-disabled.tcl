# cluster-disabled.tcl -- CLUSTER, READONLY, READWRITE and ASKING on a
# server without cluster mode (src/cluster.c): every one of them answers
# "ERR This instance has cluster support disabled", as a Redis 7.0 started
# with cluster-enabled no does, after the usual checks of the dispatcher
# (arity, unknown subcommand, noscript, ACL). Their COMMAND INFO is compared
# with Redis's by utils/compare-command-info.sh; here only their presence and
# the flags that change behaviour are checked.
#
# Runs unchanged against the reference server (--host/--port).

set ::cluster_disabled_error "ERR This instance has cluster support disabled"

# Each subcommand of Redis 7.0 with a line of arguments its arity accepts.
set ::cluster_lines {
    {addslots 1} {addslotsrange 1 2} {bumpepoch} {count-failure-reports id} {countkeysinslot 1}
    {delslots 1} {delslotsrange 1 2} {failover} {failover force} {flushslots} {forget id}
    {getkeysinslot 1 10} {help} {info} {keyslot k} {links} {meet 127.0.0.1 7000} {myid} {nodes}
    {replicas id} {replicate id} {reset} {reset hard} {saveconfig} {set-config-epoch 1}
    {setslot 1 stable} {shards} {slaves id} {slots}
}

# Each subcommand with a line of arguments its arity refuses.
set ::cluster_short_lines {
    {addslots} {addslotsrange 1} {bumpepoch x} {count-failure-reports} {countkeysinslot}
    {delslots} {delslotsrange 1} {flushslots x} {forget} {getkeysinslot 1} {help x} {info x}
    {keyslot} {keyslot a b} {links x} {meet 127.0.0.1} {myid x} {nodes x} {replicas}
    {replicate} {saveconfig x} {set-config-epoch} {setslot 1} {shards x} {slaves} {slots x}
}

start_server {tags {cluster-disabled}} {
    test "every CLUSTER subcommand answers that cluster support is disabled" {
        foreach line $::cluster_lines {
            assert_equal $::cluster_disabled_error [error_of r cluster {*}$line] $line
        }
    }

    test "CLUSTER subcommand names are case-insensitive" {
        assert_equal $::cluster_disabled_error [error_of r CLUSTER Info]
        assert_equal $::cluster_disabled_error [error_of r cluster HELP]
    }

    test "READONLY, READWRITE and ASKING answer that cluster support is disabled" {
        foreach cmd {readonly readwrite asking} {
            assert_equal $::cluster_disabled_error [error_of r $cmd] $cmd
        }
    }

    test "arity is checked before the answer, per subcommand" {
        foreach line $::cluster_short_lines {
            set name [lindex $line 0]
            assert_equal "ERR wrong number of arguments for 'cluster|$name' command" \
                [error_of r cluster {*}$line] $line
        }
        assert_equal "ERR wrong number of arguments for 'cluster' command" [error_of r cluster]
        foreach cmd {readonly readwrite asking} {
            assert_equal "ERR wrong number of arguments for '$cmd' command" [error_of r $cmd x]
        }
    }

    test "an unknown CLUSTER subcommand is refused as for any container" {
        assert_equal "ERR unknown subcommand 'nosuch'. Try CLUSTER HELP." [error_of r cluster nosuch]
    }

    test "from a script: the disabled error through redis.call and redis.pcall" {
        assert_error "ERR This instance has cluster support disabled*" {
            r eval {return redis.call('cluster', 'info')} 0
        }
        assert_equal $::cluster_disabled_error [error_of r eval {return redis.pcall('cluster', 'slots')} 0]
        assert_error "ERR This instance has cluster support disabled*" {r eval {return redis.call('readonly')} 0}
        assert_error "ERR This instance has cluster support disabled*" {r eval {return redis.call('asking')} 0}
    }

    test "from a script: CLUSTER RESET is noscript, refused before it runs" {
        assert_error "*This Redis command is not allowed from script*" {
            r eval {return redis.call('cluster', 'reset')} 0
        }
        assert_equal "ERR This Redis command is not allowed from script" \
            [error_of r eval {return redis.pcall('cluster', 'reset', 'hard')} 0]
        assert_equal "ERR Wrong number of args calling Redis command from script" \
            [error_of r eval {return redis.pcall('cluster', 'keyslot')} 0]
    }

    test "in MULTI: queued, and the disabled error in EXEC's reply" {
        r multi
        assert_equal QUEUED [r cluster info]
        assert_equal QUEUED [r readwrite]
        assert_equal QUEUED [r ping]
        catch {r exec} err opts
        set replies [lindex [dict get $opts -errorcode] 2]
        assert_equal [list $::cluster_disabled_error $::cluster_disabled_error PONG] $replies
    }

    test "in MULTI: a CLUSTER arity error aborts the transaction" {
        r multi
        assert_equal "ERR wrong number of arguments for 'cluster|keyslot' command" [error_of r cluster keyslot]
        assert_match "EXECABORT*" [error_of r exec]
    }

    test "ACL: the admin subcommands need @admin, the others do not" {
        r acl setuser cluster-probe on nopass allkeys -@all +@slow -@admin +readonly +asking
        set c [redis_client]
        $c auth cluster-probe anything
        assert_equal $::cluster_disabled_error [error_of $c cluster info]
        assert_equal $::cluster_disabled_error [error_of $c readonly]
        assert_match "NOPERM*'cluster|reset'*" [error_of $c cluster reset]
        assert_match "NOPERM*'readwrite'*" [error_of $c readwrite]
        $c close
        r acl deluser cluster-probe
    }

    test "COMMAND lists CLUSTER, its subcommands and the three top-level commands" {
        set all [r command list]
        foreach name {cluster readonly readwrite asking} {
            assert_equal 1 [expr {$name in $all}] $name
        }
        set subs [lsort [r command list filterby pattern cluster|*]]
        assert_equal 27 [llength $subs]
        foreach line $::cluster_lines {
            assert_equal 1 [expr {"cluster|[lindex $line 0]" in $subs}] $line
        }
        assert_equal {cluster|help} [r command list filterby pattern cluster|help]
        assert_equal 1 [expr {"cluster|reset" in [r command list filterby aclcat admin]}]
        assert_equal 1 [expr {"asking" in [r command list filterby aclcat connection]}]
    }

    test "COMMAND INFO: the flags that matter" {
        set subs {}
        foreach sub [lindex [r command info cluster] 0 9] {
            dict set subs [lindex $sub 0] [lindex $sub 2]
        }
        assert_equal {admin noscript stale} [dict get $subs cluster|reset]
        assert_equal {loading stale} [dict get $subs cluster|help]
        assert_equal {stale} [dict get $subs cluster|info]
        assert_equal {admin stale no_async_loading} [dict get $subs cluster|addslots]
        assert_equal {loading stale fast} [lindex [r command info readonly] 0 2]
        assert_equal {fast} [lindex [r command info asking] 0 2]
        assert_equal {@fast @connection} [lindex [r command info readwrite] 0 6]
    }

    test "COMMAND DOCS: CLUSTER is in the cluster group" {
        set docs [lindex [r command docs cluster] 1]
        assert_equal cluster [dict get $docs group]
        assert_equal 3.0.0 [dict get $docs since]
        assert_equal 7.0.0 [dict get [dict get $docs subcommands] cluster|shards since]
    }

    test "INFO cluster: cluster_enabled:0" {
        assert_match "*cluster_enabled:0*" [r info cluster]
    }
}
