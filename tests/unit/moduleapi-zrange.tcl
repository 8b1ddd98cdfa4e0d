# moduleapi-zrange.tcl -- the sorted set range iterators of Redis 7.0
# modules (src/module_keys.c: ZsetFirstInScoreRange, ZsetLastInScoreRange,
# ZsetFirstInLexRange, ZsetLastInLexRange, ZsetRangeCurrentElement,
# ZsetRangeNext, ZsetRangePrev, ZsetRangeEndReached, ZsetRangeStop) on both
# encodings, and the hash key API's flags (module_api.c: HashSet, HashGet),
# through the test modules tests/modules/mrange.c and mhash.c.
# Run with --server /usr/bin/redis-server to check every expectation
# against Debian's Redis 7.0.15 loading the same .so.

source [file join $::harness_dir modules.tcl] ;# module_skip_reason, need_modules

# z: a..e scored 1..5; lex: a..e all scored 0, in `encoding`.
proc mrange_fill {encoding} {
    r config set zset-max-listpack-entries [expr {$encoding eq "listpack" ? 128 : 0}]
    r del z lex
    r zadd z 1 a 2 b 3 c 4 d 5 e
    r zadd lex 0 a 0 b 0 c 0 d 0 e
    assert_encoding $encoding z
    assert_encoding $encoding lex
}

start_server {tags {module} overrides {enable-module-command yes}} {
    foreach enc {listpack skiplist} {
        test "score ranges ($enc): first/last, inclusive and exclusive bounds, -inf/+inf, walked both ways" {
            need_modules
            if {$enc eq "listpack"} { r module load [file join $::module_dir mrange.so] }
            mrange_fill $enc
            assert_equal {OK {b:2 c:3 d:4}} [r mrange.run z fs 2 4 0 0 fwd]
            assert_equal {OK {d:4 c:3 b:2}} [r mrange.run z ls 2 4 0 0 bwd]
            assert_equal {OK c:3} [r mrange.run z fs 2 4 1 1 fwd]
            assert_equal {OK {c:3 d:4}} [r mrange.run z fs 2 4 1 0 fwd]
            assert_equal {OK {c:3 b:2}} [r mrange.run z ls 2 4 0 1 bwd]
            assert_equal {OK {a:1 b:2 c:3 d:4 e:5}} [r mrange.run z fs -inf inf 0 0 fwd]
            assert_equal {OK {e:5 d:4 c:3 b:2 a:1}} [r mrange.run z ls -inf inf 0 0 bwd]
            assert_equal {OK {e:5 d:4 c:3 b:2 a:1}} [r mrange.run z ls -inf inf 1 1 bwd]
            assert_equal {OK {a:1 b:2}} [r mrange.run z fs -inf 2.5 0 0 fwd]
            assert_equal {OK {e:5 d:4}} [r mrange.run z ls 3.5 inf 0 0 bwd]
            assert_equal {OK c:3} [r mrange.run z fs 3 3 0 0 fwd]
        }

        test "score ranges ($enc): empty, inverted and outside ranges are OK with the end reached" {
            need_modules
            assert_equal {OK 1 -} [r mrange.run z fs 2.5 2.7 0 0 e c]
            assert_equal {OK 1 -} [r mrange.run z ls 2.5 2.7 0 0 e c]
            assert_equal {OK 1 - 0 0} [r mrange.run z fs 4 2 0 0 e c n p]
            assert_equal {OK 1 -} [r mrange.run z ls 4 2 0 0 e c]
            assert_equal {OK 1 OK 1 OK 1} [r mrange.run z fs 3 3 1 0 e fs 3 3 0 1 e ls 3 3 1 1 e]
            assert_equal {OK 1 OK 1} [r mrange.run z fs 6 inf 0 0 e ls -inf 1 0 1 e]
            assert_equal {OK {}} [r mrange.run z fs -inf -inf 0 0 fwd]
        }

        test "stepping ($enc): past the end the last element stays current; each step checks its own bound" {
            need_modules
            assert_equal {OK 0 b:2 1 c:3 1 d:4 0 d:4 1 0} \
                [r mrange.run z fs 2 4 0 0 e c n c n c n c e n]
            # a step back from the end moves but does not clear it
            assert_equal {OK 0 1 b:2 1} [r mrange.run z ls 2 3 0 0 n p c e]
            assert_equal {OK 0 1 b:2} [r mrange.run z fs 2 4 0 0 p e c]
            assert_equal {OK 1 c:3 1 b:2 1 1 0 1 d:4} [r mrange.run z fs 2 4 0 0 n c p c n n n e c]
            # a walk stops at the bound it moves towards, wherever it started
            assert_equal {OK b:2} [r mrange.run z fs 2 4 0 0 bwd]
            assert_equal {OK d:4} [r mrange.run z ls 2 4 0 0 fwd]
            assert_equal {OK {b:2 a:1}} [r mrange.run z ls -inf 2 0 0 bwd]
        }

        test "stop ($enc): no element, end reached, steps refused; a new range starts over" {
            need_modules
            assert_equal {- 1 0 0} [r mrange.run z c e n p]
            assert_equal {OK stopped - 1 0 0} [r mrange.run z fs 1 5 0 0 s c e n p]
            assert_equal {OK 1 OK a:1 0} [r mrange.run z fs 4 2 0 0 e fs 1 1 0 0 c e]
            assert_equal {OK OK e:5} [r mrange.run z fs 1 2 0 0 ls 1 5 0 0 c]
            assert_equal {OK stopped stopped -} [r mrange.run z fl - + s s c]
        }

        test "lex ranges ($enc): \[ ( - + bounds, first and last, both ways" {
            need_modules
            assert_equal {OK {b:0 c:0 d:0}} [r mrange.run lex fl {[b} {[d} fwd]
            assert_equal {OK {d:0 c:0 b:0}} [r mrange.run lex ll {[b} {[d} bwd]
            assert_equal {OK c:0} [r mrange.run lex fl (b (d fwd]
            assert_equal {OK {c:0 d:0}} [r mrange.run lex fl (b {[d} fwd]
            assert_equal {OK {c:0 b:0}} [r mrange.run lex ll {[b} (d bwd]
            assert_equal {OK {a:0 b:0 c:0 d:0 e:0}} [r mrange.run lex fl - + fwd]
            assert_equal {OK {e:0 d:0 c:0 b:0 a:0}} [r mrange.run lex ll - + bwd]
            assert_equal {OK {a:0 b:0}} [r mrange.run lex fl - (c fwd]
            assert_equal {OK {e:0 d:0}} [r mrange.run lex ll (c + bwd]
            assert_equal {OK c:0} [r mrange.run lex fl {[bb} {[cc} fwd]
            assert_equal {OK b:0} [r mrange.run lex fl {[b} {[b} fwd]
            assert_equal {OK 0 b:0 1 c:0 0 c:0 1 1 1 b:0} [r mrange.run lex fl {[b} {[c} e c n c n c e p e c]
            assert_equal {OK c:0} [r mrange.run lex fl {[c} {[d} bwd]
            # integer members (held as integers in a listpack) compare and come back as text
            r del nums
            r zadd nums 0 10 0 -5 0 300
            assert_equal {OK {-5:0 10:0 300:0}} [r mrange.run nums fl - + fwd]
            assert_equal {OK 300:0} [r mrange.run nums fl (10 + fwd]
            assert_equal {OK {10:0 -5:0}} [r mrange.run nums ll - {[10} bwd]
        }

        test "lex ranges ($enc): empty and inverted are OK with the end reached; a bad bound is ERR" {
            need_modules
            assert_equal {OK 1 -} [r mrange.run lex fl (b (b e c]
            assert_equal {OK 1 -} [r mrange.run lex fl {[d} {[b} e c]
            assert_equal {OK 1 -} [r mrange.run lex ll {[d} {[b} e c]
            assert_equal {OK 1 OK 1} [r mrange.run lex fl + - e ll + + e]
            assert_equal {OK 1} [r mrange.run lex fl (e + e]
            assert_equal {ERR ERR ERR ERR ERR} \
                [r mrange.run lex fl b {[d} fl {[a} d ll {} + ll - {} fl -- +]
            # Redis's state after a refused range: not ended, no element, no step
            assert_equal {ERR 0 - 0 0} [r mrange.run lex fl x + e c n p]
            assert_equal {OK ERR 0 -} [r mrange.run lex fl - + ll + x e c]
            # a lex range over differing scores: the set's score order decides
            r del mixed
            r zadd mixed 3 a 2 b 1 c
            if {$enc eq "listpack"} { assert_encoding listpack mixed }
            assert_equal {OK {}} [r mrange.run mixed fl {[a} {[b} fwd]
            assert_equal {OK {c:1 b:2 a:3}} [r mrange.run mixed fl - + fwd]
            assert_equal {OK {}} [r mrange.run mixed fl {[c} + fwd]
            assert_equal {OK {}} [r mrange.run mixed ll - {[b} bwd]
            assert_equal {OK {c:1 b:2 a:3}} [r mrange.run mixed fl {[a} + fwd]
            assert_equal {OK {a:3 b:2 c:1}} [r mrange.run mixed ll - {[c} bwd]
        }

        test "range calls on a key of another type: ERR, end reached, no element ($enc)" {
            need_modules
            r set s v
            assert_equal {ERR ERR ERR ERR 1 - 0 0 stopped} \
                [r mrange.run s fs 1 2 0 0 fl - + ls 1 2 0 0 ll - + e c n p s]
            r del h
            r hset h f v
            assert_equal {ERR 1} [r mrange.run h fs -inf inf 0 0 e]
            assert_error "ERR no key" {r mrange.run nokey fs 1 2 0 0}
            assert_equal v [r get s]
        }

        test "a long walk ($enc) matches ZRANGEBYSCORE and ZREVRANGEBYLEX" {
            need_modules
            r del big biglex
            r config set zset-max-listpack-entries [expr {$enc eq "listpack" ? 512 : 0}]
            for {set i 0} {$i < 300} {incr i} {
                r zadd big [expr {$i * 0.5}] m$i
                r zadd biglex 0 [format %04d $i]
            }
            assert_encoding $enc big
            set want {}
            foreach {m s} [r zrangebyscore big (10 130 withscores] { lappend want $m:$s }
            assert_equal [list OK $want] [r mrange.run big fs 10 130 1 0 fwd]
            assert_equal [list OK [lreverse $want]] [r mrange.run big ls 10 130 1 0 bwd]
            set want {}
            foreach m [r zrevrangebylex biglex {[0250} (0017] { lappend want $m:0 }
            assert_equal [list OK $want] [r mrange.run biglex ll (0017 {[0250} bwd]
            assert_equal [list OK [lreverse $want]] [r mrange.run biglex fl (0017 {[0250} fwd]
        }
    }
    r config set zset-max-listpack-entries 128
}

start_server {tags {module} overrides {enable-module-command yes}} {
    test "HashSet: updated fields counted, inserted ones only with COUNT_ALL; nothing counted is ENOENT" {
        need_modules
        r module load [file join $::module_dir mhash.so]
        r del h
        assert_equal {0 ENOENT} [r mhash.set h w - f1 v1 f2 v2]
        assert_equal {1 -} [r mhash.set h w - f1 x]
        assert_equal {2 -} [r mhash.set h w a f1 y f3 z]
        assert_equal {2 -} [r mhash.set h rw - f1 y f3 z f4 w4]
        assert_equal {f1 y f2 v2 f3 z f4 w4} [lsort -stride 2 [r hgetall h]]
    }

    test "HashSet: NX and XX skip by presence; both together skip everything" {
        need_modules
        assert_equal {0 ENOENT} [r mhash.set h w n f1 q f5 v5]
        assert_equal {y v5} [r hmget h f1 f5]
        assert_equal {1 -} [r mhash.set h w na f6 v6 f1 q]
        assert_equal {1 -} [r mhash.set h w x f1 xx f7 v7]
        assert_equal {2 -} [r mhash.set h w xa f1 xy f2 w2 f8 v8]
        assert_equal {xy w2 {} {}} [r hmget h f1 f2 f7 f8]
        assert_equal {0 ENOENT} [r mhash.set h w nx f1 q f9 q]
        assert_equal {xy {}} [r hmget h f1 f9]
        r del nokey
        assert_equal {0 ENOENT} [r mhash.set nokey w x f v]
        assert_equal 0 [r exists nokey]
    }

    test "HashSet: CFIELDS; REDISMODULE_HASH_DELETE deletes (counted), under NX/XX too; an emptied hash goes" {
        need_modules
        assert_equal {0 ENOENT} [r mhash.set h w f c1 v1]
        assert_equal {1 -} [r mhash.set h w fa c2 v2]
        assert_equal {1 -} [r mhash.set h w f c1 w1 c3 v3]
        assert_equal {w1 v2 v3} [r hmget h c1 c2 c3]
        assert_equal {1 -} [r mhash.set h w - c1 !del nope !del]
        assert_equal {1 -} [r mhash.set h w fx c2 !del c4 !del]
        assert_equal {0 ENOENT} [r mhash.set h w n c3 !del]
        assert_equal {1 -} [r mhash.set h w fa c3 !del]
        assert_equal {0 0 0} [list [r hexists h c1] [r hexists h c2] [r hexists h c3]]
        r del h2
        r hset h2 only v
        assert_equal {1 -} [r mhash.set h2 w - only !del]
        assert_equal 0 [r exists h2]
        assert_equal {1 -} [r mhash.set h2 w a a 1 b !del]
        assert_equal {a 1} [r hgetall h2]
    }

    test "HashSet refusals: EINVAL (a NULL key, the EXISTS flag), ENOTSUP (another type), EBADF (no WRITE)" {
        need_modules
        r set s v
        r del nokey
        assert_equal {0 EINVAL} [r mhash.set nokey r - f v]
        assert_equal {0 EINVAL} [r mhash.set h w e f1 v]
        assert_equal {0 EINVAL} [r mhash.set s rw e f v]
        assert_equal {0 ENOTSUP} [r mhash.set s rw - f v]
        assert_equal {0 ENOTSUP} [r mhash.set s r - f v]
        assert_equal {0 EBADF} [r mhash.set h r - f1 v]
        assert_equal v [r get s]
        assert_equal 0 [r exists nokey]
        assert_equal xy [r hget h f1]
    }

    test "HashGet: values or nil, CFIELDS, EXISTS; an integer value reads as its text; another type is ERR" {
        need_modules
        r del g
        r hset g a 1 b two c 12345
        assert_equal {1 {} two} [r mhash.get g - a nope b]
        assert_equal {12345 two} [r mhash.get g f c b]
        assert_equal {1 0 1} [r mhash.get g e a nope c]
        assert_equal {0 1} [r mhash.get g fe zz b]
        r set s v
        assert_error "ERR hashget" {r mhash.get s - a}
        assert_error "ERR no key" {r mhash.get nokey - a}
    }

    test "HashSet converts a hash whose value outgrows hash-max-listpack-value, as HSET does" {
        need_modules
        r config set hash-max-listpack-value 8
        r del big
        assert_equal {0 ENOENT} [r mhash.set big w - f short]
        assert_encoding listpack big
        assert_equal {1 -} [r mhash.set big w - f a-value-longer-than-eight]
        assert_encoding hashtable big
        assert_equal {a-value-longer-than-eight} [r mhash.get big - f]
        r config set hash-max-listpack-value 64
    }
}
