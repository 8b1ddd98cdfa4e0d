# moduleapi-config.tcl -- configuration parameters of Redis 7.0 modules
# (src/module_config.c): RegisterBool/String/Numeric/EnumConfig and
# LoadConfigs, seen through CONFIG GET/SET/REWRITE, MODULE LOADEX's CONFIG
# pairs and the config file, with the test module tests/modules/mconfig.c.
# Every expectation holds for Debian's Redis 7.0.15 loading the same .so:
# run the file with --server /usr/bin/redis-server to check.

source [file join $::harness_dir modules.tcl] ;# module_skip_reason, need_modules

proc mconfig_path {} { return [file join $::module_dir mconfig.so] }

proc mconfig_defaults {} {
    return {mconfig.enabled yes mconfig.str hello mconfig.num 10 mconfig.mem 1024 mconfig.enum one
            mconfig.flags {a b} mconfig.imm 7 mconfig.secret {} mconfig.prot 0 mconfig.pa no mconfig.pb no}
}

# A CONFIG GET reply as a sorted dict, to compare whatever the order.
proc sorted_pairs {reply} {
    set out {}
    foreach k [lsort [dict keys $reply]] { lappend out $k [dict get $reply $k] }
    return $out
}

proc set_error {name why} {
    if {$why eq ""} { return "ERR CONFIG SET failed (possibly related to argument '$name')" }
    return "ERR CONFIG SET failed (possibly related to argument '$name') - $why"
}

# Runs the server on a config file of LINES (which must make it exit);
# returns {status output}.
proc failing_with_config {lines} {
    set dir [::harness::fresh_run_dir mconfig]
    set conf [file join $dir redis.conf]
    set fd [open $conf w]
    puts $fd [join [concat [list "port 0" "dir $dir" "unixsocket [file join $dir s.sock]"] $lines] \n]
    close $fd
    lassign [run_failing_server $conf] status err out
    return [list $status "$err$out"]
}

start_server {tags {module} overrides {enable-module-command yes}} {
    test "registration: every type at its default, hidden ones only by exact name, bad registrations refused" {
        need_modules
        r module load [mconfig_path]
        assert_equal [sorted_pairs [mconfig_defaults]] [sorted_pairs [r config get mconfig.*]]
        assert_equal {mconfig.hidden no} [r config get mconfig.hidden]
        assert_equal {MCONFIG.NUM 10} [r config get MCONFIG.NUM]
        assert_equal [sorted_pairs {mconfig.enabled yes mconfig.enum one}] [sorted_pairs [r config get mconfig.en* nosuch]]
        # duplicate (any case), '.', empty name, MEMORY on a bool, BITFLAGS on a numeric, unknown flag
        assert_equal {EALREADY EALREADY EINVAL EINVAL EINVAL EINVAL EINVAL} [r mconfig.badregs]
        # LoadConfigs gave each config its default through its setter; no apply ran
        assert_equal 12 [r mconfig.sets]
        assert_equal {0 0 0} [r mconfig.applies]
    }

    test "CONFIG SET of each type; bitflags enums; memory values" {
        need_modules
        r config set mconfig.enabled no mconfig.str {two words} mconfig.num -5 mconfig.mem 1mb mconfig.enum THREE
        assert_equal [sorted_pairs {mconfig.enabled no mconfig.str {two words} mconfig.num -5 mconfig.mem 1048576 mconfig.enum three}] \
            [sorted_pairs [r config get mconfig.enabled mconfig.str mconfig.num mconfig.mem mconfig.enum]]
        foreach {value shown} {{c a} {a c} all all {a b c} all none none b b {A c} {a c}} {
            r config set mconfig.flags $value
            assert_equal [list mconfig.flags $shown] [r config get mconfig.flags] "flags set to '$value'"
        }
    }

    test "apply callbacks: once per CONFIG SET per (callback, privdata), only for a changed value" {
        need_modules
        lassign [r mconfig.applies] shared mem pair
        # num and enum share the callback, not the privdata: two calls
        r config set mconfig.num 20 mconfig.enum two
        assert_equal [list [incr shared 2] $mem $pair] [r mconfig.applies]
        set sets [r mconfig.sets]
        r config set mconfig.num 20
        assert_equal [list $shared $mem $pair] [r mconfig.applies]
        assert_equal $sets [r mconfig.sets] "an unchanged value does not reach the setter"
        r config set mconfig.mem 2048 mconfig.num 21 mconfig.enum two
        assert_equal [list [incr shared] [incr mem] $pair] [r mconfig.applies]
        # pa and pb share both: one call
        r config set mconfig.pa yes mconfig.pb yes
        assert_equal [list $shared $mem [incr pair]] [r mconfig.applies]
        assert_equal [sorted_pairs {mconfig.pa yes mconfig.pb yes}] [sorted_pairs [r config get mconfig.pa mconfig.pb]]
        r config set mconfig.pb no
        assert_equal [list $shared $mem [incr pair]] [r mconfig.applies]
    }

    test "CONFIG SET errors: bounds, parse errors, enum choices, immutable, protected, unknown, duplicate" {
        need_modules
        foreach {name value why} {
            mconfig.num 101 {argument must be between -5 and 100 inclusive}
            mconfig.num -6 {argument must be between -5 and 100 inclusive}
            mconfig.num abc {argument couldn't be parsed into an integer}
            mconfig.mem 1xb {argument must be a memory value}
            mconfig.mem -5 {argument must be a memory value}
            mconfig.mem 2048gb {argument must be between 0 and 1099511627776 inclusive}
            mconfig.enabled maybe {argument must be 'yes' or 'no'}
            mconfig.enum four {argument(s) must be one of the following: one, two, three}
            mconfig.enum {one two} {argument(s) must be one of the following: one, two, three}
            mconfig.flags {a d} {argument(s) must be one of the following: none, a, b, c, all}
            mconfig.imm 8 {can't set immutable config}
            mconfig.prot 8 {can't set protected config}
        } {
            assert_error [set_error $name $why] {r config set $name $value}
        }
        assert_equal [sorted_pairs {mconfig.num 21 mconfig.imm 7 mconfig.prot 0}] [sorted_pairs [r config get mconfig.num mconfig.imm mconfig.prot]]
        assert_error "ERR Unknown option or number of arguments for CONFIG SET - 'mconfig.nosuch'" {r config set mconfig.nosuch 1}
        assert_error [set_error MCONFIG.NUM {duplicate parameter}] {r config set mconfig.num 1 MCONFIG.NUM 2}
    }

    test "a setter's error (with and without a message) and an apply's error undo the whole CONFIG SET" {
        need_modules
        set samples [lindex [r config get maxmemory-samples] 1]
        assert_error [set_error mconfig.str {str refuses 'bad'}] {r config set maxmemory-samples 9 mconfig.num 30 mconfig.str bad}
        assert_error [set_error mconfig.str ""] {r config set mconfig.str silent}
        assert_equal [list maxmemory-samples $samples] [r config get maxmemory-samples]
        assert_equal [sorted_pairs {mconfig.num 21 mconfig.str {two words}}] [sorted_pairs [r config get mconfig.num mconfig.str]]
        lassign [r mconfig.applies] shared mem pair
        # the apply error names the config as registered, without the module's prefix
        assert_error [set_error num {apply refuses 99}] {r config set mconfig.enabled yes mconfig.num 99}
        assert_equal [sorted_pairs {mconfig.num 21 mconfig.enabled no}] [sorted_pairs [r config get mconfig.num mconfig.enabled]]
        # it ran for the new value, then again once the old one was back
        assert_equal [list [expr {$shared + 2}] $mem $pair] [r mconfig.applies]
    }

    test "a sensitive config's value is redacted in the slowlog (here; 7.0.15 ignores the flag)" {
        need_modules
        r config set slowlog-log-slower-than 0
        r slowlog reset
        r config set mconfig.secret hunter2
        r config set slowlog-log-slower-than 10000
        # a deliberate difference: 7.0.15 drops SENSITIVE when it registers a
        # module config, so its slowlog shows the value
        set shown [expr {[ours] ? "(redacted)" : "hunter2"}]
        assert_equal "config set mconfig.secret $shown" [lindex [lsearch -inline -index 3 [r slowlog get] {config set mconfig.secret *}] 3]
        assert_equal {mconfig.secret hunter2} [r config get mconfig.secret]
    }

    test "LoadConfigs again from a command resets every config to its default; registering later works" {
        need_modules
        assert_equal OK [r mconfig.loadconfigs]
        assert_equal [sorted_pairs [mconfig_defaults]] [sorted_pairs [r config get mconfig.*]]
        assert_equal OK [r mconfig.register late]
        assert_equal ERR [r mconfig.register enabled]
        assert_equal {mconfig.late no} [r config get mconfig.late]
        r config set mconfig.late yes
        assert_equal {mconfig.late yes} [r config get mconfig.late]
    }

    test "MODULE UNLOAD removes the module's configs" {
        need_modules
        r module unload mconfig
        assert_equal {} [r config get mconfig.*]
        assert_equal {} [r config get mconfig.num]
        assert_error "ERR Unknown option or number of arguments for CONFIG SET - 'mconfig.num'" {r config set mconfig.num 1}
    }

    test "MODULE LOADEX: CONFIG pairs (immutable ones too, the last of a name wins) and ARGS" {
        need_modules
        r module loadex [mconfig_path] CONFIG mconfig.num 42 CONFIG MCONFIG.STR {a b} CONFIG mconfig.imm 50 \
            CONFIG mconfig.flags {c b} CONFIG mconfig.num 43 ARGS x y
        assert_equal [sorted_pairs {mconfig.num 43 mconfig.str {a b} mconfig.imm 50 mconfig.flags {b c}}] \
            [sorted_pairs [r config get mconfig.num mconfig.str mconfig.imm mconfig.flags]]
        assert_equal {x y} [r mconfig.args]
        assert_equal {0 0 0} [r mconfig.applies] "no apply callback at load"
        r module unload mconfig
        # a string config is binary, NUL included (LOADEX and CONFIG SET), as in Redis 7.0
        r module loadex [mconfig_path] CONFIG mconfig.str "a\0b"
        assert_equal [list mconfig.str "a\0b"] [r config get mconfig.str]
        r config set mconfig.str "c\0d"
        assert_equal [list mconfig.str "c\0d"] [r config get mconfig.str]
        r module unload mconfig
        r module loadex [mconfig_path]
        assert_equal {mconfig.num 10} [r config get mconfig.num]
        assert_equal {} [r mconfig.args]
        r module unload mconfig
    }

    test "MODULE LOADEX fails on a config the module lacks, a bad value, a missing LoadConfigs, bad syntax" {
        need_modules
        foreach args {
            {CONFIG mconfig.nosuch 1}
            {CONFIG other.num 1}
            {CONFIG mconfig.num 1000}
            {CONFIG mconfig.enabled maybe}
            {CONFIG mconfig.str bad ARGS a}
            {ARGS noload}
            {CONFIG mconfig.num}
            {BOGUS 1}
        } {
            assert_error $::module_load_failed {r module loadex [mconfig_path] {*}$args}
            assert_equal {} [r module list] "LOADEX $args"
            assert_equal {} [r config get mconfig.*] "LOADEX $args"
        }
        # what the failed ones gave is gone
        r module load [mconfig_path]
        assert_equal [sorted_pairs [mconfig_defaults]] [sorted_pairs [r config get mconfig.*]]
        r module unload mconfig
        assert_error $::module_load_failed {r module load [mconfig_path] noload}
        assert_equal {} [r module list]
    }
}

start_server {tags {module} overrides {enable-module-command yes}} {
    test "MODULE LOADEX: the logs say why" {
        need_modules
        catch {r module loadex [mconfig_path] CONFIG mconfig.nosuch 1}
        wait_for_log "*Loadex configurations were not applied, likely due to invalid arguments. Unloading the module.*"
        catch {r module load [mconfig_path] noload}
        wait_for_log "*Module Configurations were not set, likely a missing LoadConfigs call. Unloading the module.*"
        catch {r module loadex [mconfig_path] CONFIG mconfig.num 1000}
        wait_for_log "*Issue during loading of configuration mconfig.num : argument must be between -5 and 100 inclusive*"
    }
}

set ::mconfig_lines {}
if {$::module_skip eq ""} {
    set ::mconfig_lines [list "mconfig.num 33" "loadmodule [file join $::module_dir mconfig.so]" \
                             "mconfig.flags c  a" "mconfig.imm 9" "mconfig.str \"x y\""]
}

start_server [list tags {module} overrides {enable-module-command yes} config_lines $::mconfig_lines] {
    test "the config file: values before and after loadmodule, words joined by one space" {
        need_modules
        assert_equal [sorted_pairs {mconfig.num 33 mconfig.flags {a c} mconfig.imm 9 mconfig.str {x y}}] \
            [sorted_pairs [r config get mconfig.num mconfig.flags mconfig.imm mconfig.str]]
    }

    test "CONFIG REWRITE writes the module's configs; a restart reads them back" {
        need_modules
        r config set mconfig.num -3 mconfig.mem 3mb mconfig.enabled no mconfig.str "q \"uoted\"\0 s" mconfig.flags none
        set before [r config get mconfig.*]
        r config rewrite
        set text [::harness::read_file [srv config_file]]
        assert_match "*mconfig.num -3*" $text
        assert_no_match "*mconfig.num 33*" $text
        restart_server
        assert_equal [sorted_pairs $before] [sorted_pairs [r config get mconfig.*]]
    }
}

start_server {tags {module} overrides {enable-module-command yes}} {
    test "CONFIG REWRITE after MODULE LOAD writes its loadmodule line (with its arguments): a restart loads it again" {
        need_modules
        assert_equal OK [r module loadex [mconfig_path] CONFIG mconfig.num 42 ARGS alpha beta]
        r config set mconfig.str rewritten
        r config rewrite
        set text [::harness::read_file [srv config_file]]
        assert_match "*\nloadmodule [mconfig_path] alpha beta\n*" $text
        assert_match "*mconfig.num 42*" $text
        restart_server
        assert_equal {mconfig.num 42 mconfig.str rewritten} [sorted_pairs [r config get mconfig.num mconfig.str]]
        set mod [lindex [r module list] 0]
        assert_equal {alpha beta} [dict get $mod args]
        # unloaded: its line goes, and so (here: Redis 7.0.15 keeps them,
        # and then cannot start) do its configs' lines
        assert_equal OK [r module unload [dict get $mod name]]
        r config rewrite
        set text [::harness::read_file [srv config_file]]
        assert_no_match "*loadmodule*" $text
        if {[ours]} {
            assert_no_match "*mconfig.*" $text
            restart_server
            assert_equal {} [r module list]
        }
    }
}

start_server {tags {module}} {
    test "start-up fails on a module config left over, or given without a value" {
        need_modules
        set left "*Module Configuration detected without loadmodule directive or no ApplyConfig call: aborting*"
        lassign [failing_with_config {"mconfig.num 5"}] status out
        assert_not_equal 0 $status
        assert_match $left $out
        lassign [failing_with_config [list "loadmodule [mconfig_path]" "mconfig.nosuch 5"]] status out
        assert_not_equal 0 $status
        assert_match $left $out
        lassign [failing_with_config [list "loadmodule [mconfig_path]" "mconfig.num 500"]] status out
        assert_not_equal 0 $status
        assert_match "*Issue during loading of configuration mconfig.num : argument must be between -5 and 100 inclusive*" $out
        lassign [failing_with_config [list "loadmodule [mconfig_path]" "mconfig.num"]] status out
        assert_not_equal 0 $status
        assert_match "*Module config specified without value*" $out
    }
}
