# scan.tcl -- the cursor argument of SCAN, HSCAN, SSCAN and ZSCAN, which
# all four parse the same way (keyspace.c), as Redis 7.0 does:
#
#   - an empty cursor is cursor 0 (strtoul reads nothing and stops at the end);
#   - a leading '+' or '-' is accepted, '-' wrapping around ("-1" is the
#     largest cursor), leading zeros too;
#   - anything else -- a leading or trailing space, letters, "0x", a
#     fraction, a value beyond 2^64-1 -- is "ERR invalid cursor", checked
#     before the key is looked up (so also for a missing key or a wrong type).
#
# Cursors are 64-bit on every build: a 32-bit server must accept 2^32 and
# beyond, and a cursor's bits above the table size do not matter, so on a
# small table 4294967296 starts where 0 does.
#
# The types' own SCAN behaviour (MATCH, COUNT, encodings) is tested in
# keyspace.tcl and type/*.tcl.

# The four commands, as the command word and its key (none for SCAN).
proc scan_commands {} {
    return {{scan} {hscan h} {sscan s} {zscan z}}
}

# A few elements in each type; the hash and the sorted set in hash tables
# (so the cursor really walks buckets), the set small.
proc fill_scan_keys {} {
    r flushdb
    r config set hash-max-listpack-entries 0
    r config set zset-max-listpack-entries 0
    r config set set-max-intset-entries 0
    catch {r config set set-max-listpack-entries 0} ;# Redis 7.0 has no set listpacks
    r hset h a 1 b 2 c 3
    r sadd s a b c
    r zadd z 1 a 2 b 3 c
}

# Everything one call returns, elements sorted: {cursor sorted-elements}.
proc scan_sorted {cmd cursor} {
    lassign [r {*}$cmd $cursor count 1000] next items
    return [list $next [lsort $items]]
}

start_server {tags {scan}} {
    test "An empty cursor is cursor 0 for SCAN, HSCAN, SSCAN and ZSCAN" {
        fill_scan_keys
        foreach cmd [scan_commands] {
            assert_equal [scan_sorted $cmd 0] [scan_sorted $cmd ""]
            assert_equal 0 [lindex [scan_sorted $cmd ""] 0]
        }
        assert_equal {0 {}} [r hscan nokey ""]
        assert_equal {0 {}} [r sscan nokey ""]
        assert_equal {0 {}} [r zscan nokey ""]
    }

    test "Cursors with a sign or leading zeros are accepted" {
        fill_scan_keys
        foreach cmd [scan_commands] {
            assert_equal [scan_sorted $cmd 0] [scan_sorted $cmd -0]
            assert_equal [scan_sorted $cmd 0] [scan_sorted $cmd 000]
            assert_equal [scan_sorted $cmd 1] [scan_sorted $cmd +1]
            # "-1" wraps to the largest cursor, 2^64-1 on every build.
            assert_equal [scan_sorted $cmd 18446744073709551615] [scan_sorted $cmd -1]
            assert_equal [scan_sorted $cmd 1] [scan_sorted $cmd -18446744073709551615]
        }
    }

    test "Cursors of 2^32 and more are 64-bit on every build" {
        fill_scan_keys
        foreach cmd [scan_commands] {
            # Only the bits below the table size select a bucket.
            assert_equal [scan_sorted $cmd 0] [scan_sorted $cmd 4294967296]
            assert_equal [scan_sorted $cmd 1] [scan_sorted $cmd 4294967297]
            assert_equal [scan_sorted $cmd 0] [scan_sorted $cmd 9223372036854775808]
            set next [lindex [r {*}$cmd 18446744073709551615 count 1] 0]
            assert {[string is digit $next] && $next < 18446744073709551616}
        }
    }

    test "Malformed cursors are refused, before the key is looked up" {
        fill_scan_keys
        r set str x
        set bad {abc " 1" "1 " " " 0x10 1.5 1e3 -x 18446744073709551616 -18446744073709551616
                 99999999999999999999999}
        foreach cursor $bad {
            foreach cmd [concat [scan_commands] {{hscan nokey} {sscan str} {zscan str}}] {
                assert_error "ERR invalid cursor" {r {*}$cmd $cursor}
            }
        }
    }

    # Issue #35: COUNT is a number of entries, as Redis 7.0 counts it: HSCAN
    # and ZSCAN on a table answered COUNT/2 fields (a field and its value
    # are two items of the reply). Every reply but the last carries at least
    # COUNT entries (at most a bucket's chain more); SSCAN and SCAN are
    # unchanged. A full walk still returns every entry once.
    test "COUNT counts entries: HSCAN and ZSCAN pairs, SSCAN members, SCAN keys" {
        fill_scan_keys
        r flushdb
        for {set i 0} {$i < 200} {incr i} {
            r hset h f$i v$i
            r zadd z $i m$i
            r sadd s m$i
            r set k$i v
        }
        assert_equal {hashtable skiplist hashtable} [list [r object encoding h] [r object encoding z] [r object encoding s]]
        foreach {cmd per_entry total} {{hscan h} 2 200 {zscan z} 2 200 {sscan s} 1 200 {scan} 1 203} {
            set cursor 0
            set seen {}
            set calls 0
            while 1 {
                lassign [r {*}$cmd $cursor count 50] cursor items
                incr calls
                set entries [expr {[llength $items] / $per_entry}]
                if {$cursor != 0} {
                    assert_range $entries 50 99
                }
                if {$per_entry == 2} {
                    foreach {name _} $items { lappend seen $name }
                } else {
                    lappend seen {*}$items
                }
                if {$cursor == 0} break
            }
            assert_equal $total [llength [lsort -unique $seen]] "$cmd"
            assert_range $calls 2 5
        }
    }
}
