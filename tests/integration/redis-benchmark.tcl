# tests/integration/redis-benchmark.tcl -- our redis-benchmark
# (src/tools/redis-benchmark.c) against the server under test: output
# formats that scripts parse (-q, --csv), test selection, exact request
# counts (with --threads too), random keys, pipelining, authentication, unix
# sockets, -x, -u, --enable-tracking, idle mode (-I), errors.
#
# The tool is the redis-benchmark built next to the server binary the runner
# starts (or $REDIS_BENCHMARK), run under the same --wrapper (e.g. QEMU).
# Request counts are small so the file stays quick under emulation.

proc bench_path {} {
    if {[info exists ::env(REDIS_BENCHMARK)]} { return $::env(REDIS_BENCHMARK) }
    return [file join [file dirname $::harness::opt(server)] redis-benchmark]
}

proc need_bench {} {
    if {![file executable [bench_path]]} { skip "no redis-benchmark next to the server ([bench_path])" }
}

proc bench_cmd {args} {
    return [concat $::harness::opt(wrapper) [list [bench_path]] $args]
}

# Standard output only (stderr discarded: the exit status still counts),
# against the current server.
proc bench {args} {
    exec {*}[bench_cmd -h [srv host] -p [srv port] {*}$args] 2>/dev/null
}

# {exit-status output}, stdout and stderr together, with no default address.
proc bench_status {args} {
    set status [catch {exec {*}[bench_cmd {*}$args] 2>@1} out opts]
    regsub {\n?child process exited abnormally$} $out {} out
    if {$status} {
        set code [dict get $opts -errorcode]
        if {[lindex $code 0] eq "CHILDSTATUS"} { return [list [lindex $code 2] [string trim $out]] }
        return [list -1 [string trim $out]]
    }
    return [list 0 [string trim $out]]
}

proc titles_of_csv {out} {
    set titles {}
    foreach line [lrange [split [string trim $out] \n] 1 end] {
        lappend titles [string trim [lindex [split $line ,] 0] \"]
    }
    return $titles
}

proc calls_of {cmd} {
    foreach line [split [r info commandstats] \n] {
        if {[regexp "^cmdstat_$cmd:calls=(\[0-9\]+)" $line -> calls]} { return $calls }
    }
    return 0
}

start_server {tags {tools benchmark} unixsocket 1} {
    test "redis-benchmark -q prints one line per test in Redis's format" {
        need_bench
        set out [bench -q -n 200 -c 5 -t set,get]
        set lines [split [string trim $out] \n]
        assert_equal 2 [llength $lines] $out
        assert_match {SET: *} [lindex $lines 0]
        assert_match {GET: *} [lindex $lines 1]
        foreach line $lines {
            assert {[regexp {^[A-Z]+: [0-9]+\.[0-9]{2} requests per second, p50=[0-9]+\.[0-9]{3} msec$} $line]} $line
        }
        assert {[string first \r $out] < 0} "no progress line when stdout is not a terminal"
    }

    test "redis-benchmark --csv prints Redis's header and quoted rows" {
        need_bench
        set out [bench --csv -n 200 -c 5 -t set,incr]
        set lines [split [string trim $out] \n]
        assert_equal {"test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"} [lindex $lines 0]
        assert_equal 3 [llength $lines]
        foreach line [lrange $lines 1 end] {
            assert {[regexp {^"[A-Z]+"(,"[0-9]+\.[0-9]+"){7}$} $line]} $line
        }
        assert_equal {SET INCR} [titles_of_csv $out]
    }

    test "redis-benchmark -t selects tests by their names, case-insensitively" {
        need_bench
        assert_equal {PING_INLINE PING_MBULK} [titles_of_csv [bench --csv -n 20 -c 2 -t ping]]
        assert_equal {PING_MBULK {MSET (10 keys)}} [titles_of_csv [bench --csv -n 20 -c 2 -t PING_MBULK,mset]]
        set lrange [bench --csv -n 20 -c 2 -t lrange_300]
        assert_equal [list "LPUSH (needed to benchmark LRANGE)" "LRANGE_300 (first 300 elements)"] \
            [lmap l [lrange [split [string trim $lrange] \n] 1 end] { lindex [split $l \"] 1 }]
        assert_equal "" [bench -q -n 20 -c 2 -t nosuchtest]
    }

    test "redis-benchmark -n sends exactly that many requests, with and without -P" {
        need_bench
        r config resetstat
        bench -q -n 777 -c 7 -t incr
        assert_equal 777 [calls_of incr]
        r config resetstat
        bench -q -n 1001 -c 5 -P 16 -t get
        assert_equal 1001 [calls_of get]
        r config resetstat
        bench -q -n 30 -c 3 -t mset
        assert_equal 30 [calls_of mset]
    }

    test "redis-benchmark --threads 2: sane figures, exactly -n requests, the same output format" {
        need_bench
        r config resetstat
        set out [bench --threads 2 -n 20000 -t set,get -q]
        set lines [split [string trim $out] \n]
        assert_equal 2 [llength $lines] $out
        foreach line $lines title {SET GET} {
            assert {[regexp "^$title: (\[0-9\]+\\.\[0-9\]{2}) requests per second, p50=(\[0-9\]+\\.\[0-9\]{3}) msec\$" $line -> rps p50]} $line
            assert {$rps > 0 && $p50 > 0} $line
        }
        assert_equal 20000 [calls_of set]
        assert_equal 20000 [calls_of get]
        # uneven shares: more threads than clients, pipelining, random keys
        r config resetstat
        bench --threads 3 -c 2 -n 1001 -P 7 -r 100 -t incr -q
        assert_equal 1001 [calls_of incr]
        set full [bench --threads 2 -n 500 -c 4 -t ping_mbulk]
        assert_match "*  multi-thread: yes\n  threads: 2\n\nLatency by percentile distribution:*" $full
        assert_match "*500 requests completed in*" $full
        assert_match "*throughput summary:*" $full
    }

    test "redis-benchmark -x: stdin is the last argument (not in the title)" {
        need_bench
        r del xkey
        set out [exec {*}[bench_cmd -h [srv host] -p [srv port] -x -n 10 -c 1 -q set xkey] << "two\nlines" 2>/dev/null]
        assert_match "set xkey: *requests per second*" $out
        assert_equal "two\nlines" [r get xkey]
    }

    test "redis-benchmark -u: host, port and database from a redis:// URI" {
        need_bench
        r select 3
        r del counter:__rand_int__
        bench_status -u "redis://[srv host]:[srv port]/3" -n 5 -c 1 -q incr counter:__rand_int__
        assert_equal 5 [r get counter:__rand_int__]
        r select 0
        lassign [bench_status -u "http://[srv host]:[srv port]" -n 1 -q] status out
        assert_equal 1 $status
        assert_equal "Invalid URI scheme" $out
    }

    test "redis-benchmark --enable-tracking sends CLIENT TRACKING on for every connection" {
        need_bench
        r config resetstat
        bench --enable-tracking -n 30 -c 3 -t get -q
        assert_equal 3 [calls_of {client\|tracking}]
        assert_equal 30 [calls_of get]
    }

    test "redis-benchmark -I opens idle connections and waits" {
        need_bench
        set before [llength [split [string trim [r client list]] \n]]
        set log [file join $::harness::opt(run_dir) bench-idle-[pid].out]
        set pid [exec {*}[bench_cmd -h [srv host] -p [srv port] -I -c 4] > $log 2>@1 &]
        wait_for_condition 100 50 {
            [llength [split [string trim [r client list]] \n]] == $before + 4
        } else {
            catch {exec kill $pid}
            fail "the idle clients did not connect"
        }
        exec kill $pid
        # the next test counts the clients: these four must be gone first
        # (under an emulator the killed tool closes them late)
        wait_for_condition 100 50 {
            [llength [split [string trim [r client list]] \n]] == $before
        } else {
            fail "the idle clients of the killed tool stayed connected"
        }
        set f [open $log]; set out [read $f]; close $f
        assert_match "Creating 4 idle connections and waiting forever (Ctrl+C when done)\n*" $out
    }

    test "redis-benchmark -I refused by maxclients: the server's error, status 1 (no endless wait)" {
        need_bench
        set max [lindex [r config get maxclients] 1]
        r config set maxclients [expr {[llength [split [string trim [r client list]] \n]] + 2}]
        # a hang here is the fault (it waited forever): bounded by timeout(1).
        # 12 connections against 2 free places: refused even if a client
        # of an earlier test is still leaving
        set status [catch {exec timeout [::harness::scaled 30] {*}[bench_cmd -h [srv host] -p [srv port] -I -c 12] 2>@1} out opts]
        if {$status} { set status [lindex [dict get $opts -errorcode] 2] }
        r config set maxclients $max
        assert_equal 1 $status
        assert_match "*Error from server: ERR max number of clients reached*" $out
    }

    test "redis-benchmark -P: every pipelined request is answered and counted" {
        need_bench
        r config resetstat
        set out [bench --csv -n 2000 -c 2 -P 50 -t set]
        assert_equal 2000 [calls_of set]
        assert_equal {SET} [titles_of_csv $out]
    }

    test "redis-benchmark custom command with -r replaces __rand_int__ within the range" {
        need_bench
        r flushall
        set out [bench -q -n 500 -c 4 -r 20 set bench:__rand_int__ v]
        assert_match {set bench:__rand_int__ v: * requests per second*} $out
        set keys [lsort [r keys bench:*]]
        assert_range [llength $keys] 2 20
        foreach k $keys {
            assert {[regexp {^bench:0{10}[0-9]{2}$} $k]} $k
            assert_lessthan [scan [string range $k 6 end] %d] 20
        }
        assert_equal v [r get [lindex $keys 0]]
    }

    test "redis-benchmark without -r keeps __rand_int__ literal; -d sets the value size" {
        need_bench
        r flushall
        bench -q -n 10 -c 1 -d 100 -t set
        assert_equal 100 [r strlen key:__rand_int__]
        assert_equal 1 [r dbsize]
    }

    test "redis-benchmark -k 0 reconnects for every request" {
        need_bench
        set before [s total_connections_received]
        bench -q -n 40 -c 2 -k 0 -t ping_mbulk
        assert_morethan [expr {[s total_connections_received] - $before}] 39
    }

    test "redis-benchmark over a unix socket (-s)" {
        need_bench
        r config resetstat
        lassign [bench_status -s [srv unixsocket] -q -n 50 -c 2 -t ping_mbulk] status out
        assert_equal 0 $status $out
        assert_match {PING_MBULK: * requests per second*} $out
        assert_equal 50 [calls_of ping]
    }

    # Each --shm connection holds several descriptors (socket, segment,
    # wake-up end); the event loop was sized for one per client and the
    # default 50 clients failed with "Cannot watch a connection".
    foreach clients {50 200} {
        test "redis-benchmark -s --shm with $clients clients completes" {
            need_bench
            r config resetstat
            set n [expr {$clients * 2}]
            lassign [bench_status -s [srv unixsocket] --shm -q -n $n -c $clients -t ping_mbulk] status out
            assert_equal 0 $status $out
            assert_match {PING_MBULK: * requests per second*} $out
            assert_equal $n [calls_of ping]
        }
    }

    test "redis-benchmark reports bad options and exits non-zero" {
        need_bench
        lassign [bench_status --no-such-option] status out
        assert_equal 1 $status
        assert_match {Invalid option "--no-such-option" or option argument missing*Usage: redis-benchmark*} $out
        lassign [bench_status -c] status out
        assert_equal 1 $status
        assert_match {Invalid option "-c" or option argument missing*} $out
        lassign [bench_status -n abc -q] status out
        assert_equal 1 $status
        assert_match {Invalid value "abc" for option "-n"*} $out
        lassign [bench_status -P 0 -q] status out
        assert_equal 1 $status
        assert_match {Invalid value "0" for option "-P"*} $out
    }

    test "redis-benchmark says which server it could not reach" {
        need_bench
        set port [::harness::find_free_port]
        lassign [bench_status -h 127.0.0.1 -p $port -q -n 10 -t ping_mbulk] status out
        assert_equal 1 $status
        assert_equal "Could not connect to Redis at 127.0.0.1:$port: Connection refused" $out
        lassign [bench_status -s /nonexistent/redis.sock -q -n 10] status out
        assert_equal 1 $status
        assert_equal "Could not connect to Redis at /nonexistent/redis.sock: No such file or directory" $out
    }

    start_server {overrides {requirepass s3cret}} {
        test "redis-benchmark -a authenticates; a wrong password fails clearly" {
            need_bench
            r auth s3cret
            r config resetstat
            lassign [bench_status -h [srv host] -p [srv port] -a s3cret -q -n 30 -c 3 -t incr] status out
            assert_equal 0 $status $out
            assert_equal 30 [calls_of incr]
            lassign [bench_status -h [srv host] -p [srv port] -a wrong -q -n 30 -t incr] status out
            assert_equal 1 $status
            assert_equal "Node [srv host]:[srv port] replied with error:\nWRONGPASS invalid username-password pair or user is disabled." $out
            lassign [bench_status -h [srv host] -p [srv port] --user default -a s3cret -q -n 10 -c 1 -t incr] status out
            assert_equal 0 $status $out
        }

        # It used to print NOAUTH, then request rates measured on error
        # replies, and exit 0.
        test "redis-benchmark without the password stops with Redis's message and status 1" {
            need_bench
            foreach mode {-q --csv {}} {
                lassign [bench_status -h [srv host] -p [srv port] {*}$mode -n 30 -t incr,get] status out
                assert_equal [list 1 "Node [srv host]:[srv port] replied with error:\nNOAUTH Authentication required."] \
                    [list $status $out] "mode '$mode'"
            }
        }
    }

    # Redis 7.0's tool stops at the first error reply: figures measured on
    # errors would be false.
    test "redis-benchmark stops at the first error reply with status 1" {
        need_bench
        r set astring x
        foreach args {{-q lpush astring x} {-q -P 10 lpush astring x} {-q nosuchcommand} {lpush astring x}
                      {-q --dbnum 99 ping}} {
            lassign [bench_status -h [srv host] -p [srv port] -n 50 -c 2 {*}$args] status out
            assert_equal 1 $status "$args: $out"
            assert_match "Error from server: *" $out
            assert_no_match "*requests per second*" $out
        }
        lassign [bench_status -h [srv host] -p [srv port] -n 50 -q lpush astring x] status out
        assert_equal "Error from server: WRONGTYPE Operation against a key holding the wrong kind of value" $out
        lassign [bench_status -h [srv host] -p [srv port] -e -n 10 -c 1 -q -t ping_mbulk] status out
        assert_equal 0 $status
        assert_match "WARNING: -e option has no effect. We now immediately exit on error to avoid false results.\nPING_MBULK: *" $out
    }

    test "redis-benchmark errors: same messages and status as Debian's redis-benchmark" {
        need_bench
        set ref /usr/bin/redis-benchmark
        if {![file executable $ref]} { skip "$ref not installed" }
        r set astring x
        foreach args {{-q lpush astring x} {-q -e lpush astring x} {--dbnum 99 -t ping} {-q -a nopass ping}} {
            set ours [bench_status -h [srv host] -p [srv port] -n 20 -c 2 {*}$args]
            set errfile [file join [srv dir] ref-stderr]
            set status [catch {exec $ref -h [srv host] -p [srv port] -n 20 -c 2 {*}$args > /dev/null 2> $errfile} msg opts]
            set fd [open $errfile]
            set err [read $fd]
            close $fd
            set theirs [list [expr {$status ? [lindex [dict get $opts -errorcode] 2] : 0}] [string trim $err]]
            assert_equal $theirs $ours "redis-benchmark $args (stderr only)"
        }
    }
}
