# scripting-debug.tcl -- the Lua debugger: SCRIPT DEBUG YES|SYNC|NO and its
# refusals, then EVAL sessions driven command by command (step, continue,
# list, whole, print, break, trace, eval, redis, maxlen, abort, help),
# redis.debug() and redis.breakpoint(), bad input (unknown commands, NUL
# bytes, protocol errors, a command of 101 arguments), the end of a session
# ("<endsession>", the EVAL's reply, the connection closed), a forked
# session's writes rolled back and a synchronous one's kept, and the server
# serving other clients during and after a forked session.
#
# Every expected line is Redis 7.0.15's: the file passes against it
# (./runtest --server /usr/bin/redis-server --single unit/scripting-debug),
# except the tests tagged our-only (skipped with --tags -our-only).
#
# Design decisions:
# - Each session has a client of its own (debug_client): the server closes
#   the connection when the session ends, as Redis does, in both modes.
# - The debugger replies with arrays of status lines, which the client
#   returns as Tcl lists; the checks compare whole lines.

# A test that fails in the middle of a sync session would leave the server
# waiting for its client: each new session first closes the ones left open.
set ::debug_clients {}

proc close_sessions {} {
    foreach old $::debug_clients { catch {$old close} }
    set ::debug_clients {}
}

# A test whose sessions are closed first, even if an earlier one failed.
proc ldb_test {name body {tags {}}} {
    uplevel 1 [list test $name "close_sessions\n$body" $tags]
}

proc debug_client {mode} {
    close_sessions
    set c [redis_client]
    set ::debug_clients [list $c]
    assert_equal OK [$c script debug $mode]
    return $c
}

# The end of a session: "<endsession>" (after what the last command logged),
# the EVAL's reply, then the connection closed by the server.
proc end_session {c command {logged {}}} {
    assert_equal [concat $logged [list <endsession>]] [$c {*}$command]
    set reply [$c read]
    assert_error "*" {$c read}
    $c close
    return $reply
}

proc end_session_with_error {c command pattern} {
    assert_equal {<endsession>} [$c {*}$command]
    assert_error $pattern {$c read}
    $c close
}

set ::src "local a = 1\nredis.call('set', KEYS\[1\], ARGV\[1\])\nlocal t = {1, 2, {x = 3}}\nredis.debug('hello', a, t)\nredis.breakpoint()\nlocal b = redis.call('get', KEYS\[1\])\nreturn b"

set ::fsrc "local function f(a, b)\n  local c = a .. b\n  return c\nend\nlocal r = f('x', 'y')\nreturn r"

start_server {tags {scripting ldb}} {
    ldb_test "SCRIPT DEBUG argument errors" {
        assert_error "ERR Use SCRIPT DEBUG YES/SYNC/NO" {r script debug maybe}
        assert_error "ERR wrong number of arguments for 'script|debug' command" {r script debug yes x}
        assert_error "ERR wrong number of arguments for 'script|debug' command" {r script debug}
        assert_equal OK [r script debug no]
    }

    ldb_test "SCRIPT DEBUG inside MULTI, in a pipeline, from a script" {
        set c [redis_client]
        assert_equal OK [$c multi]
        assert_equal QUEUED [$c script debug yes]
        assert_error "*SCRIPT DEBUG must be called outside a pipeline*" {$c exec}
        $c write "*1\r\n\$4\r\nPING\r\n*3\r\n\$6\r\nSCRIPT\r\n\$5\r\nDEBUG\r\n\$4\r\nSYNC\r\n"
        $c flush
        assert_equal PONG [$c read]
        assert_error "ERR SCRIPT DEBUG must be called outside a pipeline" {$c read}
        assert_error "ERR This Redis command is not allowed from script*" {$c eval {return redis.call('script', 'debug', 'yes')} 0}
        # nothing was enabled: a plain EVAL
        assert_equal 1 [$c eval {return 1} 0]
        $c close
    }

    ldb_test "EVALSHA is refused while debugging; SCRIPT DEBUG NO turns it off" {
        set c [debug_client sync]
        set sha [$c script load {return 'x'}]
        assert_error "ERR Please use EVAL instead of EVALSHA for debugging" {$c evalsha $sha 0}
        assert_error "ERR Please use EVAL instead of EVALSHA for debugging" {$c evalsha_ro $sha 0}
        assert_error "NOSCRIPT *" {$c evalsha abc 0}
        assert_equal OK [$c script debug no]
        assert_equal x [$c evalsha $sha 0]
        assert_equal x [$c eval {return 'x'} 0]
        $c close
    }

    ldb_test "sync session: stops, steps, logs redis.call, keeps its writes" {
        r del foo
        set c [debug_client sync]
        assert_equal {{* Stopped at 1, stop reason = step over} {-> 1   local a = 1}} [$c eval $::src 1 foo bar]
        assert_equal {{* Stopped at 2, stop reason = step over} {-> 2   redis.call('set', KEYS[1], ARGV[1])}} [$c s]
        assert_equal {{<redis> set foo bar} {<reply> "+OK"} {* Stopped at 3, stop reason = step over} {-> 3   local t = {1, 2, {x = 3}}}} [$c n]
        assert_equal {{<value> a = 1}} [$c p]
        assert_equal {{<value> 1}} [$c print a]
        assert_equal {{<value> {"foo"}}} [$c p KEYS]
        assert_equal {{<value> {"bar"}}} [$c p ARGV]
        assert_equal {{No such variable.}} [$c p nosuch]
        assert_equal {{<debug> line 4: "hello", 1, {1; 2; {["x"]=3}}} {* Stopped at 6, stop reason = redis.breakpoint() called} {-> 6   local b = redis.call('get', KEYS[1])}} [$c c]
        assert_equal bar [end_session $c c]
        assert_equal bar [r get foo]
    }

    ldb_test "forked session: its writes are rolled back, the server serves meanwhile" {
        r set foo old
        set c [debug_client yes]
        assert_equal {{* Stopped at 1, stop reason = step over} {-> 1   local a = 1}} [$c eval $::src 1 foo new]
        assert_equal {{* Stopped at 2, stop reason = step over} {-> 2   redis.call('set', KEYS[1], ARGV[1])}} [$c s]
        assert_equal {{<redis> set foo new} {<reply> "+OK"} {* Stopped at 3, stop reason = step over} {-> 3   local t = {1, 2, {x = 3}}}} [$c s]
        # the child holds the session; the server goes on
        assert_equal PONG [r ping]
        assert_equal old [r get foo]
        assert_equal {{<retval> "new"}} [$c e {redis.call('get', KEYS[1])}]
        assert_equal {{<debug> line 4: "hello", 1, {1; 2; {["x"]=3}}} {* Stopped at 6, stop reason = redis.breakpoint() called} {-> 6   local b = redis.call('get', KEYS[1])}} [$c continue]
        assert_equal new [end_session $c continue]
        assert_equal old [r get foo]
        assert_equal PONG [r ping]
    }

    ldb_test "forked sessions' children are reaped" {
        set c [debug_client yes]
        $c eval {return 1} 0
        assert_equal 1 [end_session $c c]
        set pid [srv pid]
        if {$pid ne ""} {
            wait_for_condition 50 100 {
                [catch {exec ps -o pid= --ppid $pid} out] || [string trim $out] eq ""
            } else {
                fail "a debugging child was not reaped: $out"
            }
        }
        assert_equal PONG [r ping]
    } {external:skip}

    ldb_test "help" {
        set c [debug_client sync]
        $c eval {return 1} 0
        set help [$c h]
        assert_equal 30 [llength $help]
        assert_equal "Redis Lua debugger help:" [lindex $help 0]
        assert_equal "\[s\]tep               Run current line and stop again." [lindex $help 2]
        assert_equal "" [lindex $help 25]
        assert_equal "                     next line of code." [lindex $help end]
        assert_equal $help [$c help]
        end_session $c c
    }

    ldb_test "list, whole" {
        set c [debug_client sync]
        $c eval $::src 1 foo bar
        $c s
        $c s
        assert_equal {{   1   local a = 1} {   2   redis.call('set', KEYS[1], ARGV[1])} {-> 3   local t = {1, 2, {x = 3}}} {   4   redis.debug('hello', a, t)} {   5   redis.breakpoint()} {   6   local b = redis.call('get', KEYS[1])} {   7   return b}} [$c l]
        assert_equal {{   2   redis.call('set', KEYS[1], ARGV[1])} {-> 3   local t = {1, 2, {x = 3}}} {   4   redis.debug('hello', a, t)}} [$c l 3 1]
        assert_equal {{   6   local b = redis.call('get', KEYS[1])}} [$c list 6 0]
        assert_equal {{-> 3   local t = {1, 2, {x = 3}}}} [$c list 0 0]
        assert_equal 7 [llength [$c w]]
        assert_equal [$c w] [$c whole]
        assert_equal {{<debug> line 4: "hello", 1, {1; 2; {["x"]=3}}} {* Stopped at 6, stop reason = redis.breakpoint() called} {-> 6   local b = redis.call('get', KEYS[1])}} [$c c]
        assert_equal bar [end_session $c c]
    }

    ldb_test "break: add, list, remove, stop at one" {
        set c [debug_client sync]
        $c eval $::fsrc 0
        assert_equal {{No breakpoints set. Use 'b <line>' to add one.}} [$c b]
        assert_equal {{   2     local c = a .. b} {  #3     return c} {-> 4   end}} [$c b 3]
        assert_equal {{Wrong line number.}} [$c b 99]
        assert_equal {{Invalid argument:'x'}} [$c break x]
        assert_equal {{   1   local function f(a, b)} {  #2     local c = a .. b} {  #3     return c} {Wrong line number.}} [$c b 2 3]
        assert_equal {{2 breakpoints set:} {  #3     return c} {  #2     local c = a .. b}} [$c b]
        assert_equal {{Breakpoint removed.}} [$c b -3]
        assert_equal {{No breakpoint in the specified line.}} [$c b -3]
        assert_equal {{1 breakpoints set:} {  #2     local c = a .. b}} [$c b]
        assert_equal {{All breakpoints removed.}} [$c b 0]
        assert_equal {{-> 4   end} {  #5   local r = f('x', 'y')} {   6   return r}} [$c b 5]
        assert_equal {{* Stopped at 5, stop reason = break point} {->#5   local r = f('x', 'y')}} [$c c]
        assert_equal xy [end_session $c c]
    }

    ldb_test "removing a breakpoint keeps the others" {
        set c [debug_client sync]
        $c eval "local x = 1\nx = 2\nx = 3\nx = 4\nreturn x" 0
        $c b 2 3 4
        assert_equal {{Breakpoint removed.}} [$c b -2]
        assert_equal {{2 breakpoints set:} {  #3   x = 3} {  #4   x = 4}} [$c b]
        assert_equal {{* Stopped at 3, stop reason = break point} {->#3   x = 3}} [$c c]
        assert_equal {{* Stopped at 4, stop reason = break point} {->#4   x = 4}} [$c c]
        assert_equal 4 [end_session $c c]
    } {our-only} ;# Redis 7.0 moves the others as bytes: it shows "#3" twice here

    ldb_test "trace and print inside a function" {
        set c [debug_client sync]
        $c eval $::fsrc 0
        $c s
        $c s
        assert_equal {{* Stopped at 3, stop reason = step over} {-> 3     return c}} [$c s]
        assert_equal {{In f:} {-> 3     return c} {From top level:} {   5   local r = f('x', 'y')}} [$c t]
        assert_equal {{<value> a = "x"} {<value> b = "y"} {<value> c = "xy"}} [$c p]
        assert_equal {{<value> "x"}} [$c p a]
        assert_equal {{<value> a = "x"} {<value> b = "y"} {<value> c = "xy"}} [$c p a b c]
        assert_equal xy [end_session $c c]
    }

    ldb_test "print with no locals" {
        set c [debug_client sync]
        $c eval {return 1} 0
        assert_equal {{No local variables in the current context.}} [$c p]
        end_session $c c
    }

    ldb_test "eval: expressions, statements, errors" {
        set c [debug_client sync]
        $c eval $::fsrc 0
        assert_equal {{<retval> 2}} [$c e 1+1]
        assert_equal {{<retval> {1; 2}}} [$c eval {{1,2}}]
        assert_equal {{<retval> {["k"]="v"}}} [$c e "{k='v'}"]
        assert_equal {{<retval> nil}} [$c e {local x = 1}]
        assert_equal {{<retval> true}} [$c e true]
        assert_equal {{<error> ldb_eval:1: boom}} [$c e {error('boom')}]
        assert_equal {{<error> ldb_eval:1: unexpected symbol near '<eof>'}} [$c e nosuch(]
        assert_equal {{<error> ldb_eval:1: Script attempted to access nonexistent global variable 'x'}} [$c e x]
        assert_equal {{<retval> "a b"}} [$c e {'a} {b'}]
        assert_equal xy [end_session $c c]
    }

    ldb_test "eval: an error table from redis.call is shown by its message" {
        set c [debug_client sync]
        $c eval {return 1} 0
        assert_equal {{<error> ERR Unknown Redis command called from script}} [$c e {redis.call('nosuch')}]
        assert_equal {{<error> ldb_eval:1: Attempt to modify a readonly table}} [$c e {redis = nil}]
        assert_equal 1 [end_session $c c]
    } {our-only}

    ldb_test "redis: commands, replies, errors" {
        r del k
        r rpush list a b
        set c [debug_client sync]
        $c eval {return 1} 0
        assert_equal {{<redis> set k v} {<reply> "+OK"}} [$c r set k v]
        assert_equal {{<redis> get k} {<reply> "v"}} [$c redis get k]
        assert_equal {{<redis> lrange list 0 -1} {<reply> ["a","b"]}} [$c r lrange list 0 -1]
        assert_equal {{<redis> lrange nolist 0 -1} {<reply> []}} [$c r lrange nolist 0 -1]
        assert_equal {{<redis> get nokey} {<reply> NULL}} [$c r get nokey]
        assert_equal {{<redis> incr counter-ldb} {<reply> 1}} [$c r incr counter-ldb]
        assert_equal {{<redis> nosuchcmd x} {<error> Unknown Redis command called from script}} [$c r nosuchcmd x]
        assert_equal {{<redis> get} {<error> Wrong number of args calling Redis command from script}} [$c r get]
        assert_equal {{<redis> lpush k x} {<error> -WRONGTYPE Operation against a key holding the wrong kind of value} {<reply> "-WRONGTYPE Operation against a key holding the wrong kind of value"}} [$c r lpush k x]
        assert_equal {{<redis> a b c d e f g h i j ... (2 more)} {<error> Unknown Redis command called from script}} [$c r a b c d e f g h i j k l m]
        assert_equal {{<error> Unknown Redis Lua debugger command or wrong number of arguments.}} [$c r]
        assert_equal 1 [end_session $c c]
        assert_equal v [r get k]
    }

    ldb_test "maxlen: replies cut with a hint, 60 at least, 0 for none" {
        r set big [string repeat z 300]
        set c [debug_client sync]
        $c eval {return 1} 0
        set out [$c r get big]
        assert_equal "<reply> \"[string repeat z 247] ..." [lindex $out 1]
        assert_equal {<hint> The above reply was trimmed. Use 'maxlen 0' to disable trimming.} [lindex $out 2]
        assert_equal 2 [llength [$c r get big]] ;# the hint only once
        assert_equal {{<value> replies are truncated at 256 bytes.}} [$c m]
        assert_equal {{<value> replies are truncated at 60 bytes.}} [$c m 10]
        assert_equal "<reply> \"[string repeat z 51] ..." [lindex [$c r get big] 1]
        assert_equal {{<value> replies are truncated at 100 bytes.}} [$c maxlen 100]
        assert_equal {{<value> replies are unlimited.}} [$c m 0]
        assert_equal "<reply> \"[string repeat z 300]\"" [lindex [$c r get big] 1]
        assert_equal 1 [end_session $c c]
    }

    ldb_test "abort: the script fails, a sync session keeps what it wrote" {
        r del ab
        set c [debug_client sync]
        $c eval "redis.call('set', 'ab', '1')\nreturn 1" 0
        $c s
        end_session_with_error $c a "ERR script aborted for user request script: *, on @user_script:2."
        assert_equal 1 [r get ab]
        set c [debug_client yes]
        $c eval "redis.call('set', 'ab', '2')\nreturn 1" 0
        $c s
        end_session_with_error $c abort "ERR script aborted for user request script: *, on @user_script:2."
        assert_equal 1 [r get ab]
    }

    ldb_test "errors of a stepped line are logged" {
        set c [debug_client sync]
        $c eval "local ok = redis.pcall('nosuch')\nreturn 1" 0
        assert_equal {{<redis> nosuch} {<error> Unknown Redis command called from script} {* Stopped at 2, stop reason = step over} {-> 2   return 1}} [$c s]
        assert_equal 1 [end_session $c c]
    }

    ldb_test "redis.debug and redis.breakpoint outside a session" {
        assert_equal {0} [r eval {return {redis.breakpoint() and 1 or 0, redis.debug('x')}} 0]
    }

    ldb_test "redis.breakpoint() is true in a session" {
        set c [debug_client sync]
        $c eval "local b = redis.breakpoint()\nredis.debug(b)\nreturn 1" 0
        assert_equal {{* Stopped at 2, stop reason = redis.breakpoint() called} {-> 2   redis.debug(b)}} [$c c]
        assert_equal 1 [end_session $c c {{<debug> line 2: true}}]
    }

    ldb_test "unknown commands, NUL bytes in a command" {
        set c [debug_client sync]
        $c eval {return 'hello'} 0
        assert_equal {{<error> Unknown Redis Lua debugger command or wrong number of arguments.}} [$c zz]
        assert_equal {{<error> Unknown Redis Lua debugger command or wrong number of arguments.}} [$c 'hello\0world']
        assert_equal {{<error> Unknown Redis Lua debugger command or wrong number of arguments.}} [$c 'hello\0']
        assert_equal {{<error> Unknown Redis Lua debugger command or wrong number of arguments.}} [$c '\0hello']
        assert_equal {{<error> Unknown Redis Lua debugger command or wrong number of arguments.}} [$c '\0hello\0']
        assert_equal hello [end_session $c c]
    }

    ldb_test "a name with a NUL byte after it is no command" {
        set c [debug_client sync]
        $c eval {return 'hello'} 0
        assert_equal {{<error> Unknown Redis Lua debugger command or wrong number of arguments.}} [$c "s\0x"]
        assert_equal hello [end_session $c c]
    } {our-only}

    ldb_test "redis with 100 arguments does not overflow the Lua stack" {
        set c [debug_client sync]
        $c eval {return 'hello'} 0
        set cmd "*101\r\n\$5\r\nredis\r\n"
        append cmd [string repeat "\$4\r\ntest\r\n" 100]
        $c write $cmd
        $c flush
        set out [$c read]
        assert_equal {<redis> test test test test test test test test test test ... (89 more)} [lindex $out 0]
        assert_equal {<error> Unknown Redis command called from script} [lindex $out 1]
        assert_equal hello [end_session $c c]
        assert_equal PONG [r ping]
    }

    ldb_test "protocol errors end the script" {
        foreach bytes [list "*0\r\n" "*1\r\n\$0\r\n\r\n" "*2000\r\n" "*1\r\n\$2000\r\n" "*1\r\n\$1\r\nsX\r\n" "s\r\n"] {
            set c [debug_client sync]
            $c eval {return 1} 0
            $c write $bytes
            $c flush
            assert_equal {<endsession>} [$c read]
            assert_error "ERR protocol error script: *, on @user_script:1." {$c read}
            $c close
        }
        # bytes before the '*' are skipped
        set c [debug_client sync]
        $c eval {return 1} 0
        $c write "junk*1\r\n\$1\r\nc\r\n"
        $c flush
        assert_equal {<endsession>} [$c read]
        assert_equal 1 [$c read]
        $c close
    }

    ldb_test "a compile error ends the session at once" {
        foreach mode {sync yes} {
            set c [debug_client $mode]
            assert_equal {<endsession>} [$c eval {return 1 +} 0]
            assert_error "ERR Error compiling script (new function): user_script:1: unexpected symbol near '<eof>'" {$c read}
            $c close
        }
        set c [debug_client sync]
        assert_equal {<endsession>} [$c eval {return 1} -1]
        assert_error "ERR Number of keys can't be negative" {$c read}
        $c close
    }

    ldb_test "EVAL_RO is debugged too" {
        set c [debug_client sync]
        assert_equal {{* Stopped at 1, stop reason = step over} {-> 1   return 'ro'}} [$c eval_ro {return 'ro'} 0]
        assert_equal ro [end_session $c c]
    }

    ldb_test "a client gone in a sync session: the script runs to its end" {
        r del gone
        set c [debug_client sync]
        $c eval "redis.breakpoint()\nredis.call('set', 'gone', '1')\nreturn 1" 0
        $c close
        wait_for_condition 50 100 {[r get gone] eq 1} else { fail "the script did not finish" }
        assert_equal PONG [r ping]
    }

    ldb_test "a run that never stops stops at busy-reply-threshold" {
        r config set busy-reply-threshold 100
        set c [debug_client sync]
        $c eval "local i = 0\nwhile true do\n  i = i + 1\nend" 0
        set out [$c c]
        assert_match {{\* Stopped at * stop reason = timeout reached, infinite loop?} *} $out
        end_session_with_error $c a "ERR script aborted for user request script: *"
        r config set busy-reply-threshold 5000
        assert_equal PONG [r ping]
    }
}
