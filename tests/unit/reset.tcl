# reset.tcl -- RESET: a connection back to the state it had right after
# connecting, as Redis 7.0 does it: no transaction or WATCH, no
# subscriptions, not a monitor, tracking off, replies on, db 0, RESP2, no
# name, unauthenticated again when a password is set. Replies +RESET, and
# works inside MULTI, in RESP2 subscribed mode and before AUTH.

start_server {tags {reset}} {
    test "RESET replies +RESET and takes no argument" {
        set c [redis_client -readraw 1]
        assert_equal +RESET [$c reset]
        $c close
        assert_error "*wrong number of arguments for 'reset' command" {r reset x}
    }

    test "RESET runs inside MULTI and discards the transaction" {
        set c [redis_client]
        $c multi
        assert_equal QUEUED [$c set rm 1]
        assert_equal RESET [$c reset]
        assert_error "ERR EXEC without MULTI" {$c exec}
        assert_equal 0 [r exists rm]
        $c close
    }

    test "RESET forgets WATCHed keys" {
        set c [redis_client]
        $c watch wk
        $c reset
        r set wk changed
        $c multi
        $c set wk mine
        assert_equal {OK} [$c exec]
        $c close
    }

    test "RESET is allowed in RESP2 subscribed mode and leaves every subscription" {
        set c [redis_deferring_client]
        $c subscribe ch
        assert_equal {subscribe ch 1} [$c read]
        $c psubscribe p*
        assert_equal {psubscribe p* 2} [$c read]
        $c ssubscribe sh
        assert_equal {ssubscribe sh 1} [$c read]
        $c reset
        assert_equal RESET [$c read]
        assert_equal {ch 0} [r pubsub numsub ch]
        assert_equal 0 [r pubsub numpat]
        assert_equal {sh 0} [r pubsub shardnumsub sh]
        $c ping
        assert_equal PONG [$c read]
        $c get x
        assert_equal {} [$c read]
        $c close
    }

    test "RESET ends MONITOR" {
        set c [redis_deferring_client]
        $c monitor
        assert_equal OK [$c read]
        $c reset
        assert_equal RESET [$c read]
        r set after-monitor 1
        $c get after-monitor
        assert_equal 1 [$c read]
        $c close
    }

    test "RESET turns CLIENT REPLY back on" {
        set c [redis_deferring_client]
        $c client reply off
        $c ping
        $c reset
        assert_equal RESET [$c read]
        $c ping
        assert_equal PONG [$c read]
        $c close
    }

    test "RESET: db 0, RESP2, no name, tracking off" {
        set c [redis_client]
        $c hello 3
        $c client setname someone
        $c select 5
        $c client tracking on bcast
        assert_match "*flags=tB *" [$c client info]
        assert_equal RESET [$c reset]
        set info [$c client info]
        assert_equal 0 [client_field $info db]
        assert_equal 2 [client_field $info resp]
        assert_equal {} [client_field $info name]
        assert_equal N [client_field $info flags]
        assert_equal -1 [client_field $info redir]
        assert_equal {flags off redirect -1 prefixes {}} [$c client trackinginfo]
        assert_equal 0 [s tracking_clients]
        $c close
    }

    test "RESET keeps CLIENT NO-EVICT (Redis 7.0)" {
        set c [redis_client]
        $c client no-evict on
        $c reset
        assert_equal e [client_field [$c client info] flags]
        $c close
    }

    start_server {overrides {requirepass secret}} {
        test "RESET works before AUTH and makes an authenticated client authenticate again" {
            set c [redis_client]
            assert_equal RESET [$c reset]
            assert_error "NOAUTH*" {$c ping}
            assert_equal OK [$c auth secret]
            assert_equal PONG [$c ping]
            assert_equal RESET [$c reset]
            assert_error "NOAUTH*" {$c ping}
            $c close
        }
    }
}
