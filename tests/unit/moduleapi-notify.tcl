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
}
