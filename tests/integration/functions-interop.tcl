# functions-interop.tcl -- function libraries cross between this server and
# Debian's Redis 7.0.15 both ways: in RDB files (each side loads the other's
# dump with FUNCTION LIST WITHCODE identical and the functions callable) and
# as FUNCTION DUMP payloads given to the other side's FUNCTION RESTORE.
#
# Design decisions:
# - The reference runs on a copy of a dump (binaries.tcl's start_reference),
#   so nothing here needs a second harness-managed server; every test skips,
#   saying why, when /usr/bin/redis-server is not installed.
# - Listings are compared with libraries and functions sorted by name:
#   Redis's own order is its hash tables', different in every process.
# - The libraries use both registration forms and flags, so the function
#   opcode's body, flags and descriptions all have to survive the trip.

set ::libs_ours {
    {#!lua name=counters
        local function bump(keys, args) return redis.call('incrby', keys[1], args[1]) end
        redis.register_function('bump', bump)
        redis.register_function{function_name='peek', callback=function(keys) return redis.call('get', keys[1]) end,
                                flags={'no-writes'}, description='read a counter'}}
    {#!lua name=greet
        redis.register_function('hello', function(_, args) return 'hello ' .. args[1] end)}
}

# FUNCTION LIST with libraries, and the functions of each, sorted by name:
# Redis lists both in its hash tables' order, which differs from one
# process to the next.
proc sorted_function_list {reply} {
    set libs {}
    foreach lib $reply {
        dict set lib functions [lsort -index 1 [dict get $lib functions]]
        lappend libs $lib
    }
    return [lsort -index 1 $libs]
}

proc need_reference {} {
    set ref [reference_server]
    if {$ref eq ""} { skip "Debian's redis-server is not installed (apt-get install redis-server)" }
    return $ref
}

start_server {tags {scripting rdb}} {
    test "Redis 7.0.15 loads our dump's functions: same FUNCTION LIST WITHCODE, callable" {
        set ref [need_reference]
        r function flush
        foreach lib $::libs_ours { r function load $lib }
        r set c 5
        set expected [sorted_function_list [r function list withcode]]
        r save
        set c [start_reference $ref [file join [srv dir] dump.rdb] pid]
        set got [sorted_function_list [$c function list withcode]]
        set bumped [$c fcall bump 1 c 2]
        set peeked [$c fcall_ro peek 1 c]
        set hello [$c fcall hello 0 pi]
        stop_reference $c $pid
        assert_equal $expected $got
        assert_equal {7 7 {hello pi}} [list $bumped $peeked $hello]
    }

    test "We load Redis 7.0.15's dump of functions: same FUNCTION LIST WITHCODE, callable" {
        set ref [need_reference]
        r function flush
        r flushall
        r save
        set c [start_reference $ref [file join [srv dir] dump.rdb] pid]
        $c function load {#!lua name=theirs
            redis.register_function{function_name='twice', callback=function(_, args) return args[1] * 2 end,
                                    flags={'no-writes', 'allow-stale'}, description='doubles'}
            redis.register_function('setget', function(keys, args)
                redis.call('set', keys[1], args[1]); return redis.call('get', keys[1]) end)}
        set expected [sorted_function_list [$c function list withcode]]
        $c save
        set dir [lindex [$c config get dir] 1]
        file copy -force [file join $dir dump.rdb] [file join [srv dir] dump.rdb]
        stop_reference $c $pid
        r debug reload nosave
        assert_equal $expected [sorted_function_list [r function list withcode]]
        assert_equal 42 [r fcall_ro twice 0 21]
        assert_equal v [r fcall setget 1 k v]
    }

    test "FUNCTION DUMP payloads restore on the other side, both ways" {
        set ref [need_reference]
        r function flush
        foreach lib $::libs_ours { r function load $lib }
        set expected [sorted_function_list [r function list withcode]]
        set ours_payload [r function dump]
        r save
        set c [start_reference $ref [file join [srv dir] dump.rdb] pid]
        $c function flush
        $c function restore $ours_payload
        set got [sorted_function_list [$c function list withcode]]
        set theirs_payload [$c function dump]
        stop_reference $c $pid
        assert_equal $expected $got
        r function flush
        assert_equal OK [r function restore $theirs_payload]
        assert_equal $expected [sorted_function_list [r function list withcode]]
    }
}
