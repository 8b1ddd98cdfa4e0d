# geo.tcl -- the GEO commands: GEOADD (NX, XX, CH), GEOPOS, GEOHASH,
# GEODIST (units), GEORADIUS, GEORADIUSBYMEMBER and their _RO variants,
# GEOSEARCH and GEOSEARCHSTORE (FROMMEMBER/FROMLONLAT, BYRADIUS/BYBOX, ASC,
# DESC, COUNT [ANY], WITH*, STORE/STOREDIST), on both sorted-set encodings;
# RESP3 replies; every error string; what GEOADD and the STORE forms write to
# the AOF, which keyspace events they send and how many changes they count.
#
# Expected replies are golden values taken from Redis 7.0.15 (the digits of
# coordinates and distances included: every port must print the same), and
# the file passes against that server (./runtest --host --port). Where a
# result can be computed in Tcl (which members lie in a circle) it is, with
# a margin around the radius so that Tcl's own rounding cannot decide.

# The two cities of Redis's documentation, as GEOADD stores them.
proc add_sicily {key} {
    r del $key
    r geoadd $key 13.361389 38.115556 Palermo 15.087269 37.502669 Catania
}

# The lines of a raw reply, space separated: the first line of `cmd`, then
# n more.
proc raw_lines {client n args} {
    set lines [list [$client {*}$args]]
    for {set i 0} {$i < $n} {incr i} { lappend lines [$client read] }
    return [join $lines " "]
}

# Haversine in Tcl, metres (Redis's Earth radius).
proc tcl_distance {lon1 lat1 lon2 lat2} {
    set r 6372797.560856
    set d [expr {acos(-1) / 180.0}]
    set u [expr {sin(($lat2 - $lat1) * $d / 2)}]
    set v [expr {sin(($lon2 - $lon1) * $d / 2)}]
    set a [expr {$u * $u + cos($lat1 * $d) * cos($lat2 * $d) * $v * $v}]
    return [expr {2.0 * $r * asin(sqrt($a))}]
}

# Sets the thresholds so that new sorted sets take encoding `enc`.
# STOREDIST keeps the full double. The i386 port (x87, run natively here)
# computes the haversine's sin/cos/asin with its own libm, which differs
# from x86-64's in the last bits of the stored double (the printed,
# 4-decimal distances are identical: see test_geohash). Until geohash.c has
# its own correctly rounded trigonometry, i386 is held to 12 significant
# digits here and every other port to all of them.
proc stored_distances {reply} {
    if {[s arch_bits] != 32 || [llength $::harness::opt(wrapper)] != 0 || $::tcl_platform(machine) ne "x86_64"} {
        return $reply
    }
    set out {}
    foreach {member score} $reply { lappend out $member [format %.12g $score] }
    return $out
}

proc geo_use_encoding {enc} {
    r config set zset-max-listpack-entries [expr {$enc eq "listpack" ? 128 : 0}]
}

start_server {tags {geo}} {
    foreach enc {listpack skiplist} {
        test "GEOADD stores the 52-bit geohash as the score ($enc)" {
            geo_use_encoding $enc
            add_sicily sicily
            assert_encoding $enc sicily
            assert_equal 3479099956230698 [r zscore sicily Palermo]
            assert_equal 3479447370796909 [r zscore sicily Catania]
        }

        test "GEOPOS, GEOHASH and GEODIST of the reference's example ($enc)" {
            geo_use_encoding $enc
            add_sicily sicily
            assert_equal {{13.36138933897018433 38.11555639549629859} {15.08726745843887329 37.50266842333162032} {}} \
                [r geopos sicily Palermo Catania NonExisting]
            assert_equal {sqc8b49rny0 sqdtr74hyu0 {}} [r geohash sicily Palermo Catania NonExisting]
            assert_equal 166274.1516 [r geodist sicily Palermo Catania]
            assert_equal 166274.1516 [r geodist sicily Palermo Catania m]
            assert_equal 166.2742 [r geodist sicily Palermo Catania km]
            assert_equal 103.3182 [r geodist sicily Palermo Catania MI]
            assert_equal 545518.8700 [r geodist sicily Palermo Catania Ft]
            assert_equal {} [r geodist sicily Palermo NonExisting]
        }

        test "GEORADIUS with every WITH option, ASC and DESC ($enc)" {
            geo_use_encoding $enc
            add_sicily sicily
            set palermo {Palermo 190.4424 3479099956230698 {13.36138933897018433 38.11555639549629859}}
            set catania {Catania 56.4413 3479447370796909 {15.08726745843887329 37.50266842333162032}}
            assert_equal [list $palermo $catania] [r georadius sicily 15 37 200 km withdist withhash withcoord]
            assert_equal [list $catania $palermo] [r georadius sicily 15 37 200 km withcoord withhash withdist asc]
            assert_equal [list $palermo $catania] [r georadius sicily 15 37 200 km withdist withhash withcoord desc]
            assert_equal {Catania} [r georadius sicily 15 37 100 km]
            assert_equal {{Catania 56.4413}} [r georadius sicily 15 37 200 km withdist count 1]
            assert_equal {Palermo} [r georadius_ro sicily 15 37 200 km desc count 1]
            assert_equal {{Palermo {13.36138933897018433 38.11555639549629859}} {Catania {15.08726745843887329 37.50266842333162032}}} \
                [r georadius sicily 15 37 200 km withcoord]
        }

        test "GEORADIUSBYMEMBER and GEOSEARCH FROMMEMBER/FROMLONLAT BYRADIUS/BYBOX ($enc)" {
            geo_use_encoding $enc
            add_sicily sicily
            assert_equal {{Palermo 0.0000} {Catania 166.2742}} [r georadiusbymember sicily Palermo 200 km withdist]
            assert_equal {{Palermo 0.0000}} [r georadiusbymember_ro sicily Palermo 100 km withdist asc]
            assert_equal {Palermo Catania} [r geosearch sicily frommember Palermo byradius 200 km asc]
            assert_equal {Catania Palermo} [r geosearch sicily fromlonlat 15 37 bybox 400 400 km asc]
            assert_equal {Catania} [r geosearch sicily fromlonlat 15 37 bybox 200 200 km asc]
            assert_equal {{Palermo 166.2742} {Catania 0.0000}} [r geosearch sicily frommember Catania bybox 400 400 km withdist desc]
            # Palermo is about 68 km north of Catania and 151 km west along its
            # parallel: a box 130 km high, or 300 km wide, leaves it out
            assert_equal {Catania} [r geosearch sicily frommember Catania bybox 400 130 km]
            assert_equal {Catania} [r geosearch sicily frommember Catania bybox 300 400 km]
        }
    }

    test "Points at the range limits, and scores no GEOADD writes" {
        r del e
        assert_equal 5 [r geoadd e 180 85.05112878 ne -180 -85.05112878 sw 0 0 z 180 0 e180 -180 0 w180]
        assert_equal {sw 0 w180 1125899906842624 z 3377699720527872 e180 10133099161583616 ne 13510798882111488} \
            [r zrange e 0 -1 withscores]
        assert_equal {{180 85.0511287799999991} {-179.99999731779098511 -85.05112751263942528} {0.00000268220901489 0.00000126736058093} {180 0.00000126736058093} {-179.99999731779098511 0.00000126736058093}} \
            [r geopos e ne sw z e180 w180]
        assert_equal {bp05b5048p0 00bh0hbj200 s0000000000 80000000000 80000000000} [r geohash e ne sw z e180 w180]
        r zadd e -1 neg 1e30 huge 1.5 frac
        assert_equal {{180 85.0511287799999991} {-179.99999731779098511 -85.05112751263942528} {-179.99999731779098511 -85.05112497791824921}} \
            [r geopos e neg huge frac]
        assert_equal {bp05b5048p0 00bh0hbj200 00bh0hbj210} [r geohash e neg huge frac]
        assert_equal 9459.9224 [r geodist e sw w180 km]
        assert_equal {{}} [r geopos nosuchkey a]
        assert_equal {{} {}} [r geopos nosuchkey a b]
        assert_equal {{}} [r geohash nosuchkey a]
        assert_equal {} [r geodist nosuchkey a b]
    }

    test "Distances are rounded as the reference rounds them (not printf's %.4f)" {
        # 4947494.31254999990 m: "%.4f" would print ...3125
        r del rnd
        r zadd rnd 875699003552875 a 447043673876457 b
        assert_equal 4947494.3126 [r geodist rnd a b]
        assert_equal 4947.4943 [r geodist rnd a b km]
        assert_equal 3074.2381 [r geodist rnd a b mi]
        assert_equal 16231936.7210 [r geodist rnd a b ft]
    }

    test "GEOADD NX, XX and CH" {
        r del g
        assert_equal 2 [r geoadd g nx ch 1 1 a 2 2 b]
        assert_equal 1 [r geoadd g xx ch 1.5 1 a]
        assert_equal 0 [r geoadd g xx 1.5 1 a]
        assert_equal 0 [r geoadd g xx 3 3 c]
        assert_equal 1 [r geoadd g ch 1 1 a]
        assert_equal 1 [r geoadd g nx 5 5 a 6 6 c]
        assert_equal 3377822707026402 [r zscore g a]
        assert_equal {a b c} [r zrange g 0 -1]
        assert_equal 0 [r geoadd g 1 1 a]
    }

    test "GEOADD errors" {
        r del g
        assert_error "ERR invalid longitude,latitude pair 200.000000,1.000000" {r geoadd g 200 1 a}
        assert_error "ERR invalid longitude,latitude pair 1.000000,86.000000" {r geoadd g 1 86 a}
        assert_error "ERR invalid longitude,latitude pair 1.000000,-85.051129" {r geoadd g 1 -85.05112879 a}
        assert_error "ERR value is not a valid float" {r geoadd g abc 1 a}
        assert_error "ERR value is not a valid float" {r geoadd g 1 nan a}
        assert_error "ERR syntax error" {r geoadd g nx xx 1 1 a}
        assert_error "ERR syntax error" {r geoadd g 1 1 a 2 2}
        assert_error "ERR syntax error" {r geoadd g ch ch ch}
        assert_error "ERR syntax error" {r geoadd g nx 1 1}
        assert_error "ERR wrong number of arguments for 'geoadd' command" {r geoadd g 1 1}
        # a bad pair anywhere adds nothing
        assert_error "ERR invalid*" {r geoadd g 1 1 a 2 2 b 181 0 c}
        assert_equal 0 [r exists g]
    }

    test "Search option errors, in the reference's order" {
        add_sicily g
        assert_error "ERR radius cannot be negative" {r georadius g 1 1 -1 km}
        assert_error "ERR need numeric radius" {r georadius g 1 1 abc km}
        assert_error "ERR unsupported unit provided. please use M, KM, FT, MI" {r georadius g 1 1 1 parsec}
        assert_error "ERR unsupported unit provided. please use M, KM, FT, MI" {r geodist g Palermo Catania parsec}
        assert_error "ERR syntax error" {r geodist g Palermo Catania km extra}
        assert_error "ERR COUNT must be > 0" {r georadius g 1 1 1 km count 0}
        assert_error "ERR COUNT must be > 0" {r georadius g 1 1 1 km count -1}
        assert_error "ERR value is not an integer or out of range" {r georadius g 1 1 1 km count abc}
        assert_error "ERR the ANY argument requires COUNT argument" {r georadius g 1 1 1 km any}
        assert_error "ERR STORE option in GEORADIUS is not compatible with WITHDIST, WITHHASH and WITHCOORD options" \
            {r georadius g 1 1 1 km store x withdist}
        assert_error "ERR GEOSEARCHSTORE is not compatible with WITHDIST, WITHHASH and WITHCOORD options" \
            {r geosearchstore x g frommember Palermo byradius 1 km withhash}
        assert_error "ERR syntax error" {r georadius_ro g 1 1 1 km store x}
        assert_error "ERR syntax error" {r georadiusbymember_ro g Palermo 1 km storedist x}
        assert_error "ERR syntax error" {r georadius g 1 1 1 km count}
        assert_error "ERR syntax error" {r georadius g 1 1 1 km store}
        assert_error "ERR syntax error" {r georadius g 1 1 1 km bybox 1 1 km}
        assert_error "ERR invalid longitude,latitude pair 200.000000,1.000000" {r georadius g 200 1 1 km}
        assert_error "ERR could not decode requested zset member" {r georadiusbymember g nosuch 1 km}
        assert_error "ERR could not decode requested zset member" {r geosearch g frommember nosuch byradius 1 km}
        assert_error "ERR syntax error" {r geosearch g frommember Palermo fromlonlat 1 1 byradius 1 km}
        assert_error "ERR syntax error" {r geosearch g fromlonlat 1 1 byradius 1 km bybox 1 1 km}
        assert_error "ERR syntax error" {r geosearch g fromlonlat 1 1 byradius 1}
        assert_error "ERR syntax error" {r geosearch g fromlonlat 1 1 byradius 1 km storedist}
        assert_error "ERR syntax error" {r geosearchstore x g frommember Palermo byradius 1 km store y}
        assert_error "ERR syntax error" {r geosearch g frommember Palermo byradius 1 km store y}
        assert_error "ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for geosearch" \
            {r geosearch g byradius 1 km asc desc}
        assert_error "ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for GeoSearchStore" \
            {r GeoSearchStore x g byradius 1 km asc count 1}
        assert_error "ERR exactly one of BYRADIUS and BYBOX can be specified for geosearch" \
            {r geosearch g frommember Palermo asc withdist withhash}
        assert_error "ERR height or width cannot be negative" {r geosearch g fromlonlat 1 1 bybox 1 -1 km}
        assert_error "ERR need numeric width" {r geosearch g fromlonlat 1 1 bybox abc 1 km}
        assert_error "ERR need numeric height" {r geosearch g fromlonlat 1 1 bybox 1 abc km}
        assert_error "ERR unsupported unit provided. please use M, KM, FT, MI" {r geosearch g fromlonlat 1 1 bybox 1 1 parsec}
        assert_error "ERR invalid longitude,latitude pair 1.000000,90.000000" {r geosearch g fromlonlat 1 90 byradius 1 km}
        assert_error "ERR wrong number of arguments for 'geosearch' command" {r geosearch g byradius 1 km}
        assert_error "ERR wrong number of arguments for 'georadius' command" {r georadius g 1 1 1}
    }

    test "Wrong type, and a missing key" {
        r del s
        r set s x
        foreach cmd {{geoadd s 1 1 a} {geopos s a} {geodist s a b} {geohash s a} {georadius s 1 1 1 km}
                     {georadiusbymember s a 1 km} {geosearch s frommember a byradius 1 km}
                     {geosearchstore d s fromlonlat 1 1 byradius 1 km}} {
            assert_error "WRONGTYPE Operation against a key holding the wrong kind of value" {r {*}$cmd}
        }
        r del nokey
        assert_equal {} [r geosearch nokey frommember a byradius 1 km]
        assert_equal {} [r georadius nokey 1 1 1 km]
        # on a missing key GEORADIUSBYMEMBER does not look at the radius
        assert_equal {} [r georadiusbymember nokey m abc km]
        assert_equal 0 [r georadiusbymember nokey m 1 km store d]
        assert_error "ERR STORE option in GEORADIUS*" {r georadiusbymember nokey m 1 km withdist store d}
        assert_error "ERR exactly one of BYRADIUS*" {r geosearch nokey frommember a asc desc withdist}
    }

    test "COUNT ANY stops at the first members found; a repeated option takes its last value" {
        r del g
        r geoadd g 1 1 a 1.001 1 b 1.002 1 c 1.003 1 d
        assert_equal 2 [llength [r geosearch g fromlonlat 1 1 byradius 10 km count 2 any]]
        assert_equal {a b} [r geosearch g fromlonlat 1 1 byradius 10 km count 2 any asc]
        assert_equal {a b c} [r geosearch g fromlonlat 1 1 byradius 10 km count 1 count 3]
        assert_equal {d c} [r geosearch g fromlonlat 1 1 byradius 10 km asc desc count 2]
    }

    test "Members at equal distances come out in the reference's order" {
        r del ties
        r geoadd ties 1 1 a 1.001 1 b 1 1 c 1 1.001 d 1 1 e 0.999 1 f 1 1 g 1.001 1 h 1 1 i 1 0.999 j
        assert_equal {f j a c e g i b h d} [r geosearch ties fromlonlat 1 1 byradius 1 km]
        assert_equal {a c e g i b h f j d} [r geosearch ties fromlonlat 1 1 byradius 1 km asc]
        # COUNT without ANY: the reference sorts only the places kept
        assert_equal {c g i} [r geosearch ties fromlonlat 1 1 byradius 1 km asc count 3]
        assert_equal {c g i a e h b} [r geosearch ties fromlonlat 1 1 byradius 1 km asc count 7]
        assert_equal {d j f h} [r geosearch ties fromlonlat 1 1 byradius 1 km desc count 4]
        assert_equal {f j a} [r geosearch ties fromlonlat 1 1 byradius 1 km count 3 any]
    }

    foreach enc {listpack skiplist} {
        test "GEORADIUS STORE/STOREDIST and GEOSEARCHSTORE ($enc source)" {
            geo_use_encoding $enc
            add_sicily sicily
            r config set zset-max-listpack-entries 128
            r del dst
            assert_equal 2 [r georadius sicily 15 37 200 km store dst]
            assert_equal {Palermo 3479099956230698 Catania 3479447370796909} [r zrange dst 0 -1 withscores]
            assert_encoding listpack dst
            assert_equal 2 [r georadius sicily 15 37 200 km storedist dst]
            assert_equal [stored_distances {Catania 56.441257870158204 Palermo 190.44242984775784}] \
                [stored_distances [r zrange dst 0 -1 withscores]]
            assert_equal 1 [r georadius sicily 15 37 200 km storedist dst count 1]
            assert_equal [stored_distances {Catania 56.441257870158204}] [stored_distances [r zrange dst 0 -1 withscores]]
            assert_equal 2 [r georadiusbymember sicily Palermo 200 km store dst]
            assert_equal 2 [r geosearchstore dst sicily fromlonlat 15 37 byradius 200 km]
            assert_equal {Palermo 3479099956230698 Catania 3479447370796909} [r zrange dst 0 -1 withscores]
            assert_equal 2 [r geosearchstore dst sicily fromlonlat 15 37 bybox 400 400 km storedist]
            assert_equal [stored_distances {Catania 56.441257870158204 Palermo 190.44242984775784}] \
                [stored_distances [r zrange dst 0 -1 withscores]]
            # an empty result deletes the destination
            assert_equal 0 [r geosearchstore dst sicily fromlonlat 15 37 byradius 1 km]
            assert_equal 0 [r exists dst]
            r set dst x
            assert_equal 0 [r georadius sicily 15 37 1 km store dst]
            assert_equal 0 [r exists dst]
            r set dst x
            assert_equal 0 [r georadius nosuchkey 15 37 1 km store dst]
            assert_equal 0 [r exists dst]
            # the destination is replaced, its TTL goes
            r set dst x ex 100
            assert_equal 1 [r georadius sicily 15 37 100 km store dst]
            assert_equal -1 [r ttl dst]
            assert_equal zset [r type dst]
        }
    }

    test "A stored result of more members than the listpack holds is a skiplist" {
        r config set zset-max-listpack-entries 4
        r del many dst
        for {set i 0} {$i < 10} {incr i} { r geoadd many [expr {10 + $i * 0.01}] 20 m$i }
        assert_equal 10 [r geosearchstore dst many fromlonlat 10 20 byradius 50 km]
        assert_encoding skiplist dst
        assert_equal 3 [r geosearchstore dst many fromlonlat 10 20 byradius 50 km count 3]
        assert_encoding listpack dst
        r config set zset-max-listpack-entries 128
    }

    test "RESP3: coordinates are doubles, distances stay bulk strings, missing members are nulls" {
        add_sicily sicily
        set c [redis_client]
        $c hello 3
        $c readraw 1
        assert_equal {*2 *2 ,13.36138933897018433 ,38.11555639549629859 _} [raw_lines $c 4 geopos sicily Palermo nosuch]
        assert_equal {$11 166274.1516} [raw_lines $c 1 geodist sicily Palermo Catania]
        assert_equal {_} [raw_lines $c 0 geodist sicily Palermo nosuch]
        assert_equal {*2 $11 sqc8b49rny0 _} [raw_lines $c 3 geohash sicily Palermo nosuch]
        assert_equal {*1 *4 $7 Catania $7 56.4413 :3479447370796909 *2 ,15.08726745843887329 ,37.50266842333162032} \
            [raw_lines $c 9 georadius sicily 15 37 100 km withdist withhash withcoord]
        assert_equal {*0} [raw_lines $c 0 geosearch nosuchkey frommember a byradius 1 km]
        $c close
    } {resp3}

    test "RESP2: a missing member's position is a null array" {
        add_sicily sicily
        set c [redis_client]
        $c readraw 1
        assert_equal {*1 *-1} [raw_lines $c 1 geopos sicily nosuch]
        assert_equal {*1 $-1} [raw_lines $c 1 geohash sicily nosuch]
        $c close
    }

    test "GEOSEARCH finds what a Tcl haversine puts inside (both encodings, radius and box)" {
        foreach enc {listpack skiplist} {
            geo_use_encoding $enc
            r del pts
            set points {}
            expr {srand(7)}
            for {set i 0} {$i < 100} {incr i} {
                set lon [expr {12 + rand() * 4}]
                set lat [expr {36 + rand() * 3}]
                r geoadd pts $lon $lat p$i
                lappend points p$i {*}[r geopos pts p$i]
            }
            assert_encoding $enc pts
            foreach {clon clat radius} {14 37.5 50 13 38 120 15.5 36.5 200 14 37.5 5} {
                set found [r geosearch pts fromlonlat $clon $clat byradius $radius km]
                foreach {m xy} $points {
                    set d [expr {[tcl_distance $clon $clat {*}$xy] / 1000.0}]
                    if {$d < $radius * 0.9999} { assert {[lsearch -exact $found $m] >= 0} "$m at $d km not found" }
                    if {$d > $radius * 1.0001} { assert {[lsearch -exact $found $m] < 0} "$m at $d km found" }
                }
                # sorted by distance, and the distances are those GEODIST gives
                set prev -1
                foreach item [r geosearch pts fromlonlat $clon $clat byradius $radius km asc withdist] {
                    lassign $item m dist
                    assert {$dist >= $prev}
                    set prev $dist
                }
            }
        }
        r config set zset-max-listpack-entries 128
    }
}

start_server {tags {geo aof needs:restart} overrides {appendonly yes appendfsync always}} {
    proc geo_aof_text {} {
        set text ""
        foreach path [lsort [glob -nocomplain -directory [file join [srv dir] appendonlydir] *.incr.aof]] {
            set fd [open $path rb]
            append text [read $fd]
            close $fd
        }
        return $text
    }

    test "GEOADD is written as the ZADD it did; the STORE forms as they are" {
        r geoadd g nx ch 1 1 a 2 2 b
        r geoadd g xx 1 1 a
        r georadius g 1 1 500 km store dst
        r geosearchstore dst2 g frommember a byradius 1000 km storedist
        set text [geo_aof_text]
        assert_match "*\$4\r\nzadd\r\n\$1\r\ng\r\n\$2\r\nnx\r\n\$2\r\nch\r\n\$16\r\n3377822707026402\r\n\$1\r\na\r\n\$16\r\n3378191666521995\r\n\$1\r\nb\r\n*" $text
        assert_no_match "*geoadd*" $text
        # the GEOADD that changed nothing is not written
        assert_equal 1 [regexp -all {zadd} $text]
        assert_match "*\$9\r\ngeoradius\r\n\$1\r\ng\r\n*\$5\r\nstore\r\n\$3\r\ndst\r\n*" $text
        assert_match "*\$14\r\ngeosearchstore\r\n\$4\r\ndst2\r\n*\$9\r\nstoredist\r\n*" $text
        set digest [r debug digest]
        r debug loadaof
        assert_equal $digest [r debug digest]
    }
}

start_server {tags {geo}} {
    test "Keyspace events: GEOADD sends zadd, the STORE forms georadiusstore/geosearchstore or del" {
        r config set notify-keyspace-events KEA
        set rd [redis_deferring_client]
        $rd psubscribe __keyevent*
        $rd read
        r geoadd g 1 1 a 2 2 b
        r geoadd g 1 1 a
        r georadius g 1 1 500 km store dst
        r geosearchstore dst g frommember a byradius 1 m storedist
        r georadius g 50 50 1 m store dst
        r set marker 1
        set events {}
        for {set i 0} {$i < 5} {incr i} {
            set msg [$rd read]
            lappend events [lindex [split [lindex $msg 2] :] 1] [lindex $msg 3]
        }
        assert_equal {zadd g georadiusstore dst geosearchstore dst del dst set marker} $events
        $rd close
        r config set notify-keyspace-events ""
    }

    test "The STORE forms count one change per stored point (rdb_changes_since_last_save), as 7.0" {
        r del g dst dst2 dst3
        r geoadd g 13.361389 38.115556 Palermo 15.087269 37.502669 Catania 12.5 41.9 Rome 2.35 48.85 Paris
        set changes {}
        foreach cmd {
            {georadius g 15 37 200 km store dst}
            {georadius g 15 37 2000 km storedist dst}
            {geosearchstore dst2 g fromlonlat 15 37 byradius 5000 km}
            {geosearchstore dst2 g fromlonlat 15 37 byradius 5000 km count 2}
            {georadiusbymember g Rome 10 km store dst3}
            {geosearchstore dst2 g fromlonlat 0 0 byradius 1 km}
            {geosearchstore dst2 g fromlonlat 0 0 byradius 1 km}
            {geosearchstore dst4 nosuch fromlonlat 0 0 byradius 1 km}
            {georadius nosuch 0 0 1 km store dst}
        } {
            set before [s rdb_changes_since_last_save]
            r {*}$cmd
            lappend changes [expr {[s rdb_changes_since_last_save] - $before}]
        }
        # figures from Redis 7.0.15: stored points, or 1 for a deleted destination
        assert_equal {2 4 4 2 1 1 0 0 1} $changes
    }
}
