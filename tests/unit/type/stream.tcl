# stream.tcl -- the stream type without consumer groups: XADD (automatic,
# explicit and <ms>-* IDs, NOMKSTREAM, MAXLEN / MINID with = and ~, LIMIT),
# XRANGE / XREVRANGE (exclusive bounds, COUNT), XLEN, XDEL, XTRIM, XSETID,
# XREAD (several streams, COUNT, "$", BLOCK: wake-up order, timeouts in
# RESP2 and RESP3, MULTI, CLIENT UNBLOCK), the 7.0 bookkeeping seen through
# XINFO STREAM when it exists, node boundaries (stream-node-max-entries /
# -bytes), keyspace events, the AOF form of automatic IDs and approximate
# trims, and every malformed argument we know of with 7.0.15's error text.
#
# Validated against Redis 7.0.15: ./runtest --server /usr/bin/redis-server
# --single tests/unit/type/stream.tcl

start_server {tags {stream}} {
    test "XADD with explicit IDs, <ms>-* and * keeps IDs increasing" {
        r del s
        assert_equal 1-1 [r xadd s 1-1 a 1]
        assert_equal 1-2 [r xadd s 1-* a 2]
        assert_equal 5-0 [r xadd s 5 a 3]
        assert_equal 7-0 [r xadd s 7-* a 4]
        set auto [r xadd s * a 5]
        assert_match {*-*} $auto
        assert {[lindex [split $auto -] 0] > 7}
        assert_equal 5 [r xlen s]
        assert_equal stream [r type s]
        assert_equal stream [r object encoding s]
    }

    test "XADD refuses IDs not above the top item, and 0-0" {
        r del s
        r xadd s 5-5 a 1
        assert_error "ERR The ID specified in XADD is equal or smaller than the target stream top item" {r xadd s 5-5 a 1}
        assert_error "ERR The ID specified in XADD is equal or smaller than the target stream top item" {r xadd s 5-4 a 1}
        assert_error "ERR The ID specified in XADD is equal or smaller than the target stream top item" {r xadd s 4-* a 1}
        assert_error "ERR The ID specified in XADD must be greater than 0-0" {r xadd s 0-0 a 1}
        assert_error "ERR The ID specified in XADD must be greater than 0-0" {r xadd fresh 0-0 a 1}
        assert_equal 0 [r exists fresh]
        assert_equal 5-6 [r xadd s 5-* a 1]
    }

    test "XADD at the largest ID, then nothing more fits" {
        r del s
        assert_equal 18446744073709551615-18446744073709551615 [r xadd s 18446744073709551615-18446744073709551615 a 1]
        assert_error "ERR The stream has exhausted the last possible ID, unable to add more items" {r xadd s * a 1}
        assert_error "ERR The stream has exhausted the last possible ID, unable to add more items" {r xadd s 1-1 a 1}
        r del s
        r xadd s 18446744073709551615-18446744073709551614 a 1
        assert_equal 18446744073709551615-18446744073709551615 [r xadd s 18446744073709551615-* a 1]
    }

    test "XADD malformed arguments" {
        r del s
        foreach id {1-x x - + 1-- -1 1-1-1 {}} {
            assert_error "ERR Invalid stream ID specified as stream command argument" [list r xadd s $id a 1]
        }
        assert_error "ERR wrong number of arguments for 'xadd' command" {r xadd s * a}
        assert_error "ERR wrong number of arguments for 'xadd' command" {r xadd s * a 1 b}
        assert_error "ERR wrong number of arguments for 'xadd' command" {r xadd s maxlen 1 nomkstream}
        assert_error "ERR The MAXLEN argument must be >= 0." {r xadd s MAXLEN -1 * a 1}
        assert_error "ERR value is not an integer or out of range" {r xadd s MAXLEN x * a 1}
        assert_error "ERR syntax error, LIMIT cannot be used without the special ~ option" {r xadd s MAXLEN 1 LIMIT 10 * a 1}
        assert_error "ERR syntax error, LIMIT cannot be used without specifying a trimming strategy" {r xadd s LIMIT 10 * a 1}
        assert_error "ERR The LIMIT argument must be >= 0." {r xadd s MAXLEN ~ 1 LIMIT -1 * a 1}
        assert_error "ERR syntax error, MAXLEN and MINID options at the same time are not compatible" {r xadd s MAXLEN 1 MINID 0 * a 1}
        assert_error "ERR Invalid stream ID specified as stream command argument" {r xadd s MINID - * a 1}
        assert_error "ERR Invalid stream ID specified as stream command argument" {r xadd s MINID 1-* * a 1}
        assert_equal 0 [r exists s]
    }

    test "XADD accepts the ID forms 7.0 parses like strtoull" {
        r del s
        assert_equal 5-1 [r xadd s 05-1 a 1]
        assert_equal 5-2 [r xadd s 5-+2 a 1]
    }

    test "XADD NOMKSTREAM on a missing key replies nil and creates nothing" {
        r del s
        assert_equal {} [r xadd s NOMKSTREAM * a 1]
        assert_equal 0 [r exists s]
        r xadd s 1-1 a 1
        assert_equal 2-1 [r xadd s NOMKSTREAM 2-1 a 1]
    }

    test "Stream commands on a key of another type" {
        r del s
        r set s x
        foreach cmd {{xadd s * a 1} {xrange s - +} {xrevrange s + -} {xlen s} {xdel s 1-1}
                     {xtrim s maxlen 1} {xsetid s 1-1} {xread streams s 0}} {
            assert_error "WRONGTYPE*" [list r {*}$cmd]
        }
        r del s
    }

    test "XRANGE / XREVRANGE with -, +, partial and exclusive IDs, COUNT" {
        r del s
        foreach id {1-1 1-2 2-0 2-5 3-0} { r xadd s $id f $id }
        set ids {}
        foreach e [r xrange s - +] { lappend ids [lindex $e 0] }
        assert_equal {1-1 1-2 2-0 2-5 3-0} $ids
        assert_equal {{2-0 {f 2-0}} {2-5 {f 2-5}}} [r xrange s 2 2]
        assert_equal {{1-2 {f 1-2}} {2-0 {f 2-0}}} [r xrange s (1-1 (2-5]
        assert_equal {{2-5 {f 2-5}} {2-0 {f 2-0}}} [r xrevrange s (3-0 (1-2]
        assert_equal {{1-1 {f 1-1}}} [r xrange s - + COUNT 1]
        assert_equal {{3-0 {f 3-0}} {2-5 {f 2-5}}} [r xrevrange s + - COUNT 2]
        assert_equal {} [r xrange s - + COUNT 0]
        assert_equal {} [r xrange s - + COUNT -1]
        assert_equal {} [r xrange s 3-1 +]
        assert_equal {} [r xrange s + -]
        assert_equal {} [r xrange nokey - +]
        assert_equal {} [r xrevrange nokey + -]
    }

    test "XRANGE malformed bounds and options" {
        r del s
        r xadd s 1-1 a 1
        foreach bad {{( +} {(- +} {- (+} {1-x +} {- 1-x}} {
            assert_error "ERR Invalid stream ID specified as stream command argument" [list r xrange s {*}$bad]
        }
        assert_error "ERR invalid start ID for the interval" {r xrange s (18446744073709551615-18446744073709551615 +}
        assert_error "ERR invalid end ID for the interval" {r xrange s - (0-0}
        assert_error "ERR value is not an integer or out of range" {r xrange s - + COUNT x}
        assert_error "ERR syntax error" {r xrange s - + COUNT}
        assert_error "ERR syntax error" {r xrange s - + FOO 1}
        assert_error "ERR wrong number of arguments for 'xrange' command" {r xrange s -}
    }

    test "XRANGE across many nodes, both directions" {
        r del s
        r config set stream-node-max-entries 7
        for {set i 1} {$i <= 100} {incr i} { r xadd s $i-1 n $i v x }
        r config set stream-node-max-entries 100
        assert_equal 100 [llength [r xrange s - +]]
        set rev [r xrevrange s + -]
        assert_equal 100-1 [lindex $rev 0 0]
        assert_equal 1-1 [lindex $rev end 0]
        assert_equal {{50-1 {n 50 v x}} {51-1 {n 51 v x}}} [r xrange s 50 51]
        assert_equal {{51-1 {n 51 v x}} {50-1 {n 50 v x}}} [r xrevrange s 51 50]
        assert_equal 10 [llength [r xrange s (20-1 + COUNT 10]]
        assert_equal 21-1 [lindex [r xrange s (20-1 + COUNT 10] 0 0]
    }

    test "Entries with fields other than the node's first entry" {
        r del s
        r xadd s 1-1 a 1 b 2
        r xadd s 2-1 a 3 b 4
        r xadd s 3-1 b 5 a 6
        r xadd s 4-1 c 7
        r xadd s 5-1 a 8 b 9 c 10
        assert_equal {{1-1 {a 1 b 2}} {2-1 {a 3 b 4}} {3-1 {b 5 a 6}} {4-1 {c 7}} {5-1 {a 8 b 9 c 10}}} [r xrange s - +]
    }

    test "Node size limits: stream-node-max-bytes and binary values" {
        r del s
        r config set stream-node-max-bytes 100
        set big [string repeat x 300]
        r xadd s 1-1 f $big
        r xadd s 2-1 f "a\x00b"
        r xadd s 3-1 f 12345678901234
        r config set stream-node-max-bytes 4096
        assert_equal [list [list 1-1 [list f $big]] [list 2-1 [list f "a\x00b"]] {3-1 {f 12345678901234}}] [r xrange s - +]
    }

    test "XDEL deletes, counts only existing entries, keeps last ID" {
        r del s
        foreach id {1-1 2-1 3-1} { r xadd s $id f v }
        assert_equal 1 [r xdel s 2-1]
        assert_equal 0 [r xdel s 2-1 9-9]
        assert_equal 2 [r xdel s 1-1 3-1]
        assert_equal 0 [r xlen s]
        assert_equal 1 [r exists s]
        assert_error "ERR The ID specified in XADD is equal or smaller than the target stream top item" {r xadd s 3-1 f v}
        assert_equal 0 [r xdel nokey 1-1]
        assert_error "ERR Invalid stream ID specified as stream command argument" {r xdel s 1-1 x}
        assert_error "ERR Invalid stream ID specified as stream command argument" {r xdel s -}
    }

    test "XDEL of a bad ID deletes nothing of the others" {
        r del s
        r xadd s 1-1 f v
        catch {r xdel s 1-1 bad}
        assert_equal 1 [r xlen s]
    }

    test "XDEL in the middle of nodes, then XRANGE skips the deleted" {
        r del s
        r config set stream-node-max-entries 4
        for {set i 1} {$i <= 20} {incr i} { r xadd s $i-0 f $i }
        r config set stream-node-max-entries 100
        foreach i {1 2 3 4 6 10 20} { r xdel s $i-0 }
        set ids {}
        foreach e [r xrange s - +] { lappend ids [lindex $e 0] }
        assert_equal {5-0 7-0 8-0 9-0 11-0 12-0 13-0 14-0 15-0 16-0 17-0 18-0 19-0} $ids
        assert_equal 19-0 [lindex [r xrevrange s + - COUNT 1] 0 0]
    }

    test "XTRIM MAXLEN exact and approximate, MINID" {
        r del s
        r config set stream-node-max-entries 10
        for {set i 1} {$i <= 100} {incr i} { r xadd s $i-0 f $i }
        assert_equal 0 [r xtrim s MAXLEN ~ 95]
        assert_equal 100 [r xlen s]
        assert_equal 10 [r xtrim s MAXLEN ~ 85]
        assert_equal 90 [r xlen s]
        assert_equal 5 [r xtrim s MAXLEN = 85]
        assert_equal 16-0 [lindex [r xrange s - + COUNT 1] 0 0]
        assert_equal 5 [r xtrim s MINID 21]
        assert_equal 21-0 [lindex [r xrange s - + COUNT 1] 0 0]
        assert_equal 0 [r xtrim s MINID ~ 25]
        assert_equal 10 [r xtrim s MINID ~ 40]
        assert_equal 31-0 [lindex [r xrange s - + COUNT 1] 0 0]
        assert_equal 70 [r xtrim s MAXLEN 0]
        assert_equal 0 [r xlen s]
        r config set stream-node-max-entries 100
    }

    test "XTRIM and XDEL inside a node of more than 128 entries" {
        r del s
        r config set stream-node-max-entries 1000
        for {set i 1} {$i <= 300} {incr i} { r xadd s $i-0 f $i }
        r config set stream-node-max-entries 100
        assert_equal 290 [r xtrim s MAXLEN 10]
        assert_equal {291-0 292-0 293-0} [lmap e [r xrange s - + COUNT 3] {lindex $e 0}]
        assert_equal 2 [r xdel s 291-0 300-0]
        assert_equal {292-0 {f 292}} [lindex [r xrange s - +] 0]
        assert_equal {299-0 {f 299}} [lindex [r xrevrange s + -] 0]
        assert_equal 8 [r xlen s]
    }

    test "XTRIM approximate with LIMIT stops early" {
        r del s
        r config set stream-node-max-entries 10
        for {set i 1} {$i <= 100} {incr i} { r xadd s $i-0 f $i }
        assert_equal 20 [r xtrim s MAXLEN ~ 0 LIMIT 25]
        assert_equal 80 [r xlen s]
        assert_equal 80 [r xtrim s MAXLEN ~ 0 LIMIT 0]
        r config set stream-node-max-entries 100
    }

    test "XADD with trimming" {
        r del s
        for {set i 1} {$i <= 10} {incr i} { r xadd s MAXLEN 5 $i-0 f $i }
        assert_equal 5 [r xlen s]
        assert_equal 6-0 [lindex [r xrange s - + COUNT 1] 0 0]
        r xadd s MINID 9 11-0 f v
        assert_equal {9-0 10-0 11-0} [lmap e [r xrange s - +] {lindex $e 0}]
    }

    test "XTRIM malformed arguments and missing key" {
        r del s
        r xadd s 1-1 f v
        assert_error "ERR wrong number of arguments for 'xtrim' command" {r xtrim s maxlen}
        assert_error "ERR syntax error" {r xtrim s foo 1}
        assert_error "ERR syntax error, LIMIT cannot be used without specifying a trimming strategy" {r xtrim s limit 10 limit 5}
        assert_error "ERR syntax error, LIMIT cannot be used without the special ~ option" {r xtrim s maxlen 10 limit 5}
        assert_error "ERR value is not an integer or out of range" {r xtrim s maxlen ~ 10 limit x}
        assert_error "ERR The MAXLEN argument must be >= 0." {r xtrim s maxlen -5}
        assert_error "ERR Invalid stream ID specified as stream command argument" {r xtrim s minid +}
        assert_equal 0 [r xtrim nokey maxlen 0]
    }

    test "XSETID sets the last ID, ENTRIESADDED and MAXDELETEDID checks" {
        r del s
        r xadd s 5-5 f v
        assert_error "ERR The ID specified in XSETID is smaller than the target stream top item" {r xsetid s 5-4}
        assert_error "ERR The ID specified in XSETID is smaller than the target stream top item" {r xsetid s 1}
        assert_equal OK [r xsetid s 5-5]
        assert_equal OK [r xsetid s 10-0]
        assert_error "ERR The ID specified in XADD is equal or smaller than the target stream top item" {r xadd s 9-0 f v}
        assert_equal 10-1 [r xadd s 10-* f v]
        assert_error "ERR entries_added must be positive" {r xsetid s 20-0 ENTRIESADDED -1}
        assert_error "ERR The entries_added specified in XSETID is smaller than the target stream length" {r xsetid s 20-0 ENTRIESADDED 1}
        assert_error "ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id" {r xsetid s 20-0 MAXDELETEDID 21-0}
        assert_error "ERR syntax error" {r xsetid s 20-0 FOO}
        assert_error "ERR syntax error" {r xsetid s 20-0 ENTRIESADDED}
        assert_error "ERR Invalid stream ID specified as stream command argument" {r xsetid s -}
        assert_error "ERR no such key" {r xsetid nokey 1-1}
        assert_equal OK [r xsetid s 20-0 ENTRIESADDED 100 MAXDELETEDID 15-0]
        assert_error "ERR wrong number of arguments for 'xsetid' command" {r xsetid s}
    }

    test "XSETID on an emptied stream may go below the deleted entries" {
        r del s
        r xadd s 5-0 f v
        r xdel s 5-0
        assert_equal OK [r xsetid s 3-0]
        assert_equal 4-0 [r xadd s 4-0 f v]
    }

    test "XREAD from several streams, COUNT, missing keys" {
        r del s1 s2
        r xadd s1 1-1 a 1
        r xadd s1 2-1 a 2
        r xadd s2 3-1 b 1
        assert_equal {{s1 {{1-1 {a 1}} {2-1 {a 2}}}} {s2 {{3-1 {b 1}}}}} [r xread STREAMS s1 s2 0 0]
        assert_equal {{s1 {{2-1 {a 2}}}}} [r xread STREAMS s1 s2 1-1 3-1]
        assert_equal {{s1 {{1-1 {a 1}}}} {s2 {{3-1 {b 1}}}}} [r xread COUNT 1 STREAMS s1 nokey s2 0 0 0]
        assert_equal {{s1 {{1-1 {a 1}} {2-1 {a 2}}}}} [r xread COUNT 0 STREAMS s1 0]
        assert_equal {{s1 {{1-1 {a 1}} {2-1 {a 2}}}}} [r xread COUNT -5 STREAMS s1 0]
        assert_equal {} [r xread STREAMS s1 $]
        assert_equal {} [r xread STREAMS nokey 0]
    }

    test "XREAD malformed arguments" {
        r del s
        r xadd s 1-1 a 1
        assert_error "ERR wrong number of arguments for 'xread' command" {r xread streams a}
        assert_error "ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be specified." {r xread streams a b c}
        assert_error "ERR syntax error" {r xread count 1 block 0}
        assert_error "ERR syntax error" {r xread foo streams s 0}
        assert_error "ERR timeout is negative" {r xread block -1 streams s 0}
        assert_error "ERR timeout is not an integer or out of range" {r xread block 1.5 streams s 0}
        assert_error "ERR value is not an integer or out of range" {r xread count x streams s 0}
        assert_error "ERR Invalid stream ID specified as stream command argument" {r xread streams s 1-x}
        assert_error "ERR Invalid stream ID specified as stream command argument" {r xread streams s -}
        assert_error "ERR The > ID can be specified only when calling XREADGROUP using the GROUP <group> <consumer> option." {r xread streams s >}
        assert_error "ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead." {r xread group g c streams s 0}
        assert_error "ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead." {r xread noack streams s 0}
    }

    test "XREAD BLOCK with a timeout past the end of time waits like BLOCK 0 (Redis 7.0)" {
        r del s
        set rd [redis_deferring_client]
        $rd client id
        set id [$rd read]
        $rd xread block 9223372036854775807 streams s $
        wait_for_condition 50 20 {[s blocked_clients] == 1} else { fail "not blocked" }
        r xadd s 1-1 a 1
        assert_equal {{s {{1-1 {a 1}}}}} [$rd read]
        $rd xread block 9223372036854775000 streams s $
        wait_for_condition 50 20 {[s blocked_clients] == 1} else { fail "not blocked" }
        assert_equal 1 [r client unblock $id]
        assert_equal {} [$rd read]
        $rd close
    }

    test "XREAD BLOCK is served at once when there is data" {
        r del s
        r xadd s 1-1 a 1
        assert_equal {{s {{1-1 {a 1}}}}} [r xread BLOCK 0 STREAMS s 0]
    }

    test "XREAD BLOCK $ waits for the next XADD, clients woken in order" {
        r del s
        r xadd s 1-1 a 1
        set rd1 [redis_deferring_client]
        set rd2 [redis_deferring_client]
        $rd1 xread BLOCK 0 STREAMS s $
        $rd1 flush
        wait_for_blocked_clients 1
        $rd2 xread BLOCK 0 STREAMS other s 0 $
        $rd2 flush
        wait_for_blocked_clients 2
        r xadd s 2-1 b 2
        assert_equal {{s {{2-1 {b 2}}}}} [$rd1 read]
        assert_equal {{s {{2-1 {b 2}}}}} [$rd2 read]
        wait_for_blocked_clients 0
        $rd1 close
        $rd2 close
    }

    test "XREAD BLOCK on a key created by XADD" {
        r del s
        set rd [redis_deferring_client]
        $rd xread BLOCK 0 STREAMS s $
        $rd flush
        wait_for_blocked_clients 1
        r xadd s 5-5 f v
        assert_equal {{s {{5-5 {f v}}}}} [$rd read]
        $rd close
    }

    test "XREAD BLOCK woken by an entry deleted at once gets an empty list, as 7.0" {
        r del s
        r xadd s 1-1 a 1
        set rd [redis_deferring_client]
        $rd xread BLOCK 0 STREAMS s $
        $rd flush
        wait_for_blocked_clients 1
        r multi
        r xadd s 2-1 a 2
        r xdel s 2-1
        r exec
        assert_equal {{s {}}} [$rd read]
        $rd close
    }

    test "XREAD BLOCK times out with a nil reply" {
        r del s
        assert_equal {} [r xread BLOCK 20 STREAMS s $]
        set rd [redis_deferring_client]
        $rd readraw 1
        $rd xread BLOCK 30 STREAMS s $
        $rd flush
        assert_equal {*-1} [$rd read]
        $rd close
    }

    test "XREAD BLOCK timeout in RESP3 is a null" {
        set rd [redis_deferring_client]
        $rd readraw 1
        $rd hello 3
        $rd ping
        $rd flush
        while {[$rd read] ne "+PONG"} {}
        $rd xread BLOCK 30 STREAMS s $
        $rd flush
        assert_equal {_} [$rd read]
        $rd close
    }

    test "XREAD reply is a map in RESP3" {
        r del s
        r xadd s 1-1 a 1
        r hello 3
        assert_equal {s {{1-1 {a 1}}}} [r xread STREAMS s 0]
        r hello 2
    }

    test "XREAD BLOCK inside MULTI does not block" {
        r del s
        r multi
        r xread BLOCK 0 STREAMS s $
        assert_equal {{}} [r exec]
    }

    test "CLIENT UNBLOCK of a blocked XREAD: timeout and error" {
        r del s
        set rd [redis_deferring_client]
        $rd client id
        set id [$rd read]
        $rd xread BLOCK 0 STREAMS s $
        $rd flush
        wait_for_blocked_clients 1
        assert_equal 1 [r client unblock $id]
        assert_equal {} [$rd read]
        $rd xread BLOCK 0 STREAMS s $
        $rd flush
        wait_for_blocked_clients 1
        assert_equal 1 [r client unblock $id error]
        assert_error "UNBLOCKED*" {$rd read}
        $rd close
    }

    test "XREAD BLOCK: key deleted or of another type while waiting" {
        r del s
        r xadd s 1-1 f v
        set rd [redis_deferring_client]
        $rd xread BLOCK 0 STREAMS s $
        $rd flush
        wait_for_blocked_clients 1
        r del s
        r set s foo
        r del s
        assert_equal 1 [s blocked_clients]
        r xadd s 2-1 g w
        assert_equal {{s {{2-1 {g w}}}}} [$rd read]
        $rd close
    }

    test "XINFO STREAM radix-tree-nodes counts the tree's nodes as 7.0 does" {
        # Figures from Redis 7.0.15 for the same IDs: after appends, after
        # XDELs that free whole nodes in the middle, and after a trim.
        r del s
        r config set stream-node-max-entries 3
        for {set i 1} {$i <= 400} {incr i} {
            r xadd s [expr {($i*$i*7919) % 1000003 + $i*1000004}]-[expr {$i*$i % 5}] f v
        }
        set nodes {}
        lappend nodes [dict get [r xinfo stream s] radix-tree-nodes]
        set n 0
        foreach e [r xrange s - +] {
            incr n
            if {$n % 6 < 3 || $n % 17 == 0} {r xdel s [lindex $e 0]}
        }
        lappend nodes [dict get [r xinfo stream s] radix-tree-nodes]
        set n 0
        foreach e [r xrange s - +] {
            incr n
            if {$n % 2 == 1} {r xdel s [lindex $e 0]}
        }
        lappend nodes [dict get [r xinfo stream s] radix-tree-nodes]
        r xtrim s maxlen 10
        lappend nodes [dict get [r xinfo stream s] radix-tree-nodes]
        r del s
        lappend nodes [dict get [r xinfo stream [r xadd s 1-1 f v; set s s]] radix-tree-nodes]
        r config set stream-node-max-entries 100
        assert_equal {294 286 214 25 2} $nodes
    }

    test "Keyspace events of stream commands" {
        r del s
        r config set notify-keyspace-events KEA
        set rd [redis_deferring_client]
        $rd psubscribe __keyevent@*
        $rd read
        r xadd s 1-1 f v
        r xadd s MAXLEN 1 2-1 f v
        r xdel s 2-1
        r xsetid s 5-5
        r xtrim s MAXLEN 0
        set events {}
        for {set i 0} {$i < 5} {incr i} { lappend events [lindex [$rd read] 2] }
        assert_equal {xadd xadd xtrim xdel xsetid} [lmap e $events {lindex [split $e :] end}]
        r config set notify-keyspace-events ""
        $rd close
    }
}

start_server {tags {stream external:skip} overrides {appendonly yes appendfsync always}} {
    test "AOF: automatic IDs and approximate trims are written as their exact effect" {
        r config set stream-node-max-entries 10
        for {set i 1} {$i <= 30} {incr i} { r xadd s MAXLEN ~ 15 $i-* f $i }
        r xadd s 31-0 f 31
        r xtrim s MAXLEN ~ 5
        set digest [r debug digest-value s]
        set len [r xlen s]
        r debug loadaof
        assert_equal $len [r xlen s]
        assert_equal $digest [r debug digest-value s]
        set aof [exec cat {*}[glob [lindex [r config get dir] 1]/appendonlydir/*.incr.aof]]
        assert_match "*MAXLEN*=*20*30-0*" [string map {"\r\n" " " "\n" " "} $aof]
        assert_no_match "*~*" $aof
        assert_no_match "*30-\\**" $aof
    }
}
