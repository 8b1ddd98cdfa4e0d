# zset.tcl -- the sorted set commands, in both encodings.
#
# Most tests run twice: once with the default thresholds (small sets are
# listpacks) and once with zset-max-listpack-entries 0 (every set is a
# skiplist), asserting the encoding first so a test cannot silently check
# the wrong one. Replies and error strings are those of Redis 7; a fuzz test
# compares ranges and ranks with a model kept in Tcl.

proc zset_force_encoding {enc} {
    if {$enc eq "listpack"} {
        r config set zset-max-listpack-entries 128
        r config set zset-max-listpack-value 64
    } else {
        r config set zset-max-listpack-entries 0
    }
}

# Members sorted by (score, member) from a dict member -> score.
proc zset_model_sorted {model} {
    set pairs {}
    dict for {m s} $model { lappend pairs [list $m $s] }
    set pairs [lsort -command zset_model_cmp $pairs]
    return $pairs
}

proc zset_model_cmp {a b} {
    set sa [lindex $a 1]
    set sb [lindex $b 1]
    if {$sa < $sb} { return -1 }
    if {$sa > $sb} { return 1 }
    return [string compare [lindex $a 0] [lindex $b 0]]
}

start_server {tags {zset}} {
    foreach enc {listpack skiplist} {
        test "ZADD creates a $enc and replies the number added" {
            zset_force_encoding $enc
            r del z
            assert_equal 3 [r zadd z 1 a 2 b 3 c]
            assert_encoding $enc z
            assert_type zset z
            assert_equal 0 [r zadd z 10 a]
            assert_equal {b 2 c 3 a 10} [r zrange z 0 -1 withscores]
        }

        test "ZADD NX XX GT LT CH ($enc)" {
            zset_force_encoding $enc
            r del z
            r zadd z 1 a 2 b
            assert_equal 1 [r zadd z nx 5 a 3 c]
            assert_equal 1 [r zscore z a]
            assert_equal 0 [r zadd z xx 7 a 9 d]
            assert_equal 7 [r zscore z a]
            assert_equal {} [r zscore z d]
            assert_equal 1 [r zadd z gt ch 5 a 4 b]
            assert_equal {7 4} [r zmscore z a b]
            assert_equal 2 [r zadd z lt ch 5 a 1 b 9 c]
            assert_equal {5 1 3} [r zmscore z a b c]
            assert_equal 1 [r zadd z xx gt ch 6 a 1 nosuch]
            assert_equal 1 [r zadd z gt 0 new]
            assert_equal 2 [r zadd z ch 100 a 200 newer]
        }

        test "ZADD INCR and ZINCRBY ($enc)" {
            zset_force_encoding $enc
            r del z
            assert_equal 1.5 [r zadd z incr 1.5 a]
            assert_equal 3 [r zadd z incr 1.5 a]
            assert_equal {} [r zadd z nx incr 1 a]
            assert_equal {} [r zadd z xx incr 1 nosuch]
            assert_equal 2 [r zadd z lt incr -1 a]
            assert_equal {} [r zadd z gt incr -1 a]
            assert_equal -1 [r zincrby z -3 a]
            assert_equal 5 [r zincrby z 5 b]
            assert_equal {a -1 b 5} [r zrange z 0 -1 withscores]
        }

        test "ZADD and ZINCRBY with infinities and NaN ($enc)" {
            zset_force_encoding $enc
            r del z
            r zadd z +inf a -inf b inf c
            assert_equal {b -inf a inf c inf} [r zrange z 0 -1 withscores]
            assert_error "ERR resulting score is not a number (NaN)" {r zincrby z -inf a}
            assert_error "ERR resulting score is not a number (NaN)" {r zadd z incr +inf b}
            assert_equal inf [r zscore z a]
            assert_error "ERR value is not a valid float" {r zadd z nan x}
            assert_error "ERR value is not a valid float" {r zadd z abc x}
            assert_error "ERR value is not a valid float" {r zincrby z 1x a}
            assert_equal 3 [r zcard z]
        }

        test "ZADD option errors ($enc)" {
            zset_force_encoding $enc
            r del z
            assert_error "ERR XX and NX options at the same time are not compatible" {r zadd z nx xx 1 a}
            assert_error "ERR GT, LT, and/or NX options at the same time are not compatible" {r zadd z gt lt 1 a}
            assert_error "ERR GT, LT, and/or NX options at the same time are not compatible" {r zadd z nx gt 1 a}
            assert_error "ERR INCR option supports a single increment-element pair" {r zadd z incr 1 a 2 b}
            assert_error "ERR syntax error" {r zadd z 1 a 2}
            assert_error "ERR syntax error" {r zadd z nx 1}
            assert_error "ERR wrong number of arguments for 'zadd' command" {r zadd z}
            assert_equal 0 [r exists z]
            assert_equal 0 [r zadd z xx 1 a]
            assert_equal 0 [r exists z]
        }

        test "ZREM, ZCARD, and the key goes with its last member ($enc)" {
            zset_force_encoding $enc
            r del z
            r zadd z 1 a 2 b 3 c
            assert_equal 2 [r zrem z a c nosuch]
            assert_equal 1 [r zcard z]
            assert_equal 0 [r zrem z nosuch]
            assert_equal 1 [r zrem z b]
            assert_equal 0 [r exists z]
            assert_equal 0 [r zcard z]
            assert_equal 0 [r zrem z b]
        }

        test "ZSCORE and ZMSCORE ($enc)" {
            zset_force_encoding $enc
            r del z
            r zadd z 1.5 a -2 b 10 123
            assert_equal 1.5 [r zscore z a]
            assert_equal 10 [r zscore z 123]
            assert_equal {} [r zscore z nosuch]
            assert_equal {} [r zscore nokey a]
            assert_equal {1.5 {} -2} [r zmscore z a nosuch b]
            assert_equal {{} {}} [r zmscore nokey a b]
        }

        test "ZRANGE by rank, REV, WITHSCORES ($enc)" {
            zset_force_encoding $enc
            r del z
            r zadd z 1 a 2 b 3 c 4 d
            assert_equal {a b c d} [r zrange z 0 -1]
            assert_equal {b 2 c 3} [r zrange z 1 2 withscores]
            assert_equal {c d} [r zrange z -2 -1]
            assert_equal {a b c d} [r zrange z -100 100]
            assert_equal {} [r zrange z 3 1]
            assert_equal {} [r zrange z 10 20]
            assert_equal {d c b a} [r zrange z 0 -1 rev]
            assert_equal {d c} [r zrevrange z 0 1]
            assert_equal {c 3 b 2} [r zrevrange z 1 2 withscores]
            assert_equal {} [r zrange nokey 0 -1]
        }

        test "ZRANGEBYSCORE with exclusive and infinite bounds ($enc)" {
            zset_force_encoding $enc
            r del z
            r zadd z -inf ninf 1 a 2 b 3 c 4 d +inf pinf
            assert_equal {ninf a b c d pinf} [r zrangebyscore z -inf +inf]
            assert_equal {b c} [r zrangebyscore z (1 (4]
            assert_equal {a b c} [r zrangebyscore z 1 3]
            assert_equal {d pinf} [r zrangebyscore z (3 inf]
            assert_equal {pinf d c} [r zrevrangebyscore z +inf (2]
            assert_equal {} [r zrangebyscore z (2 (2]
            assert_equal {} [r zrangebyscore z 3 2]
            assert_equal {b 2 c 3} [r zrangebyscore z 2 3 withscores]
            assert_equal {c b} [r zrange z (4 2 byscore rev]
            assert_equal {ninf -inf} [r zrangebyscore z -inf -inf withscores]
        }

        test "ZRANGEBYSCORE LIMIT, negative count and offset ($enc)" {
            zset_force_encoding $enc
            r del z
            r zadd z 1 a 2 b 3 c 4 d 5 e
            assert_equal {b c} [r zrangebyscore z -inf +inf limit 1 2]
            assert_equal {b c d e} [r zrangebyscore z -inf +inf limit 1 -1]
            assert_equal {d c b a} [r zrevrangebyscore z +inf -inf limit 1 -5]
            assert_equal {} [r zrangebyscore z -inf +inf limit -1 2]
            assert_equal {} [r zrangebyscore z -inf +inf limit 0 0]
            assert_equal {} [r zrangebyscore z -inf +inf limit 10 2]
            assert_equal {e} [r zrangebyscore z (1 5 limit 3 10]
            assert_equal {c 3} [r zrange z 1 5 byscore limit 2 1 withscores]
        }

        test "ZRANGEBYLEX and ZLEXCOUNT with - + ( \[ ($enc)" {
            zset_force_encoding $enc
            r del z
            r zadd z 0 a 0 b 0 c 0 d 0 e 0 f
            assert_equal {a b c d e f} [r zrangebylex z - +]
            assert_equal {b c d} [r zrangebylex z \[b (e]
            assert_equal {d c b} [r zrevrangebylex z (e \[b]
            assert_equal {c d} [r zrangebylex z \[b (e limit 1 2]
            assert_equal {} [r zrangebylex z + -]
            assert_equal {e f} [r zrange z (d + bylex]
            assert_equal 6 [r zlexcount z - +]
            assert_equal 4 [r zlexcount z \[c +]
            assert_equal 0 [r zlexcount z (a (b]
            assert_error "ERR min or max not valid string range item" {r zrangebylex z b e}
            assert_error "ERR min or max not valid string range item" {r zlexcount z - x}
        }

        test "ZCOUNT ($enc)" {
            zset_force_encoding $enc
            r del z
            r zadd z 1 a 2 b 3 c 4 d
            assert_equal 4 [r zcount z -inf +inf]
            assert_equal 2 [r zcount z (1 3]
            assert_equal 0 [r zcount z 5 10]
            assert_equal 0 [r zcount nokey 0 1]
            assert_error "ERR min or max is not a float" {r zcount z abc 3}
            assert_error "ERR min or max is not a float" {r zcount z nan 3}
        }

        test "ZRANK and ZREVRANK ($enc)" {
            zset_force_encoding $enc
            r del z
            r zadd z 1 a 2 b 3 c
            assert_equal 0 [r zrank z a]
            assert_equal 2 [r zrank z c]
            assert_equal 0 [r zrevrank z c]
            assert_equal 2 [r zrevrank z a]
            assert_equal {} [r zrank z nosuch]
            assert_equal {} [r zrank nokey a]
        }

        test "ZRANK/ZREVRANK take no WITHSCORE, as in Redis 7.0 ($enc)" {
            zset_force_encoding $enc
            r del z
            r zadd z 1 a 2.5 b
            assert_error "ERR wrong number of arguments for 'zrank' command" {r zrank z b withscore}
            assert_error "ERR wrong number of arguments for 'zrevrank' command" {r zrevrank z b withscore}
            assert_equal 3 [lindex [lindex [r command info zrank] 0] 1]
        }

        test "ZREMRANGEBYRANK / BYSCORE / BYLEX ($enc)" {
            zset_force_encoding $enc
            r del z
            r zadd z 1 a 2 b 3 c 4 d 5 e
            assert_equal 2 [r zremrangebyrank z 0 1]
            assert_equal {c d e} [r zrange z 0 -1]
            assert_equal 1 [r zremrangebyrank z -1 -1]
            assert_equal 0 [r zremrangebyrank z 5 10]
            assert_equal 1 [r zremrangebyscore z (3 4]
            assert_equal {c} [r zrange z 0 -1]
            r zadd z 0 x 0 y 0 z 0 c
            assert_equal 2 [r zremrangebylex z \[x (z]
            assert_equal {c z} [r zrange z 0 -1]
            assert_equal 2 [r zremrangebyscore z -inf +inf]
            assert_equal 0 [r exists z]
            assert_equal 0 [r zremrangebyrank z 0 -1]
            assert_error "ERR value is not an integer or out of range" {r zremrangebyrank z a 1}
            assert_error "ERR min or max is not a float" {r zremrangebyscore z a 1}
            assert_error "ERR min or max not valid string range item" {r zremrangebylex z a b}
        }

        test "ZPOPMIN and ZPOPMAX with and without count ($enc)" {
            zset_force_encoding $enc
            r del z
            r zadd z 1 a 2 b 3 c 4 d 5 e
            assert_equal {a 1} [r zpopmin z]
            assert_equal {e 5} [r zpopmax z]
            assert_equal {b 2 c 3} [r zpopmin z 2]
            assert_equal {} [r zpopmin z 0]
            assert_equal {d 4} [r zpopmax z 10]
            assert_equal 0 [r exists z]
            assert_equal {} [r zpopmin z]
            assert_error "ERR value is out of range, must be positive" {r zpopmin z -1}
            assert_error "ERR syntax error" {r zpopmin z 1 2}
        }

        test "ZMPOP ($enc)" {
            zset_force_encoding $enc
            r del z z2
            r zadd z2 1 a 2 b 3 c
            assert_equal {z2 {{a 1}}} [r zmpop 2 z z2 min]
            assert_equal {z2 {{c 3} {b 2}}} [r zmpop 2 z z2 max count 10]
            assert_equal 0 [r exists z2]
            assert_equal {} [r zmpop 2 z z2 min]
            assert_error "ERR numkeys should be greater than 0" {r zmpop 0 z min}
            assert_error "ERR count should be greater than 0" {r zmpop 1 z min count 0}
            assert_error "ERR syntax error" {r zmpop 1 z foo}
            assert_error "ERR syntax error" {r zmpop 2 z min}
            assert_error "ERR syntax error" {r zmpop 1 z min count 1 count 1}
        }

        test "ZUNIONSTORE with WEIGHTS and AGGREGATE ($enc)" {
            zset_force_encoding $enc
            r del a b dst
            r zadd a 1 x 2 y 3 z
            r zadd b 10 y 20 z 30 w
            assert_equal 4 [r zunionstore dst 2 a b]
            assert_equal {x 1 y 12 z 23 w 30} [r zrange dst 0 -1 withscores]
            assert_equal 4 [r zunionstore dst 2 a b weights 2 3]
            assert_equal {x 2 y 34 z 66 w 90} [r zrange dst 0 -1 withscores]
            r zunionstore dst 2 a b aggregate min
            assert_equal {x 1 y 2 z 3 w 30} [r zrange dst 0 -1 withscores]
            r zunionstore dst 2 a b aggregate max
            assert_equal {x 1 y 10 z 20 w 30} [r zrange dst 0 -1 withscores]
            assert_equal 4 [r zunionstore dst 3 a b nokey]
        }

        test "ZINTERSTORE and ZDIFFSTORE ($enc)" {
            zset_force_encoding $enc
            r del a b dst
            r zadd a 1 x 2 y 3 z
            r zadd b 10 y 20 z 30 w
            assert_equal 2 [r zinterstore dst 2 a b]
            assert_equal {y 12 z 23} [r zrange dst 0 -1 withscores]
            assert_equal 2 [r zinterstore dst 2 a b weights 1 -1 aggregate max]
            assert_equal {y 2 z 3} [r zrange dst 0 -1 withscores]
            assert_equal 0 [r zinterstore dst 2 a nokey]
            assert_equal 0 [r exists dst]
            assert_equal 1 [r zdiffstore dst 2 a b]
            assert_equal {x 1} [r zrange dst 0 -1 withscores]
            assert_equal 0 [r zdiffstore dst 2 a a]
            assert_equal 0 [r exists dst]
        }

        test "ZUNION/ZINTER aggregate infinities: inf-inf is 0, inf*0 is 0 ($enc)" {
            zset_force_encoding $enc
            r del i1 i2
            r zadd i1 inf a -inf b 1 c
            r zadd i2 -inf a inf b 2 c
            assert_equal {a 0 b 0 c 3} [r zunion 2 i1 i2 withscores]
            assert_equal {a 0 b 0 c 0} [r zunion 2 i1 i2 weights 0 0 withscores]
            assert_equal {a -inf b -inf c 1} [r zinter 2 i1 i2 aggregate min withscores]
            assert_equal {a 0 c 2 b inf} [r zinter 2 i1 i2 aggregate max weights 0 1 withscores]
        }

        test "ZUNION ZINTER ZDIFF read plain sets as score 1 ($enc)" {
            zset_force_encoding $enc
            r del a s
            r zadd a 1 x 2 y 3 z
            if {[catch {r sadd s y w q}]} { skip "needs SADD" }
            assert_equal {q 1 w 1 x 1 y 3 z 3} [r zunion 2 a s withscores]
            assert_equal {y 3} [r zinter 2 a s withscores]
            assert_equal {x z} [r zdiff 2 a s]
            assert_equal {q w} [r zdiff 2 s a]
            assert_equal 1 [r zintercard 2 a s]
        }

        test "ZINTERCARD ($enc)" {
            zset_force_encoding $enc
            r del a b
            r zadd a 1 x 2 y 3 z
            r zadd b 10 y 20 z 30 w
            assert_equal 2 [r zintercard 2 a b]
            assert_equal 1 [r zintercard 2 a b limit 1]
            assert_equal 2 [r zintercard 2 a b limit 0]
            assert_equal 0 [r zintercard 2 a nokey]
            assert_error "ERR LIMIT can't be negative" {r zintercard 2 a b limit -1}
            assert_error "ERR syntax error" {r zintercard 2 a b withscores}
            assert_error "ERR at least 1 input key is needed for 'zintercard' command" {r zintercard 0 a}
        }

        test "ZRANGESTORE ($enc)" {
            zset_force_encoding $enc
            r del z dst
            r zadd z 1 a 2 b 3 c 4 d
            assert_equal 2 [r zrangestore dst z 1 2]
            assert_equal {b 2 c 3} [r zrange dst 0 -1 withscores]
            assert_equal 2 [r zrangestore dst z (1 +inf byscore limit 1 2]
            assert_equal {c 3 d 4} [r zrange dst 0 -1 withscores]
            assert_equal 1 [r zrangestore dst z \[a (b bylex]
            assert_equal 2 [r zrangestore dst z 0 1 rev]
            assert_equal {c 3 d 4} [r zrange dst 0 -1 withscores]
            assert_equal 0 [r zrangestore dst z 10 20]
            assert_equal 0 [r exists dst]
            r zadd dst 1 x
            assert_equal 0 [r zrangestore dst nokey 0 -1]
            assert_equal 0 [r exists dst]
            assert_error "ERR syntax error" {r zrangestore dst z 0 -1 withscores}
        }

        test "ZRANDMEMBER ($enc)" {
            zset_force_encoding $enc
            r del z
            r zadd z 1 a 2 b 3 c 4 d 5 e
            set all {a b c d e}
            for {set i 0} {$i < 20} {incr i} {
                assert {[lsearch $all [r zrandmember z]] >= 0}
            }
            assert_equal $all [lsort [r zrandmember z 10]]
            assert_equal $all [lsort [r zrandmember z 5]]
            set three [r zrandmember z 3]
            assert_equal 3 [llength [lsort -unique $three]]
            set many [r zrandmember z -50]
            assert_equal 50 [llength $many]
            foreach m $many { assert {[lsearch $all $m] >= 0} }
            set ws [r zrandmember z -7 withscores]
            assert_equal 14 [llength $ws]
            foreach {m s} $ws { assert_equal [r zscore z $m] $s }
            assert_equal {} [r zrandmember z 0]
            assert_equal {} [r zrandmember nokey]
            assert_equal {} [r zrandmember nokey 3]
            assert_error "ERR syntax error" {r zrandmember z 1 foo}
            assert_error "ERR value is out of range" {r zrandmember z -9223372036854775807 withscores}
            assert_error "ERR value is not an integer or out of range" {r zrandmember z x}
        }

        test "ZRANDMEMBER distinct picks from a bigger set ($enc)" {
            zset_force_encoding $enc
            r del z
            set args {}
            for {set i 0} {$i < 100} {incr i} { lappend args $i m$i }
            r zadd z {*}$args
            foreach n {1 10 40 99 100} {
                set picked [r zrandmember z $n withscores]
                assert_equal [expr {2 * $n}] [llength $picked]
                set members [dict keys $picked]
                assert_equal $n [llength [lsort -unique $members]]
                dict for {m s} $picked { assert_equal "m$s" $m }
            }
        }

        test "ZSCAN returns every member with its score ($enc)" {
            zset_force_encoding $enc
            r del z
            set expected {}
            for {set i 0} {$i < 50} {incr i} {
                r zadd z $i.5 m$i
                dict set expected m$i $i.5
            }
            set cursor 0
            set seen {}
            set rounds 0
            while 1 {
                lassign [r zscan z $cursor] cursor items
                foreach {m s} $items { dict set seen $m $s }
                if {$cursor == 0 || [incr rounds] > 1000} break
            }
            assert_equal [lsort [dict keys $expected]] [lsort [dict keys $seen]]
            dict for {m s} $expected { assert_equal $s [dict get $seen $m] }
            lassign [r zscan z 0 match m1* count 1000] cursor items
            assert_equal 0 $cursor
            assert_equal 11 [expr {[llength $items] / 2}]
            assert_equal {0 {}} [r zscan nokey 0]
        }

        test "COPY of a sorted set is independent ($enc)" {
            zset_force_encoding $enc
            r del z z2
            r zadd z 1 a 2 b
            r copy z z2
            r zadd z2 3 c
            assert_equal {a b} [r zrange z 0 -1]
            assert_equal {a b c} [r zrange z2 0 -1]
            assert_encoding $enc z2
        }

        test "a random workload matches a model ($enc)" {
            zset_force_encoding $enc
            r del z
            set model {}
            for {set i 0} {$i < 400} {incr i} {
                set m m[expr {int(rand() * 60)}]
                set op [expr {int(rand() * 4)}]
                if {$op == 0} {
                    r zrem z $m
                    dict unset model $m
                } elseif {$op == 1} {
                    set inc [expr {int(rand() * 10) - 5}]
                    set s [r zincrby z $inc $m]
                    set old [expr {[dict exists $model $m] ? [dict get $model $m] : 0}]
                    dict set model $m [expr {$old + $inc}]
                    assert_equal [dict get $model $m] $s
                } else {
                    set s [expr {int(rand() * 20)}]
                    r zadd z $s $m
                    dict set model $m $s
                }
            }
            set sorted [zset_model_sorted $model]
            set flat {}
            foreach p $sorted { lappend flat {*}$p }
            assert_equal $flat [r zrange z 0 -1 withscores]
            set rank 0
            foreach p $sorted {
                assert_equal $rank [r zrank z [lindex $p 0]]
                incr rank
            }
            assert_equal [llength $sorted] [r zcard z]
            set n 0
            foreach p $sorted { if {[lindex $p 1] > 3 && [lindex $p 1] <= 12} { incr n } }
            assert_equal $n [r zcount z (3 12]
            assert_encoding $enc z
        }
    }

    test "counts, ranks and offsets are 64-bit on every build" {
        r config set zset-max-listpack-entries 128
        r del z
        r zadd z 1 a 2 b 3 c
        assert_equal {a b c} [r zrange z 0 4294967296]
        assert_equal {a b c} [r zrange z -4294967296 4294967296]
        assert_equal {} [r zrangebyscore z -inf +inf limit 4294967296 1]
        assert_equal {a b c} [r zrangebyscore z -inf +inf limit 0 4294967296]
        assert_equal 0 [r zremrangebyrank z 4294967296 4294967297]
        assert_equal {a b c} [lsort [r zrandmember z 4294967296]]
        assert_equal {a b c} [lsort [r zrandmember z 4294967297]]
        assert_equal {a 1 b 2 c 3} [lsort -stride 2 -index 0 [r zrandmember z 4294967297 withscores]]
        assert_equal 3 [r zintercard 2 z z limit 4294967296]
        assert_equal {z {{a 1} {b 2} {c 3}}} [r zmpop 1 z min count 4294967296]
        r zadd z 1 a
        assert_equal {a 1} [r zpopmin z 4294967296]
        assert_error "ERR syntax error" {r zunion 4294967296 z}
        assert_error "ERR syntax error" {r zmpop 4294967296 z min}
        assert_error "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807" {r zrandmember z -9223372036854775808}
    }

    test "extreme scores keep their exact value" {
        foreach enc {listpack skiplist} {
            zset_force_encoding $enc
            r del z
            r zadd z 1e308 big -1e308 small 5e-324 tiny 1.7976931348623157e308 max
            assert_equal {small -1e+308 tiny 4.9406564584124654e-324 big 1e+308 max 1.7976931348623157e+308} [r zrange z 0 -1 withscores]
            assert_equal inf [r zincrby z 1e308 max]
            assert_error "ERR value is not a valid float" {r zadd z 1e400 x}
            assert_equal {max} [r zrangebyscore z (1e308 +inf]
        }
        r config set zset-max-listpack-entries 128
    }

    test "ZUNIONSTORE and ZRANGESTORE replace a key of any type and drop its TTL" {
        r del z dst
        r zadd z 1 a 2 b
        r set dst v ex 100
        assert_equal 2 [r zunionstore dst 1 z]
        assert_type zset dst
        assert_equal -1 [r ttl dst]
        r expire dst 100
        assert_equal 1 [r zrangestore dst z 0 0]
        assert_equal -1 [r ttl dst]
        assert_equal {a} [r zrange dst 0 -1]
        assert_equal 2 [r zunionstore z 2 z dst aggregate max]
        assert_equal 2 [r zunionstore z 2 z z]
        assert_equal {a 2 b 4} [r zrange z 0 -1 withscores]
    }

    test "a big skiplist: ranks, rank ranges and removals stay consistent" {
        r config set zset-max-listpack-entries 128
        r del big
        set args {}
        for {set i 0} {$i < 1000} {incr i} { lappend args [expr {$i * 2}] m$i }
        r zadd big {*}$args
        assert_encoding skiplist big
        assert_equal 500 [r zrank big m500]
        assert_equal 499 [r zrevrank big m500]
        assert_equal {m10 m11 m12} [r zrange big 10 12]
        assert_equal {m989 m988} [r zrange big 10 11 rev]
        assert_equal {m101 m102} [r zrangebyscore big (200 204]
        assert_equal {m102 m103} [r zrangebyscore big 200 +inf limit 2 2]
        assert_equal {m997 m996} [r zrevrangebyscore big +inf -inf limit 2 2]
        assert_equal 100 [r zremrangebyrank big 100 199]
        assert_equal m200 [lindex [r zrange big 100 100] 0]
        assert_equal 100 [r zremrangebyscore big (400 600]
        assert_equal 800 [r zcard big]
        assert_equal 200 [r zrank big m400]
        assert_equal 301 [r zrank big m501]
        r zincrby big -10000 m999
        assert_equal 0 [r zrank big m999]
        assert_equal 302 [r zrank big m501]
        assert_equal 800 [r zcount big -inf +inf]
    }

    test "ZADD converts a listpack to a skiplist past zset-max-listpack-entries" {
        r config set zset-max-listpack-entries 4
        r config set zset-max-listpack-value 8
        r del z
        r zadd z 1 a 2 b 3 c 4 d
        assert_encoding listpack z
        r zadd z 5 e
        assert_encoding skiplist z
        r zrem z e
        assert_encoding skiplist z
        assert_equal {a b c d} [r zrange z 0 -1]
    }

    test "ZADD converts on a member longer than zset-max-listpack-value" {
        r del z
        r zadd z 1 a
        r zadd z 2 [string repeat x 9]
        assert_encoding skiplist z
        r del z
        r zadd z 1 [string repeat y 20]
        assert_encoding skiplist z
    }

    test "ZUNIONSTORE / ZRANGESTORE results take the listpack when they fit" {
        r del z big dst
        r zadd z 1 a 2 b 3 c 4 d 5 e
        assert_encoding skiplist z
        r zrangestore dst z 0 2
        assert_encoding listpack dst
        r zunionstore dst 1 z
        assert_encoding skiplist dst
        r zinterstore dst 2 z z
        assert_encoding skiplist dst
        r zremrangebyrank z 0 1
        r zunionstore dst 1 z
        assert_encoding listpack dst
        r config set zset-max-listpack-entries 128
        r config set zset-max-listpack-value 64
    }

    test "DEBUG DIGEST-VALUE is the same in both encodings" {
        r del lp sl
        r config set zset-max-listpack-entries 128
        r zadd lp 1 a 2.5 b -inf c 1e100 d 0 e
        r config set zset-max-listpack-entries 0
        r zadd sl 0 e 1e100 d -inf c 2.5 b 1 a
        r config set zset-max-listpack-entries 128
        assert_encoding listpack lp
        assert_encoding skiplist sl
        assert_equal [r debug digest-value lp] [r debug digest-value sl]
        r zadd sl 3 b
        assert_not_equal [r debug digest-value lp] [r debug digest-value sl]
    }

    test "integral and fractional scores come back as Redis prints them" {
        foreach enc {listpack skiplist} {
            zset_force_encoding $enc
            r del z
            r zadd z 1.5 a -0.25 b 1e20 c 4503599627370496 d 3.0 e
            assert_equal {b -0.25 a 1.5 e 3 d 4503599627370496 c 1e+20} [r zrange z 0 -1 withscores]
        }
    }

    test "WRONGTYPE and arity errors" {
        r set str x
        foreach cmd {
            {zadd str 1 a} {zincrby str 1 a} {zrem str a} {zcard str} {zscore str a}
            {zmscore str a} {zcount str 0 1} {zlexcount str - +} {zrange str 0 -1}
            {zrangebyscore str 0 1} {zrangebylex str - +} {zrank str a} {zrevrank str a}
            {zremrangebyrank str 0 1} {zremrangebyscore str 0 1} {zremrangebylex str - +}
            {zpopmin str} {zpopmax str} {zrandmember str} {zscan str 0}
            {zunion 1 str} {zinter 1 str} {zdiff 1 str} {zunionstore d 1 str} {zintercard 1 str}
            {zrangestore d str 0 -1} {zmpop 1 str min}
        } {
            assert_error "WRONGTYPE*" {r {*}$cmd}
        }
        assert_error "ERR wrong number of arguments for 'zscore' command" {r zscore z}
        assert_error "ERR wrong number of arguments for 'zrangestore' command" {r zrangestore d z 0}
        assert_error "ERR wrong number of arguments for 'zincrby' command" {r zincrby z 1}
    }

    test "ZRANGE option errors" {
        r del z
        r zadd z 1 a 2 b
        assert_error "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX" {r zrange z 0 -1 limit 0 1}
        assert_error "ERR syntax error, WITHSCORES not supported in combination with BYLEX" {r zrange z - + bylex withscores}
        assert_error "ERR syntax error" {r zrange z 0 -1 byscore bylex}
        assert_error "ERR syntax error" {r zrange z 0 -1 rev rev}
        assert_error "ERR syntax error" {r zrevrange z 0 -1 byscore}
        assert_error "ERR value is not an integer or out of range" {r zrange z a 1}
        assert_error "ERR min or max is not a float" {r zrange z a 1 byscore}
        assert_error "ERR min or max is not a float" {r zrangebyscore z (nan 1}
        assert_error "ERR min or max not valid string range item" {r zrange z a b bylex}
        assert_error "ERR value is not an integer or out of range" {r zrangebyscore z 0 1 limit x 1}
    }

    test "ZUNIONSTORE / ZUNION argument errors" {
        r del a
        r zadd a 1 x
        assert_error "ERR at least 1 input key is needed for 'zunionstore' command" {r zunionstore d 0 a}
        assert_error "ERR at least 1 input key is needed for 'zunion' command" {r zunion -1 a}
        assert_error "ERR syntax error" {r zunion 3 a b}
        assert_error "ERR syntax error" {r zunion 2 a b weights 1}
        assert_error "ERR weight value is not a float" {r zunion 2 a b weights 1 x}
        assert_error "ERR syntax error" {r zunion 2 a b aggregate avg}
        assert_error "ERR syntax error" {r zunionstore d 1 a withscores}
        assert_error "ERR syntax error" {r zdiff 1 a weights 1}
        assert_error "ERR syntax error" {r zdiff 1 a aggregate sum}
        assert_error "ERR value is not an integer or out of range" {r zunion x a}
    }

    test "RESP3: scores are doubles, WITHSCORES pairs are arrays" {
        r del z
        r zadd z 1 a 2.5 b
        r hello 3
        assert_equal {{a 1} {b 2.5}} [r zrange z 0 -1 withscores]
        assert_equal {{b 2.5}} [r zrangebyscore z 2 3 withscores]
        assert_equal {{a 1} {b 2.5}} [r zunion 1 z withscores]
        r del z1
        r zadd z1 2.5 b
        assert_equal {{b 2.5} {b 2.5}} [r zrandmember z1 -2 withscores]
        assert_equal {{b 2.5}} [r zpopmax z1 1]
        r hello 2
    } {resp3}

    test "RESP3: ZPOPMIN without count is flat, with count nested; ZSCORE is a double" {
        r del z
        r zadd z 1 a 2 b 3 c
        r hello 3
        assert_equal 1 [r zscore z a]
        assert_equal {a 1} [r zpopmin z]
        assert_equal {{b 2}} [r zpopmin z 1]
        assert_equal {z {{c 3}}} [r zmpop 1 z min]
        r hello 2
    } {resp3}

    test "RESP3 double on the wire" {
        r del z
        r zadd z 1.5 a
        set c [redis_client]
        $c hello 3
        $c readraw 1
        assert_equal {,1.5} [$c zscore z a]
        assert_equal {_} [$c zscore z nosuch]
        $c close
    } {resp3}

    test "BZPOPMIN is served by a later ZADD" {
        r del bz
        set rd [redis_deferring_client]
        $rd bzpopmin bz 0
        wait_for_blocked_clients 1
        r zadd bz 2 b 1 a
        assert_equal {bz a 1} [$rd read]
        $rd close
        assert_equal {b} [r zrange bz 0 -1]
    }

    test "BZPOPMAX pops at once from the first non-empty key" {
        r del bz1 bz2
        r zadd bz2 1 a 2 b
        assert_equal {bz2 b 2} [r bzpopmax bz1 bz2 0]
        assert_equal {} [r bzpopmin bz1 0.01]
        assert_error "ERR timeout is negative" {r bzpopmin bz1 -1}
        assert_error "ERR timeout is not a float or out of range" {r bzpopmin bz1 abc}
    }

    test "BZMPOP is served by a later ZADD, and times out" {
        r del bz
        set rd [redis_deferring_client]
        $rd bzmpop 0 2 bznone bz max count 2
        wait_for_blocked_clients 1
        r zadd bz 1 a 2 b 3 c
        assert_equal {bz {{c 3} {b 2}}} [$rd read]
        $rd close
        assert_equal {} [r bzmpop 0.01 1 bznone min]
    }

    test "BZPOPMIN inside MULTI does not block" {
        r del bz
        r multi
        r bzpopmin bz 0
        assert_equal {{}} [r exec]
    }

    test "keyspace events of the sorted set commands" {
        r config set notify-keyspace-events KEA
        set rd [redis_deferring_client]
        $rd psubscribe __keyevent@*
        $rd read
        r del ev
        r zadd ev 1 a 2 b
        r zincrby ev 1 a
        r zrem ev a
        r zpopmin ev
        set msg [$rd read]
        assert_match {*:zadd} [lindex $msg 2]
        assert_equal ev [lindex $msg 3]
        set msg [$rd read]
        assert_match {*:zincr} [lindex $msg 2]
        assert_equal ev [lindex $msg 3]
        set msg [$rd read]
        assert_match {*:zrem} [lindex $msg 2]
        assert_equal ev [lindex $msg 3]
        set msg [$rd read]
        assert_match {*:zpopmin} [lindex $msg 2]
        assert_equal ev [lindex $msg 3]
        set msg [$rd read]
        assert_match {*:del} [lindex $msg 2]
        assert_equal ev [lindex $msg 3]
        r zadd ev2 1 a 2 b 3 c
        r zremrangebyscore ev2 1 1
        r zremrangebyrank ev2 0 0
        r zremrangebylex ev2 - +
        r zadd ev2 1 a 2 b
        r zunionstore ev3 1 ev2
        r zinterstore ev3 1 ev2
        r zdiffstore ev3 1 ev2
        r zrangestore ev3 ev2 0 0
        r zpopmax ev2 5
        foreach {event key} {
            zadd ev2 zremrangebyscore ev2 zremrangebyrank ev2 zremrangebylex ev2 del ev2
            zadd ev2 zunionstore ev3 zinterstore ev3 zdiffstore ev3 zrangestore ev3
            zpopmax ev2 del ev2
        } {
            set msg [$rd read]
            assert_match "*:$event" [lindex $msg 2]
            assert_equal $key [lindex $msg 3]
        }
        $rd close
        r config set notify-keyspace-events ""
    }
}
