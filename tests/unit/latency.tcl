# latency.tcl -- the latency monitor (latency-monitor-threshold; LATENCY
# LATEST, HISTORY, RESET, GRAPH, DOCTOR, HELP, with DEBUG SLEEP making
# "command" events) and per-command latency tracking (latency-tracking,
# latency-tracking-info-percentiles, INFO latencystats, LATENCY HISTOGRAM,
# CONFIG RESETSTAT). Reply shapes and error texts are Redis 7.0's; the
# texts of GRAPH and DOCTOR are ours, so only their content is checked.

# The INFO latencystats line of one command, or "" if there is none.
proc latencystats_line {cmd} {
    foreach line [split [r info latencystats] "\r\n"] {
        if {[string match "latency_percentiles_usec_${cmd}:*" $line]} { return $line }
    }
    return ""
}

# LATENCY HISTOGRAM's entry of one command: a dict {calls N histogram_usec {...}}.
proc histogram_of {cmd} {
    set reply [r latency histogram $cmd]
    if {[llength $reply] == 0} { return {} }
    return [dict get $reply $cmd]
}

# Redis's bucket edges for LATENCY HISTOGRAM, in microseconds.
set histogram_edges {1 2 4 8 16 33 66 132 264 528 1056 2113 4227 8454 16908 33816 67633 135266 270532 541065}

start_server {tags {latency}} {
    test "latency-monitor-threshold is 0 by default and nothing is recorded" {
        assert_equal {latency-monitor-threshold 0} [r config get latency-monitor-threshold]
        r debug sleep 0.05
        assert_equal {} [r latency latest]
        assert_equal {} [r latency history command]
        assert_error "ERR No samples available for event 'command'" {r latency graph command}
        assert_morethan [string length [r latency doctor]] 0
    }

    test "a command over the threshold is a \"command\" event: LATEST and HISTORY" {
        r config set latency-monitor-threshold 50
        r latency reset
        r debug sleep 0.1
        set latest [r latency latest]
        assert_equal 1 [llength $latest]
        lassign [lindex $latest 0] event time last max
        assert_equal command $event
        assert_range $time [expr {[clock seconds] - 10}] [expr {[clock seconds] + 10}]
        assert_range $last 100 10000
        assert_equal $last $max
        set history [r latency history command]
        assert_equal [list [list $time $last]] $history
    }

    test "samples in one second keep the largest; HISTORY is oldest first; max is all-time" {
        r latency reset
        r debug sleep 0.06
        r debug sleep 0.12
        set history [r latency history command]
        assert_range [llength $history] 1 2
        assert_range [lindex $history end 1] 120 10000
        if {[llength $history] == 2} {
            assert_range [lindex $history 0 1] 60 10000
            assert [expr {[lindex $history 0 0] < [lindex $history 1 0]}]
        }
        lassign [lindex [r latency latest] 0] event time last max
        assert_equal [lindex $history end] [list $time $last]
        assert [expr {$max >= $last}]
    }

    test "commands under the threshold and non-command events are not recorded" {
        r latency reset
        r set k v
        r get k
        assert_equal {} [r latency latest]
        assert_equal {} [r latency history fast-command]
    }

    test "GRAPH and DOCTOR are non-empty texts naming the event" {
        r latency reset
        r debug sleep 0.06
        set graph [r latency graph command]
        assert_match "*command*" $graph
        assert_morethan [llength [split $graph "\n"]] 2
        set doctor [r latency doctor]
        assert_match "*command*" $doctor
        assert_error "ERR No samples available for event 'fork'" {r latency graph fork}
    }

    test "RESET counts the events it removed; unknown names count nothing" {
        r latency reset
        r debug sleep 0.06
        assert_equal 0 [r latency reset nosuch]
        assert_equal 1 [r latency reset command nosuch command]
        assert_equal {} [r latency latest]
        assert_equal 0 [r latency reset]
        r debug sleep 0.06
        assert_equal 1 [r latency reset]
        assert_equal {} [r latency history command]
    }

    test "LATENCY RESP3 shapes: LATEST arrays, GRAPH and DOCTOR verbatim text" {
        r latency reset
        r debug sleep 0.06
        set c [redis_client]
        $c hello 3
        $c readraw 1
        assert_equal {*1} [$c latency latest]
        assert_equal {*4} [$c read]
        assert_equal {$7} [$c read]
        assert_equal command [$c read]
        assert_match {:*} [$c read]
        assert_match {:*} [$c read]
        assert_match {:*} [$c read]
        assert_equal {*1} [$c latency history command]
        assert_equal {*2} [$c read]
        assert_match {:*} [$c read]
        assert_match {:*} [$c read]
        assert_match {=*} [$c latency graph command]
        $c close
        set c [redis_client]
        $c hello 3
        assert_match "*command*" [$c latency doctor]
        $c close
    }

    test "threshold 0 turns the monitor off again" {
        r config set latency-monitor-threshold 0
        r latency reset
        r debug sleep 0.06
        assert_equal {} [r latency latest]
    }

    test "LATENCY HELP and argument errors" {
        set help [r latency help]
        assert_match "LATENCY <subcommand>*" [lindex $help 0]
        assert_equal 17 [llength $help]
        assert_match "*HISTOGRAM*" $help
        assert_error "ERR wrong number of arguments for 'latency' command" {r latency}
        assert_error "ERR unknown subcommand 'foo'. Try LATENCY HELP." {r latency foo}
        assert_error "ERR wrong number of arguments for 'latency|latest' command" {r latency latest x}
        assert_error "ERR wrong number of arguments for 'latency|history' command" {r latency history}
        assert_error "ERR wrong number of arguments for 'latency|history' command" {r latency history a b}
        assert_error "ERR wrong number of arguments for 'latency|graph' command" {r latency graph}
        assert_error "ERR wrong number of arguments for 'latency|doctor' command" {r latency doctor x}
        assert_error "ERR wrong number of arguments for 'latency|help' command" {r latency help x}
        assert_equal {} [r latency history nosuch]
    }

    test "latency-monitor-threshold must be a non-negative integer" {
        assert_error "*argument must be between 0 and 9223372036854775807 inclusive*" \
            {r config set latency-monitor-threshold -1}
        assert_error "*argument couldn't be parsed into an integer*" {r config set latency-monitor-threshold 1.5}
        assert_equal {latency-monitor-threshold 0} [r config get latency-monitor-threshold]
    }
}

start_server {tags {latency}} {
    test "latency tracking is on by default, percentiles 50 99 99.9" {
        assert_equal {latency-tracking yes} [r config get latency-tracking]
        assert_equal {latency-tracking-info-percentiles {50 99 99.9}} \
            [r config get latency-tracking-info-percentiles]
    }

    test "INFO latencystats: one line per command called, Redis's number format" {
        r config resetstat
        r set k v
        r get k
        set line [latencystats_line set]
        assert_match {latency_percentiles_usec_set:p50=*,p99=*,p99.9=*} $line
        assert [regexp {^latency_percentiles_usec_set:p50=\d+\.\d{3},p99=\d+\.\d{3},p99\.9=\d+\.\d{3}$} $line]
        assert_match {latency_percentiles_usec_get:*} [latencystats_line get]
        assert_equal "" [latencystats_line lpush]
        # the default INFO has no latencystats section
        assert_no_match "*latency_percentiles_usec_*" [r info]
        assert_match "*latency_percentiles_usec_set:*" [r info all]
    }

    test "LATENCY HISTOGRAM: calls and a cumulative map over power-of-two edges" {
        r config resetstat
        for {set j 0} {$j < 5} {incr j} { r set k $j }
        set h [histogram_of set]
        assert_equal 5 [dict get $h calls]
        set buckets [dict get $h histogram_usec]
        assert_morethan [llength $buckets] 0
        set previous 0
        dict for {edge count} $buckets {
            assert [expr {$edge in $::histogram_edges}] "$edge is not one of Redis's bucket edges"
            assert_morethan $count $previous
            set previous $count
        }
        assert_equal 5 $previous
        assert_equal [list calls histogram_usec] [dict keys $h]
    }

    test "LATENCY HISTOGRAM: a 150 ms command lands in Redis's 270532 us bucket" {
        r debug sleep 0.15
        set h [histogram_of debug]
        assert_equal 1 [dict get $h calls]
        set buckets [dict get $h histogram_usec]
        assert_equal 2 [llength $buckets]
        assert [expr {[lindex $buckets 0] in {270532 541065}}]
        assert_equal 1 [lindex $buckets 1]
        set line [latencystats_line debug]
        assert [regexp {p50=(\d+\.\d{3})} $line -> p50]
        assert_range $p50 150000 541066
    }

    test "LATENCY HISTOGRAM arguments: several, subcommands, unknown and unused names" {
        r config resetstat
        r set k v
        r config get maxmemory
        set reply [r latency histogram set get nosuch config|get CONFIG|GET config|get|x config]
        # get has no samples, nosuch and config|get|x are no commands; config lists its
        # subcommands with samples (Redis in hash order)
        set names [lmap {name entry} $reply {set name}]
        assert_equal {set config|get config|get} [lrange $names 0 2]
        assert_equal {config|get config|resetstat} [lsort [lrange $names 3 end]]
        assert_equal {} [r latency histogram nosuch get]
        set all [r latency histogram]
        assert [dict exists $all set]
        assert [dict exists $all config|get]
        assert ![dict exists $all get]
    }

    test "LATENCY HISTOGRAM RESP3 shape: maps" {
        r config resetstat
        r set k v
        set c [redis_client]
        $c hello 3
        $c readraw 1
        assert_equal {%1} [$c latency histogram set]
        assert_equal {$3} [$c read]
        assert_equal set [$c read]
        assert_equal {%2} [$c read]
        assert_equal {$5} [$c read]
        assert_equal calls [$c read]
        assert_equal {:1} [$c read]
        assert_equal {$14} [$c read]
        assert_equal histogram_usec [$c read]
        assert_equal {%1} [$c read]
        assert_match {:*} [$c read]
        assert_equal {:1} [$c read]
        assert_equal {%0} [$c latency histogram nosuch]
        $c close
    }

    test "a blocking command counts once, when it is served" {
        r config resetstat
        r del blist
        set rd [redis_deferring_client]
        $rd blpop blist 0
        wait_for_blocked_clients 1
        assert_equal {} [histogram_of blpop]
        r rpush blist a
        assert_equal {blist a} [$rd read]
        assert_equal 1 [dict get [histogram_of blpop] calls]
        $rd close
    }

    test "CONFIG RESETSTAT drops every histogram (RESETSTAT itself is then tracked)" {
        r set k v
        r config resetstat
        set lines {}
        foreach line [split [r info latencystats] "\r\n"] {
            if {[string match latency_percentiles_usec_* $line]} { lappend lines [lindex [split $line :] 0] }
        }
        assert_equal {latency_percentiles_usec_config|resetstat} $lines
        assert_equal {} [histogram_of set]
    }

    test "latency-tracking no: nothing recorded, INFO latencystats empty, HISTOGRAM keeps the data" {
        r config resetstat
        r set k v
        r config set latency-tracking no
        r set k v
        assert_equal "" [latencystats_line set]
        assert_equal 1 [dict get [histogram_of set] calls]
        r config set latency-tracking yes
        r set k v
        assert_equal 2 [dict get [histogram_of set] calls]
        assert_match {latency_percentiles_usec_set:*} [latencystats_line set]
        assert_error "*argument must be 'yes' or 'no'*" {r config set latency-tracking maybe}
    }

    test "latency-tracking-info-percentiles: validation and number format" {
        assert_error "*Invalid latency-tracking-info-percentiles parameters*" \
            {r config set latency-tracking-info-percentiles abc}
        assert_error "*Invalid latency-tracking-info-percentiles parameters*" \
            {r config set latency-tracking-info-percentiles "50 nan"}
        assert_error "*Invalid latency-tracking-info-percentiles parameters*" \
            {r config set latency-tracking-info-percentiles " 50"}
        assert_error "*latency-tracking-info-percentiles parameters should sit between ?0.0,100.0?*" \
            {r config set latency-tracking-info-percentiles 101}
        assert_error "*latency-tracking-info-percentiles parameters should sit between ?0.0,100.0?*" \
            {r config set latency-tracking-info-percentiles "50 -1"}
        assert_equal {latency-tracking-info-percentiles {50 99 99.9}} \
            [r config get latency-tracking-info-percentiles]

        r config set latency-tracking-info-percentiles "50 99.99 0.0001 100 1e1 0"
        assert_equal {latency-tracking-info-percentiles {50 99.99 0.0001 100 10 0}} \
            [r config get latency-tracking-info-percentiles]
        r set k v
        set fields [lindex [split [latencystats_line set] :] 1]
        assert_equal {p50 p99.99 p0.0001 p100 p10 p0} [lmap f [split $fields ,] {lindex [split $f =] 0}]
        foreach f [split $fields ,] { assert [regexp {^\d+\.\d{3}$} [lindex [split $f =] 1]] }

        r config set latency-tracking-info-percentiles ""
        assert_equal {latency-tracking-info-percentiles {}} [r config get latency-tracking-info-percentiles]
        assert_equal "latency_percentiles_usec_set:" [latencystats_line set]
        r config set latency-tracking-info-percentiles "50 99 99.9"
    }

    test "CONFIG REWRITE keeps latency settings, an empty percentile list too" {
        r config set latency-tracking-info-percentiles ""
        r config set latency-monitor-threshold 25
        r config set latency-tracking no
        assert_equal OK [r config rewrite]
        restart_server
        assert_equal {latency-tracking-info-percentiles {}} [r config get latency-tracking-info-percentiles]
        assert_equal {latency-monitor-threshold 25} [r config get latency-monitor-threshold]
        assert_equal {latency-tracking no} [r config get latency-tracking]
        r config set latency-tracking-info-percentiles "99 50"
        assert_equal OK [r config rewrite]
        restart_server
        assert_equal {latency-tracking-info-percentiles {99 50}} [r config get latency-tracking-info-percentiles]
    } {needs:restart}
}

start_server {tags {latency} overrides {latency-tracking-info-percentiles "90 10" latency-monitor-threshold 40}} {
    test "the settings from the config file" {
        assert_equal {latency-tracking-info-percentiles {90 10}} [r config get latency-tracking-info-percentiles]
        assert_equal {latency-monitor-threshold 40} [r config get latency-monitor-threshold]
        r debug sleep 0.05
        assert_equal command [lindex [r latency latest] 0 0]
    }
}
