# modules.tcl -- what the module tests share (tests/unit/moduleapi*.tcl):
# whether this server can load the test modules at all, and where they are.
# utils/build-test-modules.sh compiles tests/modules/*.c against Redis 7.0's
# own redismodule.h; the same .so files load into Debian's Redis 7.0.15.

proc module_skip_reason {} {
    if {[llength $::harness::opt(wrapper)]} {
        return "the server runs under an emulator (--wrapper): a cross port links -static and cannot dlopen, and the test modules are built for this host"
    }
    if {[catch {exec ldd $::harness::opt(server)} out] && [string match "*not a dynamic executable*" $out]} {
        return "the server is statically linked: it cannot dlopen modules"
    }
    if {[catch {exec [file join [pwd] utils build-test-modules.sh]} out]} {
        return "test modules not built: $out"
    }
    set ::module_dir [lindex [split [string trim $out] \n] end]
    return ""
}

set ::module_skip [module_skip_reason]
set ::module_load_failed "ERR Error loading the extension. Please check the server logs."

proc need_modules {} {
    if {$::module_skip ne ""} { skip $::module_skip }
}


# Debian's 7.0.15 with the module at PATH loaded, on a copy of RDB (or
# empty): a client, its pid in PIDVAR. Skips without the reference server
# (and when the reference is the server under test).
proc start_reference_with_module {path pidvar {rdb ""}} {
    upvar $pidvar pid
    set ref [reference_server]
    if {$ref eq "" || ![ours]} { skip "no reference server to compare with (/usr/bin/redis-server)" }
    set dir [::harness::fresh_run_dir modref]
    if {$rdb ne ""} { file copy -force $rdb [file join $dir dump.rdb] }
    set port [::harness::find_free_port]
    set pid [exec $ref --port $port --bind 127.0.0.1 --dir $dir --save "" --enable-debug-command yes \
                 --loadmodule $path --logfile [file join $dir log] &]
    set c ""
    wait_for_condition 100 50 {![catch {set c [::resp::connect 127.0.0.1 $port]}] && ![catch {$c ping}]} else {
        catch {exec kill $pid}
        fail "reference server did not start: [::harness::read_file [file join $dir log]]"
    }
    return $c
}

# INFO commandstats' line for cmd (without the cmdstat_ prefix), or "".
proc module_cmdstat {cmd} {
    if {[regexp "cmdstat_$cmd:(\[^\r\n\]*)" [r info commandstats] -> line]} { return $line }
    return ""
}
