# moduleapi-info.tcl -- the Info API of Redis 7.0 modules (src/module_info.c):
# the sections a module adds to INFO and which INFO arguments bring them,
# INFO's "Modules" list, the crash report's module sections, and
# GetServerInfo with its readers, through the test module
# tests/modules/minfo.c. The last block loads the same .so into Debian's
# Redis 7.0.15 and compares the two servers' INFO text; run the file with
# --server /usr/bin/redis-server to check every other expectation there too.

source [file join $::harness_dir modules.tcl] ;# module_skip_reason, need_modules

proc minfo_path {} { return [file join $::module_dir minfo.so] }

# The module's three sections as INFO prints them (calls is the callback's
# count, which changes from one INFO to the next).
proc minfo_sections {calls} {
    return [join [list \
        "# minfo" "minfo_calls:$calls" "minfo_neg:-2" "minfo_uneg:18446744073709551614" "" \
        "# minfo_numbers" "minfo_pi:3.25" "minfo_big:1.0000000000000001e+300" "minfo_str:hello" \
        "minfo_cstr:a b" "minfo_pair:one=1,two=2.5,three=x" "" \
        "# minfo_dicts" "minfo_first:k=v" "minfo_second:n=-7" "minfo_empty:" \
        "minfo_odd_na_me:x=1" "minfo_last:u=18446744073709551615" ""] "\r\n"]
}

# How many times the callback has run: one more INFO asks it.
proc minfo_calls {{client r}} {
    regexp {minfo_calls:(\d+)} [{*}$client info minfo] -> n
    return $n
}

# The section titles of an INFO text, in order.
proc info_titles {text} {
    return [regexp -all -inline -line {^# \S+} [string map {"\r" ""} $text]]
}

# The value of field in an INFO text.
proc info_value {text field} {
    if {[regexp "(?:^|\n)$field:(\[^\r\n\]*)" $text -> v]} { return $v }
    return ""
}

# An INFO text reduced to what does not depend on the server's state: the
# titles of every section, then the text of the "Modules" section and of the
# module's own ones (the callback's count masked).
proc info_module_view {text} {
    set out [list [info_titles $text]]
    foreach block [split [string map [list "\r\n\r\n" \x00] $text] \x00] {
        if {[regexp {^# (Modules|minfo)} $block]} {
            lappend out [regsub {minfo_calls:\d+} $block {minfo_calls:N}]
        }
    }
    return $out
}

set ::minfo_rc_all {0 0 0 0 1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0}
set ::minfo_module_line "module:name=minfo,ver=1,api=1,filters=0,usedby=\[\],using=\[\],options=\[\]"

start_server {tags {module} overrides {enable-module-command yes}} {
    test "INFO <module>: its sections in order, fields prefixed with its name, dict fields as k=v,k=v" {
        # ('#', ':' and line ends in a dict's name become '_', as in 7.0.15)
        need_modules
        r module load [minfo_path]
        assert_equal [minfo_sections 1] [r info minfo]
        # the return codes: a NULL section name is the module's bare name, an
        # EndDictField with no dict open is ERR, everything else OK
        assert_equal $::minfo_rc_all [r minfo.lastrc]
    }

    test "INFO <module>_<section> brings that section only, case-insensitively; the others answer ERR" {
        need_modules
        set text [r info minfo_dicts]
        assert_equal [info_titles $text] {{# minfo_dicts}}
        assert_equal "# minfo_dicts\r\nminfo_first:k=v\r\nminfo_second:n=-7\r\nminfo_empty:\r\nminfo_odd_na_me:x=1\r\nminfo_last:u=18446744073709551615\r\n" $text
        # the first two sections and all their fields refused, then all OK
        assert_equal [concat [lrepeat 15 1] [lrepeat 12 0]] [r minfo.lastrc]
        set text [r info MINFO_NUMBERS]
        assert_equal [info_titles $text] {{# minfo_numbers}}
        assert_equal [concat [lrepeat 5 1] [lrepeat 10 0] [lrepeat 12 1]] [r minfo.lastrc]
    }

    test "a name nothing has gives no section, yet the callback runs and is refused everything" {
        need_modules
        assert_equal {} [r info minfo_nosuch]
        assert_equal [lrepeat 27 1] [r minfo.lastrc]
        assert_equal {} [r info nosuch]
    }

    test "INFO, INFO default, INFO all and INFO <built-in> never call the module's callback" {
        need_modules
        set before [minfo_calls]
        foreach args {{} default all ALL server {server clients} {all all} {default server} module_list} {
            set text [r info {*}$args]
            assert_no_match "*# minfo*" $text "INFO $args"
        }
        assert_equal [expr {$before + 1}] [minfo_calls]
    }

    test "INFO all next to another name calls the callback (as 7.0.15), which emits nothing for it" {
        need_modules
        foreach args {{all default} {server all} {all module_list}} {
            set before [minfo_calls]
            set text [r info {*}$args]
            assert_no_match "*# minfo*" $text "INFO $args"
            assert_equal [lrepeat 27 1] [r minfo.lastrc]
            assert_equal [expr {$before + 2}] [minfo_calls] "INFO $args"
        }
    }

    test "INFO modules: the Modules list, then every module section" {
        need_modules
        set text [r info modules]
        assert_equal {{# Modules} {# minfo} {# minfo_numbers} {# minfo_dicts}} [info_titles $text]
        assert_equal "# Modules\r\n$::minfo_module_line\r\n\r\n" [string range $text 0 [string length "# Modules\r\n$::minfo_module_line\r\n\r\n"]-1]
        assert_equal [minfo_sections [info_value $text minfo_calls]] [string range $text [string first "# minfo\r\n" $text] end]
        assert_equal $::minfo_rc_all [r minfo.lastrc]
    }

    test "INFO everything: every built-in section, then the module's; default and all list the module" {
        need_modules
        set titles [info_titles [r info everything]]
        assert_equal {{# minfo} {# minfo_numbers} {# minfo_dicts}} [lrange $titles end-2 end]
        assert_equal [lrange $titles 0 end-3] [info_titles [r info all]]
        assert_equal [info_titles [r info all]] [info_titles [r info all minfo_nosuch]]
        assert_equal $::minfo_module_line "module:[info_value [r info] module]"
    }

    test "a built-in section next to a module's; all next to the module's name" {
        need_modules
        assert_equal {{# Server} {# minfo_dicts}} [info_titles [r info server minfo_dicts]]
        set titles [info_titles [r info all minfo]]
        assert_equal {{# minfo} {# minfo_numbers} {# minfo_dicts}} [lrange $titles end-2 end]
        assert_equal {{# Modules} {# minfo_numbers}} [info_titles [r info module_list minfo_numbers]]
    }

    test "GetServerInfo: strings and numbers of the server section, as INFO shows them" {
        need_modules
        set server [r info server]
        assert_equal [info_value $server redis_version] [r minfo.get server redis_version s]
        assert_equal [info_value $server redis_version] [r minfo.get server redis_version c]
        assert_equal [list [info_value $server process_id] 0] [r minfo.get server process_id i]
        assert_equal [list [info_value $server process_id] 0] [r minfo.get server process_id u]
        assert_equal [list [info_value $server hz] 0] [r minfo.get server hz d]
        assert_equal [list [info_value $server tcp_port] 0] [r minfo.get server tcp_port i]
        assert_equal {0 0} [r minfo.get stats expired_keys i]
    }

    test "GetServerInfo: a missing or non-numeric field is NULL, or 0 with out_err ERR" {
        need_modules
        assert_equal {} [r minfo.get server nosuch s]
        assert_equal {} [r minfo.get server nosuch c]
        assert_equal {0 1} [r minfo.get server nosuch i]
        assert_equal {0 1} [r minfo.get server nosuch u]
        assert_equal {0 1} [r minfo.get server nosuch d]
        assert_equal {0 1} [r minfo.get server redis_version i]
        assert_equal {0 1} [r minfo.get server redis_version u]
        assert_equal {0 1} [r minfo.get server redis_version d]
        # a field of another section than the one asked for is not there
        assert_equal {} [r minfo.get server used_memory c]
        # "100.00%" is not a double
        assert_equal {0 1} [r minfo.get memory used_memory_peak_perc d]
        assert_equal {} [r minfo.get nosuch redis_version c]
    }

    test "GetServerInfo: a NULL section is INFO's default; a module's section reads as the server's" {
        need_modules
        assert_equal [r minfo.get server redis_version c] [r minfo.get - redis_version c]
        assert_equal [list [info_value [r info stats] expired_keys] 0] [r minfo.get - expired_keys i]
        assert_equal {} [r minfo.get - minfo_neg c]
        assert_equal {-2 0} [r minfo.get minfo minfo_neg i]
        assert_equal {0 1} [r minfo.get minfo minfo_neg u]
        assert_equal {18446744073709551614 0} [r minfo.get minfo minfo_uneg u]
        assert_equal {0 1} [r minfo.get minfo minfo_uneg i]
        assert_equal {3.25 0} [r minfo.get minfo_numbers minfo_pi d]
        assert_equal {1.0000000000000001e+300 0} [r minfo.get minfo_numbers minfo_big d]
        assert_equal {n=-7} [r minfo.get minfo_dicts minfo_second c]
        assert_equal {-2 0} [r minfo.get everything minfo_neg i]
    }

    test "GetServerInfo under AutoMemory: the context frees the data and the field's string" {
        need_modules
        set before [info_value [r info memory] used_memory]
        for {set j 0} {$j < 200} {incr j} {
            assert_equal [r minfo.get server redis_version c] [r minfo.getauto server redis_version]
        }
        assert_equal {} [r minfo.getauto server nosuch]
        # a leak of ~100 fields per call would show as a couple of MB
        assert_range [info_value [r info memory] used_memory] 0 [expr {$before + 1000000}]
    }

    test "MODULE UNLOAD: the sections and the Modules line go with the module" {
        need_modules
        assert_equal OK [r module unload minfo]
        assert_equal {} [r info minfo]
        assert_equal {{# Modules}} [info_titles [r info modules]]
        assert_equal {} [info_value [r info] module]
    }
}

start_server {tags {module debug crash external:skip} overrides {enable-module-command yes enable-debug-command yes}} {
    test "the crash report ends with the modules' sections, for_crash_report set" {
        need_modules
        r module load [minfo_path]
        set pid [srv pid]
        set rd [redis_deferring_client]
        $rd debug segfault
        $rd flush
        if {![::harness::wait_pid_exit $pid [expr {1000 * [::harness::scaled 30]}]]} { fail "DEBUG SEGFAULT did not kill the server" }
        ::harness::dead_servers_report
        catch {$rd close}
        set log [string map {"\r" ""} [::harness::read_file [srv stdout]]]
        assert_match "*------ MODULES INFO OUTPUT ------\n# minfo\nminfo_calls:*# minfo_dicts\n*# minfo_crash\nminfo_reason:crash\n*" $log
    }
}

start_server {tags {module} overrides {enable-module-command yes}} {
    test "side by side with Redis 7.0.15: the same INFO text for every way of asking, the same GetServerInfo answers" {
        need_modules
        if {![ours]} { skip "the server under test is Redis itself" }
        if {[reference_server] eq ""} { skip "no /usr/bin/redis-server (Debian's redis-server 7.0.15) to compare with" }
        r module load [minfo_path]
        start_reference_server {enable-module-command yes} {
            r module load [minfo_path]
            foreach args {minfo modules minfo_dicts MINFO_NUMBERS everything all {} default
                          {server minfo_dicts} {all minfo} {default minfo} minfo_nosuch nosuch {module_list minfo}
                          {all default} {all server} {all all} {default server} module_list} {
                set calls_theirs [minfo_calls r]
                set theirs [r info {*}$args]
                set rc_theirs [r minfo.lastrc]
                set calls_theirs [expr {[minfo_calls r] - $calls_theirs}]
                set calls_mine [minfo_calls {r -1}]
                set mine [r -1 info {*}$args]
                set rc_mine [r -1 minfo.lastrc]
                set calls_mine [expr {[minfo_calls {r -1}] - $calls_mine}]
                assert_equal $calls_theirs $calls_mine "how many times INFO $args called the callback"
                assert_equal [info_module_view $theirs] [info_module_view $mine] "INFO $args"
                assert_equal $rc_theirs $rc_mine "the callback's return codes after INFO $args"
            }
            foreach q {{server redis_version s} {- redis_version c} {server hz d} {server nosuch i}
                       {server nosuch s} {server redis_version u} {minfo minfo_uneg u} {minfo minfo_uneg i}
                       {minfo minfo_neg i} {minfo_numbers minfo_big d} {minfo_dicts minfo_second c}
                       {memory used_memory_peak_perc d} {everything minfo_neg i} {stats expired_keys u}} {
                assert_equal [r minfo.get {*}$q] [r -1 minfo.get {*}$q] "MINFO.GET $q"
            }
        }
    }
}
