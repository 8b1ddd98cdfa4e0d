# moduleapi-shared.tcl -- the shared API of Redis 7.0 modules
# (src/module_shared.c): ExportSharedAPI, GetSharedAPI, the usedby/using
# lists of INFO's Modules section, and MODULE UNLOAD refused while another
# module uses an export, through the test module tests/modules/mshared.c
# (one .so loaded as an exporter and as users).
# Every expectation holds for Debian's Redis 7.0.15 loading the same .so:
# run the file with --server /usr/bin/redis-server to check.

source [file join $::harness_dir modules.tcl] ;# module_skip_reason, need_modules

# The usedby and using fields of a module's INFO line, as {usedby using}.
proc mshared_deps {name} {
    foreach line [split [r info modules] "\r\n"] {
        if {[regexp "^module:name=$name,.*usedby=\\\[(\[^\]\]*)\\\],using=\\\[(\[^\]\]*)\\\]" $line -> by using]} {
            return [list $by $using]
        }
    }
    return "no such module"
}

proc mshared_load {role name} {
    r module load [file join $::module_dir mshared.so] $role $name
}

start_server {tags {module} overrides {enable-module-command yes}} {
    test "ExportSharedAPI in OnLoad, GetSharedAPI from another module" {
        need_modules
        assert_equal OK [mshared_load exporter exp]
        assert_equal OK [mshared_load user use]
        assert_equal {{} {}} [mshared_deps exp]
        assert_equal 5 [r use.call mshared.add 2 3]
        assert_equal 14 [r use.call mshared.twice 7 0]
        assert_equal {use {}} [mshared_deps exp]
        assert_equal {{} exp} [mshared_deps use]
    }

    test "GetSharedAPI: an unknown name is NULL and records nothing" {
        need_modules
        assert_equal {} [r use.call nosuch.api 1 1]
        assert_equal {{} exp} [mshared_deps use]
    }

    test "ExportSharedAPI: a name taken is refused, a new one works after OnLoad" {
        need_modules
        assert_equal 0 [r exp.export mshared.add twice]
        assert_equal 0 [r use.export mshared.add twice]
        assert_equal 5 [r use.call mshared.add 2 3]
        assert_equal 1 [r use.export use.api twice]
        assert_equal 8 [r exp.call use.api 4 0]
        # each now uses the other
        assert_equal {use use} [mshared_deps exp]
        assert_equal {exp exp} [mshared_deps use]
    }

    test "MODULE UNLOAD is refused while another module uses an export" {
        need_modules
        set refusal {ERR Error unloading module: the module exports APIs used by other modules. Please unload them first and try again}
        assert_error $refusal {r module unload exp}
        assert_error $refusal {r module unload use}
        assert_equal 5 [r use.call mshared.add 2 3]
    }

    test "A second exporter fails to load and leaves nothing behind" {
        need_modules
        assert_error {*Error loading the extension*} {mshared_load exporter exp2}
        assert_equal {no such module} [mshared_deps exp2]
        assert_equal 5 [r use.call mshared.add 2 3]
    }
}

start_server {tags {module} overrides {enable-module-command yes}} {
    test "Unloading the user frees the exporter; its exports go with it" {
        need_modules
        assert_equal OK [mshared_load exporter exp]
        assert_equal OK [mshared_load user use]
        assert_equal OK [mshared_load user other]
        assert_equal 5 [r use.call mshared.add 2 3]
        assert_equal 5 [r use.call mshared.add 2 3]
        assert_equal 6 [r other.call mshared.twice 3 0]
        assert_equal {use|other {}} [mshared_deps exp]
        assert_equal OK [r module unload use]
        assert_equal {other {}} [mshared_deps exp]
        assert_error {*exports APIs used by other modules*} {r module unload exp}
        assert_equal OK [r module unload other]
        assert_equal {{} {}} [mshared_deps exp]
        assert_equal OK [r module unload exp]
        assert_equal OK [mshared_load user use]
        assert_equal {} [r use.call mshared.add 2 3]
        assert_equal 1 [r use.export mshared.add twice]
        assert_equal 4 [r use.call mshared.add 2 0]
        # a module using its own export depends on itself, as in Redis 7.0
        assert_equal {use use} [mshared_deps use]
        assert_error {*exports APIs used by other modules*} {r module unload use}
    }
}
