# slowlog.tcl -- SLOWLOG GET/LEN/RESET/HELP: which commands are logged
# (slowlog-log-slower-than: negative disables, 0 logs all), the entry format
# [id time duration args addr name], the cuts applied to long arguments and
# long argument lists, the length limit (slowlog-max-len) and the redaction
# of credentials.
#
# Each configuration gets its own server block (overrides), so these tests
# need no CONFIG SET.

# The newest entry's arguments.
proc last_slowlog_args {} {
    return [lindex [r slowlog get 1] 0 3]
}

start_server {tags {slowlog} overrides {slowlog-log-slower-than 0 slowlog-max-len 128}} {
    test "SLOWLOG RESET empties the log; LEN counts entries" {
        assert_equal OK [r slowlog reset]
        # RESET itself is logged once it has run.
        assert_equal 1 [r slowlog len]
        r ping
        r ping
        assert_equal 4 [r slowlog len]
    }

    test "SLOWLOG GET entry: id, unix time, duration, args, client address and name" {
        r slowlog reset
        r client setname slow-client
        r set slow-key slow-value
        set entry [lindex [r slowlog get 1] 0]
        assert_equal 6 [llength $entry]
        lassign $entry id time duration args addr name
        assert [string is wide -strict $id]
        assert_range $time [expr {[clock seconds] - 10}] [expr {[clock seconds] + 10}]
        assert [expr {[string is wide -strict $duration] && $duration >= 0}]
        assert_equal {set slow-key slow-value} $args
        assert_equal [lindex [split [lindex [r client info] 1] =] 1] $addr
        assert_equal slow-client $name
        r client setname ""
    }

    test "SLOWLOG GET: newest first, ids increasing, RESET does not reuse ids" {
        r slowlog reset
        r echo one
        r echo two
        set entries [r slowlog get 2]
        assert_equal {echo two} [lindex $entries 0 3]
        assert_equal {echo one} [lindex $entries 1 3]
        set newest [lindex $entries 0 0]
        assert_equal [expr {[lindex $entries 1 0] + 1}] $newest
        r slowlog reset
        r echo three
        assert_morethan [lindex [r slowlog get 1] 0 0] $newest
    }

    test "SLOWLOG GET count: default 10, -1 for all, 0 for none" {
        r slowlog reset
        for {set i 0} {$i < 15} {incr i} { r echo $i }
        assert_equal 10 [llength [r slowlog get]]
        assert_equal 3 [llength [r slowlog get 3]]
        assert_equal 0 [llength [r slowlog get 0]]
        set len [r slowlog len]
        # each SLOWLOG call is logged too, once it has run
        assert_equal [expr {$len + 1}] [llength [r slowlog get -1]]
        assert_equal [expr {$len + 2}] [llength [r slowlog get 1000]]
    }

    test "SLOWLOG GET errors" {
        assert_error "ERR count should be greater than or equal to -1" {r slowlog get -2}
        assert_error "ERR count should be greater than or equal to -1" {r slowlog get x}
        assert_error "ERR unknown subcommand or wrong number of arguments for 'get'. Try SLOWLOG HELP." \
            {r slowlog get 1 2}
    }

    test "Arguments longer than 128 bytes are cut, saying how much is missing" {
        set long [string repeat x 200]
        r set long-key $long
        set args [last_slowlog_args]
        assert_equal "[string repeat x 128]... (72 more bytes)" [lindex $args 2]
        set exact [string repeat y 128]
        r set long-key $exact
        assert_equal $exact [lindex [last_slowlog_args] 2]
    }

    test "More than 32 arguments: 31 are kept and the last says how many are missing" {
        set cmd [list mget]
        for {set i 1} {$i <= 40} {incr i} { lappend cmd key$i }
        r {*}$cmd
        set args [last_slowlog_args]
        assert_equal 32 [llength $args]
        assert_equal [lrange $cmd 0 30] [lrange $args 0 30]
        assert_equal "... (10 more arguments)" [lindex $args 31]
        set cmd [list mget]
        for {set i 1} {$i <= 31} {incr i} { lappend cmd key$i }
        r {*}$cmd
        assert_equal $cmd [last_slowlog_args]
    }

    test "Integer-encoded and shared arguments are logged as their text" {
        r set counter 12345
        r incrby counter 10
        assert_equal {incrby counter 10} [last_slowlog_args]
    }

    test "AUTH and HELLO credentials are logged as (redacted)" {
        catch {r auth secret-password}
        assert_equal {auth (redacted)} [last_slowlog_args]
        catch {r auth some-user secret-password}
        assert_equal {auth (redacted) (redacted)} [last_slowlog_args]
        catch {r hello 2 AUTH some-user secret-password SETNAME visible}
        assert_equal {hello 2 AUTH (redacted) (redacted) SETNAME visible} [last_slowlog_args]
        assert_no_match "*secret-password*" [r slowlog get -1]
    }

    test "SLOWLOG HELP and unknown subcommands" {
        set help [r slowlog help]
        assert_equal "SLOWLOG <subcommand> \[<arg> \[value\] \[opt\] ...\]. Subcommands are:" [lindex $help 0]
        assert [expr {"GET \[<count>\]" in $help && "LEN" in $help && "RESET" in $help}]
        assert_equal "    Prints this help." [lindex $help end]
        assert_error "ERR unknown subcommand 'foo'. Try SLOWLOG HELP." {r slowlog foo}
        assert_error "ERR wrong number of arguments for 'slowlog|len' command" {r slowlog len x}
        assert_error "ERR wrong number of arguments for 'slowlog' command" {r slowlog}
    }
}

start_server {tags {slowlog} overrides {slowlog-log-slower-than 0 slowlog-max-len 3}} {
    test "slowlog-max-len keeps only the newest entries" {
        for {set i 0} {$i < 10} {incr i} { r echo $i }
        assert_equal 3 [r slowlog len]
        set entries [r slowlog get -1]
        assert_equal {slowlog len} [lindex $entries 0 3]
        assert_equal {echo 9} [lindex $entries 1 3]
        assert_equal {echo 8} [lindex $entries 2 3]
    }
}

start_server {tags {slowlog} overrides {slowlog-log-slower-than 100000}} {
    test "Only commands slower than the threshold are logged, with their duration" {
        r slowlog reset
        r ping
        r debug sleep 0.2
        r ping
        set entries [r slowlog get -1]
        assert_equal 1 [llength $entries]
        assert_equal {debug sleep 0.2} [lindex $entries 0 3]
        assert_morethan [lindex $entries 0 2] 199999
    }

    test "In a pipeline, a command is timed from the end of the one before, not earlier" {
        r slowlog reset
        set c [redis_deferring_client]
        $c ping
        $c debug sleep 0.2
        $c ping
        $c ping
        foreach want {PONG OK PONG PONG} { assert_equal $want [$c read] }
        # the PINGs after the sleep are not charged with it; a quiet client's
        # next command is not charged with the wait either
        after 200
        $c ping
        assert_equal PONG [$c read]
        set entries [r slowlog get -1]
        assert_equal 1 [llength $entries]
        assert_equal {debug sleep 0.2} [lindex $entries 0 3]
        $c close
    }
}

start_server {tags {slowlog} overrides {slowlog-log-slower-than -1}} {
    test "A negative threshold disables the slow log" {
        r slowlog reset
        r debug sleep 0.05
        r ping
        assert_equal 0 [r slowlog len]
    }
}
