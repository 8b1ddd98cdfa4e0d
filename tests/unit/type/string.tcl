# string.tcl -- the string commands: SET and its options, the GET family,
# MSET/MSETNX/MGET, APPEND/STRLEN, GETRANGE/SETRANGE, the INCR family,
# INCRBYFLOAT, LCS, and the encodings a string value takes (int, embstr,
# raw).
#
# Every error string is asserted in full where Redis 7.x defines it, since
# clients match on them. Results are computed in Tcl where that is possible
# (arithmetic, substrings, the longest common subsequence) rather than
# written down, so a test checks the rule and not one sample of it.
#
# WRONGTYPE needs a key of another type; until lists exist the tests that
# need one skip themselves (make_list_key).
#
# Values that look like numbers to Tcl (" 1", "0123", "1e3") are read back
# with raw_get: the harness client currently returns bulk payloads through
# an expr, which canonicalises such strings (0123 becomes 83).

# The exact bytes of a string value, read over a readraw connection.
proc raw_get {key} {
    set c [redis_client -readraw 1]
    set header [$c get $key]
    if {$header eq {$-1}} { set value "" } else { set value [$c read] }
    $c close
    return $value
}

# A list key to provoke WRONGTYPE; skips the test if lists do not exist yet.
proc make_list_key {key} {
    r del $key
    if {[catch {r rpush $key a b c} err]} {
        if {[string match "ERR unknown command*" $err]} {
            skip "needs RPUSH (lists are not implemented yet)"
        }
        error $err
    }
}

# The Tcl equivalent of GETRANGE: the inclusive range start..end with
# negative indexes counting from the end, clamped, "" when empty; a range
# whose ends are both negative and reversed is empty even when clamping
# would make both 0.
proc tcl_getrange {s start end} {
    set len [string length $s]
    # Both counted from the end and in the wrong order: empty.
    if {$start < 0 && $end < 0 && $start > $end} { return "" }
    if {$start < 0} { set start [expr {$len + $start}] }
    if {$end < 0} { set end [expr {$len + $end}] }
    if {$start < 0} { set start 0 }
    if {$end < 0} { set end 0 }
    if {$end >= $len} { set end [expr {$len - 1}] }
    if {$len == 0 || $start > $end} { return "" }
    return [string range $s $start $end]
}

# Length of the longest common subsequence, by dynamic programming.
proc tcl_lcs_len {a b} {
    set la [string length $a]
    set lb [string length $b]
    set prev [lrepeat [expr {$lb + 1}] 0]
    for {set i 1} {$i <= $la} {incr i} {
        set cur [list 0]
        set ca [string index $a [expr {$i - 1}]]
        for {set j 1} {$j <= $lb} {incr j} {
            if {$ca eq [string index $b [expr {$j - 1}]]} {
                lappend cur [expr {[lindex $prev [expr {$j - 1}]] + 1}]
            } else {
                set up [lindex $prev $j]
                set left [lindex $cur [expr {$j - 1}]]
                lappend cur [expr {$up > $left ? $up : $left}]
            }
        }
        set prev $cur
    }
    return [lindex $prev $lb]
}

proc is_subsequence {sub s} {
    set pos 0
    foreach ch [split $sub ""] {
        set pos [string first $ch $s $pos]
        if {$pos < 0} { return 0 }
        incr pos
    }
    return 1
}

proc random_string {len alphabet} {
    set out ""
    set n [string length $alphabet]
    for {set i 0} {$i < $len} {incr i} {
        append out [string index $alphabet [expr {int(rand() * $n)}]]
    }
    return $out
}

start_server {tags {string}} {
    # ---- SET / GET ---------------------------------------------------------------

    test "SET and GET, overwrite, empty value, binary value" {
        assert_equal OK [r set k hello]
        assert_equal hello [r get k]
        assert_equal OK [r set k world]
        assert_equal world [r get k]
        r set empty ""
        assert_equal "" [r get empty]
        assert_equal 1 [r exists empty]
        set bin "a\x00b\r\nc\xff"
        r set bin $bin
        assert_equal $bin [r get bin]
        assert_equal 7 [r strlen bin]
    }

    test "GET of a missing key is a null bulk" {
        r del missing
        set c [redis_client -readraw 1]
        assert_equal {$-1} [$c get missing]
        $c close
    }

    test "GET, SET, SETNX ... check their arity" {
        foreach {cmd args} {
            get {} get {a b} set {k} setnx {k} setnx {k v x} setex {k 10}
            psetex {k 10} getset {k} getdel {} getdel {a b} getex {}
            mget {} mset {} mset {k} msetnx {k} append {k} strlen {}
            getrange {k 0} substr {k 0} setrange {k 0} incr {} decr {a b}
            incrby {k} decrby {k} incrbyfloat {k} lcs {k}
        } {
            assert_error "ERR wrong number of arguments for '$cmd' command" \
                [list r $cmd {*}$args]
        }
    }

    test "SET NX only sets a missing key, XX only an existing one" {
        r del k
        assert_equal OK [r set k v1 nx]
        assert_equal {} [r set k v2 nx]
        assert_equal v1 [r get k]
        assert_equal OK [r set k v3 xx]
        assert_equal v3 [r get k]
        r del k
        assert_equal {} [r set k v4 xx]
        assert_equal 0 [r exists k]
    }

    test "SET NX that does nothing replies a null bulk" {
        r set k v
        set c [redis_client -readraw 1]
        assert_equal {$-1} [$c set k v2 nx]
        assert_equal {$-1} [$c set nosuchkey v xx]
        $c close
    }

    test "SET options are case-insensitive" {
        r del k
        assert_equal OK [r set k v Nx Ex 100]
        assert_range [r ttl k] 90 100
        assert_equal OK [r SET k v2 xX pX 100000]
        assert_range [r pttl k] 90000 100000
    }

    test "SET EX, PX, EXAT, PXAT set a TTL; plain SET clears it" {
        r set k v ex 100
        assert_range [r ttl k] 95 100
        r set k v px 100000
        assert_range [r pttl k] 95000 100000
        set at [expr {[clock seconds] + 200}]
        r set k v exat $at
        assert_equal $at [r expiretime k]
        set pat [expr {[clock milliseconds] + 300000}]
        r set k v pxat $pat
        assert_equal $pat [r pexpiretime k]
        r set k v
        assert_equal -1 [r ttl k]
    }

    test "SET KEEPTTL keeps the TTL of the old value" {
        r set k v ex 100
        r set k v2 keepttl
        assert_equal v2 [r get k]
        assert_range [r ttl k] 95 100
        r del k
        r set k v3 keepttl
        assert_equal -1 [r ttl k]
    }

    test "SET with conflicting or repeated options is a syntax error" {
        foreach opts {
            {nx xx} {xx nx} {ex 10 px 100} {ex 10 exat 100} {px 10 pxat 100}
            {ex 10 keepttl} {keepttl px 10} {exat 10 keepttl} {pxat 10 ex 10}
            {ex} {px} {exat} {pxat} {foo} {nx foo} {ex 10 20}
        } {
            assert_error "ERR syntax error" [list r set k v {*}$opts]
        }
    }

    test "SET with the same expire option twice uses the last time" {
        r set k v ex 10 ex 100
        assert_range [r ttl k] 95 100
        r set k v px 5000 px 200000
        assert_range [r pttl k] 195000 200000
        r set k v nx
        r set k v xx xx get get keepttl keepttl
        assert_range [r pttl k] 190000 200000
    }

    test "SET EX/PX with a non-integer, zero or negative time" {
        foreach opt {ex px exat pxat} {
            assert_error "ERR value is not an integer or out of range" \
                [list r set k v $opt abc]
            assert_error "ERR value is not an integer or out of range" \
                [list r set k v $opt 1.5]
            assert_error "ERR invalid expire time in 'set' command" \
                [list r set k v $opt 0]
            assert_error "ERR invalid expire time in 'set' command" \
                [list r set k v $opt -10]
        }
    }

    test "SET EX with a time that overflows when made absolute" {
        assert_error "ERR invalid expire time in 'set' command" \
            {r set k v ex 9223372036854775807}
        assert_error "ERR invalid expire time in 'set' command" \
            {r set k v px 9223372036854775807}
        assert_error "ERR invalid expire time in 'set' command" \
            {r set k v ex 9223372036854775}
        assert_error "ERR value is not an integer or out of range" \
            {r set k v ex 9223372036854775808}
    }

    test "SET EXAT/PXAT in the past stores nothing but replies OK" {
        r set k old
        assert_equal OK [r set k v pxat 1]
        assert_equal 0 [r exists k]
        assert_equal OK [r set k v exat 1]
        assert_equal 0 [r exists k]
    }

    test "SET GET returns the old value, or null if there was none" {
        r del k
        assert_equal {} [r set k v1 get]
        assert_equal v1 [r set k v2 get]
        assert_equal v2 [r get k]
    }

    test "SET GET with NX/XX reports the old value even when not setting" {
        r set k old
        assert_equal old [r set k new nx get]
        assert_equal old [r get k]
        assert_equal old [r set k new2 xx get]
        assert_equal new2 [r get k]
        r del k
        assert_equal {} [r set k v xx get]
        assert_equal 0 [r exists k]
    }

    test "SET GET on a non-string is WRONGTYPE and changes nothing" {
        make_list_key lk
        assert_error "WRONGTYPE Operation against a key holding the wrong kind of value" \
            {r set lk v get}
        assert_equal list [r type lk]
    }

    test "GET, GETSET, APPEND, STRLEN, INCR, GETRANGE on a non-string are WRONGTYPE" {
        make_list_key lk
        foreach cmd {{get lk} {getset lk v} {append lk v} {strlen lk} {incr lk}
                     {decrby lk 2} {incrbyfloat lk 1} {getrange lk 0 1}
                     {setrange lk 0 x} {setrange lk 0 ""} {getex lk ex 10} {getdel lk}} {
            assert_error "WRONGTYPE Operation against a key holding the wrong kind of value" \
                [list r {*}$cmd]
        }
        assert_equal list [r type lk]
        assert_equal -1 [r ttl lk]
        # MSET overwrites whatever type is there.
        assert_equal OK [r mset lk v]
        assert_equal string [r type lk]
    }

    test "SET overwrites a key of any type" {
        make_list_key lk
        assert_equal OK [r set lk v]
        assert_equal string [r type lk]
        assert_equal v [r get lk]
    }

    test "MGET returns nulls for missing keys and non-strings" {
        r del a b c
        r set a 1
        r set c 3
        assert_equal {1 {} 3} [r mget a b c]
        assert_equal {3 3 {}} [r mget c c nosuchkey]
    }

    test "MGET replies null for a non-string" {
        make_list_key lk
        r set a 1
        assert_equal {1 {} {}} [r mget a lk b]
    }

    # ---- SETNX / SETEX / PSETEX / GETSET / GETDEL ---------------------------------

    test "SETNX sets only a missing key and replies 1/0" {
        r del k
        assert_equal 1 [r setnx k a]
        assert_equal 0 [r setnx k b]
        assert_equal a [r get k]
    }

    test "SETNX does not clear the TTL of an existing key" {
        r set k v ex 100
        assert_equal 0 [r setnx k other]
        assert_range [r ttl k] 95 100
    }

    test "SETEX and PSETEX set value and TTL" {
        assert_equal OK [r setex k 100 v]
        assert_equal v [r get k]
        assert_range [r ttl k] 95 100
        assert_equal OK [r psetex k 100000 w]
        assert_equal w [r get k]
        assert_range [r pttl k] 95000 100000
    }

    test "SETEX/PSETEX with bad times" {
        assert_error "ERR invalid expire time in 'setex' command" {r setex k 0 v}
        assert_error "ERR invalid expire time in 'setex' command" {r setex k -1 v}
        assert_error "ERR invalid expire time in 'psetex' command" {r psetex k 0 v}
        assert_error "ERR invalid expire time in 'psetex' command" {r psetex k -5 v}
        assert_error "ERR value is not an integer or out of range" {r setex k ten v}
        assert_error "ERR invalid expire time in 'setex' command" \
            {r setex k 9223372036854775807 v}
    }

    test "GETSET returns the old value and clears the TTL" {
        r del k
        assert_equal {} [r getset k a]
        r expire k 100
        assert_equal a [r getset k b]
        assert_equal b [r get k]
        assert_equal -1 [r ttl k]
    }

    test "GETDEL returns the value and deletes the key" {
        r set k v
        assert_equal v [r getdel k]
        assert_equal 0 [r exists k]
        assert_equal {} [r getdel k]
    }

    # ---- GETEX ---------------------------------------------------------------------

    test "GETEX without options is GET and keeps the TTL" {
        r set k v ex 100
        assert_equal v [r getex k]
        assert_range [r ttl k] 95 100
        r del k
        assert_equal {} [r getex k]
    }

    test "GETEX EX, PX, EXAT, PXAT set the TTL; PERSIST removes it" {
        r set k v
        assert_equal v [r getex k ex 100]
        assert_range [r ttl k] 95 100
        assert_equal v [r getex k px 200000]
        assert_range [r pttl k] 195000 200000
        set at [expr {[clock seconds] + 300}]
        assert_equal v [r getex k exat $at]
        assert_equal $at [r expiretime k]
        set pat [expr {[clock milliseconds] + 400000}]
        assert_equal v [r getex k pxat $pat]
        assert_equal $pat [r pexpiretime k]
        assert_equal v [r getex k persist]
        assert_equal -1 [r ttl k]
    }

    test "GETEX with a time in the past deletes the key after replying" {
        r set k v
        assert_equal v [r getex k pxat 1]
        assert_equal 0 [r exists k]
    }

    test "GETEX option errors" {
        r set k v
        foreach opts {{ex 10 px 10} {persist ex 10} {ex 10 persist} {ex} {px}
                      {foo} {ex 10 extra}} {
            assert_error "ERR syntax error" [list r getex k {*}$opts]
        }
        assert_error "ERR value is not an integer or out of range" {r getex k ex abc}
        assert_error "ERR invalid expire time in 'getex' command" {r getex k ex 0}
        assert_error "ERR invalid expire time in 'getex' command" {r getex k px -1}
        assert_error "ERR invalid expire time in 'getex' command" \
            {r getex k ex 9223372036854775807}
        assert_equal -1 [r ttl k]
    }

    test "GETEX with the same option twice uses the last one" {
        r set k v
        assert_equal v [r getex k ex 10 ex 100]
        assert_range [r ttl k] 95 100
        assert_equal v [r getex k persist persist]
        assert_equal -1 [r ttl k]
    }

    test "GETEX on a missing key with options returns null and creates nothing" {
        r del k
        assert_equal {} [r getex k ex 100]
        assert_equal 0 [r exists k]
    }

    # ---- MSET / MSETNX ---------------------------------------------------------------

    test "MSET sets all pairs, the last of a repeated key wins" {
        assert_equal OK [r mset a 1 b 2 c 3 a 4]
        assert_equal {4 2 3} [r mget a b c]
    }

    test "MSET and MSETNX with an odd number of arguments" {
        assert_error "ERR wrong number of arguments for 'mset' command" {r mset a 1 b}
        assert_error "ERR wrong number of arguments for 'msetnx' command" {r msetnx a 1 b}
    }

    test "MSET clears TTLs of the keys it overwrites" {
        r set a x ex 100
        r mset a 1
        assert_equal -1 [r ttl a]
    }

    test "MSETNX sets all or nothing" {
        r del x y z
        assert_equal 1 [r msetnx x 1 y 2]
        assert_equal {1 2} [r mget x y]
        assert_equal 0 [r msetnx z 3 y 20]
        assert_equal {{} 2} [r mget z y]
    }

    test "MSETNX with the same new key twice sets it (last wins)" {
        r del x
        assert_equal 1 [r msetnx x 1 x 2]
        assert_equal 2 [r get x]
    }

    # ---- APPEND / STRLEN -------------------------------------------------------------

    test "APPEND creates the key, appends, and returns the new length" {
        r del k
        assert_equal 3 [r append k foo]
        assert_equal 6 [r append k bar]
        assert_equal foobar [r get k]
        assert_equal 6 [r append k ""]
        assert_equal 6 [r strlen k]
    }

    test "APPEND to an integer-encoded value" {
        r set k 123
        assert_equal 5 [r append k 45]
        assert_equal 12345 [r get k]
        assert_equal 12346 [r incr k]
        assert_equal 12346 [r get k]
    }

    test "APPEND keeps the TTL" {
        r set k v ex 100
        r append k more
        assert_range [r ttl k] 95 100
    }

    test "APPEND of random binary chunks builds the same string" {
        r del k
        set expected ""
        for {set i 0} {$i < 200} {incr i} {
            set chunk [random_string [expr {int(rand() * 40)}] "ab\x00\r\n\xff"]
            append expected $chunk
            assert_equal [string length $expected] [r append k $chunk]
        }
        assert_equal $expected [r get k]
    }

    test "STRLEN of a missing key, of an integer, of a binary string" {
        r del k
        assert_equal 0 [r strlen k]
        r set k -12345
        assert_equal 6 [r strlen k]
        r set k "\x00\x00\x00"
        assert_equal 3 [r strlen k]
    }

    # ---- GETRANGE / SUBSTR ------------------------------------------------------------

    test "GETRANGE against a missing key is empty" {
        r del k
        assert_equal "" [r getrange k 0 -1]
        assert_equal "" [r getrange k 0 100]
    }

    test "GETRANGE edge cases agree with the clamping rule" {
        r set k "Hello World"
        set s "Hello World"
        foreach {start end} {
            0 -1  0 0  0 4  6 10  6 100  -5 -1  -100 3  -100 -100  5 3
            -1 -5  11 20  10 10  -1 -1  0 -100  3 -100  100 200  -3 2
            -11 -11  -12 0
        } {
            assert_equal [tcl_getrange $s $start $end] [r getrange k $start $end] \
                "GETRANGE k $start $end"
        }
    }

    test "GETRANGE of an integer-encoded value" {
        r set k 1234567
        assert_equal 345 [r getrange k 2 4]
        assert_equal 7 [r getrange k -1 -1]
        assert_equal 1234567 [r getrange k 0 -1]
    }

    test "GETRANGE of an empty string, and with huge indexes" {
        r set k ""
        assert_equal "" [r getrange k 0 -1]
        r set k abc
        assert_equal abc [r getrange k -9223372036854775808 9223372036854775807]
        assert_equal "" [r getrange k 9223372036854775807 9223372036854775807]
    }

    test "GETRANGE with non-integer indexes" {
        r set k abc
        assert_error "ERR value is not an integer or out of range" {r getrange k a 1}
        assert_error "ERR value is not an integer or out of range" {r getrange k 0 1.5}
        assert_error "ERR value is not an integer or out of range" \
            {r getrange k 0 9223372036854775808}
    }

    test "SUBSTR is an alias of GETRANGE" {
        r set k "Hello World"
        assert_equal World [r substr k 6 -1]
        assert_equal Hello [r substr k 0 4]
    }

    test "GETRANGE on random strings and ranges" {
        for {set i 0} {$i < 200} {incr i} {
            set s [random_string [expr {int(rand() * 20)}] "abcdef"]
            r set k $s
            set start [expr {int(rand() * 50) - 25}]
            set end [expr {int(rand() * 50) - 25}]
            assert_equal [tcl_getrange $s $start $end] [r getrange k $start $end] \
                "GETRANGE '$s' $start $end"
        }
    }

    # ---- SETRANGE ------------------------------------------------------------------

    test "SETRANGE on a missing key pads with zero bytes" {
        r del k
        assert_equal 8 [r setrange k 5 abc]
        assert_equal "\x00\x00\x00\x00\x00abc" [r get k]
    }

    test "SETRANGE overwrites in place and extends" {
        r set k "Hello World"
        assert_equal 11 [r setrange k 6 Redis]
        assert_equal "Hello Redis" [r get k]
        assert_equal 13 [r setrange k 10 "XYZ"]
        assert_equal "Hello RediXYZ" [r get k]
    }

    test "SETRANGE with an empty value: missing key stays missing" {
        r del k
        assert_equal 0 [r setrange k 0 ""]
        assert_equal 0 [r exists k]
        assert_equal 0 [r setrange k 100 ""]
        assert_equal 0 [r exists k]
    }

    test "SETRANGE with an empty value on an existing key returns its length" {
        r set k foo
        assert_equal 3 [r setrange k 1 ""]
        assert_equal 3 [r setrange k 100 ""]
        assert_equal foo [r get k]
    }

    test "SETRANGE on an integer-encoded value" {
        r set k 1234
        assert_equal 4 [r setrange k 1 9]
        assert_equal 1934 [r get k]
        assert_equal 6 [r setrange k 4 56]
        assert_equal 193456 [r get k]
    }

    test "SETRANGE with a negative offset" {
        r set k foo
        assert_error "ERR offset is out of range" {r setrange k -1 x}
        assert_error "ERR value is not an integer or out of range" {r setrange k x x}
        assert_equal foo [r get k]
    }

    test "SETRANGE past 512MB is refused before allocating" {
        r del k
        assert_error "ERR string exceeds maximum allowed size (proto-max-bulk-len)" \
            {r setrange k 536870912 x}
        assert_error "ERR string exceeds maximum allowed size (proto-max-bulk-len)" \
            {r setrange k 536870911 xy}
        assert_error "ERR string exceeds maximum allowed size (proto-max-bulk-len)" \
            {r setrange k 9223372036854775807 x}
        assert_equal 0 [r exists k]
        r set k foo
        assert_error "ERR string exceeds maximum allowed size (proto-max-bulk-len)" \
            {r setrange k 536870912 x}
        assert_equal foo [r get k]
    }

    test "SETRANGE keeps the TTL" {
        r set k foo ex 100
        r setrange k 1 x
        assert_range [r ttl k] 95 100
        assert_equal fxo [r get k]
    }

    # ---- INCR / DECR / INCRBY / DECRBY -----------------------------------------------

    test "INCR and DECR on a missing key start from zero" {
        r del a b
        assert_equal 1 [r incr a]
        assert_equal -1 [r decr b]
        assert_equal 2 [r incr a]
        assert_equal 2 [r get a]
    }

    test "INCRBY and DECRBY with random values match Tcl arithmetic" {
        r set k 0
        set expected 0
        for {set i 0} {$i < 200} {incr i} {
            set by [expr {int(rand() * 2000000) - 1000000}]
            if {$i % 2} {
                set expected [expr {$expected + $by}]
                assert_equal $expected [r incrby k $by]
            } else {
                set expected [expr {$expected - $by}]
                assert_equal $expected [r decrby k $by]
            }
        }
        assert_equal $expected [r get k]
    }

    test "INCR on a value that is not a canonical integer" {
        foreach bad {abc "" " 1" "1 " "1.0" "0x10" "+1" "01" "1e3" "--1"
                     "9223372036854775808" "-9223372036854775809"} {
            r set k $bad
            assert_error "ERR value is not an integer or out of range" {r incr k}
            assert_equal $bad [raw_get k]
        }
    }

    test "INCRBY with a non-integer increment" {
        r set k 1
        foreach bad {abc 1.5 "" " 1" 9223372036854775808} {
            assert_error "ERR value is not an integer or out of range" [list r incrby k $bad]
            assert_error "ERR value is not an integer or out of range" [list r decrby k $bad]
        }
        assert_equal 1 [r get k]
    }

    test "INCR/INCRBY/DECR overflow is an error and leaves the value" {
        r set k 9223372036854775807
        assert_error "ERR increment or decrement would overflow" {r incr k}
        assert_error "ERR increment or decrement would overflow" {r incrby k 1}
        assert_equal 9223372036854775807 [r get k]
        r set k -9223372036854775808
        assert_error "ERR increment or decrement would overflow" {r decr k}
        assert_error "ERR increment or decrement would overflow" {r incrby k -1}
        assert_error "ERR increment or decrement would overflow" {r decrby k 1}
        assert_equal -9223372036854775808 [r get k]
        r set k 1
        assert_error "ERR increment or decrement would overflow" \
            {r incrby k 9223372036854775807}
        assert_equal 9223372036854775807 [r incrby k 9223372036854775806]
    }

    test "DECRBY -9223372036854775808 cannot be negated" {
        r set k 0
        assert_error "ERR decrement would overflow" {r decrby k -9223372036854775808}
        assert_equal 0 [r get k]
        assert_equal -9223372036854775808 [r incrby k -9223372036854775808]
    }

    test "INCR keeps the TTL" {
        r set k 10 ex 100
        r incr k
        assert_range [r ttl k] 95 100
        assert_equal 11 [r get k]
    }

    test "INCR on a raw-encoded numeric string" {
        r set k 1
        r append k 0
        assert_equal raw [r object encoding k]
        assert_equal 11 [r incr k]
        assert_equal int [r object encoding k]
    }

    # ---- INCRBYFLOAT ------------------------------------------------------------------

    test "INCRBYFLOAT on a missing key and on integers" {
        r del k
        assert_equal 10.5 [r incrbyfloat k 10.5]
        assert_equal 10.6 [r incrbyfloat k 0.1]
        r set k 5
        assert_equal 8 [r incrbyfloat k 3]
        assert_equal 5000 [r incrbyfloat k 4.992e3]
        assert_equal 4999.5 [r incrbyfloat k -0.5]
        assert_equal 4999.5 [r get k]
    }

    test "INCRBYFLOAT results have no exponent and no trailing zeros" {
        r set k 0
        assert_equal 1000000 [r incrbyfloat k 1e6]
        r set k 0
        assert_equal 0.0001 [r incrbyfloat k 1e-4]
        r set k 1.50
        assert_equal 1.5 [r incrbyfloat k 0]
        r set k 10
        assert_equal 0 [r incrbyfloat k -10]
    }

    test "INCRBYFLOAT accepts what Tcl computes the same" {
        r set k 0
        set expected 0.0
        for {set i 0} {$i < 50} {incr i} {
            set by [expr {(int(rand() * 2000) - 1000) / 4.0}]
            set expected [expr {$expected + $by}]
            set got [r incrbyfloat k $by]
            assert {abs($got - $expected) < 1e-9} "INCRBYFLOAT gave $got, expected $expected"
        }
    }

    test "INCRBYFLOAT with invalid values or increments" {
        r set k abc
        assert_error "ERR value is not a valid float" {r incrbyfloat k 1}
        r set k 1
        foreach bad {abc "" "1.5x" " 1" "1 " nan} {
            assert_error "ERR value is not a valid float" [list r incrbyfloat k $bad]
        }
        assert_equal 1 [r get k]
    }

    test "INCRBYFLOAT that would produce Infinity is refused" {
        r set k 1
        assert_error "ERR increment would produce NaN or Infinity" {r incrbyfloat k inf}
        assert_error "ERR increment would produce NaN or Infinity" {r incrbyfloat k -inf}
        assert_equal 1 [r get k]
    }

    test "INCRBYFLOAT keeps the TTL" {
        r set k 1 ex 100
        r incrbyfloat k 0.5
        assert_range [r ttl k] 95 100
    }

    # ---- LCS --------------------------------------------------------------------------

    test "LCS of two strings and LEN" {
        r mset a ohmytext b mynewtext
        assert_equal mytext [r lcs a b]
        assert_equal 6 [r lcs a b len]
    }

    test "LCS with missing keys treats them as empty" {
        r del x y
        r set a abc
        assert_equal "" [r lcs a x]
        assert_equal 0 [r lcs x y len]
    }

    test "LCS of random strings: length is optimal, result is a subsequence" {
        for {set i 0} {$i < 30} {incr i} {
            set a [random_string [expr {int(rand() * 30)}] "abcd"]
            set b [random_string [expr {int(rand() * 30)}] "abcd"]
            r mset a $a b $b
            set expected [tcl_lcs_len $a $b]
            assert_equal $expected [r lcs a b len]
            set sub [r lcs a b]
            assert_equal $expected [string length $sub]
            assert [is_subsequence $sub $a] "'$sub' is not a subsequence of '$a'"
            assert [is_subsequence $sub $b] "'$sub' is not a subsequence of '$b'"
        }
    }

    test "LCS IDX returns matching ranges, last match first" {
        r mset a ohmytext b mynewtext
        set reply [r lcs a b idx]
        assert_equal {matches len} [dict keys $reply]
        assert_equal 6 [dict get $reply len]
        assert_equal {{{4 7} {5 8}} {{2 3} {0 1}}} [dict get $reply matches]
    }

    test "LCS IDX ranges really match in both strings" {
        set a [random_string 40 "abc"]
        set b [random_string 40 "abc"]
        r mset a $a b $b
        set reply [r lcs a b idx]
        set total 0
        foreach m [dict get $reply matches] {
            lassign $m ra rb
            assert_equal [string range $a {*}$ra] [string range $b {*}$rb]
            incr total [expr {[lindex $ra 1] - [lindex $ra 0] + 1}]
        }
        assert_equal [dict get $reply len] $total
    }

    test "LCS IDX of long strings with many matches" {
        set a [random_string 800 "ab"]
        set b [random_string 800 "ab"]
        r mset a $a b $b
        set reply [r lcs a b idx withmatchlen]
        assert_equal [tcl_lcs_len $a $b] [dict get $reply len]
        set total 0
        set prev_a 800
        foreach m [dict get $reply matches] {
            lassign $m ra rb len
            assert_equal [string range $a {*}$ra] [string range $b {*}$rb]
            assert_equal $len [expr {[lindex $ra 1] - [lindex $ra 0] + 1}]
            # Matches come from the end of the strings backwards.
            assert {[lindex $ra 1] < $prev_a}
            set prev_a [lindex $ra 0]
            incr total $len
        }
        assert_equal [dict get $reply len] $total
        assert_equal [dict get $reply len] [string length [r lcs a b]]
    }

    test "LCS IDX MINMATCHLEN and WITHMATCHLEN" {
        r mset a ohmytext b mynewtext
        set reply [r lcs a b idx minmatchlen 4]
        assert_equal {{{4 7} {5 8}}} [dict get $reply matches]
        assert_equal 6 [dict get $reply len]
        set reply [r lcs a b idx withmatchlen]
        assert_equal {{{4 7} {5 8} 4} {{2 3} {0 1} 2}} [dict get $reply matches]
        set reply [r lcs a b idx minmatchlen 3 withmatchlen]
        assert_equal {{{4 7} {5 8} 4}} [dict get $reply matches]
        set reply [r lcs a b idx minmatchlen 100]
        assert_equal {} [dict get $reply matches]
        # A negative MINMATCHLEN is treated as zero.
        set reply [r lcs a b idx minmatchlen -5]
        assert_equal 2 [llength [dict get $reply matches]]
    }

    test "LCS option errors" {
        r mset a ohmytext b mynewtext
        assert_error "ERR If you want both the length and indexes, please just use IDX." \
            {r lcs a b len idx}
        assert_error "ERR syntax error" {r lcs a b foo}
        assert_error "ERR syntax error" {r lcs a b idx minmatchlen}
        assert_error "ERR value is not an integer or out of range" \
            {r lcs a b idx minmatchlen x}
    }

    test "LCS against a non-string" {
        make_list_key lk
        r set a abc
        assert_error "ERR The specified keys must contain string values" {r lcs a lk}
        assert_error "ERR The specified keys must contain string values" {r lcs lk a}
        # The type is checked before the options.
        assert_error "ERR The specified keys must contain string values" {r lcs lk a foo}
        assert_error "ERR The specified keys must contain string values" {r lcs a lk len idx}
    }

    # ---- encodings ------------------------------------------------------------------

    test "Small integers are int-encoded, short strings embstr, long ones raw" {
        r set k 12345
        assert_equal int [r object encoding k]
        r set k -2147483648
        assert_equal int [r object encoding k]
        # A 64-bit integer needs a 64-bit pointer field to be stored inline.
        set wide [expr {[s arch_bits] eq "32" ? "embstr" : "int"}]
        r set k -9223372036854775808
        assert_equal $wide [r object encoding k]
        r set k 9223372036854775807
        assert_equal $wide [r object encoding k]
        r set k [string repeat x 44]
        assert_equal embstr [r object encoding k]
        r set k [string repeat x 45]
        assert_equal raw [r object encoding k]
        r set k ""
        assert_equal embstr [r object encoding k]
    }

    test "Numbers that are not canonical 64-bit integers stay strings" {
        foreach v {9223372036854775808 -9223372036854775809 18446744073709551616
                   0123 +5 1.5 " 7" 1e3} {
            r set k $v
            assert_equal embstr [r object encoding k] "value '$v'"
            assert_equal $v [raw_get k]
        }
    }

    test "APPEND and SETRANGE turn embstr into raw" {
        r set k abc
        assert_equal embstr [r object encoding k]
        r append k d
        assert_equal raw [r object encoding k]
        assert_equal abcd [r get k]
        r set k abc
        r setrange k 0 x
        assert_equal raw [r object encoding k]
        assert_equal xbc [r get k]
    }

    test "INCR results are int-encoded, INCRBYFLOAT results are strings" {
        r del k
        r incr k
        assert_equal int [r object encoding k]
        r set k 1
        r incrbyfloat k 1.5
        assert_equal embstr [r object encoding k]
        assert_equal 2.5 [r get k]
    }

    test "A long value survives round trips with the same bytes" {
        set big [random_string 100000 "abcdefgh\x00\xff"]
        r set k $big
        assert_equal raw [r object encoding k]
        assert_equal $big [r get k]
        assert_equal 100000 [r strlen k]
        assert_equal [string range $big 500 599] [r getrange k 500 599]
    }
}
