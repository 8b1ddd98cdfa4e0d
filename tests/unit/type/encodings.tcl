# encodings.tcl -- TYPE and OBJECT ENCODING of every encoding of every type,
# the conversions between them (forced through the config thresholds),
# (checked with assert_storage: OBJECT ENCODING gives Redis 7.0's names, so a
# small list or set kept as a listpack reports "quicklist" / "hashtable"),
# and the operations that must not care about the encoding: COPY, RENAME,
# MOVE and DEBUG DIGEST. DEBUG LISTPACK / INTSET / ENCODING-CHECK check that
# the compact encodings are well-formed blobs.
#
# Tags:
#   redis7.2  Redis 7.2+ behaviour (small lists and small sets of strings
#             are listpacks, a shrunk list goes back to a listpack); Redis
#             7.0 differs. Against 7.0: --tags -redis7.2
#   ourdebug  DEBUG INTSET / ENCODING-CHECK and the log dump of DEBUG
#             LISTPACK are this server's own. Against Redis: --tags -ourdebug

# Small thresholds, so a handful of elements crosses them.
proc small_thresholds {} {
    r config set list-max-listpack-size 4
    r config set hash-max-listpack-entries 4
    r config set hash-max-listpack-value 8
    r config set set-max-intset-entries 4
    catch {r config set set-max-listpack-entries 4}
    catch {r config set set-max-listpack-value 8}
    r config set zset-max-listpack-entries 4
    r config set zset-max-listpack-value 8
}

proc default_thresholds {} {
    r config set list-max-listpack-size -2
    r config set hash-max-listpack-entries 128
    r config set hash-max-listpack-value 64
    r config set set-max-intset-entries 512
    catch {r config set set-max-listpack-entries 128}
    catch {r config set set-max-listpack-value 64}
    r config set zset-max-listpack-entries 128
    r config set zset-max-listpack-value 64
}

# The same logical contents, built compact (below the thresholds) or not.
# Each builder deletes KEY first.
proc build_list {key compact} {
    r del $key
    if {!$compact} { r config set list-max-listpack-size 2 }
    r rpush $key a 1 b 22 -3 [string repeat z 20]
    r config set list-max-listpack-size -2
}

proc build_hash {key compact} {
    r del $key
    if {!$compact} { r config set hash-max-listpack-entries 2 }
    r hset $key f1 v1 f2 2 f3 -33 f4 [string repeat v 20]
    r config set hash-max-listpack-entries 128
}

proc build_intset {key compact} {
    r del $key
    if {!$compact} {
        r config set set-max-intset-entries 2
        catch {r config set set-max-listpack-entries 2}
    }
    r sadd $key 5 -1 100000 3 70000000000
    r config set set-max-intset-entries 512
    catch {r config set set-max-listpack-entries 128}
}

proc build_strset {key compact} {
    r del $key
    if {!$compact} { catch {r config set set-max-listpack-entries 2} }
    r sadd $key x y 12 zz w
    catch {r config set set-max-listpack-entries 128}
}

proc build_zset {key compact} {
    r del $key
    if {!$compact} { r config set zset-max-listpack-entries 2 }
    r zadd $key 1 a 2.5 b -3 c 100 d 1 aa
    r config set zset-max-listpack-entries 128
}

# kind -> {type builder compact-encoding big-encoding}
set kinds {
    list {list build_list listpack quicklist}
    hash {hash build_hash listpack hashtable}
    intset {set build_intset intset hashtable}
    strset {set build_strset listpack hashtable}
    zset {zset build_zset listpack skiplist}
}

# A value's contents in a form independent of encoding and order.
proc contents {key} {
    switch [r type $key] {
        string { return [r get $key] }
        list { return [r lrange $key 0 -1] }
        hash { return [lsort [r hgetall $key]] }
        set { return [lsort [r smembers $key]] }
        zset { return [r zrange $key 0 -1 withscores] }
        none { return {} }
    }
}

start_server {tags {encodings}} {
    test "OBJECT ENCODING and DEBUG OBJECT name small lists and sets as Redis 7.0 does" {
        default_thresholds
        r del l s i
        r rpush l a b c
        r sadd s a b c
        r sadd i 1 2 3
        assert_encoding quicklist l
        assert_encoding hashtable s
        assert_encoding intset i
        assert_match "*encoding:quicklist *ql_nodes:1 ql_avg_node:3.00 ql_listpack_max:-2 ql_compressed:0 *" [r debug object l]
        assert_match "*encoding:hashtable *" [r debug object s]
        r sadd i x
        assert_encoding hashtable i
        r del l s i
    }

    test "Strings: int, embstr and raw" {
        r set n 12345
        assert_type string n
        assert_storage int n
        # int encoding holds what fits a C long: 64 or 32 bits
        r set n -2147483648
        assert_storage int n
        r set n -9223372036854775808
        assert_storage [expr {[s arch_bits] == 64 ? "int" : "embstr"}] n
        r set s abc
        assert_storage embstr s
        r set s 0123 ;# not canonical: stays a string
        assert_storage embstr s
        r set s 123456789012345678901234567890
        assert_storage embstr s
        r set s [string repeat x 44]
        assert_storage embstr s
        r set s [string repeat x 45]
        assert_storage raw s
        r set s abc
        r append s def
        assert_storage raw s
        assert_equal abcdef [r get s]
    }

    foreach {kind spec} $kinds {
        lassign $spec type builder compact big
        # small lists and small sets of strings are listpacks since 7.2
        set tags [expr {$kind in {list strset} ? "redis7.2" : ""}]
        test "$kind: TYPE and OBJECT ENCODING of both encodings" {
            $builder k 1
            assert_type $type k
            assert_storage $compact k
            $builder k2 0
            assert_type $type k2
            assert_storage $big k2
            assert_equal [contents k] [contents k2]
        } $tags

        test "$kind: COPY keeps contents, encoding and digest" {
            foreach c {1 0} {
                $builder src $c
                r del dst
                assert_equal 1 [r copy src dst]
                assert_equal [storage_encoding src] [storage_encoding dst]
                assert_equal [contents src] [contents dst]
                assert_equal [r debug digest-value src] [r debug digest-value dst]
                # the copy is independent of the original
                r del src
                assert_equal $type [r type dst]
            }
        }

        test "$kind: COPY to another database and with REPLACE" {
            foreach c {1 0} {
                $builder src $c
                r select 1
                r del dst
                r select 0
                assert_equal 1 [r copy src dst db 1]
                r set dst2 x
                assert_equal 0 [r copy src dst2]
                assert_equal 1 [r copy src dst2 replace]
                assert_equal [storage_encoding src] [storage_encoding dst2]
                set want [contents src]
                r select 1
                assert_equal $want [contents dst]
                r del dst
                r select 0
            }
        }

        test "$kind: RENAME and MOVE keep the encoding" {
            foreach c {1 0} {
                $builder src $c
                set enc [storage_encoding src]
                set want [contents src]
                r del renamed
                r rename src renamed
                assert_storage $enc renamed
                assert_equal $want [contents renamed]
                r select 1
                r del renamed
                r select 0
                assert_equal 1 [r move renamed 1]
                r select 1
                assert_storage $enc renamed
                assert_equal $want [contents renamed]
                r del renamed
                r select 0
            }
        }

        test "$kind: DEBUG DIGEST-VALUE does not depend on the encoding" {
            $builder a 1
            $builder b 0
            assert_not_equal [storage_encoding a] [storage_encoding b]
            assert_equal [r debug digest-value a] [r debug digest-value b]
            # ... and it does depend on the contents
            r del a
            if {$type eq "list"} { r rpush b extra } \
            elseif {$type eq "hash"} { r hset b extra 1 } \
            elseif {$type eq "set"} { r sadd b 9999 } \
            else { r zadd b 7 extra }
            $builder a 1
            assert_not_equal [r debug digest-value a] [r debug digest-value b]
        } $tags
    }

    test "DEBUG DIGEST of a dataset does not depend on the encodings" {
        set digests {}
        foreach c {1 0} {
            r flushall
            foreach {kind spec} $kinds {
                [lindex $spec 1] $kind $c
            }
            r set str hello
            lappend digests [r debug digest]
        }
        assert_equal [lindex $digests 0] [lindex $digests 1]
        assert_not_equal 0000000000000000000000000000000000000000 [lindex $digests 0]
        r flushall
    }

    test "list: listpack up to list-max-listpack-size entries, then quicklist" {
        small_thresholds
        r del l
        r rpush l a b c d
        assert_storage listpack l
        r rpush l e
        assert_storage quicklist l
        assert_equal {a b c d e} [r lrange l 0 -1]
        default_thresholds
    } {redis7.2}

    test "list: a big element makes a quicklist (size limit)" {
        r del l
        r rpush l a
        assert_storage listpack l
        r rpush l [string repeat x 9000]
        assert_storage quicklist l
        assert_equal 9000 [string length [r lindex l 1]]
    } {redis7.2}

    test "list: a shrunk quicklist goes back to listpack" {
        small_thresholds
        r del l
        r rpush l a b c d e f g
        assert_storage quicklist l
        r ltrim l 0 0
        assert_storage listpack l
        assert_equal {a} [r lrange l 0 -1]
        default_thresholds
    } {redis7.2}

    test "hash: listpack until too many fields, then hashtable (no way back)" {
        small_thresholds
        r del h
        r hset h f1 1 f2 2 f3 3 f4 4
        assert_storage listpack h
        r hset h f5 5
        assert_storage hashtable h
        r hdel h f1 f2 f3 f4
        assert_storage hashtable h
        assert_equal {f5 5} [r hgetall h]
        default_thresholds
    }

    test "hash: a long field or value makes a hashtable" {
        small_thresholds
        r del h1 h2
        r hset h1 f 12345678
        assert_storage listpack h1
        r hset h1 g 123456789
        assert_storage hashtable h1
        r hset h2 123456789 v
        assert_storage hashtable h2
        default_thresholds
    }

    test "set: intset until too many integers, then hashtable" {
        small_thresholds
        r del s
        r sadd s 1 2 3 4
        assert_storage intset s
        r sadd s 5
        assert_storage hashtable s
        assert_equal {1 2 3 4 5} [lsort -integer [r smembers s]]
        default_thresholds
    }

    test "set: a grown intset becomes a hashtable; a new big one starts as a listpack" {
        r config set set-max-intset-entries 2
        r config set set-max-listpack-entries 3
        r del s s2
        r sadd s 1 2
        assert_storage intset s
        r sadd s 3
        assert_storage hashtable s
        r sadd s2 1 2 3 ;# too many for an intset from the start, fits a listpack
        assert_storage listpack s2
        assert_equal {1 2 3} [lsort -integer [r smembers s2]]
        default_thresholds
    } {redis7.2}

    test "set: intset widens for big integers and stays an intset" {
        default_thresholds
        r del s
        r sadd s 1
        assert_storage intset s
        r sadd s 40000 -9223372036854775808 9223372036854775807
        assert_storage intset s
        assert_equal {-9223372036854775808 1 40000 9223372036854775807} [r sort s]
    }

    test "set: a string turns an intset into a listpack, then a hashtable" {
        small_thresholds
        r del s
        r sadd s 1 2
        r sadd s a
        assert_storage listpack s
        r sadd s b
        assert_storage listpack s
        r sadd s c
        assert_storage hashtable s
        assert_equal {1 2 a b c} [lsort [r smembers s]]
        default_thresholds
    } {redis7.2}

    test "set: a long string makes a hashtable" {
        small_thresholds
        r del s
        r sadd s 1 2
        r sadd s 123456789x
        assert_storage hashtable s
        default_thresholds
    }

    test "zset: listpack until too many members, then skiplist (no way back)" {
        small_thresholds
        r del z
        r zadd z 1 a 2 b 3 c 4 d
        assert_storage listpack z
        r zadd z 5 e
        assert_storage skiplist z
        r zrem z a b c d
        assert_storage skiplist z
        assert_equal {e 5} [r zrange z 0 -1 withscores]
        default_thresholds
    }

    test "zset: a long member makes a skiplist" {
        small_thresholds
        r del z
        r zadd z 1 12345678
        assert_storage listpack z
        r zadd z 2 123456789
        assert_storage skiplist z
        default_thresholds
    }

    test "zset: ZRANGESTORE of a small range from a skiplist stores a listpack" {
        small_thresholds
        r del z dst
        r zadd z 1 a 2 b 3 c 4 d 5 e 6 f
        assert_storage skiplist z
        assert_equal 2 [r zrangestore dst z 0 1]
        assert_storage listpack dst
        assert_equal {a 1 b 2} [r zrange dst 0 -1 withscores]
        default_thresholds
    }

    test "SORT STORE of a short result stores a listpack" {
        r del l dst
        r rpush l 3 1 2
        r sort l store dst
        assert_storage listpack dst
        assert_equal {1 2 3} [r lrange dst 0 -1]
    } {redis7.2}

    test "DEBUG LISTPACK validates every listpack-encoded type" {
        build_list l 1
        build_hash h 1
        build_zset z 1
        r del s
        r sadd s a b 1
        foreach key {l h z s} {
            if {[storage_encoding $key] ne "listpack"} { continue }
            # ours: OK (Redis: "Listpack structure printed on stdout")
            set reply [r debug listpack $key]
            assert {$reply eq "OK" || [string match "*printed*" $reply]} "DEBUG LISTPACK $key: $reply"
        }
        foreach key {l h z} { assert_storage listpack $key }
    } {redis7.2}

    test "DEBUG LISTPACK refuses other encodings and missing keys" {
        build_list l 0
        assert_error "*Not a listpack encoded object*" {r debug listpack l}
        r set str x
        assert_error "*Not a listpack encoded object*" {r debug listpack str}
        r del nokey
        assert_error "*no such key*" {r debug listpack nokey}
    }

    test "DEBUG LISTPACK replies OK and dumps the entries to the log" {
        r del l
        r rpush l 123 abc -7 [string repeat y 100]
        set from [log_line_count]
        assert_equal OK [r debug listpack l]
        wait_for_log "*DEBUG LISTPACK l: 4 entries*" -from $from
        wait_for_log {*\[0\] int 123*} -from $from
        wait_for_log {*\[1\] str(3) "abc"*} -from $from
        wait_for_log {*\[2\] int -7*} -from $from
        wait_for_log {*\[3\] str(100) "yyy*"...*} -from $from
    } {ourdebug redis7.2}

    test "DEBUG INTSET validates an intset and dumps it" {
        build_intset s 1
        set from [log_line_count]
        assert_equal OK [r debug intset s]
        wait_for_log "*DEBUG INTSET s: 5 values of 8 bytes*" -from $from
        wait_for_log {*\[0\] -1*} -from $from
        build_intset s2 0
        assert_error "*Not an intset encoded object*" {r debug intset s2}
        assert_error "*no such key*" {r debug intset nokey}
    } {ourdebug}

    test "DEBUG QUICKLIST validates a quicklist and lists its nodes" {
        build_list l 0
        set from [log_line_count]
        assert_equal OK [r debug quicklist l]
        wait_for_log "*DEBUG QUICKLIST l: * nodes, 6 elements*" -from $from
        wait_for_log "*node 0: packed, 2 entries*" -from $from
        # an element over the node size limit gets a plain node
        r del big
        r rpush big a [string repeat x 9000] b
        set from [log_line_count]
        assert_equal OK [r debug quicklist big]
        wait_for_log "*node *: plain, 1 entries, 9000 bytes*" -from $from
        # compressed interior nodes are checked decompressed
        r config set list-compress-depth 1
        r config set list-max-listpack-size 4
        r del c
        for {set i 0} {$i < 10} {incr i} { r rpush c [string repeat "v$i " 20] [string repeat w 30] }
        assert_storage quicklist c
        assert_equal OK [r debug quicklist c]
        assert_equal OK [r debug encoding-check c]
        default_thresholds
        r config set list-compress-depth 0
        assert_equal 20 [r llen c]
        r del small
        r rpush small a
        assert_error "*Not a quicklist encoded object*" {r debug quicklist small}
        assert_error "*no such key*" {r debug quicklist nokey}
    } {ourdebug}

    test "DEBUG ENCODING-CHECK passes every encoding of every type" {
        foreach {kind spec} $kinds {
            foreach c {1 0} {
                [lindex $spec 1] k $c
                assert_equal OK [r debug encoding-check k] "$kind compact=$c [storage_encoding k]"
            }
        }
        r set str x
        assert_equal OK [r debug encoding-check str]
        assert_error "*no such key*" {r debug encoding-check nokey}
    } {ourdebug}

    test "DEBUG ENCODING-CHECK after many changes to compact values" {
        r del l h s z
        for {set i 0} {$i < 200} {incr i} {
            set v [expr {int(rand() * 50)}]
            r rpush l $v x$v
            r hset h f$v $i
            r sadd s $v
            r zadd z [expr {rand() * 10}] m$v
            if {$i % 3 == 0} {
                r lpop l
                r hdel h f[expr {int(rand() * 50)}]
                r srem s [expr {int(rand() * 50)}]
                r zrem z m[expr {int(rand() * 50)}]
            }
            if {$i % 20 == 0} {
                foreach key {l h s z} {
                    # a removal may have emptied (deleted) a small value
                    if {[r exists $key]} { assert_equal OK [r debug encoding-check $key] "$key at $i" }
                }
            }
        }
        foreach key {l h s z} { assert_equal OK [r debug encoding-check $key] }
    } {ourdebug}
}
