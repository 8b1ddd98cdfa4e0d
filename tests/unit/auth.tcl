# auth.tcl -- password authentication: requirepass, AUTH (one- and
# two-argument forms), HELLO with AUTH and SETNAME, the NOAUTH refusal of
# unauthenticated commands, and the protocol limits that apply before a
# client has authenticated.
#
# Design decisions:
# - Every server block that sets a password gets its own clients made with
#   redis_client, which start unauthenticated; the default client r is only
#   used once it has authenticated (the harness's own readiness PING gets
#   NOAUTH, which it counts as "up").
# - The password of one block contains a space, so the config file quoting
#   of requirepass is exercised too.

start_server {tags {auth}} {
    test "AUTH without a configured password is an error" {
        assert_error "ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?" \
            {r auth foo}
        assert_equal PONG [r ping]
    }

    test "AUTH default with any password works when there is none" {
        assert_equal OK [r auth default anything]
        assert_error "WRONGPASS invalid username-password pair or user is disabled." \
            {r auth nosuchuser anything}
    }

    test "AUTH arity and extra arguments" {
        assert_error "ERR wrong number of arguments for 'auth' command" {r auth}
        assert_error "ERR syntax error" {r auth a b c}
    }

    test "HELLO without arguments keeps RESP2 and describes the server" {
        set reply [r hello]
        assert_equal 2 [dict get $reply proto]
        assert_equal redis [dict get $reply server]
        assert_match {[0-9]*.[0-9]*.[0-9]*} [dict get $reply version]
        assert_equal standalone [dict get $reply mode]
        assert_equal master [dict get $reply role]
        assert_equal {} [dict get $reply modules]
        assert [string is integer -strict [dict get $reply id]]
        assert_equal {server version proto id mode role modules} [dict keys $reply]
    }

    test "HELLO ids differ between connections" {
        set c1 [redis_client]
        set c2 [redis_client]
        set id1 [dict get [$c1 hello] id]
        set id2 [dict get [$c2 hello] id]
        assert_not_equal $id1 $id2
        $c1 close
        $c2 close
    }

    test "HELLO with a bad protocol version" {
        assert_error "NOPROTO unsupported protocol version" {r hello 1}
        assert_error "NOPROTO unsupported protocol version" {r hello 4}
        assert_error "NOPROTO unsupported protocol version" {r hello 0}
        assert_error "NOPROTO unsupported protocol version" {r hello -1}
        assert_error "ERR Protocol version is not an integer or out of range" {r hello abc}
        assert_error "ERR Protocol version is not an integer or out of range" {r hello auth default x}
        assert_equal PONG [r ping]
    }

    test "HELLO option errors" {
        assert_error "ERR Syntax error in HELLO option 'auth'" {r hello 3 auth default}
        assert_error "ERR Syntax error in HELLO option 'setname'" {r hello 3 setname}
        assert_error "ERR Syntax error in HELLO option 'foo'" {r hello 3 foo}
        assert_error "ERR Syntax error in HELLO option 'foo'" {r hello 2 setname x foo}
        assert_error "ERR Client names cannot contain spaces, newlines or special characters." \
            {r hello 3 setname "a b"}
        assert_error "ERR Client names cannot contain spaces, newlines or special characters." \
            {r hello 3 setname "a\nb"}
        # A failed HELLO does not switch the protocol.
        set c [redis_client -readraw 1]
        assert_match "-*" [$c hello 3 setname "bad name"]
        assert_equal {$-1} [$c get nosuchkey]
        $c close
    }

    test "HELLO SETNAME names the connection" {
        set c [redis_client]
        $c hello 2 setname my-client
        if {[catch {$c client getname} name]} {
            $c close
            skip "needs CLIENT GETNAME: $name"
        }
        assert_equal my-client $name
        $c hello 2 setname a setname b
        assert_equal b [$c client getname]
        $c close
    }
}

start_server {tags {auth} config_lines {{requirepass "foo bar"}}} {
    test "Commands before AUTH are refused with NOAUTH" {
        set c [redis_client]
        foreach cmd {{ping} {get k} {set k v} {select 1} {echo x} {dbsize} {flushall}} {
            assert_error "NOAUTH Authentication required." [list $c {*}$cmd]
        }
        $c close
    }

    test "An unknown command is reported as unknown even before AUTH" {
        set c [redis_client]
        assert_error "ERR unknown command 'nosuchcommand'*" {$c nosuchcommand}
        $c close
    }

    test "AUTH with a wrong password, then the right one" {
        set c [redis_client]
        assert_error "WRONGPASS invalid username-password pair or user is disabled." {$c auth wrong}
        assert_error "WRONGPASS invalid username-password pair or user is disabled." {$c auth foo}
        assert_error "NOAUTH Authentication required." {$c ping}
        assert_equal OK [$c auth "foo bar"]
        assert_equal PONG [$c ping]
        assert_equal OK [$c set k v]
        $c close
    }

    test "AUTH with a user name" {
        set c [redis_client]
        assert_error "WRONGPASS*" {$c auth nosuchuser "foo bar"}
        assert_error "WRONGPASS*" {$c auth default wrong}
        assert_equal OK [$c auth default "foo bar"]
        assert_equal v [$c get k]
        $c close
    }

    test "A failed AUTH does not log out an authenticated client" {
        set c [redis_client]
        $c auth "foo bar"
        assert_error "WRONGPASS*" {$c auth wrong}
        assert_equal PONG [$c ping]
        $c close
    }

    test "Authentication is per connection" {
        set a [redis_client]
        set b [redis_client]
        $a auth "foo bar"
        assert_equal PONG [$a ping]
        assert_error "NOAUTH*" {$b ping}
        $a close
        $b close
    }

    test "HELLO before AUTH is refused unless it authenticates" {
        set c [redis_client]
        assert_error "NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO*AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time" \
            {$c hello}
        assert_error "NOAUTH HELLO must be called*" {$c hello 3}
        assert_error "NOAUTH Authentication required." {$c ping}
        $c close
    }

    test "HELLO AUTH authenticates and switches protocol" {
        set c [redis_client]
        assert_error "WRONGPASS*" {$c hello 3 auth default wrong}
        assert_error "NOAUTH Authentication required." {$c ping}
        set reply [$c hello 3 auth default "foo bar"]
        assert_equal 3 [dict get $reply proto]
        assert_equal PONG [$c ping]
        $c close
        set c [redis_client -readraw 1]
        assert_equal {%7} [$c hello 3 auth default "foo bar" setname authed]
        $c close
    }

    test "HELLO with a bad version is refused before authenticating" {
        set c [redis_client]
        assert_error "NOPROTO unsupported protocol version" {$c hello 9 auth default "foo bar"}
        assert_error "NOAUTH Authentication required." {$c ping}
        $c close
    }

    test "QUIT works without authentication" {
        set c [redis_client -readraw 1]
        assert_equal +OK [$c quit]
        if {![catch {$c read} reply opts]} { fail "the connection stayed open: $reply" }
        $c close
    }

    test "Unauthenticated clients: multibulk count over 10 is a protocol error" {
        set c [redis_client -readraw 1]
        $c write "*11\r\n"
        $c flush
        assert_equal "-ERR Protocol error: unauthenticated multibulk length" [$c read]
        assert_error "*connection closed*" {$c read}
        $c close
    }

    test "Unauthenticated clients: a bulk over 16 KB is a protocol error" {
        set c [redis_client -readraw 1]
        $c write "*1\r\n\$16385\r\n"
        $c flush
        assert_equal "-ERR Protocol error: unauthenticated bulk length" [$c read]
        assert_error "*connection closed*" {$c read}
        $c close
    }

    test "Unauthenticated clients: requests at the limits are still parsed" {
        set c [redis_client -readraw 1]
        $c write "*10\r\n\$4\r\nMGET\r\n"
        for {set i 0} {$i < 9} {incr i} { $c write "\$1\r\nx\r\n" }
        $c flush
        assert_equal "-NOAUTH Authentication required." [$c read]
        $c write "*2\r\n\$4\r\nECHO\r\n\$16384\r\n[string repeat x 16384]\r\n"
        $c flush
        assert_equal "-NOAUTH Authentication required." [$c read]
        $c close
    }

    test "After AUTH the limits are lifted" {
        set c [redis_client]
        $c auth "foo bar"
        set args {}
        for {set i 0} {$i < 30} {incr i} { lappend args k$i v$i }
        assert_equal OK [$c mset {*}$args]
        set big [string repeat y 100000]
        assert_equal OK [$c set big $big]
        assert_equal $big [$c get big]
        $c close
    }
}

start_server {tags {auth unixsocket} unixsocket 1 overrides {requirepass secret}} {
    test "requirepass applies to the unix socket too" {
        set c [redis_client -unix 1]
        assert_error "NOAUTH Authentication required." {$c ping}
        assert_equal OK [$c auth secret]
        assert_equal PONG [$c ping]
        $c close
    }
}

start_server {tags {auth} overrides {requirepass secret}} {
    # Pipelines COUNT commands at c without reading; 1 if the server cut
    # the connection on the way.
    proc flood_without_reading {c count} {
        set cmd "*3\r\n\$3\r\nSET\r\n\$1\r\nx\r\n\$1\r\n5\r\n"
        for {set j 0} {$j < $count} {incr j 100} {
            if {[catch {
                $c write [string repeat $cmd 100]
                $c flush
            }]} { return 1 }
        }
        return 0
    }

    test "A client that never authenticated is cut off after 1 KB of unread replies" {
        set admin [redis_client]
        $admin auth secret
        set before [info_field [$admin info stats] client_output_buffer_limit_disconnections]
        set c [redis_client]
        # NOAUTH errors it never reads: the socket takes some, the server
        # must not keep the rest
        assert_equal 1 [flood_without_reading $c 200000] "the unauthenticated client was never disconnected"
        catch {$c close}
        assert_equal [expr {$before + 1}] [info_field [$admin info stats] client_output_buffer_limit_disconnections]
        assert_equal PONG [$admin ping]
        $admin close
    }

    test "A client that authenticated once keeps the normal limits, also after RESET" {
        set c [redis_client]
        $c auth secret
        assert_equal RESET [$c reset]
        assert_error "NOAUTH *" {$c ping}
        # ~300 KB of NOAUTH errors written before any is read: far past
        # 1 KB, well within the default limits
        assert_equal 0 [flood_without_reading $c 10000]
        for {set k 0} {$k < 10000} {incr k} {
            catch {$c read} e
            if {![string match "NOAUTH *" $e]} { fail "reply $k: $e" }
        }
        $c close
    }
}

start_server {tags {auth}} {
    test "requirepass may hold any bytes, NUL included" {
        set pass "abc\x00def"
        assert_equal OK [r config set requirepass $pass]
        assert_equal $pass [lindex [r config get requirepass] 1]
        set c [redis_client]
        assert_error "WRONGPASS *" {$c auth abc}
        assert_error "WRONGPASS *" {$c auth "abc\x00de"}
        assert_error "WRONGPASS *" {$c auth "abc\x00defg"}
        assert_equal OK [$c auth $pass]
        assert_equal PONG [$c ping]
        $c close
    }

    test "A binary requirepass is written escaped by CONFIG REWRITE and read back" {
        set c [redis_client]
        $c auth "abc\x00def"
        assert_equal OK [$c config rewrite]
        $c close
        assert_match {*requirepass "abc\\x00def"*} [::harness::read_file [srv config_file]]
        restart_server
        set c [redis_client]
        assert_error "WRONGPASS *" {$c auth abc}
        assert_equal OK [$c auth "abc\x00def"]
        assert_equal OK [$c config set requirepass ""]
        $c close
        assert_equal PONG [r ping]
    }
}
