# moduleapi-stream.tcl -- the stream key API of Redis 7.0 modules
# (src/module_stream.c: StreamAdd, StreamDelete, StreamIteratorStart/Stop/
# NextID/NextField/Delete, StreamTrimByLength, StreamTrimByID,
# CreateStringFromStreamID, StringToStreamID), through the test module
# tests/modules/mstream.c, and what XRANGE, XLEN and XINFO see afterwards.
# Run with --server /usr/bin/redis-server to check every expectation
# against Debian's Redis 7.0.15 loading the same .so.
#
# Redis 7.0.15 asserts when NextID is called while fields of the entry are
# still unread, or again after it answered ENOENT at an end bound; no test
# here does either (we answer the next entry and ENOENT).

source [file join $::harness_dir modules.tcl] ;# module_skip_reason, need_modules

# s: 1-1 {a 1}, 1-2 {a 2 b 2}, 2-0 {c 3}, 3-5 {a 4}, 7-0 {z 26}
proc mstream_fill {} {
    r del s
    r mstream.run s w add 0 1-1 1 a 1 add 0 1-2 2 a 2 b 2 add 0 2 1 c 3 add 0 3-5 1 a 4 add 0 7-0 1 z 26
}

# key: entries i-seq {n i} for i in 1..n, added by the module, nodes of at
# most `per_node` entries (the config stays so until the test resets it).
proc mstream_fill_numbered {key n per_node {seq 0}} {
    r config set stream-node-max-entries $per_node
    r del $key
    set ops {}
    for {set i 1} {$i <= $n} {incr i} { lappend ops add 0 $i-$seq 1 n $i }
    r mstream.run $key w {*}$ops
}

# Field/value pairs of XRANGE's reply as "id f=v ..." lines, as `walk` gives them.
proc mstream_xrange {key args} {
    set lines {}
    foreach entry [r xrange $key {*}$args] {
        set line [lindex $entry 0]
        foreach {f v} [lindex $entry 1] { append line " $f=$v" }
        lappend lines $line
    }
    return $lines
}

start_server {tags {module} overrides {enable-module-command yes}} {
    test "StreamAdd: explicit IDs, too small or 0-0 is EDOM, XRANGE/XLEN/XINFO see the entries" {
        need_modules
        r module load [file join $::module_dir mstream.so]
        r del s
        assert_equal {1-1 1-2 EDOM EDOM EDOM 5-0} \
            [r mstream.run s w add 0 1-1 1 a 1 add 0 1-2 2 a 2 b 2 add 0 1-2 1 x 1 add 0 1-0 1 x 1 add 0 0-0 1 x 1 add 0 5 1 c 3]
        assert_equal {{1-1 {a 1}} {1-2 {a 2 b 2}} {5-0 {c 3}}} [r xrange s - +]
        assert_equal 3 [r xlen s]
        set info [r xinfo stream s]
        assert_equal 3 [dict get $info length]
        assert_equal 3 [dict get $info entries-added]
        assert_equal 5-0 [dict get $info last-generated-id]
        assert_equal 1-1 [dict get $info recorded-first-entry-id]
        assert_equal stream [r type s]
    }

    test "StreamAdd: AUTOID gives a new ID above the last, with or without an ID to fill" {
        need_modules
        set ids [r mstream.run s w add 1 null 1 f v add 1 0-0 1 g w]
        assert_equal OK [lindex $ids 0]
        set id [lindex $ids 1]
        assert_match {*-*} $id
        assert {[lindex [split $id -] 0] > 1000}
        assert_equal 5 [r xlen s]
        assert_equal $id [lindex [r xrevrange s + - count 1] 0 0]
        assert_equal {g w} [lindex [r xrevrange s + - count 1] 0 1]
        assert_equal $id [dict get [r xinfo stream s] last-generated-id]
        # an explicit ID below the automatic one is refused
        assert_equal {EDOM} [r mstream.run s w add 0 6-0 1 x 1]
    }

    test "StreamAdd on an empty key opened for writing creates the stream; errors EBADF, ENOTSUP, EINVAL" {
        need_modules
        r del fresh str
        assert_equal {9-9} [r mstream.run fresh w add 0 9-9 2 f1 v1 f2 v2]
        assert_equal {{9-9 {f1 v1 f2 v2}}} [r xrange fresh - +]
        # read-only key: EBADF, even when the key exists
        assert_equal {EBADF} [r mstream.run fresh r add 0 10-0 1 f v]
        assert_equal 1 [r xlen fresh]
        # a missing key opened for reading gives no handle: EINVAL
        assert_equal {EINVAL EINVAL EINVAL EINVAL} [r mstream.run nokey r add 1 null 1 f v start 0 null null del 1-1 tlen 0 1]
        assert_equal 0 [r exists nokey]
        # wrong type
        r set str v
        assert_equal {ENOTSUP ENOTSUP ENOTSUP ENOTSUP ENOTSUP} \
            [r mstream.run str w add 1 null 1 f v del 1-1 start 0 null null tlen 0 1 tid 0 1-1]
        assert_equal v [r get str]
        # no ID without AUTOID, unknown flags: EINVAL; nothing was created
        assert_equal {EINVAL EINVAL EINVAL} [r mstream.run fresh2 w add 0 null 1 f v add 2 null 1 f v add 3 5-5 1 f v]
        assert_equal 0 [r exists fresh2]
        # 0-0 is refused before the key is created
        assert_equal {EDOM} [r mstream.run fresh2 w add 0 0-0 1 f v]
        assert_equal 0 [r exists fresh2]
    }

    test "StringToStreamID and CreateStringFromStreamID: ms alone, - and +, bad strings refused" {
        need_modules
        assert_equal {5-0 5-7 0-0 18446744073709551615-18446744073709551615 BADID BADID BADID BADID} \
            [r mstream.run s r id 5 id 5-7 id - id + id abc id 5-x id 18446744073709551616-1 id 5-*]
    }

    test "iterator: forward and reverse, NULL bounds are the whole stream, NextField over every field" {
        need_modules
        mstream_fill
        set all {{1-1 a=1} {1-2 a=2 b=2} {2-0 c=3} {3-5 a=4} {7-0 z=26}}
        assert_equal [list OK $all] [r mstream.run s r start 0 null null walk]
        assert_equal $all [mstream_xrange s - +]
        assert_equal [list OK [lreverse $all]] [r mstream.run s r start 2 null null walk]
        assert_equal {OK {1-2 2} a=2 b=2 ENOENT {2-0 1} c=3 ENOENT} \
            [r mstream.run s r start 0 1-2 2-0 next field field field next field field]
    }

    test "iterator: inclusive and exclusive bounds, both directions, empty and inverted ranges" {
        need_modules
        assert_equal {OK {{1-2 a=2 b=2} {2-0 c=3} {3-5 a=4}}} [r mstream.run s r start 0 1-2 3-5 walk]
        assert_equal {OK {{2-0 c=3}}} [r mstream.run s r start 1 1-2 3-5 walk]
        assert_equal {OK {{3-5 a=4} {2-0 c=3} {1-2 a=2 b=2}}} [r mstream.run s r start 2 1-2 3-5 walk]
        assert_equal {OK {{2-0 c=3}}} [r mstream.run s r start 3 1-2 3-5 walk]
        assert_equal {OK {{3-5 a=4} {7-0 z=26}}} [r mstream.run s r start 1 2-0 null walk]
        assert_equal {OK {{1-2 a=2 b=2} {1-1 a=1}}} [r mstream.run s r start 3 null 2-0 walk]
        # bounds between entries, outside the stream, inverted
        assert_equal {OK {{2-0 c=3} {3-5 a=4}}} [r mstream.run s r start 0 1-3 5 walk]
        assert_equal {OK {}} [r mstream.run s r start 0 8 9 walk]
        assert_equal {OK {}} [r mstream.run s r start 0 3 2 walk]
        assert_equal {OK {}} [r mstream.run s r start 1 2-0 2-0 walk]
        assert_equal {OK {}} [r mstream.run s r start 3 1-2 1-3 walk]
        assert_equal {OK {{2-0 c=3}}} [r mstream.run s r start 2 2-0 2-0 walk]
    }

    test "iterator errors: EDOM at the ID ends, EINVAL flags, EBADF twice started or stopped, ENOENT fields" {
        need_modules
        assert_equal {EDOM} [r mstream.run s r start 1 18446744073709551615-18446744073709551615 null]
        assert_equal {EDOM} [r mstream.run s r start 1 null 0-0]
        assert_equal {OK} [r mstream.run s r start 1 0-0 null]
        assert_equal {OK {{1-1 a=1}}} [r mstream.run s r start 0 0-0 1-1 walk]
        assert_equal {EINVAL EINVAL} [r mstream.run s r start 4 null null start 8 null null]
        assert_equal {OK EBADF OK EBADF EBADF EBADF} [r mstream.run s r start 0 null null start 0 null null stop stop next field]
        assert_equal {EBADF EBADF EBADF} [r mstream.run s w next field idel]
        assert_equal {OK ENOENT {1-1 1} a=1 ENOENT} [r mstream.run s r start 0 null null field next field field]
        # a new iterator after Stop starts over
        assert_equal {OK {1-1 1} a=1 OK OK {{3-5 a=4} {7-0 z=26}}} \
            [r mstream.run s r start 0 null null next field stop start 0 3 null walk]
    }

    test "StreamDelete: an entry, a missing one ENOENT, EBADF read-only or while iterating" {
        need_modules
        mstream_fill
        assert_equal {ENOENT OK ENOENT} [r mstream.run s w del 9-9 del 2-0 del 2-0]
        assert_equal {EBADF} [r mstream.run s r del 1-1]
        assert_equal {OK EBADF OK OK} [r mstream.run s w start 0 null null del 1-1 stop del 1-1]
        assert_equal {{1-2 a=2 b=2} {3-5 a=4} {7-0 z=26}} [mstream_xrange s - +]
        assert_equal 3 [r xlen s]
        # as in Redis 7.0, a module's delete records neither the deleted ID
        # nor a new first entry
        set info [r xinfo stream s]
        assert_equal 0-0 [dict get $info max-deleted-entry-id]
        assert_equal 1-1 [dict get $info recorded-first-entry-id]
        assert_equal 1-2 [lindex [dict get $info first-entry] 0]
        assert_equal 5 [dict get $info entries-added]
        # deleting every entry leaves an empty stream
        assert_equal {OK OK OK} [r mstream.run s w del 1-2 del 3-5 del 7-0]
        assert_equal {0 1 stream} [list [r xlen s] [r exists s] [r type s]]
    }

    test "StreamIteratorDelete: during a walk both ways; twice, before NextID or read-only is an error" {
        need_modules
        mstream_fill
        # forward: delete 1-2 and 3-5, keep reading around them
        assert_equal {OK {1-1 1} a=1 {1-2 2} OK ENOENT ENOENT {2-0 1} c=3 {3-5 1} OK {7-0 1} z=26 ENOENT} \
            [r mstream.run s w start 0 null null next field next idel idel field next field next idel next field next]
        assert_equal {{1-1 a=1} {2-0 c=3} {7-0 z=26}} [mstream_xrange s - +]
        # reverse: delete 7-0 and 1-1
        assert_equal {OK {7-0 1} OK {2-0 1} c=3 {1-1 1} a=1 OK ENOENT} \
            [r mstream.run s w start 2 null null next idel next field next field idel next]
        assert_equal {{2-0 c=3}} [mstream_xrange s - +]
        assert_equal 1 [r xlen s]
        assert_equal {OK ENOENT} [r mstream.run s w start 0 null null idel]
        assert_equal {OK {2-0 1} EBADF} [r mstream.run s r start 0 null null next idel]
        assert_equal 1 [r xlen s]
    }

    test "StreamIteratorDelete across many nodes: every other entry, then the rest in reverse" {
        need_modules
        mstream_fill_numbered big 50 4 1
        # forward: read each entry's field, delete the even ones
        set ops {start 0 null null}
        for {set i 1} {$i <= 50} {incr i} {
            lappend ops next field
            if {$i % 2 == 0} { lappend ops idel }
        }
        r mstream.run big w {*}$ops
        assert_equal 25 [r xlen big]
        set expect {}
        for {set i 1} {$i <= 50} {incr i 2} { lappend expect "$i-1 n=$i" }
        assert_equal $expect [mstream_xrange big - +]
        assert_equal [list OK [lreverse $expect]] [r mstream.run big r start 2 null null walk]
        # reverse, exclusive bounds: delete all but the first and the last
        set ops {start 3 1-1 49-1}
        for {set i 1} {$i <= 23} {incr i} { lappend ops next idel }
        set reply [r mstream.run big w {*}$ops]
        assert_equal {OK {47-1 1} OK {45-1 1} OK} [lrange $reply 0 4]
        assert_equal {{1-1 n=1} {49-1 n=49}} [mstream_xrange big - +]
        r config set stream-node-max-entries 100
    }

    test "StreamTrimByLength: exact and approximate (whole nodes only), errors" {
        need_modules
        mstream_fill_numbered t 35 10
        assert_equal {20} [r mstream.run t w tlen 1 15]
        assert_equal 15 [r xlen t]
        assert_equal 21-0 [lindex [r xrange t - + count 1] 0 0]
        assert_equal {0} [r mstream.run t w tlen 1 10]
        assert_equal {5 0} [r mstream.run t w tlen 0 10 tlen 0 10]
        assert_equal 26-0 [lindex [r xrange t - + count 1] 0 0]
        assert_equal 26-0 [dict get [r xinfo stream t] recorded-first-entry-id]
        assert_equal {EINVAL EINVAL} [r mstream.run t w tlen 2 1 tlen 0 -1]
        assert_equal {EBADF} [r mstream.run t r tlen 0 0]
        assert_equal 10 [r xlen t]
        assert_equal {10 0} [r mstream.run t w tlen 0 0 tlen 1 0]
        assert_equal {0 1} [list [r xlen t] [r exists t]]
        r config set stream-node-max-entries 100
    }

    test "StreamTrimByID: exact and approximate, errors; XINFO sees the new first entry" {
        need_modules
        mstream_fill_numbered t 35 10
        # approximate: nodes 1..10 and 11..20 end below 25-0, 21..30 does not
        assert_equal {20} [r mstream.run t w tid 1 25]
        assert_equal 21-0 [lindex [r xrange t - + count 1] 0 0]
        assert_equal {4 0} [r mstream.run t w tid 0 25 tid 0 25]
        assert_equal {{25-0 {n 25}}} [r xrange t - + count 1]
        set info [r xinfo stream t]
        assert_equal 11 [dict get $info length]
        assert_equal 25-0 [dict get $info recorded-first-entry-id]
        assert_equal 35 [dict get $info entries-added]
        assert_equal {EINVAL EINVAL} [r mstream.run t w tid 2 30 tid 0 null]
        assert_equal {EBADF} [r mstream.run t r tid 0 30]
        assert_equal {11} [r mstream.run t w tid 0 99]
        assert_equal {0 1} [list [r xlen t] [r exists t]]
        r config set stream-node-max-entries 100
    }

    test "module stream writes send no keyspace events; a stream StreamAdd creates is a new key" {
        need_modules
        r del ev marker
        r xadd ev 1-1 a 1
        r config set notify-keyspace-events KEA
        set rd [redis_deferring_client]
        $rd psubscribe __keyevent@*__:*
        $rd read
        r mstream.run ev w add 1 null 1 f v add 0 100-0 1 g w del 1-1 tlen 0 5 tid 0 0-1 start 0 null null next idel
        r xadd marker * m 1
        assert_match {pmessage * __keyevent@*__:xadd marker} [$rd read]
        r config set notify-keyspace-events KEn
        r del newkey
        r mstream.run newkey w add 0 1-1 1 f v
        assert_match {pmessage * __keyevent@*__:new newkey} [$rd read]
        $rd close
        r config set notify-keyspace-events ""
    }

    test "StreamAdd wakes an XREAD blocked on the key, existing or created" {
        need_modules
        r del blk
        r xadd blk 1-1 a 1
        set rd [redis_deferring_client]
        $rd xread block 0 streams blk $
        wait_for_blocked_clients 1
        r mstream.run blk w add 0 2-2 1 b 2
        assert_equal {{blk {{2-2 {b 2}}}}} [$rd read]
        r del blk2
        $rd xread block 0 streams blk2 $
        wait_for_blocked_clients 1
        r mstream.run blk2 w add 0 3-3 1 c 3
        assert_equal {{blk2 {{3-3 {c 3}}}}} [$rd read]
        $rd close
    }

    test "where Redis 7.0.15 asserts: NextID with fields unread or after the end, writes during a walk" {
        need_modules
        if {![ours]} { skip "Redis 7.0.15 asserts in streamIteratorGetID on these sequences" }
        mstream_fill
        # unread fields are skipped; after the end NextID keeps answering ENOENT
        assert_equal {OK {1-1 1} {1-2 2} a=2 {2-0 1} ENOENT ENOENT ENOENT} \
            [r mstream.run s r start 0 1-1 2-0 next next field next next next field]
        # an entry added during a walk is met when it is in the range; the
        # current entry's fields end with the change
        assert_equal {OK {1-1 1} 8-0 ENOENT {{1-2 a=2 b=2} {2-0 c=3} {3-5 a=4} {7-0 z=26} {8-0 q=9}}} \
            [r mstream.run s w start 0 null null next add 0 8 1 q 9 field walk]
        # a trim during a walk: it goes on with what is left of both
        assert_equal {OK {1-1 1} a=1 4 {{7-0 z=26} {8-0 q=9}}} \
            [r mstream.run s w start 0 null null next field tlen 0 2 walk]
        assert_equal {OK {8-0 1} q=9 2 {}} \
            [r mstream.run s w start 2 null null next field tid 0 9 walk]
        assert_equal {0 1} [list [r xlen s] [r exists s]]
    }
}
