# Our redis-cli (src/tools/redis-cli.c): one-shot, batch, --pipe, --scan,
# --intrinsic-latency, error handling, every reply type in the output
# formats (TTY, raw, CSV, --json, --quoted-json), HELP for every Redis 7.0
# command, --help, and the interactive prompt through a pseudo-terminal
# (completion, hints, ~/.redisclirc, the history file), and the Lua
# debugger's sessions (--ldb, --ldb-sync-mode, SCRIPT DEBUG then EVAL).
#
# The binary is the one built next to the server under test
# ([file dirname $server]/redis-cli), run through the same --wrapper (QEMU).
# Where Debian's /usr/bin/redis-cli (Redis 7.0) is installed, the same
# command lines are run with both and stdout, stderr and the exit status must
# be identical byte for byte; without it those tests are skipped.
#
# Reply types our server never sends (RESP3 verbatim, big numbers, nested
# maps in arrays ...) come from a fake server: a small tclsh process that
# answers every command with canned bytes.
# The interactive tests compile tests/helpers/pty-driver.c with the
# system C compiler into the run directory.

set ::cli_bin [file join [file dirname $::harness::opt(server)] redis-cli]
set ::cli_wrapper $::harness::opt(wrapper)
set ::cli_ref /usr/bin/redis-cli
set ::cli_tmp [file join $::harness::opt(run_dir) cli-[pid]]
file mkdir $::cli_tmp

proc need_cli {} {
    if {![file executable $::cli_bin]} { skip "no redis-cli next to the server ($::cli_bin)" }
}

proc need_ref {} {
    need_cli
    if {![file executable $::cli_ref]} { skip "$::cli_ref not installed: no byte-for-byte comparison" }
}

proc slurp {path} {
    set f [open $path rb]
    set data [read $f]
    close $f
    return $data
}

proc spit {path data} {
    set f [open $path wb]
    puts -nonewline $f $data
    close $f
}

# Runs a cli binary; returns {status stdout stderr} with the exact bytes.
# Options before the arguments: -in DATA (stdin), -prog ref.
proc run_cli {args} {
    set input ""
    set prog [list {*}$::cli_wrapper $::cli_bin]
    while {[llength $args] && [lindex $args 0] in {-in -prog}} {
        set args [lassign $args opt value]
        if {$opt eq "-in"} { set input $value }
        if {$opt eq "-prog" && $value eq "ref"} { set prog [list $::cli_ref] }
    }
    set in [file join $::cli_tmp stdin]
    set out [file join $::cli_tmp stdout]
    set err [file join $::cli_tmp stderr]
    spit $in $input
    set status 0
    # Bounded: a hung client fails the test (status 124) instead of the file.
    set limit [expr {int(60 * [::harness::factor])}]
    if {[auto_execok timeout] ne ""} { set prog [list timeout $limit {*}$prog] }
    if {[catch {exec {*}$prog {*}$args < $in > $out 2> $err} msg opts]} {
        set code [dict get $opts -errorcode]
        if {[lindex $code 0] eq "CHILDSTATUS"} {
            set status [lindex $code 2]
        } else {
            error "running $prog: $msg"
        }
    }
    return [list $status [slurp $out] [slurp $err]]
}

# Our redis-cli against the current server: stdout only.
proc cli {args} {
    lassign [run_cli -h [srv host] -p [srv port] {*}$args] status out err
    return $out
}

proc cli_in {input args} {
    lassign [run_cli -in $input -h [srv host] -p [srv port] {*}$args] status out err
    return $out
}

proc show {bytes} {
    string map [list "\r" {\r} "\n" "\\n\n" "\x1b" {\e} "\t" {\t}] $bytes
}

# Both programs, same arguments, same stdin: everything must be identical.
# -reset SCRIPT runs before each of the two (for commands that write).
proc compare_cli {args} {
    set reset ""
    set input ""
    while {[lindex $args 0] in {-reset -in}} {
        set args [lassign $args opt value]
        if {$opt eq "-reset"} { set reset $value } else { set input $value }
    }
    uplevel 1 $reset
    set ours [run_cli -in $input {*}$args]
    uplevel 1 $reset
    set theirs [run_cli -prog ref -in $input {*}$args]
    foreach what {status stdout stderr} a $ours b $theirs {
        if {$a ne $b} {
            fail "redis-cli $args: $what differs\n--- ours:\n[show $a]\n--- Redis 7.0:\n[show $b]"
        }
    }
}

# compare_cli for the cases of a loop over modes and commands. Under an
# emulator (--wrapper) it compares one call in $::cli_compare_stride, every
# stride-th in the order the file makes them: there the run checks the
# port -- byte order and alignment in reading and printing replies, which
# every case exercises alike -- and each comparison starts our cli under
# QEMU (about 0.3 s): the byte-for-byte loops took 160 s of sparc64's 207 s
# for this file. Natively every case is compared. The stride, 3, shares no
# factor with the loops' 4 and 5 modes, so there the cases taken move
# through the modes and the commands; in the 3-mode loop of 9 report
# commands the same 3 commands are taken in each mode.
set ::cli_compare_stride [expr {[llength $::cli_wrapper] ? 3 : 1}]
set ::cli_compare_calls 0
proc compare_cli_sampled {args} {
    if {[incr ::cli_compare_calls] % $::cli_compare_stride == 0} {
        uplevel 1 [list compare_cli {*}$args]
    }
}

# ---- the fake server --------------------------------------------------------------

set ::fake_script [file join $::cli_tmp fake-server.tcl]
spit $::fake_script {
    # fake server: HELLO gets a small map, anything else the bytes of a file
    lassign $argv port replyfile
    proc reply {} { set f [open $::replyfile rb]; set r [read $f]; close $f; return $r }
    proc readcmd {chan} {
        if {[gets $chan line] < 0} { return {} }
        set line [string trimright $line "\r"]
        if {[string index $line 0] ne "*"} { return [split $line] }
        set args {}
        for {set i 0} {$i < [string range $line 1 end]} {incr i} {
            gets $chan l
            lappend args [read $chan [string range [string trimright $l "\r"] 1 end]]
            read $chan 2
        }
        return $args
    }
    proc serve {chan} {
        set args [readcmd $chan]
        if {[eof $chan]} { close $chan; return }
        if {![llength $args]} return
        if {[string toupper [lindex $args 0]] eq "HELLO"} {
            puts -nonewline $chan "%1\r\n+proto\r\n:3\r\n"
        } else {
            puts -nonewline $chan [reply]
        }
        flush $chan
    }
    proc accept {chan addr port} {
        fconfigure $chan -translation binary
        fileevent $chan readable [list serve $chan]
    }
    socket -server accept -myaddr 127.0.0.1 $port
    after 600000 exit
    vwait forever
}

proc with_fake_server {body} {
    set port [::harness::find_free_port]
    set ::fake_reply [file join $::cli_tmp fake-reply]
    spit $::fake_reply ""
    set pid [exec [info nameofexecutable] $::fake_script $port $::fake_reply &]
    set ::fake_port $port
    wait_for_condition 100 50 {![catch {close [socket 127.0.0.1 $port]}]} else {
        catch {exec kill $pid}
        fail "the fake server did not start"
    }
    set code [catch {uplevel 1 $body} result opts]
    catch {exec kill $pid}
    return -options $opts $result
}

proc fake_reply {bytes} { spit $::fake_reply $bytes }

# Canned replies and what our cli prints for them: {tty raw csv}.
set ::reply_cases {
    {":42\r\n" {"(integer) 42\n" "42\n" "42\n"}}
    {"$-1\r\n" {"(nil)\n" "\n" "NULL\n"}}
    {"*-1\r\n" {"(nil)\n" "\n" "NULL\n"}}
    {"_\r\n" {"(nil)\n" "\n" "NULL\n"}}
    {"+OK\r\n" {"OK\n" "OK\n" "\"OK\"\n"}}
    {"$0\r\n\r\n" {"\"\"\n" "\n" "\"\"\n"}}
    {"$6\r\na\x00\"\\\n\t\r\n" {"\"a\\x00\\\"\\\\\\n\\t\"\n" "a\x00\"\\\n\t\n" "\"a\\x00\\\"\\\\\\n\\t\"\n"}}
    {"-ERR bad thing\r\n" {"(error) ERR bad thing\n" "ERR bad thing\n\n" "ERROR,\"ERR bad thing\"\n"}}
    {"*0\r\n" {"(empty array)\n" "\n" "\n"}}
    {"~0\r\n" {"(empty set)\n" "\n" "\n"}}
    {"%0\r\n" {"(empty hash)\n" "\n" "\n"}}
    {"*3\r\n:1\r\n*2\r\n:2\r\n$1\r\nx\r\n*0\r\n"
        {"1) (integer) 1\n2) 1) (integer) 2\n   2) \"x\"\n3) (empty array)\n" "1\n2\nx\n\n" "1,2,\"x\",\n"}}
    {"%2\r\n+a\r\n*2\r\n:1\r\n:2\r\n+b\r\n%1\r\n+x\r\n:1\r\n"
        {"1# a => \n   1) (integer) 1\n   2) (integer) 2\n2# b => 1# x => (integer) 1\n" "a 1\n2\nb x 1\n"
         "\"a\",1,2,\"b\",\"x\",1\n"}}
    {"~2\r\n+x\r\n+y\r\n" {"1~ x\n2~ y\n" "x\ny\n" "\"x\",\"y\"\n"}}
    {",3.5\r\n" {"(double) 3.5\n" "3.5\n" "3.5\n"}}
    {",inf\r\n" {"(double) inf\n" "inf\n" "inf\n"}}
    {"#t\r\n" {"(true)\n" "(true)\n" "true\n"}}
    {"#f\r\n" {"(false)\n" "(false)\n" "false\n"}}
    {"=9\r\ntxt:hello\r\n" {"hello\n" "hello\n" "\"hello\"\n"}}
    {"*1\r\n-ERR inner\r\n" {"1) (error) ERR inner\n" "ERR inner\n\n" "ERROR,\"ERR inner\"\n"}}
    {"(12345678901234567890\r\n" {"(big number) 12345678901234567890\n" "12345678901234567890\n" "12345678901234567890\n"}}
}

# More replies for --json / --quoted-json: escapes, and map keys of every type.
set ::json_cases {
    "\$6\r\n\r\b\f\x1f/\x7f\r\n" "\$4\r\n\x01\x7f\xff\x80\r\n" "-ERR a\"b\\c\x01\r\n"
    "%1\r\n\$3\r\na\"b\r\n\$2\r\n\xc3\xa9\r\n" "%1\r\n:1\r\n+v\r\n" "%1\r\n,1.5\r\n#f\r\n"
    "%1\r\n#t\r\n:1\r\n" "%1\r\n_\r\n:1\r\n" "%1\r\n\$-1\r\n:2\r\n" "%1\r\n*1\r\n+x\r\n:2\r\n"
    "%1\r\n%1\r\n+x\r\n+y\r\n:2\r\n" "%1\r\n-ERR k\r\n:2\r\n" "%1\r\n=9\r\ntxt:hello\r\n:2\r\n"
    "%1\r\n+a\\b\"\r\n:2\r\n" "=9\r\ntxt:h\"\\\n\x01\r\n" ",-1.5e+300\r\n" "*1\r\n%0\r\n"
    "*2\r\n#t\r\n_\r\n"
}

# ---- one-shot ----------------------------------------------------------------------------

start_server {tags {cli} unixsocket 1} {
    test "one-shot commands in raw mode (stdout is not a terminal)" {
        need_cli
        r del greeting counter list
        assert_equal "OK\n" [cli set greeting hello]
        assert_equal "hello\n" [cli get greeting]
        assert_equal "1\n" [cli incr counter]
        assert_equal "\n" [cli get nosuchkey]
        r rpush list a b "c d"
        assert_equal "a\nb\nc d\n" [cli lrange list 0 -1]
        assert_equal "a,b,c d\n" [cli -d , lrange list 0 -1]
        assert_equal "a\nb\nc dX" [cli -D X lrange list 0 -1]
    }

    test "one-shot commands formatted (--no-raw) and as CSV" {
        need_cli
        assert_equal "\"hello\"\n" [cli --no-raw get greeting]
        assert_equal "(integer) 1\n" [cli --no-raw exists greeting]
        assert_equal "(nil)\n" [cli --no-raw get nosuchkey]
        assert_equal "1) \"a\"\n2) \"b\"\n3) \"c d\"\n" [cli --no-raw lrange list 0 -1]
        assert_equal "(empty array)\n" [cli --no-raw lrange nolist 0 -1]
        assert_equal "\"a\",\"b\",\"c d\"\n" [cli --csv lrange list 0 -1]
        assert_equal "NULL\n" [cli --csv get nosuchkey]
    }

    test "--quoted-input: an unterminated or two-word argument is refused as Redis 7.0's tool does" {
        need_cli
        lassign [run_cli -h [srv host] -p [srv port] --quoted-input set {"Unterminated}] status out err
        assert_equal {1 {Invalid quoted string
} {}} [list $status $out $err]
        if {[file executable $::cli_ref]} {
            compare_cli -h [srv host] -p [srv port] --quoted-input set {"Unterminated}
            compare_cli -h [srv host] -p [srv port] --quoted-input set {"arg1" "arg2"}
        }
    }

    test "FAKETTY in the environment formats output as on a terminal, as Redis 7.0's tool does" {
        need_cli
        set ::env(FAKETTY) 1
        try {
            assert_equal "(integer) 1\n" [cli exists greeting]
            assert_equal "1) \"a\"\n2) \"b\"\n3) \"c d\"\n" [cli lrange list 0 -1]
            if {[file executable $::cli_ref]} { compare_cli -h [srv host] -p [srv port] lrange list 0 -1 }
        } finally {
            unset ::env(FAKETTY)
        }
        assert_equal "1\n" [cli exists greeting]
    }

    test "error replies, and -e turns them into exit status 1" {
        need_cli
        lassign [run_cli -h [srv host] -p [srv port] get] status out err
        assert_equal {0 {ERR wrong number of arguments for 'get' command} {}} \
            [list $status [string trim $out] $err]
        lassign [run_cli -h [srv host] -p [srv port] --no-raw get] status out err
        assert_equal "(error) ERR wrong number of arguments for 'get' command\n" $out
        lassign [run_cli -h [srv host] -p [srv port] -e get] status out err
        assert_equal [list 1 "" "ERR wrong number of arguments for 'get' command\n"] [list $status $out $err]
        lassign [run_cli -h [srv host] -p [srv port] -e ping] status out err
        assert_equal [list 0 "PONG\n"] [list $status $out]
    }

    test "-x reads the last argument from stdin, binary-safe" {
        need_cli
        assert_equal "OK\n" [cli_in "line one\nline\x00two\n" -x set fromstdin]
        assert_equal "line one\nline\x00two\n" [r get fromstdin]
    }

    test "-r repeats and -i waits between repetitions" {
        need_cli
        r del rep
        set start [clock milliseconds]
        assert_equal "1\n2\n3\n" [cli -r 3 -i 0.1 incr rep]
        assert_morethan [expr {[clock milliseconds] - $start}] 190
    }

    test "-n, -s, -u, -3 and --quoted-input" {
        need_cli
        assert_equal "OK\n" [cli -n 3 set indb3 yes]
        assert_equal "1\n" [cli -n 3 exists indb3]
        assert_equal "0\n" [cli exists indb3]
        lassign [run_cli -s [srv unixsocket] ping] status out
        assert_equal "PONG\n" $out
        lassign [run_cli -u redis://[srv host]:[srv port]/3 exists indb3] status out
        assert_equal "1\n" $out
        assert_equal "proto 3\n" [lindex [split [cli -3 hello 3] \n] 2]\n
        assert_equal "OK\n" [cli --quoted-input set {"a\x00b"} {"v w"}]
        assert_equal "v w" [r get "a\x00b"]
    }

    test "password warnings and AUTH failures" {
        need_cli
        lassign [run_cli -h [srv host] -p [srv port] -a secret ping] status out err
        assert_equal "PONG\n" $out
        assert_match "Warning: Using a password with '-a' or '-u' option on the command line interface may not be safe.\nAUTH failed: *" $err
        lassign [run_cli -h [srv host] -p [srv port] --no-auth-warning -a secret ping] status out err
        assert_match "AUTH failed: *" $err
        assert_no_match "*Warning*" $err
    }

    test "connection failures: message on stderr, exit status 1" {
        need_cli
        set port [::harness::find_free_port]
        lassign [run_cli -p $port ping] status out err
        assert_equal [list 1 "" "Could not connect to Redis at 127.0.0.1:$port: Connection refused\n"] \
            [list $status $out $err]
        lassign [run_cli -s $::cli_tmp/nosuchsocket ping] status out err
        assert_equal [list 1 "Could not connect to Redis at $::cli_tmp/nosuchsocket: No such file or directory\n"] \
            [list $status $err]
        lassign [run_cli --bogus] status out err
        assert_equal [list 1 "Unrecognized option or bad number of args for: '--bogus'\n"] [list $status $err]
    }

    # ---- batch, --pipe, --scan ---------------------------------------------------------------

    test "batch mode: one command per line from stdin" {
        need_cli
        r del a cnt
        set out [cli_in "set a 1\nincr a\n\nget a\nnosuchcmd\n3 incr cnt\nget \"x\nping\n"]
        assert_equal "OK\n2\n2\nERR unknown command 'nosuchcmd', with args beginning with: \n\n1\n2\n3\nInvalid argument(s)\nPONG\n" $out
        assert_equal "OK\nOK\n" [cli_in "select 2\nset b 1\nquit\nset c 1\n"]
        assert_equal "1\n" [cli -n 2 exists b]
        assert_equal "0\n" [cli -n 2 exists c]
    }

    test "--pipe mass insertion of 100k commands" {
        need_cli
        r flushall
        set proto ""
        for {set i 0} {$i < 100000} {incr i} {
            set key "mass:$i"
            append proto "*3\r\n\$3\r\nSET\r\n\$[string length $key]\r\n$key\r\n\$1\r\nv\r\n"
        }
        lassign [run_cli -in $proto -h [srv host] -p [srv port] --pipe] status out err
        assert_equal [list 0 "All data transferred. Waiting for the last reply...\nLast reply received from server.\nerrors: 0, replies: 100000\n" ""] \
            [list $status $out $err]
        assert_equal 100000 [r dbsize]
    } {slow}

    test "--pipe counts and prints error replies, exit status 1" {
        need_cli
        set proto "*3\r\n\$3\r\nSET\r\n\$1\r\nk\r\n\$1\r\nv\r\n*1\r\n\$7\r\nNOSUCHC\r\n"
        lassign [run_cli -in $proto -h [srv host] -p [srv port] --pipe] status out err
        assert_equal 1 $status
        assert_match "*errors: 1, replies: 2\n" $out
        assert_match "ERR unknown command 'NOSUCHC'*" $err
    }

    test "--scan with --pattern, --count and --type" {
        need_cli
        r flushall
        for {set i 0} {$i < 300} {incr i} { r set key:$i $i }
        r rpush alist x
        set keys [split [string trimright [cli --scan] \n] \n]
        assert_equal 301 [llength $keys]
        set keys [lsort [split [string trimright [cli --scan --pattern key:1?? --count 50] \n] \n]]
        assert_equal 100 [llength $keys]
        assert_equal key:100 [lindex $keys 0]
        assert_equal "alist\n" [cli --scan --type list]
    }

    test "--bigkeys summary; --memkeys fails cleanly without MEMORY USAGE" {
        need_cli
        r rpush biglist a b c
        set out [cli --bigkeys]
        assert_match "*Biggest   list found '\"biglist\"' has 3 items*" $out
        assert_match "*Sampled 302 keys in the keyspace!*" $out
        lassign [run_cli -h [srv host] -p [srv port] --memkeys] status out err
        if {$status} {
            assert_match "Error: MEMORY USAGE*" $err
        } else {
            assert_match "*Biggest*bytes*" $out
        }
    }

    test "--memkeys: the biggest key of each type by MEMORY USAGE; same output as Redis's redis-cli" {
        need_cli
        r flushall
        r set str [string repeat x 100]
        r set small v
        r rpush list a b c
        r hset hash f1 v1 f2 v2
        r sadd set m1 m2
        r zadd zset 1 a 2 b
        for {set i 0} {$i < 300} {incr i} { r hset bighash field:$i [string repeat v 20] }
        lassign [run_cli -h [srv host] -p [srv port] --memkeys] status out err
        assert_equal {0 {}} [list $status $err]
        foreach {type key} {list list hash bighash string str set set zset zset} {
            set size [r memory usage $key]
            assert_match "*Biggest [format %6s $type] found '\"$key\"' has $size bytes*" $out
        }
        assert_match "*Sampled 7 keys in the keyspace!*" $out
        # Against the same server Redis's redis-cli asks the same MEMORY
        # USAGE questions, so it must print the same bytes -- except the
        # progress percentages, which it computes once per SCAN batch.
        if {![file executable $::cli_ref]} return
        set mask {(?n)^\[\d+\.\d\d%\]}
        foreach opts {{--memkeys} {--memkeys --memkeys-samples 2}} {
            set ours [run_cli -h [srv host] -p [srv port] {*}$opts]
            set theirs [run_cli -prog ref -h [srv host] -p [srv port] {*}$opts]
            foreach what {status stdout stderr} a $ours b $theirs {
                regsub -all $mask $a {[..%]} a
                regsub -all $mask $b {[..%]} b
                if {$a ne $b} { fail "redis-cli $opts: $what differs\n--- ours:\n[show $a]\n--- Redis 7.0:\n[show $b]" }
            }
        }
    }

    test "--latency prints one summary line when not on a terminal" {
        need_cli
        set out [cli --latency -i 0.2]
        assert_match {[0-9]* [0-9]* [0-9]*.[0-9][0-9] [0-9]*} $out
    }

    # ---- byte-for-byte against Redis's redis-cli ----------------------------------------------

    test "byte-for-byte: one-shot replies in raw, formatted and CSV modes" {
        need_ref
        r flushall
        r rpush l a b "c d"
        r hset h f1 v1 f2 "v 2"
        r sadd s x
        r set k "a\"b\x01\n"
        set hp [list -h [srv host] -p [srv port]]
        foreach mode {--raw --no-raw --csv --json --quoted-json} {
            foreach cmd {{get k} {get nokey} {exists k} {lrange l 0 -1} {lrange nol 0 -1} {hgetall h}
                         {-3 hgetall h} {-3 smembers s} {-3 hgetall nohash} {get} {nosuchcmd x}
                         {-e get} {-3 get nokey} {-d , lrange l 0 -1} {-D X get k} {-n 2 dbsize}} {
                compare_cli_sampled {*}$hp $mode {*}$cmd
            }
        }
        # Reports print as they are (no quotes, no added newline) in every mode.
        foreach mode {--raw --no-raw --csv} {
            foreach cmd {{info keyspace} {INFO Keyspace} {memory doctor} {latency doctor} {latency doctor x}
                         {lolwut} {-3 info keyspace} {-r 2 info keyspace} {-e client list x}} {
                compare_cli_sampled {*}$hp $mode {*}$cmd
            }
        }
        compare_cli -reset {r del t} {*}$hp -r 3 incr t
        compare_cli -reset {r del xk} -in "from stdin\n" {*}$hp -x set xk
        compare_cli {*}$hp -a wrongpass ping
        compare_cli {*}$hp --user u --pass p ping
        compare_cli {*}$hp -n 99 ping
        compare_cli -p [::harness::find_free_port] ping
        compare_cli --bogus
        compare_cli -p
    }

    test "--eval file key1 key2 , arg1 arg2 sends EVAL with the keys before the comma" {
        need_ref
        set script [file join $::cli_tmp eval.lua]
        spit $script "return {KEYS\[1\], KEYS\[2\], ARGV\[1\], ARGV\[2\], #KEYS, #ARGV}"
        set hp [list -h [srv host] -p [srv port]]
        assert_equal "k1\nk2\na1\na2\n2\n2\n" [cli --eval $script k1 k2 , a1 a2]
        foreach mode {--raw --no-raw} {
            foreach args {{k1 k2 , a1 a2} {k1} {, a1 a2} {} {a , b , c}} {
                compare_cli {*}$hp $mode --eval $script {*}$args
            }
        }
        spit $script "return redis.call('nosuch')"
        compare_cli {*}$hp --eval $script
        compare_cli {*}$hp --eval [file join $::cli_tmp nosuch.lua]
    }

    test "byte-for-byte: batch mode and --pipe" {
        need_ref
        set hp [list -h [srv host] -p [srv port]]
        compare_cli -reset {r del a cnt} -in "set a 1\nincr a\nget a\nfoo\n3 incr cnt\nget \"x\nping\n" {*}$hp
        compare_cli -reset {r del a} -in "set a 1\nget a\n" {*}$hp --no-raw
        compare_cli -in "ping\nping\n" -p [::harness::find_free_port]
        set proto "*3\r\n\$3\r\nSET\r\n\$1\r\nk\r\n\$1\r\nv\r\n*1\r\n\$3\r\nFOO\r\n"
        compare_cli -in $proto {*}$hp --pipe
        compare_cli -in "" {*}$hp --pipe
        compare_cli {*}$hp --scan --pattern key:2*
    }

    test "byte-for-byte: --json and --quoted-json, every reply type from a fake server" {
        need_ref
        with_fake_server {
            foreach bytes [concat [lmap c $::reply_cases {lindex $c 0}] $::json_cases] {
                # Redis 7.0's cli cannot print big numbers (it aborts): ours only.
                if {[string index $bytes 0] eq "("} continue
                fake_reply $bytes
                foreach mode {--json --quoted-json {--json -2} {--quoted-json -3}} {
                    compare_cli_sampled -p $::fake_port {*}$mode x
                }
            }
        }
    }

    test "byte-for-byte: --json against the server (RESP3 unless -2, reports as they are)" {
        need_ref
        r flushall
        r hset h f1 v1 f2 "v\"2"
        r rpush l a "\xc3\xa9"
        set hp [list -h [srv host] -p [srv port]]
        foreach mode {--json --quoted-json} {
            foreach cmd {{hgetall h} {-2 hgetall h} {lrange l 0 -1} {get nokey} {nosuchcmd} {-e get}
                         {info keyspace} {-r 2 ping}} {
                compare_cli_sampled {*}$hp $mode {*}$cmd
            }
        }
    }

    test "byte-for-byte: HELP of the Redis 7.0 commands this server lacks, help @group, help for nothing" {
        need_ref
        set input ""
        # (not REPLICAOF/SLAVEOF: our table has COMMAND DOCS' "host port|NO ONE",
        # the 7.0.15 cli's built-in one the older "host port")
        foreach cmd {xadd geoadd eval acl "acl cat" georadius xreadgroup "function load" wait xautoclaim} {
            # a command that has landed in commands.def prints commands.def's facts
            if {[lindex [r command info [lindex $cmd 0]] 0] ne ""} continue
            append input "help $cmd\n"
        }
        append input "help nosuchcommand\nhelp\n"
        # Redis 7.0's cli takes its help from the server's COMMAND DOCS when
        # it can, and from its own table when COMMAND DOCS fails: the fake
        # server refuses it, so both tools print what they know themselves.
        with_fake_server {
            fake_reply "-ERR unknown command\r\n"
            compare_cli -in $input -p $::fake_port
        }
        set out [cli_in "help @stream\n"]
        foreach cmd {XADD XRANGE XREADGROUP XAUTOCLAIM "XINFO STREAM" "XGROUP CREATE"} {
            assert {[string first "\x1b\[1m$cmd\x1b\[0m" $out] >= 0} "$cmd in help @stream"
        }
        assert {[string first "summary:\x1b\[0m Appends a new entry to a stream\r\n" $out] >= 0}
        assert_no_match "*group:*" $out
    }

    test "--help lists the supported options in Redis 7.0's words" {
        need_ref
        lassign [run_cli --help] status ours
        lassign [run_cli -prog ref --help] status theirs
        set known [split $theirs \n]
        # ours only: --scan's --count and --type, and the true --precision default
        foreach line [split $ours \n] {
            if {[string match "  --count *" $line] || [string match "  --type *" $line]} continue
            if {[string match "  --shm *" $line]} continue ;# our shared-memory transport
            assert {[lsearch -exact $known $line] >= 0} "not in Redis's --help: '$line'"
        }
        foreach opt {-u -x -e --json --quoted-json --intrinsic-latency --pipe --scan --bigkeys --memkeys
                     --latency-dist --no-auth-warning --show-pushes --eval} {
            assert_match "*\n  $opt *" $ours
        }
        foreach opt {--rdb --replica --hotkeys --askpass --lru-test -X --cluster -c --verbose --ldb --ldb-sync-mode} {
            assert_match "*\n  $opt *" $ours
        }
        assert_match "*\nCluster Manager Commands:\n  Use --cluster help *" $ours
    }

    test "--intrinsic-latency prints the max latency so far, then Redis's summary" {
        need_cli
        lassign [run_cli --intrinsic-latency 1] status out err
        assert_equal 0 $status $err
        set lines [split $out \n]
        assert {[llength $lines] >= 5} $out
        foreach line [lrange $lines 0 end-4] {
            assert {[regexp {^Max latency so far: [0-9]+ microseconds\.$} $line]} $line
        }
        assert_equal "" [lindex $lines end-3]
        assert {[regexp {^[0-9]+ total runs \(avg latency: [0-9]+\.[0-9]{4} microseconds / [0-9]+\.[0-9]{2} nanoseconds per run\)\.$} [lindex $lines end-2]]} $out
        assert {[regexp {^Worst run took [0-9]+x longer than the average latency\.$} [lindex $lines end-1]]} $out
        assert_equal "" [lindex $lines end]
    }

    test "byte-for-byte: every reply type from a fake server" {
        need_ref
        with_fake_server {
            foreach case $::reply_cases {
                lassign $case bytes expected
                # Redis 7.0's cli cannot print big numbers (it aborts): ours only.
                if {[string index $bytes 0] eq "("} continue
                fake_reply $bytes
                foreach mode {--no-raw --raw --csv {--raw -d ,}} {
                    compare_cli_sampled -p $::fake_port {*}$mode x
                }
            }
        }
    }

    # Redis's cli prints the replies of these command lines in the raw
    # format with nothing appended, whatever the mode; ours used to quote
    # INFO on a terminal ("# Keyspace\r\n...") and add a newline when piped.
    test "byte-for-byte: reports (INFO, CLIENT LIST, MEMORY DOCTOR ...) are printed as they are" {
        need_ref
        set report "# Keyspace\r\ndb0:keys=1,expires=0,avg_ttl=0\r\n"
        set commands {
            {info} {info keyspace} {Info} {lolwut} {lolwut version 5} {client list} {CLIENT INFO}
            {client list id 1} {memory doctor} {memory malloc-stats} {latency doctor} {latency graph command}
            {debug htstats 0} {debug htstats-key k} {debug client-eviction} {cluster nodes} {cluster info}
            {proxy info}
            {latency doctor x} {latency graph} {cluster info x} {client} {memory usage k} {debug object k}
        }
        set bulk "\$[string length $report]\r\n$report\r\n"
        set verbatim "=[expr {[string length $report] + 4}]\r\ntxt:$report\r\n"
        with_fake_server {
            # every command line with a report; every other reply type with a few
            foreach reply [list $bulk $verbatim "-ERR no\r\n" ":3\r\n" "*2\r\n\$1\r\na\r\n-ERR x\r\n" "\$-1\r\n"] \
                    cmds [list $commands $commands {{info} {client list} {client}} {{info} {client}} {{info} {client}} {{info}}] {
                fake_reply $reply
                foreach mode {--no-raw --raw --csv {--raw -d , -D X}} {
                    foreach cmd $cmds {
                        compare_cli_sampled -p $::fake_port {*}$mode {*}$cmd
                    }
                }
            }
        }
    }

    test "reports print as they are, on a terminal and piped" {
        need_cli
        with_fake_server {
            fake_reply "\$12\r\n# Keyspace\r\n\r\n"
            foreach mode {--no-raw --raw --csv} {
                foreach cmd {{info} {client list} {client info} {memory doctor} {latency doctor} {lolwut}} {
                    lassign [run_cli -p $::fake_port $mode {*}$cmd] status out err
                    assert_equal "# Keyspace\r\n" $out "$cmd with $mode"
                }
            }
            lassign [run_cli -p $::fake_port --no-raw latency doctor x] status out err
            assert_equal "\"# Keyspace\\r\\n\"\n" $out "LATENCY DOCTOR with an argument is no report"
        }
    }

    test "every reply type in the three formats (fake server)" {
        need_cli
        with_fake_server {
            foreach case $::reply_cases {
                lassign $case bytes expected
                fake_reply $bytes
                foreach mode {--no-raw --raw --csv} want $expected {
                    lassign [run_cli -p $::fake_port {*}$mode -3 x] status out err
                    assert_equal $want $out "reply [show $bytes] with $mode"
                }
            }
        }
    }
}

# ---- interactive, through a pseudo-terminal ---------------------------------------------------

proc need_pty_driver {} {
    need_cli
    set ::pty_driver [file join $::cli_tmp pty-driver]
    if {[file executable $::pty_driver]} return
    set cc [auto_execok cc]
    if {$cc eq ""} { set cc [auto_execok gcc] }
    if {$cc eq ""} { skip "no C compiler to build tests/helpers/pty-driver.c" }
    set src [file normalize [file join [file dirname [info script]] .. helpers pty-driver.c]]
    if {![file exists $src]} { set src [file normalize tests/helpers/pty-driver.c] }
    exec {*}$cc -O2 -o $::pty_driver $src
}

# Runs the interactive cli under the pty driver with a script of steps.
# Returns the transcript; fails the test when a step timed out.
proc pty_session {script args} {
    set sfile [file join $::cli_tmp pty-script]
    spit $sfile $script
    set home $::env(HOME)
    set ::env(HOME) $::cli_tmp
    set ::env(PTY_TIME_FACTOR) [::harness::factor]
    set code [catch {exec $::pty_driver $sfile {*}$::cli_wrapper $::cli_bin {*}$args 2>@1} out]
    set ::env(HOME) $home
    if {$code || [string match "*pty-driver:*" $out]} {
        fail "interactive session failed:\n[show [string range $out end-3000 end]]"
    }
    return $out
}

start_server {tags {cli interactive}} {
    set hp [list -h [srv host] -p [srv port]]
    # A fresh, empty prompt: the prompt followed by erase-to-end-of-line.
    set p "expect [srv port]> \\e\[0K"
    set p2 "expect [srv port]\[2\]> \\e\[0K"

    test "interactive: prompt, SELECT in the prompt, MULTI marker, replies formatted, INFO as lines" {
        need_pty_driver
        set out [pty_session [join [list \
            $p {send set foo bar\r} {expect OK} \
            $p {send select 2\r} {expect OK} \
            $p2 {send lrange nol 0 -1\r} {expect (empty array)} \
            $p2 {send multi\r} {expect OK} \
            "expect [srv port]\[2\](TX)> \\e\[0K" {send discard\r} {expect OK} \
            $p2 {send get\r} {expect (error) ERR wrong number} \
            $p2 {send echo "a b"\r} {expect "a b"} \
            $p2 {send info keyspace\r} {expect # Keyspace\r\r\ndb0:keys=} \
            $p2 {send quit\r} wait] \n] {*}$hp]
        assert_match "*127.0.0.1:[srv port]> *" $out
    }

    test "interactive: history recall, persistent history file, line editing keys" {
        need_pty_driver
        set hist [file join $::cli_tmp .rediscli_history]
        file delete $hist
        pty_session [join [list \
            $p {send echo first\r} {expect "first"} \
            $p {send echo second\r} {expect "second"} \
            $p {send \e[A\e[A\r} {expect "first"} \
            $p {send echo abcdef\x01\x06\x06\x06\x06\x06X\x05Y\x02\x02\x7fZ\r} {expect "XabcdZfY"} \
            $p {send echo bcdef\x02\x02\x0bZ\x01\x06\x06\x06\x06\x06\x06\x7fW\r} {expect "WcdZ"} \
            $p {send junk words here\x15echo \x17echo killed\r} {expect "killed"} \
            $p {send \x12seco\r} {expect "second"} \
            $p {send auth secretpassword\r} {expect (error)} \
            $p {send quit\r} wait] \n] {*}$hp
        assert_equal "echo first\necho second\necho first\necho XabcdZfY\necho WcdZ\necho killed\necho second\n" \
            [slurp $hist]
    }

    test "interactive: REDISCLI_HISTFILE=/dev/null keeps no history" {
        need_pty_driver
        set hist [file join $::cli_tmp .rediscli_history]
        file delete $hist
        set ::env(REDISCLI_HISTFILE) /dev/null
        set code [catch {pty_session [join [list $p {send echo x\r} {expect "x"} $p {send quit\r} wait] \n] {*}$hp} err]
        unset ::env(REDISCLI_HISTFILE)
        if {$code} { error $err }
        assert_equal 0 [file exists $hist]
    }

    test "interactive: tab completion, hints and HELP from the command table" {
        need_pty_driver
        set out [pty_session [join [list \
            $p {send hgeta\t nohash\r} {expect (empty array)} \
            $p {send HINCRBYF\t\r} {expect ERR wrong number of arguments for 'hincrbyfloat'} \
            $p {send lpos } {expect key element [RANK rank]} {send \x15} {sleep 100} {send \r} \
            $p {send help lpos\r} {expect summary:} {expect since:} \
            $p {send help @hash\r} {expect HSETNX} \
            $p {send quit\r} wait] \n] {*}$hp]
        assert_match "*HGETALL nohash*" $out
        assert_match "*HINCRBYFLOAT*" $out
    }

    # As Redis's cli: the candidate is the table's name, shown with its hint;
    # after "help " the @groups come first.
    test "interactive: completion inserts the command's name and shows its hint" {
        need_pty_driver
        set hint "\\e\[0;90;49m"
        set out [pty_session [join [list \
            $p {send hgeta\t} "expect HGETALL$hint key" {send \x15} {sleep 50} {send \r} \
            $p {send geoa\t} "expect GEOADD$hint key \[NX | XX\] \[CH\] longitude" {send \x15} {sleep 50} {send \r} \
            $p {send help xa\t} {expect help XACK} {send \x15} {sleep 50} {send \r} \
            $p {send help @st\t} {expect help @stream} {send \t} {expect help @string} {send \x15} {sleep 50} {send \r} \
            $p {send help \t} {expect help @bitmap} {send \x15} {sleep 50} {send \r} \
            $p {send quit\r} wait] \n] {*}$hp]
        assert_match "*HGETALL*" $out
    }

    test "interactive: hints and HELP for Redis 7.0 commands this server lacks" {
        need_pty_driver
        set out [pty_session [join [list \
            $p {send wait } {expect numreplicas timeout} {send \x15} {sleep 50} {send \r} \
            $p {send xadd k } {expect [NOMKSTREAM]} {send \x15} {sleep 50} {send \r} \
            $p {send help xadd\r} {expect Appends a new entry to a stream} {expect since:} \
            $p {send quit\r} wait] \n] {*}$hp]
        assert_match "*group:*stream*" $out
    }

    test "interactive: ~/.redisclirc and :set hints / :set nohints" {
        need_pty_driver
        set rc [file join $::cli_tmp .redisclirc]
        spit $rc ":set nohints\n:set bogus\n:bogus x\n"
        set hint "get\\e\[0;90;49m key"
        # nohints from the file: no hint until ":set hints" is typed
        set out [pty_session [join [list \
            {expect .redisclirc: unknown redis-cli preference 'bogus'} \
            {expect .redisclirc: unknown redis-cli internal command ':bogus'} \
            $p {send get} {sleep 200} {send \x15:set hints\r} \
            $p {send get} "expect $hint" {send \x15:set zz\r} {expect unknown redis-cli preference 'zz'} \
            $p {send :zz\r} {expect unknown redis-cli internal command ':zz'} \
            $p {send :set nohints\r} \
            $p {send quit\r} wait] \n] {*}$hp]
        set before_set [string range $out 0 [string first ":set hints" $out]]
        assert {[string first "get\x1b\[0;90;49m" $before_set] < 0} "a hint despite :set nohints"
        # REDISCLI_RCFILE names another file
        set other [file join $::cli_tmp other-rc]
        spit $other ":set what\n"
        set ::env(REDISCLI_RCFILE) $other
        set code [catch {pty_session [join [list {expect .redisclirc: unknown redis-cli preference 'what'} \
            $p {send quit\r} wait] \n] {*}$hp} err]
        unset ::env(REDISCLI_RCFILE)
        file delete $rc
        if {$code} { error $err }
    }

    test "interactive: the history file is created with mode 0600" {
        need_pty_driver
        set hist [file join $::cli_tmp .rediscli_history]
        file delete $hist
        pty_session [join [list $p {send echo x\r} {expect "x"} $p {send quit\r} wait] \n] {*}$hp
        assert_equal 00600 [file attributes $hist -permissions]
        # an existing file with wider permissions is narrowed
        file attributes $hist -permissions 0644
        pty_session [join [list $p {send echo y\r} {expect "y"} $p {send quit\r} wait] \n] {*}$hp
        assert_equal 00600 [file attributes $hist -permissions]
        # REDISCLI_HISTFILE names another file
        set other [file join $::cli_tmp other-history]
        file delete $other
        set ::env(REDISCLI_HISTFILE) $other
        set code [catch {pty_session [join [list $p {send echo z\r} {expect "z"} $p {send quit\r} wait] \n] {*}$hp} err]
        unset ::env(REDISCLI_HISTFILE)
        if {$code} { error $err }
        assert_equal "echo z\n" [slurp $other]
        assert_equal 00600 [file attributes $other -permissions]
    }

    test "interactive: reconnects after the server restarts" {
        need_pty_driver
        set flag [file join $::cli_tmp restarted]
        file delete $flag
        set sfile [file join $::cli_tmp pty-script]
        spit $sfile [join [list \
            $p {send set before restart\r} {expect OK} \
            $p "waitfile $flag" {send echo after\r} {expect "after"} \
            $p {send quit\r} wait] \n]
        set log [file join $::cli_tmp pty-out]
        set home $::env(HOME)
        set ::env(HOME) $::cli_tmp
        set pid [exec $::pty_driver $sfile {*}$::cli_wrapper $::cli_bin {*}$hp > $log 2>@1 &]
        set ::env(HOME) $home
        wait_for_condition 200 50 {[string match "*OK*" [slurp $log]]} else {
            fail "no OK from the first command: [show [slurp $log]]"
        }
        restart_server
        spit $flag ""
        wait_for_condition 200 50 {![::harness::pid_alive $pid]} else {
            catch {exec kill $pid}
            fail "the session did not end: [show [slurp $log]]"
        }
        set out [slurp $log]
        assert_no_match "*pty-driver:*" $out
        assert_match "*\"after\"*" $out
    }

    test "interactive: 'not connected' prompt when the server is down" {
        need_pty_driver
        set port [::harness::find_free_port]
        set out [pty_session [join [list \
            "expect not connected> \\e\[0K" {send ping\r} {expect Could not connect} \
            "expect not connected> \\e\[0K" {send quit\r} wait] \n] -p $port]
        assert_match "*Connection refused*" $out
    }

    test "interactive: --askpass masks the password on a terminal, to the end of the line" {
        need_pty_driver
        r config set requirepass hunter2
        set code [catch {pty_session [join [list \
            "expect Please input password: " {send hunter2\r} {expect PONG} wait] \n] {*}$hp --askpass ping} out]
        r auth hunter2
        r config set requirepass ""
        if {$code} { error $out }
        assert_match "*Please input password: \\*\\*\\*\\*\\*\\*\\*\x1b*" $out
        assert_no_match "*hunter2*" $out
    }

    test "interactive: SUBSCRIBE streams messages until ctrl-c" {
        need_pty_driver
        set out [pty_session [join [list \
            $p {send subscribe news\r} {expect Reading messages} \
            {sleep 200} {send \x03} \
            $p {send ping\r} {expect PONG} \
            $p {send quit\r} wait] \n] {*}$hp]
        assert_match "*1) \"subscribe\"*2) \"news\"*3) (integer) 1*" $out
    }
}

# ---- the Lua debugger (--ldb) ---------------------------------------------------------

set ::ldb_script [file join $::cli_tmp ldb.lua]
spit $::ldb_script "local a = 1\nredis.call('set', KEYS\[1\], ARGV\[1\])\nlocal t = {1, 2, {x = 3}}\nredis.debug('hello', a, t)\nredis.breakpoint()\nlocal b = redis.call('get', KEYS\[1\])\nreturn b\n"
set ::ldb_bad_script [file join $::cli_tmp ldb-bad.lua]
spit $::ldb_bad_script "return 1 +\n"

# Every debugger command once, then the session's end.
set ::ldb_input "h\nn\nn\np\np a\np KEYS\nb 6\nb\nb -6\nb 99\nb x\nl\nl 3 1\nw\nt\ne a+1\ne nosuch(\nr get foo\nr nosuchcmd x\nm\nm 10\nr set foo [string repeat 1 80]\nm 0\nzz\nc\nc\n"

start_server {tags {cli ldb}} {
    set hp [list -h [srv host] -p [srv port]]
    set saved_term [expr {[info exists ::env(TERM)] ? $::env(TERM) : ""}]
    set ::env(TERM) dumb

    test "--ldb: a forked session, every command, its writes rolled back" {
        need_cli
        r set foo old
        lassign [run_cli -in $::ldb_input {*}$hp --ldb --eval $::ldb_script foo , bar] status out err
        assert_equal 0 $status $err
        assert_match "Lua debugging session started, please use:\nquit    -- End the session.\n*" $out
        assert_match "*\n* Stopped at 1, stop reason = step over\n-> 1   local a = 1\nRedis Lua debugger help:\n*" $out
        assert_match "*\n<redis> set foo bar\n<reply> \"+OK\"\n*" $out
        assert_match "*\n<value> {\"foo\"}\n*\n<error> Unknown Redis Lua debugger command or wrong number of arguments.\n*" $out
        assert_match "*\n\n\"[string repeat 1 80]\"\n\n(Lua debugging session ended -- dataset changes rolled back)\n\n" $out
        assert_equal old [r get foo]
    }

    test "--ldb prints what Redis 7.0's redis-cli prints" {
        need_ref
        compare_cli -reset {r set foo old} -in $::ldb_input {*}$hp --ldb --eval $::ldb_script foo , bar
        assert_equal old [r get foo]
    }

    test "--ldb-sync-mode: the session's writes stay" {
        need_ref
        compare_cli -reset {r set foo old} -in "n\nn\nc\nc\n" {*}$hp --ldb-sync-mode --eval $::ldb_script foo , bar
        assert_equal bar [r get foo]
        lassign [run_cli -in "c\nc\n" {*}$hp --ldb-sync-mode --eval $::ldb_script foo , sync] status out
        assert_match "*\n(Lua debugging session ended)\n\n" $out
        assert_equal sync [r get foo]
    }

    test "--ldb: abort, a script that does not compile, restart, help, eval lines" {
        need_ref
        compare_cli -in "n\na\n" {*}$hp --ldb-sync-mode --eval $::ldb_script foo , bar
        compare_cli -in "c\n" {*}$hp --ldb --eval $::ldb_bad_script
        compare_cli -in "n\nrestart\nn\nc\nc\n" {*}$hp --ldb --eval $::ldb_script foo , bar
        compare_cli -in "help\nc\nc\n" {*}$hp --ldb --eval $::ldb_script foo , bar
        compare_cli -in "eval 1 + 1\ne  'a' .. 'b'\ne {1, 'x'}\nc\nc\n" {*}$hp --ldb --eval $::ldb_script foo , bar
        compare_cli -in "c\nc\nping\nget foo\n" {*}$hp --ldb --eval $::ldb_script foo , bar
        compare_cli -in "restart\n" {*}$hp
    }

    test "--ldb colors the lines on an xterm" {
        need_ref
        set ::env(TERM) xterm-256color
        set code [catch {compare_cli -in $::ldb_input {*}$hp --ldb --eval $::ldb_script foo , bar} msg]
        set ::env(TERM) dumb
        if {$code} { error $msg }
        lassign [run_cli -in "n\nc\nc\n" {*}$hp --ldb --eval $::ldb_script foo , bar] status out
        assert_no_match "*\x1b*" $out
    }

    test "SCRIPT DEBUG then EVAL typed at the prompt is a session" {
        need_ref
        compare_cli -reset {r set foo old} -in "script debug sync\neval \"redis.call('set', 'foo', 'typed') return 1\" 0\nn\nping\nget foo\n" {*}$hp
        assert_equal typed [r get foo]
    }

    test "--ldb without --eval" {
        need_cli
        lassign [run_cli {*}$hp --ldb] status out err
        assert_equal 1 $status
        assert_match "Options --ldb and --ldb-sync-mode require --eval.\nTry * --help for more information.\n" $err
        need_ref
        lassign [run_cli {*}$hp --ldb-sync-mode] status out theirs_err
        lassign [run_cli -prog ref {*}$hp --ldb-sync-mode] status out ref_err
        assert_equal [lindex [split $ref_err \n] 0] [lindex [split $theirs_err \n] 0]
    }

    set ::env(TERM) $saved_term
}
