# config.tcl -- the configuration: CONFIG GET (single, glob, several
# patterns, RESP2/RESP3 shapes, value formats), CONFIG SET of every kind of
# directive with good and bad values (error texts as in Redis 7), atomic
# multi-pair SET, immutable and protected directives, memory units,
# CONFIG RESETSTAT, CONFIG REWRITE (round trip through a restart, comments
# kept), CONFIG HELP, and start-up: command-line options, stdin, include,
# and the exact fatal error for a bad file.
#
# Start-up failures run the server binary directly (with the --wrapper, if
# any) and check its exit status and stderr, so those blocks are tagged
# external:skip.

# ---- helpers -----------------------------------------------------------------------

proc config_value {name} {
    set reply [r config get $name]
    assert_equal 2 [llength $reply] "CONFIG GET $name returns one pair"
    return [lindex $reply 1]
}


proc set_failed_error {name reason} {
    return "ERR CONFIG SET failed (possibly related to argument '$name') - $reason"
}

# A fresh directory for files the tests write themselves.
proc scratch_dir {name} {
    set dir [file join $::harness::opt(run_dir) "config-$name-[pid]"]
    file delete -force $dir
    file mkdir $dir
    return $dir
}

proc write_file {path text} {
    set fd [open $path w]
    puts -nonewline $fd $text
    close $fd
}




# The directives of the shipped redis.conf as a dict name -> 1 when it is
# documented as start-up only, else 0. A paragraph (lines between blank
# lines) documents its trailing setting or commented-out example lines whose
# first word is a directive of KNOWN; a sentence of its prose saying
# "start-up only" or "CONFIG SET refuses" covers the directives it names, or
# all of them when it names none.
proc shipped_conf_paragraphs {known} {
    set fd [open redis.conf]
    set text [read $fd]
    close $fd
    set out {}
    foreach para [split [string map [list "\n\n" "\x01"] $text] \x01] {
        set lines [split [string trim $para \n] \n]
        set names {}
        while {[llength $lines] && [regexp {^#? ?([a-z][a-z0-9_-]*)(\s|$)} [lindex $lines end] -> name]
               && $name in $known} {
            lappend names $name
            set lines [lrange $lines 0 end-1]
        }
        foreach name $names { dict set out $name 0 }
        foreach sentence [regexp -all -inline {[^.]*(?:\.|$)} [join $lines " "]] {
            if {![regexp -nocase {start-up only|CONFIG SET refuses} $sentence]} continue
            set named [lmap name $names { expr {[regexp "\\m$name\\M" $sentence] ? $name : [continue]} }]
            foreach name [expr {[llength $named] ? $named : $names}] { dict set out $name 1 }
        }
    }
    return $out
}

proc fatal_config_error {line text reason} {
    return "\n*** FATAL CONFIG FILE ERROR (Redis [server_version]) ***\nReading the configuration file, at line $line\n>>> '$text'\n$reason\n"
}

# Starts a server with no config file (options on the command line and,
# if given, STDIN_TEXT on its stdin); returns {pid client}.
proc start_bare_server {dir stdin_text args} {
    set port [::harness::find_free_port]
    set cmd [server_command {*}$args --port $port --bind 127.0.0.1 --dir $dir --logfile [file join $dir log]]
    if {$stdin_text ne ""} {
        lappend cmd - << $stdin_text
    } else {
        lappend cmd < /dev/null
    }
    set pid [exec {*}$cmd > [file join $dir stdout] 2> [file join $dir stderr] &]
    ::harness::registry_add $pid $::harness::opt(server) $dir $port
    for {set i 0} {$i < [::harness::scaled 200]} {incr i} {
        if {![catch {::resp::connect 127.0.0.1 $port} client]} {
            if {![catch {$client ping}]} { return [list $pid $client] }
            catch {$client close}
        }
        if {![::harness::pid_alive $pid]} { break }
        ::harness::sleep_ms 50
    }
    ::harness::terminate_pid $pid 5000
    fail "the bare server did not start: [::harness::read_file [file join $dir stderr]]"
}

proc stop_bare_server {pid client} {
    catch {$client close}
    ::harness::terminate_pid $pid [expr {1000 * [::harness::scaled 10]}]
    ::harness::registry_remove $pid
}

proc file_lines {path} {
    return [split [string trimright [::harness::read_file $path] \n] \n]
}

# ---- CONFIG GET ----------------------------------------------------------------------

start_server {tags {config}} {
    test "Test-only directives answer CONFIG GET by name, not a pattern" {
        foreach name {key-load-delay rdb-key-save-delay} {
            assert_equal [list $name 0] [r config get $name]
            assert {![dict exists [r config get *] $name]}
            assert {![dict exists [r config get *-delay] $name]}
        }
    }

    test "shutdown-on-sigterm / -sigint: default, or any of save nosave now force (not save with nosave)" {
        assert_equal {shutdown-on-sigterm default} [r config get shutdown-on-sigterm]
        assert_equal {shutdown-on-sigint default} [r config get shutdown-on-sigint]
        r config set shutdown-on-sigterm "NOSAVE now"
        assert_equal "nosave now" [config_value shutdown-on-sigterm]
        r config set shutdown-on-sigterm "default force"
        assert_equal force [config_value shutdown-on-sigterm]
        assert_error "*shutdown options SAVE and NOSAVE can't be used simultaneously*" \
            {r config set shutdown-on-sigint "save nosave"}
        assert_error "*argument(s) must be one of the following: default, save, nosave, now, force*" \
            {r config set shutdown-on-sigint "now later"}
        assert_equal default [config_value shutdown-on-sigint]
        r config set shutdown-on-sigterm default
    }

    test "CONFIG GET of one directive returns its name and value" {
        assert_equal {maxmemory-samples 5} [r config get maxmemory-samples]
        assert_equal {databases 16} [r config get databases]
    }

    test "Built-in encoding thresholds are Redis 7's compiled-in defaults" {
        # (the shipped redis.conf sets hash-max-listpack-entries 128, as Redis's does)
        foreach {name value} {hash-max-listpack-entries 512 hash-max-listpack-value 64
                              zset-max-listpack-entries 128 zset-max-listpack-value 64
                              set-max-intset-entries 512 list-max-listpack-size -2} {
            assert_equal $value [config_value $name] $name
        }
    }

    test "CONFIG GET of an unknown directive returns an empty list" {
        assert_equal {} [r config get no-such-directive]
        assert_equal {} [r config get no-such-*]
    }

    # (The reference server has more directives, so globs are checked for
    # what they must contain and for matching nothing else.)
    test "CONFIG GET with a glob pattern matches every directive it covers" {
        set reply [r config get maxmemory*]
        foreach name {maxmemory maxmemory-eviction-tenacity maxmemory-policy maxmemory-samples} {
            assert {[dict exists $reply $name]} "maxmemory* matches $name"
        }
        foreach name [dict keys $reply] { assert_match maxmemory* $name }
        assert_equal noeviction [dict get $reply maxmemory-policy]
        assert_equal {lazyfree-lazy-eviction lazyfree-lazy-expire lazyfree-lazy-server-del lazyfree-lazy-user-del lazyfree-lazy-user-flush} \
            [lsort [dict keys [r config get lazyfree-lazy-*]]]
        assert_equal {hz} [dict keys [r config get h?]]
        assert_equal {appendfsync} [dict keys [r config get {append[f]sync}]]
    }

    test "CONFIG GET with several patterns reports each directive once" {
        set reply [r config get port timeout port PORT t*out]
        set keys [dict keys $reply]
        assert_equal [llength $keys] [llength [lsort -unique $keys]]
        assert_equal [expr {2 * [llength $keys]}] [llength $reply]
        assert_equal 1 [llength [lsearch -all -exact $keys port]]
        assert_equal 1 [llength [lsearch -all -exact $keys timeout]]
        assert_equal -1 [lsearch -exact $keys PORT]
    }

    test "CONFIG GET matches names case-insensitively and echoes an exact name as typed" {
        assert_equal {MaxMemory-Samples 5} [r config get MaxMemory-Samples]
        assert_equal {maxmemory-samples} [dict keys [r config get MAXMEMORY-SAMP*]]
    }

    test "CONFIG GET * lists every directive of the table" {
        set all [r config get *]
        foreach name {bind port tcp-backlog unixsocket unixsocketperm unixsocketgroup timeout tcp-keepalive
                      protected-mode daemonize pidfile loglevel logfile syslog-enabled syslog-ident supervised
                      databases hz dynamic-hz requirepass maxclients maxmemory maxmemory-policy
                      maxmemory-samples maxmemory-eviction-tenacity lfu-log-factor lfu-decay-time
                      active-expire-effort proto-max-bulk-len client-query-buffer-limit
                      client-output-buffer-limit enable-debug-command slowlog-log-slower-than
                      slowlog-max-len dir save appendonly appendfilename appenddirname appendfsync
                      lazyfree-lazy-eviction notify-keyspace-events always-show-logo set-proc-title
                      locale-collate enable-protected-configs} {
            assert {[dict exists $all $name]} "CONFIG GET * includes $name"
        }
    }

    test "CONFIG GET formats values like Redis" {
        assert_equal yes [config_value protected-mode]
        assert_equal no [config_value daemonize]
        assert_equal notice [config_value loglevel]
        assert_equal noeviction [config_value maxmemory-policy]
        assert_equal everysec [config_value appendfsync]
        assert_equal yes [config_value enable-debug-command] ;# the harness enables it
        assert_equal no [config_value enable-protected-configs]
        assert_equal no [config_value supervised]
        assert_equal 1073741824 [config_value client-query-buffer-limit]
        assert_equal 536870912 [config_value proto-max-bulk-len]
        if {[s arch_bits] == 64} {
            assert_equal 0 [config_value maxmemory]
        } else {
            assert_morethan [config_value maxmemory] 0 "a 32-bit server caps itself"
        }
        assert_equal 0 [config_value unixsocketperm]
        assert_equal 127.0.0.1 [config_value bind]
        assert_equal "" [config_value save] ;# save "" in the harness's file
        assert_equal "" [config_value requirepass]
        assert_equal "" [config_value unixsocket]
        assert_equal redis [config_value syslog-ident]
        assert_equal appendonly.aof [config_value appendfilename]
        assert_equal appendonlydir [config_value appenddirname]
        assert_equal "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60" \
            [config_value client-output-buffer-limit]
        assert_equal [file normalize [srv dir]] [config_value dir]
        assert_equal 10000 [config_value slowlog-log-slower-than]
        assert_equal 128 [config_value slowlog-max-len]
    }

    test "CONFIG GET replies with a map in RESP3 and a flat array in RESP2" {
        set c [redis_client]
        $c readraw 1
        assert_equal {*4} [$c config get timeout tcp-backlog]
        for {set i 0} {$i < 8} {incr i} { $c read }
        assert_equal {*0} [$c config get no-such-directive]
        $c readraw 0
        $c hello 3
        $c readraw 1
        assert_equal {%2} [$c config get timeout tcp-backlog]
        set items {}
        for {set i 0} {$i < 4} {incr i} {
            assert_match {$*} [$c read]
            lappend items [$c read]
        }
        assert_equal {tcp-backlog timeout} [lsort [dict keys $items]]
        assert_equal {%0} [$c config get no-such-directive]
        $c close
    }

    test "CONFIG GET without a pattern is an arity error" {
        assert_equal "ERR wrong number of arguments for 'config|get' command" [error_of r config get]
    }
}

# ---- CONFIG SET ----------------------------------------------------------------------

start_server {tags {config}} {
    test "CONFIG SET of a boolean takes yes/no in any case" {
        r config set protected-mode no
        assert_equal no [config_value protected-mode]
        r config set protected-mode YES
        assert_equal yes [config_value protected-mode]
        assert_equal [set_failed_error appendonly "argument must be 'yes' or 'no'"] \
            [error_of r config set appendonly maybe]
        assert_equal [set_failed_error dynamic-hz "argument must be 'yes' or 'no'"] \
            [error_of r config set dynamic-hz 1]
    }

    test "CONFIG SET of an integer checks syntax and bounds" {
        r config set timeout 120
        assert_equal 120 [config_value timeout]
        r config set timeout 0
        assert_equal [set_failed_error timeout "argument couldn't be parsed into an integer"] \
            [error_of r config set timeout abc]
        foreach bad {+5 05 " 5" 5x 1.5 ""} {
            assert_equal [set_failed_error timeout "argument couldn't be parsed into an integer"] \
                [error_of r config set timeout $bad] "timeout '$bad'"
        }
        assert_equal [set_failed_error timeout "argument must be between 0 and 2147483647 inclusive"] \
            [error_of r config set timeout -1]
        assert_equal [set_failed_error active-expire-effort "argument must be between 1 and 10 inclusive"] \
            [error_of r config set active-expire-effort 11]
        assert_equal [set_failed_error active-expire-effort "argument must be between 1 and 10 inclusive"] \
            [error_of r config set active-expire-effort 0]
        assert_equal [set_failed_error maxmemory-eviction-tenacity "argument must be between 0 and 100 inclusive"] \
            [error_of r config set maxmemory-eviction-tenacity 101]
        assert_equal [set_failed_error maxmemory-samples "argument must be between 1 and 2147483647 inclusive"] \
            [error_of r config set maxmemory-samples 0]
        assert_equal [set_failed_error timeout "argument must be between 0 and 2147483647 inclusive"] \
            [error_of r config set timeout 2147483648]
        assert_equal 0 [config_value timeout] "a refused value changes nothing"
    }

    test "CONFIG SET of unsigned and 64-bit integers" {
        assert_equal [set_failed_error maxclients "argument must be between 1 and 4294967295 inclusive"] \
            [error_of r config set maxclients 0]
        assert_equal [set_failed_error maxclients "argument must be between 1 and 4294967295 inclusive"] \
            [error_of r config set maxclients -1]
        assert_equal [set_failed_error maxclients "argument must be between 1 and 4294967295 inclusive"] \
            [error_of r config set maxclients 4294967296]
        r config set slowlog-log-slower-than -1
        assert_equal -1 [config_value slowlog-log-slower-than]
        r config set slowlog-log-slower-than 9223372036854775807
        assert_equal 9223372036854775807 [config_value slowlog-log-slower-than]
        r config set slowlog-log-slower-than 10000
        assert_equal [set_failed_error slowlog-log-slower-than "argument must be between -1 and 9223372036854775807 inclusive"] \
            [error_of r config set slowlog-log-slower-than -2]
        assert_equal [set_failed_error slowlog-log-slower-than "argument couldn't be parsed into an integer"] \
            [error_of r config set slowlog-log-slower-than 9223372036854775808]
        assert_match [set_failed_error slowlog-max-len "argument must be between 0 and * inclusive"] \
            [error_of r config set slowlog-max-len -1]
        r config set slowlog-max-len 64
        assert_equal 64 [config_value slowlog-max-len]
        r config set slowlog-max-len 128
    }

    test "CONFIG SET maxclients changes the limit of the running server" {
        r config set maxclients 400
        assert_equal 400 [config_value maxclients]
        r config set maxclients 300
        assert_equal 300 [config_value maxclients]
    }

    test "CONFIG SET hz is clamped to 1..500" {
        r config set hz 0
        assert_equal 1 [config_value hz]
        r config set hz 1000
        assert_equal 500 [config_value hz]
        assert_equal [set_failed_error hz "argument must be between 0 and 2147483647 inclusive"] \
            [error_of r config set hz -1]
        r config set hz 10
        assert_equal 10 [config_value hz]
        assert_equal 10 [s hz]
    }

    test "CONFIG SET of memory values accepts units, case-insensitively" {
        foreach {input bytes} {100 100 0 0 1k 1000 1kb 1024 1K 1000 3Kb 3072 1m 1000000 1mb 1048576
                               1MB 1048576 1g 1000000000 1gb 1073741824 1GB 1073741824 5b 5 01 1
                               "" 0 kb 0} {
            r config set maxmemory $input
            assert_equal $bytes [config_value maxmemory] "maxmemory $input"
        }
        r config set maxmemory 0
        foreach bad {1.5mb 10x -1 1kbb " 1" "1 " +1 0x10 1e3} {
            assert_equal [set_failed_error maxmemory "argument must be a memory value"] \
                [error_of r config set maxmemory $bad] "maxmemory '$bad'"
        }
        assert_equal 0 [config_value maxmemory]
        r config set proto-max-bulk-len 2mb
        assert_equal 2097152 [config_value proto-max-bulk-len]
        r config set proto-max-bulk-len 512mb
        assert_match [set_failed_error proto-max-bulk-len "argument must be between 1048576 and * inclusive"] \
            [error_of r config set proto-max-bulk-len 100]
        assert_match [set_failed_error client-query-buffer-limit "argument must be between 1048576 and * inclusive"] \
            [error_of r config set client-query-buffer-limit 1000kb]
        r config set client-query-buffer-limit 1mb
        assert_equal 1048576 [config_value client-query-buffer-limit]
        r config set client-query-buffer-limit 1gb
    }

    test "CONFIG SET of an enum takes the names in any case and lists them on error" {
        r config set maxmemory-policy allkeys-lru
        assert_equal allkeys-lru [config_value maxmemory-policy]
        r config set maxmemory-policy VOLATILE-TTL
        assert_equal volatile-ttl [config_value maxmemory-policy]
        assert_equal [set_failed_error maxmemory-policy "argument(s) must be one of the following: volatile-lru, volatile-lfu, volatile-random, volatile-ttl, allkeys-lru, allkeys-lfu, allkeys-random, noeviction"] \
            [error_of r config set maxmemory-policy lru]
        r config set maxmemory-policy noeviction
        assert_equal [set_failed_error appendfsync "argument(s) must be one of the following: everysec, always, no"] \
            [error_of r config set appendfsync sometimes]
        r config set appendfsync always
        assert_equal always [config_value appendfsync]
        r config set appendfsync everysec
        r config set loglevel warning
        assert_equal warning [config_value loglevel]
        r config set loglevel notice
        assert_equal [set_failed_error loglevel "argument(s) must be one of the following: debug, verbose, notice, warning, nothing"] \
            [error_of r config set loglevel loud]
    }

    test "CONFIG SET of strings" {
        r config set locale-collate C
        assert_equal C [config_value locale-collate]
        r config set locale-collate ""
        assert_equal "" [config_value locale-collate]
    }

    # musl's setlocale() accepts any name, so only glibc refuses this one
    # (PORT=musl runs the suite with --tags -glibc-only).
    tags {glibc-only} {
        test "CONFIG SET locale-collate refuses a locale the C library does not know" {
            assert_equal [set_failed_error locale-collate "Invalid locale name"] \
                [error_of r config set locale-collate no-such-locale.UTF-77]
        }
    }

    test "CONFIG SET requirepass protects new connections, CONFIG GET shows it" {
        r config set requirepass "s3cret pw"
        assert_equal "s3cret pw" [config_value requirepass]
        set c [redis_client]
        assert_match "NOAUTH*" [error_of $c get x]
        assert_equal OK [$c auth "s3cret pw"]
        $c close
        r config set requirepass ""
        assert_equal "" [config_value requirepass]
        set c [redis_client]
        assert_equal PONG [$c ping]
        $c close
    }

    test "the value of a sensitive directive is redacted in the slow log" {
        r config set slowlog-log-slower-than 0
        r slowlog reset
        r config set requirepass hunter2
        r config set requirepass ""
        catch {r config set requirepass hunter3 timeout}
        set log [r slowlog get]
        r config set slowlog-log-slower-than 10000
        assert_no_match "*hunter2*" $log
        assert_no_match "*hunter3*" $log "redacted even when the command fails"
        assert_match "*requirepass (redacted)*" $log
        assert_equal "" [config_value requirepass]
    }

    test "CONFIG SET save takes pairs of seconds and changes" {
        r config set save "3600 1 300 100"
        assert_equal "3600 1 300 100" [config_value save]
        foreach bad {"100" "100 10 20" "abc 1" "0 1" "10 -1" "10 1x" "10  1"} {
            assert_equal [set_failed_error save "Invalid save parameters"] \
                [error_of r config set save $bad] "save '$bad'"
        }
        assert_equal "3600 1 300 100" [config_value save]
        r config set save "+60 010"
        assert_equal "60 10" [config_value save] "numbers are read like strtoll does"
        r config set save ""
        assert_equal "" [config_value save]
    }

    test "CONFIG SET client-output-buffer-limit changes only the classes it names" {
        r config set client-output-buffer-limit "normal 1mb 2mb 3"
        assert_equal "normal 1048576 2097152 3 slave 268435456 67108864 60 pubsub 33554432 8388608 60" \
            [config_value client-output-buffer-limit]
        r config set client-output-buffer-limit "replica 1 2 3 pubsub 4 5 6"
        assert_equal "normal 1048576 2097152 3 slave 1 2 3 pubsub 4 5 6" [config_value client-output-buffer-limit]
        r config set client-output-buffer-limit "slave 7 8 9"
        assert_equal "normal 1048576 2097152 3 slave 7 8 9 pubsub 4 5 6" [config_value client-output-buffer-limit]
        assert_equal [set_failed_error client-output-buffer-limit "Invalid client class specified in buffer limit configuration."] \
            [error_of r config set client-output-buffer-limit "master 1 2 3"]
        assert_equal [set_failed_error client-output-buffer-limit "Wrong number of arguments in buffer limit configuration."] \
            [error_of r config set client-output-buffer-limit "normal 1 2"]
        foreach bad {"normal 1x 2 3" "normal 1 2 -3" "normal 1 2 3s" "normal 1 2 99999999999999999999"} {
            assert_equal [set_failed_error client-output-buffer-limit "Error in hard, soft or soft_seconds setting in buffer limit configuration."] \
                [error_of r config set client-output-buffer-limit $bad] $bad
        }
        assert_equal [set_failed_error client-output-buffer-limit "Invalid client class specified in buffer limit configuration."] \
            [error_of r config set client-output-buffer-limit "normal 0 0 0 bogus 1 2 3"]
        assert_equal "normal 1048576 2097152 3 slave 7 8 9 pubsub 4 5 6" [config_value client-output-buffer-limit] \
            "a refused line changes no class"
        r config set client-output-buffer-limit "normal 0 0 0 replica 256mb 64mb 60 pubsub 32mb 8mb 60"
        assert_equal "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60" \
            [config_value client-output-buffer-limit]
    }

    test "CONFIG SET notify-keyspace-events normalises the flags" {
        r config set notify-keyspace-events KEA
        assert_equal AKE [config_value notify-keyspace-events]
        r config set notify-keyspace-events Eg
        assert_equal gE [config_value notify-keyspace-events]
        r config set notify-keyspace-events "Kx\$lmn"
        assert_equal "\$lxnKm" [config_value notify-keyspace-events]
        assert_equal [set_failed_error notify-keyspace-events "Invalid event class character. Use 'Ag\$lshzxeKEtmdn'."] \
            [error_of r config set notify-keyspace-events Kq]
        r config set notify-keyspace-events ""
        assert_equal "" [config_value notify-keyspace-events]
    }

    test "CONFIG SET of an unknown directive" {
        assert_equal "ERR Unknown option or number of arguments for CONFIG SET - 'no-such-directive'" \
            [error_of r config set no-such-directive 1]
    }

    test "CONFIG SET refuses immutable directives" {
        foreach {name value} {daemonize yes databases 8 unixsocket /tmp/x.sock unixsocketperm 700
                              enable-debug-command no enable-protected-configs yes logfile x.log
                              appendfilename x.aof supervised auto tcp-backlog 5} {
            assert_equal [set_failed_error $name "can't set immutable config"] [error_of r config set $name $value]
        }
        assert_equal 16 [config_value databases]
    }

    # Redis 7.0 protects exactly these two: with dbfilename free, a client
    # could point SAVE at redis.conf (or any file in dir) and overwrite it.
    test "CONFIG SET refuses dir and dbfilename while enable-protected-configs is no" {
        foreach {name value} {dir / dbfilename redis.conf} {
            set before [config_value $name]
            assert_equal [set_failed_error $name "can't set protected config"] [error_of r config set $name $value]
            assert_equal $before [config_value $name]
        }
        assert_equal [set_failed_error dbfilename "can't set protected config"] \
            [error_of r config set hz 20 dbfilename x.rdb]
        assert_equal 10 [config_value hz] "nothing of a refused CONFIG SET is applied"
    }

    # The file used to say CONFIG SET refuses bind and port, which it
    # accepts (as Redis does): each directive's note must say what CONFIG
    # SET really does with it.
    test "redis.conf marks exactly the directives CONFIG SET refuses as start-up only" {
        set known [dict keys [r config get *]]
        set wrong {}
        dict for {name startup} [shipped_conf_paragraphs $known] {
            catch {r config set $name [config_value $name]} reply
            set immutable [string match "*can't set immutable config" $reply]
            if {$immutable != $startup} {
                lappend wrong "$name ([expr {$startup ? {documented start-up only} : {documented settable}}]: $reply)"
            }
        }
        assert_equal {} $wrong
    } {external:skip}

    test "CONFIG SET names are case-insensitive and errors name the directive as typed" {
        r config set TIMEOUT 5 Hz 20
        assert_equal {5 20} [list [config_value timeout] [config_value hz]]
        r config set timeout 0 hz 10
        assert_equal [set_failed_error DAEMONIZE "can't set immutable config"] [error_of r config set DAEMONIZE no]
    }

    test "CONFIG SET with an odd number of arguments" {
        assert_equal "ERR syntax error" [error_of r config set timeout 1 hz]
        assert_equal "ERR wrong number of arguments for 'config|set' command" [error_of r config set timeout]
    }

    test "CONFIG SET of several pairs sets them all" {
        r config set timeout 30 maxmemory-samples 7 maxmemory-policy allkeys-lfu
        assert_equal {30 7 allkeys-lfu} \
            [list [config_value timeout] [config_value maxmemory-samples] [config_value maxmemory-policy]]
        r config set timeout 0 maxmemory-samples 5 maxmemory-policy noeviction
    }

    test "CONFIG SET of several pairs changes nothing when one value is bad" {
        assert_equal [set_failed_error maxmemory-samples "argument must be between 1 and 2147483647 inclusive"] \
            [error_of r config set timeout 50 maxmemory 1mb maxmemory-samples 0 hz 20]
        assert_equal {0 0 5 10} [list [config_value timeout] [config_value maxmemory] \
                                     [config_value maxmemory-samples] [config_value hz]]
        set limits [config_value client-output-buffer-limit]
        assert_match [set_failed_error maxmemory-policy "argument(s) must be one of the following: *"] \
            [error_of r config set save "100 1" client-output-buffer-limit "pubsub 1 1 1" maxmemory-policy bogus]
        assert_equal "" [config_value save]
        assert_equal $limits [config_value client-output-buffer-limit]
    }

    test "CONFIG SET of several pairs changes nothing when one name is bad" {
        assert_equal "ERR Unknown option or number of arguments for CONFIG SET - 'bogus'" \
            [error_of r config set timeout 50 bogus 1 hz 20]
        assert_equal [set_failed_error daemonize "can't set immutable config"] \
            [error_of r config set timeout 50 daemonize no]
        assert_equal [set_failed_error timeout "duplicate parameter"] \
            [error_of r config set timeout 50 hz 20 timeout 60]
        assert_equal [set_failed_error TIMEOUT "duplicate parameter"] \
            [error_of r config set timeout 50 TIMEOUT 60]
        assert_equal {0 10} [list [config_value timeout] [config_value hz]]
    }

    # The checks below are stricter than the reference server, which wraps
    # these values around silently.
    test "values that do not fit their field are refused" {
        assert_equal [set_failed_error save "Invalid save parameters"] [error_of r config set save "1 2147483648"]
        assert_equal "" [config_value save]
    }

    test "CONFIG SET rolls every pair back when applying one fails" {
        set maxclients [config_value maxclients]
        set err [error_of r config set timeout 33 hz 40 maxclients 4294967295]
        assert_match [set_failed_error maxclients "*"] $err
        assert_equal [list 0 10 $maxclients] [list [config_value timeout] [config_value hz] [config_value maxclients]]
        assert_equal 10 [s hz] "the hz apply was undone too"
    }

    test "CONFIG HELP" {
        set help [r config help]
        assert_equal "CONFIG <subcommand> \[<arg> \[value\] \[opt\] ...\]. Subcommands are:" [lindex $help 0]
        foreach sub {GET SET RESETSTAT REWRITE HELP} {
            assert {[lsearch -glob $help "$sub*"] >= 0} "help mentions $sub"
        }
        assert_match "ERR unknown subcommand 'nope'. Try CONFIG HELP." [error_of r config nope]
    }
}

# ---- protected directives ---------------------------------------------------------------

start_server {tags {config} overrides {enable-protected-configs yes}} {
    test "CONFIG SET dir changes the working directory when protected configs are enabled" {
        set base [file normalize [srv dir]]
        file mkdir [file join $base sub]
        r config set dir [file join $base sub]
        assert_equal [file join $base sub] [config_value dir]
        r config set dir ..
        assert_equal $base [config_value dir] "a relative dir is relative to the current one"
        assert_equal [set_failed_error dir "No such file or directory"] [error_of r config set dir [file join $base nope]]
        assert_equal [set_failed_error dir "Not a directory"] [error_of r config set dir [srv stdout]]
        assert_equal $base [config_value dir]
    }

    test "CONFIG SET dbfilename is allowed when protected configs are enabled" {
        r config set dbfilename other.rdb
        assert_equal other.rdb [config_value dbfilename]
        r config set dbfilename dump.rdb
    }

    test "CONFIG SET dir rolls back with the other pairs" {
        set base [file normalize [srv dir]]
        assert_equal [set_failed_error hz "argument couldn't be parsed into an integer"] \
            [error_of r config set dir [file join $base sub] hz x]
        assert_equal $base [config_value dir]
    }
}

start_server {tags {config} overrides {enable-protected-configs local}} {
    test "enable-protected-configs local allows a loopback client" {
        set base [file normalize [srv dir]]
        r config set dir $base
        assert_equal $base [config_value dir]
        assert_equal local [config_value enable-protected-configs]
    }
}

# ---- CONFIG RESETSTAT ---------------------------------------------------------------------

start_server {tags {config}} {
    test "CONFIG RESETSTAT zeroes the stats, the command stats and the error stats" {
        r set k v
        r get k
        r get missing
        catch {r no-such-command}
        catch {r config set hz x}
        assert_morethan [s keyspace_hits] 0
        assert_morethan [s keyspace_misses] 0
        assert_morethan [s total_error_replies] 0
        assert_match "*cmdstat_get:*" [r info commandstats]
        assert_match "*errorstat_ERR:*" [r info errorstats]
        assert_equal OK [r config resetstat]
        set info [r info stats]
        assert_equal 0 [info_field $info keyspace_hits]
        assert_equal 0 [info_field $info keyspace_misses]
        assert_equal 0 [info_field $info total_error_replies]
        assert_range [info_field $info total_commands_processed] 0 1 "only CONFIG RESETSTAT itself"
        assert_no_match "*cmdstat_get:*" [r info commandstats]
        assert_no_match "*errorstat_*" [r info errorstats]
        assert_equal v [r get k] "the data is untouched"
    }

    test "CONFIG RESETSTAT takes no argument" {
        assert_equal "ERR wrong number of arguments for 'config|resetstat' command" [error_of r config resetstat x]
    }
}

# ---- CONFIG REWRITE --------------------------------------------------------------------

tags {external:skip} {
start_server {tags {config} config_lines {"# a comment that must survive" "maxmemory-samples 7"
                                          "save 900 1" "save 300 10"}} {
    test "save lines in the file add up; the first replaces the defaults" {
        assert_equal "900 1 300 10" [config_value save]
        assert_equal 7 [config_value maxmemory-samples]
    }

    test "CONFIG REWRITE rewrites changed lines in place and appends the rest" {
        set file [srv config_file]
        set before [file_lines $file]
        r config set maxmemory-samples 9 timeout 77 save "100 5" maxmemory 3mb \
            client-output-buffer-limit "pubsub 64mb 16mb 90" notify-keyspace-events KEA
        assert_equal OK [r config rewrite]
        set lines [file_lines $file]
        assert {[lsearch -exact $lines "# a comment that must survive"] >= 0} "comment kept"
        assert_equal [lsearch -exact $before "maxmemory-samples 7"] [lsearch -exact $lines "maxmemory-samples 9"] \
            "rewritten on its old line"
        assert_equal [lsearch -exact $before {save ""}] [lsearch -exact $lines "save 100 5"] \
            "the first save line is reused"
        assert_equal -1 [lsearch -glob $lines "save 900*"]
        assert_equal -1 [lsearch -glob $lines "save 300*"]
        assert_equal 1 [llength [lsearch -all -glob $lines "save *"]]
        set tail [lsearch -exact $lines "# Generated by CONFIG REWRITE"]
        assert {$tail > [lsearch -exact $lines "maxmemory-samples 9"]}
        foreach line {"timeout 77" "maxmemory 3mb" "client-output-buffer-limit pubsub 64mb 16mb 90"
                      "notify-keyspace-events \"AKE\""} {
            assert {[lsearch -exact $lines $line] > $tail} "'$line' appended after the signature"
        }
        foreach name {hz loglevel databases maxclients protected-mode} {
            assert_equal -1 [lsearch -glob $lines "$name *"] "$name still has its default: not written"
        }
    }

    test "the rewritten values survive a restart" {
        restart_server
        assert_equal {9 77 {100 5} 3145728 AKE} [list [config_value maxmemory-samples] [config_value timeout] \
            [config_value save] [config_value maxmemory] [config_value notify-keyspace-events]]
        assert_equal "normal 0 0 0 slave 268435456 67108864 60 pubsub 67108864 16777216 90" \
            [config_value client-output-buffer-limit]
    }

    test "a second CONFIG REWRITE without changes leaves the file as it is" {
        # Redis 7.0 writes the default user's line, which read back (after
        # the restart above) has gained "sanitize-payload": one rewrite settles it
        r config rewrite
        set text [::harness::read_file [srv config_file]]
        assert_equal OK [r config rewrite]
        assert_equal $text [::harness::read_file [srv config_file]]
    }

    test "CONFIG REWRITE writes a default value over a line that set another one" {
        r config set maxmemory-samples 5 timeout 0
        r config rewrite
        set lines [file_lines [srv config_file]]
        assert {[lsearch -exact $lines "maxmemory-samples 5"] >= 0}
        assert {[lsearch -exact $lines "timeout 0"] >= 0}
        restart_server
        assert_equal {5 0} [list [config_value maxmemory-samples] [config_value timeout]]
    }

    test "CONFIG REWRITE quotes strings so they read back" {
        r config set requirepass "two words \"quoted\""
        r auth "two words \"quoted\""
        r config rewrite
        restart_server
        r auth "two words \"quoted\""
        assert_equal "two words \"quoted\"" [config_value requirepass]
        r config set requirepass ""
        r config rewrite
    }
}

start_server {tags {config}} {
    test "CONFIG REWRITE without a config file" {
        set dir [scratch_dir bare]
        lassign [start_bare_server $dir ""] pid client
        set err [error_of $client config rewrite]
        stop_bare_server $pid $client
        assert_equal "ERR The server is running without a config file" $err
    }
}
}

# ---- start-up: options, stdin, include, fatal errors ---------------------------------------

tags {external:skip} {
# The file says port $other; only --port makes the server listen where the
# harness connects.
set port [::harness::find_free_port]
set other [::harness::find_free_port]
start_server [list tags {config} overrides [list port $port] \
              config_lines [list "port $other" "loglevel warning" "maxmemory 1mb"] \
              args [list --port $port --loglevel verbose --maxmemory 3mb --save "60 10"]] {
    test "command-line options override the config file" {
        assert_equal $port [config_value port]
        assert_equal verbose [config_value loglevel]
        assert_equal 3145728 [config_value maxmemory]
        assert_equal "60 10" [config_value save]
    }
}

start_server [list tags {config} config_lines [list "save 900 1" "save \"\"" "save 60 2"]] {
    test {save "" in a file drops the save points before it} {
        assert_equal "60 2" [config_value save]
    }
}

start_server [list tags {config} config_lines [list "save 900 1" "save 300 10"] args [list --save ""]] {
    test {--save "" on the command line drops the file's save points} {
        assert_equal "" [config_value save]
    }
}

test "config lines can come from stdin ('-'), after the file and before the options" {
    set dir [scratch_dir stdin]
    lassign [start_bare_server $dir "maxmemory-samples 6\ntimeout 40\n" --timeout 41] pid client
    set samples [lindex [$client config get maxmemory-samples] 1]
    set timeout [lindex [$client config get timeout] 1]
    stop_bare_server $pid $client
    assert_equal {6 41} [list $samples $timeout]
}

set dir [scratch_dir include]
file mkdir [file join $dir frag]
write_file [file join $dir frag a.conf] "timeout 11\nlfu-log-factor 5\n"
write_file [file join $dir frag b.conf] "timeout 12\n"
write_file [file join $dir main.conf] \
    "maxmemory-samples 8\ninclude [file join $dir frag *.conf]\ninclude [file join $dir frag nothing-*.conf]\n"
start_server [list tags {config} config_lines [list "include [file join $dir main.conf]" "lfu-log-factor 3"]] {
    test "include reads another file, and patterns read every match in order" {
        assert_equal 8 [config_value maxmemory-samples]
        assert_equal 12 [config_value timeout] "b.conf comes after a.conf"
        assert_equal 3 [config_value lfu-log-factor] "a later line overrides an included one"
    }
}

test "an unknown directive stops start-up with the line and its number" {
    set dir [scratch_dir fatal]
    write_file [file join $dir bad.conf] "# comment\n\n  no-such-directive yes  \nport 0\n"
    lassign [run_failing_server [file join $dir bad.conf]] status err
    assert_equal 1 $status
    assert_equal [fatal_config_error 3 "no-such-directive yes" "Bad directive or wrong number of arguments"] $err
}

test "bad values and argument counts stop start-up" {
    set dir [scratch_dir fatal]
    foreach {line reason} {
        "port abc"                        "argument couldn't be parsed into an integer"
        "port 99999"                      "argument must be between 0 and 65535 inclusive"
        "port"                            "wrong number of arguments"
        "hz 10 20"                        "wrong number of arguments"
        "appendonly maybe"                "argument must be 'yes' or 'no'"
        "maxmemory 1x"                    "argument must be a memory value"
        "loglevel loud"                   "argument(s) must be one of the following: debug, verbose, notice, warning, nothing"
        "unixsocketperm 778"              "argument couldn't be parsed as an octal number"
        "unixsocketperm 1000"             "argument must be between 0 and 777 inclusive"
        "save 100"                        "Invalid save parameters"
        "client-output-buffer-limit foo 1 1 1" "Invalid client class specified in buffer limit configuration."
        "bind 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17" "Too many bind addresses specified."
        "appendfilename dir/x.aof"        "appendfilename can't be a path, just a filename"
        "dir /no/such/dir"                "No such file or directory"
        "port \"0"                        "Unbalanced quotes in configuration line"
        "include a b"                     "Bad directive or wrong number of arguments"
    } {
        write_file [file join $dir bad.conf] "port 0\n$line\n"
        lassign [run_failing_server [file join $dir bad.conf]] status err
        assert_equal 1 $status "exit status for '$line'"
        assert_equal [fatal_config_error 2 $line $reason] $err "stderr for '$line'"
    }
}

# maxmemory is checked against the address space once every line is read
# (config.c, applyMaxmemory): the error still names the line that set it.
# A 32-bit server refuses 8gb by itself; a 64-bit one is given an address
# space limit (ulimit -v, RLIMIT_AS), natively only: under QEMU the limit
# would bind the emulator too.
test "maxmemory beyond the address space stops start-up naming its line, as every config error" {
    set dir [scratch_dir fatal]
    write_file [file join $dir bad.conf] "port 0\nmaxmemory 8gb\n"
    set bits 64
    regexp {bits=([0-9]+)} [exec {*}[server_command --version]] - bits
    if {$bits == 32} {
        lassign [run_failing_server [file join $dir bad.conf]] status err
        set limit 3221225472
    } else {
        if {[llength $::harness::opt(wrapper)]} { skip "a 64-bit server under a wrapper: ulimit -v would limit the emulator" }
        set status 0
        set limit 4294967296
        set cmd "ulimit -v [expr {$limit / 1024}] && exec $::harness::opt(server) [file join $dir bad.conf]"
        if {[catch {exec sh -c $cmd < /dev/null 2> [file join $dir err]} out opts]} {
            set status [lindex [dict get $opts -errorcode] 2]
        }
        set err [::harness::read_file [file join $dir err]]
    }
    assert_equal 1 $status
    assert_equal [fatal_config_error 2 "maxmemory 8gb" \
                      "maxmemory is larger than this $bits-bit process can address ($limit bytes)"] $err
    lassign [run_failing_server [file join $dir bad.conf] --maxmemory 10gb] status err
    if {$bits == 32} {
        assert_equal [fatal_config_error 4 "maxmemory \"10gb\"" \
                          "maxmemory is larger than this 32-bit process can address ($limit bytes)"] $err
    }
}

test "make run passes ARGS to the server (make run ARGS='--port 6380')" {
    set root [file normalize [file join [file dirname [info script]] .. ..]]
    if {[auto_execok make] eq "" || ![file exists [file join $root Makefile]]} { skip "no make or no Makefile" }
    set out [exec make -s -n -C $root run "ARGS=--port 6380 --loglevel verbose"]
    assert_equal "./src/redis-server redis.conf --port 6380 --loglevel verbose" [lindex [split $out \n] end]
}

test "--test-memory: Redis 7.0's usage error, and a small run that passes" {
    foreach args {{--test-memory} {--test-memory 1 2}} {
        lassign [run_failing_server {*}$args] status err out
        assert_equal 1 $status
        assert_equal "Please specify the amount of memory to test in megabytes.\nExample: ./redis-server --test-memory 4096\n\n" $err
        set ref [reference_server]
        if {$ref ne ""} {
            set ref_err [exec sh -c "$ref $args 2>&1 || true"]
            assert_equal [string trimright $err "\n"] [string trimright $ref_err "\n"]
        }
    }
    lassign [run_failing_server --test-memory 1] status err out
    assert_equal 0 $status $err
    assert {[string first "Addressing test \[50\]" $out] > 0 && [string first "Compare \[50\]" $out] > 0} $out
    set tail "\nYour memory passed this test.\nPlease if you are still in doubt use the following two tools:\n1) memtest86: http://www.memtest86.com/\n2) memtester: http://pyropus.ca/software/memtester/\n"
    assert_equal $tail [string range $out end-[expr {[string length $tail] - 1}] end]
    catch {exec {*}[server_command --help] 2>@1} help
    assert_match "*--test-memory <megabytes>*" $help
}

test "command-line options are numbered after the file in errors" {
    set dir [scratch_dir fatal]
    write_file [file join $dir ok.conf] "timeout 1\n\nhz 5\n"
    lassign [run_failing_server [file join $dir ok.conf] --port 0 --hz abc] status err
    assert_equal 1 $status
    assert_equal [fatal_config_error 6 "hz \"abc\"" "argument couldn't be parsed into an integer"] $err
    lassign [run_failing_server --port 0 --no-such-option 1] status err
    assert_equal 1 $status
    assert_equal [fatal_config_error 3 "no-such-option \"1\"" "Bad directive or wrong number of arguments"] $err
}

test "an option still without a value takes the next --word as its value, as Redis does" {
    lassign [run_failing_server --port --loglevel verbose] status err
    assert_equal 1 $status
    assert_equal [fatal_config_error 2 {port "--loglevel" "verbose"} "wrong number of arguments"] $err
    lassign [run_failing_server --port --bla --loglevel verbose] status err
    assert_equal [fatal_config_error 2 {port "--bla"} "argument couldn't be parsed into an integer"] $err
    lassign [run_failing_server --logfile --my--log--file --loglevel --bla] status err
    assert_match "*at line 3\n>>> 'loglevel \"--bla\"'\nargument(s) must be one of the following: debug, verbose, notice, warning*" $err
    lassign [run_failing_server --port 6380 --shutdown-on-sigint] status err
    assert_equal [fatal_config_error 3 shutdown-on-sigint \
        "argument(s) must be one of the following: default, save, nosave, now, force"] $err
}

test "one argument may hold an option and its value, quotes included; --save before an option or last is save \"\"" {
    set dir [scratch_dir onearg]
    lassign [start_bare_server $dir "" "--maxmemory 700mb" "--maxmemory-policy 'volatile-lru'" \
                 --save --proc-title-template --my--title "--loglevel verbose"] pid client
    set got [list [lindex [$client config get maxmemory] 1] [lindex [$client config get maxmemory-policy] 1] \
                 [lindex [$client config get save] 1] [lindex [$client config get proc-title-template] 1] \
                 [lindex [$client config get loglevel] 1]]
    stop_bare_server $pid $client
    assert_equal {734003200 volatile-lru {} --my--title verbose} $got
    set dir [scratch_dir lastsave]
    lassign [start_bare_server $dir "" --hz 12 --save] pid client
    set got [list [lindex [$client config get hz] 1] [lindex [$client config get save] 1]]
    stop_bare_server $pid $client
    assert_equal {12 {}} $got
}

test "shutdown-on-sigterm and shutdown-on-sigint choose how each signal shuts down" {
    set dir [scratch_dir signals]
    set dump [file join $dir dump.rdb]
    # SIGTERM with "save" saves, though no save point is set
    lassign [start_bare_server $dir "" --save "" --shutdown-on-sigterm save] pid client
    $client set k v
    stop_bare_server $pid $client ;# SIGTERM
    assert [file exists $dump]
    file delete $dump
    # SIGINT with "nosave" doesn't, though a save point is set
    lassign [start_bare_server $dir "" --save "3600 1" --shutdown-on-sigint nosave] pid client
    $client set k v
    catch {$client close}
    ::harness::send_signal INT $pid
    wait_for_condition 100 50 {![::harness::pid_alive $pid]} else { fail "SIGINT did not stop the server" }
    ::harness::registry_remove $pid
    assert {![file exists $dump]}
}

test "a missing config file or include stops start-up" {
    set dir [scratch_dir fatal]
    set missing [file join $dir missing.conf]
    lassign [run_failing_server $missing] status err
    assert_equal 1 $status
    assert_equal "Fatal error, can't open config file '$missing': No such file or directory\n" $err
    write_file [file join $dir inc.conf] "port 0\ninclude $missing\n"
    lassign [run_failing_server [file join $dir inc.conf]] status err
    assert_equal 1 $status
    assert_equal "Fatal error, can't open config file '$missing': No such file or directory\n" $err
}

test "errors in an included file are reported with its own line numbers" {
    set dir [scratch_dir fatal]
    write_file [file join $dir inner.conf] "timeout 1\ntimeout x\n"
    write_file [file join $dir outer.conf] "port 0\n\n\ninclude [file join $dir inner.conf]\n"
    lassign [run_failing_server [file join $dir outer.conf]] status err
    assert_equal 1 $status
    assert_equal [fatal_config_error 2 "timeout x" "argument couldn't be parsed into an integer"] $err
}

test "an include loop is stopped by the nesting limit" {
    set dir [scratch_dir fatal]
    set loop [file join $dir loop.conf]
    write_file $loop "port 0\ninclude $loop\n"
    lassign [run_failing_server $loop] status err
    assert_equal 1 $status
    assert_equal [fatal_config_error 2 "include $loop" "Too many nested includes (the limit is 16)"] $err
}

test "a log file that can't be opened stops start-up" {
    set dir [scratch_dir fatal]
    write_file [file join $dir log.conf] "port 0\nlogfile /no/such/dir/redis.log\n"
    lassign [run_failing_server [file join $dir log.conf]] status err
    assert_equal 1 $status
    assert_equal "\n*** FATAL CONFIG FILE ERROR (Redis [server_version]) ***\nCan't open the log file: No such file or directory\n" $err
}

test "--list-config-directives prints the table, one name per line" {
    set names [split [string trim [exec {*}[server_command --list-config-directives]]] \n]
    foreach name {bind port maxmemory save client-output-buffer-limit notify-keyspace-events} {
        assert {[lsearch -exact $names $name] >= 0} "$name listed"
    }
    assert_equal [llength $names] [llength [lsort -unique $names]] "no duplicates"
}
}
