# moduleapi-propagate.tcl -- what a module propagates outside any command
# (src/propagate.c's execution units), through tests/modules/mprop.c, read
# back from the AOF: a timer's or a locked thread's ops go out together when
# it returns or lets go, in MULTI/EXEC; the active expiry cycle's DEL and
# what an "expired" handler replicates go out bare, the handler's first; a
# key a module's Call finds expired is deleted on the AOF and the replicas
# even when the Call propagates nothing (what the handler replicates inside
# that Call is not propagated). The AOF gets MULTI/EXEC around two
# or more ops of its own, as the replicas do. Every expectation holds for
# Debian's Redis 7.0.15 loading the same .so: run the file with
# --server /usr/bin/redis-server to check.

source [file join $::harness_dir modules.tcl] ;# module_skip_reason, need_modules

# The commands written while SCRIPT ran, lower case, each as a list.
proc mprop_written {script} {
    set written [uplevel 1 [list aof_commands_written $script]]
    set out {}
    foreach cmd $written { lappend out [string tolower $cmd] }
    return $out
}

start_server {tags {module aof} overrides {enable-module-command yes appendonly yes appendfsync always
        aof-use-rdb-preamble no hz 100}} {
    test "A timer's Replicate and Call '!' ops go out together when it returns, in MULTI/EXEC" {
        need_modules
        assert_equal OK [r module load [file join $::module_dir mprop.so]]
        set written [mprop_written {
            assert_equal OK [r mprop.timer t]
            wait_for_condition 200 10 {[r get t:called] eq 1} else { fail "the timer did not run" }
        }]
        assert_equal {multi {incr t:first} {incr t:called} {incr t:last} exec} $written
    }

    test "A thread's ops go out each time it lets go of the lock, one MULTI/EXEC per round" {
        need_modules
        set written [mprop_written {
            assert_equal OK [r mprop.thread th 3]
            wait_for_condition 200 10 {[r get th:done] eq 1} else { fail "the thread did not finish" }
        }]
        set round {multi {incr th:first} {incr th:called} {incr th:last} exec}
        assert_equal [concat $round $round $round] $written
        assert_equal 3 [r get th:called]
    }

    test "Active expiry: the \"expired\" handler's op, then the DEL, bare" {
        need_modules
        r config resetstat
        r debug set-active-expire 1
        set written [mprop_written {
            r set ak v px 30
            wait_for_condition 200 10 {[s expired_keys] == 1} else { fail "the key did not expire" }
        }]
        assert_equal {set ak v pxat} [lrange [lindex $written 0] 0 3]
        assert_equal {{incr mprop:expired} {del ak}} [lrange $written 1 end]
    }

    test "A key a module's Call finds expired is deleted on the AOF even when the Call propagates nothing" {
        need_modules
        r debug set-active-expire 0
        r set ck 900 px 30
        after 60
        set written [mprop_written {
            assert_equal 1 [r mprop.call ck]
        }]
        # the handler's INCR ran inside the Call, which propagates nothing: only the DEL
        assert_equal {multi {del ck} {mprop.call ck} exec} $written
        assert_equal 0 [r exists mprop:expired] ;# Replicate propagates, it does not run
        assert_equal -1 [r ttl ck]
        r debug set-active-expire 1
    }

    test "A replay of the AOF applies every op propagated, the replicated-only ones included" {
        need_modules
        r debug loadaof
        assert_equal {1 1 1 3 3 3 1 1} [r mget t:first t:called t:last th:first th:called th:last ck mprop:expired]
        assert_equal 0 [r exists ak th:done]
    }
}
