# bitops.tcl -- SETBIT, GETBIT, BITCOUNT, BITPOS, BITOP, BITFIELD and
# BITFIELD_RO: results, Redis's exact errors, ranges in BYTE and BIT units
# with negative and huge indexes, BITPOS's "bit 0 past the end" rule, BITOP
# over strings of different lengths, BITFIELD overflow in each mode, and a
# randomized comparison with a model computed here in Tcl.
#
# Design decisions:
# - The Tcl model works on the bytes returned by GET (binary strings), so
#   the server's word-at-a-time paths are compared with a bit-by-bit
#   definition on every port the suite runs on (under QEMU the server's
#   unaligned loads would trap).

proc bin {s} { return [binary format a* $s] }

# The bits of a binary string as a list of 0/1, MSB of byte 0 first.
proc bits_of {s} {
    binary scan $s B* b
    return [split $b ""]
}

proc model_bitcount {s first last} {
    set n 0
    foreach b [lrange [bits_of $s] $first $last] { incr n $b }
    return $n
}

proc model_bitpos {s bit first last} {
    set i [lsearch -exact [lrange [bits_of $s] $first $last] $bit]
    return [expr {$i < 0 ? -1 : $first + $i}]
}

proc random_binary {len} {
    set s ""
    for {set i 0} {$i < $len} {incr i} {
        set kind [expr {int(rand() * 4)}]
        set byte [expr {$kind == 0 ? 0 : $kind == 1 ? 255 : int(rand() * 256)}]
        append s [binary format c $byte]
    }
    return $s
}

start_server {tags {bitops}} {
    # ---- SETBIT / GETBIT -----------------------------------------------------------------

    test "SETBIT returns the old bit and grows the string" {
        r del b
        assert_equal 0 [r setbit b 7 1]
        assert_equal 1 [r setbit b 7 1]
        assert_equal "\x01" [r get b]
        assert_equal 0 [r setbit b 100 1]
        assert_equal 13 [r strlen b]
        assert_equal 1 [r getbit b 100]
        assert_equal 1 [r setbit b 100 0]
        assert_equal 0 [r getbit b 100]
    }

    test "Bit 0 is the most significant bit of the first byte" {
        r del b
        r setbit b 0 1
        assert_equal "\x80" [r get b]
        r setbit b 9 1
        assert_equal "\x80\x40" [r get b]
    }

    test "GETBIT past the end and on a missing key is 0" {
        r set s a
        assert_equal 0 [r getbit s 1000000]
        assert_equal 0 [r getbit nokey 5]
    }

    test "GETBIT and SETBIT on integer-encoded strings" {
        r set i 12345
        assert_equal 0 [r getbit i 0]
        assert_equal 1 [r getbit i 2]
        assert_equal 0 [r setbit i 6 1]
        assert_equal "32345" [r get i]
    }

    test "SETBIT and GETBIT errors" {
        assert_error "ERR bit offset is not an integer or out of range" {r setbit b -1 1}
        assert_error "ERR bit offset is not an integer or out of range" {r setbit b 4294967296 1}
        assert_error "ERR bit offset is not an integer or out of range" {r setbit b x 1}
        assert_error "ERR bit is not an integer or out of range" {r setbit b 1 2}
        assert_error "ERR bit is not an integer or out of range" {r setbit b 1 -1}
        assert_error "ERR bit offset is not an integer or out of range" {r getbit b -1}
        r lpush l a
        assert_error "WRONGTYPE*" {r setbit l 0 1}
        assert_error "WRONGTYPE*" {r getbit l 0}
    }

    test "SETBIT at the largest offset allowed by proto-max-bulk-len" {
        r config set proto-max-bulk-len 1mb
        assert_error "ERR bit offset*" {r setbit big [expr {1024*1024*8}] 1}
        assert_equal 0 [r setbit big [expr {1024*1024*8 - 1}] 1]
        assert_equal [expr {1024*1024}] [r strlen big]
        r del big
        r config set proto-max-bulk-len 512mb
    }

    # ---- BITCOUNT ------------------------------------------------------------------------

    test "BITCOUNT whole string, byte ranges and bit ranges" {
        r set s foobar
        assert_equal 26 [r bitcount s]
        assert_equal 4 [r bitcount s 0 0]
        assert_equal 6 [r bitcount s 1 1]
        assert_equal 18 [r bitcount s 1 -2]
        assert_equal 17 [r bitcount s 5 30 bit]
        assert_equal 26 [r bitcount s 0 -1 byte]
        assert_equal 26 [r bitcount s 0 -1 BIT]
    }

    test "BITCOUNT ranges out of bounds and inverted" {
        r set s foobar
        assert_equal 0 [r bitcount s 5 2]
        assert_equal 0 [r bitcount s 100 200]
        assert_equal 26 [r bitcount s -100 100]
        assert_equal 0 [r bitcount s 9223372036854775807 -9223372036854775808 bit]
        assert_equal 26 [r bitcount s -9223372036854775808 9223372036854775807]
    }

    test "BITCOUNT with both indexes negative and start after end is 0" {
        # clamping alone would turn -6 -7 on 6 bytes into the range 0..0
        r set s foobar
        assert_equal 0 [r bitcount s -6 -7]
        assert_equal 0 [r bitcount s -1 -100]
        assert_equal 0 [r bitcount s -20 -30 bit]
        # the check comes before the unit is parsed
        assert_equal 0 [r bitcount s -6 -7 nounit]
        assert_equal 4 [r bitcount s -7 -6]
    }

    test "BITCOUNT of a missing key, an empty string and integers" {
        assert_equal 0 [r bitcount nokey]
        assert_equal 0 [r bitcount nokey 0]
        r set e ""
        assert_equal 0 [r bitcount e]
        r set i 1
        assert_equal 3 [r bitcount i]
    }

    test "BITCOUNT errors" {
        r set s abc
        assert_error "ERR syntax error" {r bitcount s 0}
        assert_error "ERR syntax error" {r bitcount s 0 1 foo}
        assert_error "ERR syntax error" {r bitcount s 0 1 bit x}
        assert_error "ERR value is not an integer or out of range" {r bitcount s a b}
        assert_error "WRONGTYPE*" {r bitcount l}
    }

    # ---- BITPOS --------------------------------------------------------------------------

    test "BITPOS finds the first set or clear bit" {
        r set s "\x00\x0f\xff"
        assert_equal 12 [r bitpos s 1]
        assert_equal 0 [r bitpos s 0]
        assert_equal 12 [r bitpos s 1 1]
        assert_equal 16 [r bitpos s 1 2]
        assert_equal 8 [r bitpos s 0 1]
        assert_equal -1 [r bitpos s 0 2 -1]
        assert_equal 13 [r bitpos s 1 13 -1 bit]
        assert_equal 11 [r bitpos s 0 11 11 bit]
        assert_equal -1 [r bitpos s 0 14 14 bit]
    }

    test "BITPOS of bit 0 in an all-ones string: past the end unless an end is given" {
        r set f "\xff\xff\xff"
        assert_equal 24 [r bitpos f 0]
        assert_equal 24 [r bitpos f 0 1]
        assert_equal -1 [r bitpos f 0 0 -1]
        assert_equal -1 [r bitpos f 0 0 -1 bit]
        assert_equal -1 [r bitpos f 0 1 2]
    }

    test "BITPOS of bit 1 in an all-zeros string is -1" {
        r set z "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"
        assert_equal -1 [r bitpos z 1]
        assert_equal -1 [r bitpos z 1 3]
        assert_equal 0 [r bitpos z 0]
    }

    test "BITPOS on a missing key and an empty string" {
        assert_equal 0 [r bitpos nokey 0]
        assert_equal -1 [r bitpos nokey 1]
        assert_equal -1 [r bitpos nokey 1 0 5 foo]
        r set e ""
        assert_equal -1 [r bitpos e 0]
        assert_equal -1 [r bitpos e 1]
    }

    test "BITPOS with huge and inverted ranges" {
        r set s abc
        assert_equal 1 [r bitpos s 1 -9223372036854775808 9223372036854775807 bit]
        assert_equal -1 [r bitpos s 1 2 1]
        assert_equal -1 [r bitpos s 1 100 200]
    }

    test "BITPOS errors" {
        r set s abc
        assert_error "ERR The bit argument must be 1 or 0." {r bitpos s 2}
        assert_error "ERR value is not an integer or out of range" {r bitpos s x}
        assert_error "ERR value is not an integer or out of range" {r bitpos s 1 x}
        assert_error "ERR syntax error" {r bitpos s 1 0 1 bar}
        assert_error "ERR syntax error" {r bitpos s 1 2 3 4 5}
        assert_error "WRONGTYPE*" {r bitpos l 1}
    }

    # ---- BITOP ---------------------------------------------------------------------------

    test "BITOP AND/OR/XOR over strings of different lengths" {
        r set a "\xff\x0f\xaa"
        r set b "\x0f\xff"
        assert_equal 3 [r bitop and d a b]
        assert_equal "\x0f\x0f\x00" [r get d]
        assert_equal 3 [r bitop or d a b]
        assert_equal "\xff\xff\xaa" [r get d]
        assert_equal 3 [r bitop xor d a b]
        assert_equal "\xf0\xf0\xaa" [r get d]
    }

    test "BITOP NOT and missing keys as empty strings" {
        r set a "\x0f\xf0"
        assert_equal 2 [r bitop not d a]
        assert_equal "\xf0\x0f" [r get d]
        assert_equal 2 [r bitop or d a nokey]
        assert_equal "\x0f\xf0" [r get d]
        assert_equal 2 [r bitop and d a nokey]
        assert_equal "\x00\x00" [r get d]
    }

    test "BITOP with only missing keys deletes the destination" {
        r set d x
        assert_equal 0 [r bitop and d nokey1 nokey2]
        assert_equal 0 [r exists d]
    }

    test "BITOP destination can be a source" {
        r set a "\x01\x02"
        r set b "\x10"
        r bitop or a a b
        assert_equal "\x11\x02" [r get a]
    }

    test "BITOP over integer-encoded values" {
        r set i1 12
        r set i2 3
        r bitop or d i1 i2
        assert_equal "32" [r get d]
    }

    test "BITOP errors" {
        assert_error "ERR BITOP NOT must be called with a single source key." {r bitop not d a b}
        assert_error "ERR syntax error" {r bitop foo d a}
        assert_error "ERR wrong number of arguments for 'bitop' command" {r bitop and d}
        r del l
        r lpush l a
        assert_error "WRONGTYPE*" {r bitop and d a l}
    }

    # ---- BITFIELD -------------------------------------------------------------------------

    test "BITFIELD SET returns the old value, GET reads it back" {
        r del k
        assert_equal {0} [r bitfield k set u8 0 200]
        assert_equal {200 -56} [r bitfield k get u8 0 get i8 0]
        assert_equal {-56 7} [r bitfield k set i8 0 7 get u4 4]
    }

    test "BITFIELD # offsets are multiplied by the width" {
        r del k
        r bitfield k set u8 #2 255
        assert_equal "\x00\x00\xff" [r get k]
        assert_equal {255} [r bitfield k get u8 16]
    }

    test "BITFIELD INCRBY with WRAP (the default), SAT and FAIL" {
        r del k
        assert_equal {0 -128} [r bitfield k set i8 0 127 incrby i8 0 1]
        r bitfield k set i8 0 127
        assert_equal {127} [r bitfield k get i8 0]
        assert_equal {-128} [r bitfield k incrby i8 0 1]
        assert_equal {-128} [r bitfield k overflow sat incrby i8 0 -1]
        assert_equal {127} [r bitfield k overflow sat incrby i8 0 1000]
        assert_equal {{}} [r bitfield k overflow fail incrby i8 0 1]
        assert_equal {127} [r bitfield k get i8 0]
        r del k
        assert_equal {255} [r bitfield k overflow sat incrby u8 0 300]
        assert_equal {0} [r bitfield k overflow sat incrby u8 0 -1000]
        assert_equal {44} [r bitfield k overflow wrap incrby u8 0 300]
        assert_equal {{}} [r bitfield k overflow fail incrby u8 0 -45]
    }

    test "BITFIELD SET with values out of range in each overflow mode" {
        r del k
        assert_equal {0} [r bitfield k overflow sat set u8 0 -1]
        assert_equal {255} [r bitfield k get u8 0]
        assert_equal {255} [r bitfield k overflow wrap set u8 0 -1]
        assert_equal {{}} [r bitfield k overflow fail set u8 0 -1]
        assert_equal {-1} [r bitfield k overflow sat set i8 0 200]
        assert_equal {127} [r bitfield k overflow wrap set i8 0 200]
        assert_equal {-56} [r bitfield k get i8 0]
    }

    test "BITFIELD at the 64-bit limits" {
        r del k
        assert_equal {0 9223372036854775807} [r bitfield k set i64 0 -9223372036854775808 incrby i64 0 -1]
        assert_equal {9223372036854775806} [r bitfield k overflow sat incrby i64 0 -1]
        assert_equal {9223372036854775806 9223372036854775807} [r bitfield k set i64 0 9223372036854775807 overflow sat incrby i64 0 1]
        assert_equal {0} [r bitfield k overflow sat incrby u63 0 -9223372036854775808]
        assert_equal {0 9223372036854775807} [r bitfield k overflow sat set u63 0 -1 get u63 0]
        r del k
        assert_equal {1 1} [r bitfield k incrby u1 0 1 overflow sat incrby u1 0 5]
        assert_equal {0 0} [r bitfield k overflow wrap incrby i1 0 1 get i1 0]
    }

    test "BITFIELD: a FAIL still grows the string; reads past the end are 0" {
        r del k
        assert_equal {{} 0 0 3} [r bitfield k overflow fail set u2 100 4 get u2 100 overflow wrap set u2 100 7 get u2 100]
        assert_equal 13 [r strlen k]
        assert_equal {0} [r bitfield k get u32 1000]
        assert_equal {0} [r bitfield nokey get u8 0]
        assert_equal 0 [r exists nokey]
    }

    test "BITFIELD with no operations" {
        assert_equal {} [r bitfield k]
        assert_equal {} [r bitfield k overflow sat]
        assert_equal {} [r bitfield_ro k]
    }

    test "BITFIELD_RO reads and refuses writes" {
        r del k
        r bitfield k set u8 0 42
        assert_equal {42} [r bitfield_ro k get u8 0]
        assert_error "ERR BITFIELD_RO only supports the GET subcommand" {r bitfield_ro k set i8 0 1}
        assert_error "ERR BITFIELD_RO only supports the GET subcommand" {r bitfield_ro k incrby i8 0 1}
    }

    test "BITFIELD errors, and a syntax error runs nothing" {
        r del k
        assert_error "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is." {r bitfield k get u64 0}
        assert_error "ERR Invalid bitfield type*" {r bitfield k get i65 0}
        assert_error "ERR Invalid bitfield type*" {r bitfield k get i0 0}
        assert_error "ERR Invalid bitfield type*" {r bitfield k get x8 0}
        assert_error "ERR bit offset is not an integer or out of range" {r bitfield k get i8 -1}
        assert_error "ERR bit offset is not an integer or out of range" {r bitfield k get i8 #-1}
        assert_error "ERR bit offset is not an integer or out of range" {r bitfield k get i8 #x}
        assert_error "ERR bit offset is not an integer or out of range" {r bitfield k get i8 #1152921504606846976}
        assert_error "ERR bit offset is not an integer or out of range" {r bitfield k get i8 4294967296}
        assert_equal {0} [r bitfield k get i8 4294967288]
        assert_error "ERR Invalid OVERFLOW type specified" {r bitfield k overflow foo}
        assert_error "ERR syntax error" {r bitfield k foo}
        assert_error "ERR syntax error" {r bitfield k get i8}
        assert_error "ERR value is not an integer or out of range" {r bitfield k incrby i8 0 x}
        assert_error "ERR syntax error" {r bitfield k set u8 0 1 get}
        assert_equal 0 [r exists k]
        assert_error "WRONGTYPE*" {r bitfield l get u8 0}
    }

    test "SETBIT and BITFIELD count as writes only when something changed" {
        r del d1 d2 d3
        set base [s rdb_changes_since_last_save]
        # creating the key is a change even when the bits written are 0
        r setbit d1 0 0
        r bitfield d2 set i5 0 0
        assert_equal [expr {$base + 2}] [s rdb_changes_since_last_save]
        # same value again: no change
        assert_equal 0 [r setbit d1 0 0]
        assert_equal {0} [r bitfield d2 set i5 0 0]
        assert_equal [expr {$base + 2}] [s rdb_changes_since_last_save]
        # one change per write that flips the value, in one command too
        r setbit d1 0 1
        r setbit d1 0 1
        r bitfield d2 set i5 0 3 set i5 0 3 set i5 0 4
        assert_equal [expr {$base + 5}] [s rdb_changes_since_last_save]
        # growing the string is a change even if the new bits are 0
        r setbit d1 100 0
        r bitfield d2 set u8 200 0 set u8 200 0
        assert_equal [expr {$base + 8}] [s rdb_changes_since_last_save]
        # a refused write (overflow FAIL) is no change
        r bitfield d3 overflow fail incrby u2 0 4
        assert_equal [expr {$base + 8}] [s rdb_changes_since_last_save]
    }

    test "SETBIT and BITFIELD send no notification when nothing changed" {
        r config set notify-keyspace-events KE$
        r set nn a
        set rd [rd]
        $rd psubscribe __keyevent*
        $rd read
        r setbit nn 1 1
        r bitfield nn set u4 0 6 get u8 0
        r set marker 1
        assert_equal {pmessage __keyevent* __keyevent@*__:set marker} \
            [lreplace [$rd read] 2 2 {__keyevent@*__:set}]
        $rd close
        r config set notify-keyspace-events ""
    }

    # ---- notifications --------------------------------------------------------------------

    test "SETBIT and BITFIELD writes send setbit, BITOP sends set" {
        r config set notify-keyspace-events KE$
        set rd [rd]
        $rd psubscribe __keyevent*
        $rd read
        r setbit nb 1 1
        r bitfield nb set u8 0 1
        r bitop not nb2 nb
        r bitfield nb get u8 0
        r set marker 1
        assert_equal setbit [lindex [split [lindex [$rd read] 2] :] 1]
        assert_equal setbit [lindex [split [lindex [$rd read] 2] :] 1]
        assert_equal set [lindex [split [lindex [$rd read] 2] :] 1]
        assert_equal {pmessage __keyevent* __keyevent@*__:set marker} \
            [lreplace [$rd read] 2 2 {__keyevent@*__:set}]
        $rd close
        r config set notify-keyspace-events ""
    }

    # ---- randomized comparison with a model --------------------------------------------------

    test "BITCOUNT and BITPOS match a bit-by-bit model on random strings" {
        for {set round 0} {$round < 150} {incr round} {
            set len [expr {1 + int(rand() * 70)}]
            set s [random_binary $len]
            r set rs $s
            set nbits [expr {$len * 8}]
            set a [expr {int(rand() * $nbits)}]
            set b [expr {int(rand() * $nbits)}]
            if {$a > $b} { lassign [list $a $b] b a }
            assert_equal [model_bitcount $s $a $b] [r bitcount rs $a $b bit]
            assert_equal [model_bitcount $s [expr {$a / 8 * 8}] [expr {$b / 8 * 8 + 7}]] [r bitcount rs [expr {$a / 8}] [expr {$b / 8}]]
            foreach bit {0 1} {
                assert_equal [model_bitpos $s $bit $a $b] [r bitpos rs $bit $a $b bit]
            }
        }
    }

    test "BITOP matches a bytewise model on random strings" {
        foreach op {and or xor} {
            for {set round 0} {$round < 40} {incr round} {
                set s1 [random_binary [expr {int(rand() * 60)}]]
                set s2 [random_binary [expr {int(rand() * 60)}]]
                r set x1 $s1
                r set x2 $s2
                set n [r bitop $op dst x1 x2]
                binary scan $s1 cu* b1
                binary scan $s2 cu* b2
                set expected ""
                for {set i 0} {$i < $n} {incr i} {
                    set x [expr {$i < [llength $b1] ? [lindex $b1 $i] : 0}]
                    set y [expr {$i < [llength $b2] ? [lindex $b2 $i] : 0}]
                    set v [expr {$op eq "and" ? $x & $y : $op eq "or" ? $x | $y : $x ^ $y}]
                    append expected [binary format c $v]
                }
                if {$n > 0} { assert_equal $expected [r get dst] }
            }
        }
    }
}
