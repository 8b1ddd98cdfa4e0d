# hyperloglog.tcl -- PFADD, PFCOUNT, PFMERGE, PFDEBUG, PFSELFTEST: replies,
# the exact stored bytes, the estimator, and how damaged values are refused.
#
# Design decisions:
# - A HyperLogLog is a string whose bytes must equal what Redis stores for
#   the same commands, on every architecture. The expected bytes (in hex for
#   short values, as length + CRC-32 for long ones) and the exact estimates
#   below were taken from Redis 7.0.15 running the same command sequences,
#   so this file checks byte identity when run against a cross-built server
#   under QEMU (big-endian sparc64, strict-alignment armv7) as much as
#   natively, and it passes against Redis itself
#   (./runtest --server /usr/bin/redis-server --single unit/hyperloglog).
# - Inputs are generated deterministically ("el:0", "el:1", ...), and the
#   estimator is deterministic given the hash, so error bounds never flake.
# - Damaged values are made with SET/SETRANGE/APPEND. What must hold is that
#   the server answers (a result or Redis's error) and stays up; the exact
#   error is asserted where Redis defines it.

set WRONGTYPE_HLL "WRONGTYPE Key is not a valid HyperLogLog string value."
set INVALIDOBJ "INVALIDOBJ Corrupted HLL object detected"

# The exact bytes of a string value, read over a readraw connection.
proc raw_get {key} {
    set c [redis_client -readraw 1]
    set header [$c get $key]
    if {$header eq {$-1}} { set value "" } else { set value [$c read] }
    $c close
    return $value
}

proc hex_of {key} { binary encode hex [raw_get $key] }

# "<length> <crc32>" of a value: a fingerprint for the 12 KB dense ones.
proc fingerprint {key} {
    set v [raw_get $key]
    return "[string length $v] [zlib crc32 $v]"
}

# PFADD key el:from .. el:(to-1), `batch` elements per command.
proc add_range {key from to {batch 100} {prefix el:}} {
    for {set i $from} {$i < $to} {incr i $batch} {
        set els {}
        for {set j $i} {$j < min($i + $batch, $to)} {incr j} { lappend els $prefix$j }
        r pfadd $key {*}$els
    }
}

# A list key, or skip when lists are not implemented.
proc make_list_key {key} {
    r del $key
    if {[catch {r rpush $key a} err]} {
        if {[string match "ERR unknown command*" $err]} { skip "needs RPUSH" }
        error $err
    }
}

start_server {tags {hll}} {
    # ---- replies and the exact bytes of small sketches ----------------------------------

    test "PFADD without elements creates the empty sparse sketch Redis creates" {
        r del e
        assert_equal 1 [r pfadd e]
        assert_equal 48594c4c0100000000000000000000807fff [hex_of e]
        assert_equal 0 [r pfadd e]
        assert_equal 0 [r pfcount e]
        # PFCOUNT caches the estimate: the stale bit of byte 15 is cleared.
        assert_equal 48594c4c0100000000000000000000007fff [hex_of e]
        assert_equal raw [r object encoding e]
    }

    test "PFADD returns 1 only when a register changes" {
        r del s
        assert_equal 1 [r pfadd s foo bar zap]
        assert_equal 48594c4c0100000000000000000000805cb39042078448588058e7 [hex_of s]
        assert_equal 3 [r pfcount s]
        assert_equal 48594c4c0100000003000000000000005cb39042078448588058e7 [hex_of s]
        assert_equal 0 [r pfadd s foo bar]
        assert_equal 0 [r pfadd s zap]
        # Unchanged: the cache stays valid.
        assert_equal 48594c4c0100000003000000000000005cb39042078448588058e7 [hex_of s]
        assert_equal 1 [r pfadd s foo new-element]
        assert_equal 80 [binary encode hex [string index [raw_get s] 15]]
    }

    test "PFCOUNT of a missing key is 0 and creates nothing" {
        r del nokey nokey2
        assert_equal 0 [r pfcount nokey]
        assert_equal 0 [r pfcount nokey nokey2]
        assert_equal 0 [r exists nokey]
    }

    test "Integer-looking and binary elements hash as their bytes" {
        r del ints bin
        r pfadd ints 1 2 3 100 -5 12345678901
        assert_equal 48594c4c0100000000000000000000805ad0844294804d028040708044cf804c5b8c43f3 [hex_of ints]
        set els {}
        for {set i 0} {$i < 256} {incr i} {
            set b [binary format cccc $i [expr {$i * 7}] 0 [expr {$i * 13}]]
            lappend els [string range $b 0 [expr {$i % 5 - 1}]]
        }
        r pfadd bin {*}$els
        assert_equal {505 3891713315} [fingerprint bin]
    }

    test "A sparse sketch built in batches has Redis's bytes" {
        r del sp
        add_range sp 0 300 10
        assert_equal sparse [r pfdebug encoding sp]
        assert_equal {692 4235532819} [fingerprint sp]
        assert_equal c7ea110d8f127d041b5afe03bff7875c2e3acb17 [r debug digest-value sp]
        assert_match "Z:96 v:1,1 z:58 v:2,1 Z:220 v:1,1 z:13 v:1,1 z:36 v:3,1 z:21*" [r pfdebug decode sp]
        assert_equal 303 [r pfcount sp]
    }

    test "One element per PFADD: splits and merges of opcodes as in Redis" {
        r del one
        set rd [redis_deferring_client]
        for {set i 0} {$i < 1500} {incr i} { $rd pfadd one x[expr {$i * 31}] }
        for {set i 0} {$i < 1500} {incr i} { $rd read }
        $rd close
        assert_equal sparse [r pfdebug encoding one]
        assert_equal {2674 2051702674} [fingerprint one]
        assert_equal 1488 [r pfcount one]
    }

    test "Past 3000 bytes the sketch turns dense, with Redis's bytes" {
        r del dn
        add_range dn 0 5000
        assert_equal dense [r pfdebug encoding dn]
        assert_equal {12304 3146701334} [fingerprint dn]
        assert_equal 4959 [r pfcount dn]
        # Growing one element at a time crosses the limit at the same point.
        r del grow
        set rd [redis_deferring_client]
        for {set i 0} {$i < 2500} {incr i} { $rd pfadd grow el:$i }
        for {set i 0} {$i < 2500} {incr i} { $rd read }
        $rd close
        set len [string length [raw_get grow]]
        if {[r pfdebug encoding grow] eq "sparse"} {
            assert_range $len 18 3000
        } else {
            assert_equal 12304 $len
        }
    }

    # These 8-byte elements were made by inverting MurmurHash64A: they hash to
    # register 0 with value 32 (the largest a sparse VAL opcode holds), to
    # register 5000 with 33, to 100 with 40, and to 16383 with 51 (the
    # largest possible).
    test "A register value above 32 makes the sketch dense at once" {
        r del k32 k33 k51 mix
        assert_equal 1 [r pfadd k32 [binary decode hex 01733dd46575678f]]
        assert_equal sparse [r pfdebug encoding k32]
        assert_equal {19 2840623493} [fingerprint k32]
        assert_equal 1 [r pfadd k33 [binary decode hex 1d269d533673fb35]]
        assert_equal dense [r pfdebug encoding k33]
        assert_equal {12304 2999181044} [fingerprint k33]
        assert_equal 1 [r pfadd k51 [binary decode hex 2295e776dc15ca3f]]
        assert_equal {12304 3365057421} [fingerprint k51]
        assert_equal 51 [lindex [r pfdebug getreg k51] 16383]
        assert_equal 1 [r pfcount k51]
        r pfadd mix a b c
        assert_equal 1 [r pfadd mix [binary decode hex 16113bb94c49b940]]
        assert_equal {12304 2546537167} [fingerprint mix]
        assert_equal 4 [r pfcount mix]
    }

    test "100000 distinct elements: Redis's estimate, error well under 2%" {
        r del big
        add_range big 0 100000 1000 ""
        assert_equal {12304 2816614488} [fingerprint big]
        set n [r pfcount big]
        assert_equal 99565 $n
        assert_lessthan [expr {abs($n - 100000) / 100000.0}] 0.02
        # Adding them again changes nothing.
        assert_equal 0 [r pfadd big 1 2 3 99999]
    } {slow}

    test "The estimate stays within 3% at many sizes" {
        r del acc
        set added 0
        foreach target {10 100 1000 5000 20000 50000} {
            add_range acc $added $target 500 acc:
            set added $target
            set n [r pfcount acc]
            assert_lessthan [expr {abs($n - $target) / double($target)}] 0.03 "at $target: $n"
        }
    }

    # ---- several keys ---------------------------------------------------------------------------

    test "PFCOUNT of several keys counts the union and modifies nothing" {
        r del m1 m2
        set els1 {}
        set els2 {}
        for {set i 0} {$i < 100} {incr i} { lappend els1 a$i }
        for {set i 50} {$i < 250} {incr i} { lappend els2 a$i }
        r pfadd m1 {*}$els1
        r pfadd m2 {*}$els2
        set before [list [raw_get m1] [raw_get m2]]
        assert_equal 249 [r pfcount m1 m2]
        assert_equal 249 [r pfcount m1 m2 nokey]
        assert_equal $before [list [raw_get m1] [raw_get m2]]
        assert_equal 105243 [r pfcount sp dn big]
    }

    test "PFMERGE into a new key, into a source, and with dense inputs" {
        r del mdst mdd
        assert_equal OK [r pfmerge mdst m1 m2]
        assert_equal sparse [r pfdebug encoding mdst]
        assert_equal {596 950175667} [fingerprint mdst]
        assert_equal 249 [r pfcount mdst]
        # The destination is one of the sources.
        assert_equal OK [r pfmerge m1 m2]
        assert_equal {596 950175667} [fingerprint m1]
        assert_equal 249 [r pfcount m1]
        # A dense input makes the destination dense.
        assert_equal OK [r pfmerge mdd sp dn]
        assert_equal dense [r pfdebug encoding mdd]
        assert_equal {12304 3146701334} [fingerprint mdd]
        assert_equal 4959 [r pfcount mdd]
    }

    test "PFMERGE of nothing creates an empty sketch" {
        r del new new2 nothere
        assert_equal OK [r pfmerge new]
        assert_equal 48594c4c0100000000000000000000807fff [hex_of new]
        assert_equal OK [r pfmerge new2 nothere]
        assert_equal 48594c4c0100000000000000000000807fff [hex_of new2]
        assert_equal 0 [r pfcount new2]
    }

    test "A sketch copied with SET (embstr) keeps working" {
        r del emb copy
        r set emb [binary decode hex 48594c4c0100000000000000000000807fff]
        assert_equal embstr [r object encoding emb]
        assert_equal 1 [r pfadd emb foo bar zap]
        assert_equal 48594c4c0100000000000000000000805cb39042078448588058e7 [hex_of emb]
        r set copy [raw_get dn]
        assert_equal 4959 [r pfcount copy]
    }

    # ---- the cache --------------------------------------------------------------------------------

    test "PFCOUNT answers from a valid cache and recomputes a stale one" {
        r del c
        r pfadd c a b c d
        r pfcount c
        # A forged but valid cache is believed, as in Redis ...
        r setrange c 8 [binary format w 12345]
        assert_equal 12345 [r pfcount c]
        # ... and a stale one is recomputed and stored.
        r setrange c 15 [binary format c 0x80]
        assert_equal 4 [r pfcount c]
        assert_equal 0400000000000000 [binary encode hex [string range [raw_get c] 8 15]]
    }

    test "PFDEBUG TODENSE keeps the cache bytes, as Redis does" {
        r del td
        r pfadd td p q r
        r pfcount td
        r pfadd td s
        assert_equal 1 [r pfdebug todense td]
        assert_equal 0 [r pfdebug todense td]
        assert_equal {12304 3249533424} [fingerprint td]
        assert_equal 4 [r pfcount td]
    }

    # ---- PFDEBUG, PFSELFTEST ---------------------------------------------------------------

    test "PFDEBUG GETREG returns the 16384 registers (and makes the sketch dense)" {
        r del gr
        r pfadd gr a b c
        set regs [r pfdebug getreg gr]
        assert_equal 16384 [llength $regs]
        set nonzero 0
        foreach v $regs { if {$v} { incr nonzero } }
        assert_equal 3 $nonzero
        assert_equal dense [r pfdebug encoding gr]
        assert_equal $regs [r pfdebug getreg gr]
    }

    test "PFDEBUG errors" {
        r del nokey
        r pfadd d1 a
        assert_error "ERR Unknown PFDEBUG subcommand 'nope'" {r pfdebug nope d1}
        assert_error "ERR The specified key does not exist" {r pfdebug encoding nokey}
        assert_error "ERR HLL encoding is not sparse" {r pfdebug decode dn}
        assert_error "ERR wrong number of arguments for 'pfdebug' command" {r pfdebug encoding}
    }

    test "PFSELFTEST passes" {
        assert_equal OK [r pfselftest]
    } {slow}

    # ---- wrong types and damaged values --------------------------------------------------------

    test "Strings that are not sketches are WRONGTYPE for every command" {
        r set plain bar
        r set int 12345
        r set tooshort HYLL
        foreach k {plain int tooshort} {
            assert_error $WRONGTYPE_HLL {r pfadd $k a}
            assert_error $WRONGTYPE_HLL {r pfcount $k}
            assert_error $WRONGTYPE_HLL {r pfcount sp $k}
            assert_error $WRONGTYPE_HLL {r pfmerge $k sp}
            assert_error $WRONGTYPE_HLL {r pfmerge sp $k}
            assert_error $WRONGTYPE_HLL {r pfdebug encoding $k}
        }
        assert_equal bar [r get plain]
    }

    test "Keys of another type are the generic WRONGTYPE" {
        make_list_key lst
        assert_error "WRONGTYPE Operation against a key holding the wrong kind of value" {r pfadd lst a}
        assert_error "WRONGTYPE Operation against a key holding the wrong kind of value" {r pfcount lst}
        assert_error "WRONGTYPE Operation against a key holding the wrong kind of value" {r pfmerge lst sp}
    }

    test "A broken header is WRONGTYPE: magic, encoding, dense length" {
        r del h
        r pfadd h a b c
        r setrange h 0 0123
        assert_error $WRONGTYPE_HLL {r pfcount h}
        r del h
        r pfadd h a b c
        r setrange h 4 x
        assert_error $WRONGTYPE_HLL {r pfcount h}
        # The internal raw encoding (255) is never valid in a stored value.
        r setrange h 4 [binary format c 255]
        assert_error $WRONGTYPE_HLL {r pfadd h d}
        # A sparse sketch relabelled dense has the wrong length.
        r del h
        r pfadd h a b c
        r setrange h 4 [binary format c 0]
        assert_error $WRONGTYPE_HLL {r pfcount h}
        r del h
        r pfadd h a
        r pfdebug todense h
        r append h x
        assert_error $WRONGTYPE_HLL {r pfcount h}
        r set h [string range [raw_get dn] 0 end-1]
        assert_error $WRONGTYPE_HLL {r pfcount h}
    }

    test "A damaged sparse opcode stream is INVALIDOBJ for every command" {
        r del t
        r pfadd t a b
        set good [raw_get t]
        set cases [list \
            "[string range $good 0 end-1]" \
            "[string range $good 0 15]" \
            "[string range $good 0 15][binary format c 0x7f]" \
            "[string range $good 0 15][binary format c 0][string range $good 16 end]" \
            "${good}hello"]
        foreach bad $cases {
            r set t $bad
            assert_error $INVALIDOBJ {r pfcount t}
            assert_error $INVALIDOBJ {r pfcount t sp}
            assert_error $INVALIDOBJ {r pfmerge dst t}
            assert_error $INVALIDOBJ {r pfmerge t sp}
            assert_error $INVALIDOBJ {r pfdebug todense t}
            assert_equal $bad [raw_get t]
        }
    }

    # Redis 7.0 lets PFADD update a damaged sparse sketch when the damage lies
    # beyond the registers it touches; this server checks the whole value
    # first and refuses it, leaving it unchanged.
    test "PFADD refuses a damaged sparse sketch and leaves it unchanged" {
        r del t
        r pfadd t a b
        set good [raw_get t]
        foreach bad [list "${good}hello" "[string range $good 0 end-1]" \
                         "[string range $good 0 15][binary format c 0][string range $good 16 end]"] {
            r set t $bad
            assert_error $INVALIDOBJ {r pfadd t c d e}
            assert_equal $bad [raw_get t]
        }
    } {strict-hll}

    test "APPEND or SETRANGE on a sketch, then PFCOUNT: an error or a fresh count" {
        r del a
        r pfadd a x y z
        # One more VAL opcode: 16385 registers.
        r append a [binary format c 0x80]
        assert_error $INVALIDOBJ {r pfcount a}
        # Rewriting an opcode in place keeps the stream valid; the stale bit
        # set at the same time makes PFCOUNT recompute.
        r del a
        r pfadd a x
        set v [raw_get a]
        set pos [string first [binary format c 0x80] $v 16]
        if {$pos < 0} { set pos [string first [binary format c 0x84] $v 16] }
        assert_morethan $pos 15
        r setrange a $pos [binary format c 0xfc]
        r setrange a 15 [binary format c 0x80]
        assert_equal 1 [r pfcount a]
    }

    test "Random damage to sparse and dense sketches never crashes the server" {
        expr {srand(4242)}
        set originals [list [raw_get dn] [raw_get sp]]
        for {set round 0} {$round < 200} {incr round} {
            set v [lindex $originals [expr {$round % 2}]]
            set len [string length $v]
            for {set k 0} {$k < 1 + $round % 4} {incr k} {
                set off [expr {int(rand() * $len)}]
                set v [string replace $v $off $off [binary format c [expr {int(rand() * 256)}]]]
            }
            r set fz $v
            catch {r pfcount fz}
            catch {r pfcount fz dn}
            catch {r pfadd fz r$round}
            catch {r pfmerge fzdst fz}
            catch {r pfdebug decode fz}
            if {$round % 20 == 0} { catch {r pfdebug getreg fz} }
        }
        assert_equal PONG [r ping]
    }

    # ---- side effects ------------------------------------------------------------------------------

    test "PFADD and PFMERGE notify 'pfadd'; an unchanged PFADD notifies nothing" {
        r config set notify-keyspace-events E$
        set rd [redis_deferring_client]
        $rd psubscribe __keyevent@*__:*
        $rd read
        r pfadd nt a b
        r pfadd nt a
        r pfmerge nt2 nt
        r set marker 1
        set events {}
        for {set i 0} {$i < 10} {incr i} {
            set msg [$rd read]
            set ev [lindex [split [lindex $msg 2] :] end]
            lappend events "$ev [lindex $msg 3]"
            if {[lindex $msg 3] eq "marker"} break
        }
        $rd close
        r config set notify-keyspace-events ""
        assert_equal {{pfadd nt} {pfadd nt2} {set marker}} $events
    }

    test "DEBUG DIGEST sees a sketch as the string it is" {
        r flushall
        set empty [r debug digest]
        r pfadd dg a b c
        set d1 [r debug digest]
        assert_not_equal $empty $d1
        r set dg2 [raw_get dg]
        r del dg
        r rename dg2 dg
        assert_equal $d1 [r debug digest]
        r pfadd dg a
        assert_equal $d1 [r debug digest]
    }

    test "PFADD arity" {
        assert_error "ERR wrong number of arguments for 'pfadd' command" {r pfadd}
        assert_error "ERR wrong number of arguments for 'pfcount' command" {r pfcount}
        assert_error "ERR wrong number of arguments for 'pfmerge' command" {r pfmerge}
    }
}

start_server {tags {hll}} {
    test "hll-sparse-max-bytes decides when a sparse HLL becomes dense" {
        r config set hll-sparse-max-bytes 30
        r del h
        r pfadd h a b c d e f g h i j k l m n o p
        assert_equal dense [r pfdebug encoding h]
        r config set hll-sparse-max-bytes 3000
        r del h2
        r pfadd h2 a b c d e f g h i j k l m n o p
        assert_equal sparse [r pfdebug encoding h2]
        assert_equal [r pfcount h] [r pfcount h2]
    }
}
