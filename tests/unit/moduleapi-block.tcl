# moduleapi-block.tcl -- modules that answer later: blocked clients
# (src/module_block.c), thread-safe contexts and the lock (module_thread.c),
# timers (module_timer.c), through the test module tests/modules/mblock.c.
# Run with --server /usr/bin/redis-server to check every expectation
# against Debian's Redis 7.0.15 loading the same .so.

source [file join $::harness_dir modules.tcl] ;# module_skip_reason, need_modules

proc mblock_path {} { return [file join $::module_dir mblock.so] }

proc mb_stats {} { return [r mb.stats] }

start_server {tags {module} overrides {enable-module-command yes}} {
    test "BlockClient: another client's UnblockClient answers it through the reply callback" {
        need_modules
        r module load [mblock_path]
        set rd [redis_deferring_client]
        $rd mb.block 0
        wait_for_blocked_clients 1
        assert_equal 1 [r mb.unblock hello]
        assert_equal hello [$rd read]
        wait_for_blocked_clients 0
        assert_equal {1 0 0 0} [mb_stats]
        # the client serves its next command
        $rd ping
        assert_equal PONG [$rd read]
        $rd close
    }

    test "BlockClient: the timeout callback answers; the handle is released later, its client gone" {
        need_modules
        set rd [redis_deferring_client]
        $rd mb.block 20
        assert_equal timedout [$rd read]
        wait_for_blocked_clients 0
        assert_equal 1 [r mb.unblock late]
        # the private data is freed, and BlockedClientDisconnected says the client went
        wait_for_condition 100 20 {[lindex [mb_stats] 1] == 1} else { fail "privdata not freed: [mb_stats]" }
        assert_equal {2 1 0 1} [mb_stats]
        $rd close
    }

    test "CLIENT UNBLOCK: the timeout callback, or -UNBLOCKED; refused without a timeout callback" {
        need_modules
        set rd [redis_deferring_client]
        $rd client id
        set id [$rd read]
        $rd mb.block 0
        wait_for_blocked_clients 1
        assert_equal 1 [r client unblock $id]
        assert_equal timedout [$rd read]
        $rd mb.block 0
        wait_for_blocked_clients 1
        assert_equal 1 [r client unblock $id error]
        assert_error "UNBLOCKED client unblocked via CLIENT UNBLOCK" {$rd read}
        $rd mb.blocknotimeout
        wait_for_blocked_clients 1
        assert_equal 0 [r client unblock $id]
        assert_equal 0 [r client unblock $id error]
        assert_equal 3 [r mb.unblock v]
        assert_equal v [$rd read]
        wait_for_blocked_clients 0
        $rd close
    }

    test "a blocked client that disconnects: the disconnect callback, then its data is freed with it gone" {
        need_modules
        set before [mb_stats]
        set rd [redis_deferring_client]
        $rd mb.block 0
        wait_for_blocked_clients 1
        $rd close
        wait_for_condition 100 20 {[lindex [mb_stats] 2] == [lindex $before 2] + 1} else {
            fail "no disconnect callback: [mb_stats]"
        }
        wait_for_blocked_clients 0
        assert_equal 1 [r mb.unblock x]
        wait_for_condition 100 20 {[lindex [mb_stats] 1] == [lindex $before 1] + 1} else {
            fail "privdata not freed as disconnected: [mb_stats]"
        }
    }

    test "AbortBlock: the client is released without a reply and serves its next command" {
        need_modules
        set rd [redis_deferring_client]
        $rd mb.block 0
        wait_for_blocked_clients 1
        assert_equal 1 [r mb.abort]
        wait_for_blocked_clients 0
        $rd ping
        assert_equal PONG [$rd read]
        $rd close
    }

    test "BlockClient inside MULTI or a script: Redis's errors, nothing blocks" {
        need_modules
        r multi
        r mb.block 0
        catch {r exec} res
        assert_match "*Blocking module command called from transaction*" $res
        assert_error "*Blocking module command called from Lua script*" {r eval "return redis.call('mb.block', 0)" 0}
        # the handles were made anyway: the module releases them
        assert_equal 2 [r mb.unblock x]
        assert_equal 0 [s blocked_clients]
    }

    test "a module holding a blocked client cannot be unloaded" {
        need_modules
        set rd [redis_deferring_client]
        $rd mb.block 0
        wait_for_blocked_clients 1
        assert_error "*the module has blocked clients. Please wait them unblocked and try again*" {r module unload mblock}
        assert_equal 1 [r mb.unblock y]
        assert_equal y [$rd read]
        $rd close
    }

    test "commandstats: a blocked command counts its call when it runs, once" {
        need_modules
        r config resetstat
        assert_equal done [r mb.measure]
        set rd [redis_deferring_client]
        $rd mb.block 0
        wait_for_blocked_clients 1
        assert_match "*calls=1,*" [module_cmdstat mb.block]
        r mb.unblock z
        assert_equal z [$rd read]
        assert_match "*calls=1,*" [module_cmdstat mb.block]
        assert_match "*calls=1,*" [module_cmdstat mb.measure]
        $rd close
    }

    test "a thread-safe context: a thread Calls under the lock and replies for its blocked client" {
        need_modules
        r del tcount
        assert_equal 1 [r mb.thread tcount]
        assert_equal 2 [r mb.thread tcount]
        r select 9
        assert_equal 1 [r mb.thread tcount]
        r select 0
        assert_equal 2 [r get tcount]
    }

    test "a detached thread-safe context writes from its thread" {
        need_modules
        r del dkey
        assert_equal OK [r mb.detached dkey dvalue]
        wait_for_condition 100 20 {[r get dkey] eq "dvalue"} else { fail "the thread did not write" }
    }

    test "the server holds the lock while it runs commands: TryLock from a command fails" {
        need_modules
        assert_equal busy [r mb.trylock]
    }

    test "timers: fire once, in the database they were created in; then they are gone" {
        need_modules
        r del tk
        set id [r mb.timer 10 tk]
        assert {$id != 0}
        wait_for_condition 100 20 {[r get tk] eq "1"} else { fail "the timer did not fire" }
        assert_equal {} [r mb.timerinfo $id]
        assert_equal 0 [r mb.stoptimer $id]
        r select 9
        r del tk
        r mb.timer 1 tk
        wait_for_condition 100 20 {[r get tk] eq "1"} else { fail "the timer did not fire in db 9" }
        r select 0
        assert_equal 1 [r get tk]
    }

    test "timers: GetTimerInfo and StopTimer; an unknown id is nobody's" {
        need_modules
        assert_equal {} [r mb.timerinfo 0]
        assert_equal 0 [r mb.stoptimer 0]
        set id [r mb.timer 100000 tk2]
        assert_equal {1 tk2} [r mb.timerinfo $id]
        assert_error "*the module holds timer that is not fired*" {r module unload mblock}
        assert_equal 1 [r mb.stoptimer $id]
        assert_equal 0 [r mb.stoptimer $id]
        assert_equal {} [r mb.timerinfo $id]
        assert_equal 0 [r exists tk2]
    }

    test "BlockClientOnKeys: the reply callback decides when a ready key serves the client" {
        need_modules
        r del ol
        set before [mb_stats]
        set rd [redis_deferring_client]
        $rd mb.onkeys ol 0
        wait_for_blocked_clients 1
        r rpush ol a
        # one element: the callback declines, the client keeps waiting
        r ping
        assert_equal 1 [s blocked_clients]
        # (a list wakes its waiters when it is created, in Redis 7.0: made again)
        r del ol
        r rpush ol a b
        assert_equal a [$rd read]
        wait_for_blocked_clients 0
        assert_equal b [r lrange ol 0 -1]
        # its private data is freed when it is released, with its client there
        wait_for_condition 100 20 {[lindex [mb_stats] 0] == [lindex $before 0] + 1} else { fail "not freed: [mb_stats]" }
        assert_equal [lindex $before 1] [lindex [mb_stats] 1]
        $rd close
    }

    test "BlockClientOnKeys: timeout and CLIENT UNBLOCK answer through the timeout callback and release it" {
        need_modules
        r del ol2
        set before [mb_stats]
        set rd [redis_deferring_client]
        $rd mb.onkeys ol2 20
        assert_equal timedout [$rd read]
        $rd client id
        set id [$rd read]
        $rd mb.onkeys ol2 0
        wait_for_blocked_clients 1
        assert_equal 1 [r client unblock $id]
        assert_equal timedout [$rd read]
        wait_for_blocked_clients 0
        # released by the server, not the module: both handles' data freed
        wait_for_condition 100 20 {[lindex [mb_stats] 0] == [lindex $before 0] + 2} else { fail "not freed: [mb_stats]" }
        # a disconnected waiter is released too
        $rd mb.onkeys ol2 0
        wait_for_blocked_clients 1
        $rd close
        wait_for_condition 100 20 {[lindex [mb_stats] 0] == [lindex $before 0] + 3} else { fail "not freed: [mb_stats]" }
        wait_for_blocked_clients 0
        r rpush ol2 x y
        assert_equal {x y} [r lrange ol2 0 -1]
    }

    test "Yield: past busy-reply-threshold other clients get -BUSY with the module's text; allow-busy runs" {
        need_modules
        r config set busy-reply-threshold 50
        set rd [redis_deferring_client]
        $rd mb.spin
        $rd flush
        wait_for_condition 100 20 {[catch {r ping} e] && [string match "BUSY Slow module spin*" $e]} else {
            fail "no -BUSY while the module spins"
        }
        assert_equal 1 [r mb.stopspin]
        assert_equal spun [$rd read]
        assert_equal PONG [r ping]
        r config set busy-reply-threshold 5000
        $rd close
    }

    test "Yield without serving clients: their commands wait and run when it ends, no -BUSY" {
        need_modules
        r config set busy-reply-threshold 20
        set rd [redis_deferring_client]
        $rd mb.spinfor 300
        $rd flush
        assert_equal PONG [r ping]
        assert_equal spun [$rd read]
        assert_equal PONG [r ping]
        r config set busy-reply-threshold 5000
        $rd close
    }

    test "unloaded once its handles and timers are released" {
        need_modules
        assert_equal OK [r module unload mblock]
    }
}

# Levels: 0 the primary, -1 its replica.
start_server {tags {module repl} overrides {enable-module-command yes}} {
    start_server {overrides {enable-module-command yes}} {
        test "WAIT after a blocked client's reply waits for what its thread propagated" {
            need_modules
            r module load [mblock_path]
            r -1 replicaof [srv 0 host] [srv 0 port]
            wait_for_condition 100 100 {[string match "*master_link_status:up*" [r -1 info replication]]} else {
                fail "the replica did not connect"
            }
            assert_equal 1 [r wait 1 [::harness::scaled 5000]]
            set replica_pid [srv -1 pid]
            exec kill -STOP $replica_pid
            try {
                assert_equal 1 [r mb.thread wk] ;# the thread's INCR ("!") reaches the stream, not the stopped replica
                assert_equal 0 [r wait 1 200]
            } finally {
                exec kill -CONT $replica_pid
            }
            assert_equal 1 [r wait 1 [::harness::scaled 5000]]
            wait_for_condition 100 50 {[r -1 get wk] eq 1} else { fail "the replica did not get the INCR" }
        }
    }
}
