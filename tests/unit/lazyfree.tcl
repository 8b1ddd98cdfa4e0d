# lazyfree.tcl -- values and databases freed by the background thread:
# UNLINK, FLUSHALL/FLUSHDB ASYNC, the lazyfree-lazy-* directives, and the
# INFO counters that show it (lazyfree_pending_objects, lazyfreed_objects).
#
# Design decisions:
# - Whether a value went to the thread is read from lazyfreed_objects after
#   lazyfree_pending_objects is back at 0: a value freed at once (cheap to
#   free, or freed synchronously) never counts.
# - Values are made costly on purpose: over 64 allocations (a hashtable
#   hash of 200 fields, a quicklist of many nodes, a stream of many nodes),
#   and cheap ones are compact encodings, so the threshold itself is tested.

proc lazy_done {} {
    wait_for_condition 100 20 {[s lazyfree_pending_objects] == 0} else {
        fail "lazy frees still pending: [s lazyfree_pending_objects]"
    }
}

proc lazy_freed {} {
    lazy_done
    return [s lazyfreed_objects]
}

proc big_hash {key {fields 1000}} {
    set args {}
    for {set i 0} {$i < $fields} {incr i} { lappend args field:$i [string repeat v 20]$i }
    r hset $key {*}$args
}

start_server {tags {lazyfree}} {
    test "UNLINK of a value costly to free: freed by the thread, memory given back" {
        r config resetstat
        assert_equal 0 [s lazyfreed_objects]
        set base [s used_memory]
        big_hash h 5000
        assert_equal hashtable [r object encoding h]
        set size [r memory usage h]
        assert_morethan $size 200000
        set before [s used_memory]
        assert_equal 1 [r unlink h]
        assert_equal 0 [r exists h]
        assert_equal 1 [lazy_freed]
        assert_lessthan [s used_memory] [expr {$before - $size / 2}] ;# MEMORY USAGE is an estimate
    }

    test "UNLINK of cheap values frees them at once (not counted)" {
        r config resetstat
        r set s [string repeat x 100000]
        big_hash small 10
        r rpush l a b c
        assert_equal 3 [r unlink s small l missing]
        assert_equal 0 [lazy_freed]
    }

    test "DEL frees at once; with lazyfree-lazy-user-del yes it is UNLINK" {
        r config resetstat
        big_hash h1
        assert_equal 1 [r del h1]
        assert_equal 0 [lazy_freed]
        r config set lazyfree-lazy-user-del yes
        big_hash h2
        assert_equal 1 [r del h2]
        assert_equal 1 [lazy_freed]
        r config set lazyfree-lazy-user-del no
    }

    test "Every type costly to free goes to the thread" {
        r config resetstat
        r config set list-max-listpack-size 4
        for {set i 0} {$i < 400} {incr i} { r rpush list $i }
        for {set i 0} {$i < 200} {incr i} { r sadd set member:$i }
        for {set i 0} {$i < 200} {incr i} { r zadd zset $i member:$i }
        big_hash hash
        assert_equal {quicklist hashtable skiplist hashtable} \
            [list [r object encoding list] [r object encoding set] [r object encoding zset] [r object encoding hash]]
        assert_equal 4 [r unlink list set zset hash]
        assert_equal 4 [lazy_freed]
        r config set list-max-listpack-size -2
    }

    test "A stream with many nodes, a group, consumers and pending entries" {
        r config resetstat
        r config set stream-node-max-entries 5
        for {set i 0} {$i < 1000} {incr i} { r xadd stream * f $i }
        r xgroup create stream g 0
        set read [r xreadgroup group g alice count 2 streams stream >]
        set first [lindex [lindex [lindex [lindex $read 0] 1] 0] 0]
        r xack stream g $first
        r xdel stream [lindex [lindex [lindex [lindex $read 0] 1] 1] 0]
        assert_equal 1 [r unlink stream]
        assert_equal 1 [lazy_freed]
        # a small one is freed at once
        r xadd small * f v
        r unlink small
        assert_equal 1 [lazy_freed]
        r config set stream-node-max-entries 100
    }

    test "FLUSHALL ASYNC: empty at once, each key counted, new writes kept" {
        r config resetstat
        r flushall
        r debug populate 3000 k 10
        r select 9
        r debug populate 500 k 10
        r select 0
        assert_equal OK [r flushall async]
        assert_equal 0 [r dbsize]
        r set after 1
        assert_equal 3500 [lazy_freed]
        assert_equal 1 [r get after]
        r select 9
        assert_equal 0 [r dbsize]
        r select 0
    }

    test "FLUSHDB ASYNC empties only the current db" {
        r config resetstat
        r flushall
        r debug populate 100 a 10
        r select 9
        r debug populate 40 b 10
        assert_equal OK [r flushdb async]
        assert_equal 0 [r dbsize]
        r select 0
        assert_equal 100 [r dbsize]
        assert_equal 40 [lazy_freed]
    }

    test "FLUSHALL SYNC, and without an option lazyfree-lazy-user-flush decides" {
        r config resetstat
        r debug populate 50 c 10
        r flushall sync
        assert_equal 0 [lazy_freed]
        r debug populate 50 c 10
        r flushall
        assert_equal 0 [lazy_freed]
        r config set lazyfree-lazy-user-flush yes
        r debug populate 50 c 10
        r flushall
        assert_equal 50 [lazy_freed]
        r debug populate 20 c 10
        r flushdb sync
        assert_equal 50 [lazy_freed]
        r config set lazyfree-lazy-user-flush no
    }

    test "FLUSHALL / FLUSHDB with a bad option: syntax error, nothing flushed" {
        r set keep 1
        assert_error "ERR syntax error" {r flushall lazy}
        assert_error "ERR syntax error" {r flushdb async sync}
        assert_equal 1 [r get keep]
    }

    test "CONFIG RESETSTAT resets lazyfreed_objects" {
        big_hash h
        r unlink h
        assert_morethan [lazy_freed] 0
        r config resetstat
        assert_equal 0 [s lazyfreed_objects]
    }

    test "lazyfree-lazy-server-del: the key RENAME overwrites is freed by the thread" {
        r config resetstat
        big_hash dst
        r set src v
        r rename src dst
        assert_equal 0 [lazy_freed]
        r config set lazyfree-lazy-server-del yes
        r del dst
        big_hash dst
        r set src v
        r rename src dst
        assert_equal 1 [lazy_freed]
        assert_equal v [r get dst]
        r config set lazyfree-lazy-server-del no
    }

    test "Many UNLINKs while other commands run: the dataset stays intact" {
        r flushall
        r config resetstat
        for {set round 0} {$round < 20} {incr round} {
            big_hash victim:$round
            r set keep:$round $round
            r unlink victim:$round
            assert_equal $round [r get keep:$round]
        }
        assert_equal 20 [lazy_freed]
        assert_equal 20 [r dbsize]
        assert_equal PONG [r ping]
    }
}

start_server {tags {lazyfree external:skip} overrides {appendonly yes appendfsync always aof-use-rdb-preamble no}} {
    test "lazyfree-lazy-expire: an expired value costly to free goes to the thread, written as UNLINK" {
        r config resetstat
        r config set lazyfree-lazy-expire yes
        r debug set-active-expire 0
        big_hash temp
        r pexpire temp 50
        after 100
        set written [aof_commands_written { assert_equal 0 [r exists temp] }]
        assert_equal {{UNLINK temp}} $written
        assert_equal 1 [lazy_freed]
        r config set lazyfree-lazy-expire no
        r set temp2 v px 50
        after 100
        set written [aof_commands_written { assert_equal 0 [r exists temp2] }]
        assert_equal {{DEL temp2}} $written
        r debug set-active-expire 1
    }

    test "lazyfree-lazy-eviction: evicted keys written as UNLINK, memory back under the limit" {
        r flushall
        r config resetstat
        r config set lazyfree-lazy-eviction yes
        for {set i 0} {$i < 10} {incr i} { big_hash ev:$i }
        set limit [expr {[s used_memory] - 60000}]
        r config set maxmemory-policy allkeys-random
        set written [aof_commands_written {
            r config set maxmemory $limit
            r set trigger 1
        }]
        set deletes [lsearch -all -inline -not -regexp $written {^(MULTI|EXEC|set|config)}]
        assert_morethan [llength $deletes] 0
        foreach cmd $deletes { assert_equal UNLINK [lindex $cmd 0] $cmd }
        # about as many keys went as without lazy freeing: a hash or two, not
        # all of them, nor one more for each command run while the thread works
        r ping
        r ping
        wait_for_condition 100 20 { [s lazyfree_pending_objects] == 0 } else { fail "lazy frees still pending" }
        assert_morethan [lazy_freed] 0
        assert_lessthan [expr {[s used_memory] - [s mem_not_counted_for_evict]}] [expr {$limit + 1}]
        assert_range [s evicted_keys] 1 3
        assert_range [r dbsize] 8 10
        r config set maxmemory 0
        r config set lazyfree-lazy-eviction no
    }
}
