# other.tcl -- the connection and server basics: PING, ECHO, SELECT, TIME,
# LASTSAVE, QUIT, unknown-command errors, and the exact RESP2/RESP3
# encoding of replies (nulls, maps, sets, doubles, big numbers, booleans,
# verbatim strings, attributes and pushes) after HELLO 2 / HELLO 3.
#
# Design decisions:
# - Reply encodings are checked byte for byte: raw_reply reads one whole
#   reply from a readraw connection and rebuilds its wire form, so a test
#   states exactly what goes on the wire (e.g. "*2\r\n$1\r\na\r\n_\r\n").
# - The exotic RESP3 types have no string command that produces them, so
#   they are checked through DEBUG PROTOCOL; those tests skip themselves
#   while the server has no DEBUG command.

# Reads one complete reply from the readraw client C and returns its wire
# form (every line followed by CRLF).
proc raw_reply {c} {
    set line [$c read]
    set out "$line\r\n"
    set type [string index $line 0]
    set n [string range $line 1 end]
    switch -- $type {
        $ - = - ! {
            if {$n >= 0} { append out [$c read] "\r\n" }
        }
        * - ~ - > {
            for {set i 0} {$i < $n} {incr i} { append out [raw_reply $c] }
        }
        % {
            for {set i 0} {$i < 2 * $n} {incr i} { append out [raw_reply $c] }
        }
        | {
            for {set i 0} {$i < 2 * $n} {incr i} { append out [raw_reply $c] }
            append out [raw_reply $c]
        }
    }
    return $out
}

# Sends a command on the readraw client C and returns its whole reply.
proc raw_call {c args} {
    $c deferred 1
    $c {*}$args
    $c deferred 0
    return [raw_reply $c]
}

# A readraw connection speaking protocol PROTO.
proc raw_client_proto {proto} {
    set c [redis_client -readraw 1]
    raw_call $c hello $proto
    return $c
}

proc debug_protocol_or_skip {c type} {
    set reply [raw_call $c debug protocol $type]
    if {[string match "-ERR unknown command*" $reply] ||
        [string match "-ERR unknown subcommand*" $reply]} {
        skip "needs DEBUG PROTOCOL (debug.c is not finished)"
    }
    return $reply
}

# The text Redis puts in an unknown-command error for ARGS: each argument
# quoted and followed by a space, cut so the whole stays within 128 bytes,
# CR and LF shown as spaces.
proc unknown_args_text {args} {
    set out ""
    foreach a $args {
        if {[string length $out] >= 128} break
        set room [expr {128 - [string length $out]}]
        append out "'[string range $a 0 [expr {$room - 1}]]' "
    }
    return [string map {"\r" " " "\n" " "} $out]
}

start_server {tags {other}} {
    # ---- PING / ECHO --------------------------------------------------------------------

    test "PING replies PONG as a status, PING msg echoes a bulk" {
        set c [redis_client -readraw 1]
        assert_equal "+PONG\r\n" [raw_call $c ping]
        assert_equal "\$5\r\nhello\r\n" [raw_call $c ping hello]
        assert_equal "\$0\r\n\r\n" [raw_call $c ping ""]
        assert_equal "\$4\r\na\r\nb\r\n" [raw_call $c ping "a\r\nb"]
        $c close
    }

    test "PING with too many arguments" {
        assert_error "ERR wrong number of arguments for 'ping' command" {r ping a b}
    }

    test "ECHO returns its argument byte for byte" {
        set bin ""
        for {set i 0} {$i < 256} {incr i} { append bin [format %c $i] }
        assert_equal $bin [r echo $bin]
        assert_equal "" [r echo ""]
        set big [string repeat "echo\r\n" 100000]
        assert_equal $big [r echo $big]
    }

    test "ECHO arity" {
        assert_error "ERR wrong number of arguments for 'echo' command" {r echo}
        assert_error "ERR wrong number of arguments for 'echo' command" {r echo a b}
    }

    test "Command names are case-insensitive" {
        assert_equal PONG [r PiNg]
        assert_equal x [r EcHo x]
        r SeT casekey v
        assert_equal v [r gEt casekey]
    }

    # The server tries a client's previous command before the hash lookup:
    # each step below follows one that could wrongly be reused.
    test "A command after a similar one on the same connection is looked up afresh" {
        r set k 1
        assert_equal 1 [r GET k]
        assert_error "ERR unknown command 'ge', *" {r ge k}
        assert_error "ERR unknown command 'gett', *" {r gett k}
        assert_equal 1 [r get k]
        assert_equal 1 [r getdel k]
        assert_equal {maxmemory-policy noeviction} [r config get maxmemory-policy]
        assert_equal {maxmemory-samples 5} [r CONFIG GET maxmemory-samples]
        assert_equal OK [r config set maxmemory-samples 5]
        assert_error "ERR unknown subcommand 'nope'. Try CONFIG HELP." {r config nope}
        assert_error "ERR wrong number of arguments for 'config|get' command" {r config get}
        assert_error "ERR wrong number of arguments for 'config' command" {r config}
        assert_error "ERR wrong number of arguments for 'get' command" {r get}
        assert_equal PONG [r ping]
        assert_error "ERR unknown command 'pingg', *" {r pingg}
    }

    test "A pipeline that alternates commands gets each one's reply" {
        set rd [redis_deferring_client]
        for {set i 0} {$i < 50} {incr i} {
            $rd set k$i $i
            $rd GET k$i
            $rd config get maxmemory-samples
            $rd Get k$i
            $rd incr k$i
        }
        for {set i 0} {$i < 50} {incr i} {
            assert_equal OK [$rd read]
            assert_equal $i [$rd read]
            assert_equal {maxmemory-samples 5} [$rd read]
            assert_equal $i [$rd read]
            assert_equal [expr {$i + 1}] [$rd read]
        }
        $rd close
    }

    # ---- unknown commands -----------------------------------------------------------------

    test "An unknown command names itself and its first arguments" {
        assert_error "ERR unknown command 'nosuchcmd', with args beginning with: " {r nosuchcmd}
        assert_error "ERR unknown command 'nosuchcmd', with args beginning with: 'a' 'b' " \
            {r nosuchcmd a b}
    }

    test "An unknown command error is cut at 128 bytes and has no newlines" {
        set name [string repeat x 200]
        set a [string repeat a 100]
        set b [string repeat b 100]
        set expected "ERR unknown command '[string repeat x 128]', with args beginning with: "
        append expected [unknown_args_text $a $b c]
        assert_error $expected [list r $name $a $b c]
        assert_error "ERR unknown command 'foo', with args beginning with: [unknown_args_text "a\r\nb" "c\nd"]" \
            {r foo "a\r\nb" "c\nd"}
    }

    # ---- SELECT ---------------------------------------------------------------------------

    test "SELECT is per connection" {
        set a [redis_client]
        set b [redis_client]
        $a select 9
        $a set where nine
        $b set where zero
        assert_equal nine [$a get where]
        assert_equal zero [$b get where]
        assert_equal OK [$b select 9]
        assert_equal nine [$b get where]
        $a flushdb
        $a close
        $b close
    }

    test "SELECT errors leave the database unchanged" {
        set c [redis_client]
        $c select 4
        $c set marker 4
        assert_error "ERR DB index is out of range" {$c select 100}
        assert_error "ERR value is not an integer or out of range" {$c select x}
        assert_equal 4 [$c get marker]
        $c flushdb
        $c close
    }

    # ---- TIME / LASTSAVE ------------------------------------------------------------------

    test "TIME returns seconds and microseconds as two bulk strings" {
        set c [redis_client -readraw 1]
        set reply [raw_call $c time]
        assert_match "\\*2\r\n\$*\r\n*\r\n\$*\r\n*\r\n" $reply
        $c close
        lassign [r time] secs usecs
        assert [string is digit -strict $secs]
        assert [string is digit -strict $usecs]
        assert_range $usecs 0 999999
        assert_range $secs [expr {[clock seconds] - 2}] [expr {[clock seconds] + 2}]
    }

    test "TIME does not go backwards" {
        set prev 0
        for {set i 0} {$i < 100} {incr i} {
            lassign [r time] secs usecs
            set now [expr {$secs * 1000000 + $usecs}]
            assert {$now >= $prev}
            set prev $now
        }
    }

    test "LASTSAVE is an integer time not in the future" {
        set t [r lastsave]
        assert [string is integer -strict $t]
        assert {$t <= [clock seconds] + 1}
        assert {$t > [clock seconds] - 86400}
        assert_error "ERR wrong number of arguments for 'lastsave' command" {r lastsave x}
        assert_error "ERR wrong number of arguments for 'time' command" {r time x}
    }

    # ---- QUIT -----------------------------------------------------------------------------

    test "QUIT replies OK and closes the connection" {
        set c [redis_client -readraw 1]
        assert_equal "+OK" [$c quit]
        if {![catch {$c read} reply]} { fail "the connection stayed open: '$reply'" }
        $c close
        assert_equal PONG [r ping]
    }

    test "Commands pipelined after QUIT are not run" {
        r del afterquit
        set c [redis_client -readraw 1]
        $c write "PING\r\nQUIT\r\nSET afterquit 1\r\n"
        $c flush
        assert_equal +PONG [$c read]
        assert_equal +OK [$c read]
        if {![catch {$c read} reply]} { fail "the connection stayed open: '$reply'" }
        $c close
        assert_equal 0 [r exists afterquit]
    }

    # ---- RESP2 and RESP3 encodings ----------------------------------------------------------

    test "HELLO 2 and HELLO 3 reply a flat array and a map" {
        set c [redis_client -readraw 1]
        set two [raw_call $c hello 2]
        assert_match "\\*14\r\n\$6\r\nserver\r\n\$5\r\nredis\r\n\$7\r\nversion\r\n*" $two
        assert_match "*\$5\r\nproto\r\n:2\r\n*\$7\r\nmodules\r\n\\*0\r\n" $two
        set three [raw_call $c hello 3]
        assert_match "%7\r\n\$6\r\nserver\r\n*\$5\r\nproto\r\n:3\r\n*\$7\r\nmodules\r\n\\*0\r\n" $three
        $c close
    }

    test "Nulls: \$-1 in RESP2, _ in RESP3" {
        r del nokey
        r set k 1
        foreach {proto null} {2 "\$-1\r\n" 3 "_\r\n"} {
            set c [raw_client_proto $proto]
            assert_equal $null [raw_call $c get nokey] "GET, RESP$proto"
            assert_equal $null [raw_call $c getex nokey] "GETEX, RESP$proto"
            assert_equal $null [raw_call $c getdel nokey] "GETDEL, RESP$proto"
            assert_equal $null [raw_call $c set k 2 nx] "SET NX, RESP$proto"
            assert_equal $null [raw_call $c set nokey2 1 xx] "SET XX, RESP$proto"
            assert_equal $null [raw_call $c object encoding nokey] "OBJECT, RESP$proto"
            assert_equal "*2\r\n\$1\r\n1\r\n$null" [raw_call $c mget k nokey] "MGET, RESP$proto"
            assert_equal "\$1\r\n1\r\n" [raw_call $c set k 1 get]
            $c del nokey3
            assert_equal $null [raw_call $c set nokey3 1 get] "SET GET, RESP$proto"
            $c del nokey3
            raw_call $c select 15
            raw_call $c flushdb
            assert_equal $null [raw_call $c randomkey] "RANDOMKEY, RESP$proto"
            $c close
        }
    }

    test "Integers, statuses and bulk strings are the same in RESP2 and RESP3" {
        r set k 1
        foreach proto {2 3} {
            set c [raw_client_proto $proto]
            assert_equal ":1\r\n" [raw_call $c exists k]
            assert_equal ":-2\r\n" [raw_call $c ttl nokey]
            assert_equal "+OK\r\n" [raw_call $c set k 5]
            assert_equal "\$1\r\n5\r\n" [raw_call $c get k]
            assert_equal "+string\r\n" [raw_call $c type k]
            assert_equal "\$3\r\n6.5\r\n" [raw_call $c incrbyfloat k 1.5] "INCRBYFLOAT, RESP$proto"
            assert_equal "-ERR syntax error\r\n" [raw_call $c set k v nx xx]
            $c close
        }
    }

    test "LCS IDX is a map in RESP3 and a flat array in RESP2" {
        r mset a ab b ab
        set c [raw_client_proto 3]
        assert_equal "%2\r\n\$7\r\nmatches\r\n*1\r\n*2\r\n*2\r\n:0\r\n:1\r\n*2\r\n:0\r\n:1\r\n\$3\r\nlen\r\n:2\r\n" \
            [raw_call $c lcs a b idx]
        raw_call $c hello 2
        assert_equal "*4\r\n\$7\r\nmatches\r\n*1\r\n*2\r\n*2\r\n:0\r\n:1\r\n*2\r\n:0\r\n:1\r\n\$3\r\nlen\r\n:2\r\n" \
            [raw_call $c lcs a b idx]
        $c close
    }

    test "An empty array stays an empty array in RESP3" {
        r select 15
        r flushdb
        set c [raw_client_proto 3]
        raw_call $c select 15
        assert_equal "*0\r\n" [raw_call $c keys *]
        assert_equal "*2\r\n\$1\r\n0\r\n*0\r\n" [raw_call $c scan 0]
        $c close
        r select 0
    }

    test "HELLO 3 then HELLO 2 switches back" {
        set c [raw_client_proto 3]
        assert_equal "_\r\n" [raw_call $c get nokey]
        raw_call $c hello 2
        assert_equal "\$-1\r\n" [raw_call $c get nokey]
        $c close
    }

    test "RESP3 through the regular client" {
        set c [redis_client]
        $c hello 3
        assert_equal {} [$c get nokey]
        $c set k v
        assert_equal {v {}} [$c mget k nokey]
        set reply [$c lcs k k idx]
        assert_equal 1 [dict get $reply len]
        $c close
    }

    test "DEBUG PROTOCOL: doubles, big numbers and booleans in RESP2 and RESP3" {
        set c [raw_client_proto 2]
        assert_equal "\$5\r\n3.141\r\n" [debug_protocol_or_skip $c double]
        assert_equal "\$37\r\n1234567999999999999999999999999999999\r\n" [raw_call $c debug protocol bignum]
        assert_equal ":1\r\n" [raw_call $c debug protocol true]
        assert_equal ":0\r\n" [raw_call $c debug protocol false]
        assert_equal "\$-1\r\n" [raw_call $c debug protocol null]
        raw_call $c hello 3
        assert_equal ",3.141\r\n" [raw_call $c debug protocol double]
        assert_equal "(1234567999999999999999999999999999999\r\n" [raw_call $c debug protocol bignum]
        assert_equal "#t\r\n" [raw_call $c debug protocol true]
        assert_equal "#f\r\n" [raw_call $c debug protocol false]
        assert_equal "_\r\n" [raw_call $c debug protocol null]
        $c close
    }

    test "DEBUG PROTOCOL: arrays, sets, maps in RESP2 and RESP3" {
        set c [raw_client_proto 2]
        assert_equal "*3\r\n:0\r\n:1\r\n:2\r\n" [debug_protocol_or_skip $c array]
        assert_equal "*3\r\n:0\r\n:1\r\n:2\r\n" [raw_call $c debug protocol set]
        assert_equal "*6\r\n:0\r\n:0\r\n:1\r\n:1\r\n:2\r\n:0\r\n" [raw_call $c debug protocol map]
        raw_call $c hello 3
        assert_equal "*3\r\n:0\r\n:1\r\n:2\r\n" [raw_call $c debug protocol array]
        assert_equal "~3\r\n:0\r\n:1\r\n:2\r\n" [raw_call $c debug protocol set]
        assert_equal "%3\r\n:0\r\n#f\r\n:1\r\n#t\r\n:2\r\n#f\r\n" [raw_call $c debug protocol map]
        $c close
    }

    test "DEBUG PROTOCOL: verbatim strings, attributes and pushes" {
        set c [raw_client_proto 2]
        assert_equal "\$25\r\nThis is a verbatim\nstring\r\n" [debug_protocol_or_skip $c verbatim]
        assert_equal "\$39\r\nSome real reply following the attribute\r\n" \
            [raw_call $c debug protocol attrib]
        raw_call $c hello 3
        assert_equal "=29\r\ntxt:This is a verbatim\nstring\r\n" [raw_call $c debug protocol verbatim]
        assert_equal "|1\r\n\$14\r\nkey-popularity\r\n*2\r\n\$7\r\nkey:123\r\n:90\r\n\$39\r\nSome real reply following the attribute\r\n" \
            [raw_call $c debug protocol attrib]
        $c close
    }

    test "DEBUG PROTOCOL push: a push message, then the real reply" {
        set c [raw_client_proto 3]
        set push [debug_protocol_or_skip $c push]
        assert_equal ">2\r\n\$16\r\nserver-cpu-usage\r\n:42\r\n" $push
        assert_equal "\$40\r\nSome real reply following the push reply\r\n" [raw_reply $c]
        $c close
    }
}
