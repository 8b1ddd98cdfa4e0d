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

