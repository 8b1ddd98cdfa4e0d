# client.tcl -- CLIENT: ID, INFO, LIST, KILL, SETNAME/GETNAME,
# PAUSE/UNPAUSE, REPLY, NO-EVICT and HELP, with every error text asserted in
# full (Redis 7.0 wording; 7.2's SETINFO and NO-TOUCH are unknown).

# The ids in a CLIENT LIST reply.
proc client_list_ids {text} {
    set ids {}
    foreach line [split [string trimright $text \n] \n] {
        if {$line ne ""} { lappend ids [client_field $line id] }
    }
    return [lsort -integer $ids]
}

proc connection_is_closed {c} {
    return [catch {$c ping}]
}

start_server {tags {client}} {
    test "CLIENT ID is an integer unique to the connection, increasing for new ones" {
        set id [r client id]
        assert [string is wide -strict $id]
        assert_equal $id [r client id]
        set c [redis_client]
        assert_morethan [$c client id] $id
        $c close
    }

    test "CLIENT INFO describes the calling connection in one line" {
        set info [r client info]
        assert_equal "\n" [string index $info end]
        assert_equal 1 [llength [split [string trimright $info \n] \n]]
        assert_equal [r client id] [client_field $info id]
        assert_equal client|info [client_field $info cmd]
        assert_equal [srv port] [lindex [split [client_field $info laddr] :] end]
        assert_match "id=* addr=* laddr=* fd=* name=* age=* idle=* flags=* db=* sub=* psub=*" $info
    }

    test "CLIENT GETNAME/SETNAME" {
        set c [redis_client]
        assert_equal {} [$c client getname]
        assert_equal OK [$c client setname my-client.1]
        assert_equal my-client.1 [$c client getname]
        assert_equal my-client.1 [client_field [$c client info] name]
        assert_match "*name=my-client.1 *" [r client list]
        assert_equal OK [$c client setname ""]
        assert_equal {} [$c client getname]
        $c close
    }

    test "CLIENT SETNAME rejects spaces, newlines and special characters" {
        foreach bad {"a b" "a\nb" "tab\there" "\x7f" "caf\xe9"} {
            assert_error "ERR Client names cannot contain spaces, newlines or special characters." \
                {r client setname $bad}
        }
        assert_error "ERR wrong number of arguments for 'client|setname' command" {r client setname}
        assert_error "ERR wrong number of arguments for 'client|getname' command" {r client getname x}
    }

    test "CLIENT LIST shows every connection, one line each" {
        set a [redis_client]
        set b [redis_client]
        set ids [lsort -integer [list [r client id] [$a client id] [$b client id]]]
        set list [r client list]
        assert_equal "\n" [string index $list end]
        assert_equal $ids [client_list_ids $list]
        assert_equal $ids [client_list_ids [r client list type normal]]
        assert_equal $ids [client_list_ids [r client list type NORMAL]]
        $a close
        $b close
    }

    test "CLIENT LIST TYPE filters by type" {
        assert_equal "" [r client list type pubsub]
        assert_equal "" [r client list type master]
        assert_equal "" [r client list type replica]
        assert_equal "" [r client list type slave]
        assert_error "ERR Unknown client type 'foo'" {r client list type foo}
    }

    test "CLIENT LIST ID lists the given ids that exist" {
        set a [redis_client]
        set me [r client id]
        set other [$a client id]
        assert_equal [lsort -integer [list $me $other]] [client_list_ids [r client list id $other 999999 $me]]
        assert_equal "" [r client list id 999999]
        assert_error "ERR Invalid client ID" {r client list id 1 abc}
        $a close
    }

    test "CLIENT LIST syntax errors" {
        assert_error "ERR syntax error" {r client list id}
        assert_error "ERR syntax error" {r client list foo}
        assert_error "ERR syntax error" {r client list type normal id 1}
        assert_error "ERR syntax error" {r client list type}
    }

    test "CLIENT KILL ip:port (old form) kills that connection" {
        set victim [redis_client]
        set addr [client_field [$victim client info] addr]
        assert_equal OK [r client kill $addr]
        assert [connection_is_closed $victim]
        assert_error "ERR No such client" {r client kill $addr}
        assert_error "ERR No such client" {r client kill 1.2.3.4:5}
        $victim close
    }

    test "CLIENT KILL ID and ADDR return the number of killed clients" {
        set victim [redis_client]
        assert_equal 1 [r client kill id [$victim client id]]
        assert [connection_is_closed $victim]
        $victim close
        set victim [redis_client]
        assert_equal 1 [r client kill addr [client_field [$victim client info] addr]]
        assert [connection_is_closed $victim]
        $victim close
        assert_equal 0 [r client kill id 999999]
        assert_equal 0 [r client kill addr 1.2.3.4:5]
    }

    test "CLIENT KILL LADDR matches the local address" {
        set victim [redis_client]
        set laddr [client_field [$victim client info] laddr]
        assert_equal 0 [r client kill laddr 1.2.3.4:5]
        # Both connections share the local address; SKIPME (default yes) spares the caller.
        assert_equal 1 [r client kill laddr $laddr]
        assert [connection_is_closed $victim]
        $victim close
        assert_equal PONG [r ping]
    }

    test "CLIENT KILL TYPE and USER spare the caller unless SKIPME no" {
        set a [redis_client]
        set b [redis_client]
        $a ping
        $b ping
        assert_equal 2 [r client kill type normal]
        assert [connection_is_closed $a]
        assert [connection_is_closed $b]
        $a close
        $b close
        set a [redis_client]
        $a ping
        assert_equal 1 [r client kill user default skipme yes]
        assert [connection_is_closed $a]
        $a close
        assert_equal 0 [r client kill type pubsub]
        assert_equal 0 [r client kill type master]
        assert_equal PONG [r ping]
    }

    test "CLIENT KILL of the caller itself: the reply arrives, then the connection closes" {
        set c [redis_client]
        assert_equal 1 [$c client kill id [$c client id] skipme no]
        assert [connection_is_closed $c]
        $c close
        set c [redis_client]
        assert_equal OK [$c client kill [client_field [$c client info] addr]]
        assert [connection_is_closed $c]
        $c close
    }

    test "CLIENT KILL filter errors, all checked before anything is killed" {
        set bystander [redis_client]
        $bystander ping
        assert_error "ERR client-id should be greater than 0" {r client kill id x}
        assert_error "ERR client-id should be greater than 0" {r client kill id 0}
        assert_error "ERR client-id should be greater than 0" {r client kill type normal skipme no id 0}
        assert_error "ERR Unknown client type 'foo'" {r client kill type foo}
        assert_error "ERR No such user 'nobody'" {r client kill user nobody}
        assert_error "ERR syntax error" {r client kill skipme maybe}
        assert_error "ERR syntax error" {r client kill foo bar}
        assert_error "ERR syntax error" {r client kill id 1 type}
        assert_error "ERR syntax error" {r client kill a b c d}
        assert_error "ERR wrong number of arguments for 'client|kill' command" {r client kill}
        assert_equal PONG [$bystander ping]
        assert_equal PONG [r ping]
        $bystander close
    }

    test "Redis 7.2's CLIENT SETINFO and NO-TOUCH are unknown, as in 7.0 (redis_version says 7.0.15)" {
        assert_error "ERR unknown subcommand 'setinfo'. Try CLIENT HELP." {r client setinfo lib-name x}
        assert_error "ERR unknown subcommand 'no-touch'. Try CLIENT HELP." {r client no-touch on}
        set info [r client info]
        assert_no_match "*lib-name=*" $info
        assert_no_match "*lib-ver=*" $info
        assert_match "* resp=2" [string trim $info]
        assert_no_match "*SETINFO*" [r client help]
        assert_no_match "*NO-TOUCH*" [r client help]
        assert_equal {{} {}} [r command info client|setinfo client|no-touch]
    }

    test "CLIENT REPLY OFF silences replies until ON" {
        set c [redis_client -deferred 1]
        $c client reply off
        $c ping
        $c set reply-key off
        $c client reply on
        $c get reply-key
        $c flush
        assert_equal OK [$c read]
        assert_equal off [$c read]
        $c close
    }

    test "CLIENT REPLY SKIP drops exactly the next reply" {
        set c [redis_client -deferred 1]
        $c client reply skip
        $c echo first
        $c echo second
        $c echo third
        $c flush
        assert_equal second [$c read]
        assert_equal third [$c read]
        $c close
    }

    test "CLIENT REPLY errors" {
        assert_error "ERR syntax error" {r client reply maybe}
        assert_error "ERR wrong number of arguments for 'client|reply' command" {r client reply}
    }

    test "CLIENT NO-EVICT sets the e flag" {
        set c [redis_client]
        assert_equal N [client_field [$c client info] flags]
        assert_equal OK [$c client no-evict on]
        assert_equal e [client_field [$c client info] flags]
        assert_equal OK [$c client no-evict off]
        assert_equal N [client_field [$c client info] flags]
        assert_error "ERR syntax error" {$c client no-evict maybe}
        assert_error "ERR wrong number of arguments for 'client|no-evict' command" {$c client no-evict}
        $c close
    }

    test "CLIENT HELP and unknown subcommands" {
        set help [r client help]
        assert_equal "CLIENT <subcommand> \[<arg> \[value\] \[opt\] ...\]. Subcommands are:" [lindex $help 0]
        assert_equal "HELP" [lindex $help end-1]
        assert_equal "    Prints this help." [lindex $help end]
        assert [expr {"PAUSE <timeout> \[WRITE|ALL\]" in $help}]
        assert_error "ERR unknown subcommand 'foo'. Try CLIENT HELP." {r client foo}
        assert_error "ERR wrong number of arguments for 'client' command" {r client}
        assert_error "ERR wrong number of arguments for 'client|id' command" {r client id x}
    }
}

start_server {tags {client pause}} {
    test "CLIENT PAUSE WRITE holds writes until UNPAUSE, reads go on" {
        r set k before
        assert_equal OK [r client pause 100000 write]
        set rd [redis_deferring_client]
        $rd set k after
        $rd flush
        wait_for_blocked_clients 1
        assert_equal before [r get k]
        assert_equal 0 [$rd ready]
        assert_equal OK [r client unpause]
        assert_equal OK [$rd read]
        assert_equal after [r get k]
        wait_for_blocked_clients 0
        $rd close
    }

    test "A paused client's pipeline runs in order after the pause" {
        r client pause 100000 write
        set rd [redis_deferring_client]
        $rd set seq 1
        $rd incr seq
        $rd get seq
        $rd flush
        wait_for_blocked_clients 1
        r client unpause
        assert_equal OK [$rd read]
        assert_equal 2 [$rd read]
        assert_equal 2 [$rd read]
        $rd close
    }

    test "CLIENT PAUSE ALL holds every command, and ends by itself at the timeout" {
        set timeout [::harness::scaled 300]
        set start [clock milliseconds]
        r client pause $timeout all
        set rd [redis_deferring_client]
        $rd ping
        $rd flush
        ::harness::sleep_ms 50
        assert_equal 0 [$rd ready]
        assert_equal PONG [$rd read]
        assert {[clock milliseconds] - $start >= $timeout} "the command ran before the pause ended"
        assert_equal PONG [r ping]
        $rd close
    }

    test "A client that disconnects while paused is forgotten" {
        r client pause 100000 write
        set rd [redis_deferring_client]
        $rd set gone 1
        $rd flush
        wait_for_blocked_clients 1
        $rd close
        wait_for_condition 50 20 {[s blocked_clients] == 0} else { fail "the closed client is still counted" }
        r client unpause
        assert_equal PONG [r ping]
        assert_equal {} [r get gone]
    }

    test "A second, shorter PAUSE does not end the first one early" {
        r client pause 100000 write
        r client pause 10 write
        ::harness::sleep_ms 50
        set rd [redis_deferring_client]
        $rd set still-paused 1
        $rd flush
        wait_for_blocked_clients 1
        r client unpause
        assert_equal OK [$rd read]
        $rd close
    }

    test "CLIENT PAUSE WRITE holds PFCOUNT (it may rewrite the key's cache) and PUBLISH" {
        r pfadd hll a b c
        r client pause 100000 write
        set rd [redis_deferring_client]
        set rd2 [redis_deferring_client]
        $rd pfcount hll
        $rd flush
        $rd2 publish some-channel hello
        $rd2 flush
        wait_for_blocked_clients 2
        assert_equal {} [r get not-a-write] ;# reads still run
        assert_equal 0 [$rd ready]
        assert_equal OK [r client unpause]
        assert_equal 3 [$rd read]
        assert_equal 0 [$rd2 read]
        wait_for_blocked_clients 0
        $rd close
        $rd2 close
    }

    test "CLIENT PAUSE WRITE holds an EXEC whose transaction writes, not a read-only one" {
        r set k v
        set rd [redis_deferring_client]
        $rd multi
        $rd get k
        $rd exec
        $rd flush
        assert_equal {OK QUEUED v} [list [$rd read] [$rd read] [lindex [$rd read] 0]]
        $rd multi
        $rd set k v2
        $rd flush
        assert_equal {OK QUEUED} [list [$rd read] [$rd read]]
        r client pause 100000 write
        $rd exec
        $rd flush
        wait_for_blocked_clients 1
        assert_equal v [r get k]
        r client unpause
        assert_equal {OK} [$rd read]
        assert_equal v2 [r get k]
        $rd close
    }

    test "Keys do not expire during CLIENT PAUSE, they only look expired" {
        r flushall
        set before [s expired_keys]
        r set e1 v px 5
        r set e2 v px 5
        r client pause 100000 write
        # e2 was set a little later than e1 (much later under emulation)
        wait_for_condition 50 20 {[r exists e1] == 0 && [r exists e2] == 0} else { fail "e1 or e2 still visible" }
        assert_equal {} [r get e2]
        # still in memory: not expired by the accesses nor the active cycle
        ::harness::sleep_ms 200
        assert_equal 2 [r dbsize]
        assert_equal $before [s expired_keys]
        r client unpause
        r get e1
        r get e2
        assert_equal [expr {$before + 2}] [s expired_keys]
        assert_equal 0 [r dbsize]
    }

    test "CLIENT PAUSE errors" {
        assert_error "ERR timeout is not an integer or out of range" {r client pause x}
        assert_error "ERR timeout is negative" {r client pause -1}
        assert_error "ERR CLIENT PAUSE mode must be WRITE or ALL" {r client pause 10 foo}
        assert_error "ERR CLIENT PAUSE mode must be WRITE or ALL" {r client pause x foo}
        assert_error "ERR unknown subcommand or wrong number of arguments for 'pause'. Try CLIENT HELP." \
            {r client pause 10 all x}
        assert_error "ERR wrong number of arguments for 'client|pause' command" {r client pause}
        assert_error "ERR wrong number of arguments for 'client|unpause' command" {r client unpause x}
        assert_equal OK [r client unpause]
    }
}

start_server {tags {client monitor}} {
    # The next line a MONITOR client receives, without its timestamp.
    proc monitor_line {rd} {
        set line [$rd read]
        assert [regexp {^([0-9]+)\.([0-9]{6}) (\[.*)$} $line -> secs micros rest] "monitor line '$line'"
        assert_range $secs [expr {[clock seconds] - 60}] [expr {[clock seconds] + 60}]
        return $rest
    }

    test "MONITOR streams each executed command with db, client address and quoted args" {
        set addr [client_field [r client info] addr]
        set rd [redis_deferring_client]
        $rd monitor
        $rd flush
        assert_equal OK [$rd read]
        r set foo bar
        r get foo
        assert_equal "\[0 $addr\] \"set\" \"foo\" \"bar\"" [monitor_line $rd]
        assert_equal "\[0 $addr\] \"get\" \"foo\"" [monitor_line $rd]
        $rd close
    }

    test "MONITOR quotes binary arguments and shows integers as text" {
        set rd [redis_deferring_client]
        $rd monitor
        $rd flush
        $rd read
        r set "a b" "x\x01\"y\n"
        r set n 12345
        set line [monitor_line $rd]
        assert_equal {"set" "a b" "x\x01\"y\n"} [string range $line [string first {"set"} $line] end]
        set line [monitor_line $rd]
        assert_equal {"set" "n" "12345"} [string range $line [string first {"set"} $line] end]
        $rd close
    }

    test "MONITOR shows the database the command ran in" {
        set rd [redis_deferring_client]
        $rd monitor
        $rd flush
        $rd read
        r select 5
        r set in-five 1
        r select 0
        monitor_line $rd
        assert_match {\[5 *\] "set" "in-five" "1"} [monitor_line $rd]
        $rd close
    }

    test "MONITOR hides admin commands and redacts AUTH and HELLO credentials" {
        set rd [redis_deferring_client]
        $rd monitor
        $rd flush
        $rd read
        r slowlog len
        r client list
        catch {r auth my-secret}
        catch {r hello 2 AUTH someone my-secret}
        r ping
        assert_match {*"auth" "(redacted)"} [monitor_line $rd]
        assert_match {*"hello" "2" "AUTH" "(redacted)" "(redacted)"} [monitor_line $rd]
        assert_match {*"ping"} [monitor_line $rd]
        $rd close
    }

    test "MONITOR clients have the O flag and are dropped cleanly when they disconnect" {
        set rd [redis_deferring_client]
        $rd monitor
        $rd flush
        $rd read
        assert_match "*flags=O *" [r client list]
        $rd close
        wait_for_condition 50 20 {![string match "*flags=O *" [r client list]]} else {
            fail "the monitor is still listed"
        }
        r set after-monitor 1
        assert_equal 1 [r get after-monitor]
    }
}

start_server {tags {client}} {
    # A deferring client's id, asked before it sends the blocking command.
    proc deferred_id {rd} {
        $rd client id
        return [$rd read]
    }

    test "CLIENT UNBLOCK gives a blocked BLPOP its timeout reply (TIMEOUT is the default)" {
        set rd [redis_deferring_client]
        set id [deferred_id $rd]
        $rd blpop unblock-list 0
        wait_for_blocked_clients 1
        assert_equal 1 [r client unblock $id]
        assert_equal {} [$rd read]
        wait_for_blocked_clients 0
        $rd blpop unblock-list 0
        wait_for_blocked_clients 1
        assert_equal 1 [r client unblock $id TIMEOUT]
        assert_equal {} [$rd read]
        $rd close
    }

    test "CLIENT UNBLOCK ... ERROR gives -UNBLOCKED, counted as a failed call" {
        r config resetstat
        set rd [redis_deferring_client]
        set id [deferred_id $rd]
        $rd bzpopmin unblock-zset 0
        wait_for_blocked_clients 1
        assert_equal 1 [r client unblock $id error]
        assert_error "UNBLOCKED client unblocked via CLIENT UNBLOCK" {$rd read}
        assert_match "*calls=1,*failed_calls=1*" [r info commandstats]
        assert_match "*errorstat_UNBLOCKED:count=1*" [r info errorstats]
        # the client is usable again, and the key it waited for is free
        r rpush unblock-after x
        $rd lpop unblock-after
        assert_equal x [$rd read]
        $rd close
    }

    test "CLIENT UNBLOCK of a client that isn't blocked, or doesn't exist, is 0" {
        assert_equal 0 [r client unblock [r client id]]
        assert_equal 0 [r client unblock 999999999]
        set rd [redis_deferring_client]
        set id [deferred_id $rd]
        assert_equal 0 [r client unblock $id]
        $rd close
    }

    # Redis 7.0.15 crashes here (fixed in later Redis): --tags -redis7.2 against it.
    tags {redis7.2} {
    test "CLIENT UNBLOCK doesn't release a client held by CLIENT PAUSE" {
        set rd [redis_deferring_client]
        set id [deferred_id $rd]
        r client pause 100000 write
        $rd set paused-write 1
        $rd flush
        wait_for_blocked_clients 1
        assert_equal 0 [r client unblock $id]
        assert_equal 0 [$rd ready]
        r client unpause
        assert_equal OK [$rd read]
        assert_equal 1 [r get paused-write]
        $rd close
    }
    }

    test "CLIENT UNBLOCK errors" {
        assert_error "ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR" {r client unblock 1 sometimes}
        assert_error "ERR value is not an integer or out of range" {r client unblock notanid}
        assert_error "ERR value is not an integer or out of range" {r client unblock notanid error}
        assert_error "*wrong number of arguments*" {r client unblock}
        assert_error "ERR unknown subcommand or wrong number of arguments for 'unblock'. Try CLIENT HELP." {r client unblock 1 error extra}
    }
}
