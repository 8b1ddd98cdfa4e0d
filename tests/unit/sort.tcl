# sort.tcl -- SORT and SORT_RO: numeric and ALPHA order, BY patterns (keys,
# hash fields, "nosort"), GET patterns, LIMIT windows, STORE, errors.
#
# Every expected value here was checked against Redis 7. Results that Redis
# leaves to a hash table's order (a set sorted BY a constant) are checked as
# permutations only. Each sorting test runs on every encoding of lists, sets
# and sorted sets: the encodings are forced through the config thresholds,
# and the results must not depend on them.

# Fills KEY, a TYPE (list/set/zset) value, with ELEMS; a sorted set gets
# scores 0, 1, 2 ... so its score order is the order given.
proc fill {type key elems} {
    r del $key
    switch $type {
        list { r rpush $key {*}$elems }
        set { r sadd $key {*}$elems }
        zset {
            set args {}
            set i 0
            foreach e $elems { lappend args $i $e; incr i }
            r zadd $key {*}$args
        }
    }
}

# Thresholds that give each encoding: compact ("small") or not ("big").
# The 7.2 set-max-listpack-entries does not exist in 7.0: ignored there.
proc use_encodings {size} {
    set n [expr {$size eq "small" ? 128 : 2}]
    r config set list-max-listpack-size [expr {$size eq "small" ? -2 : 2}]
    r config set zset-max-listpack-entries $n
    r config set hash-max-listpack-entries $n
    r config set set-max-intset-entries $n
    catch {r config set set-max-listpack-entries $n}
}

# n random integers in [-max, max]
proc random_ints {n max} {
    set out {}
    for {set i 0} {$i < $n} {incr i} { lappend out [expr {int(rand() * (2 * $max + 1)) - $max}] }
    return $out
}

proc random_words {n} {
    set out {}
    for {set i 0} {$i < $n} {incr i} {
        set w ""
        set len [expr {1 + int(rand() * 8)}]
        for {set j 0} {$j < $len} {incr j} { append w [format %c [expr {97 + int(rand() * 26)}]] }
        lappend out $w$i
    }
    return $out
}

start_server {tags {sort}} {
    foreach size {small big} {
        foreach type {list set zset} {
            test "SORT $type ($size): numeric ascending and descending" {
                use_encodings $size
                fill $type k {3 1 2 10 -5 7}
                assert_equal {-5 1 2 3 7 10} [r sort k]
                assert_equal {-5 1 2 3 7 10} [r sort k asc]
                assert_equal {10 7 3 2 1 -5} [r sort k desc]
            }

            test "SORT $type ($size): ALPHA orders bytes" {
                use_encodings $size
                fill $type k {b 10 a 2 B ab}
                assert_equal {10 2 B a ab b} [r sort k alpha]
                assert_equal {b ab a B 2 10} [r sort k alpha desc]
            }

            test "SORT $type ($size): a non-numeric element fails a numeric sort" {
                use_encodings $size
                fill $type k {1 2 x}
                assert_error "ERR One or more scores can't be converted into double" {r sort k}
            }

            test "SORT $type ($size): BY string keys" {
                use_encodings $size
                fill $type k {a b c d}
                r mset w_a 30 w_b 10 w_c 20 w_d -1
                assert_equal {d b c a} [r sort k by w_*]
                assert_equal {a c b d} [r sort k by w_* desc]
                r del w_d
                assert_equal {d b c a} [r sort k by w_*] ;# missing weighs 0
            }

            test "SORT $type ($size): BY hash fields" {
                use_encodings $size
                fill $type k {a b c}
                r del h_a h_b h_c
                r hset h_a f 3 g z
                r hset h_b f 1 g x
                r hset h_c f 2 g y
                assert_equal {b c a} [r sort k by h_*->f]
                assert_equal {a c b} [r sort k by h_*->g alpha desc]
            }

            test "SORT $type ($size): GET patterns, # and missing keys" {
                use_encodings $size
                fill $type k {1 2 3}
                r mset v_1 one v_3 three
                r del v_2 h_1 h_2 h_3
                r hset h_2 name two
                assert_equal {1 one {} 2 {} two 3 three {}} [r sort k get # get v_* get h_*->name]
                assert_equal {three {} one} [r sort k desc get v_*]
            }

            test "SORT $type ($size): LIMIT windows" {
                use_encodings $size
                fill $type k {5 3 1 4 2}
                assert_equal {1 2} [r sort k limit 0 2]
                assert_equal {3 4 5} [r sort k limit 2 -1]
                assert_equal {1 2} [r sort k limit -3 2]
                assert_equal {4 5} [r sort k limit 3 100]
                assert_equal {} [r sort k limit 5 1]
                assert_equal {} [r sort k limit 0 0]
                assert_equal {5 4} [r sort k desc limit 0 2]
                assert_equal {1 2 3 4 5} [r sort k limit 0 2147483647]
            }

            test "SORT $type ($size): a big random value, numeric and ALPHA" {
                use_encodings $size
                set ints [lsort -unique [random_ints 500 100000]]
                fill $type k $ints
                assert_equal [lsort -integer $ints] [r sort k]
                assert_equal [lsort -integer -decreasing $ints] [r sort k desc]
                assert_equal [lrange [lsort -integer $ints] 100 149] [r sort k limit 100 50]
                set words [random_words 300]
                fill $type w $words
                assert_equal [lsort $words] [r sort w alpha]
            }
        }
    }

    test "SORT numeric weights: floats, exponents, hex, infinities, empty" {
        fill list k {3 -1.5 2e1 0x10 inf -inf {}}
        assert_equal {-inf -1.5 {} 3 0x10 2e1 inf} [r sort k]
    }

    test "SORT numeric weights that are not numbers fail" {
        foreach bad {nan 1abc { }} {
            fill list k [list 1 $bad]
            assert_error "ERR One or more scores can't be converted into double" {r sort k}
        }
        r mset w_a 1 w_b nan
        fill list k {a b}
        assert_error "ERR One or more scores can't be converted into double" {r sort k by w_*}
        assert_equal {a b} [r sort k by w_* alpha]
    }

    test "SORT equal numeric weights are ordered by the element's bytes" {
        fill list k {1.0 1 01 -0 0}
        assert_equal {-0 0 01 1 1.0} [r sort k]
        assert_equal {1.0 1 01 0 -0} [r sort k desc]
        fill list k {c b a}
        r del w_a w_b w_c
        assert_equal {a b c} [r sort k by w_*]
        assert_equal {c b a} [r sort k by w_* desc]
        assert_equal {b} [r sort k by w_* limit 1 1]
    }

    test "SORT BY ALPHA: missing weights sort first, ties keep the load order" {
        fill list k {c a b d}
        r del x_a x_b x_c x_d
        r mset x_a m x_d b
        assert_equal {c b d a} [r sort k by x_* alpha]
        assert_equal {a d c b} [r sort k by x_* alpha desc]
    }

    test "SORT BY replaces only the first '*'; '->' needs a field name" {
        fill list k {a b}
        r mset {p_a_*} 2 {p_b_*} 1 p_a_a 1 p_b_b 2
        assert_equal {b a} [r sort k by p_*_*]
        r mset {q_a->} 2 {q_b->} 1
        assert_equal {b a} [r sort k by q_*->]
    }

    test "SORT BY and GET on keys of the wrong type" {
        fill list k {a b}
        r del w_a w_b g_a g_b
        r rpush w_a 5
        r set w_b 3
        assert_equal {a b} [r sort k by w_*] ;# a list weighs 0
        r set g_a x
        r rpush g_b y
        assert_equal {x {}} [r sort k by nosort get g_*]
        r hset g_c f 1
        fill list k2 {c}
        assert_equal {{}} [r sort k2 by nosort get g_*->nofield]
        assert_equal {{}} [r sort k by nosort limit 0 1 get g_*->f] ;# g_a is a string
        assert_equal {{} {}} [r sort k by nosort get fixedkey]
    }

    test "SORT patterns and elements are binary safe" {
        set e1 "a\x00b"
        set e2 "a\x00c"
        fill list k [list $e1 $e2]
        r set "w_$e1" 2
        r set "w_$e2" 1
        r set "v_$e1" "x\x00y"
        assert_equal [list $e2 $e1] [r sort k by w_*]
        assert_equal [list {} "x\x00y"] [r sort k by w_* get v_*]
    }

    test "SORT BY a constant keeps a list's order; DESC reverses it; LIMIT cuts" {
        fill list k {c a d b e}
        assert_equal {c a d b e} [r sort k by nosort]
        assert_equal {e b d a c} [r sort k by nosort desc]
        assert_equal {a d} [r sort k by nosort limit 1 2]
        assert_equal {b d} [r sort k by nosort desc limit 1 2]
        assert_equal {} [r sort k by nosort limit 9 2]
        assert_equal {c} [r sort k by # limit 0 1] ;# no '*': a constant too
        r set c_ C
        r del a_
        assert_equal {c C a {}} [r sort k by nosort limit 0 2 get # get *_]
    }

    test "SORT BY a constant keeps a sorted set's score order, DESC and LIMIT included" {
        r del z
        r zadd z 3 c 1 a 2 b 5 e 4 d
        assert_equal {a b c d e} [r sort z by nosort]
        assert_equal {e d c b a} [r sort z by nosort desc]
        assert_equal {b c} [r sort z by nosort limit 1 2]
        assert_equal {d c} [r sort z by nosort desc limit 1 2]
        assert_equal {e} [r sort z by nosort limit 4 10]
        r config set zset-max-listpack-entries 2
        r zadd z 6 f
        assert_equal {f e d} [r sort z by nosort desc limit 0 3]
        r config set zset-max-listpack-entries 128
    }

    test "SORT BY a constant on a set returns its elements in any order" {
        fill set s {10 9 b a c}
        assert_equal {10 9 a b c} [lsort [r sort s by nosort]]
        assert_equal 2 [llength [r sort s by nosort limit 3 10]]
    }

    test "SORT STORE of a set BY a constant sorts ALPHA (deterministic)" {
        fill set s {10 9 b a c}
        assert_equal 5 [r sort s by nosort store dst]
        assert_equal {10 9 a b c} [r lrange dst 0 -1]
        assert_equal 2 [r sort s by nosort desc limit 1 2 store dst]
        assert_equal {b a} [r lrange dst 0 -1]
    }

    test "SORT STORE stores a list and replies its length" {
        fill list k {3 1 2}
        r set dst string
        r expire dst 100
        assert_equal 3 [r sort k store dst]
        assert_type list dst
        assert_equal {1 2 3} [r lrange dst 0 -1]
        assert_equal -1 [r ttl dst]
        assert_equal {3 1 2} [r lrange k 0 -1] ;# the source is untouched
    }

    test "SORT STORE with GET stores every lookup, a missing one as an empty string" {
        fill list k {1 2}
        r del v_1 v_2
        r set v_2 two
        assert_equal 4 [r sort k get # get v_* store dst]
        assert_equal {1 {} 2 two} [r lrange dst 0 -1]
    }

    test "SORT STORE with an empty result deletes the destination" {
        fill list k {1 2}
        r rpush dst x
        assert_equal 0 [r sort k limit 5 5 store dst]
        assert_equal 0 [r exists dst]
        r set dst x
        assert_equal 0 [r sort nosuchkey store dst]
        assert_equal 0 [r exists dst]
    }

    test "SORT STORE onto the sorted key itself" {
        fill list k {3 1 2}
        assert_equal 3 [r sort k desc store k]
        assert_equal {3 2 1} [r lrange k 0 -1]
        fill zset z {b a}
        assert_equal 2 [r sort z alpha store z]
        assert_type list z
        assert_equal {a b} [r lrange z 0 -1]
    }

    test "SORT STORE serves a client blocked on the destination" {
        r del dst
        fill list k {3 1 2}
        set rd [redis_deferring_client]
        $rd blpop dst 0
        wait_for_blocked_clients 1
        assert_equal 3 [r sort k store dst]
        assert_equal {dst 1} [$rd read]
        assert_equal {2 3} [r lrange dst 0 -1]
        $rd close
    }

    test "SORT STORE of a big result" {
        set ints [random_ints 2000 1000000]
        fill list k $ints
        assert_equal 2000 [r sort k store dst]
        assert_equal [lsort -integer $ints] [r lrange dst 0 -1]
    }

    test "SORT of a missing key is empty" {
        r del nosuchkey
        assert_equal {} [r sort nosuchkey]
        assert_equal {} [r sort nosuchkey by w_* get # alpha desc limit 0 10]
        assert_equal {} [r sort_ro nosuchkey]
    }

    test "SORT options: the last of ASC/DESC and BY wins, options in any order" {
        fill list k {a b c}
        r mset w_a 3 w_b 2 w_c 1 y_a 1 y_b 2 y_c 3
        assert_equal {c b a} [r sort k desc asc by y_* by w_*]
        assert_equal {a b c} [r sort k asc by w_* desc]
        assert_equal {a b} [r sort k limit 0 1 limit 0 2 alpha]
        assert_equal {a {}} [r SORT k LIMIT 0 1 GET # ALPHA BY nosort GET nosuchkey*]
    }

    test "SORT errors: syntax, LIMIT, wrong type" {
        r set str x
        r hset hash f v
        fill list k {1 2}
        assert_error "ERR syntax error" {r sort k foo}
        assert_error "ERR syntax error" {r sort k limit 1}
        assert_error "ERR syntax error" {r sort k by}
        assert_error "ERR syntax error" {r sort k get}
        assert_error "ERR syntax error" {r sort k store}
        assert_error "ERR value is not an integer or out of range" {r sort k limit a 1}
        assert_error "ERR value is not an integer or out of range" {r sort k limit 0 1.5}
        assert_error "WRONGTYPE*" {r sort str}
        assert_error "WRONGTYPE*" {r sort hash}
        assert_error "WRONGTYPE*" {r sort str store dst}
        assert_error "ERR syntax error" {r sort str foo} ;# options are parsed first
        assert_error "ERR wrong number of arguments for 'sort' command" {r sort}
    }

    test "SORT_RO sorts like SORT and refuses STORE" {
        fill list k {2 3 1}
        r mset v_1 a v_2 b v_3 c
        assert_equal {1 2 3} [r sort_ro k]
        assert_equal {c b} [r sort_ro k desc limit 0 2 get v_*]
        assert_equal {2 3 1} [r sort_ro k by nosort]
        assert_error "ERR syntax error" {r sort_ro k store dst}
        assert_error "ERR wrong number of arguments for 'sort_ro' command" {r sort_ro}
        r set str x
        assert_error "WRONGTYPE*" {r sort_ro str}
    }

    test "SORT GET of a missing key is a null in RESP3" {
        fill list k {1}
        r del v_1
        set c [redis_client]
        $c hello 3
        $c readraw 1
        assert_equal {*2} [$c sort k get # get v_*]
        assert_equal {$1} [$c read]
        assert_equal 1 [$c read]
        assert_equal {_} [$c read]
        $c close
    }

    test "SORT STORE fires the sortstore event" {
        r config set notify-keyspace-events KEA
        set rd [redis_deferring_client]
        $rd psubscribe __keyevent@*__:*
        if {[catch {$rd read} reply]} {
            $rd close
            r config set notify-keyspace-events ""
            skip "needs PSUBSCRIBE ($reply)"
        }
        fill list k {2 1}
        r sort k store dst
        # the events of fill come first: wait for ours
        set got {}
        for {set i 0} {$i < 10} {incr i} {
            set msg [$rd read]
            if {[lindex $msg 3] eq "dst"} { set got [lindex $msg 2]; break }
        }
        assert_match {__keyevent@*__:sortstore} $got
        $rd close
        r config set notify-keyspace-events ""
    }

    # Last in the file: Redis 7.0 reads errno after strtod without clearing
    # it first, so after an overflow every numeric SORT of that server fails
    # until some other call changes errno. (Ours clears it.)
    test "SORT numeric weights that overflow a double fail" {
        fill list k {1 1e999}
        assert_error "ERR One or more scores can't be converted into double" {r sort k}
        fill list k {1 -1e999}
        assert_error "ERR One or more scores can't be converted into double" {r sort k}
    }
}
