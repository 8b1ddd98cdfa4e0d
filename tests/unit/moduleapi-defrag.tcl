# moduleapi-defrag.tcl -- the defrag API of Redis 7.0 modules
# (src/module_defrag.c, driven by src/defrag.c): a module's
# RegisterDefragFunc callback runs in each active-defrag pass, its type's
# defrag callback for each value -- at once for a small one, over slices with
# a cursor (DefragShouldStop, DefragCursorSet/Get) for one whose free effort
# exceeds active-defrag-max-scan-fields -- and DefragAlloc moves blocks,
# through tests/modules/mdefrag.c.
# Debian's Redis 7.0.15 cannot defragment (its jemalloc is the system's,
# without the defrag hint), so there the test says so and ends.

source [file join $::harness_dir modules.tcl] ;# module_skip_reason, need_modules

proc mdefrag_stat {name} {
    set at [dict get {global 0 small 1 big 2 moved 3 wrong 4 misuse 5} $name]
    return [lindex [r mdefrag.stats] $at]
}

start_server {tags {module defrag} overrides {enable-module-command yes}} {
    test "Active defrag calls the module's global callback and its type's callback, small and big values" {
        need_modules
        if {[catch {r config set activedefrag no} err] || [catch {r config set activedefrag yes} err]} {
            # libc malloc, or Debian's Redis on the system's jemalloc
            puts "    (skipped: this server cannot defragment: $err)"
            return
        }
        r config set activedefrag no
        assert_equal OK [r module load [file join $::module_dir mdefrag.so]]
        r config set active-defrag-max-scan-fields 100
        for {set j 0} {$j < 20} {incr j} { r mdefrag.create small:$j 50 }
        r mdefrag.create big 5000
        # waste for the pass to start: half of many small strings freed
        r debug populate 20000 filler 48
        r eval {for i = 0, 19999, 2 do redis.call('del', 'filler:' .. i) end} 0
        r config set active-defrag-ignore-bytes 100kb
        r config set active-defrag-threshold-lower 1
        r config set active-defrag-cycle-min 50
        r config set active-defrag-cycle-max 75
        r config set activedefrag yes
        wait_for_condition 600 50 {[mdefrag_stat global] > 0 && [mdefrag_stat small] >= 20 && [mdefrag_stat big] > 0} else {
            fail "callbacks: [r mdefrag.stats], defrag hits [s active_defrag_hits], running [s active_defrag_running]"
        }
        r config set activedefrag no
        # the key name and db, and no cursor outside a big value's calls, as expected
        assert_equal 0 [mdefrag_stat wrong]
        assert_equal 0 [mdefrag_stat misuse]
        assert_equal PONG [r ping]
    }
}
