# client-eviction.tcl -- maxmemory-clients: the directive's forms and errors,
# disconnecting the largest clients (query or output buffer) when all
# clients together reach the limit (queued MULTI commands and WATCHed keys
# count too, as CLIENT LIST's multi-mem), CLIENT NO-EVICT, INFO
# evicted_clients and mem_clients_normal. Expectations follow Redis 7.0 (checked against the
# Debian 7.0 server): the effective limit is never under 128 KB.
#
# Query buffers are grown by sending most of a big argument and never its
# end. The server reserves room as the bytes arrive, not the announced
# length at once, but counts what a big argument has announced from its
# header on (as Redis, which reserves it there): CLIENT LIST and eviction
# see the same figures as on Redis.

# The CLIENT LIST line of the client called $name, "" if it is gone.
proc ce_client_line {name} {
    foreach line [split [string trim [r client list]] \n] {
        if {[client_field $line name] eq $name} { return $line }
    }
    return ""
}

proc ce_named_client {name} {
    set c [redis_client]
    $c client setname $name
    return $c
}

# Sends a command whose last argument announces $bytes; all but its last
# 16 bytes are sent. A client evicted meanwhile makes the write fail: the
# tests look at the client list, not at this.
proc ce_start_big_arg {c bytes} {
    catch {
        $c write "*2\r\n\$4\r\necho\r\n\$$bytes\r\n[string repeat x [expr {$bytes - 16}]]"
        $c flush
    }
}

proc ce_wait_gone {name} {
    wait_for_condition 100 20 {[ce_client_line $name] eq ""} else {
        fail "client $name was not evicted"
    }
}

proc ce_wait_tot_mem_over {name bytes} {
    wait_for_condition 100 20 {
        [ce_client_line $name] ne "" && [client_field [ce_client_line $name] tot-mem] > $bytes
    } else {
        fail "client $name did not grow over $bytes bytes"
    }
}

proc ce_config_error {value} {
    return "*CONFIG SET failed (possibly related to argument 'maxmemory-clients') - $value"
}

start_server {tags {client-eviction}} {
    test "maxmemory-clients is 0 (off) by default" {
        assert_equal {maxmemory-clients 0} [r config get maxmemory-clients]
    }

    test "maxmemory-clients takes memory values and whole percentages" {
        foreach {value shown} {1mb 1048576 1k 1000 2gb 2147483648 10% 10% 100% 100% 0% 0 5 5 "" 0 0 0} {
            r config set maxmemory-clients $value
            assert_equal [list maxmemory-clients $shown] [r config get maxmemory-clients] "set to '$value'"
        }
    }

    test "maxmemory-clients rejects bad values with Redis's errors" {
        r config set maxmemory-clients 7%
        foreach value {101% 200%} {
            assert_error [ce_config_error "percentage argument must be less or equal to 100"] {
                r config set maxmemory-clients $value
            }
        }
        foreach value {-1 -5% 1.5% abc 10%% % "10 %" " 10%" "10% "} {
            assert_error [ce_config_error "argument must be a memory or percent value"] {
                r config set maxmemory-clients $value
            }
        }
        assert_equal {maxmemory-clients 7%} [r config get maxmemory-clients]
        r config set maxmemory-clients 0
    }

    test "INFO memory shows mem_clients_normal, growing with a client's buffers" {
        assert_morethan [s mem_clients_normal] 0
        set before [s mem_clients_normal]
        set c [ce_named_client grower]
        ce_start_big_arg $c 2000000
        wait_for_condition 100 20 {[s mem_clients_normal] > $before + 1900000} else {
            fail "mem_clients_normal did not count the query buffer"
        }
        $c close
        wait_for_condition 100 20 {[s mem_clients_normal] < $before + 100000} else {
            fail "mem_clients_normal kept a closed client's buffer"
        }
    }

    # Without a limit the running total is not kept per event (issue #39):
    # setting one must count what the clients hold already, so the client
    # over it goes with the CONFIG SET, not at a later cron tick.
    test "maxmemory-clients set while a client holds more: evicted by the CONFIG SET itself" {
        r config resetstat
        set c [ce_named_client before_limit]
        ce_start_big_arg $c 2000000
        ce_wait_tot_mem_over before_limit 1900000 ;# CLIENT LIST: INFO would bring the total up to date
        r config set maxmemory-clients 1mb
        assert_no_match "*name=before_limit*" [r client list]
        assert_equal 1 [s evicted_clients]
        r config set maxmemory-clients 0
        $c close
    }

    test "a client with a big query buffer is evicted" {
        r config resetstat
        r config set maxmemory-clients 1mb
        set c [ce_named_client bigquery]
        ce_start_big_arg $c 2000000
        ce_wait_gone bigquery
        assert_equal 1 [s evicted_clients]
        assert_equal PONG [r ping]
        $c close
    }

    test "a CLIENT NO-EVICT client is not evicted" {
        r config resetstat
        r client no-evict on ;# else this connection would be the one to go
        set c [ce_named_client protected]
        $c client no-evict on
        ce_start_big_arg $c 2000000
        ce_wait_tot_mem_over protected 1900000
        after 300 ;# cron ticks check again
        assert_not_equal "" [ce_client_line protected]
        assert_equal 0 [s evicted_clients]
        $c close
        wait_for_condition 100 20 {[ce_client_line protected] eq ""} else { fail "client not closed" }
        r client no-evict off
    }

    test "CLIENT NO-EVICT off makes a big client evictable again" {
        r config resetstat
        r client no-evict on
        set c [ce_named_client protected2]
        $c client no-evict on
        set big [ce_named_client holder]
        $big client no-evict on
        ce_start_big_arg $big 2000000
        ce_wait_tot_mem_over holder 1900000
        after 200
        assert_not_equal "" [ce_client_line protected2]
        # c is small, but the only evictable client: it goes, possibly right
        # after this command (before its reply is sent)
        catch {$c client no-evict off}
        ce_wait_gone protected2
        assert_not_equal "" [ce_client_line holder]
        $big close
        wait_for_condition 100 20 {[ce_client_line holder] eq ""} else { fail "holder not closed" }
        r client no-evict off
        $c close
    }

    test "the largest client is evicted, the smaller one survives" {
        r config resetstat
        r client no-evict on
        set small [ce_named_client small]
        ce_start_big_arg $small 400000
        ce_wait_tot_mem_over small 390000
        set big [ce_named_client big]
        ce_start_big_arg $big 800000
        ce_wait_gone big
        assert_not_equal "" [ce_client_line small]
        assert_equal 1 [s evicted_clients]
        r client no-evict off
        $small close
        $big close
    }

    test "clients are evicted only until the total is under the limit" {
        r config resetstat
        r config set maxmemory-clients 0
        r client no-evict on
        set clients {}
        foreach n {1 2 3 4 5} {
            set c [ce_named_client many$n]
            ce_start_big_arg $c 250000
            ce_wait_tot_mem_over many$n 240000
            lappend clients $c
        }
        # five clients of ~280 KB (allocator size classes included):
        # a 1 MB limit leaves room for three
        r config set maxmemory-clients 1mb
        wait_for_condition 100 20 {[s evicted_clients] == 2} else {
            fail "expected two evictions, got [s evicted_clients]"
        }
        after 200
        assert_equal 2 [s evicted_clients]
        set left 0
        foreach n {1 2 3 4 5} { if {[ce_client_line many$n] ne ""} { incr left } }
        assert_equal 3 $left
        r client no-evict off
        foreach c $clients { $c close }
    }

    test "a client with a big output buffer is evicted" {
        r config resetstat
        r client no-evict on
        r config set maxmemory-clients 1mb
        r set big [string repeat x 200000]
        set c [redis_deferring_client]
        $c client setname bigoutput
        $c flush
        assert_equal OK [$c read]
        # replies pile up while the client reads nothing
        set sent 0
        while {[ce_client_line bigoutput] ne "" && $sent < 2000} {
            if {[catch {
                for {set j 0} {$j < 10} {incr j} { $c get big }
                $c flush
            }]} { break }
            incr sent 10
        }
        ce_wait_gone bigoutput
        assert_equal 1 [s evicted_clients]
        r client no-evict off
        $c close
    }

    test "CONFIG RESETSTAT clears evicted_clients" {
        assert_morethan [s evicted_clients] 0
        r config resetstat
        assert_equal 0 [s evicted_clients]
        r config set maxmemory-clients 0
    }
}

start_server {tags {client-eviction}} {
    test "a percentage of maxmemory: evicts over it, off while maxmemory is 0" {
        r config set maxmemory-clients 10%
        set c [ce_named_client pct]
        ce_start_big_arg $c 2000000
        ce_wait_tot_mem_over pct 1900000
        after 300
        assert_not_equal "" [ce_client_line pct]
        assert_equal 0 [s evicted_clients]
        # 10% of 10 MB is 1 MB, under the client's buffer
        r config set maxmemory 10mb
        r ping
        ce_wait_gone pct
        assert_equal 1 [s evicted_clients]
        r config set maxmemory 0
        r config set maxmemory-clients 0
        $c close
    }

    test "CLIENT LIST shows the queued commands and their memory (multi, multi-mem)" {
        set c [ce_named_client queuer]
        assert_equal -1 [client_field [ce_client_line queuer] multi]
        assert_equal 0 [client_field [ce_client_line queuer] multi-mem]
        $c multi
        assert_equal 0 [client_field [ce_client_line queuer] multi]
        $c set k [string repeat x 1000]
        $c set k [string repeat x 1000]
        set line [ce_client_line queuer]
        assert_equal 2 [client_field $line multi]
        assert_morethan [client_field $line multi-mem] 2000
        assert_morethan [client_field $line tot-mem] [expr {[client_field $line multi-mem] + 2000}]
        $c discard
        set line [ce_client_line queuer]
        assert_equal -1 [client_field $line multi]
        assert_equal 0 [client_field $line multi-mem]
        # WATCHed keys count in tot-mem, not in multi-mem (queued arguments only)
        $c watch k1 k2
        assert_equal 0 [client_field [ce_client_line queuer] multi-mem]
        $c close
    }

    test "a client queuing a large transaction is evicted before EXEC" {
        r config resetstat
        r config set maxmemory-clients 1mb
        set c [ce_named_client bigmulti]
        $c multi
        set value [string repeat v 200000]
        set err ""
        catch { for {set j 0} {$j < 10} {incr j} { $c set k$j $value } } err
        ce_wait_gone bigmulti
        assert_equal 1 [s evicted_clients]
        assert_equal 0 [r exists k0]
        assert_equal PONG [r ping]
        catch {$c close}
        r config set maxmemory-clients 0
    }

    test "a client piling up tracking prefixes is evicted" {
        r config resetstat
        r config set maxmemory-clients 200000
        set c [ce_named_client prefixes]
        set added 0
        catch {
            for {set j 0} {$j < 40000} {incr j} {
                $c client tracking on bcast prefix [format %012d $j]
                incr added
            }
        }
        ce_wait_gone prefixes
        assert_equal 1 [s evicted_clients]
        # 200 KB is thousands of prefixes, not a handful
        assert_morethan $added 1000
        catch {$c close}
        r config set maxmemory-clients 0
    }

    test "a client piling up subscriptions is evicted" {
        r config resetstat
        r config set maxmemory-clients 200000
        set c [redis_deferring_client]
        $c client setname subscriber
        $c read
        set added 0
        catch {
            for {set batch 0} {$batch < 400} {incr batch} {
                set names {}
                for {set j 0} {$j < 50} {incr j} { lappend names "channel:$batch:$j" }
                $c subscribe {*}$names
                for {set j 0} {$j < 50} {incr j} { $c read }
                incr added 50
            }
        }
        ce_wait_gone subscriber
        assert_equal 1 [s evicted_clients]
        assert_morethan $added 1000
        catch {$c close}
        r config set maxmemory-clients 0
    }

    # Redis 7.0 reserves a big argument's announced length when it reads
    # the "$N" line; we reserve as the bytes come, but count the claim.
    test "a big argument's announced length counts in tot-mem and qbuf-free from its header on" {
        set c [ce_named_client announcer]
        $c write "*2\r\n\$4\r\necho\r\n\$1000000\r\nabc"
        $c flush
        wait_for_condition 100 20 {[string match "*qbuf=3 *" [ce_client_line announcer]]} else {
            fail "the header was not read: [ce_client_line announcer]"
        }
        set line [ce_client_line announcer]
        assert_morethan [client_field $line qbuf-free] 999998
        assert_morethan [client_field $line tot-mem] 1000001
        $c close
    }

    test "a client whose announced argument the limit cannot hold is evicted at its header, and gone from CLIENT LIST at once" {
        r config resetstat
        r config set maxmemory-clients 1mb
        set c [ce_named_client claimer]
        catch {
            $c write "*2\r\n\$4\r\necho\r\n\$3000000\r\nabc"
            $c flush
        }
        ce_wait_gone claimer
        assert_equal 1 [s evicted_clients]
        assert_equal PONG [r ping]
        r config set maxmemory-clients 0
        $c close
    }

    # Ten clients each send the same 1 MB argument, in different pieces;
    # their query buffers (qbuf + qbuf-free, what tot-mem counts of them)
    # must be the same at every moment, since the buffer always ends
    # holding exactly the whole argument. (Their reply buffers may differ:
    # the cron shrinks idle ones.)
    test "clients sending the same big argument in different pieces use the same memory" {
        set n 1048576
        set mems {}
        set clients {}
        for {set j 0} {$j < 10} {incr j} {
            set c [ce_named_client piece$j]
            lappend clients $c
            set data [string repeat v $n]
            set parts [expr {1 + $j % 4}]
            set step [expr {$n / $parts}]
            $c write "*2\r\n\$4\r\necho\r\n\$$n\r\n"
            for {set p 0} {$p < $parts} {incr p} {
                set from [expr {$p * $step}]
                set to [expr {$p == $parts - 1 ? $n - 1 : $from + $step - 1}]
                $c write [string range $data $from $to]
                $c flush
                after 20
            }
            set line [ce_client_line piece$j]
            lappend mems [expr {[client_field $line qbuf] + [client_field $line qbuf-free]}]
        }
        foreach c $clients { $c close }
        assert_equal [lrepeat 10 [lindex $mems 0]] $mems
        assert_morethan [lindex $mems 0] $n
    }

    test "a setting under 128 KB acts as 128 KB: small clients stay connected" {
        r config resetstat
        r config set maxmemory-clients 1000
        assert_equal PONG [r ping]
        assert_equal PONG [r ping]
        assert_equal 0 [s evicted_clients]
        r config set maxmemory-clients 0
    }
}
