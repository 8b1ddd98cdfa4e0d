# moduleapi-eventloop.tcl -- the event loop API of Redis 7.0 modules
# (src/module_eventloop.c): EventLoopAdd, EventLoopDel and
# EventLoopAddOneShot, through the test module tests/modules/mevloop.c.
# Every expectation holds for Debian's Redis 7.0.15 loading the same .so:
# run the file with --server /usr/bin/redis-server to check.

source [file join $::harness_dir modules.tcl] ;# module_skip_reason, need_modules

start_server {tags {module} overrides {enable-module-command yes}} {
    test "EventLoopAdd/Del refuse a bad fd (ERANGE) before a bad callback or mask (EINVAL)" {
        need_modules
        r module load [file join $::module_dir mevloop.so]
        assert_equal {ERANGE ERANGE ERANGE EINVAL EINVAL ERANGE EINVAL EINVAL OK} [r mevloop.badargs]
    }

    test "The EventLoop event: BEFORE_SLEEP and AFTER_SLEEP once per pass, equal while a command runs" {
        need_modules
        lassign [r mevloop.sleeps] before after
        assert_equal $before $after
        assert_morethan $before 0
        lassign [r mevloop.sleeps] before2 after2
        assert_equal $before2 $after2
        assert_morethan $before2 $before
    }

    test "A module's fds in the event loop: READABLE and WRITABLE callbacks, Del from a callback" {
        need_modules
        assert_equal OK [r mevloop.pipe 5]
        wait_for_condition 100 20 {[lindex [r mevloop.stats] 0] == 5} else {
            fail "the read callback got [r mevloop.stats]"
        }
        # the write watch removed itself after its fifth call
        after 50
        assert_equal {5 5 1 2 1} [r mevloop.stats]
        assert_equal OK [r mevloop.unwatch]
        assert_equal PONG [r ping]
    }

    test "EventLoopAddOneShot from a thread: each runs once, on the main thread" {
        need_modules
        assert_equal OK [r mevloop.oneshot 1000]
        wait_for_condition 100 20 {[lindex [r mevloop.oneshots] 0] == 1000} else {
            fail "one-shots run: [r mevloop.oneshots]"
        }
        assert_equal {1000 1000} [r mevloop.oneshots]
        assert_equal OK [r mevloop.oneshot 3]
        wait_for_condition 100 20 {[lindex [r mevloop.oneshots] 0] == 1003} else {
            fail "one-shots run: [r mevloop.oneshots]"
        }
    }
}
