# defrag.tcl -- active defragmentation (src/defrag.c): Redis 7.0's
# directives, INFO fields and DEBUG MALLCTL; with jemalloc, a fragmented
# heap gets its waste back with every value intact, also while a forkless
# BGSAVE or AOF rewrite runs with clients writing; with MALLOC=libc,
# `activedefrag yes` is refused (CONFIG SET and the config file).
#
# Fragmentation is made, never timed: many small keys, then every other one
# deleted, so each slab keeps about half its regions. Progress is polled
# (INFO active_defrag_*), never waited for. jemalloc's page size is
# 64 KiB in every build here (one binary for 4K/16K/64K kernels), so a slab
# holds many regions and needs many keys to fragment: the fills are sized
# for that, and the scenario tests skip, saying so, if the heap did not
# fragment enough to measure (which has not been seen).

# Fills are a quarter as big under an emulator: the fragmentation is a
# ratio (every other key deleted), so it shows as well with fewer keys.
proc fill_size {n} { expr {$::harness::opt(wrapper) eq "" ? $n : $n / 4} }

proc jemalloc_build {} { string match jemalloc* [s mem_allocator] }

# The same question without a running server: --check-system names the allocator.
proc jemalloc_binary {} { string match *allocator=jemalloc* [exec {*}[server_command --check-system]] }

# Deletes every other key of DEBUG POPULATE's prefix:0 .. prefix:N-1, in
# script calls of 10000 keys (each well under busy-reply-threshold, even
# under emulation).
proc delete_every_other {prefix n} {
    for {set from 0} {$from < $n} {incr from 10000} {
        set to [expr {min($from + 10000, $n) - 1}]
        r eval {for i = tonumber(ARGV[2]), tonumber(ARGV[3]), 2 do redis.call('del', ARGV[1] .. ':' .. i) end} \
            0 $prefix $from $to
    }
}

proc fragment_heap {prefix n size} {
    r debug populate $n $prefix $size
    delete_every_other $prefix $n
}

# Defragmentation that starts at a few hundred KB of waste and works hard.
proc defrag_eagerly {} {
    r config set active-defrag-ignore-bytes 200kb
    r config set active-defrag-threshold-lower 5
    r config set active-defrag-cycle-min 50
    r config set active-defrag-cycle-max 75
}

# Waits until a whole pass ran after HITS hits had been counted: hits went
# up and the pass ended.
proc wait_for_defrag_pass {hits} {
    wait_for_condition 600 50 {[s active_defrag_hits] > $hits && [s active_defrag_running] == 0} else {
        fail "no defrag pass ended: hits [s active_defrag_hits], running [s active_defrag_running]"
    }
}

start_server {tags {defrag}} {
    test "defrag directives: Redis 7.0's defaults" {
        assert_equal {activedefrag no} [r config get activedefrag]
        assert_equal {active-defrag-ignore-bytes 104857600} [r config get active-defrag-ignore-bytes]
        assert_equal {active-defrag-threshold-lower 10} [r config get active-defrag-threshold-lower]
        assert_equal {active-defrag-threshold-upper 100} [r config get active-defrag-threshold-upper]
        assert_equal {active-defrag-cycle-min 1} [r config get active-defrag-cycle-min]
        assert_equal {active-defrag-cycle-max 25} [r config get active-defrag-cycle-max]
        assert_equal {active-defrag-max-scan-fields 1000} [r config get active-defrag-max-scan-fields]
    }

    test "defrag directives: CONFIG SET takes values in range, units for the byte one" {
        r config set active-defrag-ignore-bytes 2mb
        assert_equal {active-defrag-ignore-bytes 2097152} [r config get active-defrag-ignore-bytes]
        r config set active-defrag-threshold-lower 0 active-defrag-threshold-upper 1000
        r config set active-defrag-cycle-min 99 active-defrag-cycle-max 1
        r config set active-defrag-max-scan-fields 1
        assert_equal {active-defrag-cycle-min 99} [r config get active-defrag-cycle-min]
        r config set active-defrag-ignore-bytes 100mb active-defrag-threshold-lower 10
        r config set active-defrag-threshold-upper 100 active-defrag-cycle-min 1 active-defrag-cycle-max 25
        r config set active-defrag-max-scan-fields 1000
    }

    test "defrag directives: out-of-range and malformed values are refused with Redis's errors" {
        assert_error "ERR CONFIG SET failed (possibly related to argument 'active-defrag-cycle-max') - argument must be between 1 and 99 inclusive" \
            {r config set active-defrag-cycle-max 100}
        assert_error "*'active-defrag-cycle-min') - argument must be between 1 and 99 inclusive" \
            {r config set active-defrag-cycle-min 0}
        assert_error "*'active-defrag-threshold-lower') - argument must be between 0 and 1000 inclusive" \
            {r config set active-defrag-threshold-lower 1001}
        assert_error "*'active-defrag-threshold-upper') - argument must be between 0 and 1000 inclusive" \
            {r config set active-defrag-threshold-upper -1}
        assert_error "*'active-defrag-ignore-bytes') - argument must be between 1 and 9223372036854775807 inclusive" \
            {r config set active-defrag-ignore-bytes 0}
        ;# LONG_MAX: 2147483647 on 32-bit targets, as in Redis
        assert_error "*'active-defrag-max-scan-fields') - argument must be between 1 and [expr {[s arch_bits] == 32 ? 2147483647 : 9223372036854775807}] inclusive" \
            {r config set active-defrag-max-scan-fields 0}
        assert_error "*'activedefrag') - argument must be 'yes' or 'no'" {r config set activedefrag maybe}
        assert_error "*'active-defrag-cycle-min') - argument couldn't be parsed into an integer" \
            {r config set active-defrag-cycle-min x}
        assert_equal {active-defrag-cycle-max 25} [r config get active-defrag-cycle-max]
    }

    test "INFO has the defrag fields (idle: zero)" {
        assert_equal 0 [s active_defrag_running]
        foreach field {active_defrag_hits active_defrag_misses active_defrag_key_hits active_defrag_key_misses
                       total_active_defrag_time current_active_defrag_time} {
            assert_equal 0 [s $field]
        }
        foreach field {allocator_allocated allocator_active allocator_resident allocator_frag_ratio
                       allocator_frag_bytes allocator_rss_ratio} {
            assert_match {[0-9]*} [s $field]
        }
    }

    test "DEBUG MALLCTL and MALLCTL-STR read and write jemalloc's controls as Redis 7.0" {
        if {![jemalloc_build]} {
            assert_error "*unknown subcommand*" {r debug mallctl arenas.page}
            assert_error "*unknown subcommand*" {r debug mallctl-str version}
            skip "allocator is [s mem_allocator]: DEBUG MALLCTL is jemalloc's (unknown here, as in Redis)"
        }
        if {[s arch_bits] == 32} {
            ;# a 4-byte size_t: Redis 7.0 tries 8 bytes, then halves what jemalloc answered (4 -> 2 -> 1)
            assert_error "ERR Invalid argument" {r debug mallctl arenas.page}
        } else {
            set page [r debug mallctl arenas.page]
            assert {$page >= 4096 && ($page & ($page - 1)) == 0}
        }
        assert_match {5.3.0-*} [r debug mallctl-str version]
        assert_equal OK [r debug mallctl-str thread.tcache.flush VOID]
        assert_error "ERR No such file or directory" {r debug mallctl no.such.control}
        assert_error "ERR No such file or directory" {r debug mallctl-str no.such.control}
        ;# a 4-byte control: Redis 7.0 halves jemalloc's answer (8 -> 4 -> 2 ...) and never reads it
        assert_error "ERR Invalid argument" {r debug mallctl opt.narenas}
        if {[s arch_bits] == 64} {
            ;# a 4-byte number is not a pointer: refused. (On 32-bit targets it has a pointer's
            ;# size and would be read as a string pointer, by Redis 7.0 as here: not asked.)
            assert_error "ERR Invalid argument" {r debug mallctl-str opt.narenas}
        }
        assert_error "*not an integer*" {r debug mallctl arenas.page x}
        ;# a 1-byte bool, written: the old value comes back
        assert_equal 1 [r debug mallctl background_thread 1]
    }

    test "activedefrag yes: refused without jemalloc, accepted with it" {
        if {[jemalloc_build]} {
            assert_equal OK [r config set activedefrag yes]
            assert_equal {activedefrag yes} [r config get activedefrag]
            r config set activedefrag no
        } else {
            assert_error "ERR CONFIG SET failed (possibly related to argument 'activedefrag') - Active defragmentation cannot be enabled: it requires a server built with jemalloc*" \
                {r config set activedefrag yes}
            assert_equal {activedefrag no} [r config get activedefrag]
            assert_equal OK [r config set activedefrag no]
        }
    }
}

tags {defrag} {
    test "activedefrag yes in the config: a libc build refuses to start, naming the line" {
        if {[jemalloc_binary]} { skip "built with jemalloc: the directive is accepted" }
        lassign [run_failing_server --port 0 --activedefrag yes] status err
        assert_equal 1 $status
        assert_match "*FATAL CONFIG FILE ERROR*activedefrag*Active defragmentation cannot be enabled*" $err
    }
}

start_server {tags {defrag}} {
        test "a fragmented heap: hits counted, allocator_frag_ratio drops, INFO and the latency monitor follow" {
            if {![jemalloc_build]} { skip "allocator is [s mem_allocator]: no active defrag" }
            r config set latency-monitor-threshold 1
            fragment_heap frag [fill_size 200000] 150
            set before [s allocator_frag_ratio]
            if {$before < 1.3} { skip "the heap did not fragment (allocator_frag_ratio $before)" }
            defrag_eagerly
            r config set activedefrag yes
            wait_for_condition 600 50 {[s active_defrag_hits] > 0} else { fail "no block moved" }
            wait_for_condition 600 50 {[s active_defrag_running] == 0 && [s allocator_frag_ratio] < $before - 0.2} else {
                fail "fragmentation stayed: before $before, now [s allocator_frag_ratio]"
            }
            assert_morethan [s active_defrag_key_hits] 0
            assert_morethan [s active_defrag_misses] 0
            assert_equal [expr {[fill_size 200000] / 2}] [r dbsize]
            r config set activedefrag no
            r config resetstat
            assert_equal 0 [s active_defrag_hits]
            assert_equal 0 [s total_active_defrag_time]
        }

        test "every type keeps its value: DEBUG DIGEST before and after a pass, TTLs still fire" {
            if {![jemalloc_build]} { skip "allocator is [s mem_allocator]: no active defrag" }
            r flushall
            r config set active-defrag-max-scan-fields 250 ;# values beyond go in steps
            r config set hash-max-listpack-entries 64
            ;# values interleaved with filler strings of the same sizes, fillers deleted after
            for {set i 0} {$i < [fill_size 3000]} {incr i} {
                r set f1:$i [string repeat x 60]
                r set raw:$i [string repeat r 60]
                r set emb:$i e$i
                r set int:$i $i
                r set ttl:$i [string repeat t 60] px 100000000
                r set f2:$i [string repeat y 20]
                if {$i % 10 == 0} {
                    set j [expr {$i / 10}]
                    r rpush lp:$j a b c $i
                    r hset hlp:$j f $i g v
                    r sadd slp:$j m n $i
                    r sadd sint:$j 1 2 $i
                    r zadd zlp:$j 1 a 2 $i
                    r xadd st:$j * f $i
                }
            }
            for {set i 0} {$i < 600} {incr i} { r hset bighash f$i [string repeat h [expr {$i % 50}]] }
            for {set i 0} {$i < 200} {incr i} {
                r rpush biglist {*}[lrepeat 20 [string repeat l $i]]
                r sadd bigset m$i[string repeat s [expr {$i % 30}]]
                r zadd bigzset $i z$i
                r set f3:$i [string repeat z 40]
            }
            for {set i 0} {$i < 100} {incr i} {
                r hset ht:$i {*}[concat {*}[lmap k [lrepeat 200 x] {list f[incr n] v}]]
                r sadd sht:$i {*}[lmap k [lrepeat 300 x] {string cat member [incr n]}]
            }
            r eval {for _, k in ipairs(redis.call('keys', 'f*')) do redis.call('del', k) end} 0
            fragment_heap frag [fill_size 100000] 60
            assert_encoding quicklist biglist
            assert_encoding hashtable bighash
            assert_encoding hashtable ht:0
            assert_encoding intset sint:0
            set digest [r debug digest]
            set hits [s active_defrag_hits]
            defrag_eagerly
            r config set activedefrag yes
            wait_for_defrag_pass $hits
            r config set activedefrag no
            assert_equal $digest [r debug digest]
            assert_morethan [s active_defrag_key_hits] 0
            ;# the expires table points at the moved entries: a TTL still fires, TTL still reads it
            assert_morethan [r pttl ttl:5] 0
            r pexpire ttl:7 1
            wait_for_condition 100 20 {[r exists ttl:7] == 0} else { fail "ttl:7 did not expire" }
            for {set i 100} {$i < 200} {incr i} { r pexpire ttl:$i 1 }
            wait_for_condition 200 50 {[r exists ttl:150] == 0 && [r exists ttl:199] == 0} else {
                fail "active expiry lost track of moved keys"
            }
            assert_equal [string repeat r 60] [r get raw:[expr {[fill_size 3000] - 1}]]
            assert_equal 600 [r hlen bighash]
            r debug reload
        }
}

# Keys of five value sizes (five size classes), DEBUG POPULATE's prefix:0 ..
# prefix:N-1 each, then about 70% of every prefix deleted in a scattered
# pattern (a multiplicative hash of the index, so each run deletes the same
# keys), by DEL commands of up to 1000 keys sent from here. Not from a
# script: deleting by EVAL leaves blocks outside the keyspace (which no pass
# walks) scattered over the emptied slabs of the smallest classes, and the
# ratio then stops at 1.13-1.16 whatever the pass does.
proc fragment_mixed {n} {
    foreach {prefix size} {m16 16 m40 40 m100 100 m300 300 m700 700} {
        r debug populate $n $prefix $size
    }
    set kept 0
    foreach prefix {m16 m40 m100 m300 m700} {
        set batch {}
        for {set i 0} {$i < $n} {incr i} {
            if {($i * 2654435761) % 4294967296 < 3006477107} {
                lappend batch $prefix:$i
            } else {
                incr kept
            }
            if {[llength $batch] == 1000} {
                r del {*}$batch
                set batch {}
            }
        }
        if {[llength $batch]} { r del {*}$batch }
    }
    return $kept
}

# The waste the allocator shows for an empty server: jemalloc's 64 KiB pages
# give every size class the server touches a slab of its own, however few
# blocks it holds (about 3 MB here), and no pass can give it back.
proc allocator_waste {} { expr {[s allocator_active] - [s allocator_allocated]} }

# Whether the fragmentation is under LOWER percent. Natively the fill is big
# enough for the ratio INFO shows, and the pass decides by, to be the
# measure. Under an emulator the fill is a quarter as big and the empty
# server's waste (FLOOR bytes) alone would be a tenth of it: there the
# dataset's own waste, beyond FLOOR, is what is measured.
proc defrag_got_under {lower floor} {
    if {$::harness::opt(wrapper) eq ""} { return [expr {[s allocator_frag_ratio] < 1 + $lower / 100.0}] }
    expr {[allocator_waste] - $floor < [s allocator_allocated] * $lower / 100.0}
}

start_server {tags {defrag}} {
    test "mixed sizes, most keys deleted at random: defrag gets under the default lower threshold" {
        if {![jemalloc_build]} { skip "allocator is [s mem_allocator]: no active defrag" }
        set floor [allocator_waste]
        set kept [fragment_mixed [fill_size 200000]]
        assert_equal $kept [r dbsize]
        set before [s allocator_frag_ratio]
        if {$before < 1.5} { skip "the heap did not fragment (allocator_frag_ratio $before)" }
        # Redis's thresholds, a larger CPU share to be quick about it, and
        # ignore-bytes below the waste a quarter fill leaves (the default
        # 100mb is more than it makes).
        set lower [lindex [r config get active-defrag-threshold-lower] 1]
        assert_equal 10 $lower
        r config set active-defrag-ignore-bytes 1mb
        r config set active-defrag-cycle-min 25
        r config set active-defrag-cycle-max 75
        set digest [r debug digest]
        r config set activedefrag yes
        wait_for_condition 600 50 {[s active_defrag_hits] > 0 && [defrag_got_under $lower $floor]} else {
            fail "fragmentation stayed above ${lower}%: before $before, now [s allocator_frag_ratio]\
                  (allocated [s allocator_allocated], active [s allocator_active], empty-server waste $floor,\
                  hits [s active_defrag_hits], misses [s active_defrag_misses])"
        }
        assert_equal $kept [r dbsize]
        assert_equal $digest [r debug digest]
    }
}

# A moved block must never be under the feet of a forkless snapshot (it
# holds a value and a table cursor across its slices): no slice runs while
# one is in progress, the file is the dataset as it was, and the pass goes
# on afterwards.
# Makes a fragmented dataset and starts JOB (bgsave or bgrewriteaof) slowed
# down, then turns defrag on and writes while JOB runs (FIELD says it
# does): no block may move meanwhile. Returns the digest at JOB's start.
proc defrag_under_snapshot {job field} {
    r flushall
    fragment_heap frag [fill_size 100000] 60
    r rpush biglist {*}[lrepeat 3000 elem]
    defrag_eagerly
    r config set rdb-key-save-delay 200
    set digest [r debug digest]
    r $job
    r config set activedefrag yes
    wait_for_condition 100 20 {[s $field] == 1} else { fail "$job did not start" }
    set hits [s active_defrag_hits]
    for {set round 0} {$round < 300} {incr round} {
        r set frag:[expr {$round * 2 + 1}] new-$round
        r rpush biglist more
        r del frag:[expr {$round * 2 + 3}]
        # one INFO: a hit counted while JOB still runs is the fault; once
        # JOB is done the pass may go on (under emulation JOB can end
        # between two looks, so two INFOs would race)
        set info [r info]
        if {[info_field $info $field] != 1} break
        assert_equal $hits [info_field $info active_defrag_hits] "a block moved while $job ran"
    }
    r config set rdb-key-save-delay 0
    wait_for_condition 600 50 {[s $field] == 0} else { fail "$job still running" }
    wait_for_condition 600 50 {[s active_defrag_hits] > $hits} else { fail "defrag did not resume" }
    wait_for_condition 600 50 {[s active_defrag_running] == 0} else { fail "the pass did not end" }
    r config set activedefrag no
    return $digest
}

start_server {tags {defrag forkless} overrides {persistence-mode forkless}} {
    test "defrag and a forkless BGSAVE with clients writing: nothing moves under it, the file is the dataset at BGSAVE" {
        if {![jemalloc_build]} { skip "allocator is [s mem_allocator]: no active defrag" }
        set digest [defrag_under_snapshot bgsave rdb_bgsave_in_progress]
        assert_equal ok [s rdb_last_bgsave_status]
        restart_server
        assert_equal $digest [r debug digest]
    }
}

start_server {tags {defrag forkless} overrides {persistence-mode forkless appendonly yes}} {
    test "defrag and a forkless AOF rewrite with clients writing: nothing moves under it, the AOF replays to the data" {
        if {![jemalloc_build]} { skip "allocator is [s mem_allocator]: no active defrag" }
        defrag_under_snapshot bgrewriteaof aof_rewrite_in_progress
        set digest [r debug digest]
        r debug loadaof
        assert_equal $digest [r debug digest]
    }
}
