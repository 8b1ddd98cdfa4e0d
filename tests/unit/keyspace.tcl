# keyspace.tcl -- the generic keyspace commands: DEL/UNLINK, EXISTS, TOUCH,
# TYPE, RENAME/RENAMENX, MOVE, COPY, KEYS, SCAN, RANDOMKEY, DBSIZE,
# FLUSHDB/FLUSHALL, SWAPDB, SELECT between databases, and OBJECT.
#
# The SCAN tests check the guarantee clients rely on rather than a cursor
# sequence: every key present for the whole iteration is returned at least
# once, even while keys are added and removed (and the table rehashes)
# between calls, and nothing that never existed is returned.
#
# The server is started with the default 16 databases.

# Runs a full SCAN with ARGS (MATCH/COUNT/TYPE), calling BETWEEN (a script
# run in the caller) after each call; returns the keys seen, deduplicated.
proc scan_all {args} {
    set between ""
    if {[lindex $args 0] eq "-between"} {
        set between [lindex $args 1]
        set args [lrange $args 2 end]
    }
    set cursor 0
    set seen {}
    set calls 0
    while 1 {
        lassign [r scan $cursor {*}$args] cursor keys
        foreach k $keys { dict set seen $k 1 }
        incr calls
        if {$cursor eq "0"} { break }
        if {$calls > 100000} { fail "SCAN did not finish after $calls calls" }
        if {$between ne ""} { uplevel 1 $between }
    }
    return [dict keys $seen]
}

proc make_list_key {key} {
    r del $key
    if {[catch {r rpush $key a b c} err]} {
        if {[string match "ERR unknown command*" $err]} {
            skip "needs RPUSH (lists are not implemented yet)"
        }
        error $err
    }
}

start_server {tags {keyspace}} {
    test "DEL removes keys and counts the ones that existed" {
        r mset a 1 b 2 c 3
        assert_equal 2 [r del a b nosuchkey]
        assert_equal 0 [r exists a]
        assert_equal 1 [r exists c]
        assert_equal 0 [r del a]
        # A key named twice is deleted (and counted) once.
        assert_equal 1 [r del c c]
    }

    test "UNLINK removes keys like DEL" {
        r mset a 1 b [string repeat x 100000]
        assert_equal 2 [r unlink a b nosuchkey]
        assert_equal 0 [r exists a b]
    }

    test "EXISTS counts every argument, duplicates included" {
        r del a b
        r set a 1
        assert_equal 1 [r exists a]
        assert_equal 2 [r exists a a]
        assert_equal 1 [r exists a b]
        assert_equal 0 [r exists b]
    }

    test "TOUCH counts the existing keys" {
        r mset a 1 b 2
        r del c
        assert_equal 2 [r touch a b c]
        assert_equal 0 [r touch c]
    }

    test "TYPE of a string, of a missing key" {
        r set a 1
        assert_equal string [r type a]
        r del a
        assert_equal none [r type a]
    }

    test "Keyspace commands check their arity" {
        foreach {cmd args} {
            del {} unlink {} exists {} touch {} type {} type {a b}
            rename {a} rename {a b c} renamenx {a} move {a} copy {a}
            keys {} keys {a b} scan {} randomkey {x} dbsize {x}
            swapdb {0} select {} select {0 1} object {}
        } {
            assert_error "ERR wrong number of arguments for '$cmd' command" \
                [list r $cmd {*}$args]
        }
    }

    test "Keys are binary safe" {
        set key "a\x00b\r\n\xff"
        r set $key v
        assert_equal v [r get $key]
        assert_equal 1 [r exists $key]
        assert [expr {[lsearch -exact [r keys *] $key] >= 0}]
        assert_equal 1 [r del $key]
    }

    # ---- RENAME / RENAMENX -------------------------------------------------------------

    test "RENAME moves the value and the TTL" {
        r del a b
        r set a v ex 100
        assert_equal OK [r rename a b]
        assert_equal 0 [r exists a]
        assert_equal v [r get b]
        assert_range [r ttl b] 95 100
    }

    test "RENAME overwrites the destination and its TTL" {
        r set a v1
        r set b v2 ex 100
        r rename a b
        assert_equal v1 [r get b]
        assert_equal -1 [r ttl b]
    }

    test "RENAME of a missing key" {
        r del a b
        assert_error "ERR no such key" {r rename a b}
        assert_error "ERR no such key" {r renamenx a b}
        assert_error "ERR no such key" {r rename a a}
    }

    test "RENAME a key to itself keeps it" {
        r set a v ex 100
        assert_equal OK [r rename a a]
        assert_equal v [r get a]
        assert_range [r ttl a] 95 100
        assert_equal 0 [r renamenx a a]
        assert_equal v [r get a]
    }

    test "RENAMENX only renames to a missing key" {
        r del a b
        r set a 1
        r set b 2
        assert_equal 0 [r renamenx a b]
        assert_equal {1 2} [r mget a b]
        r del b
        assert_equal 1 [r renamenx a b]
        assert_equal {{} 1} [r mget a b]
    }

    test "RENAME keeps int encoding and large values intact" {
        r set a 12345
        r rename a b
        assert_equal int [r object encoding b]
        set big [string repeat "abc\x00" 50000]
        r set a $big
        r rename a b
        assert_equal $big [r get b]
    }

    # ---- SELECT / MOVE ------------------------------------------------------------------

    test "Databases are separate keyspaces" {
        r select 0
        r set shared in0
        r select 1
        r del shared
        assert_equal 0 [r exists shared]
        r set shared in1
        r select 0
        assert_equal in0 [r get shared]
        r select 1
        assert_equal in1 [r get shared]
        r flushdb
        r select 0
        assert_equal in0 [r get shared]
    }

    test "SELECT with a bad index" {
        assert_error "ERR DB index is out of range" {r select 16}
        assert_error "ERR DB index is out of range" {r select -1}
        assert_error "ERR value is not an integer or out of range" {r select abc}
        assert_error "ERR value is out of range, value must between -2147483648 and 2147483647" \
            {r select 99999999999}
        r set stillhere 1
        assert_equal 1 [r exists stillhere]
    }

    test "MOVE moves a key to another database with its TTL" {
        r select 1
        r flushdb
        r select 0
        r set m v ex 100
        assert_equal 1 [r move m 1]
        assert_equal 0 [r exists m]
        r select 1
        assert_equal v [r get m]
        assert_range [r ttl m] 95 100
        r select 0
    }

    test "MOVE refuses when the destination has the key" {
        r select 1
        r set m there
        r select 0
        r set m here
        assert_equal 0 [r move m 1]
        assert_equal here [r get m]
        r select 1
        assert_equal there [r get m]
        r select 0
    }

    test "MOVE of a missing key, to the same or a bad database" {
        r del nokey
        assert_equal 0 [r move nokey 1]
        r set m v
        assert_error "ERR source and destination objects are the same" {r move m 0}
        assert_error "ERR DB index is out of range" {r move m 16}
        assert_error "ERR DB index is out of range" {r move m -1}
        assert_error "ERR value is not an integer or out of range" {r move m x}
        assert_equal v [r get m]
    }

    # ---- COPY ---------------------------------------------------------------------------

    test "COPY duplicates value and TTL, the copy is independent" {
        r del src dst
        r set src hello ex 100
        assert_equal 1 [r copy src dst]
        assert_equal hello [r get dst]
        assert_range [r ttl dst] 95 100
        r append dst " world"
        assert_equal hello [r get src]
        assert_equal "hello world" [r get dst]
    }

    test "COPY without a TTL gives a copy without a TTL" {
        r del src dst
        r set src 42
        r copy src dst
        assert_equal -1 [r ttl dst]
        assert_equal 43 [r incr dst]
        assert_equal 42 [r get src]
    }

    test "COPY does not overwrite without REPLACE" {
        r set src new
        r set dst old ex 100
        assert_equal 0 [r copy src dst]
        assert_equal old [r get dst]
        assert_equal 1 [r copy src dst replace]
        assert_equal new [r get dst]
        assert_equal -1 [r ttl dst]
    }

    test "COPY of a missing key" {
        r del src dst
        assert_equal 0 [r copy src dst]
        assert_equal 0 [r exists dst]
    }

    test "COPY to another database" {
        r select 2
        r flushdb
        r select 0
        r set src v
        assert_equal 1 [r copy src src db 2]
        assert_equal 1 [r copy src other DB 2]
        assert_equal 0 [r copy src other db 2]
        assert_equal 1 [r copy src other db 2 replace]
        r select 2
        assert_equal {v v} [r mget src other]
        r select 0
        assert_equal 0 [r exists other]
    }

    test "COPY errors" {
        r set src v
        assert_error "ERR source and destination objects are the same" {r copy src src}
        assert_error "ERR source and destination objects are the same" {r copy src src db 0}
        assert_error "ERR DB index is out of range" {r copy src dst db 16}
        assert_error "ERR value is not an integer or out of range" {r copy src dst db x}
        assert_error "ERR syntax error" {r copy src dst foo}
        assert_error "ERR syntax error" {r copy src dst db}
    }

    # ---- KEYS ---------------------------------------------------------------------------

    test "KEYS with glob patterns" {
        r flushdb
        foreach k {hello hallo hxllo hllo heeeello h*llo h?llo other} { r set $k 1 }
        assert_equal [lsort {hello hallo hxllo hllo heeeello h*llo h?llo}] [lsort [r keys h*llo]]
        assert_equal [lsort {hello hallo hxllo h*llo h?llo}] [lsort [r keys h?llo]]
        assert_equal [lsort {hello hallo}] [lsort [r keys h\[ae\]llo]]
        assert_equal [lsort {hallo hxllo h*llo h?llo}] [lsort [r keys h\[^e\]llo]]
        assert_equal [lsort {hallo}] [lsort [r keys h\[a-b\]llo]]
        assert_equal {h*llo} [r keys {h\*llo}]
        assert_equal {h?llo} [r keys {h\?llo}]
        assert_equal {other} [r keys other]
        assert_equal {} [r keys nomatch*]
        assert_equal 8 [llength [r keys *]]
    }

    test "KEYS on an empty database is an empty array" {
        r flushdb
        assert_equal {} [r keys *]
        set c [redis_client -readraw 1]
        assert_equal {*0} [$c keys *]
        $c close
    }

    test "KEYS returns every key of a large keyspace exactly once" {
        r flushdb
        for {set i 0} {$i < 1000} {incr i} { r set key:$i $i }
        set keys [r keys key:*]
        assert_equal 1000 [llength $keys]
        assert_equal 1000 [llength [lsort -unique $keys]]
        assert_equal 111 [llength [r keys key:1*]]
    }

    test "KEYS with a large reply between other replies in a pipeline" {
        r flushdb
        for {set i 0} {$i < 20000} {incr i 1000} {
            set pairs {}
            for {set j $i} {$j < $i + 1000} {incr j} { lappend pairs key:$j $j }
            r mset {*}$pairs
        }
        set big [string repeat v 30000]
        r set big $big
        set rd [redis_deferring_client]
        $rd get big
        $rd keys key:*
        $rd keys nomatch*
        $rd keys key:1999*
        $rd get big
        $rd ping
        $rd flush
        assert_equal $big [$rd read]
        set keys [$rd read]
        assert_equal 20000 [llength $keys]
        assert_equal 20000 [llength [lsort -unique $keys]]
        assert_equal {} [$rd read]
        assert_equal {key:1999 key:19990 key:19991 key:19992 key:19993 key:19994 key:19995 key:19996 key:19997 key:19998 key:19999} \
            [lsort [$rd read]]
        assert_equal $big [$rd read]
        assert_equal PONG [$rd read]
        $rd close
        r flushdb
    }

    # ---- SCAN ---------------------------------------------------------------------------

    test "SCAN returns every key, and the cursor ends at 0" {
        r flushdb
        for {set i 0} {$i < 1000} {incr i} { r set key:$i $i }
        set keys [scan_all]
        assert_equal 1000 [llength $keys]
        foreach count {1 7 100 10000} {
            assert_equal 1000 [llength [scan_all count $count]] "COUNT $count"
        }
    }

    test "SCAN reply shape: cursor as a bulk string and an array" {
        r flushdb
        r set a 1
        set c [redis_client -readraw 1]
        assert_equal {*2} [$c scan 0]
        assert_equal {$1} [$c read]
        assert_equal 0 [$c read]
        assert_equal {*1} [$c read]
        assert_equal {$1} [$c read]
        assert_equal a [$c read]
        $c close
    }

    test "SCAN MATCH returns exactly the matching keys" {
        r flushdb
        for {set i 0} {$i < 500} {incr i} { r set key:$i $i; r set other:$i $i }
        set keys [scan_all match key:1* count 20]
        assert_equal [lsort [r keys key:1*]] [lsort $keys]
        assert_equal {} [scan_all match nothing*]
    }

    test "SCAN TYPE filters by type" {
        r flushdb
        for {set i 0} {$i < 100} {incr i} { r set s:$i $i }
        assert_equal 100 [llength [scan_all type string]]
        assert_equal 100 [llength [scan_all TYPE STRING count 5]]
        assert_equal {} [scan_all type list]
        assert_equal {} [scan_all type hash match s:*]
        assert_equal 11 [llength [scan_all type string match s:1*]]
    }

    test "SCAN TYPE with a list among strings" {
        make_list_key alist
        set strings [scan_all type string]
        assert_equal [llength [r keys s:*]] [llength $strings]
        assert_equal {alist} [scan_all type list]
    }

    test "SCAN returns keys present for the whole scan while others come and go" {
        r flushdb
        for {set i 0} {$i < 2000} {incr i} { r set stable:$i $i }
        for {set i 0} {$i < 500} {incr i} { r set doomed:$i $i }
        set added 0
        set removed 0
        set keys [scan_all -between {
            # Grow the table (forcing rehashes) and shrink it meanwhile.
            for {set j 0} {$j < 30} {incr j} { r set added:[incr added] x }
            if {$removed < 500} {
                for {set j 0} {$j < 10 && $removed < 500} {incr j} {
                    r del doomed:$removed
                    incr removed
                }
            }
        } count 25]
        set seen [dict create]
        foreach k $keys { dict set seen $k 1 }
        for {set i 0} {$i < 2000} {incr i} {
            if {![dict exists $seen stable:$i]} { fail "stable:$i was never returned" }
        }
        foreach k $keys {
            assert_match {[sad]*:*} $k
            if {[string match added:* $k]} {
                assert_range [lindex [split $k :] 1] 1 $added
            }
        }
    }

    test "SCAN with bad arguments" {
        assert_error "ERR invalid cursor" {r scan abc}
        assert_error "ERR invalid cursor" {r scan 1x}
        assert_error "ERR invalid cursor" {r scan 18446744073709551616}
        assert_error "ERR syntax error" {r scan 0 count 0}
        assert_error "ERR syntax error" {r scan 0 count -1}
        assert_error "ERR value is not an integer or out of range" {r scan 0 count x}
        assert_error "ERR syntax error" {r scan 0 count}
        assert_error "ERR syntax error" {r scan 0 match}
        assert_error "ERR syntax error" {r scan 0 foo bar}
    }

    test "SCAN of an empty database" {
        r flushdb
        assert_equal {0 {}} [r scan 0]
    }

    # ---- RANDOMKEY / DBSIZE / FLUSHDB / FLUSHALL ------------------------------------

    test "RANDOMKEY on an empty database is null" {
        r flushdb
        assert_equal {} [r randomkey]
        set c [redis_client -readraw 1]
        assert_equal {$-1} [$c randomkey]
        $c close
    }

    test "RANDOMKEY returns existing keys, all of them eventually" {
        r flushdb
        r mset a 1 b 2 c 3
        set seen {}
        for {set i 0} {$i < 200} {incr i} { dict set seen [r randomkey] 1 }
        assert_equal {a b c} [lsort [dict keys $seen]]
    }

    test "DBSIZE counts the keys of the selected database" {
        r flushall
        assert_equal 0 [r dbsize]
        r mset a 1 b 2
        assert_equal 2 [r dbsize]
        r select 3
        assert_equal 0 [r dbsize]
        r set x 1
        assert_equal 1 [r dbsize]
        r select 0
        assert_equal 2 [r dbsize]
    }

    test "FLUSHDB empties only the selected database" {
        r select 3
        r set x 1
        r select 0
        r mset a 1 b 2
        assert_equal OK [r flushdb]
        assert_equal 0 [r dbsize]
        r select 3
        assert_equal 1 [r dbsize]
        r select 0
    }

    test "FLUSHDB ASYNC and SYNC" {
        for {set i 0} {$i < 1000} {incr i} { r set k$i [string repeat x 100] }
        assert_equal OK [r flushdb async]
        assert_equal 0 [r dbsize]
        r set a 1
        assert_equal OK [r flushdb SYNC]
        assert_equal 0 [r dbsize]
        r set after 1
        assert_equal 1 [r get after]
    }

    test "FLUSHDB/FLUSHALL with a bad option" {
        r set a 1
        assert_error "ERR syntax error" {r flushdb foo}
        assert_error "ERR syntax error" {r flushall foo}
        assert_error "ERR syntax error" {r flushdb async sync}
        assert_equal 1 [r exists a]
    }

    test "FLUSHALL empties every database" {
        r select 5
        r set x 1
        r select 0
        r set a 1
        assert_equal OK [r flushall]
        assert_equal 0 [r dbsize]
        r select 5
        assert_equal 0 [r dbsize]
        r select 0
        r set y 1
        assert_equal OK [r flushall async]
        assert_equal 0 [r dbsize]
    }

    test "FLUSHALL counts the keys it removes, and nothing on empty databases" {
        r flushall
        set base [s rdb_changes_since_last_save]
        r flushall
        r flushdb
        assert_equal $base [s rdb_changes_since_last_save]
        r set a 1
        r set b 2
        r flushall
        assert_equal [expr {$base + 4}] [s rdb_changes_since_last_save]
    }

    test "FLUSHALL with save points configured saves and resets the change counter" {
        r config set save "3600 1"
        r set a 1
        r flushall
        assert_equal 0 [s rdb_changes_since_last_save]
        assert_equal ok [s rdb_last_bgsave_status]
        r config set save ""
    }

    test "FLUSHALL stops a running BGSAVE: the old data never reaches the disk" {
        r config set save ""
        set dump [file join [lindex [r config get dir] 1] [lindex [r config get dbfilename] 1]]
        file delete $dump
        for {set i 0} {$i < 20} {incr i} { r set old:$i $i }
        r config set rdb-key-save-delay 100000
        r bgsave
        wait_for_condition 100 20 {[s rdb_bgsave_in_progress] == 1} else { fail "no BGSAVE" }
        r flushall
        wait_for_condition 100 20 {[s rdb_bgsave_in_progress] == 0} else { fail "the BGSAVE child lives on" }
        r config set rdb-key-save-delay 0
        after 300
        assert_equal 0 [file exists $dump]
        assert_equal {} [glob -nocomplain -directory [file dirname $dump] temp-*.rdb]
        assert_equal "Background saving started" [r bgsave]
        wait_for_condition 100 50 {[s rdb_bgsave_in_progress] == 0} else { fail "BGSAVE never ended" }
        assert_equal ok [s rdb_last_bgsave_status]
    }

    # ---- SWAPDB --------------------------------------------------------------------------

    test "SWAPDB swaps the contents, seen by clients of either database" {
        r flushall
        r set where zero
        r select 1
        r set where one
        r set only1 yes
        set other [redis_client]
        $other select 1
        assert_equal OK [r swapdb 0 1]
        assert_equal zero [r get where]
        assert_equal 0 [r exists only1]
        assert_equal zero [$other get where]
        r select 0
        assert_equal one [r get where]
        assert_equal yes [r get only1]
        $other close
    }

    test "SWAPDB keeps TTLs with their keys" {
        r flushall
        r set t v ex 100
        r swapdb 0 4
        assert_equal 0 [r exists t]
        r select 4
        assert_range [r ttl t] 95 100
        r select 0
        r swapdb 0 4
        assert_range [r ttl t] 95 100
    }

    test "SWAPDB of a database with itself is a no-op" {
        r set a 1
        assert_equal OK [r swapdb 0 0]
        assert_equal 1 [r get a]
    }

    test "SWAPDB with bad indexes" {
        assert_error "ERR invalid first DB index" {r swapdb a 1}
        assert_error "ERR invalid second DB index" {r swapdb 0 b}
        assert_error "ERR DB index is out of range" {r swapdb 0 16}
        assert_error "ERR DB index is out of range" {r swapdb -1 0}
    }

    # ---- OBJECT ---------------------------------------------------------------------------

    test "OBJECT ENCODING, REFCOUNT and IDLETIME of a key" {
        r set a hello
        assert_equal embstr [r object encoding a]
        assert_equal 1 [r object refcount a]
        assert_range [r object idletime a] 0 2
        r del a
        assert_equal {} [r object encoding a]
        assert_equal {} [r object refcount a]
        assert_equal {} [r object idletime a]
    }

    test "OBJECT REFCOUNT of a shared integer is INT_MAX" {
        # Without maxmemory, small integers are shared objects.
        r set a 100
        assert_equal 2147483647 [r object refcount a]
        r set a 123456
        assert_equal 1 [r object refcount a]
    }

    test "OBJECT errors and HELP" {
        r set a 1
        assert_error "ERR unknown subcommand 'foo'. Try OBJECT HELP." {r object foo a}
        assert_error "ERR wrong number of arguments for 'object|encoding' command" \
            {r object encoding}
        assert_error "ERR wrong number of arguments for 'object|encoding' command" \
            {r object encoding a b}
        assert_error "ERR An LFU maxmemory policy is not selected*" {r object freq a}
        set help [r object help]
        assert_morethan [llength $help] 4
        assert_match "OBJECT <subcommand>*" [lindex $help 0]
    }

    test "OBJECT on a missing key with a subcommand that needs one" {
        r del nokey
        set c [redis_client -readraw 1]
        assert_equal {$-1} [$c object encoding nokey]
        $c close
    }
}

start_server {tags {keyspace} overrides {maxmemory-policy allkeys-lfu}} {
    test "OBJECT FREQ under an LFU policy, IDLETIME refused" {
        r set a hello
        for {set i 0} {$i < 50} {incr i} { r get a }
        assert_morethan [r object freq a] 0
        assert_error "ERR An LFU maxmemory policy is selected, idle time not tracked.*" \
            {r object idletime a}
    }
}

start_server {tags {keyspace} overrides {databases 2}} {
    test "The databases directive limits SELECT, MOVE and SWAPDB" {
        assert_equal OK [r select 1]
        assert_error "ERR DB index is out of range" {r select 2}
        r select 0
        r set a 1
        assert_error "ERR DB index is out of range" {r move a 2}
        assert_equal OK [r swapdb 0 1]
        assert_error "ERR DB index is out of range" {r swapdb 0 2}
    }
}
