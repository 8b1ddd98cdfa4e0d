# list.tcl -- the list type without blocking: LPUSH/RPUSH(X), LPOP/RPOP
# (with COUNT), LLEN, LRANGE, LINDEX, LSET, LINSERT, LREM, LTRIM, LPOS,
# LMOVE/RPOPLPUSH, LMPOP; both encodings (listpack, quicklist) and the
# conversions between them; RESP2 and RESP3 null forms; keyspace events;
# DEBUG DIGEST-VALUE and COPY. Blocking commands are in list-blocking.tcl.
#
# Command tests run once per encoding. `make_list` builds a list with the
# thresholds of the wanted encoding and asserts that it got it (on servers
# that report "listpack" for small lists, i.e. Redis 7.2+ and this one; 7.0
# always says "quicklist", so there the assertion is skipped). The quicklist
# variant uses list-max-listpack-size 2, so every list of 3+ elements spans
# several nodes and node boundaries get exercised.
#
# Tests of the encoding rules themselves follow Redis 7.2 and carry the tag
# redis7.2; everything else was checked against Redis 7.0 (run with
# `--server /usr/bin/redis-server --tags -redis7.2`).

proc fill_for {enc} { expr {$enc eq "listpack" ? 128 : 2} }

proc make_list {key enc elements} {
    r config set list-max-listpack-size [fill_for $enc]
    r del $key
    r rpush $key {*}$elements
    if {$::small_lists_are_listpacks && [llength $elements] >= 3} { assert_storage $enc $key }
}

# The raw first line of a reply (e.g. "*-1", "$-1", "_").
proc raw_first_line {args} {
    set c [redis_client -readraw 1]
    if {[lindex $args 0] eq "-resp3"} {
        $c hello 3
        # HELLO's map: skip it by reading until the reply ends is awkward in
        # raw mode; a fresh line-level protocol is simpler: use inline PING
        # as a marker.
        set args [lrange $args 1 end]
        $c ping
        while {[$c read] ne "+PONG"} {}
    }
    set line [$c {*}$args]
    $c close
    return $line
}

start_server {tags {list}} {
    r rpush probe a
    set ::small_lists_are_listpacks [expr {[storage_encoding probe] eq "listpack"}]
    r del probe

    foreach enc {listpack quicklist} {
        test "LPUSH/RPUSH return the new length and keep the order - $enc" {
            make_list l $enc {c d e}
            assert_equal 5 [r lpush l b a]
            assert_equal 7 [r rpush l f g]
            assert_equal {a b c d e f g} [r lrange l 0 -1]
            assert_equal 7 [r llen l]
        }

        test "Integers and strings round-trip - $enc" {
            set elems {0 -1 1 127 128 -128 4095 65535 -65536 16777215 2147483647 -2147483648
                       9223372036854775807 -9223372036854775808 12345678901234567890 01 +1 1.5 {} { 1} abc}
            set elems [list {*}$elems]
            make_list l $enc $elems
            assert_equal $elems [r lrange l 0 -1]
            set i 0
            foreach e $elems {
                assert_equal $e [r lindex l $i]
                incr i
            }
        }

        test "LPUSHX/RPUSHX push only onto an existing list - $enc" {
            r del missing
            assert_equal 0 [r lpushx missing a]
            assert_equal 0 [r rpushx missing a b]
            assert_equal 0 [r exists missing]
            make_list l $enc {b c d}
            assert_equal 5 [r lpushx l a x]
            assert_equal 6 [r rpushx l e]
            assert_equal {x a b c d e} [r lrange l 0 -1]
        }

        test "LINDEX - $enc" {
            make_list l $enc {a b c d e}
            assert_equal a [r lindex l 0]
            assert_equal e [r lindex l 4]
            assert_equal e [r lindex l -1]
            assert_equal a [r lindex l -5]
            assert_equal {} [r lindex l 5]
            assert_equal {} [r lindex l -6]
            assert_equal {} [r lindex l 9223372036854775807]
            assert_equal {} [r lindex l -9223372036854775808]
            assert_error "ERR value is not an integer or out of range" {r lindex l x}
            assert_error "ERR value is not an integer or out of range" {r lindex l 9223372036854775808}
        }

        test "LSET - $enc" {
            make_list l $enc {a b c d e}
            assert_equal OK [r lset l 0 A]
            assert_equal OK [r lset l -1 E]
            assert_equal OK [r lset l 2 12345]
            assert_equal {A b 12345 d E} [r lrange l 0 -1]
            assert_error "ERR index out of range" {r lset l 5 x}
            assert_error "ERR index out of range" {r lset l -6 x}
            assert_error "ERR index out of range" {r lset l 9223372036854775807 x}
            assert_error "ERR value is not an integer or out of range" {r lset l x x}
            assert_equal {A b 12345 d E} [r lrange l 0 -1]
        }

        test "LINSERT - $enc" {
            make_list l $enc {a b c}
            assert_equal 4 [r linsert l before a x]
            assert_equal 5 [r linsert l after c y]
            assert_equal 6 [r linsert l AFTER b z]
            assert_equal 7 [r linsert l BeFoRe b w]
            assert_equal {x a w b z c y} [r lrange l 0 -1]
            assert_equal -1 [r linsert l before nope v]
            assert_equal 7 [r llen l]
            r rpush l 42
            assert_equal 9 [r linsert l before 42 41]
            assert_equal {41 42} [r lrange l -2 -1]
            assert_error "ERR syntax error" {r linsert l middle a v}
        }

        test "LINSERT on the first of equal pivots - $enc" {
            make_list l $enc {a p b p c}
            r linsert l after p X
            assert_equal {a p X b p c} [r lrange l 0 -1]
        }

        test "LREM from the head, from the tail, all - $enc" {
            make_list l $enc {x a x b x c x 1 x}
            assert_equal 2 [r lrem l 2 x]
            assert_equal {a b x c x 1 x} [r lrange l 0 -1]
            assert_equal 2 [r lrem l -2 x]
            assert_equal {a b x c 1} [r lrange l 0 -1]
            assert_equal 0 [r lrem l 0 nope]
            assert_equal 1 [r lrem l 0 x]
            assert_equal 1 [r lrem l 1 1]
            assert_equal {a b c} [r lrange l 0 -1]
            assert_equal 1 [r lrem l -9223372036854775808 c]
            assert_equal 1 [r lrem l 9223372036854775807 b]
            assert_equal 1 [r lrem l 0 a]
            assert_equal 0 [r exists l]
        }

        test "LREM removes every match in long runs - $enc" {
            set elems {}
            for {set i 0} {$i < 50} {incr i} { lappend elems v [expr {$i % 3}] }
            make_list l $enc $elems
            assert_equal 50 [r lrem l 0 v]
            assert_equal 17 [r lrem l -100 0]
            assert_equal 33 [r llen l]
            assert_equal 0 [llength [lsearch -all [r lrange l 0 -1] 0]]
        }

        test "LRANGE ranges - $enc" {
            make_list l $enc {a b c d e}
            assert_equal {b c d} [r lrange l 1 3]
            assert_equal {d e} [r lrange l -2 -1]
            assert_equal {a b c d e} [r lrange l -100 100]
            assert_equal {} [r lrange l 3 1]
            assert_equal {} [r lrange l 5 10]
            assert_equal {a} [r lrange l -9223372036854775808 0]
            assert_equal {e} [r lrange l 4 9223372036854775807]
            assert_equal {a b c d e} [r lrange l -9223372036854775808 9223372036854775807]
            assert_equal {} [r lrange l 9223372036854775807 -9223372036854775808]
            assert_error "ERR value is not an integer or out of range" {r lrange l a 1}
            assert_error "ERR value is not an integer or out of range" {r lrange l 0 1.5}
        }

        test "LTRIM - $enc" {
            make_list l $enc {a b c d e f}
            assert_equal OK [r ltrim l 1 -2]
            assert_equal {b c d e} [r lrange l 0 -1]
            assert_equal OK [r ltrim l -100 100]
            assert_equal {b c d e} [r lrange l 0 -1]
            assert_equal OK [r ltrim l 0 0]
            assert_equal {b} [r lrange l 0 -1]
            make_list l $enc {a b c d e f}
            assert_equal OK [r ltrim l -2 9223372036854775807]
            assert_equal {e f} [r lrange l 0 -1]
            assert_equal OK [r ltrim l 1 0]
            assert_equal 0 [r exists l]
            make_list l $enc {a b c}
            assert_equal OK [r ltrim l 5 10]
            assert_equal 0 [r exists l]
            assert_equal OK [r ltrim missing 0 1]
            assert_error "ERR value is not an integer or out of range" {r ltrim l x 1}
        }

        test "LPOS - $enc" {
            make_list l $enc {a b c 1 2 3 c c}
            assert_equal 2 [r lpos l c]
            assert_equal 3 [r lpos l 1]
            assert_equal {} [r lpos l nope]
            assert_equal 6 [r lpos l c rank 2]
            assert_equal 7 [r lpos l c rank -1]
            assert_equal 6 [r lpos l c rank -2]
            assert_equal 2 [r lpos l c rank -3]
            assert_equal {} [r lpos l c rank 4]
            assert_equal {} [r lpos l c rank -4]
            assert_equal {2 6 7} [r lpos l c count 0]
            assert_equal {2 6} [r lpos l c count 2]
            assert_equal {6 7} [r lpos l c rank 2 count 0]
            assert_equal {7 6 2} [r lpos l c rank -1 count 0]
            assert_equal {6 2} [r lpos l c rank -2 count 5]
            assert_equal {} [r lpos l nope count 0]
            assert_equal {} [r lpos l c maxlen 2]
            assert_equal 2 [r lpos l c maxlen 3]
            assert_equal {2} [r lpos l c maxlen 3 count 0]
            assert_equal {7 6} [r lpos l c rank -1 count 0 maxlen 2]
            assert_equal {2 6 7} [r lpos l c count 0 maxlen 0]
            assert_equal {2} [r lpos l c rank 1 count 1]
            assert_equal {2 6 7} [r lpos l c count 9223372036854775807 rank 1 maxlen 9223372036854775807]
        }

        test "LPOP/RPOP single and with COUNT - $enc" {
            make_list l $enc {a b c d e f g}
            assert_equal a [r lpop l]
            assert_equal g [r rpop l]
            assert_equal {b c} [r lpop l 2]
            assert_equal {f e} [r rpop l 2]
            assert_equal {} [r lpop l 0]
            assert_equal {d} [r lpop l 9223372036854775807]
            assert_equal 0 [r exists l]
            make_list l $enc {a b c}
            assert_equal {c b a} [r rpop l 10]
            assert_equal 0 [r exists l]
        }

        test "LMOVE in all four directions - $enc" {
            make_list src $enc {a b c d}
            make_list dst $enc {x y z}
            assert_equal a [r lmove src dst left left]
            assert_equal d [r lmove src dst right right]
            assert_equal b [r lmove src dst left right]
            assert_equal c [r lmove src dst right left]
            assert_equal 0 [r exists src]
            assert_equal {c a x y z d b} [r lrange dst 0 -1]
        }

        test "LMOVE/RPOPLPUSH onto the same list rotate it - $enc" {
            make_list l $enc {a b c d}
            assert_equal d [r rpoplpush l l]
            assert_equal {d a b c} [r lrange l 0 -1]
            assert_equal d [r lmove l l left right]
            assert_equal {a b c d} [r lrange l 0 -1]
            assert_equal a [r lmove l l left left]
            assert_equal {a b c d} [r lrange l 0 -1]
            r del one
            r rpush one x
            assert_equal x [r lmove one one right left]
            assert_equal {x} [r lrange one 0 -1]
        }

        test "LMOVE creates the destination, WRONGTYPE keeps the source - $enc" {
            make_list src $enc {a b c}
            r del dst
            assert_equal c [r rpoplpush src dst]
            assert_equal {c} [r lrange dst 0 -1]
            r set str x
            assert_error "WRONGTYPE*" {r lmove src str left left}
            assert_error "WRONGTYPE*" {r rpoplpush src str}
            assert_equal {a b} [r lrange src 0 -1]
            assert_equal {} [r lmove missing dst left left]
            assert_equal {} [r rpoplpush missing dst]
            assert_equal 0 [r exists missing]
        }

        test "LMPOP - $enc" {
            r del k0
            make_list k1 $enc {a b c d e}
            make_list k2 $enc {x y z}
            assert_equal {k1 a} [r lmpop 3 k0 k1 k2 left]
            assert_equal {k1 {e d}} [r lmpop 2 k1 k2 right count 2]
            assert_equal {k1 {b c}} [r lmpop 2 k1 k2 LEFT COUNT 100]
            assert_equal 0 [r exists k1]
            assert_equal {k2 {x y z}} [r lmpop 2 k1 k2 left count 3]
            assert_equal {} [r lmpop 2 k1 k2 left count 3]
            assert_equal {} [r lmpop 1 k1 right]
        }
    }

    test "LPOP/RPOP error cases and nil forms" {
        r del missing
        assert_equal {} [r lpop missing]
        assert_equal {} [r rpop missing 3]
        assert_equal {} [r lpop missing 0]
        assert_equal {$-1} [raw_first_line lpop missing]
        assert_equal {*-1} [raw_first_line lpop missing 1]
        assert_equal {*-1} [raw_first_line rpop missing 0]
        r del l
        r rpush l a
        assert_equal {*0} [raw_first_line lpop l 0]
        assert_error "ERR value is out of range, must be positive" {r lpop l -1}
        assert_error "ERR value is out of range, must be positive" {r rpop l x}
        assert_error "ERR value is out of range, must be positive" {r rpop l -9223372036854775808}
        assert_error "ERR value is out of range, must be positive" {r lpop missing -1}
        assert_error "ERR wrong number of arguments for 'lpop' command" {r lpop l 1 2}
        assert_error "ERR wrong number of arguments for 'rpop' command" {r rpop}
        assert_equal {a} [r lrange l 0 -1]
    }

    test "LPOS errors and missing keys" {
        r del missing
        r rpush l a b
        assert_equal {} [r lpos missing a]
        assert_equal {} [r lpos missing a count 0]
        assert_equal {$-1} [raw_first_line lpos missing a]
        assert_equal {*0} [raw_first_line lpos missing a count 1]
        assert_error "ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use negative to start from the end of the list" {r lpos l a rank 0}
        assert_error "ERR value is not an integer or out of range" {r lpos l a rank x}
        assert_error "ERR COUNT can't be negative" {r lpos l a count -1}
        assert_error "ERR COUNT can't be negative" {r lpos l a count x}
        assert_error "ERR MAXLEN can't be negative" {r lpos l a maxlen -1}
        assert_error "ERR syntax error" {r lpos l a rank}
        assert_error "ERR syntax error" {r lpos l a foo 1}
        assert_error "ERR RANK can't be zero*" {r lpos missing a rank 0}
        r set s x
        assert_error "WRONGTYPE*" {r lpos s a}
    }

    test "LPOS RANK of the most negative integer is out of range" {
        r del l
        r rpush l a b
        assert_error "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807" {r lpos l a rank -9223372036854775808}
    } {redis7.2}

    test "LMPOP argument errors" {
        r del l
        r rpush l a
        assert_error "ERR numkeys should be greater than 0" {r lmpop 0 l left}
        assert_error "ERR numkeys should be greater than 0" {r lmpop -1 l left}
        assert_error "ERR numkeys should be greater than 0" {r lmpop x l left}
        assert_error "ERR syntax error" {r lmpop 2 l left}
        assert_error "ERR syntax error" {r lmpop 9223372036854775807 l left}
        assert_error "ERR syntax error" {r lmpop 1 l middle}
        assert_error "ERR syntax error" {r lmpop 1 l left count}
        assert_error "ERR syntax error" {r lmpop 1 l left count 1 count 1}
        assert_error "ERR syntax error" {r lmpop 1 l left foo}
        assert_error "ERR count should be greater than 0" {r lmpop 1 l left count 0}
        assert_error "ERR count should be greater than 0" {r lmpop 1 l left count -1}
        assert_error "ERR count should be greater than 0" {r lmpop 1 l left count x}
        assert_error "ERR wrong number of arguments for 'lmpop' command" {r lmpop 1 l}
        r set s x
        assert_error "WRONGTYPE*" {r lmpop 2 s l left}
        assert_equal {l a} [r lmpop 2 missing l left]
    }

    test "Wrong type and arity errors" {
        r del s
        r set s x
        foreach cmd {
            {lpush s a} {rpush s a} {lpushx s a} {rpushx s a} {lpop s} {rpop s 2} {llen s}
            {lrange s 0 -1} {lindex s 0} {lset s 0 a} {linsert s before a b} {lrem s 0 a}
            {ltrim s 0 1} {lpos s a} {lmove s d left left} {rpoplpush s d} {lmpop 1 s left}
        } {
            assert_error "WRONGTYPE Operation against a key holding the wrong kind of value" {r {*}$cmd}
        }
        assert_equal x [r get s]
        foreach {cmd name} {
            {lpush l} lpush {rpush} rpush {llen} llen {llen a b} llen {lrange l 0} lrange {lindex l} lindex
            {lset l 0} lset {linsert l before a} linsert {lrem l 0} lrem {ltrim l 0} ltrim {lpos l} lpos
            {lmove a b left} lmove {rpoplpush a} rpoplpush {lmpop 1} lmpop
        } {
            assert_error "ERR wrong number of arguments for '$name' command" {r {*}$cmd}
        }
        assert_error "ERR syntax error" {r lmove a b up left}
        assert_error "ERR syntax error" {r lmove a b left down}
    }

    test "Missing keys: LLEN 0, LRANGE empty, LINDEX nil, LSET no such key, LINSERT 0, LREM 0" {
        r del missing
        assert_equal 0 [r llen missing]
        assert_equal {} [r lrange missing 0 -1]
        assert_equal {} [r lindex missing 0]
        assert_equal {} [r lindex missing x]
        assert_error "ERR no such key" {r lset missing 0 a}
        assert_error "ERR no such key" {r lset missing x a}
        assert_equal 0 [r linsert missing before a b]
        assert_equal 0 [r lrem missing 0 a]
        assert_equal 0 [r exists missing]
    }

    test "RESP3 replies" {
        set c [redis_client]
        $c hello 3
        $c del l missing
        assert_equal {} [$c lpop missing]
        assert_equal {} [$c lpop missing 2]
        assert_equal {} [$c lindex missing 0]
        assert_equal {} [$c lpos missing a]
        assert_equal {} [$c lmpop 1 missing left]
        $c rpush l a b c
        assert_equal {a b} [$c lpop l 2]
        assert_equal {l c} [$c lmpop 1 l left count 5]
        $c close
        assert_equal {_} [raw_first_line -resp3 lpop missing]
        assert_equal {_} [raw_first_line -resp3 lpop missing 2]
        assert_equal {_} [raw_first_line -resp3 lmpop 1 missing left]
        assert_equal {_} [raw_first_line -resp3 lindex missing 1]
        assert_equal {_} [raw_first_line -resp3 lmove missing dst left left]
    }

    test "Keyspace events of the list commands" {
        r config set notify-keyspace-events KEA
        set sub [redis_deferring_client]
        r del l l2
        $sub psubscribe __keyevent@*__:*
        $sub flush
        assert_equal {psubscribe __keyevent@*__:* 1} [$sub read]
        r rpush l a b c d e
        r lpush l z
        r lpop l
        r rpop l 2
        r linsert l after a x
        r lset l 0 A
        r lrem l 0 x
        r ltrim l 0 1
        r lmove l l2 left right
        r lmpop 1 l left
        set events {}
        for {set i 0} {$i < 12} {incr i} {
            set msg [$sub read]
            lappend events "[lindex [split [lindex $msg 2] :] 1] [lindex $msg 3]"
        }
        r config set notify-keyspace-events ""
        $sub close
        assert_equal [list {rpush l} {lpush l} {lpop l} {rpop l} {linsert l} {lset l} {lrem l} {ltrim l} \
                          {rpush l2} {lpop l} {lpop l} {del l}] $events
    }

    test "COPY and DEBUG DIGEST-VALUE do not depend on the encoding" {
        set elems {a 1 bb 22 ccc 333 -4 xyz}
        make_list lp listpack $elems
        make_list ql quicklist $elems
        assert_equal [r debug digest-value lp] [r debug digest-value ql]
        r copy ql ql2
        assert_equal $elems [r lrange ql2 0 -1]
        assert_equal [r debug digest-value ql] [r debug digest-value ql2]
        r lpush ql2 new
        assert_equal $elems [r lrange ql 0 -1]
        assert_not_equal [r debug digest-value ql] [r debug digest-value ql2]
        r rpush order1 a b
        r rpush order2 b a
        assert_not_equal [r debug digest-value order1] [r debug digest-value order2]
    }

    test "Elements above DEBUG QUICKLIST-PACKED-THRESHOLD (plain nodes) behave like any other" {
        r config set list-max-listpack-size 4
        assert_equal OK [r debug quicklist-packed-threshold 100]
        r del l
        set big1 [string repeat A 300]
        set big2 [string repeat B 150]
        set model [list a $big1 b c d $big2 e 12345]
        r rpush l {*}$model
        assert_equal $model [r lrange l 0 -1]
        assert_equal $big1 [r lindex l 1]
        assert_equal $big2 [r lindex l -3]
        assert_equal 1 [r lpos l $big1]
        assert_equal 5 [r lpos l $big2 rank -1]
        r lset l 2 [string repeat C 200]
        lset model 2 [string repeat C 200]
        r lset l 1 small
        lset model 1 small
        assert_equal $model [r lrange l 0 -1]
        r linsert l before $big2 [string repeat D 500]
        set model [linsert $model 5 [string repeat D 500]]
        r linsert l after $big2 x
        set model [linsert $model 7 x]
        assert_equal $model [r lrange l 0 -1]
        assert_equal 1 [r lrem l 0 $big2]
        set model [lsearch -all -inline -not -exact $model $big2]
        assert_equal $model [r lrange l 0 -1]
        assert_equal [lrange $model 0 1] [r lpop l 2]
        assert_equal [lreverse [lrange $model end-1 end]] [r rpop l 2]
        set model [lrange $model 2 end-2]
        assert_equal $model [r lrange l 0 -1]
        r del l2
        r rpush l2 [string repeat E 1000]
        assert_equal [string repeat E 1000] [r lmove l2 l left right]
        lappend model [string repeat E 1000]
        assert_equal $model [r lrange l 0 -1]
        r ltrim l 1 -1
        assert_equal [lrange $model 1 end] [r lrange l 0 -1]
        assert_equal OK [r debug quicklist-packed-threshold 0]
        r config set list-max-listpack-size -2
    }

    test "DEBUG QUICKLIST-PACKED-THRESHOLD errors" {
        assert_error "ERR argument must be a memory value bigger than 1 and smaller than 4gb" {r debug quicklist-packed-threshold abc}
        assert_error "ERR argument must be a memory value bigger than 1 and smaller than 4gb" {r debug quicklist-packed-threshold 5gb}
    }

    foreach enc {listpack quicklist} {
        test "Random operations match a model - $enc" {
            r config set list-max-listpack-size [expr {$enc eq "listpack" ? 100000 : 3}]
            r del l
            set model {}
            set ops [expr {[::harness::factor] > 1 ? 400 : 2000}]
            for {set i 0} {$i < $ops} {incr i} {
                set v [expr {int(rand()*20)}]
                if {rand() < 0.3} { set v "s$v" }
                switch [expr {int(rand()*10)}] {
                    0 - 1 { r lpush l $v; set model [linsert $model 0 $v] }
                    2 - 3 { r rpush l $v; lappend model $v }
                    4 {
                        set got [r lpop l]
                        assert_equal [lindex $model 0] $got
                        set model [lrange $model 1 end]
                    }
                    5 {
                        set n [expr {int(rand()*3)+1}]
                        r rpop l $n
                        set model [lrange $model 0 end-$n]
                    }
                    6 {
                        set n [expr {int(rand()*3)-1}]
                        set removed [r lrem l $n $v]
                        set idx [lsearch -all -exact $model $v]
                        if {$n < 0} { set idx [lrange [lreverse $idx] 0 [expr {-$n-1}]] } elseif {$n > 0} { set idx [lrange $idx 0 [expr {$n-1}]] }
                        assert_equal [llength $idx] $removed
                        foreach j [lsort -integer -decreasing $idx] { set model [lreplace $model $j $j] }
                    }
                    7 {
                        if {[llength $model]} {
                            set j [expr {int(rand()*[llength $model])}]
                            r lset l $j $v
                            lset model $j $v
                        }
                    }
                    8 {
                        set pos [lsearch -exact $model $v]
                        set got [r linsert l before $v "i$i"]
                        if {$pos < 0} {
                            assert_equal [expr {[llength $model] ? -1 : 0}] $got
                        } else {
                            set model [linsert $model $pos "i$i"]
                        }
                    }
                    9 {
                        set j [expr {int(rand()*[llength $model]+1)}]
                        assert_equal [lsearch -exact $model $v] [expr {[set p [r lpos l $v]] eq {} ? -1 : $p}]
                        if {[llength $model] > 30} {
                            r ltrim l 1 -2
                            set model [lrange $model 1 end-1]
                        }
                    }
                }
                if {$i % 50 == 0} { assert_equal $model [r lrange l 0 -1] }
            }
            assert_equal $model [r lrange l 0 -1]
            assert_equal [llength $model] [r llen l]
            r config set list-max-listpack-size -2
        }
    }
}

start_server {tags {list redis7.2}} {
    test "Small lists are listpacks, big ones quicklists (entry limit)" {
        r config set list-max-listpack-size 4
        r del l
        r rpush l a b c d
        assert_storage listpack l
        r rpush l e
        assert_storage quicklist l
        r del l
        r rpush l a b c d e
        assert_storage quicklist l
        assert_equal {a b c d e} [r lrange l 0 -1]
    }

    test "A quicklist shrinks back to a listpack at half the limit" {
        r config set list-max-listpack-size 4
        r del l
        r rpush l a b c d e
        assert_storage quicklist l
        r rpop l
        assert_storage quicklist l
        r rpop l
        assert_storage quicklist l
        r rpop l
        assert_storage listpack l
        assert_equal {a b} [r lrange l 0 -1]
    }

    test "Byte limits: -1 (4 KB) converts on size" {
        r config set list-max-listpack-size -1
        r del l
        r rpush l [string repeat x 1000] [string repeat y 1000] [string repeat z 1000]
        assert_storage listpack l
        r rpush l [string repeat w 1500]
        assert_storage quicklist l
        r rpop l
        r rpop l
        assert_storage listpack l
        assert_equal 2 [r llen l]
    }

    test "A big element converts even in entry-count mode" {
        r config set list-max-listpack-size 128
        r del l
        r rpush l a
        r rpush l [string repeat x 9000]
        assert_storage quicklist l
        assert_equal 9000 [string length [r lindex l 1]]
        r rpop l
        assert_storage listpack l
    }

    test "LSET and LINSERT with a big element convert first" {
        r config set list-max-listpack-size -2
        r del l
        r rpush l a b c
        r lset l 1 [string repeat x 10000]
        assert_storage quicklist l
        assert_equal [list a [string repeat x 10000] c] [r lrange l 0 -1]
        r lset l 1 b
        assert_storage listpack l
        r linsert l before b [string repeat y 10000]
        assert_storage quicklist l
        assert_equal 4 [r llen l]
    }

    test "LTRIM and LREM shrink a quicklist back" {
        r config set list-max-listpack-size 4
        r del l
        r rpush l 1 2 3 4 5 6 7 8 9
        assert_storage quicklist l
        r ltrim l 0 1
        assert_storage listpack l
        r rpush l 3 4 5 6 7
        assert_storage quicklist l
        r lrem l 0 3
        r lrem l 0 4
        r lrem l 0 5
        r lrem l 0 6
        r lrem l 0 7
        assert_storage listpack l
        assert_equal {1 2} [r lrange l 0 -1]
    }

    test "Compressed quicklists (list-compress-depth 1) read and write correctly" {
        r config set list-max-listpack-size 4
        r config set list-compress-depth 1
        r del l
        set model {}
        for {set i 0} {$i < 200} {incr i} {
            r rpush l "element-$i-[string repeat a 20]"
            lappend model "element-$i-[string repeat a 20]"
        }
        assert_storage quicklist l
        assert_equal $model [r lrange l 0 -1]
        assert_equal [lindex $model 100] [r lindex l 100]
        r lset l 100 changed
        assert_equal changed [r lindex l 100]
        r linsert l before changed inserted
        assert_equal inserted [r lindex l 100]
        assert_equal 1 [r lrem l 0 inserted]
        assert_equal 200 [r llen l]
        assert_equal [lrange $model 0 99] [r lrange l 0 99]
        r config set list-compress-depth 0
    }
}
