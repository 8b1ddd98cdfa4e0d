# replybuf.tcl -- each client's inline reply buffer follows its use
# (src/replybuf.c): small replies shrink it from 16 KB to 1 KB, replies that
# fill it grow it back up to 16 KB (not further, as in Redis 7.0), the peak (CLIENT LIST rbp) starts over every
# peak-reset-time; DEBUG REPLYBUFFER RESIZING and PEAK-RESET-TIME control it.
#
# Design decisions:
# - Sizes are read from another connection's CLIENT LIST, so the client
#   under test only ever gets the replies the test gives it.
# - Sizes are checked as ranges: the allocator may round a request up
#   (libc malloc's usable sizes are a few bytes over the request).

proc rb_field {name field} {
    foreach line [split [string trim [r client list]] \n] {
        if {[client_field $line name] eq $name} { return [client_field $line $field] }
    }
    return ""
}

proc rb_client {name} {
    set c [redis_client]
    $c client setname $name
    return $c
}

start_server {tags {replybuf}} {
    r debug replybuffer peak-reset-time 100

    test "A client with small replies has its reply buffer shrunk to 1 KB" {
        # no resizing until its first size is read: a slow machine (QEMU)
        # can let a cron tick shrink it between connecting and CLIENT LIST
        r debug replybuffer resizing 0
        set c [rb_client small]
        assert_range [rb_field small rbs] 16384 17000
        r debug replybuffer resizing 1
        assert_equal PONG [$c ping]
        wait_for_condition 50 50 {[rb_field small rbs] < 2048} else {
            fail "the reply buffer stayed at [rb_field small rbs] bytes"
        }
        assert_range [rb_field small rbs] 1024 1100
        assert_equal PONG [$c ping]
        $c close
    }

    test "A client whose replies fill the buffer has it grown, back up to 16 KB" {
        r set big [string repeat x 40000]
        r config resetstat
        set c [rb_client big]
        wait_for_condition 50 50 {[rb_field big rbs] < 2048} else { fail "no shrink first" }
        for {set j 0} {$j < 200 && [rb_field big rbs] < 16384} {incr j} {
            assert_equal 40000 [string length [$c get big]]
            after 20
        }
        assert_range [rb_field big rbs] 16384 17000
        # and not further
        for {set j 0} {$j < 10} {incr j} { $c get big; after 20 }
        assert_range [rb_field big rbs] 16384 17000
        assert_morethan [s reply_buffer_shrinks] 0
        assert_morethan [s reply_buffer_expands] 3
        $c close
    }

    test "CLIENT LIST rbp shows the peak, which starts over after peak-reset-time" {
        r set mid [string repeat y 5000]
        set c [rb_client peak]
        # no reset while the peak is read: on a loaded machine (or under
        # QEMU) 100 ms may pass between the GET and CLIENT LIST
        r debug replybuffer peak-reset-time never
        $c get mid
        assert_morethan [rb_field peak rbp] 5000
        r debug replybuffer peak-reset-time 100
        wait_for_condition 50 50 {[rb_field peak rbp] < 100} else {
            fail "the peak stayed at [rb_field peak rbp]"
        }
        r debug replybuffer peak-reset-time never
        $c get mid
        after 500
        assert_morethan [rb_field peak rbp] 5000
        r debug replybuffer peak-reset-time 100
        $c close
    }

    test "DEBUG REPLYBUFFER RESIZING 0 leaves buffers as they are" {
        r debug replybuffer resizing 0
        set c [rb_client fixed]
        $c ping
        after 500
        assert_range [rb_field fixed rbs] 16384 17000
        r debug replybuffer resizing 1
        wait_for_condition 50 50 {[rb_field fixed rbs] < 2048} else { fail "no shrink after RESIZING 1" }
        $c close
    }

    test "Pipelined replies of every size stay intact while buffers resize" {
        r debug replybuffer peak-reset-time 0
        set sizes {1 100 900 1100 5000 17000 40000 3}
        foreach n $sizes { r set v$n [string repeat z $n] }
        set c [redis_deferring_client]
        for {set round 0} {$round < 20} {incr round} {
            foreach n $sizes { $c get v$n }
            foreach n $sizes { assert_equal $n [string length [$c read]] }
            after 30
        }
        $c close
        r debug replybuffer peak-reset-time 100
    }

    test "DEBUG REPLYBUFFER errors" {
        assert_error "ERR value is not an integer or out of range" {r debug replybuffer peak-reset-time soon}
        assert_error "*unknown subcommand*" {r debug replybuffer grow 1}
        assert_error "*unknown subcommand*" {r debug replybuffer resizing}
        assert_equal OK [r debug replybuffer peak-reset-time reset]
        assert_equal OK [r debug replybuffer resizing 1]
    }
}
