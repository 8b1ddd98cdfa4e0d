# list-aof.tcl -- what the list commands write to the append-only file:
# served blocking pops and MPOPs are written as the plain command that has
# the same effect (LPOP/RPOP key [count], LMOVE, RPOPLPUSH), never as a
# blocking command, and the file replays to the same dataset (DEBUG LOADAOF
# and a restart compare DEBUG DIGEST).

proc list_aof_text {} {
    set dir [file join [srv dir] appendonlydir]
    set text ""
    foreach path [lsort [glob -nocomplain -directory $dir *.incr.aof]] {
        set fd [open $path rb]
        append text [read $fd]
        close $fd
    }
    return $text
}

# The commands of a RESP text (names upper-cased), in order.
proc aof_command_names {text} {
    set names {}
    set lines [split $text \n]
    for {set i 0} {$i < [llength $lines]} {incr i} {
        set line [string trimright [lindex $lines $i] \r]
        if {[string index $line 0] ne "*"} continue
        lappend names [string toupper [string trimright [lindex $lines [expr {$i + 2}]] \r]]
        incr i 2
    }
    return $names
}

start_server {tags {list aof needs:restart} overrides {appendonly yes appendfsync always}} {
    test "Served blocking pops are written as plain pops and replay to the same data" {
        r del a b c d
        set rd [redis_deferring_client]
        $rd blpop a 0
        $rd flush
        wait_for_blocked_clients 1
        r rpush a 1 2 3
        assert_equal {a 1} [$rd read]
        $rd blmove b c right left 0
        $rd flush
        wait_for_blocked_clients 1
        r rpush b x y
        assert_equal y [$rd read]
        $rd blmpop 0 2 none d left count 3
        $rd flush
        wait_for_blocked_clients 1
        r rpush d 1 2 3 4
        assert_equal {d {1 2 3}} [$rd read]
        $rd close
        assert_equal {a 3} [r brpop a 0]
        assert_equal x [r brpoplpush b c 0]
        assert_equal {a 2} [r lmpop 1 a right count 5]

        set names [aof_command_names [list_aof_text]]
        foreach blocking {BLPOP BRPOP BLMOVE BRPOPLPUSH BLMPOP LMPOP} {
            assert_equal -1 [lsearch -exact $names $blocking] "$blocking in the AOF: $names"
        }
        assert_morethan [llength [lsearch -all -exact $names LPOP]] 1
        assert_morethan [llength [lsearch -all -exact $names RPOP]] 1
        assert_equal 1 [llength [lsearch -all -exact $names LMOVE]]
        assert_equal 1 [llength [lsearch -all -exact $names RPOPLPUSH]]

        set before [r debug digest]
        assert_equal OK [r debug loadaof]
        assert_equal $before [r debug digest]
        assert_equal {x y} [r lrange c 0 -1]
        assert_equal {4} [r lrange d 0 -1]
        restart_server
        assert_equal $before [r debug digest]
    }
}
