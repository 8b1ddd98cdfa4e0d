# memory.tcl -- MEMORY USAGE, STATS, DOCTOR, MALLOC-STATS, PURGE and HELP:
# arity and errors, reply shapes in RESP2 and RESP3, STATS field names and
# order, and MEMORY USAGE growing with the value for every type and encoding.
#
# The encoding thresholds are set explicitly, so the same elements give the
# same encodings on this server and on Redis (whose compiled-in defaults
# differ for hashes).
#
# Tags:
#   redis7.2   small lists and small sets of strings are listpacks (Redis
#              7.2+; 7.0 uses quicklist / hashtable). Against 7.0: --tags -redis7.2
#   ourlayout  figures that follow this server's memory layout (e.g. a TTL
#              costs an expires entry; Redis 7.0 does not count it).
#              Against Redis: --tags -ourlayout
#
#   ./runtest --server /usr/bin/redis-server --single unit/memory --tags "-redis7.2 -ourlayout"

proc small_thresholds {} {
    r config set list-max-listpack-size 8
    r config set hash-max-listpack-entries 16
    r config set hash-max-listpack-value 64
    r config set set-max-intset-entries 16
    catch {r config set set-max-listpack-entries 16}
    r config set zset-max-listpack-entries 16
    r config set zset-max-listpack-value 64
}

proc usage {key args} { r memory usage $key {*}$args }

# The keys of a flat key/value list, in order.
proc map_keys {flat} {
    set keys {}
    foreach {k v} $flat { lappend keys $k }
    return $keys
}

# Reads one RESP3 reply from a readraw client whose first line is `first`,
# as a list of {name typechar value} triples for a map (value of a nested
# map: its own triples).
proc read_raw_map {c first} {
    assert_match {%*} $first
    set out {}
    for {set i 0} {$i < [string range $first 1 end]} {incr i} {
        $c read ;# "$N"
        set name [$c read]
        set line [$c read]
        set type [string index $line 0]
        if {$type eq "%"} {
            lappend out [list $name % [read_raw_map $c $line]]
        } elseif {$type eq "\$"} {
            lappend out [list $name \$ [$c read]]
        } else {
            lappend out [list $name $type [string range $line 1 end]]
        }
    }
    return $out
}

set ::stats_fields_head {
    peak.allocated total.allocated startup.allocated replication.backlog clients.slaves clients.normal
    cluster.links aof.buffer lua.caches functions.caches
}
set ::stats_fields_tail {
    overhead.total keys.count keys.bytes-per-key dataset.bytes dataset.percentage peak.percentage
    allocator.allocated allocator.active allocator.resident allocator-fragmentation.ratio
    allocator-fragmentation.bytes allocator-rss.ratio allocator-rss.bytes rss-overhead.ratio rss-overhead.bytes
    fragmentation fragmentation.bytes
}
set ::db_fields {overhead.hashtable.main overhead.hashtable.expires overhead.hashtable.slot-to-keys}

# SMALL and BIGGER are both ENCODING; BIGGER measures more, and a compact
# encoding is measured whole whatever SAMPLES says.
proc assert_small_pair {encoding small bigger} {
    assert_storage $encoding $small
    assert_storage $encoding $bigger
    assert_morethan [usage $bigger] [usage $small]
    assert_equal [usage $bigger] [usage $bigger samples 0]
}

# Fills big1 with 100 and big2 with 1000 elements of WIDTH bytes through
# the lambda ADD {key i}; both must be hash tables, bigger than SMALL, and
# MEMORY USAGE must grow with the elements, sampled or not.
proc assert_usage_scales {small width add} {
    for {set i 0} {$i < 100} {incr i} { apply $add big1 $i }
    for {set i 0} {$i < 1000} {incr i} { apply $add big2 $i }
    assert_encoding hashtable big1
    assert_morethan [usage big1] [usage $small]
    assert_morethan [usage big2] [expr {[usage big1] + 900 * $width}]
    assert_morethan [usage big2 samples 0] [expr {[usage big1 samples 0] + 900 * $width}]
}

start_server {tags {memory}} {
    # ---- arity, errors, command table -----------------------------------------------------

    test "MEMORY arity errors name the subcommand" {
        assert_error "ERR wrong number of arguments for 'memory' command" {r memory}
        assert_error "ERR wrong number of arguments for 'memory|usage' command" {r memory usage}
        foreach sub {stats doctor malloc-stats purge help} {
            assert_error "ERR wrong number of arguments for 'memory|$sub' command" {r memory $sub extra}
        }
    }

    test "MEMORY with an unknown subcommand" {
        assert_error "ERR unknown subcommand 'foo'. Try MEMORY HELP." {r memory foo}
        assert_error "ERR unknown subcommand 'foo'. Try MEMORY HELP." {r memory foo bar}
    }

    test "MEMORY USAGE option errors" {
        r set k hello
        assert_error "ERR syntax error" {r memory usage k extra}
        assert_error "ERR syntax error" {r memory usage k a b}
        assert_error "ERR syntax error" {r memory usage k samples}
        assert_error "ERR syntax error" {r memory usage k samples -1}
        assert_error "ERR syntax error" {r memory usage k samples 5 samples}
        assert_error "ERR value is not an integer or out of range" {r memory usage k samples abc}
        assert_error "ERR value is not an integer or out of range" {r memory usage k samples 1.5}
        assert_error "ERR value is not an integer or out of range" \
            {r memory usage k samples 99999999999999999999}
        # options are checked before the key is looked up
        assert_error "ERR value is not an integer or out of range" {r memory usage nokey samples abc}
        assert_error "ERR syntax error" {r memory usage nokey foo}
        # a valid option, in any case, several times
        assert_morethan [r memory usage k SAMPLES 0] 0
        assert_morethan [r memory usage k samples 1 Samples 9223372036854775807] 0
    }

    test "MEMORY USAGE is no key access: no hit or miss counted, a stale key not expired" {
        r debug set-active-expire 0
        r del nokey stale
        r set stale value px 1
        after 20
        set hits [s keyspace_hits]
        set misses [s keyspace_misses]
        set keys [r dbsize]
        r memory usage nokey
        assert_morethan [r memory usage stale] 0 ;# measured, as Redis does
        assert_equal $hits [s keyspace_hits]
        assert_equal $misses [s keyspace_misses]
        assert_equal $keys [r dbsize] ;# still there until a real access
        assert_equal 0 [r exists stale]
        r debug set-active-expire 1
    }

    test "MEMORY USAGE of a missing key is a null (RESP2 and RESP3)" {
        r del nokey
        assert_equal {} [r memory usage nokey]
        assert_equal {} [r memory usage nokey samples 0]
        set c [redis_client -readraw 1]
        assert_equal {$-1} [$c memory usage nokey]
        $c close
        set c [redis_client]
        $c hello 3
        $c readraw 1
        assert_equal {_} [$c memory usage nokey]
        $c close
    }

    test "COMMAND INFO of the MEMORY subcommands" {
        set info [lindex [r command info memory|usage] 0]
        assert_equal {memory|usage -3 readonly 2 2 1} [lrange $info 0 5]
        foreach sub {stats doctor malloc-stats purge} {
            set info [lindex [r command info memory|$sub] 0]
            assert_equal [list memory|$sub 2 {} 0 0 0] [lrange $info 0 5]
        }
        set info [lindex [r command info memory|help] 0]
        assert_equal {memory|help 2 {loading stale} 0 0 0} [lrange $info 0 5]
        set info [lindex [r command info memory] 0]
        assert_equal {memory -2} [lrange $info 0 1]
        assert_equal 6 [llength [lindex $info 9]]
    }

    test "COMMAND DOCS memory lists the subcommands and USAGE's arguments" {
        set docs [dict get [r command docs memory] memory]
        assert_equal server [dict get $docs group]
        assert_equal 4.0.0 [dict get $docs since]
        set subs [dict get $docs subcommands]
        assert_equal [lsort {memory|usage memory|malloc-stats memory|stats memory|doctor memory|purge memory|help}] \
            [lsort [dict keys $subs]]
        set args [dict get [dict get $subs memory|usage] arguments]
        assert_equal {key key} [list [dict get [lindex $args 0] name] [dict get [lindex $args 0] type]]
        assert_equal SAMPLES [dict get [lindex $args 1] token]
        assert_equal integer [dict get [lindex $args 1] type]
        assert_equal optional [dict get [lindex $args 1] flags]
    }

    test "MEMORY HELP" {
        set help [r memory help]
        assert_equal 14 [llength $help]
        assert_equal "MEMORY <subcommand> \[<arg> \[value\] \[opt\] ...\]. Subcommands are:" [lindex $help 0]
        assert_equal "USAGE <key> \[SAMPLES <count>\]" [lindex $help 9]
        assert_equal HELP [lindex $help 12]
        foreach sub {DOCTOR MALLOC-STATS PURGE STATS} { assert {[lsearch -exact $help $sub] > 0} }
    }

    # ---- the other subcommands -------------------------------------------------------------

    test "MEMORY PURGE and MALLOC-STATS" {
        assert_equal OK [r memory purge]
        set text [r memory malloc-stats]
        if {[string match jemalloc* [s mem_allocator]]} {
            assert_match "___ Begin jemalloc statistics ___*" $text
            assert_match "*--- End jemalloc statistics ---*" $text
        } else {
            assert_equal "Stats not supported for the current allocator" $text
        }
        set c [redis_client]
        $c hello 3
        $c readraw 1
        if {[string match jemalloc* [s mem_allocator]]} {
            assert_match {=*} [$c memory malloc-stats]
            assert_match {txt:*} [$c read]
        } else {
            assert_equal {$45} [$c memory malloc-stats]
            assert_equal "Stats not supported for the current allocator" [$c read]
        }
        $c close
    }

    test "MEMORY DOCTOR on a nearly empty instance" {
        r flushall
        set expected "Hi Sam, this instance is empty or is using very little memory, my issues detector\
            can't be used in these conditions. Please, leave for your mission on Earth and fill it with some\
            data. The new Sam and I will be back to our programming as soon as I finished rebooting.\n"
        assert_equal $expected [r memory doctor]
        set c [redis_client -readraw 1]
        assert_equal "\$[string length $expected]" [$c memory doctor]
        assert_equal $expected [$c read]
        $c close
        set c [redis_client]
        $c hello 3
        $c readraw 1
        assert_equal "=[expr {[string length $expected] + 4}]" [$c memory doctor]
        assert_equal "txt:$expected" [$c read]
        $c close
    }

    test "MEMORY DOCTOR with some data gives a report" {
        r debug populate 100000 doctor 50
        assert_morethan [s used_memory] [expr {5 * 1024 * 1024}]
        set report [r memory doctor]
        assert_match "*Sam*" $report
        assert_no_match "*this instance is empty*" $report
        assert_equal "\n" [string index $report end]
        r flushall
    }

    # ---- MEMORY STATS ------------------------------------------------------------------------

    test "MEMORY STATS field names and order" {
        r flushall
        set stats [r memory stats]
        assert_equal [list {*}$::stats_fields_head {*}$::stats_fields_tail] [map_keys $stats]
        r set a 1
        r select 3
        r set b 2
        r expire b 100
        r select 9
        set stats [r memory stats]
        assert_equal [list {*}$::stats_fields_head db.0 db.3 {*}$::stats_fields_tail] [map_keys $stats]
        assert_equal $::db_fields [map_keys [dict get $stats db.0]]
        assert_equal $::db_fields [map_keys [dict get $stats db.3]]
        assert_equal 0 [dict get $stats db.0 overhead.hashtable.expires]
        assert_morethan [dict get $stats db.3 overhead.hashtable.expires] 0
        assert_morethan [dict get $stats db.0 overhead.hashtable.main] 0
        assert_equal 2 [dict get $stats keys.count]
        r select 9
    }

    test "MEMORY STATS reply types in RESP2 and RESP3" {
        r flushall
        r set a 1
        set c [redis_client -readraw 1]
        assert_equal {*56} [$c memory stats]
        $c close
        set c [redis_client]
        $c hello 3
        $c readraw 1
        set items [read_raw_map $c [$c memory stats]]
        $c close
        assert_equal 28 [llength $items]
        foreach item $items {
            lassign $item name type value
            if {[string match db.* $name]} {
                assert_equal % $type
                foreach sub $value { assert_equal : [lindex $sub 1] "$name [lindex $sub 0]" }
            } elseif {[string match *perc* $name] || [string match *ratio $name] || $name eq "fragmentation"} {
                assert_equal , $type $name
            } else {
                assert_equal : $type $name
            }
        }
    }

    test "MEMORY STATS figures are consistent" {
        r flushall
        for {set i 0} {$i < 2000} {incr i} { r set key:$i [string repeat x 100] }
        set stats [r memory stats]
        set total [dict get $stats total.allocated]
        set overhead [dict get $stats overhead.total]
        set startup [dict get $stats startup.allocated]
        assert_equal 2000 [dict get $stats keys.count]
        assert_morethan $total 0
        assert {[dict get $stats peak.allocated] >= $total}
        assert {$overhead >= $startup}
        assert_equal $total [expr {$overhead + [dict get $stats dataset.bytes]}]
        assert_equal [expr {($total - $startup) / 2000}] [dict get $stats keys.bytes-per-key]
        # each key holds at least its 100-byte value
        assert_morethan [dict get $stats dataset.bytes] [expr {2000 * 100}]
        assert_range [dict get $stats dataset.percentage] 0 100
        assert_range [dict get $stats peak.percentage] 0 100
        assert_morethan [dict get $stats allocator.allocated] 0
        foreach f {replication.backlog clients.slaves cluster.links} {
            assert_equal 0 [dict get $stats $f] $f
        }
        r flushall
    }

    test "MEMORY STATS lua.caches and functions.caches are INFO's script cache figures" {
        r eval {return 'memory-stats-probe'} 0
        r function load replace "#!lua name=memstats\nredis.register_function('memstats_f', function() return 1 end)"
        set stats [r memory stats]
        set eval_cache [s used_memory_scripts_eval]
        assert_morethan $eval_cache 0
        assert_equal $eval_cache [dict get $stats lua.caches]
        assert_morethan [dict get $stats functions.caches] 0
        assert_equal [s used_memory_scripts] [expr {$eval_cache + [dict get $stats functions.caches]}]
        # both count as overhead, as in Redis
        set parts [expr {[dict get $stats startup.allocated] + [dict get $stats lua.caches] + [dict get $stats functions.caches]}]
        assert {[dict get $stats overhead.total] >= $parts}
        r function delete memstats
        r script flush
    }

    # ---- MEMORY USAGE by type and encoding -----------------------------------------------------

    test "MEMORY USAGE of strings: int, embstr and raw" {
        r flushall
        r set int 12345678
        assert_encoding int int
        r set short abc
        r set long44 [string repeat a 44]
        assert_encoding embstr short
        assert_encoding embstr long44
        r set raw100 [string repeat a 100]
        r set raw1000 [string repeat a 1000]
        r set raw10000 [string repeat a 10000]
        assert_encoding raw raw100
        assert {[usage int] <= [usage long44]}
        assert {[usage short] <= [usage long44]}
        assert {[usage long44] < [usage raw100]}
        assert_morethan [usage raw100] 100
        assert_morethan [usage raw1000] [expr {[usage raw100] + 800}]
        assert_morethan [usage raw10000] [expr {[usage raw1000] + 8000}]
        # strings have nothing to sample
        assert_equal [usage raw1000] [usage raw1000 samples 0]
        assert_equal [usage raw1000] [usage raw1000 samples 1]
    }

    test "MEMORY USAGE counts the key too" {
        r set k v
        r set [string repeat k 1000] v
        assert_morethan [usage [string repeat k 1000]] [expr {[usage k] + 900}]
    }

    test "MEMORY USAGE of a list: small and quicklist, grows with the elements" {
        small_thresholds
        r del l1 l2 big1 big2
        r rpush l1 a
        r rpush l2 a b c d e [string repeat x 50]
        assert_morethan [usage l2] [usage l1]
        r rpush big1 {*}[lrepeat 100 [string repeat x 20]]
        r rpush big2 {*}[lrepeat 1000 [string repeat x 20]]
        assert_encoding quicklist big1
        assert_encoding quicklist big2
        assert_morethan [usage big1] [usage l2]
        assert_morethan [usage big2 samples 0] [expr {[usage big1 samples 0] + 900 * 20}]
        assert_morethan [usage big2] [expr {[usage big1] + 900 * 20}]
    }

    test "MEMORY USAGE of a small list is one listpack" {
        small_thresholds
        r del l1 l2
        r rpush l1 a
        r rpush l2 a b c d e f
        assert_small_pair listpack l1 l2
    } {redis7.2}

    test "MEMORY USAGE of a hash: listpack and hashtable" {
        small_thresholds
        r del h1 h2 big1 big2
        r hset h1 f v
        r hset h2 f1 v1 f2 v2 f3 [string repeat v 40]
        assert_small_pair listpack h1 h2
        assert_usage_scales h2 30 {{key i} { r hset $key field:$i [string repeat v 30] }}
    }

    test "MEMORY USAGE of a set: intset and hashtable" {
        small_thresholds
        r del s1 s2 big1 big2
        r sadd s1 1
        r sadd s2 1 2 3 4 5 6 7 8 9 10 11 12 100000 200000 3000000000
        assert_small_pair intset s1 s2
        assert_usage_scales s2 20 {{key i} { r sadd $key member:$i:[string repeat m 20] }}
    }

    test "MEMORY USAGE of a small set of strings is one listpack" {
        small_thresholds
        r del s1 s2
        r sadd s1 a
        r sadd s2 a b c d e [string repeat x 40]
        assert_small_pair listpack s1 s2
    } {redis7.2}

    test "MEMORY USAGE of a sorted set: listpack and skiplist" {
        small_thresholds
        r del z1 z2 big1 big2
        r zadd z1 1 a
        r zadd z2 1 a 2 b 3 c 4.5 [string repeat x 40]
        assert_small_pair listpack z1 z2
        for {set i 0} {$i < 100} {incr i} { r zadd big1 $i member:$i:[string repeat m 20] }
        for {set i 0} {$i < 1000} {incr i} { r zadd big2 $i member:$i:[string repeat m 20] }
        assert_encoding skiplist big1
        assert_morethan [usage big1] [usage z2]
        assert_morethan [usage big2] [expr {[usage big1] + 900 * 20}]
        assert_morethan [usage big2 samples 0] [expr {[usage big1 samples 0] + 900 * 20}]
    }

    test "SAMPLES: a uniform aggregate scales to about the same size" {
        r del h
        for {set i 0} {$i < 500} {incr i} { r hset h f:[format %05d $i] [string repeat v 30] }
        set all [usage h samples 0]
        foreach n {1 5 50} {
            set est [usage h samples $n]
            assert_range $est [expr {$all * 0.8}] [expr {$all * 1.2}]
        }
        assert_equal [usage h samples 500] $all
        assert_equal [usage h samples 100000] $all
    }

    test "MEMORY USAGE does not touch the key's access time" {
        r set idle v
        after 1100
        r memory usage idle
        assert_morethan [r object idletime idle] 0
    }

    # ---- this server's layout -----------------------------------------------------------------

    test "a key with a TTL costs more than the same key without" {
        r set k1 value
        r set k2 value
        r expire k2 1000
        assert_morethan [usage k2] [usage k1]
        r persist k2
        assert {[usage k2] >= [usage k1]}
    } {ourlayout}

    test "a short key and value share one block" {
        # object header, chain pointer, key and value: one allocation, so a
        # 16-byte key with a short value costs a single small block
        r set [string repeat k 16] hello
        assert_range [usage [string repeat k 16]] 40 64
    } {ourlayout}

    test "MEMORY STATS: no AOF buffer, and no script caches before the first script" {
        r script flush
        r function flush
        set stats [r memory stats]
        foreach f {aof.buffer lua.caches functions.caches} { assert_equal 0 [dict get $stats $f] $f }
    } {ourlayout}
}
