# tests/unit/shm.tcl -- the shared-memory transport (CLIENT SHM, src/shm.c,
# src/lib/connection_shm.c): the handshake and its refusals, commands of
# every kind through the rings (strings, lists, MULTI, pub/sub, blocking,
# MONITOR, values many times the ring size, output buffer limits), the
# server's spin (shm-spin-us) and the shm_* fields of INFO clients, the
# refusal of an unsealed segment (the /dev/shm file, forced with the hidden
# shm-force-devshm), clients that break the protocol, clients that try to
# block the server through their wake-up descriptors, and a server killed
# under a waiting client.
#
# Tcl can't pass descriptors, so the shm clients are programs compiled here
# with the system C compiler:
#  - utils/shm-example.c, the documented example, which is also a relay
#    between a pipe and the rings: installed as the harness's unix relay
#    (::resp::relay_override), every "redis_client -unix 1" of this file
#    then speaks through shared memory;
#  - tests/helpers/shm-fault.c, a client that commits one fault per run.
# redis-cli --shm and redis-benchmark --shm are used as they are built.
# CLIENT SHM is our own command: Redis has nothing to compare with (these
# blocks need a unix socket, so external mode skips them; --tags -shm skips
# the file).
#
# Shared memory never crosses byte orders: the segment is in the server's,
# and a client of the other order refuses it (shmringSegmentAttach). The
# helper clients are built for this host, so a server emulated for a CPU of
# the other byte order (the sparc64 and s390x ports under QEMU) can't be
# tested through them: the file is skipped there, saying so; the ring
# itself runs on those ports in the unit tests (test_shmring).

set ::shm_tmp [file join $::harness::opt(run_dir) shm-[pid]]
file mkdir $::shm_tmp
set ::shm_tools_dir [file dirname $::harness::opt(server)]

proc shm_source {rel} {
    set src [file normalize [file join [file dirname [info script]] .. .. $rel]]
    if {![file exists $src]} { set src [file normalize $rel] }
    return $src
}

proc need_shm_tools {} {
    if {[info exists ::shm_example] && [file executable $::shm_example]} return
    set cc [auto_execok cc]
    if {$cc eq ""} { set cc [auto_execok gcc] }
    if {$cc eq ""} { skip "no C compiler to build utils/shm-example.c" }
    set ::shm_example [file join $::shm_tmp shm-example]
    set ::shm_fault [file join $::shm_tmp shm-fault]
    exec {*}$cc -O2 -o $::shm_example [shm_source utils/shm-example.c]
    set lib [shm_source src/lib]
    exec {*}$cc -O2 -I$lib -o $::shm_fault [shm_source tests/helpers/shm-fault.c] \
        [file join $lib shmring.c] [file join $lib libassert.c]
}

# A client whose bytes go through the rings (ring size as asked).
proc shm_client {{ringsize ""} {deferred 0}} {
    need_shm_tools
    set ::resp::relay_override [list $::shm_example]
    if {$ringsize ne ""} {
        set ::resp::relay_override [list sh -c "exec [list $::shm_example] \"\$0\" $ringsize"]
    }
    set code [catch {redis_client -unix 1 -deferred $deferred} c]
    unset ::resp::relay_override
    if {$code} { error $c }
    return $c
}

proc shm_fault {mode} {
    need_shm_tools
    set out [exec timeout [::harness::scaled 30] $::shm_fault [srv unixsocket] $mode]
    return [string trim $out]
}

proc cli_shm {args} {
    set cli [file join $::shm_tools_dir redis-cli]
    return [exec {*}$::harness::opt(wrapper) $cli -s [srv unixsocket] --shm {*}$args]
}

proc shm_server_byte_order_differs {} {
    set big_endian_emulator [regexp {qemu-(sparc64|s390x)} [join $::harness::opt(wrapper)]]
    return [expr {$big_endian_emulator && $::tcl_platform(byteOrder) eq "littleEndian"}]
}

if {[shm_server_byte_order_differs]} {
    test "shared-memory transport" {
        skip "the server runs big-endian under QEMU and the shm test clients are built little-endian for this host (cross-endian segments are refused by design)"
    }
    return
}

start_server {tags {shm our-own} unixsocket 1} {
    test "CLIENT SHM over TCP is refused" {
        assert_error "*only available on a unix socket*" {r client shm}
    }

    test "COMMAND DOCS shows CLIENT SHM" {
        set docs [r command docs client|shm]
        assert_match "*shared-memory*" [dict get [lindex $docs 1] summary]
    }

    test "redis-cli --shm: a round trip, and CLIENT LIST shows flag m" {
        assert_equal PONG [cli_shm ping]
        set line [cli_shm client info]
        assert_match "*flags=Um *" $line
    }

    test "shm-enabled no refuses the upgrade" {
        r config set shm-enabled no
        catch {cli_shm ping} err
        r config set shm-enabled yes
        assert_match "*shared-memory transport is disabled*" $err
    }

    test "shm-max-clients is enforced" {
        r config set shm-max-clients 1
        set c [shm_client]
        assert_equal PONG [$c ping]
        catch {cli_shm ping} err
        $c close
        r config set shm-max-clients 256
        assert_match "*max number of shared-memory clients reached*" $err
    }

    test "a shm client's wake-up descriptor counts against maxclients" {
        # A shm client holds two descriptors (its socket, the wake-up end):
        # the extra one takes a client's place, so the process stays within
        # maxclients + the reserve its open-files limit and event loop are
        # sized for. Without it local clients upgrading could use up the
        # descriptors kept for the AOF, RDB and listeners.
        wait_for_condition 100 50 {[s shm_connected_clients] == 0} else { fail "shm clients left" }
        set connected [s connected_clients]
        r config set maxclients [expr {$connected + 2}]
        try {
            set c [shm_client]        ;# connected + 1 clients, + 1 descriptor: full
            assert_equal PONG [$c ping]
            set code [catch {set tcp [redis_client]; $tcp ping} err]
            assert_equal 1 $code
            assert_match "*max number of clients reached*" $err
            $c close
            wait_for_condition 100 50 {[s shm_connected_clients] == 0} else { fail "still counted" }
            # one slot left: a plain unix client fits, its upgrade does not
            r config set maxclients [expr {$connected + 1}]
            catch {cli_shm ping} err
            assert_match "*max number of clients reached*" $err
        } finally {
            r config set maxclients 10000
        }
        set tcp [redis_client]
        assert_equal PONG [$tcp ping]
        $tcp close
    }

    test "RINGSIZE out of bounds is refused" {
        need_shm_tools
        catch {exec $::shm_example [srv unixsocket] 100} err
        assert_match "*RINGSIZE must be between*" $err
    }

    test "requirepass applies before the upgrade" {
        r config set requirepass secret
        catch {cli_shm ping} err
        r config set requirepass ""
        assert_match "*NOAUTH*" $err
    }

    test "strings and lists through the rings" {
        set c [shm_client]
        $c del s l
        assert_equal OK [$c set s hello]
        assert_equal 10 [$c append s world]
        assert_equal helloworld [$c get s]
        assert_equal 3 [$c rpush l a b c]
        assert_equal {a b c} [$c lrange l 0 -1]
        assert_equal 7 [$c incrby n 7]
        assert_equal helloworld [r get s]
        $c close
    }

    test "values many times the ring stream in pieces" {
        set c [shm_client 4096]
        set big [string repeat "0123456789abcdef" 65536]
        assert_equal OK [$c set big $big]
        assert_equal $big [$c get big]
        assert_equal [string length $big] [r strlen big]
        $c close
    }

    test "a pipeline of many commands" {
        set c [shm_client 4096 1]
        for {set i 0} {$i < 2000} {incr i} { $c incr pipelined }
        $c flush
        for {set i 1} {$i <= 2000} {incr i} { assert_equal $i [$c read] }
        $c close
    }

    test "MULTI/EXEC and WATCH" {
        set c [shm_client]
        $c del m
        $c watch m
        $c multi
        $c incr m
        $c incr m
        assert_equal {1 2} [$c exec]
        $c watch m
        r set m changed
        $c multi
        $c incr m
        assert_equal {} [$c exec]
        $c close
    }

    test "pub/sub through the rings" {
        set sub [shm_client "" 1]
        $sub subscribe news
        assert_equal {subscribe news 1} [$sub read]
        assert_equal 1 [r publish news hello]
        assert_equal {message news hello} [$sub read]
        $sub close
    }

    test "blocking commands are served" {
        set c [shm_client "" 1]
        r del q
        $c blpop q 0
        wait_for_blocked_clients 1
        r rpush q v
        assert_equal {q v} [$c read]
        $c close
    }

    test "MONITOR over shared memory" {
        set mon [shm_client "" 1]
        $mon monitor
        assert_equal OK [$mon read]
        r set monitored 1
        assert_match "*\"set\" \"monitored\" \"1\"*" [$mon read]
        $mon close
    }

    test "the output buffer limit closes a shm subscriber that does not read" {
        r config set client-output-buffer-limit "pubsub 256k 0 0"
        set before [s client_output_buffer_limit_disconnections]
        set sub [shm_client 4096 1]
        $sub subscribe flood
        assert_equal {subscribe flood 1} [$sub read]
        set payload [string repeat x 10000]
        # The relay blocks on the pipe nobody reads, the ring fills, then the
        # server's output buffer grows past the limit.
        for {set i 0} {$i < 400} {incr i} { r publish flood $payload }
        wait_for_condition 100 50 {
            [s client_output_buffer_limit_disconnections] > $before
        } else { fail "the subscriber was not disconnected" }
        catch {$sub close}
        r config set client-output-buffer-limit "pubsub 32mb 8mb 60"
    }

    test "redis-benchmark --shm, pipelined" {
        set bench [file join $::shm_tools_dir redis-benchmark]
        set before [s total_commands_processed]
        exec {*}$::harness::opt(wrapper) $bench -s [srv unixsocket] --shm -n 20000 -c 4 -P 16 -q -t set,get
        assert {[s total_commands_processed] - $before >= 40000}
    }

    # ---- the server's spin, INFO, the /dev/shm fallback ----

    test "shm-spin-us: CONFIG GET/SET and its bounds" {
        assert_equal {shm-spin-us 20} [r config get shm-spin-us]
        r config set shm-spin-us 5
        assert_equal {shm-spin-us 5} [r config get shm-spin-us]
        assert_error "*shm-spin-us*" {r config set shm-spin-us 1001}
        r config set shm-spin-us 20
    }

    test "INFO clients counts shm clients and upgrades" {
        # the relays of earlier tests end asynchronously
        wait_for_condition 100 50 {[s shm_connected_clients] == 0} else {
            fail "shm clients left: [r client list]"
        }
        set total [s shm_total_connections]
        set c [shm_client]
        assert_equal PONG [$c ping]
        assert_equal 1 [s shm_connected_clients]
        assert_equal [expr {$total + 1}] [s shm_total_connections]
        $c close
        wait_for_condition 50 50 {[s shm_connected_clients] == 0} else { fail "still counted" }
        foreach f {shm_protocol_violations shm_spin_hits shm_spin_misses shm_spin_time_usec shm_spin_budget_usec} {
            assert [string is integer -strict [s $f]]
        }
    }

    test "one request at a time: the server's spin catches requests" {
        # A generous cap so a loaded machine still has hits; on a single-CPU
        # machine the server never spins and both counters stay still.
        r config set shm-spin-us 1000
        set before [expr {[s shm_spin_hits] + [s shm_spin_misses]}]
        set hits [s shm_spin_hits]
        set bench [file join $::shm_tools_dir redis-benchmark]
        exec {*}$::harness::opt(wrapper) $bench -s [srv unixsocket] --shm -n 3000 -c 1 -P 1 -q -t ping
        r config set shm-spin-us 20
        if {[exec getconf _NPROCESSORS_ONLN] > 1} {
            assert {[s shm_spin_hits] > $hits}
        } else {
            assert_equal $before [expr {[s shm_spin_hits] + [s shm_spin_misses]}]
        }
    }

    test "shm-spin-us 0: no spinning, requests still served" {
        r config set shm-spin-us 0
        set spins [expr {[s shm_spin_hits] + [s shm_spin_misses]}]
        set c [shm_client]
        for {set i 0} {$i < 200} {incr i} { assert_equal PONG [$c ping] }
        $c close
        assert_equal $spins [expr {[s shm_spin_hits] + [s shm_spin_misses]}]
    }

    test "idle shm clients are never polled" {
        r config set shm-spin-us 20
        set clients {}
        for {set i 0} {$i < 5} {incr i} {
            set c [shm_client]
            assert_equal PONG [$c ping]
            lappend clients $c
        }
        after 200 ;# the spins that follow the last requests end
        set spins [expr {[s shm_spin_hits] + [s shm_spin_misses]}]
        set spun [s shm_spin_time_usec]
        after 500
        assert_equal $spins [expr {[s shm_spin_hits] + [s shm_spin_misses]}]
        assert_equal $spun [s shm_spin_time_usec]
        foreach c $clients { assert_equal PONG [$c ping]; $c close }
        r config set shm-spin-us 20
    }

    test "an unsealed segment (the /dev/shm file) is refused, nothing left behind" {
        # A client can truncate a segment that is not sealed, and the
        # server's next access past the new end is a SIGBUS (checking the
        # size first is a race, and the server also touches the rings
        # outside any event): without memfd sealing CLIENT SHM is refused.
        # shm-force-devshm forces the file here.
        if {![file isdirectory /dev/shm]} { skip "no /dev/shm" }
        need_shm_tools
        r config set shm-force-devshm yes
        catch {exec $::shm_example [srv unixsocket] 8192 < /dev/null} out
        r config set shm-force-devshm no
        assert_match "*could not set up shared memory: the segment can't be sealed*" $out
        # the server holds no segment file
        if {[file isdirectory /proc/[srv pid]/fd]} {
            foreach fd [glob -nocomplain /proc/[srv pid]/fd/*] {
                if {[catch {file readlink $fd} target]} continue
                assert {![string match "/dev/shm/redis-shm-*" $target]}
            }
        }
        # and a sealed one still works
        set c [shm_client 8192]
        assert_equal OK [$c set viamemfd [string repeat v 20000]]
        assert_equal 20000 [$c strlen viamemfd]
        $c close
    }

    # ---- faults: the server survives every one, closes the client, logs why ----

    foreach {mode expected logged} {
        garbage        closed           0
        head-beyond    closed           1
        head-backwards {+PONG closed}   1
        wrap-twice     closed           1
        tail-lie       closed           1
        socket-bytes   closed           1
        truncate       {refused refused +PONG} 0
        unmap          unmapped         0
        half-request   exiting          0
    } {
        test "fault: $mode" {
            set from [log_line_count]
            set out [shm_fault $mode]
            assert_equal $expected [string map {"\n" " "} $out]
            assert_equal PONG [r ping]
            if {$logged} { wait_for_log "*Shared-memory protocol violation*" -from $from }
            wait_for_condition 50 50 {
                ![string match "*flags=Um*" [r client list]]
            } else { fail "the faulty client is still listed: [r client list]" }
        }
    }

    test "the key written before the unmap is there" {
        assert_equal 1 [r get u]
    }

    test "INFO counts the protocol violations" {
        assert {[s shm_protocol_violations] >= 5}
    }
}

# A client can't freeze the server through the descriptors it was given.
# The old handshake passed it eventfds the server also used: clearing
# O_NONBLOCK on its copy cleared it on the server's (one open file
# description), and a full counter (block-signal) or an empty one
# (block-drain) then blocked the server in write()/read() for good. Each
# attack runs against a server of its own; a TCP client must still get
# its PONG (with a bounded read: a frozen server times it out), and the
# server must still stop, by SHUTDOWN and by SIGTERM.
foreach {mode stop} {block-signal shutdown block-drain sigterm} {
    start_server {tags {shm our-own} unixsocket 1} {
        test "a client can't block the server through its wake-up descriptors ($mode)" {
            need_shm_tools
            set ::shm_attack_out [file join $::shm_tmp $mode.out]
            set from [log_line_count]
            set ::shm_attacker [exec $::shm_fault [srv unixsocket] $mode > $::shm_attack_out 2>@1 &]
            wait_for_condition 100 50 {
                [string match "*attacked*" [::harness::read_file $::shm_attack_out]]
            } else { fail "the attack did not run: [::harness::read_file $::shm_attack_out]" }
            if {$mode eq "block-drain"} {
                # the server saw the byte on the socket: its handler runs now
                wait_for_log "*Shared-memory protocol violation*control socket*" -from $from
            }
            set victim [redis_client -timeout [::harness::scaled 5]]
            for {set i 0} {$i < 3} {incr i} {
                assert_equal PONG [$victim ping]
                assert_equal OK [$victim set after-attack $i]
            }
            $victim close
        }

        test "the server under attack still stops ($stop)" {
            set pid [srv pid]
            try {
                if {$stop eq "shutdown"} {
                    set victim [redis_client -timeout [::harness::scaled 5]]
                    catch {$victim shutdown nosave}
                    catch {$victim close}
                } else {
                    exec kill -TERM $pid
                }
                wait_for_condition 100 50 {![::harness::pid_alive $pid]} else {
                    fail "the server did not stop"
                }
            } finally {
                catch {exec kill $::shm_attacker}
            }
            restart_server ;# the block ends with a running server
            assert_equal PONG [r ping]
        }
    }
}

# The server is started by hand so it can be killed: the client must get
# an error, not hang.
start_server {tags {shm our-own}} {
    test "a killed server gives a waiting shm client an error" {
        need_shm_tools
        set sock [file join $::shm_tmp killed.sock]
        set pid [exec {*}$::harness::opt(wrapper) $::harness::opt(server) --port 0 --unixsocket $sock \
                     --save "" --dir $::shm_tmp --logfile [file join $::shm_tmp killed.log] &]
        try {
            wait_for_condition 100 50 { [file exists $sock] } else { fail "server did not start" }
            set out [file join $::shm_tmp wait-reply.out]
            set client [exec $::shm_fault $sock wait-reply > $out 2>@1 &]
            wait_for_condition 100 50 {
                [string match "*+PONG*" [::harness::read_file $out]]
            } else { fail "no PONG: [::harness::read_file $out]" }
            after [::harness::scaled 100]
            exec kill -9 $pid
            wait_for_condition 100 50 {
                [string match "*error: server closed the connection*" [::harness::read_file $out]]
            } else { fail "the client did not notice: [::harness::read_file $out]" }
        } finally {
            # Whatever failed, the hand-started server must not outlive the
            # test: it holds the worker's output open and the run would hang.
            catch {exec kill -9 $pid}
            catch {exec kill $client}
        }
    }
}
