# moduleapi-notify.tcl -- keyspace notifications for Redis 7.0 modules
# (src/module_notify.c): SubscribeToKeyspaceEvents, NotifyKeyspaceEvent,
# GetNotifyKeyspaceEvents, through the test module tests/modules/mnotify.c.
# Run with --server /usr/bin/redis-server to check every expectation
# against Debian's Redis 7.0.15 loading the same .so.

source [file join $::harness_dir modules.tcl] ;# module_skip_reason, need_modules

proc mnotify_path {} { return [file join $::module_dir mnotify.so] }

start_server {tags {module} overrides {enable-module-command yes}} {
    test "a subscriber hears its event types with notify-keyspace-events off: type, event, key, db" {
        need_modules
        r module load [mnotify_path]
        assert_equal {} [r mnotify.events]
        r select 9
        r set a 1
        r get nokey
        r lpush l x y
        r del a
        r select 3
        r set b 2
        r select 9
        assert_equal {{8 set a 9} {2048 keymiss nokey 9} {16 lpush l 9} {4 del a 9} {8 set b 3}} [r mnotify.events]
        assert_equal {} [r mnotify.events]
    }

    test "a write from the callback is done but not heard by the subscriber itself" {
        need_modules
        r del touched
        r set touch:1 v
        assert_equal 1 [r get touched]
        assert_equal {{8 set touch:1 9}} [r mnotify.events]
    }

    test "a callback's RedisModule_Call nested in the command's own Call: both run" {
        need_modules
        assert_equal OK [r mnotify.setvia touch:2 v]
        assert_equal v [r get touch:2]
        assert_equal 2 [r get touched]
        assert_equal {{8 set touch:2 9}} [r mnotify.events]
    }

    test "GetNotifyKeyspaceEvents is the configured mask; NotifyKeyspaceEvent reaches modules and PUBLISH" {
        need_modules
        assert_equal 0 [r mnotify.flags]
        r config set notify-keyspace-events KEA
        assert_equal 10239 [r mnotify.flags]
        set rd [redis_deferring_client]
        $rd select 9
        $rd read
        $rd psubscribe __keyevent@9__:*
        $rd read
        assert_equal 1 [r mnotify.fire k myev]
        assert_equal {pmessage __keyevent@9__:* __keyevent@9__:myev k} [$rd read]
        assert_equal {{8192 myev k 9}} [r mnotify.events]
        r set k v px 100000
        assert_equal {pmessage __keyevent@9__:* __keyevent@9__:set k} [$rd read]
        assert_equal {pmessage __keyevent@9__:* __keyevent@9__:expire k} [$rd read]
        assert_equal {{8 set k 9} {4 expire k 9}} [r mnotify.events]
        $rd close
        r config set notify-keyspace-events ""
    }

    test "GetContextFlags in a callback: MULTI while EXEC runs, LUA while a script runs, whichever client" {
        need_modules
        r set flags:1 a
        r multi
        r set flags:2 b
        r exec
        r eval {redis.call('set', KEYS[1], 'c')} 1 flags:3
        assert_equal {{8 set flags:1 9} {multi 0 lua 0} {8 set flags:2 9} {multi 1 lua 0} {8 set flags:3 9} {multi 0 lua 1}} [r mnotify.events]
    }

    test "unloading ends the subscription; a new load hears only the types it asked for" {
        need_modules
        assert_equal OK [r module unload mnotify]
        r set z 1
        assert_equal OK [r module load [mnotify_path] 16]
        r set z 2
        r rpush l2 a
        assert_equal {{16 rpush l2 9}} [r mnotify.events]
        assert_equal OK [r module unload mnotify]
    }

    test "the LOADED event (modules only): each key read from the RDB" {
        need_modules
        r flushall
        r select 9
        r set a 1
        r select 2
        r rpush b x
        r select 9
        assert_equal OK [r module load [mnotify_path] 4096]
        r debug reload
        assert_equal {{4096 loaded b 2} {4096 loaded a 9}} [lsort -index 3 [r mnotify.events]]
        # the key a callback held is still the key afterwards
        r set filler 1
        assert_equal {a b} [lsort [r mnotify.held]]
        assert_equal OK [r module unload mnotify]
    }
}

# ---- server events (src/module_events.c, tests/modules/mevents.c) ----------------------

proc mevents_path {} { return [file join $::module_dir mevents.so] }
set ::mev {}

start_server {tags {module} overrides {enable-module-command yes}} {
    test "FlushDB: start and end, sync or not, the database number and it selected" {
        need_modules
        r module load [mevents_path]
        r select 5
        r set k v
        r flushdb
        r flushall async
        r select 9
        r flushdb async
        assert_equal {{flush start 1 5 5} {flush end 1 5 5} {flush start 0 -1 0} {flush end 0 -1 0} {flush start 0 9 9} {flush end 0 9 9}} [r mevents.get]
    }

    test "CronLoop: every cron tick with server.hz; a NULL callback unsubscribes" {
        need_modules
        set n [r mevents.cron]
        wait_for_condition 50 100 {[r mevents.cron] > $n + 2} else { fail "no CronLoop events" }
        assert_equal [lindex [r config get hz] 1] [r mevents.hz]
        assert_equal 1 [r mevents.unsub]
        set n [r mevents.cron]
        r debug sleep 0.3
        assert_equal $n [r mevents.cron]
    }

    test "ModuleChange: the others hear a module loaded and unloaded, the module itself not" {
        need_modules
        r module load [file join $::module_dir mnotify.so]
        r module unload mnotify
        assert_equal {{loaded mnotify 1} {unloaded mnotify 1}} [r mevents.get]
    }

    test "ClientChange: a connection accepted and closed, with its id and peer address" {
        need_modules
        r mevents.get
        set rd [redis_deferring_client]
        $rd client id
        set id [$rd read]
        $rd close
        wait_for_condition 50 100 {[llength [set ::mev [concat $::mev [r mevents.get]]]] >= 2} else {
            fail "no ClientChange events: $::mev"
        }
        assert_equal [list "client connected $id 1" "client disconnected $id 1"] $::mev
    }

    test "Loading: DEBUG RELOAD starts (RDB_START) and ends (ENDED) a load; its flush is heard too" {
        need_modules
        r mevents.get
        r debug reload
        assert_equal {{flush start 1 -1 0} {flush end 1 -1 0} {loading 0} {loading 3}} [r mevents.get]
    }

    test "SubscribeToServerEvent: an unknown id or a newer data version is refused; IsSubEventSupported" {
        need_modules
        assert_equal 0 [r mevents.subscribe 17 1]
        assert_equal 0 [r mevents.subscribe 2 2]
        assert_equal 1 [r mevents.subscribe 3 99]
        assert_equal 1 [r mevents.subscribe 16 1]
        assert_equal {1 0 1 0 0 0 1 0} [list [r mevents.supported 2 1] [r mevents.supported 2 2] \
            [r mevents.supported 3 4] [r mevents.supported 3 5] [r mevents.supported 5 0] \
            [r mevents.supported 8 0] [r mevents.supported 16 0] [r mevents.supported 17 0]]
    }

    test "Shutdown: the module hears it before the server exits" {
        need_modules
        set from [log_line_count]
        restart_server ;# stops it with SIGTERM
        set lines [lrange [split [::harness::read_file [srv stdout]] \n] $from end]
        set shut [lsearch -glob $lines "*# User requested shutdown..."]
        set heard [lsearch -glob $lines "*mevents: shutdown event*"]
        set bye [lsearch -glob $lines "*# Redis is now ready to exit, bye bye..."]
        assert {$shut >= 0 && $heard > $shut && $bye > $heard}
    } {needs:restart}
}
