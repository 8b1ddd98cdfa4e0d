#!/usr/bin/env tclsh
# crash-safety.tcl -- does the AOF keep every acknowledged write across a
# kill -9? (A benchmark-style script, not a unit test: it takes minutes.)
#
#   tclsh utils/crash-safety.tcl [--server PATH] [--cycles N] [--fsync always|everysec]
#                                [--clients N] [--wrapper "qemu-..."]
#
# Each cycle: start the server with appendonly yes and the chosen
# appendfsync in a fresh directory (the first cycle) or the previous one;
# N clients append increasing sequence numbers to their own list
# (RPUSH seq:<client> <n>), each waiting for the reply, so a reply means
# "acknowledged"; after a random 50..1000 ms the server is killed with
# SIGKILL; it is restarted on the same directory and every list must hold
# exactly 1..k with k >= the last acknowledged number (nothing acknowledged
# lost, nothing invented, no gap). With everysec, writes acknowledged in the
# last second may be lost: the script reports how many and the longest
# window in milliseconds.
#
# Ends with a summary line and "N passed, N failed" (a cycle fails if it
# lost an acknowledged write with always, lost more than ~1 s of writes with
# everysec, found a gap, or the server didn't restart).
#
# Only processes this script started are killed, by PID.

set here [file dirname [file normalize [info script]]]
source [file join $here .. tests helpers redis.tcl]

array set opt {server src/redis-server cycles 20 fsync always clients 4 wrapper {}}
foreach {k v} $argv {
    switch -- $k {
        --server { set opt(server) $v }
        --cycles { set opt(cycles) $v }
        --fsync { set opt(fsync) $v }
        --clients { set opt(clients) $v }
        --wrapper { set opt(wrapper) $v }
        default { puts stderr "unknown option $k"; exit 2 }
    }
}

proc free_port {} {
    set s [socket -server {apply {{c a p} {close $c}}} -myaddr 127.0.0.1 0]
    set port [lindex [fconfigure $s -sockname] 2]
    close $s
    return $port
}

set dir [file join /tmp crash-safety.[pid]]
file mkdir $dir

proc start_server {port} {
    global opt dir
    set cmd [concat $opt(wrapper) [list $opt(server) --port $port --bind 127.0.0.1 --dir $dir \
        --appendonly yes --appendfsync $opt(fsync) --save "" --logfile [file join $dir log]]]
    set pid [exec {*}$cmd &]
    # ready when it answers PING (not -LOADING)
    for {set i 0} {$i < 600} {incr i} {
        if {![catch {set c [::resp::connect 127.0.0.1 $port -timeout 2]}]} {
            if {![catch {$c ping} r] && $r eq "PONG"} { $c close; return $pid }
            catch {$c close}
        }
        after 50
    }
    return -1
}

# SIGKILL, then wait (bounded) until the port stops answering; Tcl reaps
# the zombie at its next exec.
proc kill9 {pid port} {
    catch {exec kill -9 $pid}
    for {set i 0} {$i < 500} {incr i} {
        if {[catch {set c [::resp::connect 127.0.0.1 $port -timeout 1]}]} { return }
        catch {$c close}
        after 10
    }
}

# Runs the writers until deadline_ms; returns the last acknowledged number
# per client and the acknowledgement times of each number.
proc write_until {port deadline_ms} {
    global opt acked ack_time
    set clients {}
    for {set j 0} {$j < $opt(clients)} {incr j} {
        if {[catch {lappend clients [::resp::connect 127.0.0.1 $port -deferred 1 -timeout 5]}]} { return }
    }
    set running 1
    while {$running && [clock milliseconds] < $deadline_ms} {
        set j 0
        foreach c $clients {
            set n [expr {$acked($j) + 1}]
            if {[catch {$c rpush seq:$j $n; $c read}]} { set running 0; break }
            set acked($j) $n
            set ack_time($j,$n) [clock milliseconds]
            incr ::total_acked
            incr j
        }
    }
    foreach c $clients { catch {$c close} }
}

set passed 0
set failed 0
set total_acked 0
set lost_total 0
set max_window 0
for {set j 0} {$j < $opt(clients)} {incr j} { set acked($j) 0 }

# cycles+1 starts: the last one only checks what the last kill left
for {set cycle 1} {$cycle <= $opt(cycles) + 1} {incr cycle} {
    set port [free_port]
    set pid [start_server $port]
    if {$pid == -1} { puts "cycle $cycle: the server did not start"; incr failed; break }
    set c [::resp::connect 127.0.0.1 $port]
    set ok 1
    set cycle_lost 0
    set now [clock milliseconds]
    for {set j 0} {$j < $opt(clients)} {incr j} {
        set len [$c llen seq:$j]
        set tail [$c lrange seq:$j -1 -1]
        if {$len > 0 && $tail != $len} { puts "cycle $cycle: client $j has a gap (len $len, last $tail)"; set ok 0 }
        if {$len > $acked($j) + 1} { puts "cycle $cycle: client $j has writes never sent ($len > $acked($j)+1)"; set ok 0 }
        if {$len < $acked($j)} {
            set lost [expr {$acked($j) - $len}]
            set window [expr {$now - $ack_time($j,[expr {$len + 1}])}]
            incr cycle_lost $lost
            if {$window > $max_window} { set max_window $window }
            if {$opt(fsync) eq "always"} { puts "cycle $cycle: client $j lost $lost acknowledged writes"; set ok 0 }
        }
        set acked($j) $len ;# continue from what survived
        array unset ack_time $j,*
    }
    incr lost_total $cycle_lost
    if {$opt(fsync) eq "everysec" && $cycle_lost > 0 && $max_window > 2500} { set ok 0 }
    if {$cycle > 1} { if {$ok} { incr passed } else { incr failed } }
    if {$cycle > $opt(cycles)} {
        catch {$c shutdown nosave}
        catch {$c close}
        break
    }
    $c close
    write_until $port [expr {[clock milliseconds] + 50 + int(rand() * 950)}]
    kill9 $pid $port
}

file delete -force $dir
puts "appendfsync $opt(fsync): $opt(cycles) kill -9 cycles, $total_acked writes acknowledged, $lost_total lost, longest lost window ${max_window} ms"
puts "$passed passed, $failed failed"
exit [expr {$failed ? 1 : 0}]
