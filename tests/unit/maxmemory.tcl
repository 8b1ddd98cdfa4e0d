# maxmemory and the eight eviction policies, and the 32-bit default cap.
#
# Limits are set relative to the server's current used_memory so the tests
# do not depend on the allocator or the word size.

proc used_memory {} { return [s used_memory] }

# Sets maxmemory to the current usage plus `extra` bytes.
proc limit_memory_to_current_plus {extra} {
    r config set maxmemory [expr {[used_memory] + $extra}]
}

proc fill_keys {prefix count {ttl 0}} {
    set value [string repeat x 200]
    for {set i 0} {$i < $count} {incr i} {
        if {$ttl} {
            catch {r set $prefix:$i $value ex $ttl}
        } else {
            catch {r set $prefix:$i $value}
        }
    }
}

proc count_keys {pattern} { return [llength [r keys $pattern]] }

start_server {tags {maxmemory}} {
    test "noeviction refuses writes over the limit but serves reads and deletes" {
        r config set maxmemory 0
        r flushall
        fill_keys base 100
        r config set maxmemory-policy noeviction
        limit_memory_to_current_plus 1000
        catch {fill_keys more 200}
        assert_error "OOM command not allowed when used memory > 'maxmemory'.*" {
            r set big [string repeat y 100000]
        }
        assert_equal [string repeat x 200] [r get base:1]
        assert_equal 1 [r del base:1]
        assert_equal 0 [s evicted_keys]
        r config set maxmemory 0
    }

    foreach policy {allkeys-lru allkeys-lfu allkeys-random} {
        test "$policy evicts keys to stay under the limit" {
            r config set maxmemory 0
            r flushall
            r config resetstat
            r config set maxmemory-policy $policy
            limit_memory_to_current_plus 50000
            fill_keys k 2000
            assert_morethan [s evicted_keys] 0
            assert_lessthan [count_keys k:*] 2000
            assert_lessthan [used_memory] [expr {[lindex [r config get maxmemory] 1] + 65536}]
            r config set maxmemory 0
        }
    }

    foreach policy {volatile-lru volatile-lfu volatile-random volatile-ttl} {
        test "$policy evicts only keys with a TTL" {
            r config set maxmemory 0
            r flushall
            r config resetstat
            fill_keys persistent 50
            fill_keys volatile 50 1000
            r config set maxmemory-policy $policy
            limit_memory_to_current_plus 5000
            fill_keys more 100 1000
            assert_morethan [s evicted_keys] 0
            assert_equal 50 [count_keys persistent:*]
            r config set maxmemory 0
        }
    }

    test "volatile-ttl evicts the keys closest to expiring first" {
        r config set maxmemory 0
        r flushall
        r config resetstat
        set value [string repeat x 200]
        for {set i 0} {$i < 100} {incr i} { r set soon:$i $value ex 100 }
        for {set i 0} {$i < 100} {incr i} { r set late:$i $value ex 100000 }
        r config set maxmemory-policy volatile-ttl
        r config set maxmemory-samples 10
        limit_memory_to_current_plus 2000
        for {set i 0} {$i < 40} {incr i} { catch {r set new:$i $value ex 100000} }
        assert_morethan [s evicted_keys] 0
        # Every command evicts while over the limit (as in Redis), so lift it
        # before counting what the writes evicted.
        r config set maxmemory 0
        # Sampling is approximate: most evictions hit the short TTLs.
        set soon_gone [expr {100 - [count_keys soon:*]}]
        set late_gone [expr {100 - [count_keys late:*]}]
        assert_morethan $soon_gone $late_gone
    }

    test "volatile policies answer OOM when no key has a TTL" {
        r config set maxmemory 0
        r flushall
        fill_keys persistent 100
        r config set maxmemory-policy volatile-lru
        limit_memory_to_current_plus 1000
        assert_error "OOM *" { r set big [string repeat y 100000] }
        assert_equal 100 [count_keys persistent:*]
        r config set maxmemory 0
    }

    test "allkeys-lru keeps recently used keys" {
        r config set maxmemory 0
        r flushall
        r config resetstat
        r config set maxmemory-policy allkeys-lru
        r config set maxmemory-samples 10
        fill_keys cold 200
        fill_keys hot 20
        after 1100 ;# the LRU clock has one-second resolution
        for {set i 0} {$i < 20} {incr i} { r get hot:$i }
        limit_memory_to_current_plus 2000
        fill_keys new 100
        assert_morethan [s evicted_keys] 0
        assert_morethan [count_keys hot:*] 15
        r config set maxmemory 0
    }

    test "OBJECT FREQ grows with accesses under an LFU policy" {
        r config set maxmemory 0
        r flushall
        r config set maxmemory-policy allkeys-lfu
        r set counter-key somevalue
        set before [r object freq counter-key]
        for {set i 0} {$i < 200} {incr i} { r get counter-key }
        assert_morethan [r object freq counter-key] $before
        r config set maxmemory-policy noeviction
    }

    test "maxmemory-policy rejects unknown policies" {
        assert_error "*argument(s) must be one of the following*" {r config set maxmemory-policy nosuchpolicy}
    }
}

start_server {tags {maxmemory}} {
    test "32-bit builds start with a maxmemory cap; larger values are refused" {
        if {[s arch_bits] != 32} { skip "needs a 32-bit build (run with the i386, armv6 or armv7 port)" }
        set cap [lindex [r config get maxmemory] 1]
        assert_morethan $cap 0
        assert {$cap <= 3221225472}
        assert_equal noeviction [lindex [r config get maxmemory-policy] 1]
        assert_error "*larger than this 32-bit process can address*" {r config set maxmemory 4gb}
        assert_equal OK [r config set maxmemory 100mb]
    }

    test "64-bit builds have no maxmemory cap by default" {
        if {[s arch_bits] != 64} { skip "needs a 64-bit build" }
        assert_equal 0 [lindex [r config get maxmemory] 1]
    }
}

start_server {tags {maxmemory tracking}} {
    test "Evicting tracked keys stops at the memory it set out to free (invalidations don't feed it)" {
        r config set maxmemory 0
        r config set maxmemory-policy allkeys-random
        r flushall
        # eight RESP3 clients tracking every key; each eviction sends each
        # of them an invalidation message as long as the key, and past the
        # clients' 16 KB static buffers those take new memory
        set watchers {}
        for {set j 0} {$j < 8} {incr j} {
            set w [redis_client]
            $w hello 3
            $w client tracking on
            lappend watchers $w
        }
        for {set k 0} {$k < 300} {incr k} {
            set key [format %04d $k][string repeat k 1000]
            r set $key v
            foreach w $watchers { $w get $key }
        }
        set before [s evicted_keys]
        r config set maxmemory [expr {[used_memory] - 60000}]
        r ping ;# the command that evicts
        set evicted [expr {[s evicted_keys] - $before}]
        assert_range $evicted 1 100
        assert_range [r dbsize] 200 299
        foreach w $watchers { $w close }
        r config set maxmemory 0
    }

    test "INFO memory: the AOF buffer is reported and not counted for eviction" {
        set info [r info memory]
        assert_equal [info_field $info mem_aof_buffer] [info_field $info mem_not_counted_for_evict]
        assert [string is integer -strict [info_field $info mem_aof_buffer]]
    }
}

start_server {tags {maxmemory aof external:skip} overrides {appendonly yes appendfsync always aof-use-rdb-preamble no}} {
    test "CONFIG SET maxmemory evicts after the command: MULTI still sees its keys, DELs written on their own" {
        r config set maxmemory-policy allkeys-lru
        r set x 0
        r multi
        r incr x
        r config set maxmemory 1
        r incr x
        assert_equal {1 OK 2} [r exec]
        wait_for_condition 100 20 {[r dbsize] == 0} else { fail "not evicted" }
        r config set maxmemory 0
        r set a 1
        r set b 2
        set written [aof_commands_written {
            r config set maxmemory 1
            wait_for_condition 100 20 {[r dbsize] == 0} else { fail "not evicted" }
            r config set maxmemory 0
            r set after 1
        }]
        assert_equal {{DEL a} {DEL b} {set after 1}} [lsort [lsearch -all -inline -not -glob $written {config*}]]
        r config set maxmemory-policy noeviction
    }
}
