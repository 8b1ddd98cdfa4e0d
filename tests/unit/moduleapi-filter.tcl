# moduleapi-filter.tcl -- command filters of Redis 7.0 modules
# (src/module_filter.c): RegisterCommandFilter, UnregisterCommandFilter and
# the CommandFilterArg* functions, through tests/modules/mfilter.c: what a
# client sends is rewritten before lookup, inside MULTI too, a module's Call
# is filtered unless the filter is NOSELF, so are scripts' calls,
# out-of-range positions are refused, and the filter goes with its module.
# Every expectation holds for Debian's Redis 7.0.15 loading the same .so --
# except the one test that says otherwise (a filter deleting every
# argument crashes 7.0); run the file with --server /usr/bin/redis-server to
# check.

source [file join $::harness_dir modules.tcl] ;# module_skip_reason, need_modules

proc mfilter_load {args} {
    r module load [file join $::module_dir mfilter.so] {*}$args
}

start_server {tags {module} overrides {enable-module-command yes}} {
    test "A filter renames the command before it is looked up (Replace of argument 0)" {
        need_modules
        assert_equal OK [mfilter_load]
        assert_equal {a b} [r mfilter.alias a b]
        r config resetstat
        r mfilter.alias x
        set stats [r info commandstats]
        assert_match "*cmdstat_mfilter.echo:calls=1,*" $stats
        assert_no_match "*mfilter.alias*" $stats
    }

    test "Delete, and Insert in the middle and at the end" {
        need_modules
        assert_equal {a b} [r mfilter.echo a @drop b @drop]
        assert_equal {< a b >} [r mfilter.echo a b @wrap]
        assert_equal {< >} [r mfilter.echo @wrap]
        assert_equal OK [r set filtered:k @drop v]
        assert_equal v [r get filtered:k]
    }

    test "Queued commands are filtered when queued" {
        need_modules
        r multi
        assert_equal QUEUED [r set filtered:m @drop w]
        assert_equal QUEUED [r mfilter.alias q]
        assert_equal {OK q} [r exec]
        assert_equal w [r get filtered:m]
    }

    test "Out-of-range positions: ArgGet is NULL, Insert, Replace and Delete refuse" {
        need_modules
        r mfilter.bounds a b
        assert_equal {get:null getneg:null insert:err insertneg:err replace:err delete:err deleteneg:err} [r mfilter.bounds]
    }

    test "A module's Call is filtered (the filter is not NOSELF)" {
        need_modules
        assert_equal {c d} [r mfilter.call mfilter.alias c d]
        set before [r mfilter.seen]
        r mfilter.call ping
        # the client's MFILTER.CALL and the PING it calls
        assert_equal [expr {$before + 2}] [r mfilter.seen]
    }

    test "Scripts' redis.call is filtered, as in Redis 7.0" {
        need_modules
        assert_equal OK [r eval {return redis.call('set', KEYS[1], '@drop', 'v')} 1 filtered:s]
        assert_equal v [r get filtered:s]
        assert_equal {e f} [r eval {return redis.call('mfilter.alias', 'e', 'f')} 0]
        assert_equal {< g >} [r eval {return redis.call('mfilter.echo', 'g', '@wrap')} 0]
        # a refused call after a rewrite: the rewritten arguments are released
        assert_error {*Unknown Redis command*} {r eval {return redis.call('@nothing', 'x')} 0}
        assert_equal PONG [r ping]
    }

    test "UnregisterCommandFilter: OK once, then an error; nothing is filtered after" {
        need_modules
        assert_equal 0 [r mfilter.unregister]
        assert_equal 1 [r mfilter.unregister]
        assert_error {*syntax error*} {r set filtered:k @drop v}
        assert_error {*unknown command*} {r mfilter.alias a}
        assert_equal {a @drop} [r mfilter.echo a @drop]
    }

    test "MODULE UNLOAD takes the module's filter with it" {
        need_modules
        assert_equal OK [r module unload mfilter]
        assert_equal OK [mfilter_load]
        assert_equal {x} [r mfilter.alias x]
        assert_equal OK [r module unload mfilter]
        assert_error {*syntax error*} {r set filtered:k @drop v}
        assert_equal PONG [r ping]
    }
}

start_server {tags {module} overrides {enable-module-command yes}} {
    test "NOSELF: the module's own Call is not filtered, its clients' commands are" {
        need_modules
        assert_equal OK [mfilter_load noself]
        assert_equal {c d} [r mfilter.alias c d]
        assert_error {*call failed*} {r mfilter.call mfilter.alias c d}
        # the client's own command is filtered: @drop never reaches the Call
        assert_equal {c} [r mfilter.call mfilter.echo c @drop]
        set before [r mfilter.seen]
        r mfilter.call ping
        # only the client's MFILTER.CALL: the PING inside is the module's own
        assert_equal [expr {$before + 1}] [r mfilter.seen]
    }

    test "A filter that deletes every argument gets an unknown-command error, not a crash (ours)" {
        need_modules
        ours_only "Redis 7.0 dereferences the empty argv"
        assert_error {ERR unknown command ''*} {r @nothing a b}
        assert_equal PONG [r ping]
    }
}
