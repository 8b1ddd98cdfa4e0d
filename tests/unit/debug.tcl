# debug.tcl -- DEBUG: who may run it (enable-debug-command), its
# subcommands (OBJECT, DIGEST, DIGEST-VALUE, SLEEP, SET-ACTIVE-EXPIRE,
# POPULATE, PROTOCOL, ERROR, LOG, CHANGE-REPL-ID, COMMAND-TABLE, HELP), and
# the crash report written when the server dies of SIGSEGV, SIGBUS, a stack
# overflow, a failed assertion or a panic; Redis 7.0's crash-log-enabled,
# crash-memcheck-enabled, use-exit-on-panic and watchdog-period directives;
# and its test hooks DEBUG AOF-FLUSH-SLEEP and DEBUG REPLICATE.
#
# Crash tests kill their own server on purpose, each in its own block, and
# then read its log. They run natively and under QEMU (--wrapper): the
# program counter must be decoded on every CPU we target; a backtrace is
# required natively and, under an emulator, either present or explicitly
# reported unavailable (it needs unwind tables on 32-bit ARM and SPARC64).

set ::debug_not_allowed "ERR DEBUG command not allowed. If the enable-debug-command option is set to \"local\", you can run it from a local connection, otherwise you need to set this option in the configuration file, and then restart the server."

# Sends DEBUG <args>, which must kill the server; returns {how log} where
# how is the harness's account of the death ("... killed by SIGSEGV ...").
proc crash_server_with {args} {
    set pid [srv pid]
    set rd [redis_deferring_client]
    $rd client setname crash-client
    $rd debug {*}$args
    $rd flush
    if {![::harness::wait_pid_exit $pid [expr {1000 * [::harness::scaled 30]}]]} {
        fail "DEBUG $args did not kill the server"
    }
    set how [::harness::dead_servers_report]
    catch {$rd close}
    return [list $how [::harness::read_file [srv stdout]]]
}

# The lines of LOG after the first one matching PATTERN.
proc log_after {log pattern} {
    set lines [split $log \n]
    set i [lsearch -glob $lines $pattern]
    if {$i < 0} { fail "no log line matches '$pattern'" }
    return [lrange $lines [expr {$i + 1}] end]
}

# The checks every crash report must pass.
proc assert_crash_report {log signal command} {
    assert_match "*Redis * crashed by signal: * ($signal), si_code: *" $log
    assert_match "*Crashed running the instruction at: 0x*" $log "the program counter of this CPU is decoded"
    assert_match {*------ STACK TRACE ------*EIP:*\[0x*} $log
    set trace [log_after $log "Backtrace:"]
    set frames [llength [lsearch -all -glob [lrange $trace 0 20] {*\[0x*\]*}]]
    set no_unwinder [string match "*(backtrace unavailable: no stack unwinder for this C library)*" \
                                  [join [lrange $trace 0 2] \n]]
    if {$::harness::opt(wrapper) eq "" && !$no_unwinder} {
        assert {$frames >= 3} "a native build has a backtrace (got $frames frames)"
        # our frames are named from the binary's own symbol table, static
        # functions too, in backtrace_symbols_fd()'s format
        assert_match "*redis-server(debug*+0x*)\\\[0x*\\\]*" [join [lrange $trace 0 30] \n]
    } elseif {$frames < 2} {
        assert_match "*(backtrace unavailable: *" [join [lrange $trace 0 2] \n] "no frames must be said, not hidden"
    }
    assert_match "*------ REGISTERS ------*" $log
    assert_match "*------ INFO OUTPUT ------*# Server*redis_version:*# Keyspace*" $log
    assert_match "*------ CURRENT CLIENT INFO ------*name=crash-client *" $log
    assert_match "*argv\\\[0\\\]: \"debug\"*argv\\\[1\\\]: \"$command\"*" $log
    assert_match "*=== REDIS BUG REPORT END. Make sure to include from START to END. ===*" $log
}

# ---- an independent SHA1 and the digest construction, to check DEBUG DIGEST --------------------

proc sha1_bytes {msg} {
    lassign {0x67452301 0xEFCDAB89 0x98BADCFE 0x10325476 0xC3D2E1F0} h0 h1 h2 h3 h4
    set bits [expr {[string length $msg] * 8}]
    append msg \x80
    while {[string length $msg] % 64 != 56} { append msg \x00 }
    append msg [binary format W $bits]
    for {set off 0} {$off < [string length $msg]} {incr off 64} {
        binary scan [string range $msg $off [expr {$off + 63}]] Iu16 w
        for {set i 16} {$i < 80} {incr i} {
            set x [expr {[lindex $w $i-3] ^ [lindex $w $i-8] ^ [lindex $w $i-14] ^ [lindex $w $i-16]}]
            lappend w [expr {(($x << 1) | ($x >> 31)) & 0xFFFFFFFF}]
        }
        lassign [list $h0 $h1 $h2 $h3 $h4] a b c d e
        for {set i 0} {$i < 80} {incr i} {
            if {$i < 20} {
                set f [expr {($b & $c) | (~$b & $d)}]; set k 0x5A827999
            } elseif {$i < 40} {
                set f [expr {$b ^ $c ^ $d}]; set k 0x6ED9EBA1
            } elseif {$i < 60} {
                set f [expr {($b & $c) | ($b & $d) | ($c & $d)}]; set k 0x8F1BBCDC
            } else {
                set f [expr {$b ^ $c ^ $d}]; set k 0xCA62C1D6
            }
            set t [expr {((($a << 5) | ($a >> 27)) + $f + $e + $k + [lindex $w $i]) & 0xFFFFFFFF}]
            set e $d
            set d $c
            set c [expr {(($b << 30) | ($b >> 2)) & 0xFFFFFFFF}]
            set b $a
            set a $t
        }
        foreach v {h0 h1 h2 h3 h4} x [list $a $b $c $d $e] { set $v [expr {([set $v] + $x) & 0xFFFFFFFF}] }
    }
    return [binary format IIIII $h0 $h1 $h2 $h3 $h4]
}

proc hex {bytes} {
    binary scan $bytes H* h
    return $h
}

# digest XOR SHA1(data)
proc xor_digest {digest data} {
    set out ""
    foreach x [split $digest ""] y [split [sha1_bytes $data] ""] {
        append out [format %c [expr {[scan $x %c] ^ [scan $y %c]}]]
    }
    return $out
}

# SHA1(digest XOR SHA1(data))
proc mix_digest {digest data} {
    return [sha1_bytes [xor_digest $digest $data]]
}

# The digest of one string key: its name, type 0 (string), its value.
proc string_key_digest {name value} {
    set d [mix_digest [string repeat \x00 20] $name]
    set d [mix_digest $d [binary format I 0]]
    return [mix_digest $d $value]
}

start_server {tags {debug} overrides {enable-debug-command no}} {
    test "DEBUG is refused when enable-debug-command is no" {
        assert_error $::debug_not_allowed {r debug help}
        assert_error $::debug_not_allowed {r debug segfault}
        assert_equal PONG [r ping]
    }

    test "A refused DEBUG is refused when queued, so EXEC aborts (as in Redis)" {
        r multi
        assert_error $::debug_not_allowed {r debug sleep 0}
        assert_error "EXECABORT*" {r exec}
    }

    test "A refused DEBUG is refused before authentication is asked for" {
        r config set requirepass secret
        set c [redis_client]
        assert_error $::debug_not_allowed {$c debug help}
        assert_error "NOAUTH*" {$c ping}
        assert_error "ERR wrong number of arguments for 'debug' command" {$c debug}
        $c close
        r auth secret
        r config set requirepass ""
    }
}

start_server {tags {debug} overrides {enable-debug-command local}} {
    test "DEBUG with enable-debug-command local is allowed over loopback" {
        assert_equal OK [r debug sleep 0]
    }
}

start_server {tags {debug} overrides {enable-debug-command yes}} {
    test "DEBUG OBJECT describes a value" {
        r set obj-key hello
        set line [r debug object obj-key]
        assert_match "Value at:0x* refcount:1 encoding:embstr serializedlength:6 lru:* lru_seconds_idle:*" $line
        r set obj-int 12345
        assert_match "* encoding:int serializedlength:3 *" [r debug object obj-int]
        r set obj-raw [string repeat x 100]
        assert_match "* encoding:raw serializedlength:* *" [r debug object obj-raw]
        regexp {serializedlength:(\d+)} [r debug object obj-raw] -> len
        assert_lessthan $len 20 ;# LZF-compressed (Redis's compressor: 13 bytes, ours: 9)
        assert_error "ERR no such key" {r debug object no-such-key}
    }

    test "DEBUG OBJECT of a quicklist describes its nodes" {
        r config set list-max-listpack-size 4
        r del ql
        r rpush ql 1 2 3 4 5 6 7 8 9 10
        set line [r debug object ql]
        assert_match "* encoding:quicklist *" $line
        # 3 nodes of 4, 4 and 2 elements of 15, 15 and 11 bytes
        assert_match "* lru_seconds_idle:* ql_nodes:3 ql_avg_node:3.33 ql_listpack_max:4 ql_compressed:0 ql_uncompressed_size:41" $line
        # the depth is taken when the list is created
        r config set list-compress-depth 1
        r rpush ql 11
        assert_match "* ql_avg_node:3.67 ql_listpack_max:4 ql_compressed:0 *" [r debug object ql]
        r del ql
        r rpush ql 1 2 3 4 5 6 7 8 9 10 11
        assert_match "* ql_nodes:3 ql_avg_node:3.67 ql_listpack_max:4 ql_compressed:1 *" [r debug object ql]
        r config set list-compress-depth 0
        r config set list-max-listpack-size -2
        r hset small-hash f v
        assert_no_match "*ql_nodes*" [r debug object small-hash]
    }

    test "DEBUG DIGEST is 40 zeros for an empty dataset and changes with any write" {
        r flushall
        set zero [string repeat 0 40]
        assert_equal $zero [r debug digest]
        r set a 1
        set one [r debug digest]
        assert_match {[0-9a-f]*} $one
        assert_equal 40 [string length $one]
        assert_not_equal $zero $one
        r set a 2
        assert_not_equal $one [r debug digest]
        r set a 1
        assert_equal $one [r debug digest]
        r del a
        assert_equal $zero [r debug digest]
    }

    test "DEBUG DIGEST does not depend on insertion order, but on database and expire" {
        r flushall
        for {set i 0} {$i < 200} {incr i} { r set key:$i value:$i }
        set forward [r debug digest]
        r flushall
        for {set i 199} {$i >= 0} {incr i -1} { r set key:$i value:$i }
        assert_equal $forward [r debug digest]
        r expire key:7 1000
        set with_expire [r debug digest]
        assert_not_equal $forward $with_expire
        r persist key:7
        assert_equal $forward [r debug digest]
        r select 3
        r set key:0 value:0
        assert_not_equal $forward [r debug digest]
        r del key:0
        r select 0
        assert_equal $forward [r debug digest]
    }

    test "DEBUG DIGEST-VALUE digests each key's value; a missing key gives zeros" {
        r flushall
        r set a b
        # Redis 7 gives this digest for the string value "b"
        assert_equal {b78559cd22bce6e6df712eb99ce7f3b08e8f8f1f} [r debug digest-value a]
        r set c b
        set both [r debug digest-value a c no-such-key]
        assert_equal [lindex $both 0] [lindex $both 1] "same value, same digest whatever the key"
        assert_equal [string repeat 0 40] [lindex $both 2]
        # and the whole dataset {a: b} as Redis 7 digests it
        r del c
        assert_equal {479783d7290f02957dfbe3408a858ba13eea1709} [r debug digest]
        assert_equal {} [r debug digest-value]
    }

    test "The test's own SHA1 passes the published vectors" {
        assert_equal a9993e364706816aba3e25717850c26c9cd0d89d [hex [sha1_bytes abc]]
        assert_equal da39a3ee5e6b4b0d3255bfef95601890afd80709 [hex [sha1_bytes ""]]
        assert_equal 84983e441c3bd26ebaae4aa1f95129e5e54670f1 \
            [hex [sha1_bytes abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq]]
    }

    test "DEBUG DIGEST-VALUE and DIGEST follow the documented construction at every block boundary" {
        r flushall
        set final [mix_digest [string repeat \x00 20] [binary format I 0]]
        foreach len {0 1 19 55 56 63 64 65 119 120 128 1000} {
            set value ""
            for {set i 0} {$i < $len} {incr i} { append value [format %c [expr {($i * 7 + $len) % 256}]] }
            r set key$len $value
            set value_digest [mix_digest [mix_digest [string repeat \x00 20] [binary format I 0]] $value]
            assert_equal [hex $value_digest] [r debug digest-value key$len] "value of $len bytes"
            set final [xor_digest $final [string_key_digest key$len $value]]
        }
        assert_equal [hex $final] [r debug digest]
    }

    test "DEBUG SLEEP stops the server for the given (fractional) seconds" {
        set start [clock milliseconds]
        assert_equal OK [r debug sleep 0.2]
        assert {[clock milliseconds] - $start >= 200}
        assert_equal OK [r debug sleep 0]
        assert_equal OK [r debug sleep -1]
        assert_equal OK [r debug sleep not-a-number]
    }

    test "DEBUG SET-ACTIVE-EXPIRE 0 leaves expired keys in place until 1" {
        r flushall
        assert_equal OK [r debug set-active-expire 0]
        r set short v px 20
        ::harness::sleep_ms 300
        assert_equal "keys=1,expires=1,avg_ttl=*" [regsub {avg_ttl=.*} [s db0] {avg_ttl=*}]
        assert_equal OK [r debug set-active-expire 1]
        wait_for_condition 100 20 {[s db0] eq ""} else { fail "the expired key was never removed: [s db0]" }
    }

    test "DEBUG POPULATE creates keys, skipping existing ones" {
        r flushall
        r set key:3 mine
        assert_equal OK [r debug populate 10]
        assert_match "keys=10,*" [s db0]
        assert_equal value:0 [r get key:0]
        assert_equal mine [r get key:3]
        assert_equal OK [r debug populate 3 p 20]
        assert_equal 20 [string length [r get p:2]]
        assert_equal "value:2" [string range [r get p:2] 0 6]
        assert_equal OK [r debug populate 2 q 3]
        assert_equal val [r get q:1]
        assert_error "ERR value is out of range, must be positive" {r debug populate -1}
        assert_error "ERR value is out of range, must be positive" {r debug populate 1 x -5}
        # a size no client could send is refused (it aborted on the allocation)
        assert_error "ERR value size exceeds proto-max-bulk-len" {r debug populate 10 big 600000000}
        # an infinite sleep is no sleep (it hung the server for good)
        assert_equal OK [r debug sleep 1e400]
        assert_equal OK [r debug sleep inf]
        assert_equal PONG [r ping]
    }

    test "DEBUG PROTOCOL replies each RESP type" {
        assert_equal "Hello World" [r debug protocol string]
        assert_equal 12345 [r debug protocol integer]
        assert_equal 3.141 [r debug protocol double]
        assert_equal {0 1 2} [r debug protocol array]
        assert_equal {0 1 2} [r debug protocol set]
        assert_equal {0 0 1 1 2 0} [r debug protocol map]
        assert_equal {} [r debug protocol null]
        assert_equal 1 [r debug protocol true]
        assert_equal "This is a verbatim\nstring" [r debug protocol verbatim]
        assert_error "ERR RESP2 is not supported by this command" {r debug protocol push}
        assert_error "ERR Wrong protocol type name*" {r debug protocol nope}
        set c [redis_client -readraw 1]
        $c hello 3
        $c close
        set c [redis_client]
        $c hello 3
        $c readraw 1
        assert_equal ",3.141" [$c debug protocol double]
        assert_equal "#t" [$c debug protocol true]
        assert_equal "_" [$c debug protocol null]
        assert_equal "%3" [$c debug protocol map]
        $c close
    }

    test "DEBUG ERROR replies the given error; DEBUG LOG writes to the log" {
        assert_error "MYERR the text" {r debug error "MYERR the text"}
        assert_equal OK [r debug log "a marker 12345"]
        wait_for_log "*DEBUG LOG: a marker 12345*"
    }

    test "DEBUG CHANGE-REPL-ID gives the server a new replication id" {
        set before [s master_replid]
        assert_equal OK [r debug change-repl-id]
        assert_not_equal $before [s master_replid]
        assert_equal 40 [string length [s master_replid]]
    }

    test "DEBUG COMMAND-TABLE counts table entries and registered commands" {
        set table [r debug command-table]
        assert_equal [dict get $table registered] [r command count]
        set missing_top_level [lsearch -all -inline -not [dict get $table missing] *|*]
        assert_equal [dict get $table entries] [expr {[dict get $table registered] + [llength $missing_top_level]}]
        assert_morethan [dict get $table subcommand-entries] 0
        assert {[dict get $table registered-subcommands] <= [dict get $table subcommand-entries]}
    }

    test "DEBUG HTSTATS-KEY describes the hash table of a set, hash or sorted set" {
        r flushall
        r config set set-max-intset-entries 1
        catch {r config set set-max-listpack-entries 1} ;# 7.2 only
        r config set hash-max-listpack-entries 1
        r config set zset-max-listpack-entries 1
        r sadd hs a b c
        r hset hh a 1 b 2 c 3
        r zadd hz 1 a 2 b 3 c
        foreach key {hs hh hz} {
            set stats [r debug htstats-key $key]
            assert_match "Hash table 0 stats (main hash table):*" $stats
            assert_match "* number of elements: 3*" $stats
        }
        r config set set-max-intset-entries 512
        catch {r config set set-max-listpack-entries 128}
        r config set hash-max-listpack-entries 128
        r config set zset-max-listpack-entries 128
        r sadd small 1 2
        r set str x
        foreach key {small str} {
            assert_error "ERR The value stored at the specified key is not represented using an hash table" \
                {r debug htstats-key $key}
        }
        assert_error "ERR no such key" {r debug htstats-key nokey}
    }

    test "DEBUG HELP and errors" {
        set help [r debug help]
        assert_equal "DEBUG <subcommand> \[<arg> \[value\] \[opt\] ...\]. Subcommands are:" [lindex $help 0]
        foreach line {SEGFAULT SIGBUS "SLEEP <seconds>" DIGEST "OBJECT <key>"} {
            assert [expr {$line in $help}] "DEBUG HELP mentions $line"
        }
        assert_error "ERR unknown subcommand or wrong number of arguments for 'foo'. Try DEBUG HELP." {r debug foo}
        assert_error "ERR unknown subcommand or wrong number of arguments for 'sleep'. Try DEBUG HELP." {r debug sleep}
        assert_error "ERR unknown subcommand or wrong number of arguments for 'object'. Try DEBUG HELP." {r debug object a b}
        assert_error "ERR wrong number of arguments for 'debug' command" {r debug}
    }
}

start_server {tags {debug} overrides {enable-debug-command yes}} {
    # The file's bytes with the last one (part of the CRC-64) flipped.
    proc corrupt_last_byte {path} {
        set fd [open $path r+]
        fconfigure $fd -translation binary
        seek $fd -1 end
        binary scan [read $fd 1] cu last
        seek $fd -1 end
        puts -nonewline $fd [binary format c [expr {$last ^ 0xff}]]
        close $fd
    }

    test "DEBUG SET-SKIP-CHECKSUM-VALIDATION: RESTORE takes a payload with a wrong checksum" {
        r set src hello
        set p [r dump src]
        set bad "[string range $p 0 end-1][format %c [expr {[scan [string index $p end] %c] ^ 0xff}]]"
        assert_error "ERR DUMP payload version or checksum are wrong" {r restore dst 0 $bad}
        assert_equal OK [r debug set-skip-checksum-validation 1]
        assert_equal OK [r restore dst 0 $bad]
        assert_equal hello [r get dst]
        assert_equal OK [r debug set-skip-checksum-validation 0]
        assert_error "ERR DUMP payload version or checksum are wrong" {r restore dst2 0 $bad}
        # the version is still checked
        set future "[string range $p 0 end-10][binary format s 99][string range $p end-7 end]"
        r debug set-skip-checksum-validation 1
        assert_error "ERR DUMP payload version or checksum are wrong" {r restore dst3 0 $future}
        r debug set-skip-checksum-validation 0
    }

    test "DEBUG RELOAD NOSAVE, and SET-SKIP-CHECKSUM-VALIDATION for an RDB file" {
        r flushall
        r set a 1
        r save
        r set b 2
        assert_equal OK [r debug reload nosave]
        assert_equal {1 0} [list [r exists a] [r exists b]] "NOSAVE loads the file as it was"
        corrupt_last_byte [file join [lindex [r config get dir] 1] dump.rdb]
        assert_error "ERR Error trying to load the RDB dump*" {r debug reload nosave}
        assert_equal OK [r debug set-skip-checksum-validation 1]
        assert_equal OK [r debug reload nosave]
        assert_equal 1 [r get a]
        r debug set-skip-checksum-validation 0
    }

    test "DEBUG RELOAD NOFLUSH MERGE keeps other keys and takes the file's values; NOFLUSH alone refuses duplicates" {
        r flushall
        r set a file
        r save
        r set a memory
        r set b only-in-memory
        assert_equal OK [r debug reload nosave noflush merge]
        assert_equal {file only-in-memory} [r mget a b]
        assert_equal OK [r debug reload nosave merge]
        assert_equal {file {}} [r mget a b] "MERGE alone still empties the dataset first"
        r set a memory
        assert_error "ERR Error trying to load the RDB dump*" {r debug reload nosave noflush}
        assert_equal PONG [r ping]
        assert_error "ERR DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options." {r debug reload bogus}
    }

    test "DEBUG PAUSE-CRON stops the cron: an idle client outlives the timeout until it resumes" {
        r config set timeout 1
        assert_equal OK [r debug pause-cron 1]
        set idle [redis_client]
        assert_equal PONG [$idle ping]
        after [expr {[::harness::scaled 1] * 2500}]
        assert_match "*id=*" [r client list] ;# the cron would have closed it by now
        assert_equal 2 [llength [split [string trim [r client list]] \n]]
        assert_equal OK [r debug pause-cron 0]
        wait_for_condition 100 50 {[llength [split [string trim [r client list]] \n]] == 1} else {
            fail "the idle client was not closed once the cron ran again"
        }
        r config set timeout 0
        catch {$idle close}
    }

    test "DEBUG CONFIG-REWRITE-FORCE-ALL writes every directive, and the server starts from it unchanged" {
        r config set maxmemory-samples 7
        set before [r config get *]
        assert_equal OK [r debug config-rewrite-force-all]
        set conf [::harness::read_file [srv config_file]]
        foreach name {hz maxmemory-policy appendfsync databases list-max-listpack-size} {
            assert_match "*\n$name *" $conf "$name written although at its default"
        }
        assert_no_match "*key-load-delay*" $conf
        restart_server
        set after [r config get *]
        foreach {name value} $before {
            assert_equal $value [dict get $after $name] "$name after the restart"
        }
    }
}

# ---- crash reports ----------------------------------------------------------------------------

start_server {tags {debug crash external:skip}} {
    test "DEBUG SEGFAULT: a real SIGSEGV, reported with address, pc, stack, registers, INFO and client" {
        lassign [crash_server_with segfault] how log
        assert_match "*killed by SIGSEGV*" $how
        assert_match "*crash report in the log: yes*" $how
        assert_match "*Accessing address: 0x*" $log
        assert_crash_report $log SIGSEGV segfault
    }
}

start_server {tags {debug crash external:skip}} {
    test "DEBUG SIGBUS: a real SIGBUS is reported the same way" {
        lassign [crash_server_with sigbus] how log
        assert_match "*killed by SIGBUS*" $how
        assert_match "*Accessing address: 0x*" $log
        assert_crash_report $log SIGBUS sigbus
    }
}

start_server {tags {debug crash external:skip}} {
    test "DEBUG STACKOVERFLOW: the report is written from the alternate signal stack" {
        lassign [crash_server_with stackoverflow] how log
        assert_match "*killed by SIGSEGV*" $how
        assert_match "*The stack overflowed: *" $log
        assert_crash_report $log SIGSEGV stackoverflow
    }
}

start_server {tags {debug crash external:skip}} {
    test "DEBUG ASSERT: the failed assertion is logged, then the SIGABRT report" {
        lassign [crash_server_with assert] how log
        assert_match "*killed by SIGABRT*" $how
        assert_match "*=== ASSERTION FAILED ===*==> *debug.c:* '1 == 2' is not true*crashed by signal*" $log
        assert_match "*Killed by PID: *" $log
        assert_crash_report $log SIGABRT assert
    }
}

start_server {tags {debug crash external:skip}} {
    test "DEBUG PANIC: the panic message is logged, then the SIGABRT report" {
        lassign [crash_server_with panic] how log
        assert_match "*killed by SIGABRT*" $how
        assert_match "*!!! Software Failure. Press left mouse button to continue*Guru Meditation: DEBUG PANIC called at Unix time * #*debug.c:*" $log
        assert_crash_report $log SIGABRT panic
    }
}

# ---- Redis 7.0's crash and watchdog directives (issue #35 item 8) ------------------------------

start_server {tags {debug external:skip} overrides {enable-debug-command yes}} {
    test "crash-log-enabled, crash-memcheck-enabled, use-exit-on-panic, watchdog-period: Redis 7.0's defaults and CONFIG SET" {
        assert_equal {crash-log-enabled yes} [r config get crash-log-enabled]
        assert_equal {crash-memcheck-enabled yes} [r config get crash-memcheck-enabled]
        assert_equal {use-exit-on-panic no} [r config get use-exit-on-panic]
        assert_equal {watchdog-period 0} [r config get watchdog-period]
        # use-exit-on-panic and watchdog-period are hidden in Redis 7.0: by exact name only
        set all [dict keys [r config get *]]
        assert {"crash-log-enabled" in $all && "crash-memcheck-enabled" in $all}
        assert {"use-exit-on-panic" ni $all && "watchdog-period" ni $all}
        # crash-memcheck-enabled has no effect here, but shows what was set
        assert_equal OK [r config set crash-memcheck-enabled no]
        assert_equal {crash-memcheck-enabled no} [r config get crash-memcheck-enabled]
        r config set crash-memcheck-enabled yes
        assert_equal OK [r config set use-exit-on-panic yes]
        assert_equal {use-exit-on-panic yes} [r config get use-exit-on-panic]
        r config set use-exit-on-panic no
        assert_error "*argument must be 'yes' or 'no'*" {r config set crash-log-enabled maybe}
        assert_error "*argument must be between 0 and 2147483647 inclusive*" {r config set watchdog-period -1}
    }

    test "watchdog-period: a stuck event loop logs WATCHDOG TIMER EXPIRED with a stack trace, and goes on" {
        assert_equal OK [r config set watchdog-period 200]
        assert_equal {watchdog-period 200} [r config get watchdog-period]
        set from [log_line_count]
        r debug sleep 1
        wait_for_log "--- WATCHDOG TIMER EXPIRED ---" -from $from
        wait_for_log "------ STACK TRACE ------" -from $from
        wait_for_log "*signal-handler * --------*" -from $from ;# the report's last line
        set report [join [lrange [split [::harness::read_file [srv stdout]] \n] $from end] \n]
        if {$::harness::opt(wrapper) eq "" && ![string match "*(backtrace unavailable: *" $report]} {
            # the stuck command's frames have names (Redis's integration/logging looks for this one)
            assert_match "*(debugCommand+0x*" $report
        }
        assert_equal PONG [r ping]
    }

    test "watchdog-period 0 turns the watchdog off" {
        r config set watchdog-period 0
        set from [log_line_count]
        r debug sleep 1
        r debug log "after the sleep"
        wait_for_log "*DEBUG LOG: after the sleep*" -from $from
        assert_no_match "*WATCHDOG*" [join [lrange [split [::harness::read_file [srv stdout]] \n] $from end] \n]
    }
}

start_server {tags {debug crash external:skip} overrides {use-exit-on-panic yes}} {
    test "use-exit-on-panic yes: a failed assertion exits with status 1 after its report" {
        lassign [crash_server_with assert] how log
        assert_match "*exited with status 1*" $how
        assert_match "*=== ASSERTION FAILED ===*=== REDIS BUG REPORT END.*" $log
    }
}

start_server {tags {debug crash external:skip} overrides {use-exit-on-panic yes}} {
    test "use-exit-on-panic yes: a crash by a signal still dies of it (as in Redis 7.0)" {
        lassign [crash_server_with segfault] how log
        assert_match "*killed by SIGSEGV*" $how
        assert_match "*crashed by signal*" $log
    }
}

start_server {tags {debug crash external:skip} overrides {crash-log-enabled no}} {
    test "crash-log-enabled no: a SIGSEGV writes no crash report" {
        lassign [crash_server_with segfault] how log
        assert_match "*killed by SIGSEGV*" $how
        assert_no_match "*crashed by signal*" $log
        assert_no_match "*STACK TRACE*" $log
    }
}

start_server {tags {debug crash external:skip}} {
    test "crash-log-enabled no by CONFIG SET: an assertion is logged, without the report" {
        r config set crash-log-enabled no
        lassign [crash_server_with assert] how log
        assert_match "*killed by SIGABRT*" $how
        assert_match "*=== ASSERTION FAILED ===*" $log
        assert_no_match "*crashed by signal*" $log
    }
}

# ---- DEBUG AOF-FLUSH-SLEEP and DEBUG REPLICATE (issue #35 item 6) -----------------------------------

start_server {tags {debug external:skip} overrides {enable-debug-command yes appendonly yes}} {
    test "DEBUG AOF-FLUSH-SLEEP: each AOF write sleeps that long first; 0 stops it" {
        assert_equal OK [r debug aof-flush-sleep 300000]
        set start [clock milliseconds]
        r set k v
        set took [expr {[clock milliseconds] - $start}]
        assert {$took >= 300} ;# a lower bound: the write slept at least that long
        assert_equal OK [r debug aof-flush-sleep 0]
        r debug loadaof
        assert_equal v [r get k]
        # as in Redis: a non-number is 0; a missing or extra argument is an error
        assert_equal OK [r debug aof-flush-sleep abc]
        assert_error "ERR unknown subcommand or wrong number of arguments for 'aof-flush-sleep'. Try DEBUG HELP." {r debug aof-flush-sleep}
        assert_error "ERR unknown subcommand or wrong number of arguments for 'aof-flush-sleep'. Try DEBUG HELP." {r debug aof-flush-sleep 1 2}
        assert {"AOF-FLUSH-SLEEP <microsec>" in [r debug help]}
    }

    start_server {tags {debug external:skip}} {
        test "DEBUG REPLICATE: the command reaches the replicas only, not the dataset or the AOF" {
            r replicaof 127.0.0.1 [srv -1 port]
            wait_for_condition 100 100 {[string match *master_link_status:up* [r info replication]]} else {
                fail "the replica's link never came up"
            }
            r -1 set a 1
            wait_for_condition 100 50 {[r get a] eq "1"} else { fail "the replica never got a" }
            assert_equal OK [r -1 debug replicate set b 2]
            wait_for_condition 100 50 {[r get b] eq "2"} else { fail "the replica never got b" }
            assert_equal 0 [r -1 exists b]
            r -1 debug loadaof
            assert_equal {1 0} [list [r -1 exists a] [r -1 exists b]]
            assert_error "ERR unknown subcommand or wrong number of arguments for 'replicate'. Try DEBUG HELP." {r -1 debug replicate}
            assert {"REPLICATE <string>" in [r -1 debug help]}
            r replicaof no one
        }
    }
}
