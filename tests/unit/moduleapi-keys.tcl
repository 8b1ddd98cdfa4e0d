# moduleapi-keys.tcl -- the key API of Redis 7.0 modules for lists
# (src/module_keys.c: ListPop, ListGet, ListSet, ListInsert, ListDelete, and
# module_api.c's ListPush) and sorted sets (ZsetAdd, ZsetIncrby, ZsetRem,
# ZsetScore), and the dictionary API (src/module_dict.c), through the test
# modules tests/modules/mlist.c, mzset.c and mdict.c.
# Run with --server /usr/bin/redis-server to check every expectation
# against Debian's Redis 7.0.15 loading the same .so.

source [file join $::harness_dir modules.tcl] ;# module_skip_reason, need_modules

proc mlist_path {} { return [file join $::module_dir mlist.so] }
proc mzset_path {} { return [file join $::module_dir mzset.so] }

start_server {tags {module} overrides {enable-module-command yes}} {
    test "ListGet: by index from either end; EDOM out of range; EBADF without READ" {
        need_modules
        r module load [mlist_path]
        r del l
        r rpush l a b c d
        assert_equal a [r mlist.op r l get 0]
        assert_equal d [r mlist.op r l get -1]
        assert_equal c [r mlist.op r l get -2]
        assert_error "ERR errno EDOM" {r mlist.op r l get 4}
        assert_error "ERR errno EDOM" {r mlist.op r l get -5}
        assert_error "ERR errno EBADF" {r mlist.op w l get 0}
    }

    test "ListSet: replaces in place; EBADF without WRITE, EDOM out of range, EINVAL without a value" {
        need_modules
        r del l
        r rpush l a b c d
        assert_equal OK [r mlist.op w l set 1 y]
        assert_equal OK [r mlist.op w l set -1 z]
        assert_equal {a y c z} [r lrange l 0 -1]
        assert_error "ERR errno EBADF" {r mlist.op r l set 0 x}
        assert_error "ERR errno EDOM" {r mlist.op w l set 4 x}
        assert_error "ERR errno EINVAL" {r mlist.op w l set 0}
    }

    test "ListInsert: the index is the new element's; the ends push; EDOM beyond them" {
        need_modules
        r del l
        r rpush l a b c d
        assert_equal OK [r mlist.op w l insert 2 z]
        assert_equal OK [r mlist.op w l insert -2 q]
        assert_equal {a b z c q d} [r lrange l 0 -1]
        assert_equal OK [r mlist.op w l insert 6 end]
        assert_equal OK [r mlist.op w l insert -8 start]
        assert_equal OK [r mlist.op w l insert 0 first]
        assert_equal OK [r mlist.op w l insert -1 last]
        assert_equal {first start a b z c q d end last} [r lrange l 0 -1]
        assert_error "ERR errno EDOM" {r mlist.op w l insert 11 x}
        assert_error "ERR errno EDOM" {r mlist.op w l insert -12 x}
        assert_error "ERR errno EINVAL" {r mlist.op w l insert 0}
        # into an empty key only at 0 or -1, which creates it
        r del e
        assert_error "ERR errno ENOTSUP" {r mlist.op w e insert 1 v}
        assert_equal OK [r mlist.op w e insert -1 v]
        assert_equal {v} [r lrange e 0 -1]
    }

    test "ListDelete and ListPop: the element goes; the emptied list is deleted" {
        need_modules
        r del l
        r rpush l a b c d e
        assert_equal OK [r mlist.op w l delete 0]
        assert_equal OK [r mlist.op w l delete -1]
        assert_equal OK [r mlist.op w l delete 1]
        assert_equal {b d} [r lrange l 0 -1]
        assert_error "ERR errno EDOM" {r mlist.op w l delete 2}
        assert_error "ERR errno EBADF" {r mlist.op r l delete 0}
        assert_error "ERR errno EBADF" {r mlist.op r l pop-head}
        assert_equal d [r mlist.op w l pop-tail]
        assert_equal b [r mlist.op w l pop-head]
        assert_equal 0 [r exists l]
        assert_error "ERR errno ENOTSUP" {r mlist.op w l pop-head}
        r rpush l x
        assert_equal OK [r mlist.op w l delete 0]
        assert_equal 0 [r exists l]
    }

    test "list calls on another type or an empty key: ENOTSUP; on a NULL key: EINVAL" {
        need_modules
        r set s v
        foreach op {{get 0} pop-head {insert 0 x} {delete 0} {set 0 x}} {
            assert_error "ERR errno ENOTSUP" {r mlist.op rw s {*}$op}
        }
        r del nokey
        assert_error "ERR errno ENOTSUP" {r mlist.op rw nokey pop-tail}
        assert_error "ERR errno ENOTSUP" {r mlist.op w nokey get 0}
        assert_equal v [r get s]
        assert_equal 0 [r exists nokey]
        assert_equal {EINVAL EINVAL EINVAL EINVAL EINVAL EINVAL} [r mlist.nullkey]
    }

    test "the list calls on a list of many nodes (past list-max-listpack-size)" {
        need_modules
        r del big
        r config set list-max-listpack-size 4
        set expect {}
        for {set i 0} {$i < 40} {incr i} {
            r rpush big $i
            lappend expect $i
        }
        assert_equal OK [r mlist.op w big insert 10 new]
        set expect [linsert $expect 10 new]
        assert_equal OK [r mlist.op w big insert -10 new2]
        set expect [linsert $expect end-9 new2]
        assert_equal OK [r mlist.op w big set 20 twenty]
        lset expect 20 twenty
        assert_equal OK [r mlist.op w big delete 5]
        set expect [lreplace $expect 5 5]
        assert_equal [lindex $expect 30] [r mlist.op r big get 30]
        assert_equal [lindex $expect end-3] [r mlist.op r big get -4]
        assert_equal $expect [r lrange big 0 -1]
        r config set list-max-listpack-size -2
    }

    test "a value from ListPop is an ordinary string, an integer element too" {
        need_modules
        r del l
        r rpush l 12345 -7 text
        assert_equal 12345 [r mlist.op w l pop-head]
        assert_equal -7 [r mlist.op rw l get 0]
        assert_equal OK [r mlist.op w l set 0 99]
        assert_equal {99 text} [r lrange l 0 -1]
    }
}

start_server {tags {module} overrides {enable-module-command yes}} {
    test "ZsetAdd: added, updated, NOP under NX/XX/GT/LT; the flags come back" {
        need_modules
        r module load [mzset_path]
        r del z
        assert_equal {ok a} [r mzset.add z 1 a]
        assert_equal {ok u} [r mzset.add z 2 a]
        assert_equal {ok p} [r mzset.add z 3 a n]
        assert_equal {ok p} [r mzset.add z 1 b x]
        assert_equal {ok p} [r mzset.add z 1 a g]
        assert_equal {ok u} [r mzset.add z 1 a l]
        assert_equal {ok u} [r mzset.add z 5 a g]
        assert_equal {ok -} [r mzset.add z 5 a]
        assert_equal {a 5} [r zrange z 0 -1 withscores]
    }

    test "ZsetIncrby: the new score; a NaN sum is refused and changes nothing" {
        need_modules
        assert_equal {ok u 7.5} [r mzset.incr z 2.5 a]
        assert_equal {ok a 1} [r mzset.incr z 1 c]
        assert_equal {ok p -1} [r mzset.incr z 1 d x]
        assert_equal {ok u inf} [r mzset.incr z inf a]
        assert_equal {err - -1} [r mzset.incr z -inf a]
        assert_equal inf [r zscore z a]
    }

    test "ZsetScore and ZsetRem: the last member removed deletes the key; a read-only key refuses" {
        need_modules
        assert_equal inf [r mzset.score z a]
        assert_error "ERR no score" {r mzset.score z nope}
        assert_equal {ok 1} [r mzset.rem z c]
        assert_equal {ok 0} [r mzset.rem z c]
        assert_equal {err -1} [r mzset.rem z a ro]
        assert_equal {ok 1} [r mzset.rem z a]
        assert_equal 0 [r exists z]
        r del nokey
        assert_equal {ok 0} [r mzset.rem nokey a]
        assert_equal 0 [r exists nokey]
    }

    test "the zset calls on another type fail and leave it alone" {
        need_modules
        r set s v
        assert_equal {err -} [r mzset.add s 1 a]
        assert_equal {err - -1} [r mzset.incr s 1 a]
        assert_equal {err -1} [r mzset.rem s a]
        assert_error "ERR no score" {r mzset.score s a}
        assert_equal v [r get s]
    }

    test "ZsetAdd past zset-max-listpack-entries: the set converts and stays whole" {
        need_modules
        r del big
        r config set zset-max-listpack-entries 4
        for {set i 0} {$i < 20} {incr i} { r mzset.add big $i m$i }
        assert_equal 20 [r zcard big]
        assert_equal {ok 1} [r mzset.rem big m7]
        assert_equal 13 [r mzset.score big m13]
        assert_equal {m0 m1 m2} [r zrange big 0 2]
        r config set zset-max-listpack-entries 128
    }
}

start_server {tags {module} overrides {enable-module-command yes}} {
    test "the dictionary API: set refuses an existing key, replace does not; get, del, size" {
        need_modules
        r module load [file join $::module_dir mdict.so]
        assert_equal {1 0 1 1 1} [list [r mdict.set b 1] [r mdict.set b 2] [r mdict.set a 1] [r mdict.set abc 3] [r mdict.set c 4]]
        assert_equal {0 1} [list [r mdict.replace c 5] [r mdict.replace d 6]]
        assert_equal {5 {} 1} [list [r mdict.get c] [r mdict.get zz] [r mdict.get b]]
        assert_equal 5 [r mdict.size]
    }

    test "the dictionary iterators: seek operators, next and prev in byte order" {
        need_modules
        assert_equal {a abc b c d} [r mdict.walk next ^ x 10]
        assert_equal {d c b abc a} [r mdict.walk prev \$ x 10]
        assert_equal {abc b} [r mdict.walk next > ab 2]
        assert_equal {b c d} [r mdict.walk next >= b 10]
        assert_equal {abc a} [r mdict.walk prev < b 10]
        assert_equal {abc b c d} [r mdict.walk next = abc 10]
        assert_equal {} [r mdict.walk next = ab 10]
    }

    test "DictCompare and DictIteratorReseek answer as Redis's" {
        need_modules
        assert_equal {0 1 0 1 1} [list [r mdict.cmp ^ x > a] [r mdict.cmp ^ x == a] [r mdict.cmp ^ x = a] \
            [r mdict.cmp ^ x <= ab] [r mdict.cmp ^ x < ab]]
        assert_equal {1 0} [list [r mdict.reseek > a] [r mdict.reseek ! a]]
    }

    test "DictDel; a dict on an auto-memory context goes with it" {
        need_modules
        assert_equal {1 0 4} [list [r mdict.del a] [r mdict.del a] [r mdict.size]]
        assert_equal 1 [r mdict.auto]
    }
}
