# module.tcl -- MODULE without a module to load (src/module.c): LIST is
# empty, HELP lists the subcommands, and LOAD, LOADEX and UNLOAD are
# "protected" (refused unless enable-module-command allows them, before
# authentication and when queued in MULTI) and, when allowed, fail on a
# missing file as Redis 7.0 does. Loading real modules: moduleapi.tcl. Also
# checked against the reference server (./runtest --server
# /usr/bin/redis-server).

set ::module_not_allowed "ERR MODULE command not allowed. If the enable-module-command option is set to \"local\", you can run it from a local connection, otherwise you need to set this option in the configuration file, and then restart the server."
set ::module_load_failed "ERR Error loading the extension. Please check the server logs."

start_server {tags {module}} {
    test "MODULE LIST: no modules, in RESP2 and RESP3" {
        assert_equal {} [r module list]
        r hello 3
        assert_equal {} [r module list]
        r hello 2
    }

    test "MODULE HELP lists the subcommands" {
        set help [r module help]
        assert_equal "MODULE <subcommand> \[<arg> \[value\] \[opt\] ...\]. Subcommands are:" [lindex $help 0]
        foreach sub {LIST {LOAD <path> [<arg> ...]} {UNLOAD <name>} HELP} {
            assert {[lsearch -exact $help $sub] >= 0}
        }
        assert_equal 11 [llength $help]
    }

    test "MODULE: arity and unknown subcommands are the dispatcher's errors" {
        assert_error "ERR wrong number of arguments for 'module|list' command" {r module list x}
        assert_error "ERR wrong number of arguments for 'module|load' command" {r module load}
        assert_error "ERR wrong number of arguments for 'module|unload' command" {r module unload a b}
        assert_error "ERR wrong number of arguments for 'module|help' command" {r module help x}
        assert_error "ERR unknown subcommand 'nope'. Try MODULE HELP." {r module nope}
        assert_error "ERR wrong number of arguments for 'module' command" {r module}
    }

    test "MODULE LOAD, LOADEX and UNLOAD are refused while enable-module-command is no" {
        assert_error $::module_not_allowed {r module load /nonexistent/module.so}
        assert_error $::module_not_allowed {r module loadex /nonexistent/module.so CONFIG a b ARGS x}
        assert_error $::module_not_allowed {r module unload anything}
        assert_error "ERR*immutable*" {r config set enable-module-command yes}
        assert_equal PONG [r ping]
    }

    test "A refused MODULE LOAD aborts the transaction it was queued in" {
        r multi
        r set k v
        assert_error $::module_not_allowed {r module load /x.so}
        assert_error "EXECABORT*" {r exec}
        assert_equal 0 [r exists k]
    }

    test "MODULE LOAD is refused before authentication is asked for; LIST needs it" {
        r config set requirepass secret
        set c [redis_client]
        assert_error $::module_not_allowed {$c module load /x.so}
        assert_error "NOAUTH*" {$c module list}
        $c close
        r auth secret
        r config set requirepass ""
    }

    test "MODULE cannot run from a script" {
        assert_error "*not allowed from script*" {r eval {return redis.call('module', 'list')} 0}
    }
}

start_server {tags {module} overrides {enable-module-command yes}} {
    test "MODULE LOAD and LOADEX, allowed, fail with Redis's error and log why" {
        assert_error $::module_load_failed {r module load /nonexistent/module.so}
        assert_error $::module_load_failed {r module load /nonexistent/module.so arg1 arg2}
        assert_error $::module_load_failed {r module loadex /nonexistent/module.so CONFIG name value ARGS a b}
        assert_equal {} [r module list]
    }

    test "MODULE UNLOAD of a module not loaded" {
        assert_error "ERR Error unloading module: no such module with that name" {r module unload mymodule}
        assert_equal PONG [r ping]
    }
}

start_server {tags {module} overrides {enable-module-command local}} {
    test "MODULE with enable-module-command local is allowed over loopback" {
        assert_error $::module_load_failed {r module load /nonexistent/module.so}
    }
}
