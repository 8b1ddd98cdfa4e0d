# moduleapi-scan.tcl -- the scan API of Redis 7.0 modules
# (src/module_scan.c: ScanCursorCreate, ScanCursorRestart,
# ScanCursorDestroy, Scan, ScanKey), through the test module
# tests/modules/mscan.c. Run with --server /usr/bin/redis-server to check
# every expectation against Debian's Redis 7.0.15 loading the same .so.

source [file join $::harness_dir modules.tcl] ;# module_skip_reason, need_modules

# ScanKey's reply as a sorted list of "field=value" items, and its last word.
proc mscan_fields {key args} {
    set reply [r mscan.fields $key {*}$args]
    set items {}
    foreach {f v} [lrange $reply 0 end-1] { lappend items $f=$v }
    return [list [lsort $items] [lindex $reply end]]
}

proc mscan_pairs {flat} {
    set items {}
    foreach {f v} $flat { lappend items $f=$v }
    return [lsort $items]
}

# Steps the shared cursor to its end, running `between` (in the caller's
# frame) after each step; checks each step's {1 0} and the last one's {0 0}.
# Returns the names seen and the number of steps.
proc mscan_walk {{between {}}} {
    set names {}
    set steps 0
    while 1 {
        set reply [r mscan.step]
        incr steps
        lappend names {*}[lrange $reply 0 end-2]
        uplevel 1 $between
        if {[lindex $reply end-1] == 0} break
        assert_equal {1 0} [lrange $reply end-1 end]
    }
    assert_equal {0 0} [lrange $reply end-1 end]
    return [list $names $steps]
}

start_server {tags {module} overrides {enable-module-command yes}} {
    test "Scan: every key once, each with a read handle of its type" {
        need_modules
        r module load [file join $::module_dir mscan.so]
        r flushall
        assert_equal {} [r mscan.all]
        r set s 1
        r rpush l a
        r hset h f v
        r sadd st a
        r zadd z 1 a
        assert_equal {h=hash l=list s=string st=set z=zset} [lsort [r mscan.all]]
        r debug set-active-expire 0
        r set gone x px 1
        after 5
        # a key whose time is up is still handed over. Its handle reads as
        # empty here (each use looks the key up again, and expires it);
        # Redis 7.0's handle holds the value found and reads "string".
        set got [lsearch -all -inline [r mscan.all] gone=*]
        assert {$got eq {gone=empty} || $got eq {gone=string}}
        r debug set-active-expire 1
    }

    test "Scan: a large keyspace, each key exactly once without changes" {
        need_modules
        r flushall
        for {set i 0} {$i < 1000} {incr i} { r set k$i $i }
        set seen [r mscan.all]
        assert_equal 1000 [llength $seen]
        assert_equal 1000 [llength [lsort -unique $seen]]
    }

    test "Scan: one step per call, 0 and errno 0 at the last, then 0 ENOENT; Restart and Destroy" {
        need_modules
        r flushall
        for {set i 0} {$i < 50} {incr i} { r set k$i $i }
        r mscan.create
        lassign [mscan_walk] names steps
        assert {$steps > 1}
        assert_equal 50 [llength [lsort -unique $names]]
        assert_equal {0 ENOENT} [r mscan.step]
        r mscan.restart
        set reply [r mscan.step]
        assert_equal {1 0} [lrange $reply end-1 end]
        r mscan.destroy
        assert_error {*no cursor*} {r mscan.step}
    }

    test "Scan: keys added and deleted between calls; every key present throughout is seen" {
        need_modules
        r flushall
        for {set i 0} {$i < 500} {incr i} { r set stable$i $i }
        for {set i 0} {$i < 300} {incr i} { r set churn$i $i }
        r mscan.create
        set n 0
        # the table grows and shrinks under the cursor
        lassign [mscan_walk {
            if {$n < 600} {
                for {set j 0} {$j < 20} {incr j} { r set new[incr n] x }
                r del churn[expr {$n % 300}] churn[expr {($n + 7) % 300}]
            }
        }] names
        set seen {}
        foreach k $names { dict set seen $k 1 }
        r mscan.destroy
        for {set i 0} {$i < 500} {incr i} {
            assert {[dict exists $seen stable$i]}
        }
    }

    test "Scan: a callback may delete the key it is given" {
        need_modules
        r flushall
        for {set i 0} {$i < 400} {incr i} { r set d$i $i }
        assert_equal 400 [r mscan.delall]
        assert_equal 0 [r dbsize]
    }

    test "Scan: the context's selected database only" {
        need_modules
        r flushall
        r set a 1
        r select 9
        r set b 2
        r set c 3
        assert_equal {b=string c=string} [lsort [r mscan.all]]
        r select 0
        assert_equal {a=string} [r mscan.all]
    }

    test "ScanKey: hash as listpack and as hashtable, every field with its value" {
        need_modules
        r flushall
        r hset small a 1 b 2 c 3
        assert_equal listpack [r object encoding small]
        assert_equal [list {a=1 b=2 c=3} ENOENT] [mscan_fields small]
        r config set hash-max-listpack-entries 128
        for {set i 0} {$i < 300} {incr i} { r hset big f$i v$i }
        assert_equal hashtable [r object encoding big]
        lassign [mscan_fields big] items last
        assert_equal ENOENT $last
        assert_equal [mscan_pairs [r hgetall big]] $items
    }

    test "ScanKey: set as intset and as hashtable, no value" {
        need_modules
        r flushall
        r sadd ints 3 1 2
        assert_equal intset [r object encoding ints]
        assert_equal [list {1=- 2=- 3=-} ENOENT] [mscan_fields ints]
        for {set i 0} {$i < 300} {incr i} { r sadd strs m$i }
        assert_equal hashtable [r object encoding strs]
        lassign [mscan_fields strs] items last
        assert_equal ENOENT $last
        set want {}
        foreach m [r smembers strs] { lappend want $m=- }
        assert_equal [lsort $want] $items
    }

    test "ScanKey: sorted set as listpack and as skiplist, the score as value" {
        need_modules
        r flushall
        r zadd small 1 a 2.5 b -3 c
        assert_equal listpack [r object encoding small]
        assert_equal [list {a=1 b=2.5 c=-3} ENOENT] [mscan_fields small]
        for {set i 0} {$i < 300} {incr i} { r zadd big $i m$i }
        r zadd big 0.5 half
        assert_equal skiplist [r object encoding big]
        lassign [mscan_fields big] items last
        assert_equal ENOENT $last
        assert_equal [mscan_pairs [r zrange big 0 -1 withscores]] $items
    }

    test "ScanKey: wrong types, a missing key and an empty write handle are EINVAL" {
        need_modules
        r flushall
        r set str x
        r rpush lst a
        assert_equal {EINVAL} [r mscan.fields str]
        assert_equal {EINVAL} [r mscan.fields lst]
        assert_equal {EINVAL} [r mscan.fields nosuch]
        assert_equal {EINVAL} [r mscan.fields nosuch w]
        assert_equal 0 [r exists nosuch]
        r module unload mscan
    }
}
