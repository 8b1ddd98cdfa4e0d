# functions.tcl -- FUNCTION LOAD / DELETE / FLUSH / LIST / DUMP / RESTORE /
# STATS / KILL / HELP, FCALL and FCALL_RO: library headers and
# redis.register_function (positional and named forms, flags), what a
# library's code may use while it loads, errors at load and at run time,
# payloads and dumps (DEBUG RELOAD, a restart, FUNCTION DUMP/RESTORE with
# each policy, garbage refused with nothing half loaded), propagation to the
# AOF, and busy functions (FUNCTION KILL).
#
# Every expected reply and error text is Redis 7.0.15's: the file passes
# against it (./runtest --server /usr/bin/redis-server --single
# tests/unit/functions.tcl).
#
# Design decisions:
# - Libraries are built by lib_code from a name and Lua lines, so each test
#   shows only what it is about.

proc lib_code {name args} { return "#!lua name=$name\n[join $args \n]" }

# CRC-64/Jones (reflected 0x95ac9329ac4bc9b5), bit by bit: enough for the
# few-byte payloads built below.
proc crc64 {data} {
    set crc 0
    foreach byte [split $data ""] {
        set crc [expr {$crc ^ [scan $byte %c]}]
        for {set i 0} {$i < 8} {incr i} {
            set crc [expr {$crc & 1 ? ($crc >> 1) ^ 0x95ac9329ac4bc9b5 : $crc >> 1}]
        }
    }
    return $crc
}

# A FUNCTION DUMP payload of body: RDB version 10, then its CRC-64, little-endian.
proc function_payload {body} {
    set data "$body[binary format s 10]"
    return "$data[binary format w [crc64 $data]]"
}

# An RDB string of fewer than 16384 bytes.
proc rdb_string {s} {
    set n [string length $s]
    if {$n < 64} { return "[format %c $n]$s" }
    return "[format %c [expr {0x40 | ($n >> 8)}]][format %c [expr {$n & 0xff}]]$s"
}

# A library with one function `fname` returning `value`.
proc simple_lib {name fname value} {
    return [lib_code $name "redis.register_function('$fname', function(keys, args) return '$value' end)"]
}

start_server {tags {functions}} {
    test "FUNCTION LOAD returns the library name; FCALL calls its functions" {
        r function flush
        assert_equal mylib [r function load [lib_code mylib {redis.register_function('f1', function(keys, args) return {keys[1], args[1]} end)}]]
        assert_equal {k a} [r fcall f1 1 k a]
        assert_equal {k a} [r fcall F1 1 k a]
    }

    test "Library header errors" {
        assert_error "ERR Missing library metadata" {r function load {return 1}}
        assert_error "ERR Library name was not given" {r function load "#!lua\nreturn 1"}
        assert_error "ERR Invalid library metadata" {r function load "#!lua name=x"}
        assert_error "ERR Invalid metadata value given: foo=bar" {r function load "#!lua name=l2 foo=bar\nreturn 1"}
        assert_error "ERR Library names can only contain letters, numbers, or underscores(_) and must be at least one character long" {r function load "#!lua name=l-2\nreturn 1"}
        assert_error "ERR Engine 'luax' not found" {r function load "#!luax name=l2\nreturn 1"}
    }

    test "LOAD of an existing library needs REPLACE" {
        assert_error "ERR Library 'mylib' already exists" {r function load [simple_lib mylib f1 x]}
        assert_equal mylib [r function load replace [simple_lib mylib f1 replaced]]
        assert_equal replaced [r fcall f1 0]
        assert_error "ERR Unknown option given: foo" {r function load foo [simple_lib l5 f5 x]}
    }

    test "Load errors: compile, run, nothing registered, name clashes" {
        assert_error "ERR Error compiling function: user_function:2: unexpected symbol near '+'" {r function load [lib_code l2 {return +}]}
        assert_error "ERR No functions registered" {r function load [lib_code l2 {return 1}]}
        assert_error "ERR Function f1 already exists" {r function load [simple_lib l2 f1 x]}
        assert_error "ERR Function F1 already exists" {r function load [simple_lib l2 F1 x]}
        assert_error "ERR Error registering functions: ERR Function already exists in the library" {r function load [lib_code l3 {redis.register_function('f3', function() end)} {redis.register_function('f3', function() end)}]}
        assert_error "ERR Error registering functions: ERR Library names can only contain*" {r function load [lib_code l2 {redis.register_function('f-1', function() return 1 end)}]}
        assert_equal {} [r function list libraryname l2]
    }

    test "While loading, only redis.register_function, redis.log and constants exist" {
        foreach name {error pairs string math pcall KEYS _G} {
            assert_error "ERR Error registering functions: ERR user_function:2: Script attempted to access nonexistent global variable '$name'" {r function load [lib_code probe "local x = $name"]}
        }
        assert_error "*nonexistent global variable 'call'" {r function load [lib_code probe {redis.call('ping')}]}
        assert_error "*nonexistent global variable 'setresp'" {r function load [lib_code probe {local a = redis.setresp}]}
        assert_error "ERR Error registering functions: ERR user_function:2: Attempt to modify a readonly table" {r function load [lib_code probe {x = 1}]}
        assert_equal probe [r function load [lib_code probe {local v = redis.REDIS_VERSION .. redis.LOG_WARNING} {redis.log(redis.LOG_NOTICE, 'loading probe')} {redis.register_function('probe', function() return 1 end)}]]
        r function delete probe
    }

    test "redis.register_function argument errors" {
        set cases {
            {redis.register_function('f2')} "calling redis.register_function with a single argument is only applicable to Lua table (representing named arguments)."
            {redis.register_function()} "wrong number of arguments to redis.register_function"
            {redis.register_function(1, 2)} "second argument to redis.register_function must be a function"
            {redis.register_function({}, function() end)} "first argument to redis.register_function must be a string"
            {redis.register_function{function_name='f3', callback=function() end, flags={'bad'}}} "unknown flag given"
            {redis.register_function{function_name='f3', callback=function() end, foo=1}} "unknown argument given to redis.register_function"
            {redis.register_function{function_name='f3', callback=function() end, flags='no-writes'}} "flags argument to redis.register_function must be a table representing function flags"
            {redis.register_function{callback=function() end}} "redis.register_function must get a function name argument"
            {redis.register_function{function_name='x'}} "redis.register_function must get a callback argument"
            {redis.register_function{function_name='x', callback=1}} "callback argument given to redis.register_function must be a function"
            {redis.register_function{function_name={}, callback=function() end}} "function_name argument given to redis.register_function must be a string"
        }
        foreach {lua msg} $cases {
            assert_error "ERR Error registering functions: ERR $msg" {r function load [lib_code l3 $lua]}
        }
    }

    test "Named form: description and flags (any case) show in FUNCTION LIST" {
        r function load [lib_code l4 {redis.register_function{function_name='f4', callback=function() return 4 end, description='four', flags={'NO-WRITES', 'allow-oom', 'allow-stale', 'no-cluster', 'allow-cross-slot-keys'}}}]
        set l [r function list libraryname l4]
        assert_equal 1 [llength $l]
        set lib [lindex $l 0]
        assert_equal l4 [dict get $lib library_name]
        assert_equal LUA [dict get $lib engine]
        set f [lindex [dict get $lib functions] 0]
        assert_equal f4 [dict get $f name]
        assert_equal four [dict get $f description]
        assert_equal {no-writes allow-oom allow-stale no-cluster allow-cross-slot-keys} [dict get $f flags]
        assert_equal 4 [r fcall f4 0]
    }

    test "FUNCTION LIST: WITHCODE, LIBRARYNAME patterns and argument errors" {
        set lib [lindex [r function list withcode libraryname l4] 0]
        assert_match "#!lua name=l4\n*" [dict get $lib library_code]
        assert_equal {} [r function list libraryname nomatch]
        assert_equal 1 [llength [r function list libraryname l*4]]
        assert_error "ERR library name argument was not given" {r function list withcode libraryname}
        assert_error "ERR Unknown argument foo" {r function list foo}
        set names {}
        foreach lib [r function list] { lappend names [dict get $lib library_name] }
        assert_equal {l4 mylib} [lsort $names]
    }

    test "FCALL argument errors" {
        assert_error "ERR Function not found" {r fcall nosuch 0}
        assert_error "ERR Number of keys can't be negative" {r fcall f1 -1}
        assert_error "ERR Bad number of keys provided" {r fcall f1 x}
        assert_error "ERR Number of keys can't be greater than number of args" {r fcall f1 2 a}
        assert_error "ERR wrong number of arguments for 'fcall' command" {r fcall f1}
    }

    test "Run-time errors name the function and the line" {
        r function load replace [lib_code e1 \
            {redis.register_function('ef', function(keys, args) error('x') end)} \
            {redis.register_function('ef2', function(keys, args) return redis.call('nosuch') end)} \
            {redis.register_function('ef3', function(keys, args) x = 1 end)} \
            {redis.register_function('ef4', function(keys, args) return KEYS end)} \
            {redis.register_function('ef5', function(keys, args) return redis.call('set', keys[1], args[1]) end)} \
            {redis.register_function{function_name='ef6', callback=function(keys, args) return redis.call('set', keys[1], args[1]) end, flags={'no-writes'}}} \
            {redis.register_function('ef8', function(keys, args) return redis.register_function('a', function() end) end)}]
        assert_error "ERR user_function:2: x script: ef, on @user_function:2." {r fcall ef 0}
        assert_error "ERR Unknown Redis command called from script script: ef2, on @user_function:3." {r fcall ef2 0}
        assert_error "ERR user_function:4: Attempt to modify a readonly table script: ef3, on @user_function:4." {r fcall ef3 0}
        assert_error "ERR user_function:5: Script attempted to access nonexistent global variable 'KEYS' script: ef4, on @user_function:5." {r fcall ef4 0}
        assert_error "ERR user_function:8: attempt to call field 'register_function' (a nil value) script: ef8, on @user_function:8." {r fcall ef8 0}
    }

    test "A function cannot unlock _G or a library with setmetatable" {
        r function load replace [lib_code mt \
            {redis.register_function('mt1', function() setmetatable(_G, {}) end)} \
            {redis.register_function('mt2', function() local g = getmetatable(_G) g.__index = {} end)} \
            {redis.register_function('mt3', function() return {type(getmetatable(_G).__index), type(getmetatable(redis))} end)} \
            {redis.register_function('mt4', function() setmetatable(redis) end)}]
        assert_error "ERR Attempt to modify a readonly table script: mt1, on @user_function:2." {r fcall mt1 0}
        assert_error "ERR user_function:3: Attempt to modify a readonly table script: mt2, on @user_function:3." {r fcall mt2 0}
        assert_equal {function nil} [r fcall mt3 0]
        assert_error "ERR user_function:5: bad argument #2 to 'setmetatable' (nil or table expected) script: mt4, on @user_function:5." {r fcall mt4 0}
        # while a library loads, neither exists
        assert_error "*nonexistent global variable 'setmetatable'" {r function load [lib_code probe {setmetatable(_G, {})}]}
        assert_error "*nonexistent global variable 'getmetatable'" {r function load [lib_code probe {local g = getmetatable(_G)}]}
        r function delete mt
    }

    test "FCALL_RO and no-writes functions" {
        assert_equal OK [r fcall ef5 1 k v]
        assert_error "ERR Write commands are not allowed from read-only scripts. script: ef6, on @user_function:7." {r fcall ef6 1 k v}
        assert_error "ERR Can not execute a script with write flag using \*_ro command." {r fcall_ro ef5 1 k v}
        assert_error "ERR Write commands are not allowed from read-only scripts. script: ef6*" {r fcall_ro ef6 1 k v}
        assert_equal 4 [r fcall_ro f4 0]
    }

    test "A function that may write is refused under OOM; a no-writes one runs" {
        r config set maxmemory 1
        assert_error "OOM command not allowed when used memory > 'maxmemory'." {r fcall ef5 1 k v}
        assert_equal 4 [r fcall f4 0]
        r config set maxmemory 0
    }

    test "FUNCTION DELETE and FUNCTION FLUSH" {
        assert_error "ERR Library not found" {r function delete nosuch}
        assert_error "ERR Library not found" {r function delete E1}
        assert_equal OK [r function delete e1]
        assert_error "ERR Function not found" {r fcall ef 0}
        assert_error "ERR FUNCTION FLUSH only supports SYNC|ASYNC option" {r function flush x}
        assert_equal OK [r function flush async]
        assert_equal {} [r function list]
        assert_equal OK [r function flush sync]
    }

    test "FUNCTION STATS and INFO counts" {
        r function flush
        r function load [simple_lib s1 sf1 1]
        r function load [lib_code s2 {redis.register_function('sf2', function() return 2 end)} {redis.register_function('sf3', function() return 3 end)}]
        set stats [r function stats]
        assert_equal {} [dict get $stats running_script]
        assert_equal {libraries_count 2 functions_count 3} [dict get [dict get $stats engines] LUA]
        assert_equal 3 [s number_of_functions]
        assert_equal 2 [s number_of_libraries]
        assert_morethan [s used_memory_vm_functions] 0
    }

    test "FUNCTION HELP, unknown subcommands" {
        assert_match "FUNCTION <subcommand>*" [lindex [r function help] 0]
        assert_error "ERR unknown subcommand 'foo'. Try FUNCTION HELP." {r function foo}
        assert_error "ERR wrong number of arguments for 'function|dump' command" {r function dump foo}
        assert_error "NOTBUSY No scripts in execution right now." {r function kill}
    }

    test "FUNCTION DUMP / RESTORE: APPEND (default), REPLACE, FLUSH" {
        r function flush
        r function load [simple_lib d1 df1 one]
        r function load [simple_lib d2 df2 two]
        set payload [r function dump]
        assert_error "ERR Library d? already exists" {r function restore $payload}
        assert_error "ERR Library d? already exists" {r function restore $payload append}
        assert_equal OK [r function restore $payload replace]
        r function flush
        assert_equal OK [r function restore $payload]
        assert_equal one [r fcall df1 0]
        r function load replace [simple_lib d1 df1 changed]
        r function load [simple_lib d3 df3 three]
        assert_equal OK [r function restore $payload flush]
        assert_equal one [r fcall df1 0]
        assert_error "ERR Function not found" {r fcall df3 0}
    }

    test "FUNCTION RESTORE refuses garbage and keeps what was there" {
        set payload [r function dump]
        assert_error "ERR DUMP payload version or checksum are wrong" {r function restore garbage}
        assert_error "ERR DUMP payload version or checksum are wrong" {r function restore [string range $payload 0 end-1]}
        set flipped [string replace $payload 3 3 [format %c [expr {([scan [string index $payload 3] %c] + 1) % 256}]]]
        assert_error "ERR DUMP payload version or checksum are wrong" {r function restore $flipped}
        assert_error "ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE." {r function restore $payload foo}
        assert_error "ERR unknown subcommand or wrong number of arguments for 'restore'. Try FUNCTION HELP." {r function restore $payload flush x}
        assert_equal one [r fcall df1 0]
        assert_equal 2 [llength [r function list]]
    }

    test "FUNCTION RESTORE: a good checksum over bad content restores nothing" {
        r function flush
        set good [simple_lib z zf one]
        assert_error "ERR given type is not a function" {r function restore [function_payload "\x01abc"]}
        assert_error "ERR Missing library metadata" {r function restore [function_payload "\xf5\x03abc"]}
        assert_error "ERR Invalid library metadata" {r function restore [function_payload "\xf5\x05#!lua"]}
        assert_error "ERR given type is not a function" {r function restore [function_payload "\xf5[rdb_string $good]\x01x"]}
        assert_equal {} [r function list]
        assert_equal OK [r function restore [function_payload "\xf5[rdb_string $good]"]]
        assert_equal one [r fcall zf 0]
        assert_equal OK [r function restore [function_payload ""]]
    }

    test "FUNCTION RESTORE of the release candidates' format (name, engine, description, body)" {
        r function flush
        set body {redis.register_function('pg', function() return 'pre' end)}
        assert_equal OK [r function restore [function_payload "\xf6[rdb_string prelib][rdb_string LUA]\x01[rdb_string desc][rdb_string $body]"]]
        assert_equal pre [r fcall pg 0]
        assert_equal prelib [dict get [lindex [r function list] 0] library_name]
        assert_error "ERR Failed loading engine name" {r function restore [function_payload "\xf6\x01x"]}
    }

    test "RESTORE with a function name clash restores nothing" {
        r function flush
        r function load [simple_lib c1 shared_f x]
        set payload [r function dump]
        r function flush
        r function load [simple_lib c2 shared_f y]
        r function load [simple_lib c3 other_f z]
        assert_error "ERR Function shared_f already exists" {r function restore $payload}
        assert_equal y [r fcall shared_f 0]
        assert_equal {c2 c3} [lsort [lmap l [r function list] {dict get $l library_name}]]
    }

    test "Functions survive DEBUG RELOAD, before keys" {
        r function flush
        r flushall
        r function load [simple_lib p1 pf1 persisted]
        r set key1 v
        r debug reload
        assert_equal persisted [r fcall pf1 0]
        assert_equal v [r get key1]
        # what was not saved is gone after a reload that does not save
        r save
        r function load [simple_lib p2 pf2 unsaved]
        r debug reload nosave
        assert_error "ERR Function not found" {r fcall pf2 0}
        assert_error "ERR Error trying to load the RDB dump*" {r debug reload noflush nosave}
        assert_equal OK [r debug reload noflush merge nosave]
        assert_equal persisted [r fcall pf1 0]
    } {needs:debug}

    test "FLUSHALL leaves functions alone" {
        r flushall
        assert_equal persisted [r fcall pf1 0]
    }
}

start_server {tags {functions}} {
    test "Functions survive a restart through the RDB" {
        r function load [simple_lib r1 rf1 restarted]
        r save
        restart_server
        assert_equal restarted [r fcall rf1 0]
    } {needs:restart}
}

start_server {tags {functions}} {
    test "Busy function: -BUSY names FUNCTION KILL; SCRIPT KILL can't stop it" {
        r config set busy-reply-threshold 100
        r function load [lib_code busy {redis.register_function('spin', function() local i = 0 while true do i = i + 1 end end)}]
        set rd [redis_deferring_client]
        $rd fcall spin 0
        wait_for_condition 100 20 {[catch {r ping} e] && [string match "BUSY*" $e]} else { fail "no BUSY reply" }
        assert_error "BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE." {r get x}
        assert_error "BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE." {r script kill}
        set stats [r function stats]
        assert_equal spin [dict get [dict get $stats running_script] name]
        assert_equal {fcall spin 0} [dict get [dict get $stats running_script] command]
        assert_equal OK [r function kill]
        assert_error "ERR Script killed by user with SCRIPT KILL... script: spin, on @user_function:2." {$rd read}
        assert_equal PONG [r ping]
        $rd close
    }

    test "Busy EVAL: FUNCTION KILL can't stop it" {
        set rd [redis_deferring_client]
        $rd eval {local i = 0 while true do i = i + 1 end} 0
        wait_for_condition 100 20 {[catch {r ping} e] && [string match "BUSY*" $e]} else { fail "no BUSY reply" }
        assert_error "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE." {r function kill}
        assert_error "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE." {r function stats}
        assert_equal OK [r script kill]
        catch {$rd read}
        $rd close
    }
}

start_server {tags {functions aof} overrides {appendonly yes appendfsync always aof-use-rdb-preamble no}} {
    test "FUNCTION LOAD/DELETE are propagated, FCALL's effects replay" {
        r function load [lib_code a1 {redis.register_function('af1', function(keys, args) return redis.call('incr', keys[1]) end)}]
        r fcall af1 1 counter
        r fcall af1 1 counter
        r function load [simple_lib a2 af2 two]
        r function delete a2
        r debug loadaof
        assert_equal 2 [r get counter]
        assert_equal 3 [r fcall af1 1 counter]
        assert_error "ERR Function not found" {r fcall af2 0}
    } {needs:debug}

    test "DEBUG LOADAOF starts from no functions: a library in the file loads without an error" {
        r config set propagation-error-behavior panic
        r config resetstat
        r debug loadaof
        r debug loadaof
        assert_equal 0 [s unexpected_error_replies]
        assert_equal {a1} [lmap lib [r function list] {dict get $lib library_name}]
        r config set propagation-error-behavior ignore
    } {needs:debug}

    test "A rewritten AOF starts with FUNCTION LOAD" {
        r bgrewriteaof
        wait_for_condition 100 50 {[s aof_rewrite_in_progress] == 0} else { fail "rewrite did not end" }
        restart_server
        assert_equal 4 [r fcall af1 1 counter]
    } {needs:restart}
}

start_server {tags {functions}} {
    test "A function name with a NUL byte is refused" {
        assert_error "*can only contain letters, numbers, or underscores(_)*" {r function load "#!lua name=nullib\nredis.register_function('test\\0test', function() return 1 end)"}
        assert_error "*can only contain letters, numbers, or underscores(_)*" {r function load "#!lua name=nullib\nredis.register_function{function_name='x\\0y', callback=function() return 1 end}"}
        assert_equal {} [r function list]
    }

    test "On a stale replica an allow-stale function runs, but only commands flagged stale" {
        r function load replace "#!lua name=stale\n
            redis.register_function{function_name='f1', callback=function() return 'hello' end, flags={'no-writes'}}
            redis.register_function{function_name='f2', callback=function() return 'hello' end, flags={'allow-stale', 'no-writes'}}
            redis.register_function{function_name='f3', callback=function() return redis.call('get', 'x') end, flags={'allow-stale', 'no-writes'}}
            redis.register_function{function_name='f4', callback=function() return redis.call('info', 'server') end, flags={'allow-stale', 'no-writes'}}"
        r config set replica-serve-stale-data no
        r replicaof 127.0.0.1 [::harness::find_free_port] ;# nobody there: the link stays down
        assert_error "MASTERDOWN *" {r fcall f1 0}
        assert_equal hello [r fcall f2 0]
        assert_error "ERR Can not execute the command on a stale replica*" {r fcall f3 0}
        assert_match "*redis_version*" [r fcall f4 0]
        r replicaof no one
        r config set replica-serve-stale-data yes
        r function delete stale
    }
}

