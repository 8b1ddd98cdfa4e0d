# openfiles.tcl -- the server and a low open-files limit (openfiles.c).
#
# The server is started under prlimit(1) with a small RLIMIT_NOFILE. It must
# fit maxclients to the limit at start-up (Redis's warnings, naming both
# numbers), raise a soft limit that is below the hard one, answer clients
# past the limit with "-ERR max number of clients reached" (counted in
# rejected_connections), and never spin: before openfiles.c the 1017th
# client of a default `ulimit -n` hung while accept() failed with EMFILE in
# a busy loop.
#
# Design decisions:
# - maxclients is asked far beyond fs.nr_open, so even a root with
#   CAP_SYS_RESOURCE cannot raise the limit to it and the reduction is the
#   same on every machine.
# - The descriptor-exhaustion path (accept() failing with EMFILE although
#   maxclients is not reached) is provoked by handing the server 30 open
#   descriptors it does not know about, through bash, which opens them
#   before exec'ing prlimit and the server.
# - Connections are plain Tcl sockets, closed before each test ends.

if {[auto_execok prlimit] eq ""} {
    ::harness::report_skip "open-files limit tests" "prlimit (util-linux) is not installed"
    return
}

# Runs BODY (a start_server call) with CMD... put in front of the server's
# command line (and of any emulator wrapper).
proc with_server_prefix {prefix body} {
    set saved $::harness::opt(wrapper)
    set ::harness::opt(wrapper) [concat $prefix $saved]
    try { uplevel 1 $body } finally { set ::harness::opt(wrapper) $saved }
}

# Opens N connections, sends PING on each, and counts the replies by kind:
# dict with keys pong, maxclients, other.
proc ping_many {n} {
    set socks {}
    for {set i 0} {$i < $n} {incr i} {
        set s [socket [srv host] [srv port]]
        fconfigure $s -translation binary -buffering none -blocking 1
        lappend socks $s
    }
    set counts [dict create pong 0 maxclients 0 other 0]
    foreach s $socks {
        catch {puts -nonewline $s "PING\r\n"}
        set line ""
        catch {gets $s line}
        set line [string trimright $line \r]
        switch -- $line {
            +PONG { dict incr counts pong }
            {-ERR max number of clients reached} { dict incr counts maxclients }
            default { dict incr counts other }
        }
    }
    return [list $counts $socks]
}

proc close_all {socks} { foreach s $socks { catch {close $s} } }

# CPU seconds (user + system) the server has used so far.
proc server_cpu_seconds {} {
    return [expr {[s used_cpu_user] + [s used_cpu_sys]}]
}

tags {needs:restart external:skip} {
    with_server_prefix {prlimit --nofile=64:64} {
        start_server {overrides {maxclients 2000000000}} {
            test "maxclients beyond the hard open-files limit is lowered to what fits, with Redis's warnings" {
                assert_equal {maxclients 32} [r config get maxclients]
                wait_for_log "*You requested maxclients of 2000000000 requiring at least 2000000032 max file descriptors.*"
                wait_for_log "*Current maximum open files is 64. maxclients has been reduced to 32 to compensate for low ulimit.*"
            }

            test "clients past the limit get 'max number of clients reached'; the server keeps serving" {
                set before [s rejected_connections]
                lassign [ping_many 40] counts socks
                # The test's own client is one of the 32. Under an emulator
                # its own descriptors count against the limit too, so a few
                # more may be refused through the exhaustion path: same reply.
                set pong [dict get $counts pong]
                set refused [dict get $counts maxclients]
                if {$::harness::opt(wrapper) eq "prlimit --nofile=64:64"} {
                    assert_equal 31 $pong
                } else {
                    assert {$pong >= 20 && $pong <= 31}
                }
                assert_equal 40 [expr {$pong + $refused}]
                assert_equal 0 [dict get $counts other]
                assert_equal $refused [expr {[s rejected_connections] - $before}]
                close_all $socks
                assert_equal PONG [r ping]
            }

            test "CONFIG SET maxclients beyond the limit is refused with the number that fits" {
                catch {r config set maxclients 1000} err
                assert_match "*not able to handle the specified number of clients, try with 32*" $err
                assert_equal {maxclients 32} [r config get maxclients]
            }
        }
    }

    with_server_prefix {prlimit --nofile=64:4096} {
        start_server {overrides {maxclients 1000}} {
            test "a soft open-files limit below the hard one is raised for maxclients" {
                assert_equal {maxclients 1000} [r config get maxclients]
                wait_for_log "*Increased maximum number of open files to 1032 (it was originally set to 64).*"
                lassign [ping_many 60] counts socks
                assert_equal 60 [dict get $counts pong]
                close_all $socks
            }
        }
    }

    # 30 descriptors the server does not count: EMFILE comes long before
    # maxclients (32) is reached.
    set open_fds {}
    for {set fd 3} {$fd < 33} {incr fd} { append open_fds "exec $fd</dev/null; " }
    with_server_prefix [list bash -c "$open_fds exec \"\$@\"" bash prlimit --nofile=64:64] {
        start_server {overrides {maxclients 2000000000}} {
            test "out of descriptors before maxclients: refused, logged, no busy loop" {
                set cpu_before [server_cpu_seconds]
                lassign [ping_many 40] counts socks
                assert {[dict get $counts pong] >= 1}
                assert {[dict get $counts maxclients] >= 1}
                assert_equal 0 [dict get $counts other]
                wait_for_log "*Out of file descriptors accepting a TCP connection*"
                # refused connections are drained: the listener is not left
                # readable, so an idle second costs the server next to nothing
                ::harness::sleep_ms 1000
                set cpu [expr {[server_cpu_seconds] - $cpu_before}]
                assert {$cpu < 0.5 * [::harness::factor]}
                close_all $socks
                assert_equal PONG [r ping]
            }
        }
    }
}
