# set.tcl -- the set commands (SADD SREM SMOVE SISMEMBER SMISMEMBER SCARD
# SMEMBERS SPOP SRANDMEMBER SINTER/SUNION/SDIFF and their STORE variants,
# SINTERCARD, SSCAN), in each of the three encodings a set takes (intset,
# listpack, hashtable), the conversions between them, and RESP3 replies,
# keyspace events, COPY and DEBUG DIGEST-VALUE.
#
# Results are checked against a model computed in Tcl (sorted lists), so a
# test checks the rule rather than one sample of it.
#
# Redis 7.0 has no listpack encoding for sets (and no set-max-listpack-*
# settings), and does not convert a compact set before a big SADD: the tests
# of that 7.2+ behaviour carry the tag `set-7.2`. Against the 7.0 reference
# run:
#   ./runtest --server /usr/bin/redis-server --single unit/type/set --tags -set-7.2

# Small sets of the given members get encoding enc. Integer members are
# needed for intset.
proc use_encoding {enc} {
    switch $enc {
        intset {
            r config set set-max-intset-entries 512
            catch {r config set set-max-listpack-entries 128}
        }
        listpack {
            r config set set-max-intset-entries 0
            r config set set-max-listpack-entries 128
        }
        hashtable {
            r config set set-max-intset-entries 0
            catch {r config set set-max-listpack-entries 0}
        }
    }
}

proc restore_defaults {} {
    r config set set-max-intset-entries 512
    catch {r config set set-max-listpack-entries 128}
    catch {r config set set-max-listpack-value 64}
}

# The tags of a test about encoding enc.
proc enc_tags {enc} {
    if {$enc eq "listpack"} { return {set-7.2} }
    return {}
}

# n members suitable for encoding enc: integers for intset (negative ones
# too), words mixed with integers otherwise.
proc sample_members {enc n} {
    set out {}
    for {set i 0} {$i < $n} {incr i} {
        if {$enc eq "intset" || $i % 3 == 0} {
            lappend out [expr {$i % 2 ? -$i * 7 : $i * 1000}]
        } else {
            lappend out "m$i"
        }
    }
    return $out
}

# A set at key with the members, in encoding enc (asserted).
proc make_set {key enc members} {
    use_encoding $enc
    r del $key
    r sadd $key {*}$members
    assert_storage $enc $key
}

proc smembers_sorted {key} { return [lsort [r smembers $key]] }

# Tcl models of the set operations over lists.
proc model_inter {a args} {
    set out {}
    foreach x [lsort -unique $a] {
        set keep 1
        foreach other $args { if {[lsearch -exact $other $x] < 0} { set keep 0; break } }
        if {$keep} { lappend out $x }
    }
    return [lsort $out]
}
proc model_union {args} { return [lsort -unique [concat {*}$args]] }
proc model_diff {a args} {
    set out {}
    foreach x [lsort -unique $a] {
        set keep 1
        foreach other $args { if {[lsearch -exact $other $x] >= 0} { set keep 0; break } }
        if {$keep} { lappend out $x }
    }
    return [lsort $out]
}

# The lines of a raw reply, space separated: the first line of `cmd`, then
# n more.
proc raw_reply {client n args} {
    set lines [list [$client {*}$args]]
    for {set i 0} {$i < $n} {incr i} { lappend lines [$client read] }
    return [join $lines " "]
}

# Every member of a set through SSCAN (with extra arguments), and the
# number of calls it took.
proc sscan_all {key args} {
    set cursor 0
    set seen {}
    set calls 0
    while 1 {
        lassign [r sscan $key $cursor {*}$args] cursor items
        incr calls
        lappend seen {*}$items
        if {$cursor == 0 || $calls > 100000} break
    }
    return [list [lsort -unique $seen] $calls]
}

start_server {tags {set}} {
    # ---- the basics, in every encoding -------------------------------------------------------
    foreach enc {intset listpack hashtable} {
        test "SADD, SCARD, SISMEMBER, SMISMEMBER, SMEMBERS ($enc)" {
            set members [sample_members $enc 10]
            make_set s $enc $members
            assert_equal 10 [r scard s]
            assert_equal [lsort $members] [smembers_sorted s]
            assert_equal 0 [r sadd s [lindex $members 0] [lindex $members 1]]
            assert_equal 1 [r sismember s [lindex $members 3]]
            assert_equal 0 [r sismember s nope]
            assert_equal 0 [r sismember s 123456789]
            assert_equal {1 0 1} [r smismember s [lindex $members 2] nope [lindex $members 9]]
            assert_equal 2 [r sadd s [lindex $members 0] 77777 77777 [lindex $members 5] 88888]
            assert_equal 12 [r scard s]
            assert_type set s
            restore_defaults
        } [enc_tags $enc]

        test "SREM removes members and deletes the emptied key ($enc)" {
            set members [sample_members $enc 6]
            make_set s $enc $members
            assert_equal 2 [r srem s [lindex $members 0] nope [lindex $members 1] [lindex $members 1]]
            assert_equal [lsort [lrange $members 2 end]] [smembers_sorted s]
            assert_storage $enc s
            assert_equal 4 [r srem s {*}$members nope]
            assert_equal 0 [r exists s]
            assert_equal 0 [r srem s anything]
            restore_defaults
        } [enc_tags $enc]

        test "SPOP pops every member exactly once, then the key is gone ($enc)" {
            set members [sample_members $enc 20]
            make_set s $enc $members
            set popped {}
            for {set i 0} {$i < 20} {incr i} { lappend popped [r spop s] }
            assert_equal [lsort $members] [lsort $popped]
            assert_equal 0 [r exists s]
            assert_equal {} [r spop s]
            restore_defaults
        } [enc_tags $enc]

        foreach count {1 3 10 15 19 20 21 1000} {
            test "SPOP with count $count of 20 ($enc)" {
                set members [sample_members $enc 20]
                make_set s $enc $members
                set popped [r spop s $count]
                set expected [expr {$count < 20 ? $count : 20}]
                assert_equal $expected [llength $popped]
                assert_equal $expected [llength [lsort -unique $popped]]
                set rest [smembers_sorted s]
                assert_equal [lsort $members] [lsort [concat $popped $rest]]
                if {$count >= 20} {
                    assert_equal 0 [r exists s]
                } else {
                    assert_equal [expr {20 - $count}] [r scard s]
                }
                restore_defaults
            } [enc_tags $enc]
        }

        test "SRANDMEMBER without and with count ($enc)" {
            set members [sample_members $enc 20]
            make_set s $enc $members
            set seen {}
            for {set i 0} {$i < 400} {incr i} { dict set seen [r srandmember s] 1 }
            assert_equal [lsort $members] [lsort [dict keys $seen]]
            foreach count {1 2 5 7 10 15 19 20 21 100} {
                set got [r srandmember s $count]
                set expected [expr {$count < 20 ? $count : 20}]
                assert_equal $expected [llength $got]
                assert_equal $expected [llength [lsort -unique $got]] "distinct for count $count"
                foreach m $got { assert {[lsearch -exact $members $m] >= 0} }
            }
            set got [r srandmember s -100]
            assert_equal 100 [llength $got]
            foreach m $got { assert {[lsearch -exact $members $m] >= 0} }
            assert_equal 20 [r scard s]
            assert_storage $enc s
            restore_defaults
        } [enc_tags $enc]

        test "SMOVE between sets ($enc)" {
            set members [sample_members $enc 5]
            make_set src $enc $members
            make_set dst $enc [sample_members $enc 2]
            set m [lindex $members 4]
            assert_equal 1 [r smove src dst $m]
            assert_equal 0 [r sismember src $m]
            assert_equal 1 [r sismember dst $m]
            assert_equal 0 [r smove src dst $m]
            # Moving a member the destination already has only removes it.
            assert_equal 1 [r smove src dst [lindex $members 0]]
            assert_equal 3 [r scard src]
            assert_equal 3 [r scard dst]
            restore_defaults
        } [enc_tags $enc]

        test "SSCAN returns every member ($enc)" {
            set members [sample_members $enc 30]
            make_set s $enc $members
            lassign [sscan_all s] seen calls
            assert_equal [lsort $members] $seen
            # only an intset comes whole: a listpack pages as 7.0's hashtable
            if {$enc eq "intset"} { assert_equal 1 $calls } else { assert_morethan $calls 1 }
            restore_defaults
        } [enc_tags $enc]
    }

    # ---- encodings and conversions ---------------------------------------------------------------------
    test "Integer sets are intsets; only canonical integers count" {
        restore_defaults
        r del s
        r sadd s 1 -2 9223372036854775807 -9223372036854775808
        assert_encoding intset s
        assert_equal 4 [r scard s]
        foreach nonint {01 +1 { 1} 1.0 9223372036854775808 -0 0x10} {
            r del t
            r sadd t 5 $nonint
            assert {[r object encoding t] ne "intset"}
            assert_equal 0 [r sismember s $nonint] "$nonint is not 1"
        }
    }

    test "An intset gets a non-integer member: listpack" {
        restore_defaults
        r del s
        r sadd s 1 2 3
        r sadd s a
        assert_storage listpack s
        assert_equal {1 2 3 a} [smembers_sorted s]
        assert_equal 1 [r sismember s 2]
    } {set-7.2}

    test "An intset with more members than set-max-listpack-entries gets a string: hashtable" {
        restore_defaults
        r config set set-max-listpack-entries 3
        r del s
        r sadd s 1 2 3
        r sadd s a
        assert_storage hashtable s
        assert_equal {1 2 3 a} [smembers_sorted s]
        restore_defaults
    } {set-7.2}

    test "An intset whose integers are longer than set-max-listpack-value gets a string: hashtable" {
        restore_defaults
        r config set set-max-listpack-value 5
        r del s
        r sadd s 1 1234567
        r sadd s a
        assert_storage hashtable s
        r del s
        r sadd s 1 12345
        r sadd s a
        assert_storage listpack s
        restore_defaults
    } {set-7.2}

    test "An intset over set-max-intset-entries becomes a hashtable" {
        restore_defaults
        r config set set-max-intset-entries 16
        r del s
        for {set i 0} {$i < 16} {incr i} { r sadd s $i }
        assert_encoding intset s
        r sadd s 16
        assert_storage hashtable s
        assert_equal 17 [r scard s]
        assert_equal 1 [r sismember s 16]
        restore_defaults
    }

    test "A big SADD of integers on a new key skips the intset" {
        restore_defaults
        r config set set-max-intset-entries 4
        r del s
        r sadd s 1 2 3 4 5
        assert_storage listpack s
        r config set set-max-listpack-entries 4
        r del s
        r sadd s 1 2 3 4 5
        assert_storage hashtable s
        restore_defaults
    } {set-7.2}

    test "A big SADD to an existing compact set converts it first" {
        restore_defaults
        r config set set-max-intset-entries 4
        catch {r config set set-max-listpack-entries 4}
        r del s
        r sadd s 1
        assert_encoding intset s
        # More arguments than an intset may hold, even if none is new.
        r sadd s 1 1 1 1 1
        assert_storage hashtable s
        assert_equal {1} [r smembers s]
        restore_defaults
    } {set-7.2}

    test "A listpack over set-max-listpack-entries becomes a hashtable" {
        restore_defaults
        r config set set-max-listpack-entries 8
        r del s
        for {set i 0} {$i < 8} {incr i} { r sadd s "x$i" }
        assert_storage listpack s
        r sadd s x8
        assert_storage hashtable s
        assert_equal 9 [r scard s]
        restore_defaults
    } {set-7.2}

    test "A member longer than set-max-listpack-value makes a hashtable" {
        restore_defaults
        r del s
        r sadd s a b
        assert_storage listpack s
        r sadd s [string repeat x 65]
        assert_storage hashtable s
        r del s
        r sadd s [string repeat y 65]
        assert_storage hashtable s
        r del s
        r sadd s [string repeat z 64]
        assert_storage listpack s
    } {set-7.2}

    test "Sets never convert back when members are removed" {
        restore_defaults
        r config set set-max-intset-entries 4
        catch {r config set set-max-listpack-entries 4}
        r del s
        r sadd s 1 2 3 4 5
        r srem s 1 2 3
        assert_storage hashtable s
        restore_defaults
    }

    test "Random SADD/SREM against a model across conversions" {
        restore_defaults
        r config set set-max-intset-entries 32
        catch {r config set set-max-listpack-entries 48}
        r del s
        set model [dict create]
        expr {srand(42)}
        for {set i 0} {$i < 2000} {incr i} {
            set x [expr {int(rand() * 80)}]
            if {rand() < 0.15} { set x "s$x" }
            if {rand() < 0.6} {
                assert_equal [expr {![dict exists $model $x]}] [r sadd s $x]
                dict set model $x 1
            } else {
                assert_equal [dict exists $model $x] [r srem s $x]
                dict unset model $x
            }
        }
        assert_equal [lsort [dict keys $model]] [smembers_sorted s]
        assert_equal [dict size $model] [r scard s]
        restore_defaults
    }

    # ---- errors ----------------------------------------------------------------------------------------------
    test "Set commands against a key of another type: WRONGTYPE" {
        r del str
        r set str x
        r del s
        r sadd s a
        foreach cmd {
            {sadd str a} {srem str a} {sismember str a} {smismember str a} {scard str}
            {smembers str} {spop str} {spop str 2} {srandmember str} {srandmember str 2}
            {smove str s a} {smove s str a} {sinter s str} {sinterstore d s str}
            {sunion s str} {sunionstore d s str} {sdiff s str} {sdiffstore d s str}
            {sintercard 2 s str} {sscan str 0}
        } {
            assert_error "WRONGTYPE*" {r {*}$cmd}
        }
        assert_equal {a} [r smembers s]
        assert_equal x [r get str]
    }

    test "Arity errors" {
        foreach {cmd args} {
            sadd {k} srem {k} sismember {k} smismember {k} scard {} smembers {} spop {}
            srandmember {} smove {a b} sinter {} sinterstore {d} sunion {} sunionstore {d}
            sdiff {} sdiffstore {d} sintercard {1} sscan {k}
        } {
            assert_error "ERR wrong number of arguments for '$cmd' command" {r $cmd {*}$args}
        }
        assert_error "ERR syntax error" {r spop s 1 2}
        assert_error "ERR syntax error" {r srandmember s 1 2}
    }

    test "SPOP and SRANDMEMBER count errors and edge values" {
        r del s nokey
        r sadd s a b c
        assert_error "ERR value is out of range, must be positive" {r spop s -1}
        assert_error "ERR value is out of range, must be positive" {r spop s x}
        assert_error "ERR value is out of range, must be positive" {r spop s -9223372036854775808}
        assert_error "ERR value is out of range, must be positive" {r spop s 9223372036854775808}
        assert_error "ERR value is not an integer or out of range" {r srandmember s 1.5}
        assert_error "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807" \
            {r srandmember s -9223372036854775808}
        assert_equal {} [r spop s 0]
        assert_equal {} [r srandmember s 0]
        assert_equal {} [r spop nokey 5]
        assert_equal {} [r srandmember nokey 5]
        assert_equal {} [r srandmember nokey -5]
        assert_equal {} [r spop nokey]
        assert_equal {} [r srandmember nokey]
        # 64-bit counts on every build (a 32-bit long does not limit them).
        assert_equal {a b c} [lsort [r srandmember s 9223372036854775807]]
        assert_equal {a b c} [lsort [r srandmember s 4294967296]]
        assert_equal {a b c} [lsort [r srandmember s 4294967297]]
        assert_error "ERR value is not an integer or out of range" {r srandmember s 9223372036854775808}
        assert_equal 3 [r scard s]
        assert_equal {a b c} [lsort [r spop s 9223372036854775807]]
        assert_equal 0 [r exists s]
        r sadd s a b c
        assert_equal {a b c} [lsort [r spop s 4294967297]]
        assert_equal 0 [r exists s]
    }

    test "SRANDMEMBER with a huge negative count stops at the output buffer limit" {
        r del s
        r sadd s a b c
        r config set client-output-buffer-limit "normal 1000000 0 0"
        set c [redis_client]
        catch {$c srandmember s -1000000000000} err
        catch {$c close}
        r config set client-output-buffer-limit "normal 0 0 0"
        assert_equal PONG [r ping]
        assert_equal 3 [r scard s]
    }

    # ---- SMOVE ---------------------------------------------------------------------------------------------------
    test "SMOVE: missing source, same key, missing member, emptied source" {
        r del src dst
        assert_equal 0 [r smove src dst a]
        assert_equal 0 [r exists dst]
        r sadd src a b
        assert_equal 1 [r smove src src a]
        assert_equal 0 [r smove src src z]
        assert_equal {a b} [smembers_sorted src]
        assert_equal 0 [r smove src dst z]
        assert_equal 0 [r exists dst]
        assert_equal 1 [r smove src dst a]
        assert_equal 1 [r smove src dst b]
        assert_equal 0 [r exists src]
        assert_equal {a b} [smembers_sorted dst]
    }

    test "SMOVE a string into an intset converts it, an integer creates an intset" {
        restore_defaults
        r del src dst
        r sadd src 1 x
        r sadd dst 5 6
        assert_equal 1 [r smove src dst x]
        assert {[r object encoding dst] ne "intset"}
        assert_equal {5 6 x} [smembers_sorted dst]
        r del dst2
        assert_equal 1 [r smove src dst2 1]
        assert_encoding intset dst2
        assert_equal 0 [r exists src]
    }

    test "SMOVE with a wrong-type destination fails even for a missing member" {
        r del src str
        r sadd src a
        r set str x
        assert_error "WRONGTYPE*" {r smove src str nope}
        assert_error "WRONGTYPE*" {r smove src str a}
        assert_equal {a} [r smembers src]
    }

    # ---- SPOP/SRANDMEMBER on big hashtables (the other strategies) ----------------------------------
    test "SPOP with count on a big hashtable: few and most members" {
        restore_defaults
        r del s
        set members {}
        for {set i 0} {$i < 1000} {incr i} { lappend members "e$i" }
        r sadd s {*}$members
        assert_storage hashtable s
        set few [r spop s 10]
        assert_equal 10 [llength [lsort -unique $few]]
        set most [r spop s 900]
        assert_equal 900 [llength [lsort -unique $most]]
        set rest [r smembers s]
        assert_equal 90 [llength $rest]
        assert_equal [lsort $members] [lsort [concat $few $most $rest]]
        # What is left is small enough for a compact encoding again.
        assert_equal 90 [r scard s]
    }

    # Redis 7.0 leaves a hashtable, 7.2 a listpack; here the smallest
    # encoding that fits, an intset.
    test "SPOP keeping a few integers of a big set leaves a compact set" {
        restore_defaults
        r del s
        for {set i 0} {$i < 1000} {incr i} { lappend ints $i }
        r config set set-max-intset-entries 100
        r sadd s {*}$ints
        assert_storage hashtable s
        r spop s 995
        assert_equal 5 [r scard s]
        assert {[storage_encoding s] in {intset listpack}}
        restore_defaults
    } {set-7.2}

    test "SRANDMEMBER with count on a big hashtable: sparse and dense samples" {
        restore_defaults
        r del s
        set members {}
        for {set i 0} {$i < 1000} {incr i} { lappend members "e$i" }
        r sadd s {*}$members
        foreach count {5 100 333 334 600 999 1000} {
            set got [r srandmember s $count]
            assert_equal $count [llength [lsort -unique $got]]
            foreach m $got { assert {[string match e* $m]} }
        }
        # Every member comes up over enough small samples.
        set seen [dict create]
        for {set i 0} {$i < 400} {incr i} {
            foreach m [r srandmember s 50] { dict set seen $m 1 }
        }
        assert_morethan [dict size $seen] 990
        set rep [r srandmember s -2000]
        assert_equal 2000 [llength $rep]
    }

    # ---- SINTER SUNION SDIFF and the STORE variants ----------------------------------------------------------
    foreach enc {intset listpack hashtable} {
        test "SINTER, SUNION, SDIFF against a Tcl model ($enc)" {
            set a [sample_members $enc 40]
            set b [lrange [sample_members $enc 60] 20 end]
            set c [lrange [sample_members $enc 30] 10 end]
            make_set a $enc $a
            make_set b $enc $b
            make_set c $enc $c
            r del nokey
            assert_equal [model_inter $a $b $c] [lsort [r sinter a b c]]
            assert_equal [model_inter $b $a] [lsort [r sinter b a]]
            assert_equal {} [r sinter a b nokey]
            assert_equal [model_union $a $b $c] [lsort [r sunion a b c nokey]]
            assert_equal [model_diff $a $b $c] [lsort [r sdiff a b c]]
            assert_equal [model_diff $b $a] [lsort [r sdiff b a nokey]]
            assert_equal {} [r sdiff a a]
            assert_equal {} [r sdiff nokey a]
            assert_equal [lsort $a] [lsort [r sdiff a nokey]]
            assert_equal [llength [model_inter $a $b $c]] [r sintercard 3 a b c]

            assert_equal [llength [model_inter $a $b]] [r sinterstore d a b]
            assert_equal [model_inter $a $b] [smembers_sorted d]
            assert_equal [llength [model_union $a $c]] [r sunionstore d a c]
            assert_equal [model_union $a $c] [smembers_sorted d]
            assert_equal [llength [model_diff $a $b]] [r sdiffstore d a b]
            assert_equal [model_diff $a $b] [smembers_sorted d]
            restore_defaults
        } [enc_tags $enc]
    }

    test "Set operations across encodings" {
        restore_defaults
        r del i l h
        r sadd i 1 2 3 4 5 6
        r sadd l 2 4 6 x y
        r config set set-max-intset-entries 0
        catch {r config set set-max-listpack-entries 0}
        r sadd h 1 4 x z
        restore_defaults
        assert_encoding intset i
        assert_storage hashtable h
        assert_equal {4} [lsort [r sinter i l h]]
        assert_equal {1 4} [lsort [r sinter h i]]
        assert_equal {1 2 3 4 5 6 x y z} [lsort [r sunion i l h]]
        assert_equal {3 5} [lsort [r sdiff i l h]]
        assert_equal {z} [lsort [r sdiff h i l]]
        assert_equal {2 6 y} [lsort [r sdiff l h]]
        assert_equal 2 [r sinterstore d i h]
        assert_encoding intset d
    }

    test "STORE results take the smallest encoding that fits" {
        restore_defaults
        r config set set-max-intset-entries 0
        catch {r config set set-max-listpack-entries 0}
        r del a b
        r sadd a 1 2 3 x
        r sadd b 1 2 3 y
        assert_storage hashtable a
        restore_defaults
        r sinterstore d a b
        assert_encoding intset d
        r sunionstore d a b
        assert_equal {1 2 3 x y} [smembers_sorted d]
        r config set set-max-intset-entries 2
        r sinterstore d a b
        assert {[r object encoding d] ne "intset"}
        restore_defaults
    }

    test "STORE results of strings are listpacks when small, hashtables when big" {
        restore_defaults
        r del a b
        r sadd a x y z 1
        r sadd b y z w
        r sunionstore d a b
        assert_storage listpack d
        r config set set-max-listpack-entries 3
        r sunionstore d a b
        assert_storage hashtable d
        restore_defaults
    } {set-7.2}

    test "STORE with the destination among the sources" {
        r del a b
        r sadd a 1 2 3 x
        r sadd b 2 3 y
        assert_equal 2 [r sinterstore a a b]
        assert_equal {2 3} [smembers_sorted a]
        r sadd a 9
        assert_equal 4 [r sunionstore b a b]
        assert_equal {2 3 9 y} [smembers_sorted b]
        assert_equal 1 [r sdiffstore b b a]
        assert_equal {y} [smembers_sorted b]
    }

    test "STORE of an empty result deletes the destination" {
        r del a b d
        r sadd a 1 2
        r sadd b 3 4
        r set d string
        assert_equal 0 [r sinterstore d a b]
        assert_equal 0 [r exists d]
        r sadd d 1
        assert_equal 0 [r sdiffstore d a a]
        assert_equal 0 [r exists d]
        r sadd d 1
        assert_equal 0 [r sunionstore d nokey1 nokey2]
        assert_equal 0 [r exists d]
        r sadd d 1
        assert_equal 0 [r sinterstore d a nokey]
        assert_equal 0 [r exists d]
    }

    test "STORE replaces a destination of another type and drops its TTL" {
        r del a d
        r sadd a 1 2
        r set d string
        r expire d 100
        assert_equal 2 [r sunionstore d a]
        assert_type set d
        assert_equal -1 [r ttl d]
    }

    test "A missing key still has the other keys' types checked" {
        r del nokey str a
        r sadd a 1
        r set str x
        foreach cmd {
            {sinter a nokey str} {sinter a str nokey} {sintercard 3 a nokey str}
            {sinterstore d a nokey str} {sunion nokey str} {sdiff nokey str} {sdiffstore d a nokey str}
        } {
            assert_error "WRONGTYPE*" {r {*}$cmd}
        }
    }

    test "SINTERCARD: numkeys, LIMIT and their errors" {
        r del a b
        r sadd a 1 2 3 4 5 x
        r sadd b 2 3 4 5 6 x
        assert_equal 5 [r sintercard 2 a b]
        assert_equal 5 [r sintercard 2 a b limit 0]
        assert_equal 3 [r sintercard 2 a b limit 3]
        assert_equal 5 [r sintercard 2 a b LIMIT 10]
        assert_equal 6 [r sintercard 1 a]
        assert_equal 0 [r sintercard 2 a nokey]
        assert_error "ERR numkeys should be greater than 0" {r sintercard 0 a}
        assert_error "ERR numkeys should be greater than 0" {r sintercard -1 a}
        assert_error "ERR numkeys should be greater than 0" {r sintercard x a}
        assert_error "ERR Number of keys can't be greater than number of args" {r sintercard 3 a b}
        assert_error "ERR LIMIT can't be negative" {r sintercard 2 a b limit -1}
        assert_error "ERR LIMIT can't be negative" {r sintercard 2 a b limit x}
        assert_error "ERR syntax error" {r sintercard 2 a b limit}
        assert_error "ERR syntax error" {r sintercard 2 a b foo 1}
    }

    test "Big set operations (hashtables, both SDIFF algorithms)" {
        restore_defaults
        r del a b c
        set a {}; set b {}; set c {}
        for {set i 0} {$i < 3000} {incr i} {
            lappend a "k$i"
            if {$i % 2 == 0} { lappend b "k$i" }
            if {$i % 3 == 0} { lappend c "k$i" }
        }
        lappend b extra
        r sadd a {*}$a
        r sadd b {*}$b
        r sadd c {*}$c
        assert_equal [model_inter $a $b $c] [lsort [r sinter a b c]]
        assert_equal [model_diff $a $b $c] [lsort [r sdiff a b c]]
        # A small first set against big ones: the probing algorithm.
        r del small
        r sadd small k1 k2 k3 zz
        assert_equal {k1 zz} [lsort [r sdiff small b c]]
        assert_equal [llength [model_union $a $b $c]] [r sunionstore u a b c]
        assert_storage hashtable u
    } {slow}

    # ---- SSCAN -------------------------------------------------------------------------------------------
    test "SSCAN over a big hashtable with COUNT and MATCH" {
        restore_defaults
        r del s
        set members {}
        for {set i 0} {$i < 1000} {incr i} { lappend members "m$i" }
        r sadd s {*}$members
        assert_storage hashtable s
        lassign [sscan_all s count 10] seen calls
        assert_equal [lsort $members] $seen
        assert_morethan $calls 10
        lassign [sscan_all s match m1*] seen calls
        set expected [lsort [lsearch -all -inline -glob $members m1*]]
        assert_equal $expected $seen
        assert_equal {0 {}} [r sscan nokey 0]
        assert_error "ERR invalid cursor" {r sscan s foo}
        assert_error "ERR syntax error" {r sscan s 0 foo}
    }

    # Redis 7.0 keeps a set of strings in a hashtable and pages it; ours is
    # a listpack up to set-max-listpack-entries, paged the same way (a job
    # queue's tests count on the pages): about COUNT members a call.
    test "SSCAN pages a small set of strings as Redis 7.0 does" {
        restore_defaults
        r del s
        set members {}
        for {set i 0} {$i < 65} {incr i} { lappend members "job:$i" }
        r sadd s {*}$members
        lassign [r sscan s 0 count 50] cursor items
        assert {$cursor != 0}
        assert_range [llength $items] 50 64
        lassign [sscan_all s count 50] seen calls
        assert_equal [lsort $members] $seen
        assert_range $calls 2 5
        lassign [sscan_all s] seen calls
        assert_equal [lsort $members] $seen
        assert_morethan $calls 4
        # COUNT larger than the set: one call, as a hashtable's whole walk
        lassign [r sscan s 0 count 1000] cursor items
        assert_equal 0 $cursor
        assert_equal 65 [llength $items]
    }

    test "SSCAN cursor stays valid when the set changes encoding or shrinks between calls" {
        restore_defaults
        foreach change {grow shrink} {
            r del s
            set members {}
            for {set i 0} {$i < 100} {incr i} { lappend members "m$i" }
            r sadd s {*}$members
            lassign [r sscan s 0 count 20] cursor seen
            if {$change eq "grow"} {
                for {set i 0} {$i < 200} {incr i} { r sadd s "extra$i" }
                assert_storage hashtable s
            } else {
                for {set i 50} {$i < 100} {incr i} { r srem s "m$i" }
                set members [lrange $members 0 49]
            }
            while {$cursor != 0} {
                lassign [r sscan s $cursor count 20] cursor items
                lappend seen {*}$items
            }
            foreach m $members { assert {[lsearch -exact $seen $m] >= 0} }
        }
    }

    test "SSCAN of a compact set with MATCH" {
        restore_defaults
        r del s
        r sadd s 1 12 21 3
        lassign [r sscan s 0 match 1*] cursor items
        assert_equal 0 $cursor
        assert_equal {1 12} [lsort $items]
    }

    # ---- RESP3, digest, COPY, notifications -------------------------------------------------------------
    test "RESP3: set replies are sets, SRANDMEMBER with count an array" {
        restore_defaults
        r del s nokey
        r sadd s a
        set c [redis_client]
        $c hello 3
        $c readraw 1
        assert_equal {~1 $1 a} [raw_reply $c 2 smembers s]
        assert_equal {~1 $1 a} [raw_reply $c 2 sinter s]
        assert_equal {~1 $1 a} [raw_reply $c 2 sunion s nokey]
        assert_equal {~1 $1 a} [raw_reply $c 2 sdiff s nokey]
        assert_equal {~0} [raw_reply $c 0 smembers nokey]
        assert_equal {~0} [raw_reply $c 0 sinter s nokey]
        assert_equal {*1 $1 a} [raw_reply $c 2 srandmember s 1]
        assert_equal {*2 $1 a $1 a} [raw_reply $c 4 srandmember s -2]
        assert_equal {*0} [raw_reply $c 0 srandmember nokey 2]
        assert_equal {$1 a} [raw_reply $c 1 srandmember s]
        assert_equal {_} [raw_reply $c 0 srandmember nokey]
        assert_equal {*2 :1 :0} [raw_reply $c 2 smismember s a b]
        assert_equal {~0} [raw_reply $c 0 spop s 0]
        assert_equal {~0} [raw_reply $c 0 spop nokey 3]
        assert_equal {_} [raw_reply $c 0 spop nokey]
        assert_equal {~1 $1 a} [raw_reply $c 2 spop s 5]
        $c close
    }

    test "RESP2: set replies are arrays" {
        r del s
        r sadd s a
        set c [redis_client -readraw 1]
        assert_equal {*1 $1 a} [raw_reply $c 2 smembers s]
        assert_equal {*0} [raw_reply $c 0 smembers nokey]
        assert_equal {$-1} [raw_reply $c 0 spop nokey]
        assert_equal {*1 $1 a} [raw_reply $c 2 spop s 1]
        $c close
    }

    test "DEBUG DIGEST-VALUE is the same in every encoding" {
        restore_defaults
        r del i l h
        r sadd i 1 -2 300000
        use_encoding hashtable
        r sadd h 300000 1 -2
        assert_storage hashtable h
        restore_defaults
        assert_encoding intset i
        assert_equal [r debug digest-value i] [r debug digest-value h]
        assert_not_equal [r debug digest-value i] [r debug digest-value nokey]
        r sadd i 5
        assert_not_equal [r debug digest-value i] [r debug digest-value h]
    }

    test "DEBUG DIGEST-VALUE of a listpack equals the hashtable's" {
        r del l h
        use_encoding listpack
        r sadd l a 1 bb
        assert_storage listpack l
        use_encoding hashtable
        r sadd h bb 1 a
        assert_storage hashtable h
        restore_defaults
        assert_equal [r debug digest-value l] [r debug digest-value h]
    } {set-7.2}

    foreach enc {intset listpack hashtable} {
        test "COPY duplicates a set ($enc)" {
            set members [sample_members $enc 8]
            make_set s $enc $members
            r del c
            assert_equal 1 [r copy s c]
            assert_storage $enc c
            r sadd c extra
            r srem s [lindex $members 0]
            assert_equal [lsort [concat $members extra]] [smembers_sorted c]
            assert_equal [lsort [lrange $members 1 end]] [smembers_sorted s]
            restore_defaults
        } [enc_tags $enc]
    }

    test "Keyspace notifications of the set commands" {
        restore_defaults
        r del s d a b
        r config set notify-keyspace-events KEA
        set rd [redis_deferring_client]
        $rd psubscribe __keyevent@*
        if {[catch {$rd read} err]} {
            $rd close
            r config set notify-keyspace-events ""
            skip "needs PSUBSCRIBE ($err)"
        }
        r sadd s a b c
        r sadd s a
        r srem s a nope
        r srem s nope
        r smove s d b
        r spop s
        r sadd a 1 2
        r sadd b 2 3
        r sinterstore d a b
        r sunionstore d a b
        r sdiffstore d a a
        r spop b 5
        set expected {
            {sadd s} {srem s} {srem s} {sadd d} {spop s} {del s} {sadd a} {sadd b}
            {sinterstore d} {sunionstore d} {del d} {spop b} {del b}
        }
        set events {}
        foreach _ $expected {
            lassign [$rd read] kind pattern channel key
            lappend events [list [regsub {^__keyevent@[0-9]+__:} $channel ""] $key]
        }
        assert_equal [list {*}$expected] $events
        $rd close
        r config set notify-keyspace-events ""
    }

    test "Sets in the keyspace: TYPE, RENAME, EXPIRE, DEL" {
        r del s s2
        r sadd s a b
        assert_type set s
        r rename s s2
        assert_equal {a b} [smembers_sorted s2]
        r expire s2 100
        r sadd s2 c
        assert_range [r ttl s2] 1 100
        assert_equal 1 [r del s2]
        assert_equal 0 [r exists s2]
    }
}

# SPOP picks at random: what reaches the AOF must be what it removed (SREM
# or DEL), or a replay would pop other members.
start_server {tags {set aof} overrides {appendonly yes appendfsync always}} {
    test "SPOP in every form replays from the AOF to the same sets" {
        restore_defaults
        r del i l h big whole
        r sadd i {*}[sample_members intset 30]
        r sadd l {*}[sample_members listpack 30]
        r sadd h {*}[sample_members hashtable 300]
        for {set j 0} {$j < 3000} {incr j} { lappend many "b$j" }
        r sadd big {*}$many
        r sadd whole a b c
        r spop i
        r spop i 3
        r spop i 20
        r spop l
        r spop l 4
        r spop h 5
        r spop h 250
        r spop big 2500
        r spop whole 10
        r multi
        r spop i
        r spop h 2
        r exec
        set before [r debug digest]
        foreach k {i l h big} { lappend sizes [r scard $k] }
        assert_equal {5 25 43 500} $sizes
        assert_equal 0 [r exists whole]
        assert_equal OK [r debug loadaof]
        assert_equal $before [r debug digest]
    }
}
