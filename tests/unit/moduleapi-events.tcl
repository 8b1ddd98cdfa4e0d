# moduleapi-events.tcl -- the Persistence, ReplicationRoleChanged,
# MasterLinkChange, ReplicaChange, SwapDB, Config and LoadingProgress server events
# (src/module_events.c and their fire points in rdb.c, aof_rewrite.c,
# replication.c, replica.c, keyspace.c, config.c), through
# tests/modules/mrepl.c. Every expectation holds for Debian's Redis 7.0.15
# loading the same .so: run the file with --server /usr/bin/redis-server.

source [file join $::harness_dir modules.tcl] ;# module_skip_reason, need_modules

proc mrepl_path {} { return [file join $::module_dir mrepl.so] }

start_server {tags {module} overrides {enable-module-command yes}} {
    test "Persistence: SAVE in the server's process is SYNC_RDB_START then ENDED; a BGSAVE child's are RDB_START, ENDED in the child" {
        need_modules
        assert_equal OK [r module load [mrepl_path]]
        r set k v
        r save
        assert_equal {{persistence 2} {persistence 3}} [r mrepl.get]
        set from [log_line_count]
        r bgsave
        wait_for_condition 100 100 {[s rdb_bgsave_in_progress] == 0} else { fail "BGSAVE did not end" }
        wait_for_log "*mrepl: persistence 0*" -from $from
        wait_for_log "*mrepl: persistence 3*" -from $from
        assert_equal {} [r mrepl.get] ;# the child's, not the server's
    }

    test "Persistence: a BGREWRITEAOF child's events are AOF_START then ENDED" {
        need_modules
        set from [log_line_count]
        r bgrewriteaof
        wait_for_condition 100 100 {[s aof_rewrite_in_progress] == 0} else { fail "the rewrite did not end" }
        wait_for_log "*mrepl: persistence 1*" -from $from
        wait_for_log "*mrepl: persistence 3*" -from $from
    }

    test "SwapDB and Config events: the databases, and the changed directives' names" {
        need_modules
        r mrepl.get
        r swapdb 0 1
        r swapdb 1 0
        r config set maxmemory-samples 6 hz 11
        assert_equal {{swapdb 0 1} {swapdb 1 0} {config 2 maxmemory-samples hz}} [r mrepl.get]
        catch {r config set hz notanumber}
        assert_equal {} [r mrepl.get] ;# a refused CONFIG SET changes nothing
        r config set hz 10
    }
}

start_server {tags {module} overrides {enable-module-command yes appendonly yes aof-use-rdb-preamble yes}} {
    test "LoadingProgress: RDB events for an AOF's preamble, AOF events for its tail, at most hz a second" {
        need_modules
        assert_equal OK [r module load [mrepl_path]]
        r debug populate 1000 pre 10000 ;# 10 MB: Redis looks at its progress every 2 MB of an RDB
        r config set rdbcompression no
        r bgrewriteaof
        wait_for_condition 100 100 {[s aof_rewrite_in_progress] == 0 && [s aof_rewrite_scheduled] == 0} else {
            fail "the rewrite did not end"
        }
        for {set j 0} {$j < 4000} {incr j} { r set tail$j x } ;# Redis looks every 1000 commands of an AOF
        r config set key-load-delay 500
        r config set dynamic-hz no
        r config set hz 500
        assert_equal OK [r debug loadaof]
        r config set key-load-delay 0
        r config set hz 10
        r config set dynamic-hz yes
        lassign [r mrepl.progress] rdb aof last
        assert_morethan $rdb 2
        assert_morethan $aof 2
        assert_range $last 0 1024
    }
}

start_server {tags {module repl} overrides {enable-module-command yes}} {
    start_server {overrides {enable-module-command yes}} {
        test "Replication events: the replica's role and link, the primary's replica online and offline" {
            need_modules
            r -1 module load [mrepl_path]
            r module load [mrepl_path]
            set host [srv -1 host]
            set port [srv -1 port]
            r replicaof $host $port
            wait_for_condition 100 100 {[string match "*master_link_status:up*" [r info replication]]} else {
                fail "the replica did not connect"
            }
            wait_for_condition 100 50 {[lsearch [set p [r -1 mrepl.get]] "replica online"] >= 0} else {
                fail "the primary heard: $p"
            }
            set heard [r mrepl.get]
            assert_equal "role replica $host $port master=0" [lindex $heard 0]
            assert_equal "masterlink up" [lindex $heard end]
            r replicaof no one
            assert_equal [list "masterlink down" "role master  $port master=1"] [lrange [r mrepl.get] end-1 end]
            wait_for_condition 100 50 {[lsearch [set p [r -1 mrepl.get]] "replica offline"] >= 0} else {
                fail "the primary heard: $p"
            }
        }
    }
}
