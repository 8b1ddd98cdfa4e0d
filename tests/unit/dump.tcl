# dump.tcl -- DUMP and RESTORE: every type and encoding round trip, TTLs
# (relative, ABSTTL, already past), REPLACE, IDLETIME/FREQ as OBJECT sees
# them, every error reply, corrupt payloads (truncated, bit-flipped,
# garbage: a few hundred random mutations, never a crash), DUMP in MULTI,
# notifications, WATCH, AOF replay, rdbcompression's effect on payloads,
# DEBUG OBJECT serializedlength, and payloads exchanged with Debian's Redis
# 7.0 in both directions.
#
# Design decisions:
# - Payloads are built and mutated here with a CRC-64 (Jones) written in
#   Tcl, so a corrupt body reaches the value decoder instead of stopping at
#   the checksum. The CRC is checked first against its published value.
# - Expectations are the reference's (the file passes on Redis 7.0.15);
#   the only 7.2+ behaviour (payload versions 11 and 12) is selected by the
#   server's version.
# - Round trips compare DEBUG DIGEST-VALUE and OBJECT ENCODING of the copy
#   with the original on the same server, so they hold whatever encodings
#   a given version picks.

# ---- payload helpers ----------------------------------------------------------------

proc crc64_init {} {
    set ::crc64_table {}
    for {set i 0} {$i < 256} {incr i} {
        set c $i
        for {set b 0} {$b < 8} {incr b} {
            set c [expr {($c & 1) ? (($c >> 1) ^ 0x95ac9329ac4bc9b5) : ($c >> 1)}]
        }
        lappend ::crc64_table $c
    }
}
crc64_init

proc crc64 {data} {
    set crc 0
    binary scan $data cu* bytes
    foreach b $bytes {
        set crc [expr {[lindex $::crc64_table [expr {($crc ^ $b) & 0xff}]] ^ ($crc >> 8)}]
    }
    return $crc
}

proc le64 {v} {
    return [binary format i2 [list [expr {$v & 0xffffffff}] [expr {($v >> 32) & 0xffffffff}]]]
}

# body (type byte + value) -> a payload with this RDB version and a valid CRC
proc make_payload {body {version 10}} {
    set data "$body[binary format su $version]"
    return "$data[le64 [crc64 $data]]"
}

proc payload_body {p} { return [string range $p 0 end-10] }

proc payload_version {p} {
    binary scan [string range $p end-9 end-8] su v
    return $v
}

# Redis 7.0 itself, not this server (which also says 7.0 but has a server_name).
proc is_redis70 {} { return [expr {[s server_name] eq "" && [string match 7.0.* [s redis_version]]}] }

# ---- data -------------------------------------------------------------------------------

# Creates one key per type and encoding; returns their names.
proc fill_encodings {} {
    r flushall
    r set s:int 12345
    r set s:neg -70000
    r set s:wide 9999999999999
    r set s:emb hello
    r set s:raw [string repeat "raw value " 20]
    r set s:lzf [string repeat abcdefgh 50]
    r set s:bin [binary format c* {0 255 13 10 1 2 3}]
    r set s:lead 0123
    r rpush l:small a b 3 -4 [string repeat x 40]
    r rpush l:big {*}[lmap i [lrepeat 1000 x] {string cat $i [incr ::n]}]
    r rpush l:plain [string repeat p 10000] q
    r sadd set:int 1 2 -3 4000000000
    r sadd set:small a b c
    r sadd set:big {*}[lmap i [lrepeat 700 x] {string cat m [incr ::n]}]
    r sadd set:bigint {*}[lmap i [lrepeat 700 x] {incr ::n}]
    r zadd z:small 1 a 2.5 b -inf c inf d
    r zadd z:big {*}[concat {*}[lmap i [lrepeat 200 x] {list [incr ::n] [string repeat m 70][incr ::n]}]]
    r hset h:small a 1 b 2 c [string repeat y 30]
    r hset h:big {*}[concat {*}[lmap i [lrepeat 300 x] {list f[incr ::n] v$::n}]] long [string repeat y 200]
    return [lsort [r keys *]]
}

proc digest_value {key} { return [lindex [r debug digest-value $key] 0] }

# ---- tests -----------------------------------------------------------------------------------

start_server {tags {dump}} {
    test "The Tcl CRC-64 matches its check value" {
        assert_equal [format %llx 0xe9c6d914c4b8d9ca] [format %llx [crc64 123456789]]
    }

    test "DUMP of a missing key is nil" {
        r del nokey
        assert_equal {} [r dump nokey]
    }

    test "DUMP payload layout: value, version 10, CRC-64 of the rest" {
        r set k 123
        set p [r dump k]
        assert_equal "\x00\xc0\x7b" [payload_body $p]
        assert_equal 10 [payload_version $p]
        assert_equal $p [make_payload [payload_body $p]]
    }

    test "DUMP / RESTORE round trip for every type and encoding" {
        foreach key [fill_encodings] {
            set p [r dump $key]
            assert_equal OK [r restore copy:$key 0 $p]
            assert_equal [digest_value $key] [digest_value copy:$key] "digest of $key"
            assert_equal [r object encoding $key] [r object encoding copy:$key] "encoding of $key"
            assert_equal -1 [r ttl copy:$key]
        }
    }

    test "DEBUG OBJECT serializedlength is the payload's value length" {
        set keys [fill_encodings]
        # over 64 KB, incompressible: counted across the writer's flushes
        r set s:random [binary format c* [lmap x [lrepeat 100000 0] {expr {int(rand() * 256)}}]]
        r rpush l:random {*}[lmap x [lrepeat 3000 0] {expr {rand()}}]
        foreach key [concat $keys s:random l:random] {
            regexp {serializedlength:(\d+)} [r debug object $key] -> len
            assert_equal [expr {[string length [r dump $key]] - 11}] $len "serializedlength of $key"
        }
    }

    test "Integers and rdbcompression in payloads" {
        r config set rdbcompression yes
        r set k 123
        assert_equal 13 [string length [r dump k]]
        r set k -70000
        assert_equal 16 [string length [r dump k]]
        r set k 0123
        assert_equal 16 [string length [r dump k]]
        r set k 4294967296
        assert_equal 22 [string length [r dump k]]
        r set k [string repeat x 100]
        assert_lessthan [string length [r dump k]] 30
        r config set rdbcompression no
        assert_equal 113 [string length [r dump k]]
        r config set rdbcompression yes
    }

    test "RESTORE-ASKING restores as RESTORE does (on a server without cluster mode)" {
        r del ra-src ra-dst
        r rpush ra-src a b c
        set payload [r dump ra-src]
        assert_equal OK [r restore-asking ra-dst 0 $payload]
        assert_equal {a b c} [r lrange ra-dst 0 -1]
        assert_error "BUSYKEY*" {r restore-asking ra-dst 0 $payload}
        assert_equal OK [r restore-asking ra-dst 0 $payload REPLACE]
        assert_error "ERR DUMP payload version or checksum are wrong" {r restore-asking ra-x 0 garbage}
        assert_error "ERR wrong number of arguments for 'restore-asking' command" {r restore-asking ra-x 0}
        assert_equal 0 [r exists ra-x]
    }

    test "RESTORE with a relative TTL, ABSTTL, and none" {
        r set src v
        set p [r dump src]
        r del a b c
        assert_equal OK [r restore a 100000 $p]
        assert_range [r pttl a] 90000 100000
        set when [expr {[clock milliseconds] + 200000}]
        assert_equal OK [r restore b $when $p ABSTTL]
        assert_equal $when [r pexpiretime b]
        assert_equal OK [r restore c 0 $p]
        assert_equal -1 [r pttl c]
    }

    test "RESTORE with a TTL already past creates nothing, REPLACE deletes" {
        r set src v
        set p [r dump src]
        r del gone
        assert_equal OK [r restore gone 1 $p ABSTTL]
        assert_equal 0 [r exists gone]
        r set old x
        set dirty [s rdb_changes_since_last_save]
        assert_equal OK [r restore old 1 $p ABSTTL REPLACE]
        assert_equal 0 [r exists old]
        assert_equal [expr {$dirty + 1}] [s rdb_changes_since_last_save]
    }

    test "RESTORE REPLACE and BUSYKEY" {
        r set src new
        set p [r dump src]
        r set dst old
        assert_error "BUSYKEY Target key name already exists." {r restore dst 0 $p}
        assert_equal old [r get dst]
        r expire dst 1000
        assert_equal OK [r restore dst 0 $p REPLACE]
        assert_equal new [r get dst]
        assert_equal -1 [r ttl dst]
        r rpush list a
        assert_equal OK [r restore list 0 $p replace]
        assert_equal string [r type list]
    }

    test "RESTORE IDLETIME sets OBJECT IDLETIME (LRU policy)" {
        r config set maxmemory-policy allkeys-lru
        r set src v
        set p [r dump src]
        r del k
        r restore k 0 $p IDLETIME 1000
        assert_range [r object idletime k] 1000 1010
        # beyond half the 24-bit clock's cycle: still that idle
        r restore k 0 $p REPLACE IDLETIME 10000000
        assert_range [r object idletime k] 9999990 10000010
        r restore k 0 $p REPLACE FREQ 100
        assert_range [r object idletime k] 0 5
        r config set maxmemory-policy noeviction
    }

    test "RESTORE FREQ sets OBJECT FREQ (LFU policy)" {
        r config set maxmemory-policy allkeys-lfu
        r set src v
        set p [r dump src]
        r del k
        r restore k 0 $p FREQ 100
        assert_equal 100 [r object freq k]
        r restore k 0 $p REPLACE FREQ 0
        assert_equal 0 [r object freq k]
        r restore k 0 $p REPLACE IDLETIME 1000
        assert_equal 5 [r object freq k]
        r config set maxmemory-policy noeviction
    }

    test "RESTORE argument errors" {
        r set src v
        set p [r dump src]
        r set exists x
        r del k
        assert_error "ERR wrong number of arguments for 'restore' command" {r restore k 0}
        assert_error "ERR value is not an integer or out of range" {r restore k abc $p}
        assert_error "ERR Invalid TTL value, must be >= 0" {r restore k -1 $p}
        assert_error "ERR value is not an integer or out of range" {r restore k 0 $p IDLETIME x}
        assert_error "ERR Invalid IDLETIME value, must be >= 0" {r restore k 0 $p IDLETIME -1}
        assert_error "ERR value is not an integer or out of range" {r restore k 0 $p FREQ x}
        assert_error "ERR Invalid FREQ value, must be >= 0 and <= 255" {r restore k 0 $p FREQ 256}
        assert_error "ERR Invalid FREQ value, must be >= 0 and <= 255" {r restore k 0 $p FREQ -1}
        assert_error "ERR syntax error" {r restore k 0 $p IDLETIME 1 FREQ 1}
        assert_error "ERR syntax error" {r restore k 0 $p FREQ 1 IDLETIME 1}
        assert_error "ERR syntax error" {r restore k 0 $p IDLETIME}
        assert_error "ERR syntax error" {r restore k 0 $p FREQ}
        assert_error "ERR syntax error" {r restore k 0 $p REPLACE foo}
        # options are checked before the key, the key before the TTL
        assert_error "ERR syntax error" {r restore exists 0 $p foo}
        assert_error "BUSYKEY*" {r restore exists abc $p}
        assert_error "ERR Invalid TTL value*" {r restore k -1 garbage}
        assert_equal 0 [r exists k]
    }

    test "RESTORE payload errors: checksum, version, size, content" {
        r del k
        set p [r dump src]
        set body [payload_body $p]
        set bad "[string range $p 0 end-1][format %c [expr {([scan [string index $p end] %c] ^ 1) & 255}]]"
        assert_error "ERR DUMP payload version or checksum are wrong" {r restore k 0 $bad}
        assert_error "ERR DUMP payload version or checksum are wrong" {r restore k 0 ""}
        assert_error "ERR DUMP payload version or checksum are wrong" {r restore k 0 "[string range $p 0 end-11][string range $p end-9 end]"}
        assert_error "ERR DUMP payload version or checksum are wrong" {r restore k 0 123456789}
        assert_error "ERR DUMP payload version or checksum are wrong" {r restore k 0 [make_payload $body 13]}
        set zero "$body[binary format su 10][string repeat \x00 8]"
        assert_error "ERR DUMP payload version or checksum are wrong" {r restore k 0 $zero}
        assert_error "ERR Bad data format" {r restore k 0 [make_payload ""]}
        assert_error "ERR Bad data format" {r restore k 0 [make_payload "\xc8garbage"]}
        assert_error "ERR Bad data format" {r restore k 0 [make_payload "\x00\x20ab"]}
        assert_error "ERR Bad data format" {r restore k 0 [make_payload "\x01\x00"]}
        assert_error "ERR Bad data format" {r restore k 0 [make_payload "\x02\x02\x01a\x01a"]}
        # a quicklist whose one node is plain (1) and empty: no such node is ever written (Redis 7.0 refuses it too)
        assert_error "ERR Bad data format" {r restore k 0 [make_payload "\x12\x01\x01\x00"]}
        # an empty zipmap (type 9): no Redis ever wrote one; Redis 7.0 logs this line for it
        set level [lindex [r config get loglevel] 1]
        r config set loglevel verbose
        set from [log_line_count]
        assert_error "ERR Bad data format" {r restore k 0 [make_payload "\x09\x02\x00\xff"]}
        r config set loglevel $level
        wait_for_log "*Zipmap integrity check failed*" -from $from
        assert_equal 0 [r exists k]
        # older versions are fine; bytes after the value are ignored
        assert_equal OK [r restore k 0 [make_payload $body 6]]
        assert_equal OK [r restore k 0 [make_payload "${body}trailing"] REPLACE]
        assert_equal v [r get k]
    }

    test "RESTORE payload versions 11 and 12 (7.2+)" {
        set body [payload_body [r dump src]]
        foreach v {11 12} {
            if {[is_redis70]} {
                assert_error "ERR DUMP payload version*" {r restore k$v 0 [make_payload $body $v]}
            } else {
                assert_equal OK [r restore k$v 0 [make_payload $body $v]]
            }
        }
    }

    test "Corrupt payloads never crash the server (random mutations)" {
        r config set sanitize-dump-payload yes
        set sources [fill_encodings]
        set payloads [lmap key $sources {r dump $key}]
        set outcomes [dict create]
        for {set i 0} {$i < 400} {incr i} {
            set p [lindex $payloads [expr {int(rand() * [llength $payloads])}]]
            set body [payload_body $p]
            set len [string length $body]
            set pos [expr {int(rand() * $len)}]
            switch [expr {$i % 5}] {
                0 { set body [string range $body 0 [expr {$pos - 1}]] }
                1 {
                    set byte [expr {[scan [string index $body $pos] %c] ^ (1 << int(rand() * 8))}]
                    set body [string replace $body $pos $pos [format %c $byte]]
                }
                2 { set body [string replace $body $pos $pos [format %c [expr {int(rand() * 256)}]]] }
                3 { set body "[string range $body 0 $pos][format %c [expr {int(rand() * 256)}]][string range $body [expr {$pos + 1}] end]" }
                4 { set body [binary format c* [lmap x [lrepeat [expr {1 + int(rand() * 40)}] 0] {expr {int(rand() * 256)}}]] }
            }
            if {[catch {r restore fuzz 0 [make_payload $body] REPLACE} err]} {
                assert_match "*Bad data format*" $err
                dict incr outcomes refused
            } else {
                dict incr outcomes restored
                r debug digest-value fuzz
                r dump fuzz
            }
        }
        assert_equal PONG [r ping]
        assert {[dict exists $outcomes refused]}
        r config set sanitize-dump-payload no
    }

    test "DUMP inside MULTI" {
        r set k v
        r multi
        r dump k
        r get k
        set res [r exec]
        assert_equal v [lindex $res 1]
        r del k2
        assert_equal OK [r restore k2 0 [lindex $res 0]]
        assert_equal v [r get k2]
    }

    test "RESTORE fires a restore event and touches WATCHed keys" {
        r set src v
        set p [r dump src]
        r config set notify-keyspace-events KEg
        set rd [rd]
        $rd psubscribe __keyevent@*__:restore
        $rd read
        r del w
        r restore w 0 $p
        set msg [$rd read]
        assert_equal w [lindex $msg 3]
        $rd close
        r config set notify-keyspace-events ""
        set other [redis_client]
        r watch w
        $other restore w 0 $p REPLACE
        r multi
        r get w
        assert_equal {} [r exec]
        $other close
    }

    test "A payload DUMPed by Redis 7.0 restores with the same digest, and back" {
        set ref [reference_server]
        if {$ref eq ""} { skip "Debian's redis-server is not installed (apt-get install redis-server)" }
        set keys [fill_encodings]
        set ours [dict create]
        foreach key $keys { dict set ours $key [list [r dump $key] [digest_value $key]] }
        r flushall
        r save
        set c [start_reference $ref [file join [srv dir] dump.rdb] pid]
        set bad {}
        dict for {key v} $ours {
            lassign $v p digest
            $c restore $key 0 $p
            if {[lindex [$c debug digest-value $key] 0] ne $digest} { lappend bad "ours->redis $key" }
            r restore back:$key 0 [$c dump $key]
            if {[digest_value back:$key] ne $digest} { lappend bad "redis->ours $key" }
        }
        stop_reference $c $pid
        assert_equal {} $bad
    }
}

start_server {tags {dump aof} overrides {appendonly yes appendfsync always}} {
    test "RESTORE replays from the AOF to the same dataset (TTL made absolute)" {
        r set src hello
        r rpush list a b c 1 2 3
        set p [r dump list]
        r restore rel 100000 $p
        r restore abs [expr {[clock milliseconds] + 100000}] $p ABSTTL
        r restore none 0 $p IDLETIME 10
        r set doomed x
        r restore doomed 1 $p ABSTTL REPLACE
        set when [r pexpiretime rel]
        set digest [r debug digest]
        after 20
        assert_equal OK [r debug loadaof]
        assert_equal $digest [r debug digest]
        assert_equal $when [r pexpiretime rel]
        assert_equal 0 [r exists doomed]
        assert_equal {a b c 1 2 3} [r lrange none 0 -1]
    }
}
