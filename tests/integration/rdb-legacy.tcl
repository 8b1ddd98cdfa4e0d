# rdb-legacy.tcl -- dumps in the encodings of Redis before 7.0 (zipmap,
# ziplist, quicklist v1), RDB versions 1..12, and the value types this
# server refuses (modules, hashes with field TTLs).
#
# tests/assets/legacy-v9-all-types.rdb is written byte by byte by
# tests/assets/make-legacy-rdb.py (Debian only ships Redis 7.0, which writes
# listpacks). So that the check is not circular, Redis 7.0.15 is the judge:
# its DEBUG DIGEST of the file is recorded below, and where Debian's
# redis-server is installed the test loads the file there too and compares
# every key's type, expire time and contents with ours. The corrupt variants
# (tests/assets/legacy-corrupt-*.rdb) must be refused by both servers; ours
# must exit with status 1 and a message naming the problem, never crash.
#
# Under QEMU the emulated server (big-endian, or 32-bit) loads the same
# bytes, so this is also the cross-architecture check of the converters.
#
# Known difference, deliberate: Redis 7.0.15 keeps a ziplist hash that is
# over the hash-max-listpack-* thresholds as a listpack when loading it (a
# zipmap, or a ziplist zset, it converts by the thresholds); this server
# applies the thresholds to every type. Lists differ in encoding too (7.0 has no
# listpack lists). Encodings are therefore compared for sets, sorted sets
# and strings only; the others are checked against our own thresholds.

set legacy_fixture [file normalize tests/assets/legacy-v9-all-types.rdb]
# DEBUG DIGEST of the fixture in Redis 7.0.15 (Debian 5:7.0.15-1~deb12u10).
set legacy_digest f03b1dbc94f9db139fbd5895a9d56961b52bd1b0


# The suite also runs against Debian's Redis 7.0 (./runtest --server
# /usr/bin/redis-server): checks of our own messages, thresholds and RDB
# versions 11-12 are skipped or relaxed there.
# Redis 7.0 itself, not this server (which also says 7.0 but has a server_name).
proc is_redis70 {} { return [expr {[s server_name] eq "" && [string match 7.0.* [s redis_version]]}] }

proc put_dump {data} {
    set fd [open [file join [srv dir] dump.rdb] w]
    fconfigure $fd -translation binary
    puts -nonewline $fd $data
    close $fd
}

# Stops the server, puts `file` in its place as dump.rdb and starts it.
proc restart_with {path} {
    shutdown_server
    file copy -force $path [file join [srv dir] dump.rdb]
    restart_server
}

# Every key of the fixture's databases as {db key type pexpiretime value},
# the same way for any client command prefix (r, or a reference client).
proc describe_dataset {call} {
    set out {}
    foreach db {0 3} {
        {*}$call select $db
        foreach k [lsort [{*}$call keys *]] {
            set t [{*}$call type $k]
            switch $t {
                string { set v [{*}$call get $k] }
                list { set v [{*}$call lrange $k 0 -1] }
                hash { set v [lsort -stride 2 [{*}$call hgetall $k]] }
                set { set v [lsort [{*}$call smembers $k]] }
                zset { set v [{*}$call zrange $k 0 -1 withscores] }
                default { set v "?" }
            }
            set enc [expr {$t in {set zset string} ? [{*}$call object encoding $k] : "-"}]
            lappend out [list $db $k $t $enc [{*}$call pexpiretime $k] $v]
        }
    }
    {*}$call select 0
    return $out
}



# Runs the reference on a file that must be refused: its exit status and log.
proc reference_refuses {ref path} {
    set dir [file join [srv dir] ref-[clock clicks]]
    file mkdir $dir
    file copy -force $path [file join $dir dump.rdb]
    set port [::harness::find_free_port]
    set log [file join $dir log]
    set status 0
    if {[catch {exec timeout 30 $ref --port $port --bind 127.0.0.1 --dir $dir --save "" --logfile $log} err opts]} {
        set status [lindex [dict get $opts -errorcode] 2]
    }
    return [list $status [::harness::read_file $log]]
}

# A small RDB of `version` whose body (after SELECTDB 0) is `body`, with a
# zero checksum (which both servers accept) from version 5 on.
proc tiny_rdb {version body} {
    set data "REDIS[format %04d $version][binary format cc 0xFE 0]$body[binary format c 0xFF]"
    if {$version >= 5} { append data [binary format x8] }
    return $data
}
proc rdb_str {s} { return [binary format ca* [string length $s] $s] }
proc string_key {k v} { return "[binary format c 0][rdb_str $k][rdb_str $v]" }

set every_int [list 0 1 12 13 -1 127 -128 128 -129 32767 -32768 32768 -32769 8388607 -8388608 8388608 -8388609 \
    2147483647 -2147483648 2147483648 -2147483649 9223372036854775807 -9223372036854775808 \
    2 3 4 5 6 7 8 9 10 11]

# The thresholds of the shipped redis.conf (the built-in hash default is 512, as in Redis)
start_server {tags {rdb rdb-legacy} overrides {hash-max-listpack-entries 128}} {
    test "A version-9 dump with every ziplist-era type loads with Redis's digest" {
        restart_with $legacy_fixture
        assert_equal $::legacy_digest [r debug digest]
        assert_equal 17 [r dbsize]
        assert_equal 0 [r exists expired:s-signed] ;# its seconds expire is a negative int32, as Redis reads it
        # ziplist list: every integer encoding, then strings of every length class
        assert_equal $::every_int [r lrange ziplist:list 0 32]
        assert_equal {0 1 63 64 253 254 16383 16384} [lmap s [r lrange ziplist:list 33 40] {string length $s}]
        assert_equal {after-big prevlen5-small 12 -0 007 {}} [r lrange ziplist:list 41 -1]
        assert_equal 70000 [r llen ziplist:biglist]
        assert_equal {-150 -149} [r lrange ziplist:biglist 0 1]
        assert_equal {a 1 b 2} [r lrange ziplist:small-list 0 -1]
        # quicklist v1: a raw node, an LZF one, an empty one, one with a 5-byte prevlen
        assert_equal 11 [r llen quicklist:v1]
        assert_equal {q1 q2 3 -300} [r lrange quicklist:v1 0 3]
        assert_equal {n2-b 100000} [r lrange quicklist:v1 5 6]
        assert_equal {8589934592 tail} [r lrange quicklist:v1 -2 -1]
        # zset scores stored as integers and as strings (inf, exponents)
        assert_equal [list ninf -inf neg -5 quarter -0.25 zero 0 tiny 1.0000000000000002 half 1.5 {} 2 42 3.5 \
                          int-score 7 big-int-score 1099511627776 huge 1e+100 pinf inf] \
            [r zrange ziplist:zset 0 -1 withscores]
        assert_equal 150 [r zcard ziplist:bigzset]
        # hashes: zipmap (free bytes, 5-byte length, zmlen 254) and ziplist
        assert_equal {{} empty-field a 1 bb {} ccc value} [lsort -stride 2 [r hgetall zipmap:small]]
        assert_equal 300 [r hstrlen zipmap:big x]
        assert_equal {7 seven big 1099511627776 count 42 empty {} name legacy neg -70000} \
            [lsort -stride 2 [r hgetall ziplist:hash]]
        assert_equal 200 [r hlen ziplist:bighash]
        assert_equal 16384 [r hstrlen ziplist:hash-bigvalue k]
        # intsets, strings, expires (ms and s opcodes), a second database
        assert_equal {-32768 -3 5 1000 32767} [lsort -integer [r smembers intset:16]]
        assert_equal {-4611686018427387904 1 1099511627776} [lsort -integer [r smembers intset:64]]
        assert_equal -123456 [r get string:int]
        assert_equal 500 [r strlen string:lzf]
        assert_equal 4102444800000 [r pexpiretime string:plain]
        assert_equal 4102444800000 [r pexpiretime ziplist:hash]
        assert_equal 2147483000000 [r pexpiretime ziplist:small-list]
        assert_equal 2147483000000 [r pexpiretime quicklist:v1-ttl]
        r select 3
        assert_equal v [r hget db3:hash f]
        assert_equal 4102444800000 [r pexpiretime db3:hash]
        r select 0
    }

    test "Legacy values take our encodings by the *-max-listpack-* thresholds" {
        assert_encoding listpack zipmap:small
        assert_encoding hashtable zipmap:big      ;# a 300-byte value
        assert_encoding listpack ziplist:hash
        if {![is_redis70]} { ;# Redis 7.0 keeps these two listpacks (see the top of the file)
            assert_encoding hashtable ziplist:bighash ;# 200 fields
            assert_encoding hashtable ziplist:hash-bigvalue
        }
        assert_encoding listpack ziplist:zset
        assert_encoding skiplist ziplist:bigzset  ;# 150 members
        assert_encoding quicklist ziplist:biglist
        assert_encoding intset intset:64
    }

    test "Redis 7.0.15 loads the same dump to the same digest and contents" {
        set ref [reference_server]
        if {$ref eq ""} { skip "Debian's redis-server is not installed (apt-get install redis-server): checked against the recorded digest only" }
        set c [start_reference $ref $::legacy_fixture pid]
        set ref_digest [$c debug digest]
        set theirs [describe_dataset $c]
        stop_reference $c $pid
        assert_equal $::legacy_digest $ref_digest "the recorded reference digest"
        set ours [describe_dataset r]
        assert_equal [llength $theirs] [llength $ours] "number of keys"
        foreach a $theirs b $ours {
            if {$a ne $b} {
                fail "key [lrange $a 0 1] differs: Redis has [string range $a 0 300]..., we have [string range $b 0 300]..."
            }
        }
    }

    test "Converted values survive DEBUG RELOAD and a restart" {
        assert_equal OK [r debug reload]
        assert_equal $::legacy_digest [r debug digest]
        r save
        restart_server
        assert_equal $::legacy_digest [r debug digest]
    }

    foreach {name message} {
        truncated  "List ziplist integrity check failed"
        prevlen    "List ziplist integrity check failed"
        zllen      "Hash ziplist integrity check failed"
        encoding   "List ziplist integrity check failed"
        zltail     "Quicklist node ziplist integrity check failed"
        dup-field  "Hash ziplist integrity check failed (duplicate hash field)"
        dup-member "Zset ziplist integrity check failed (duplicate zset member)"
        dup-zipmap "Hash zipmap integrity check failed (duplicate hash field)"
        zipmap     "Zipmap integrity check failed"
        odd-hash   "Hash ziplist integrity check failed (odd number of hash entries)"
    } {
        test "A legacy dump with a bad blob ($name) is refused, by Redis too" {
            set path [file normalize tests/assets/legacy-corrupt-$name.rdb]
            set redis70 [is_redis70]
            shutdown_server
            file copy -force $path [file join [srv dir] dump.rdb]
            assert_equal 1 [server_exit_status]
            if {!$redis70} { assert_match "*Error loading the RDB file*: $message*" [log_tail 0 20] }
            assert_match "*Terminating server after rdb file reading failure.*" [log_tail 0 3]
            set ref [reference_server]
            if {$ref ne ""} {
                lassign [reference_refuses $ref $path] status log
                assert_equal 1 $status "Redis's exit status"
                assert {[regexp {integrity check failed|with dup elements} $log]} "Redis's log: $log"
            }
            file delete [file join [srv dir] dump.rdb]
            restart_server
        }
    }

    test "Empty collections in a dump are skipped and logged, as Redis 7.0 does" {
        set path [file normalize tests/assets/empty-collections.rdb]
        set from [log_line_count]
        restart_with $path
        assert_equal 2 [r dbsize]
        assert_equal {v1 v2} [r mget good1 good2]
        foreach k {set list_ziplist list_quicklist hash_ziplist zset_ziplist} {
            wait_for_log "*rdbLoadObject skipping empty key: $k" -from $from
        }
        wait_for_log "*keys loaded: 2, keys expired: 0, empty keys skipped: 5.*" -from $from
        set ref [reference_server]
        if {$ref ne ""} {
            # Redis's own load of the same file: the same keys skipped
            set rc [start_reference $ref $path ref_pid]
            assert_equal 2 [$rc dbsize]
            assert_equal {v1 v2} [$rc mget good1 good2]
            stop_reference $rc $ref_pid
        }
        file delete [file join [srv dir] dump.rdb]
        restart_server
    }

    test "RDB versions 3 to 12 load when their types are known" {
        if {[is_redis70]} { skip "Redis 7.0 reads RDB versions up to 10 only" }
        foreach version {3 4 5 9 10 11 12} {
            shutdown_server
            set body [string_key k v$version]
            if {$version == 12} { append body [binary format cccc 0xF4 5 1 0] [string_key k2 w] } ;# 7.4's SLOT_INFO
            put_dump [tiny_rdb $version $body]
            restart_server
            assert_equal v$version [r get k]
        }
        assert_equal w [r get k2]
        shutdown_server
        put_dump [tiny_rdb 13 [string_key k v]]
        assert_equal 1 [server_exit_status]
        assert_match "*Can't handle RDB format version*" [log_tail 0 20]
        file delete [file join [srv dir] dump.rdb]
        restart_server
    }

    test "Pre-GA modules and hashes with field TTLs are refused, naming the type" {
        if {[is_redis70]} { skip "this server's refusal (Redis 7.0 does not read RDB version 12)" }
        foreach {type name} {
            6 "module (pre-GA)" 22 "hash with field TTLs (pre-GA)" 23 "hash listpack with field TTLs (pre-GA)"
            24 "hash with field TTLs" 25 "hash listpack with field TTLs" 8 unknown 26 unknown
        } {
            shutdown_server
            put_dump [tiny_rdb 12 "[string_key ok 1][binary format c $type][rdb_str key][rdb_str whatever]"]
            assert_equal 1 [server_exit_status]
            assert_match "*Unsupported RDB value type $type ($name)*" [log_tail 0 30]
        }
        # type 7 is a module's value: refused when no loaded module has its type (moduleapi.tcl loads one)
        shutdown_server
        put_dump [tiny_rdb 12 "[string_key ok 1][binary format c 7][rdb_str key][rdb_str whatever]"]
        assert_equal 1 [server_exit_status]
        assert_match "*The RDB file contains module data I can't load: no matching module type*" [log_tail 0 30]
        file delete [file join [srv dir] dump.rdb]
        restart_server
        assert_equal 0 [r dbsize]
    }
}

start_server {tags {rdb rdb-legacy} overrides {hash-max-listpack-entries 1000 zset-max-listpack-entries 1000}} {
    test "Raised thresholds keep big legacy hashes and sorted sets as listpacks" {
        restart_with $legacy_fixture
        assert_equal $::legacy_digest [r debug digest]
        assert_encoding listpack ziplist:bighash
        assert_encoding listpack ziplist:bigzset
        assert_encoding hashtable zipmap:big ;# its value is still over hash-max-listpack-value
    }
}
