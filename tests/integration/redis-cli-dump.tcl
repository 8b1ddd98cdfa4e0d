# redis-cli's replication-protocol modes and the options scripts use
# (src/tools/cli_sync.c, cli_modes.c, redis-cli.c), and the server's side
# of them (REPLCONF rdb-only / rdb-filter-only in src/replication.c):
#   --rdb / --functions-rdb: a dump from our server and one from Debian's
#   Redis 7.0.15 load in both servers with the same DEBUG DIGEST; bad input
#   (missing file argument, unwritable path, wrong password, refused AUTH);
#   --replica, --hotkeys (with and without an LFU policy), -X, --askpass,
#   --lru-test, HELP answered locally, SUBSCRIBE with no channel.
#
# Our redis-cli (next to the server under test, through its --wrapper) and
# Debian's /usr/bin/redis-cli run the same command lines: stdout, stderr and
# the exit status must be identical (byte counts and sizes masked where the
# two runs' snapshots differ by a timestamp). Without Debian's tools those
# tests are skipped with a message.

set ::dump_cli [file join [file dirname $::harness::opt(server)] redis-cli]
set ::dump_ref_cli /usr/bin/redis-cli
set ::dump_tmp [file join $::harness::opt(run_dir) clidump-[pid]]
file mkdir $::dump_tmp

proc need_dump_cli {} {
    if {![file executable $::dump_cli]} { skip "no redis-cli next to the server ($::dump_cli)" }
}

proc need_dump_ref {} {
    need_dump_cli
    if {![file executable $::dump_ref_cli]} { skip "$::dump_ref_cli not installed: no side-by-side comparison" }
    if {[reference_server] eq ""} { skip "/usr/bin/redis-server not installed: no side-by-side comparison" }
}

proc dump_write {path data} {
    set f [open $path wb]
    puts -nonewline $f $data
    close $f
}

# Runs a cli (-prog ref: Debian's), bounded by timeout(1): {status stdout stderr}.
proc dump_run {args} {
    set prog [list {*}$::harness::opt(wrapper) $::dump_cli]
    set input ""
    while {[lindex $args 0] in {-prog -in}} {
        set args [lassign $args opt value]
        if {$opt eq "-prog" && $value eq "ref"} { set prog [list $::dump_ref_cli] }
        if {$opt eq "-in"} { set input $value }
    }
    set in [file join $::dump_tmp stdin]
    set out [file join $::dump_tmp stdout]
    set err [file join $::dump_tmp stderr]
    dump_write $in $input
    set limit [expr {int(60 * [::harness::factor])}]
    if {[auto_execok timeout] ne ""} { set prog [list timeout $limit {*}$prog] }
    set status 0
    if {[catch {exec {*}$prog {*}$args < $in > $out 2> $err} msg opts]} {
        set code [dict get $opts -errorcode]
        if {[lindex $code 0] ne "CHILDSTATUS"} { error "running $prog: $msg" }
        set status [lindex $code 2]
    }
    return [list $status [::harness::read_file $out] [::harness::read_file $err]]
}

# Numbers that differ between two snapshots of the same data (used-mem,
# ctime change the size) are masked when -mask is given.
proc dump_mask {text} { regsub -all {[0-9]+ bytes} $text {N bytes} }

# Both clis, same arguments: status, stdout and stderr identical.
proc dump_compare {args} {
    set mask 0
    set input ""
    set whats {status stdout stderr}
    while {[lindex $args 0] in {-mask -in -nostdout}} {
        if {[lindex $args 0] eq "-mask"} {
            set mask 1
            set args [lrange $args 1 end]
        } elseif {[lindex $args 0] eq "-nostdout"} {
            set whats {status - stderr}
            set args [lrange $args 1 end]
        } else {
            set args [lassign $args - input]
        }
    }
    set ours [dump_run -in $input {*}$args]
    set theirs [dump_run -prog ref -in $input {*}$args]
    foreach what $whats a $ours b $theirs {
        if {$what eq "-"} continue
        if {$mask} {
            set a [dump_mask $a]
            set b [dump_mask $b]
        }
        if {$a ne $b} { fail "redis-cli $args: $what differs\n--- ours:\n$a\n--- Redis 7.0:\n$b" }
    }
    return $ours
}

# Starts BINARY (under the wrapper when it is ours) on a fresh directory,
# with the RDB file copied in when given, plus OPTS. Returns {pid port}.
proc dump_start {binary rdb args} {
    set dir [::harness::fresh_run_dir clidump]
    if {$rdb ne ""} { file copy -force $rdb [file join $dir dump.rdb] }
    set port [::harness::find_free_port]
    set prog [list $binary]
    if {$binary eq $::harness::opt(server)} { set prog [list {*}$::harness::opt(wrapper) $binary] }
    set pid [exec {*}$prog --port $port --bind 127.0.0.1 --dir $dir --save "" --enable-debug-command yes \
                 --logfile [file join $dir log] {*}$args &]
    wait_for_condition 100 50 {[regexp {PONG|NOAUTH} [lindex [dump_run -p $port ping] 1]]} else {
        catch {exec kill $pid}
        fail "$binary did not start: [::harness::read_file [file join $dir log]]"
    }
    return [list $pid $port]
}

proc dump_stop {pid} {
    catch {exec kill $pid}
    wait_for_condition 100 50 {![::harness::pid_alive $pid]} else { catch {exec kill -9 $pid} }
}

proc dump_cli {port args} {
    lassign [dump_run -p $port {*}$args] status out err
    if {$status != 0} { fail "redis-cli -p $port $args: exit $status: $err" }
    return [string trimright $out "\n"]
}

proc dump_fill {port} {
    dump_cli $port set s "a string"
    dump_cli $port rpush list a b c
    dump_cli $port hset h f1 v1 f2 v2
    dump_cli $port sadd set x y z
    dump_cli $port zadd z 1 a 2.5 b
    dump_cli $port xadd st 1-1 f v
    dump_cli $port pexpireat s 4102444800000
    dump_cli $port -n 3 set other-db value
    dump_cli $port function load "#!lua name=dumplib\nredis.register_function('dumpf', function() return 1 end)"
}

# Runs `cli -p PORT ARGS` with each cli while commands are written, until
# CLIENT KILL TYPE replica ends it; stdout and stderr (sizes masked) must be
# the same. -noack: the stream never starts (the snapshot is not seen to end).
proc replica_side_by_side {args} {
    set wait_stream 1
    if {[lindex $args 0] eq "-noack"} {
        set wait_stream 0
        set args [lrange $args 1 end]
    }
    set results {}
    foreach prog {ours ref} {
        set out [file join $::dump_tmp replica-$prog.out]
        set err [file join $::dump_tmp replica-$prog.err]
        set cmd [list $::dump_ref_cli]
        if {$prog eq "ours"} { set cmd [list {*}$::harness::opt(wrapper) $::dump_cli] }
        set pid [exec {*}$cmd -p [srv port] {*}$args > $out 2> $err &]
        set want [expr {$wait_stream ? "*Logging commands*" : "*SYNC with master*"}]
        wait_for_condition 200 50 {[string match $want [::harness::read_file $err]]} else {
            catch {exec kill $pid}
            fail "$prog $args did not sync: [::harness::read_file $err]"
        }
        if {$wait_stream} {
            # an "$EOF:" transfer is acknowledged a second later; the ACK takes the stream's first command
            if {[string match "*EOF marker*" [::harness::read_file $err]]} {
                wait_for_condition 200 50 {[string match "*REPLCONF ACK 0*" [::harness::read_file $err]]} else {
                    catch {exec kill $pid}
                    fail "$prog $args sent no ACK"
                }
                after 200
            }
            r set replkey "a b"
            r select 2
            r lpush l "c\"d"
            r select 0
            wait_for_condition 200 50 {[string match "*lpush*" [::harness::read_file $out]]} else {
                catch {exec kill $pid}
                fail "$prog $args printed no stream: [::harness::read_file $out]"
            }
        }
        r client kill type replica
        wait_for_condition 200 50 {![::harness::pid_alive $pid]} else {
            catch {exec kill $pid}
            fail "$prog $args did not end with the connection"
        }
        lappend results [::harness::read_file $out] [dump_mask [::harness::read_file $err]]
    }
    lassign $results ours_out ours_err ref_out ref_err
    assert_equal $ref_out $ours_out
    assert_equal $ref_err $ours_err
    return [list $ours_out $ours_err]
}

start_server {tags {cli}} {
    r select 0 ;# the clis' database

    test "REPLCONF rdb-only and rdb-filter-only: Redis 7.0's checks and errors" {
        assert_equal OK [r replconf rdb-only 1]
        assert_equal OK [r replconf rdb-only 0]
        assert_error "*value is out of range, value must between 0 and 1*" {r replconf rdb-only 2}
        assert_error "*value is not an integer or out of range*" {r replconf rdb-only yes}
        assert_equal OK [r replconf rdb-filter-only functions]
        assert_equal OK [r replconf rdb-filter-only ""]
        assert_error "*Unsupported rdb-filter-only option: keys*" {r replconf rdb-filter-only "functions keys"}
        assert_error "*Missing rdb-filter-only values*" {r replconf rdb-filter-only "\"functions"}
    }

    test "--rdb of our server and of Debian's Redis: each loads in both with the same DEBUG DIGEST" {
        need_dump_ref
        set ref [reference_server]
        lassign [dump_start $ref ""] ref_pid ref_port
        dump_fill [srv port]
        dump_fill $ref_port
        set digest [dump_cli [srv port] debug digest]
        assert_equal $digest [dump_cli $ref_port debug digest]
        foreach {name port prog} [list ours [srv port] ours theirs $ref_port ref] {
            foreach sync {yes no} {
                dump_cli $port config set repl-diskless-sync $sync
                dump_cli $port config set repl-diskless-sync-delay 0
                set file [file join $::dump_tmp $name-$sync.rdb]
                lassign [dump_run -prog $prog -p $port --rdb $file] status out err
                assert_equal 0 $status $err
                assert_match "*Transfer finished with success*" $err
                foreach binary [list $::harness::opt(server) $ref] {
                    lassign [dump_start $binary $file] pid p
                    set got [dump_cli $p debug digest]
                    set lib [dump_cli $p function list]
                    dump_stop $pid
                    assert_equal $digest $got "$name's dump (diskless $sync) loaded by $binary"
                    assert_match "*dumplib*" $lib
                }
            }
        }
        dump_stop $ref_pid
    }

    test "--rdb and --functions-rdb: the same lines and status from both clis, to a file and to stdout" {
        need_dump_ref
        foreach sync {yes no} {
            r config set repl-diskless-sync $sync
            r config set repl-diskless-sync-delay 0
            set file [file join $::dump_tmp cmp.rdb]
            dump_compare -mask -p [srv port] --rdb $file
            dump_compare -mask -p [srv port] --functions-rdb $file
            # (the two snapshots differ in their ctime and used-mem fields)
            lassign [dump_compare -mask -nostdout -p [srv port] --rdb -] status out err
            assert_equal REDIS [string range $out 0 4]
        }
    }

    test "--functions-rdb: a dump with the functions and no keys" {
        need_dump_ref
        set file [file join $::dump_tmp functions.rdb]
        lassign [dump_run -p [srv port] --functions-rdb $file] status out err
        assert_equal 0 $status $err
        foreach binary [list $::harness::opt(server) [reference_server]] {
            lassign [dump_start $binary $file] pid p
            set keys [dump_cli $p dbsize]
            set keys3 [dump_cli $p -n 3 dbsize]
            set lib [dump_cli $p function list]
            dump_stop $pid
            assert_equal "0 0" "$keys $keys3"
            assert_match "*dumplib*" $lib
        }
    }

    test "--rdb bad input: no file argument, an unwritable path, a wrong password" {
        need_dump_ref
        dump_compare -p [srv port] --rdb
        dump_compare -p [srv port] --functions-rdb
        lassign [dump_compare -mask -p [srv port] --rdb /nonexistent-dir/dump.rdb] status out err
        assert_equal 1 $status
        assert_match "*Error opening '/nonexistent-dir/dump.rdb': No such file or directory*" $err
        # an AUTH the server refuses ends the mode at once
        lassign [dump_compare -p [srv port] --no-auth-warning -a wrong --rdb [file join $::dump_tmp w.rdb]] status
        assert_equal 1 $status
        lassign [dump_start $::harness::opt(server) "" --requirepass secret] pid p
        lassign [dump_compare -p $p --no-auth-warning -a wrong --rdb [file join $::dump_tmp w.rdb]] status out err
        assert_equal 1 $status
        assert_match "AUTH failed: WRONGPASS*" $err
        # no password: every REPLCONF and the SYNC are refused
        lassign [dump_compare -p $p --rdb [file join $::dump_tmp w.rdb]] status out err
        assert_match "*SYNC with master failed: -NOAUTH Authentication required.\r\n" $err
        lassign [dump_compare -p $p --no-auth-warning -a wrong --functions-rdb [file join $::dump_tmp w.rdb]] status
        assert_equal 1 $status
        assert_equal 0 [lindex [dump_run -p $p --no-auth-warning -a secret --rdb [file join $::dump_tmp w.rdb]] 0]
        dump_stop $pid
    }

    test "--replica prints the stream as CSV, the same as Debian's redis-cli" {
        need_dump_ref
        r config set repl-diskless-sync no
        lassign [replica_side_by_side --replica] ours_out ours_err
        assert {[string first "\"set\",\"replkey\",\"a b\"\n\"SELECT\",\"2\"\n\"lpush\",\"l\",\"c\\\"d\"\n" $ours_out] >= 0} $ours_out
        assert_match "*SYNC done after * bytes. Logging commands from master.\nsending REPLCONF ACK 0\n*" $ours_err
        assert_match "*Error: Server closed the connection\n" $ours_err
    }

    test "SYNC and PSYNC typed as commands enter the replica output mode, as Redis 7.0's tool" {
        need_dump_ref
        r config set repl-diskless-sync no
        lassign [replica_side_by_side sync] ours_out ours_err
        assert_match "Entering replica output mode...  (press Ctrl-C to quit)\n\"SELECT\",\"0\"\n\"set\",\"replkey\"*" $ours_out
        assert_match "SYNC with master, discarding * bytes of bulk transfer...\nSYNC done. Logging commands from master.\n*" $ours_err
        # PSYNC's +FULLRESYNC line is taken for an "$EOF:" one: the snapshot is read to the end of the connection
        lassign [replica_side_by_side -noack psync ? -1] ours_out ours_err
        assert_equal "SYNC with master, discarding bytes of bulk transfer until EOF marker...\nError reading RDB payload while SYNCing\n" $ours_err
    }

    test "--hotkeys: the LFU policy error, and the hot keys found, as Debian's redis-cli" {
        need_dump_ref
        r flushall
        lassign [dump_compare -p [srv port] --hotkeys] status out err
        assert_equal 0 $status
        r set k1 "v"
        lassign [dump_compare -p [srv port] --hotkeys] status out err
        assert_equal 1 $status
        assert_match "Error: ERR An LFU maxmemory policy is not selected*" $err
        r config set maxmemory-policy allkeys-lfu
        r flushall
        foreach k {a b c d "sp ace"} { r set $k "value" }
        for {set i 0} {$i < 20} {incr i} { r get a }
        lassign [dump_compare -p [srv port] --hotkeys] status out err
        assert_equal 0 $status
        assert_match "*Hot key '\"a\"' found so far*hot key found with counter: *keyname: \"a\"*" $out
        lassign [dump_compare -p [srv port] --no-auth-warning -a wrong --hotkeys] status
        assert_equal 1 $status
        r config set maxmemory-policy noeviction
    }

    test "-X replaces the tag argument with stdin; its errors as Redis 7.0" {
        need_dump_ref
        dump_compare -in "line1\nline2\n" -p [srv port] -X TAG set xkey TAG
        assert_equal "line1\nline2\n" [r get xkey]
        dump_compare -in "v" -p [srv port] -X TAG set TAG TAG
        assert_equal TAG [r get v]
        lassign [dump_compare -in "v" -p [srv port] -X TAG set xkey nottag] status out err
        assert_equal [list 1 "Using -X option but stdin tag not match.\n"] [list $status $err]
        lassign [dump_compare -in "v" -p [srv port] -x -X TAG set xkey TAG] status out err
        assert_equal [list 1 "Options -x and -X are mutually exclusive.\n"] [list $status $err]
        dump_compare -in "v" -p [srv port] -X TAG -x set xkey TAG
        dump_compare -p [srv port] -X
    }

    test "HELP on the command line is answered locally, with or without a server" {
        need_dump_cli
        lassign [dump_run -p [srv port] HELP SET] status out err
        assert_equal 0 $status
        assert {[string first "\x1b\[1mSET\x1b\[0m" $out] >= 0 && [string first summary: $out] > 0} $out
        set free [::harness::find_free_port]
        assert_equal [list 0 $out ""] [dump_run -p $free HELP SET]
        assert_equal [lindex [dump_run -in "HELP SET\n" -p [srv port]] 1] $out
        need_dump_ref
        foreach args {help ? {HELP @nosuchgroup}} { dump_compare -p $free {*}$args }
    }

    test "SUBSCRIBE with no channel: the error, then the program ends" {
        need_dump_ref
        foreach cmd {subscribe psubscribe ssubscribe} {
            foreach opts {{} --no-raw -3 -e --csv} {
                dump_compare -p [srv port] {*}$opts $cmd
            }
        }
        dump_compare -in "subscribe\nping\n" -p [srv port]
    }

    test "--askpass reads the password from stdin, replacing -a" {
        need_dump_ref
        lassign [dump_start $::harness::opt(server) "" --requirepass secret] pid p
        lassign [dump_compare -in "secret\n" -p $p --askpass ping] status out
        assert_equal "PONG\n" $out
        dump_compare -in "secret\n" -p $p -a wrong --askpass ping
        dump_compare -in "wrong\n" -p $p --askpass ping
        dump_compare -p $p --askpass ping
        dump_stop $pid
    }

    test "--lru-test: Redis 7.0's report line, and its argument errors" {
        need_dump_cli
        set out [file join $::dump_tmp lru.out]
        # Redis's tool leaves the line in stdio's buffer (--server /usr/bin/redis-server runs it)
        set prog [list {*}$::harness::opt(wrapper) $::dump_cli]
        if {$::dump_cli eq $::dump_ref_cli && [auto_execok stdbuf] ne ""} { set prog [list stdbuf -oL {*}$prog] }
        set pid [exec {*}$prog -p [srv port] --lru-test 1000 > $out 2>@1 &]
        wait_for_condition 200 50 {[string match "*\n*" [::harness::read_file $out]]} else {
            catch {exec kill $pid}
            fail "--lru-test printed nothing"
        }
        catch {exec kill $pid}
        set line [lindex [split [::harness::read_file $out] \n] 0]
        assert_match {[0-9]* Gets/sec | Hits: [0-9]* (*%) | Misses: [0-9]* (*%)} $line
        assert_equal 1 [r exists lru:1]
        need_dump_ref
        dump_compare -p [srv port] --lru-test
    }

    test "--help lists the new options in Redis 7.0's words" {
        need_dump_ref
        lassign [dump_run --help] status ours
        lassign [dump_run -prog ref --help] status theirs
        foreach opt {--askpass -X --lru-test --replica --rdb --hotkeys} {
            set line [lsearch -inline [split $ours \n] "  $opt *"]
            assert {$line ne ""}
            assert {[lsearch -exact [split $theirs \n] $line] >= 0} "'$line' not in Redis's --help"
        }
        assert_match "*\n --functions-rdb <filename> Like --rdb*" $ours
    }
}
