# stream-cgroups.tcl -- consumer groups and stream persistence: XGROUP
# (CREATE with MKSTREAM / ENTRIESREAD, SETID, DESTROY, CREATECONSUMER,
# DELCONSUMER, HELP), XREADGROUP (new entries, history, NOACK, COUNT,
# blocking: served by XADD, timeout, group destroyed, stream deleted or
# replaced), XACK, XPENDING (summary, range, IDLE, consumer), XCLAIM (IDLE,
# TIME, RETRYCOUNT, FORCE, JUSTID, LASTID, deleted entries), XAUTOCLAIM
# (cursor, COUNT, JUSTID, deleted IDs), XINFO STREAM [FULL] / GROUPS /
# CONSUMERS with entries-read and lag, the AOF form (XCLAIM ... LASTID and
# XGROUP SETID ... ENTRIESREAD), and persistence: DEBUG RELOAD, AOF
# rewrite, RDB files of Redis 7.0.15 (type 19) and of types 15 and 21
# (tests/assets), our dump in Redis 7.0.15, corrupt RESTORE payloads.
#
# Validated against Redis 7.0.15: ./runtest --server /usr/bin/redis-server
# --single tests/unit/type/stream-cgroups.tcl

# XINFO STREAM FULL without the clock's values (seen and delivery times).
proc full_info_without_times {key} {
    set info [r xinfo stream $key full count 0]
    set groups {}
    foreach g [dict get $info groups] {
        set pending [lmap p [dict get $g pending] {lreplace $p 2 2 T}]
        set consumers [lmap cs [dict get $g consumers] {
            set cpending [lmap p [dict get $cs pending] {lreplace $p 1 1 T}]
            dict set cs pending $cpending
            dict set cs seen-time T
        }]
        dict set g pending $pending
        dict set g consumers $consumers
        lappend groups $g
    }
    dict set info groups $groups
    return $info
}

start_server {tags {stream}} {
    test "XGROUP CREATE: $, explicit ID, MKSTREAM, ENTRIESREAD, BUSYGROUP" {
        r del s
        assert_error "ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use the MKSTREAM option to create an empty stream automatically." {r xgroup create s g $}
        assert_equal OK [r xgroup create s g $ MKSTREAM]
        assert_equal 0 [r xlen s]
        assert_error "BUSYGROUP Consumer Group name already exists" {r xgroup create s g 0}
        r xadd s 1-1 a 1
        assert_equal OK [r xgroup create s g2 0-0 ENTRIESREAD 0]
        assert_equal OK [r xgroup create s g3 $ ENTRIESREAD -1]
        assert_error "ERR value for ENTRIESREAD must be positive or -1" {r xgroup create s g4 $ ENTRIESREAD -2}
        assert_error "ERR value is not an integer or out of range" {r xgroup create s g4 $ ENTRIESREAD x}
        assert_error "ERR Invalid stream ID specified as stream command argument" {r xgroup create s g4 -}
        assert_error "ERR unknown subcommand or wrong number of arguments for 'create'. Try XGROUP HELP." {r xgroup create s g4 $ foo}
        assert_error "ERR wrong number of arguments for 'xgroup|create' command" {r xgroup create s g4}
        set names [lmap g [r xinfo groups s] {dict get $g name}]
        assert_equal {g g2 g3} $names
        r set str x
        assert_error "WRONGTYPE*" {r xgroup create str g $}
    }

    test "XGROUP SETID, DESTROY, CREATECONSUMER, DELCONSUMER and their errors" {
        r del s
        r xadd s 1-1 a 1
        r xgroup create s g 0
        assert_equal OK [r xgroup setid s g $]
        assert_equal 1-1 [dict get [lindex [r xinfo groups s] 0] last-delivered-id]
        assert_equal OK [r xgroup setid s g 0 ENTRIESREAD 0]
        assert_error "ERR value for ENTRIESREAD must be positive or -1" {r xgroup setid s g 0 ENTRIESREAD -3}
        assert_error "ERR unknown subcommand or wrong number of arguments for 'setid'. Try XGROUP HELP." {r xgroup setid s g 0 FOO 1}
        assert_error "NOGROUP No such consumer group 'nog' for key name 's'" {r xgroup setid s nog 0}
        # an exclusive "(" bound is no ID for SETID (it was taken as 1-0)
        r xgroup setid s g $
        foreach bad {(1 (1-1 ( 1- -1 1-x} {
            assert_error "ERR Invalid stream ID specified as stream command argument" {r xgroup setid s g $bad}
        }
        assert_equal 1-1 [dict get [lindex [r xinfo groups s] 0] last-delivered-id]
        assert_equal OK [r xgroup setid s g -]
        assert_equal 0-0 [dict get [lindex [r xinfo groups s] 0] last-delivered-id]
        assert_equal OK [r xgroup setid s g +]
        assert_equal 18446744073709551615-18446744073709551615 [dict get [lindex [r xinfo groups s] 0] last-delivered-id]
        r xgroup setid s g 0
        assert_error "ERR The XGROUP subcommand requires the key to exist*" {r xgroup setid nokey g 0}
        assert_equal 1 [r xgroup createconsumer s g c1]
        assert_equal 0 [r xgroup createconsumer s g c1]
        assert_error "NOGROUP No such consumer group 'nog' for key name 's'" {r xgroup createconsumer s nog c1}
        r xreadgroup group g c1 streams s >
        assert_equal 1 [r xgroup delconsumer s g c1]
        assert_equal 0 [r xgroup delconsumer s g c1]
        assert_equal 0 [lindex [r xpending s g] 0]
        assert_equal 1 [r xgroup destroy s g]
        assert_equal 0 [r xgroup destroy s g]
        assert_error "ERR unknown subcommand 'foo'. Try XGROUP HELP." {r xgroup foo s g}
        assert_match "*CREATECONSUMER*" [r xgroup help]
    }

    test "XREADGROUP delivers new entries once, then the consumer's history" {
        r del s
        foreach id {1-1 2-1 3-1 4-1} { r xadd s $id f $id }
        r xgroup create s g 0
        assert_equal {{s {{1-1 {f 1-1}}}}} [r xreadgroup group g alice count 1 streams s >]
        assert_equal {{s {{2-1 {f 2-1}} {3-1 {f 3-1}}}}} [r xreadgroup group g bob count 2 streams s >]
        assert_equal {{s {{2-1 {f 2-1}} {3-1 {f 3-1}}}}} [r xreadgroup group g bob streams s 0]
        assert_equal {{s {{3-1 {f 3-1}}}}} [r xreadgroup group g bob streams s 2-1]
        assert_equal {{s {}}} [r xreadgroup group g carol streams s 0]
        assert_equal {{s {{4-1 {f 4-1}}}}} [r xreadgroup group g carol streams s >]
        assert_equal {} [r xreadgroup group g carol streams s >]
        assert_equal {4 1-1 4-1 {{alice 1} {bob 2} {carol 1}}} [r xpending s g]
        # each read of bob's history counts a delivery of what it returned
        assert_equal {{2-1 bob 2} {3-1 bob 3}} [lmap p [r xpending s g - + 10 bob] {lreplace $p 2 2}]
    }

    test "XREADGROUP NOACK leaves the PEL alone; history of a deleted entry is a nil" {
        r del s
        r xadd s 1-1 f v
        r xadd s 2-1 f w
        r xgroup create s g 0
        r xreadgroup group g c1 count 1 streams s >
        r xreadgroup group g c2 NOACK streams s >
        assert_equal 1 [lindex [r xpending s g] 0]
        r xdel s 1-1
        assert_equal {{s {{1-1 {}}}}} [r xreadgroup group g c1 streams s 0]
    }

    test "XREADGROUP malformed arguments and missing groups" {
        r del s
        r xadd s 1-1 f v
        r xgroup create s g 0
        assert_error "ERR wrong number of arguments for 'xreadgroup' command" {r xreadgroup streams s 0}
        assert_error "ERR Missing GROUP option for XREADGROUP" {r xreadgroup count 1 noack streams s 0}
        assert_error "ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be specified." {r xreadgroup group g c streams s > s}
        assert_error "NOGROUP No such key 's' or consumer group 'nog' in XREADGROUP with GROUP option" {r xreadgroup group nog c streams s >}
        assert_error "NOGROUP No such key 'nokey' or consumer group 'g' in XREADGROUP with GROUP option" {r xreadgroup group g c streams nokey >}
        assert_error "ERR The $ ID is meaningless in the context of XREADGROUP*" {r xreadgroup group g c streams s $}
        assert_error "ERR Invalid stream ID specified as stream command argument" {r xreadgroup group g c streams s 1-x}
        assert_error "ERR value is not an integer or out of range" {r xreadgroup group g c count x streams s >}
        assert_error "ERR timeout is negative" {r xreadgroup group g c block -1 streams s >}
        assert_error "ERR syntax error" {r xreadgroup group g c foo streams s >}
    }

    test "XACK acknowledges only pending IDs; a bad ID acks nothing" {
        r del s
        foreach id {1-1 2-1 3-1} { r xadd s $id f v }
        r xgroup create s g 0
        r xreadgroup group g c streams s >
        assert_equal 1 [r xack s g 1-1 9-9]
        assert_equal 0 [r xack s g 1-1]
        assert_error "ERR Invalid stream ID specified as stream command argument" {r xack s g 2-1 x}
        assert_equal 2 [lindex [r xpending s g] 0]
        assert_equal 0 [r xack s nog x]
        assert_equal 0 [r xack nokey g 1-1]
        assert_equal 2 [r xack s g 2-1 3-1]
        assert_equal {0 {} {} {}} [r xpending s g]
    }

    test "XPENDING forms and errors" {
        r del s
        foreach id {1-1 2-1 3-1} { r xadd s $id f v }
        r xgroup create s g 0
        r xreadgroup group g a count 1 streams s >
        r xreadgroup group g b streams s >
        assert_equal {3 1-1 3-1 {{a 1} {b 2}}} [r xpending s g]
        assert_equal {1-1 2-1} [lmap p [r xpending s g - + 2] {lindex $p 0}]
        assert_equal {2-1 3-1} [lmap p [r xpending s g (1-1 + 10] {lindex $p 0}]
        assert_equal {1-1} [lmap p [r xpending s g - + 10 a] {lindex $p 0}]
        assert_equal {} [r xpending s g - + 10 nobody]
        assert_equal 3 [llength [r xpending s g IDLE 0 - + 10]]
        assert_equal {} [r xpending s g IDLE 100000 - + 10]
        assert_equal {} [r xpending s g - + -1]
        assert_error "ERR syntax error" {r xpending s g - +}
        assert_error "ERR syntax error" {r xpending s g IDLE 0 - +}
        assert_error "ERR syntax error" {r xpending s g - + 10 a b c d}
        assert_error "ERR value is not an integer or out of range" {r xpending s g - + x}
        assert_error "ERR value is not an integer or out of range" {r xpending s g IDLE x - + 10}
        assert_error "ERR Invalid stream ID specified as stream command argument" {r xpending s g x + 10}
        assert_error "NOGROUP No such key 's' or consumer group 'nog'" {r xpending s nog}
        assert_error "NOGROUP No such key 'nokey' or consumer group 'g'" {r xpending nokey g}
    }

    test "XCLAIM: min idle time, JUSTID, RETRYCOUNT, FORCE, LASTID, deleted entries" {
        r del s
        foreach id {1-1 2-1 3-1 4-1} { r xadd s $id f $id }
        r xgroup create s g 0
        r xreadgroup group g a count 3 streams s >
        assert_equal {} [r xclaim s g b 100000 1-1]
        assert_equal {{1-1 {f 1-1}}} [r xclaim s g b 0 1-1]
        assert_equal {2-1} [r xclaim s g b 0 2-1 JUSTID]
        assert_equal {{2-1 b 1}} [lmap p [r xpending s g 2-1 2-1 1] {lreplace $p 2 2}]
        r xclaim s g b 0 2-1 JUSTID RETRYCOUNT 9
        assert_equal {{2-1 b 9}} [lmap p [r xpending s g 2-1 2-1 1] {lreplace $p 2 2}]
        # not pending: nothing, unless FORCE
        assert_equal {} [r xclaim s g b 0 4-1]
        assert_equal {4-1} [r xclaim s g b 0 4-1 FORCE JUSTID]
        # IDLE and TIME set the delivery time
        r xclaim s g b 0 3-1 IDLE 500000 JUSTID
        assert_range [lindex [r xpending s g 3-1 3-1 1] 0 2] 500000 600000
        # a deleted entry leaves the PEL
        r xdel s 3-1
        assert_equal {} [r xclaim s g c 0 3-1]
        assert_equal {} [r xpending s g 3-1 3-1 1]
        assert_equal OK [lindex [list OK [r xclaim s g c 0 1-1 LASTID 9-9 JUSTID]] 0]
        assert_equal 9-9 [dict get [lindex [r xinfo groups s] 0] last-delivered-id]
        assert_error "ERR Invalid min-idle-time argument for XCLAIM" {r xclaim s g b x 1-1}
        assert_error "ERR Invalid IDLE option argument for XCLAIM" {r xclaim s g b 0 1-1 IDLE x}
        assert_error "ERR Invalid TIME option argument for XCLAIM" {r xclaim s g b 0 1-1 TIME x}
        assert_error "ERR Invalid RETRYCOUNT option argument for XCLAIM" {r xclaim s g b 0 1-1 RETRYCOUNT x}
        assert_error "ERR Invalid stream ID specified as stream command argument" {r xclaim s g b 0 1-1 LASTID x}
        assert_error "ERR Unrecognized XCLAIM option 'x'" {r xclaim s g b 0 1-1 x}
        assert_error "NOGROUP No such key 's' or consumer group 'nog'" {r xclaim s nog b 0 1-1}
    }

    test "XAUTOCLAIM: cursor, COUNT, JUSTID and the deleted IDs" {
        r del s
        foreach id {1-1 2-1 3-1 4-1 5-1} { r xadd s $id f $id }
        r xgroup create s g 0
        r xreadgroup group g a streams s >
        r xdel s 2-1
        assert_equal {3-1 {{1-1 {f 1-1}}} 2-1} [r xautoclaim s g b 0 0 COUNT 2]
        assert_equal {5-1 {3-1 4-1} {}} [r xautoclaim s g b 0 3-1 COUNT 2 JUSTID]
        assert_equal {0-0 5-1 {}} [r xautoclaim s g b 0 (4-1 JUSTID]
        assert_equal {0-0 {} {}} [r xautoclaim s g b 100000 0]
        assert_equal {{b 4}} [lindex [r xpending s g] 3]
        assert_error "ERR COUNT must be > 0" {r xautoclaim s g b 0 0 COUNT 0}
        assert_error "ERR COUNT must be > 0" {r xautoclaim s g b 0 0 COUNT x}
        assert_error "ERR syntax error" {r xautoclaim s g b 0 0 FOO}
        assert_error "ERR Invalid min-idle-time argument for XAUTOCLAIM" {r xautoclaim s g b x 0}
        assert_error "ERR Invalid stream ID specified as stream command argument" {r xautoclaim s g b 0 x}
        assert_error "ERR invalid start ID for the interval" {r xautoclaim s g b 0 (18446744073709551615-18446744073709551615}
        assert_error "NOGROUP No such key 's' or consumer group 'nog'" {r xautoclaim s nog b 0 0}
    }

    test "XINFO GROUPS entries-read and lag follow reads, deletions and SETID" {
        r del s
        foreach id {1-1 2-1 3-1 4-1} { r xadd s $id f v }
        r xgroup create s g 0
        set g [lindex [r xinfo groups s] 0]
        assert_equal {{} 4} [list [dict get $g entries-read] [dict get $g lag]]
        r xreadgroup group g c count 2 streams s >
        set g [lindex [r xinfo groups s] 0]
        assert_equal {2 2} [list [dict get $g entries-read] [dict get $g lag]]
        r xdel s 4-1
        set g [lindex [r xinfo groups s] 0]
        assert_equal {2 {}} [list [dict get $g entries-read] [dict get $g lag]]
        # reading past the deleted entry leaves the counter unknown, as 7.0 does
        r xreadgroup group g c streams s >
        set g [lindex [r xinfo groups s] 0]
        assert_equal {{} {}} [list [dict get $g entries-read] [dict get $g lag]]
        r xadd s 5-1 f v
        r xadd s 6-1 f v
        r xgroup setid s g 6-1
        set g [lindex [r xinfo groups s] 0]
        assert_equal {{} 0} [list [dict get $g entries-read] [dict get $g lag]]
        r xgroup setid s g 0
        set g [lindex [r xinfo groups s] 0]
        assert_equal {{} {}} [list [dict get $g entries-read] [dict get $g lag]]
        r xgroup create s g2 $
        assert_equal 0 [dict get [lindex [r xinfo groups s] 1] lag]
    }

    test "XINFO STREAM, FULL, CONSUMERS and errors" {
        r del s
        r xadd s 1-1 a 1
        r xadd s 2-1 b 2
        r xgroup create s g 0
        r xreadgroup group g c count 1 streams s >
        set info [r xinfo stream s]
        assert_equal 2 [dict get $info length]
        assert_equal 1 [dict get $info radix-tree-keys]
        assert_equal 2 [dict get $info radix-tree-nodes]
        assert_equal 2-1 [dict get $info last-generated-id]
        assert_equal 1 [dict get $info groups]
        assert_equal {1-1 {a 1}} [dict get $info first-entry]
        assert_equal {2-1 {b 2}} [dict get $info last-entry]
        set full [r xinfo stream s full]
        assert_equal {{1-1 {a 1}} {2-1 {b 2}}} [dict get $full entries]
        set g [lindex [dict get $full groups] 0]
        assert_equal 1 [dict get $g pel-count]
        assert_equal c [dict get [lindex [dict get $g consumers] 0] name]
        set consumer [lindex [r xinfo consumers s g] 0]
        assert_equal {c 1} [list [dict get $consumer name] [dict get $consumer pending]]
        assert_equal 1 [llength [dict get [r xinfo stream s full count 1] entries]]
        assert_error "ERR unknown subcommand or wrong number of arguments for 'stream'. Try XINFO HELP." {r xinfo stream s foo}
        assert_error "ERR value is not an integer or out of range" {r xinfo stream s full count x}
        assert_error "ERR no such key" {r xinfo stream nokey}
        assert_error "NOGROUP No such consumer group 'nog' for key name 's'" {r xinfo consumers s nog}
        assert_error "ERR unknown subcommand 'foo'. Try XINFO HELP." {r xinfo foo s}
        assert_match "*STREAM <key>*" [r xinfo help]
    }

    test "XINFO STREAM radix-tree-nodes as Redis counts them" {
        r del s
        r xgroup create s g $ MKSTREAM
        assert_equal 1 [dict get [r xinfo stream s] radix-tree-nodes]
        r config set stream-node-max-entries 1
        foreach id {1-1 1-2 2-1 300-1 70000-1 1695000000000-5} { r xadd s $id a 1 }
        r config set stream-node-max-entries 100
        assert_equal 6 [dict get [r xinfo stream s] radix-tree-keys]
        assert_equal 18 [dict get [r xinfo stream s] radix-tree-nodes]
    }

    test "Blocking XREADGROUP: served by XADD, timeout, not in MULTI" {
        r del s
        r xgroup create s g $ MKSTREAM
        set rd [redis_deferring_client]
        $rd xreadgroup group g c block 0 streams s >
        $rd flush
        wait_for_blocked_clients 1
        r xadd s 1-1 f v
        assert_equal {{s {{1-1 {f v}}}}} [$rd read]
        assert_equal {1 1-1 1-1 {{c 1}}} [r xpending s g]
        assert_equal {} [r xreadgroup group g c block 20 streams s >]
        r multi
        r xreadgroup group g c block 0 streams s >
        assert_equal {{}} [r exec]
        $rd close
    }

    test "Blocking XREADGROUP: group destroyed, stream deleted or replaced" {
        r del s
        r xgroup create s g $ MKSTREAM
        set rd [redis_deferring_client]
        $rd xreadgroup group g c block 0 streams s >
        $rd flush
        wait_for_blocked_clients 1
        r xgroup destroy s g
        assert_error "NOGROUP the consumer group this client was blocked on no longer exists" {$rd read}
        r xgroup create s g $
        $rd xreadgroup group g c block 0 streams s >
        $rd flush
        wait_for_blocked_clients 1
        r del s
        assert_error "UNBLOCKED the stream key no longer exists" {$rd read}
        r xgroup create s g $ MKSTREAM
        $rd xreadgroup group g c block 0 streams s >
        $rd flush
        wait_for_blocked_clients 1
        r set s notastream
        assert_error "UNBLOCKED the stream key no longer exists" {$rd read}
        wait_for_blocked_clients 0
        $rd close
    }

    # Issue #35: FLUSHALL, FLUSHDB and SWAPDB left the reader blocked forever;
    # 7.0.15 answers -UNBLOCKED for each, as for DEL.
    foreach flush {{flushall} {flushall async} {flushdb} {swapdb 0 1}} {
        test "Blocking XREADGROUP: stream removed by [lindex $flush 0]" {
            r flushall
            r xgroup create s g $ MKSTREAM
            set rd [redis_deferring_client]
            $rd xreadgroup group g c block 0 streams s >
            $rd flush
            wait_for_blocked_clients 1
            r {*}$flush
            assert_error "UNBLOCKED the stream key no longer exists" {$rd read}
            wait_for_blocked_clients 0
            $rd close
        }
    }

    test "Blocking XREADGROUP: SWAPDB bringing a stream with or without the group" {
        r flushall
        r xgroup create s g $ MKSTREAM
        r select 1
        r xgroup create s g $ MKSTREAM
        r select 0
        set rd [redis_deferring_client]
        $rd xreadgroup group g c block 0 streams s >
        $rd flush
        wait_for_blocked_clients 1
        r swapdb 0 1 ;# the same group there: still waiting
        r xadd s 1-1 f v
        assert_equal {{s {{1-1 {f v}}}}} [$rd read]
        r select 1
        r del s
        r xadd s 1-1 f v
        r select 0
        $rd xreadgroup group g c block 0 streams s >
        $rd flush
        wait_for_blocked_clients 1
        r swapdb 0 1 ;# a stream without the group
        assert_error "NOGROUP the consumer group this client was blocked on no longer exists" {$rd read}
        r multi
        r flushall
        r xgroup create s g $ MKSTREAM
        r exec
        $rd xreadgroup group g c block 0 streams s >
        $rd flush
        wait_for_blocked_clients 1
        r multi
        r flushall
        r xgroup create s g $ MKSTREAM
        r exec ;# gone and back within one EXEC: still waiting
        assert_equal 1 [s blocked_clients]
        r xadd s 1-1 f v
        assert_equal {{s {{1-1 {f v}}}}} [$rd read]
        $rd close
        r flushall
    }

    test "Consumers are created by reads and claims, with keyspace events" {
        r del s
        r xadd s 1-1 f v
        r xgroup create s g 0
        r config set notify-keyspace-events KEA
        set rd [redis_deferring_client]
        $rd psubscribe __keyevent@*
        $rd read
        r xreadgroup group g newc streams s >
        r xgroup createconsumer s g other
        r xgroup delconsumer s g other
        r xgroup setid s g 0
        r xgroup destroy s g
        set events {}
        for {set i 0} {$i < 5} {incr i} { lappend events [lindex [split [lindex [$rd read] 2] :] end] }
        assert_equal {xgroup-createconsumer xgroup-createconsumer xgroup-delconsumer xgroup-setid xgroup-destroy} $events
        r config set notify-keyspace-events ""
        $rd close
    }
}

start_server {tags {stream external:skip} overrides {appendonly yes appendfsync always aof-use-rdb-preamble no}} {
    test "AOF: reads are written as XCLAIM ... LASTID and XGROUP SETID ... ENTRIESREAD" {
        r del s
        foreach id {1-1 2-1 3-1} { r xadd s $id f v }
        r xgroup create s g 0
        r xreadgroup group g c count 1 streams s >
        r xreadgroup group g c noack streams s >
        set aof [exec cat {*}[glob [lindex [r config get dir] 1]/appendonlydir/*.incr.aof]]
        set flat [string map {"\r\n" " " "\n" " "} $aof]
        assert_match "*XCLAIM \$1 s \$1 g \$1 c \$1 0 \$3 1-1 \$4 TIME *RETRYCOUNT \$1 1 \$5 FORCE \$6 JUSTID \$6 LASTID \$3 1-1*" $flat
        assert_match "*XGROUP \$5 SETID \$1 s \$1 g \$3 3-1 \$11 ENTRIESREAD \$1 3*" $flat
        assert_no_match "*xreadgroup*" $flat
    }

    # Issue #35: a consumer created by XREADGROUP ... NOACK was not in the AOF
    # (no XCLAIM carries it), so DEBUG LOADAOF or a restart lost it. 7.0.15
    # writes XGROUP CREATECONSUMER before the read's XGROUP SETID, in MULTI.
    test "XREADGROUP NOACK: consumers it creates are in the AOF and survive DEBUG LOADAOF" {
        r flushall
        r xadd s 1-1 f v
        r xgroup create s g 0
        r xreadgroup group g fresh noack streams s >
        r xreadgroup group g hist noack streams s 0
        r xreadgroup group g fresh noack streams s 0 ;# exists already: nothing more
        r xreadgroup group g idle noack streams s > ;# nothing to read: not created, as in 7.0
        set rd [redis_deferring_client]
        $rd xreadgroup group g blk noack block 0 streams s >
        $rd flush
        wait_for_blocked_clients 1
        r xadd s 2-1 f v
        assert_equal {{s {{2-1 {f v}}}}} [$rd read]
        $rd close
        set names [lmap x [r xinfo consumers s g] {dict get $x name}]
        assert_equal {blk fresh hist} $names
        set aof [exec cat {*}[glob [lindex [r config get dir] 1]/appendonlydir/*.incr.aof]]
        set flat [string map {"\r\n" " " "\n" " "} $aof]
        assert_match "*MULTI \\*5 \$6 XGROUP \$14 CREATECONSUMER \$1 s \$1 g \$5 fresh \\*7 \$6 XGROUP \$5 SETID \$1 s \$1 g \$3 1-1 *EXEC*" $flat
        assert_match "*\$4 EXEC \\*5 \$6 XGROUP \$14 CREATECONSUMER \$1 s \$1 g \$4 hist \\*5*" $flat
        assert_equal 1 [regexp -all {CREATECONSUMER \$1 s \$1 g \$5 fresh} $flat]
        assert_match "*CREATECONSUMER \$1 s \$1 g \$3 blk \\*7 \$6 XGROUP \$5 SETID \$1 s \$1 g \$3 2-1 *" $flat
        r debug loadaof
        assert_equal $names [lmap x [r xinfo consumers s g] {dict get $x name}]
    }

    test "AOF rewrite and reload keep streams, groups, consumers and PELs" {
        r flushall
        r config set stream-node-max-entries 5
        for {set i 1} {$i <= 30} {incr i} { r xadd s $i-1 f $i g x }
        r config set stream-node-max-entries 100
        r xdel s 7-1 30-1
        r xgroup create s g1 0
        r xgroup create s g2 $ ENTRIESREAD 5
        r xreadgroup group g1 a count 4 streams s >
        r xreadgroup group g1 b count 2 streams s >
        r xgroup createconsumer s g1 idle
        r xgroup create empty g $ MKSTREAM
        r xadd gone 1-1 f v
        r xdel gone 1-1
        r xsetid gone 5-5 ENTRIESADDED 9 MAXDELETEDID 3-3
        set before [list [full_info_without_times s] [full_info_without_times empty] [full_info_without_times gone]]
        r bgrewriteaof
        wait_for_condition 200 50 {[s aof_rewrite_in_progress] == 0} else { fail "AOF rewrite did not finish" }
        r debug loadaof
        set after [list [full_info_without_times s] [full_info_without_times empty] [full_info_without_times gone]]
        # entries-read of g1 is not kept by XCLAIM replay: 7.0 rewrites the same way
        assert_equal [lindex $before 1] [lindex $after 1]
        assert_equal [lindex $before 2] [lindex $after 2]
        assert_equal [dict get [lindex $before 0] entries] [dict get [lindex $after 0] entries]
        assert_equal [dict get [lindex $before 0] length] [dict get [lindex $after 0] length]
        set pel_before [lmap g [dict get [lindex $before 0] groups] {dict get $g pending}]
        set pel_after [lmap g [dict get [lindex $after 0] groups] {dict get $g pending}]
        assert_equal $pel_before $pel_after
    }
}

start_server {tags {stream}} {
    test "DEBUG RELOAD keeps streams with groups exactly" {
        r flushall
        r config set stream-node-max-entries 5
        for {set i 1} {$i <= 40} {incr i} { r xadd s $i-1 f $i }
        r config set stream-node-max-entries 100
        r xdel s 3-1 40-1
        r xgroup create s g 0
        r xreadgroup group g a count 5 streams s >
        r xgroup create s g2 10-1
        r xgroup create e g $ MKSTREAM
        set before [list [r xinfo stream s full count 0] [r xinfo stream e full] [r debug digest]]
        r debug reload
        assert_equal $before [list [r xinfo stream s full count 0] [r xinfo stream e full] [r debug digest]]
    }
}

set streams_fixture [file normalize tests/assets/redis-7.0.15-streams.rdb]
set streams_keys {s-nodes s-groups s-empty s-emptied}

start_server {tags {stream external:skip}} {
    proc load_fixture {path} {
        r config set appendonly no
        file copy -force $path [file join [lindex [r config get dir] 1] dump.rdb]
        r debug reload nosave
    }

    test "An RDB of Redis 7.0.15 with streams (type 19) loads with the same XINFO and digest" {
        load_fixture $::streams_fixture
        set info [r xinfo stream s-nodes]
        assert_equal 246 [dict get $info length]
        assert_equal 251-0 [dict get $info last-generated-id]
        assert_equal 250-0 [dict get $info max-deleted-entry-id]
        assert_equal {4 0 1} [lmap g [r xinfo groups s-groups] {dict get $g pending}]
        set ref [reference_server]
        if {$ref eq ""} { skip "no reference server" }
        set c [start_reference $ref $::streams_fixture pid]
        foreach k $::streams_keys {
            assert_equal [$c xinfo stream $k full count 0] [r xinfo stream $k full count 0] $k
        }
        assert_equal [$c debug digest] [r debug digest]
        stop_reference $c $pid
    }

    test "RDB types 15 (Redis 5/6) and 21 (Redis 7.2) load as the type-19 original" {
        load_fixture $::streams_fixture
        set want [lmap k $::streams_keys {r xinfo stream $k full count 0}]
        if {[s server_name] ne ""} { ;# Redis 7.0 itself reads no RDB version 11
            load_fixture [file normalize tests/assets/streams-type21.rdb]
            assert_equal $want [lmap k $::streams_keys {r xinfo stream $k full count 0}]
        }
        load_fixture [file normalize tests/assets/streams-type15.rdb]
        # type 15 has no 7.0 counters: they are derived, as 7.0 derives them
        assert_equal 246 [dict get [r xinfo stream s-nodes] entries-added]
        assert_equal 0-0 [dict get [r xinfo stream s-nodes] max-deleted-entry-id]
        assert_equal 18446744073709551615-18446744073709551615 [dict get [r xinfo stream s-empty] recorded-first-entry-id]
        assert_equal [r xrange s-nodes - +] [lindex [list [r xrange s-nodes - +]] 0]
        set ref [reference_server]
        if {$ref eq ""} { skip "no reference server" }
        set c [start_reference $ref [file normalize tests/assets/streams-type15.rdb] pid]
        foreach k $::streams_keys {
            assert_equal [$c xinfo stream $k full count 0] [r xinfo stream $k full count 0] $k
        }
        stop_reference $c $pid
    }

    test "Redis 7.0.15 loads our dump of streams with groups" {
        load_fixture $::streams_fixture
        r xadd s-nodes 900-1 new entry
        r xreadgroup group g1 zed streams s-groups >
        r save
        set ref [reference_server]
        if {$ref eq ""} { skip "no reference server" }
        set c [start_reference $ref [file join [lindex [r config get dir] 1] dump.rdb] pid]
        foreach k $::streams_keys {
            assert_equal [r xinfo stream $k full count 0] [$c xinfo stream $k full count 0] $k
        }
        stop_reference $c $pid
    }
}

# ---- corrupt payloads ----------------------------------------------------------------------------

proc stream_crc64_table {} {
    set t {}
    for {set i 0} {$i < 256} {incr i} {
        set c $i
        for {set b 0} {$b < 8} {incr b} {
            set c [expr {($c & 1) ? (($c >> 1) ^ 0x95ac9329ac4bc9b5) : ($c >> 1)}]
        }
        lappend t $c
    }
    return $t
}
set ::stream_crc_table [stream_crc64_table]

# A DUMP payload for this body (type byte + value) with a valid trailer.
proc stream_payload {body} {
    set data "$body[binary format su 10]"
    set crc 0
    binary scan $data cu* bytes
    foreach b $bytes {
        set crc [expr {[lindex $::stream_crc_table [expr {($crc ^ $b) & 0xff}]] ^ ($crc >> 8)}]
    }
    return "$data[binary format i2 [list [expr {$crc & 0xffffffff}] [expr {($crc >> 32) & 0xffffffff}]]]"
}

start_server {tags {stream}} {
    test "RESTORE of corrupt stream payloads is refused, never a crash" {
        r config set rdbcompression no
        r config set sanitize-dump-payload yes ;# Redis 7.0 would assert on some otherwise
        r del s
        r config set stream-node-max-entries 4
        for {set i 1} {$i <= 10} {incr i} { r xadd s $i-1 f $i g [expr {$i * 7}] }
        r xdel s 4-1
        r xgroup create s g 0
        r xreadgroup group g c count 3 streams s >
        r config set stream-node-max-entries 100
        set body [string range [r dump s] 0 end-10]
        assert_equal OK [r restore copy 0 [stream_payload $body]]
        expr {srand(7)}
        set refused 0
        for {set i 0} {$i < 400} {incr i} {
            set pos [expr {int(rand() * [string length $body])}]
            set byte [binary format c [expr {int(rand() * 256)}]]
            set bad [string replace $body $pos $pos $byte]
            if {[catch {r restore bad 0 [stream_payload $bad] replace}]} {
                incr refused
            } else {
                # accepted: it must be usable
                r xrange bad - +
                r xinfo stream bad full
                catch {r xreadgroup group g c streams bad 0} ;# the group name may be what changed
            }
        }
        assert_morethan $refused 100
        for {set len 1} {$len < [string length $body]} {incr len 7} {
            assert_error "ERR Bad data format" {r restore trunc 0 [stream_payload [string range $body 0 $len]] replace}
        }
        assert_equal PONG [r ping]
    }

    test "RESTORE of a stream whose group names one consumer twice is refused, and the log says why" {
        r del s2
        r xadd s2 1-1 f v
        r xgroup create s2 g 0
        r xgroup createconsumer s2 g alice
        r xgroup createconsumer s2 g bobby
        set body [string range [r dump s2] 0 end-10]
        assert_equal OK [r restore copy2 0 [stream_payload $body]]
        set twice [string map {bobby alice} $body]
        assert {$twice ne $body}
        set level [lindex [r config get loglevel] 1]
        r config set loglevel verbose
        set from [log_line_count]
        assert_error "ERR Bad data format" {r restore twice 0 [stream_payload $twice]}
        r config set loglevel $level
        wait_for_log "*Duplicate stream consumer detected*" -from $from ;# Redis 7.0's words
        assert_equal 0 [r exists twice]
    }
}
