# hash.tcl -- the hash type: HSET/HMSET/HSETNX, HGET/HMGET, HDEL, HLEN,
# HSTRLEN, HEXISTS, HKEYS/HVALS/HGETALL, HINCRBY/HINCRBYFLOAT, HRANDFIELD,
# HSCAN; the listpack and hashtable encodings and the conversion between
# them; RESP3 replies; COPY and DEBUG DIGEST-VALUE; keyspace behaviour.
#
# Most command tests run once per encoding: `use_encoding` sets the
# thresholds so that every new hash takes the wanted encoding
# (hash-max-listpack-entries 0 forces hashtable), and `make_hash` asserts the
# encoding it got, so a test never silently checks the wrong one.
#
# Expected values are computed in Tcl (a dict mirrors the hash) wherever
# that is possible. Error strings are asserted in full, as clients match on
# them; every one was checked against Redis 7.0.

# Thresholds under which new hashes get `enc`.
proc use_encoding {enc} {
    if {$enc eq "listpack"} {
        r config set hash-max-listpack-entries 128
    } else {
        r config set hash-max-listpack-entries 0
    }
    r config set hash-max-listpack-value 64
}

# A fresh hash `key` holding the field/value list `pairs`, in encoding enc.
proc make_hash {key enc pairs} {
    use_encoding $enc
    r del $key
    r hset $key {*}$pairs
    assert_encoding $enc $key
}

# The hash as a Tcl dict sorted by field, for comparisons.
proc hash_as_sorted_dict {key} {
    set d [dict create]
    foreach {f v} [r hgetall $key] { dict set d $f $v }
    return [lsort -stride 2 -index 0 [dict get $d]]
}

proc sorted_pairs {pairs} { return [lsort -stride 2 -index 0 $pairs] }

# Runs HSCAN to the end; returns the pairs seen as a dict (duplicates merge).
proc hscan_all {key args} {
    set cursor 0
    set seen [dict create]
    set calls 0
    while 1 {
        lassign [r hscan $key $cursor {*}$args] cursor items
        foreach {f v} $items { dict set seen $f $v }
        incr calls
        if {$cursor eq "0"} { break }
        if {$calls > 100000} { fail "HSCAN did not finish after $calls calls" }
    }
    return $seen
}

# The lines of a raw reply, space separated: the first line of `cmd`, then
# n more.
proc raw_reply {client n args} {
    set lines [list [$client {*}$args]]
    for {set i 0} {$i < $n} {incr i} { lappend lines [$client read] }
    return [join $lines " "]
}

start_server {tags {hash}} {
    foreach enc {listpack hashtable} {
        test "HSET/HGET/HLEN/HEXISTS basics ($enc)" {
            make_hash h $enc {a 1 b 2 c hello}
            assert_equal 3 [r hlen h]
            assert_equal 1 [r hget h a]
            assert_equal hello [r hget h c]
            assert_equal {} [r hget h missing]
            assert_equal 1 [r hexists h b]
            assert_equal 0 [r hexists h missing]
            assert_type hash h
        }

        test "HSET counts only new fields and updates values ($enc)" {
            make_hash h $enc {a 1}
            assert_equal 0 [r hset h a 2]
            assert_equal 2 [r hset h a 3 b 1 c 1]
            assert_equal 0 [r hset h b x c y]
            assert_equal {a 3 b x c y} [hash_as_sorted_dict h]
            # The same field twice in one call: the last value wins.
            assert_equal 1 [r hset h d 1 d 2]
            assert_equal 2 [r hget h d]
            assert_encoding $enc h
        }

        test "HMSET replies OK ($enc)" {
            make_hash h $enc {a 1}
            assert_equal OK [r hmset h a 10 b 20]
            assert_equal {a 10 b 20} [hash_as_sorted_dict h]
        }

        test "HSETNX sets only missing fields ($enc)" {
            make_hash h $enc {a 1}
            assert_equal 0 [r hsetnx h a 2]
            assert_equal 1 [r hget h a]
            assert_equal 1 [r hsetnx h b 2]
            assert_equal 2 [r hget h b]
        }

        test "HMGET with present, missing fields and a missing key ($enc)" {
            make_hash h $enc {a 1 b 2}
            assert_equal {1 {} 2} [r hmget h a nope b]
            r del nokey
            assert_equal {{} {}} [r hmget nokey a b]
        }

        test "HKEYS/HVALS/HGETALL return every pair ($enc)" {
            set pairs {}
            for {set i 0} {$i < 50} {incr i} { lappend pairs field$i value$i }
            make_hash h $enc $pairs
            assert_equal [sorted_pairs $pairs] [hash_as_sorted_dict h]
            assert_equal [lsort [dict keys $pairs]] [lsort [r hkeys h]]
            assert_equal [lsort [dict values $pairs]] [lsort [r hvals h]]
            # HKEYS and HVALS walk in the same order as HGETALL.
            set keys {}
            set vals {}
            foreach {f v} [r hgetall h] { lappend keys $f; lappend vals $v }
            assert_equal $keys [r hkeys h]
            assert_equal $vals [r hvals h]
        }

        test "HSTRLEN of strings and integer-looking values ($enc)" {
            set values {abc {} 0 -1 123 -9223372036854775808 9223372036854775807
                        9223372036854775808 0123 -0 +1 1e3}
            set pairs {}
            set i 0
            foreach v $values { lappend pairs f[incr i] $v }
            make_hash h $enc $pairs
            set i 0
            foreach v $values {
                assert_equal [string length $v] [r hstrlen h f[incr i]] "value '$v'"
            }
            assert_equal 0 [r hstrlen h missing]
            assert_equal 0 [r hstrlen nokey f1]
        }

        test "Integer-looking values come back byte for byte ($enc)" {
            set values {0 -0 00 0123 +1 " 1" "1 " 1e3 -9223372036854775808
                        9223372036854775807 9223372036854775808 -9223372036854775809
                        18446744073709551616 1.0 0x10 12345678901234567890}
            set pairs {}
            set i 0
            foreach v $values { lappend pairs f[incr i] $v }
            make_hash h $enc $pairs
            set c [redis_client -readraw 1]
            set i 0
            foreach v $values {
                assert_equal "\$[string length $v]" [$c hget h f[incr i]]
                assert_equal $v [$c read]
            }
            $c close
            # Integer-looking field names too.
            r hset h 123 a -5 b 0 c
            assert_equal {a b c} [r hmget h 123 -5 0]
        }

        test "Binary fields and values ($enc)" {
            set f "a\x00b\r\n"
            set v "\x00\xff\x01"
            make_hash h $enc [list $f $v]
            assert_equal $v [r hget h $f]
            assert_equal 0 [r hexists h "a"]
            assert_equal 3 [r hstrlen h $f]
        }

        test "HDEL deletes fields and counts them ($enc)" {
            make_hash h $enc {a 1 b 2 c 3 d 4}
            assert_equal 2 [r hdel h a c missing]
            assert_equal 0 [r hdel h a]
            assert_equal {b 2 d 4} [hash_as_sorted_dict h]
            # The same field twice counts once.
            assert_equal 1 [r hdel h b b]
            assert_equal 1 [r hlen h]
        }

        test "HDEL of the last field removes the key ($enc)" {
            make_hash h $enc {a 1 b 2}
            assert_equal 2 [r hdel h a b c]
            assert_equal 0 [r exists h]
            assert_equal 0 [r hlen h]
            assert_equal {} [r hgetall h]
            assert_equal 0 [r hdel h a]
        }

        test "HINCRBY creates, increments, decrements ($enc)" {
            make_hash h $enc {a 10 s abc}
            assert_equal 15 [r hincrby h a 5]
            assert_equal -5 [r hincrby h a -20]
            assert_equal 7 [r hincrby h new 7]
            assert_equal 7 [r hget h new]
            r del nokey
            assert_equal -3 [r hincrby nokey f -3]
            assert_type hash nokey
            r hset h big 9223372036854775806
            assert_equal 9223372036854775807 [r hincrby h big 1]
            r hset h small -9223372036854775807
            assert_equal -9223372036854775808 [r hincrby h small -1]
            assert_equal 0 [r hincrby h zero 0]
        }

        test "HINCRBY errors ($enc)" {
            make_hash h $enc {s abc lead 01 space " 1" f 1.5 big 9223372036854775807 small -9223372036854775808}
            foreach field {s lead space f} {
                assert_error "ERR hash value is not an integer" {r hincrby h $field 1}
            }
            assert_error "ERR increment or decrement would overflow" {r hincrby h big 1}
            assert_error "ERR increment or decrement would overflow" {r hincrby h small -1}
            assert_error "ERR value is not an integer or out of range" {r hincrby h x abc}
            assert_error "ERR value is not an integer or out of range" {r hincrby h x 1.5}
            assert_error "ERR value is not an integer or out of range" {r hincrby h x 9223372036854775808}
            assert_equal 9223372036854775807 [r hget h big]
            assert_equal 0 [r hexists h x]
        }

        test "HINCRBY across integer widths keeps neighbours intact ($enc)" {
            # Listpacks store integers in 7, 13, 16, 24, 32 and 64 bits: each
            # step below crosses from one width to the next.
            set starts {126 4094 32766 8388606 2147483646 -4095 -32767 -8388607 -2147483647}
            set pairs {}
            set i 0
            foreach v $starts { lappend pairs n[incr i] $v before$i x after$i y }
            make_hash h $enc $pairs
            set i 0
            foreach v $starts {
                incr i
                set step [expr {$v > 0 ? 1 : -1}]
                for {set k 1} {$k <= 3} {incr k} {
                    assert_equal [expr {$v + $k * $step}] [r hincrby h n$i $step]
                }
                assert_equal [expr {$v + 3 * $step}] [r hget h n$i]
                assert_equal {x y} [r hmget h before$i after$i]
            }
            assert_equal 27 [r hlen h]
        }

        test "HINCRBYFLOAT formats like INCRBYFLOAT ($enc)" {
            make_hash h $enc {a 10 f 1.5 e 1e2 x 0x10}
            assert_equal 10.5 [r hincrbyfloat h a 0.5]
            assert_equal 3 [r hincrbyfloat h f 1.5]
            assert_equal 101 [r hincrbyfloat h e 1]
            assert_equal 17 [r hincrbyfloat h x 1]
            assert_equal 1.23 [r hincrbyfloat h new 1.23]
            assert_equal 0.1 [r hincrbyfloat h p 0.1]
            assert_equal 0.3 [r hincrbyfloat h p 0.2]
            assert_equal 5000 [r hincrbyfloat h q 5.0e3]
            assert_equal 4990 [r hincrbyfloat h q -10]
            assert_equal 0 [r hincrbyfloat h z -0]
            # Extended precision: 17 significant digits as x86_64 prints them.
            assert_equal 1.22999999999999999 [r hincrbyfloat h g 1.22999999999999999]
            # Beyond a double but finite in extended precision: stored.
            r hset h d 1.7976931348623157e308
            set big [r hincrbyfloat h d 1.7976931348623157e308]
            assert_equal 309 [string length $big]
        }

        test "HINCRBYFLOAT errors ($enc)" {
            make_hash h $enc {s abc space " 1" trailing "1 " n 1}
            foreach field {s space trailing} {
                assert_error "ERR hash value is not a float" {r hincrbyfloat h $field 1}
            }
            assert_error "ERR value is not a valid float" {r hincrbyfloat h n abc}
            assert_error "ERR value is not a valid float" {r hincrbyfloat h n nan}
            assert_error "ERR value is not a valid float" {r hincrbyfloat h n ""}
            assert_error "ERR value is NaN or Infinity" {r hincrbyfloat h n inf}
            assert_error "ERR value is NaN or Infinity" {r hincrbyfloat h n -inf}
            # Finite text whose sum is not: 1e5000 overflows even extended.
            r hset h huge 1e4932
            assert_error "ERR increment would produce NaN or Infinity" {r hincrbyfloat h huge 1e4932}
            assert_equal 1 [r hget h n]
            assert_equal 1e4932 [r hget h huge]
        }

        test "HRANDFIELD without count ($enc)" {
            make_hash h $enc {a 1 b 2 c 3}
            set seen {}
            for {set i 0} {$i < 1000 && [llength $seen] < 3} {incr i} {
                set f [r hrandfield h]
                assert {[lsearch {a b c} $f] >= 0}
                if {[lsearch $seen $f] < 0} { lappend seen $f }
            }
            assert_equal {a b c} [lsort $seen]
            r del nokey
            assert_equal {} [r hrandfield nokey]
        }

        test "HRANDFIELD with a positive count: distinct fields ($enc)" {
            set pairs {}
            for {set i 0} {$i < 30} {incr i} { lappend pairs f$i v$i }
            make_hash h $enc $pairs
            foreach count {1 2 5 10 15 29} {
                set got [r hrandfield h $count]
                assert_equal $count [llength $got]
                assert_equal $count [llength [lsort -unique $got]] "count $count: $got"
                foreach f $got { assert {[dict exists $pairs $f]} }
            }
            # A count at or above the size returns the whole hash.
            foreach count {30 31 1000 9223372036854775807} {
                assert_equal [lsort [dict keys $pairs]] [lsort [r hrandfield h $count]]
            }
            assert_equal {} [r hrandfield h 0]
            assert_equal {} [r hrandfield nokey 5]
            assert_equal {} [r hrandfield nokey -5 withvalues]
        }

        test "HRANDFIELD with count eventually returns every field ($enc)" {
            set pairs {}
            for {set i 0} {$i < 20} {incr i} { lappend pairs f$i v$i }
            make_hash h $enc $pairs
            foreach count {3 -3 12} {
                set seen [dict create]
                for {set i 0} {$i < 500 && [dict size $seen] < 20} {incr i} {
                    foreach f [r hrandfield h $count] { dict set seen $f 1 }
                }
                assert_equal 20 [dict size $seen] "count $count"
            }
        }

        test "HRANDFIELD with a negative count may repeat ($enc)" {
            make_hash h $enc {a 1 b 2 c 3}
            set got [r hrandfield h -100]
            assert_equal 100 [llength $got]
            foreach f $got { assert {[lsearch {a b c} $f] >= 0} }
            # 100 picks out of 3 fields must repeat.
            assert_equal 3 [llength [lsort -unique $got]]
            make_hash one $enc {only 1}
            assert_equal {only only only only only} [r hrandfield one -5]
        }

        test "HRANDFIELD WITHVALUES pairs match the hash ($enc)" {
            set pairs {}
            for {set i 0} {$i < 20} {incr i} { lappend pairs f$i [expr {$i * 7}] }
            make_hash h $enc $pairs
            foreach count {1 5 15 20 50 -1 -30} {
                set got [r hrandfield h $count withvalues]
                set expected [expr {abs($count) > 20 && $count > 0 ? 20 : abs($count)}]
                assert_equal [expr {2 * $expected}] [llength $got] "count $count"
                foreach {f v} $got { assert_equal [dict get $pairs $f] $v }
            }
            assert_equal {} [r hrandfield h 0 withvalues]
            assert_equal 2 [llength [r hrandfield h 1 WITHVALUES]]
        }

        test "HSCAN returns every pair, with COUNT and MATCH ($enc)" {
            set pairs {}
            set n [expr {$enc eq "listpack" ? 100 : 300}]
            for {set i 0} {$i < $n} {incr i} { lappend pairs key:$i val:$i }
            make_hash h $enc $pairs
            foreach count {1 10 100 1000} {
                set seen [hscan_all h count $count]
                assert_equal [sorted_pairs $pairs] [lsort -stride 2 -index 0 $seen] "count $count"
            }
            set seen [hscan_all h match key:1*]
            set expected {}
            foreach {f v} $pairs { if {[string match key:1* $f]} { lappend expected $f $v } }
            assert_equal [sorted_pairs $expected] [lsort -stride 2 -index 0 $seen]
            assert_equal {} [hscan_all h match nothing* count 5]
        }

        test "HSCAN returns every field present throughout, under writes ($enc)" {
            set pairs {}
            for {set i 0} {$i < 100} {incr i} { lappend pairs f$i $i }
            make_hash h $enc $pairs
            set cursor 0
            set seen [dict create]
            set calls 0
            while 1 {
                lassign [r hscan h $cursor count 5] cursor items
                foreach {f v} $items { dict set seen $f $v }
                # Grow (rehash) and shrink the hash between calls.
                r hset h extra$calls x extra[expr {$calls + 1000}] y
                r hdel h extra[expr {$calls - 1}]
                incr calls
                if {$cursor eq "0" || $calls > 10000} { break }
            }
            foreach {f v} $pairs { assert_equal $v [dict get $seen $f] }
        }

        test "HSCAN of a listpack is one call, of a table several ($enc)" {
            set pairs {}
            for {set i 0} {$i < 100} {incr i} { lappend pairs f$i $i }
            make_hash h $enc $pairs
            lassign [r hscan h 0 count 10] cursor items
            if {$enc eq "listpack"} {
                assert_equal 0 $cursor
                assert_equal 200 [llength $items]
            } else {
                assert_not_equal 0 $cursor
                assert_range [llength $items] 2 198
            }
        }

        test "COPY of a hash is independent and keeps the content ($enc)" {
            make_hash h $enc {a 1 b 2 c three}
            r del copy
            assert_equal 1 [r copy h copy]
            assert_encoding $enc copy
            assert_equal [hash_as_sorted_dict h] [hash_as_sorted_dict copy]
            r hset copy a changed d 4
            r hdel copy b
            assert_equal {a 1 b 2 c three} [hash_as_sorted_dict h]
            assert_equal {a changed c three d 4} [hash_as_sorted_dict copy]
            r del copy2
            r copy h copy2
            assert_equal [r debug digest-value h] [r debug digest-value copy2]
        }

        test "Big hash round trip ($enc)" {
            set pairs {}
            for {set i 0} {$i < 1000} {incr i} { lappend pairs $i [string repeat x [expr {$i % 50}]] }
            use_encoding $enc
            r config set hash-max-listpack-entries [expr {$enc eq "listpack" ? 1000 : 0}]
            r del h
            assert_equal 1000 [r hset h {*}$pairs]
            assert_encoding $enc h
            assert_equal 1000 [r hlen h]
            assert_equal [sorted_pairs $pairs] [hash_as_sorted_dict h]
            for {set i 0} {$i < 1000} {incr i 2} { r hdel h $i }
            assert_equal 500 [r hlen h]
            assert_equal [string repeat x 1] [r hget h 1]
            assert_equal {} [r hget h 2]
            assert_encoding $enc h
        }
    }

    test "Listpack converts to hashtable past hash-max-listpack-entries" {
        r config set hash-max-listpack-entries 4
        r config set hash-max-listpack-value 64
        r del h
        r hset h a 1 b 2 c 3 d 4
        assert_encoding listpack h
        # Updating an existing field does not convert.
        r hset h a 10
        assert_encoding listpack h
        r hset h e 5
        assert_encoding hashtable h
        assert_equal {a 10 b 2 c 3 d 4 e 5} [hash_as_sorted_dict h]
        # Never back, even once small again.
        r hdel h a b c d
        assert_encoding hashtable h
        assert_equal {e 5} [hash_as_sorted_dict h]
        # HSETNX, HINCRBY and HINCRBYFLOAT adding a field convert too.
        foreach cmd {{hsetnx h5 e 5} {hincrby h5 e 5} {hincrbyfloat h5 e 5}} {
            r del h5
            r hset h5 a 1 b 2 c 3 d 4
            r {*}$cmd
            assert_encoding hashtable h5
        }
    }

    test "Listpack converts to hashtable past hash-max-listpack-value" {
        r config set hash-max-listpack-entries 128
        r config set hash-max-listpack-value 8
        r del h
        r hset h field 12345678
        r hset h 12345678 v
        assert_encoding listpack h
        # A long value, or a long field.
        r hset h f 123456789
        assert_encoding hashtable h
        r del h
        r hset h 123456789 v
        assert_encoding hashtable h
        # HSETNX and HMSET check lengths before writing.
        r del h
        r hset h a 1
        r hsetnx h abcdefghi 1
        assert_encoding hashtable h
        r del h
        r hmset h a 1 b [string repeat x 9]
        assert_encoding hashtable h
        # HINCRBYFLOAT whose result grows past the limit.
        r del h
        r hset h a 1
        r hincrbyfloat h a 0.125
        assert_encoding listpack h
        assert_equal 1.1251 [r hincrbyfloat h a 0.0001]
        assert_encoding listpack h
        assert_equal 1.12510001 [r hincrbyfloat h a 0.00000001]
        assert_encoding hashtable h
        assert_equal 1.12510001 [r hget h a]
        r config set hash-max-listpack-value 64
    }

    test "Conversion keeps every pair and integer-looking values" {
        r config set hash-max-listpack-entries 16
        r config set hash-max-listpack-value 64
        r del h
        set pairs {}
        for {set i 0} {$i < 16} {incr i} { lappend pairs [expr {$i * 1000 - 3}] [expr {-$i * 77}] }
        r hset h {*}$pairs
        assert_encoding listpack h
        set before [r debug digest-value h]
        r hset h extra 1
        assert_encoding hashtable h
        r hdel h extra
        assert_equal [sorted_pairs $pairs] [hash_as_sorted_dict h]
        assert_equal $before [r debug digest-value h]
        r config set hash-max-listpack-entries 128
    }

    test "DEBUG DIGEST-VALUE is the same in both encodings and any order" {
        set pairs {a 1 b 2 c hello 100 -100 empty {}}
        make_hash lp listpack $pairs
        set reversed {}
        foreach {f v} $pairs { set reversed [linsert $reversed 0 $f $v] }
        make_hash ht hashtable $reversed
        set d [r debug digest-value lp]
        assert_equal $d [r debug digest-value ht]
        assert_not_equal [string repeat 0 40] $d
        # A different value or one field less changes it.
        r hset ht c world
        assert_not_equal $d [r debug digest-value ht]
        r hset ht c hello
        r hdel ht empty
        assert_not_equal $d [r debug digest-value ht]
        # DEBUG DIGEST of the dataset does not depend on the encoding either.
        r flushall
        make_hash h listpack $pairs
        set d1 [r debug digest]
        make_hash h hashtable $pairs
        assert_equal $d1 [r debug digest]
        use_encoding listpack
    }

    test "Wrong type and wrong arity errors" {
        r del str h
        r set str x
        foreach cmd {
            {hset str a 1} {hmset str a 1} {hsetnx str a 1} {hget str a} {hmget str a}
            {hdel str a} {hlen str} {hstrlen str a} {hexists str a} {hkeys str}
            {hvals str} {hgetall str} {hincrby str a 1} {hincrbyfloat str a 1}
            {hrandfield str} {hrandfield str 2} {hrandfield str -2 withvalues} {hscan str 0}
        } {
            assert_error "WRONGTYPE Operation against a key holding the wrong kind of value" {r {*}$cmd}
        }
        assert_equal x [r get str]
        assert_error "ERR wrong number of arguments for 'hset' command" {r hset h a}
        assert_error "ERR wrong number of arguments for 'hset' command" {r hset h a 1 b}
        assert_error "ERR wrong number of arguments for 'hmset' command" {r hmset h a 1 b}
        assert_error "ERR wrong number of arguments for 'hsetnx' command" {r hsetnx h a}
        assert_error "ERR wrong number of arguments for 'hget' command" {r hget h}
        assert_error "ERR wrong number of arguments for 'hdel' command" {r hdel h}
        assert_error "ERR wrong number of arguments for 'hincrby' command" {r hincrby h a}
        assert_error "ERR wrong number of arguments for 'hrandfield' command" {r hrandfield}
        assert_error "ERR wrong number of arguments for 'hscan' command" {r hscan h}
        assert_equal 0 [r exists h]
    }

    test "Errors do not create the key" {
        r del h
        catch {r hincrby h a x}
        catch {r hincrbyfloat h a x}
        catch {r hincrbyfloat h a inf}
        assert_equal 0 [r exists h]
    }

    test "HRANDFIELD argument errors" {
        make_hash h listpack {a 1 b 2}
        assert_error "ERR value is not an integer or out of range" {r hrandfield h x}
        assert_error "ERR value is not an integer or out of range" {r hrandfield h 1.5}
        assert_error "ERR syntax error" {r hrandfield h 1 withvalue}
        assert_error "ERR syntax error" {r hrandfield h 1 withvalues x}
        assert_error "ERR value is out of range*" {r hrandfield h -9223372036854775808}
        assert_error "ERR value is out of range*" {r hrandfield h -9223372036854775808 withvalues}
        # With values the reply is twice as long: counts beyond half the
        # range are refused whether or not the key exists.
        assert_error "ERR value is out of range" {r hrandfield h -9223372036854770000 withvalues}
        assert_error "ERR value is out of range" {r hrandfield h 9223372036854770000 withvalues}
        assert_error "ERR value is out of range" {r hrandfield nokey -9223372036854770000 withvalues}
        assert_equal 4 [llength [r hrandfield h 4611686018427387903 withvalues]]
        assert_equal {a b} [lsort [r hrandfield h 9223372036854775807]]
    }

    test "HRANDFIELD counts are 64-bit on every build" {
        # A 32-bit build once truncated the count to an unsigned long:
        # 4294967296 became 0 (an empty reply) and 4294967297 became 1.
        foreach enc {listpack hashtable} {
            make_hash h $enc {a 1 b 2 c 3}
            foreach count {4294967296 4294967297 9223372036854775807} {
                assert_equal {a b c} [lsort [r hrandfield h $count]] "$enc $count"
            }
            foreach count {4294967296 4294967297 4611686018427387903} {
                set got [r hrandfield h $count withvalues]
                assert_equal {a 1 b 2 c 3} [lsort -stride 2 -index 0 $got] "$enc $count withvalues"
            }
        }
    }

    test "HSCAN argument errors and a missing key" {
        make_hash h listpack {a 1}
        assert_error "ERR invalid cursor" {r hscan h x}
        assert_error "ERR syntax error" {r hscan h 0 count 0}
        assert_error "ERR syntax error" {r hscan h 0 foo}
        assert_error "ERR syntax error" {r hscan h 0 type string}
        assert_error "ERR value is not an integer or out of range" {r hscan h 0 count x}
        r del nokey
        assert_equal {0 {}} [r hscan nokey 0]
        assert_equal {0 {}} [r hscan nokey 12345 count 5]
    }

    test "RESP3: HGETALL is a map, HRANDFIELD WITHVALUES an array of pairs" {
        make_hash h listpack {a 1}
        set c [redis_client]
        $c hello 3
        $c readraw 1
        assert_equal {%1 $1 a $1 1} [raw_reply $c 4 hgetall h]
        assert_equal {*1 $1 a} [raw_reply $c 2 hkeys h]
        assert_equal {*1 *2 $1 a $1 1} [raw_reply $c 5 hrandfield h 1 withvalues]
        assert_equal {*2 *2 $1 a $1 1 *2 $1 a $1 1} [raw_reply $c 10 hrandfield h -2 withvalues]
        assert_equal {*1 $1 a} [raw_reply $c 2 hrandfield h 1]
        assert_equal {$1 a} [raw_reply $c 1 hrandfield h]
        assert_equal {_} [raw_reply $c 0 hrandfield nokey]
        assert_equal {*0} [raw_reply $c 0 hrandfield nokey 3 withvalues]
        assert_equal {%0} [raw_reply $c 0 hgetall nokey]
        assert_equal {_} [raw_reply $c 0 hget h nope]
        assert_equal {*2 _ $1 1} [raw_reply $c 3 hmget h nope a]
        assert_equal {$1 3} [raw_reply $c 1 hincrbyfloat h a 2]
        $c close
    }

    test "RESP3 replies in both encodings" {
        set c [redis_client]
        $c hello 3
        foreach enc {listpack hashtable} {
            make_hash h $enc {a 1 b 2 c 3}
            assert_equal {a 1 b 2 c 3} [lsort -stride 2 -index 0 [$c hgetall h]]
            set got [$c hrandfield h 3 withvalues]
            assert_equal 3 [llength $got]
            foreach pair $got {
                assert_equal 2 [llength $pair]
                lassign $pair f v
                assert_equal [r hget h $f] $v
            }
            foreach pair [$c hrandfield h -5 withvalues] { assert_equal 2 [llength $pair] }
        }
        $c close
        use_encoding listpack
    }

    test "RESP2: HRANDFIELD WITHVALUES is a flat array" {
        make_hash h listpack {a 1}
        set c [redis_client -readraw 1]
        assert_equal {*2 $1 a $1 1} [raw_reply $c 4 hrandfield h 1 withvalues]
        assert_equal {*4 $1 a $1 1 $1 a $1 1} [raw_reply $c 8 hrandfield h -2 withvalues]
        assert_equal {*2 $1 a $1 1} [raw_reply $c 4 hgetall h]
        assert_equal {$-1} [raw_reply $c 0 hget h nope]
        $c close
    }

    test "Hashes in the keyspace: TYPE, DEL, RENAME, EXPIRE, OBJECT" {
        make_hash h listpack {a 1}
        assert_type hash h
        r rename h h2
        assert_equal 1 [r hget h2 a]
        r expire h2 100
        r hset h2 b 2
        assert_range [r ttl h2] 1 100
        assert_equal 1 [r del h2]
        assert_equal 0 [r exists h2]
        # A hash emptied by HDEL and created again starts fresh.
        make_hash h hashtable {a 1}
        r hdel h a
        use_encoding listpack
        r hset h b 2
        assert_encoding listpack h
        assert_equal {b 2} [r hgetall h]
    }

    test "Keyspace notifications: hset, hdel, hincrby, hincrbyfloat, del" {
        r del h
        r config set notify-keyspace-events KEA
        set rd [redis_deferring_client]
        $rd psubscribe __keyevent@*
        if {[catch {$rd read} err]} {
            $rd close
            r config set notify-keyspace-events ""
            skip "needs PSUBSCRIBE ($err)"
        }
        r del h
        r hset h a 1
        r hsetnx h b 1
        r hsetnx h b 2
        r hincrby h a 1
        r hincrbyfloat h a 1
        r hdel h a nope
        r hdel h nope
        r hdel h b
        set events {}
        for {set i 0} {$i < 7} {incr i} {
            lassign [$rd read] kind pattern channel key
            assert_equal h $key
            lappend events [regsub {^__keyevent@[0-9]+__:} $channel ""]
        }
        assert_equal {hset hset hincrby hincrbyfloat hdel hdel del} $events
        $rd close
        r config set notify-keyspace-events ""
    }
}
