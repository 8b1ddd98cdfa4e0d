# scripting.tcl -- EVAL, EVALSHA, EVAL_RO, EVALSHA_RO and SCRIPT: the script
# cache, the sandbox, redis.* and the conversions between Lua and RESP2/RESP3,
# the errors (compile, run time, redis.call's), shebang flags and their
# refusals, propagation to the AOF (the script's effects in MULTI/EXEC, never
# the script) and to a replica (redis.set_repl), commandstats, busy scripts
# (-BUSY, SCRIPT KILL, UNKILLABLE, SHUTDOWN NOSAVE, blocked clients served
# only when the script ends) and a server that survives hostile scripts.
#
# Every expected reply and error text is Redis 7.0.15's: the file passes
# against it (./runtest --server /usr/bin/redis-server --single
# tests/unit/scripting.tcl), except where a test says it checks this server
# only (tag our-only, skipped with --tags -our-only).
#
# Design decisions:
# - Scripts are written as Tcl strings in braces, so Lua's quotes and
#   brackets need no escaping.
# - Busy tests lower busy-reply-threshold to 100 ms and run a script from a
#   deferring client; the other clients poll until they get -BUSY.

proc ev {script args} { return [r eval $script [llength $args] {*}$args] }

# The sha1 of a string, as SCRIPT LOAD names it (the server computes it).
proc script_sha {body} { return [r script load $body] }

start_server {tags {scripting}} {
    test "EVAL returns integers, bulks, arrays and nil" {
        assert_equal 1 [r eval {return 1} 0]
        assert_equal hello [r eval {return 'hello'} 0]
        assert_equal {1 2 x} [r eval {return {1, 2, 'x'}} 0]
        assert_equal {} [r eval {return nil} 0]
    }

    test "KEYS and ARGV hold the keys and the arguments" {
        assert_equal {k1 k2 a1 a2 2 2} [r eval {return {KEYS[1], KEYS[2], ARGV[1], ARGV[2], #KEYS, #ARGV}} 2 k1 k2 a1 a2]
        assert_equal {0 3} [r eval {return {#KEYS, #ARGV}} 0 a b c]
    }

    test "numkeys errors" {
        assert_error "ERR Number of keys can't be greater than number of args" {r eval {return 1} 1}
        assert_error "ERR Number of keys can't be negative" {r eval {return 1} -1}
        assert_error "ERR value is not an integer or out of range" {r eval {return 1} x}
        assert_error "ERR value is not an integer or out of range" {r eval {return 1} 1.0}
        assert_error "ERR wrong number of arguments for 'eval' command" {r eval {return 1}}
    }

    test "EVALSHA runs a cached script, case-insensitively; NOSCRIPT otherwise" {
        set sha [script_sha {return 'cached'}]
        assert_equal 40 [string length $sha]
        assert_equal cached [r evalsha $sha 0]
        assert_equal cached [r evalsha [string toupper $sha] 0]
        assert_error "NOSCRIPT No matching script. Please use EVAL." {r evalsha [string repeat 0 40] 0}
        assert_error "NOSCRIPT No matching script. Please use EVAL." {r evalsha abc 0}
        assert_error "ERR Number of keys can't be negative" {r evalsha $sha -1}
    }

    test "The cache names a script by the SHA1 of its body, as redis.sha1hex does" {
        assert_equal e0e1f9fabfc9d4800c877a703b823ac0578ff8db [script_sha {return 1}]
        assert_equal da39a3ee5e6b4b0d3255bfef95601890afd80709 [r eval {return redis.sha1hex('')} 0]
        assert_equal a9993e364706816aba3e25717850c26c9cd0d89d [r eval {return redis.sha1hex(ARGV[1])} 0 abc]
        assert_error "ERR wrong number of arguments script: *" {r eval {return redis.sha1hex()} 0}
    }

    test "EVAL caches its script: EVALSHA finds it afterwards" {
        r eval {return 'via eval'} 0
        assert_equal {via eval} [r evalsha [r eval {return redis.sha1hex('return \'via eval\'')} 0] 0]
    }

    test "SCRIPT EXISTS and SCRIPT FLUSH" {
        set sha [script_sha {return 2}]
        assert_equal {1 0} [r script exists $sha [string repeat f 40]]
        assert_equal {1} [r script exists [string toupper $sha]]
        assert_equal OK [r script flush]
        assert_equal {0} [r script exists $sha]
        assert_error "NOSCRIPT*" {r evalsha $sha 0}
        script_sha {return 2}
        assert_equal OK [r script flush async]
        assert_equal OK [r script flush SYNC]
        assert_error "ERR SCRIPT FLUSH only support SYNC|ASYNC option" {r script flush x}
        assert_error "ERR SCRIPT FLUSH only support SYNC|ASYNC option" {r script flush sync x}
        assert_equal 2 [r eval {return 2} 0]
    }

    test "SCRIPT argument errors, HELP, DEBUG" {
        assert_error "ERR wrong number of arguments for 'script|exists' command" {r script exists}
        assert_error "ERR wrong number of arguments for 'script|load' command" {r script load}
        assert_error "ERR unknown subcommand 'foo'. Try SCRIPT HELP." {r script foo}
        assert_match "SCRIPT <subcommand>*" [lindex [r script help] 0]
        assert_error "ERR Use SCRIPT DEBUG YES/SYNC/NO" {r script debug maybe}
        assert_equal OK [r script debug no]
    }

    test "Compile errors name the chunk and the line" {
        assert_error "ERR Error compiling script (new function): user_script:1: unexpected symbol near '<eof>'" {r eval {return 1 +} 0}
        assert_error "ERR Error compiling script (new function): user_script:2: *" {r script load "return 1\nreturn +"}
    }

    test "Run-time errors carry the script's sha and line" {
        set body "local x = 1\nerror('boom')"
        set sha [r eval {return redis.sha1hex(ARGV[1])} 0 $body]
        assert_error "ERR user_script:2: boom script: $sha, on @user_script:2." {r eval $body 0}
        assert_error "ERR user_script:1: attempt to perform arithmetic on a string value script: *" {r eval {return 'a' + 1} 0}
        assert_error "ERR x script: *, on @user_script:1." {r eval {error('x', 0)} 0}
    }

    test "redis.call errors are raised with the command's error text" {
        r set str abc
        assert_error "ERR value is not an integer or out of range script: *, on @user_script:1." {r eval {return redis.call('incr', 'str')} 0}
        assert_error "WRONGTYPE Operation against a key holding the wrong kind of value script: *" {r eval {return redis.call('lpush', 'str', 'x')} 0}
        assert_error "ERR Unknown Redis command called from script script: *" {r eval {return redis.call('nosuch')} 0}
        assert_error "ERR Wrong number of args calling Redis command from script script: *" {r eval {return redis.call('get')} 0}
        assert_error "ERR Please specify at least one argument for this redis lib call script: *" {r eval {return redis.call()} 0}
        assert_error "ERR Lua redis lib command arguments must be strings or integers script: *" {r eval {return redis.call('set', 'k', {})} 0}
    }

    test "redis.pcall returns the error as a table, and the script may go on" {
        r set str abc
        assert_error "ERR value is not an integer or out of range" {r eval {return redis.pcall('incr', 'str')} 0}
        assert_equal {ERR value is not an integer or out of range} [r eval {return redis.pcall('incr', 'str')['err']} 0]
        assert_equal {ERR Unknown Redis command called from script} [r eval {return redis.pcall('nosuch')['err']} 0]
        assert_equal ok [r eval {redis.pcall('nosuch'); return 'ok'} 0]
    }

    test "Lua's pcall catches redis.call's error as its message" {
        assert_equal {ERR Unknown Redis command called from script} [r eval {local ok, e = pcall(function() redis.call('nosuch') end) return e} 0]
        assert_equal {MY err} [r eval {local ok, e = pcall(function() error({err='MY err'}) end) return e} 0]
        assert_equal {1 2} [r eval {local ok, a, b = pcall(function() return 1, 2 end) return {a, b}} 0]
    }

    test "Commands not allowed from scripts" {
        foreach cmd {{multi} {exec} {watch x} {subscribe c} {eval {return 1} 0} {script load x} {blpop l 0} {client list} {monitor} {shutdown} {debug sleep 0}} {
            set lua "return redis.call('[join $cmd {','}]')"
            assert_error "ERR This Redis command is not allowed from script script: *" {r eval $lua 0}
        }
        assert_equal {ERR This Redis command is not allowed from script} [r eval {return redis.pcall('multi')['err']} 0]
    }

    test "redis.call with 7999 arguments from unpack (the Lua stack holds them and the reply)" {
        r del l
        assert_equal 7999 [r eval {
            local a = {}
            for i = 1, 7999 do a[i] = 1 end
            return redis.call('lpush', KEYS[1], unpack(a))
        } 1 l]
        r del l
    }

    test "XREAD and XREADGROUP with BLOCK are refused in scripts" {
        assert_error "*xread command is not allowed with BLOCK option from scripts*" {r eval {return redis.pcall('xread', 'BLOCK', 0, 'STREAMS', 's', '$')} 0}
        assert_error "*xreadgroup command is not allowed with BLOCK option from scripts*" {r eval {return redis.pcall('xreadgroup', 'group', 'g', 'c', 'BLOCK', 0, 'STREAMS', 's', '>')} 0}
    }

    test "DEBUG SET-DISABLE-DENY-SCRIPTS lets a script call a noscript command" {
        r debug set-disable-deny-scripts 1
        r del k
        # the script's clock stands still: a 1 ms TTL outlives a 10 ms sleep
        set exists [r eval {
            redis.call('set', KEYS[1], 'v', 'px', 1)
            redis.call('debug', 'sleep', '0.01')
            return redis.call('exists', KEYS[1])
        } 1 k]
        r debug set-disable-deny-scripts 0
        assert_equal 1 $exists
        assert_error "ERR This Redis command is not allowed from script script: *" {r eval {return redis.call('debug', 'sleep', '0')} 0}
        r del k
    } {needs:debug}

    test "RESP3 attributes in a command's reply are not shown to the script" {
        r debug set-disable-deny-scripts 1
        set plain [r eval {redis.setresp(3) return redis.call('debug', 'protocol', 'attrib')} 0]
        set nested [r eval {redis.setresp(3) return {redis.pcall('debug', 'protocol', 'attrib'), 'after'}} 0]
        set resp2 [r eval {return redis.call('debug', 'protocol', 'attrib')} 0]
        r debug set-disable-deny-scripts 0
        assert_equal {Some real reply following the attribute} $plain
        assert_equal {{Some real reply following the attribute} after} $nested
        assert_equal {Some real reply following the attribute} $resp2
    } {needs:debug}

    test "SORT BY a constant of a set is sorted for a script, in native order for a client" {
        r del myset mylist
        r sadd myset c a bb b aa 10 9
        assert_equal {10 9 a aa b bb c} [r eval {return redis.call('sort', KEYS[1], 'by', 'nosort')} 1 myset]
        assert_equal {10 9 a aa b bb c} [r eval {return redis.call('sort_ro', KEYS[1], 'by', 'nosort')} 1 myset]
        assert_equal [lsort [r smembers myset]] [lsort [r sort myset by nosort]]
        # a list keeps its order: it is already deterministic
        r rpush mylist c a b
        assert_equal {c a b} [r eval {return redis.call('sort', KEYS[1], 'by', 'nosort')} 1 mylist]
        assert_error "ERR syntax error script: *" {r eval {return redis.call('sort', KEYS[1], 'by', 'nosort', 'limit')} 1 myset}
        r del myset mylist
    }

    test "Blocking commands allowed in scripts do not block" {
        r del nolist
        assert_equal {} [r eval {return redis.call('blmpop', 0, 1, 'nolist', 'left')} 0]
    }

    test "redis.error_reply and redis.status_reply" {
        assert_error "My Error" {r eval {return redis.error_reply('My Error')} 0}
        assert_error "ERR x" {r eval {return redis.error_reply('x')} 0}
        assert_equal FINE [r eval {return redis.status_reply('FINE')} 0]
        assert_error "ERR wrong number or type of arguments" {r eval {return redis.error_reply()} 0}
        assert_error "ERR wrong number or type of arguments" {r eval {return redis.status_reply(1)} 0}
        assert_error "foo" {r eval {return {err='foo'}} 0}
    }

    test "Lua to RESP2: numbers truncate, booleans, tables stop at the first nil" {
        assert_equal 3 [r eval {return 3.99} 0]
        assert_equal -1 [r eval {return -1.5} 0]
        assert_equal -9223372036854775808 [r eval {return 1e20} 0]
        assert_equal 1 [r eval {return true} 0]
        assert_equal {} [r eval {return false} 0]
        assert_equal {1 2} [r eval {return {1, 2, nil, 4}} 0]
        assert_equal {1 {} 3} [r eval {return {1, false, 3}} 0]
        assert_equal {} [r eval {return {a=1}} 0]
        assert_equal {1 {2 {3 4}}} [r eval {return {1, {2, {3, 4}}}} 0]
        assert_equal {a b} [r eval {return {ok='a\nb'}} 0]
        assert_equal {} [r eval {return function() end} 0]
    }

    test "Lua to RESP2: the RESP3-only tables" {
        assert_equal 3.5 [r eval {return {double=3.5}} 0]
        assert_equal {a 1} [r eval {return {map={a=1}}} 0]
        assert_equal {a} [r eval {return {set={a=true}}} 0]
        assert_equal 123 [r eval {return {big_number='123'}} 0]
        assert_equal hi [r eval {return {verbatim_string={format='txt', string='hi'}}} 0]
    }

    test "RESP2 to Lua: integer, bulk, nil, array, status, error" {
        r del h nokey
        r set s v
        assert_equal number [r eval {return type(redis.call('incr', 'n'))} 0]
        assert_equal v [r eval {return redis.call('get', 's')} 0]
        assert_equal 1 [r eval {return redis.call('get', 'nokey') == false} 0]
        assert_equal table [r eval {return type(redis.call('lrange', 'nokey', 0, -1))} 0]
        assert_equal PONG [r eval {return redis.call('ping')['ok']} 0]
        assert_equal PONG [r eval {return redis.call('ping')} 0]
    }

    test "Numbers given to redis.call are written as %.17g" {
        r eval {redis.call('set', 'num', 10.5) redis.call('set', 'num2', 3) redis.call('set', 'num3', 0.1)} 0
        assert_equal {10.5 3 0.10000000000000001} [r mget num num2 num3]
    }

    test "redis.setresp(3): RESP3 replies seen by the script" {
        r del h3
        r hset h3 a 1
        assert_equal 1 [r eval {redis.setresp(3) return redis.call('hgetall', 'h3').map.a} 0]
        assert_equal 1 [r eval {redis.setresp(3) return redis.call('get', 'nokey') == nil} 0]
        assert_equal 1.5 [r eval {redis.setresp(3) return redis.call('incrbyfloat', 'fl', '1.5')} 0]
        assert_error "ERR RESP version must be 2 or 3. script: *" {r eval {redis.setresp(4)} 0}
        assert_error "ERR redis.setresp() requires one argument. script: *" {r eval {redis.setresp()} 0}
    }

    test "Lua to RESP3 for a HELLO 3 client" {
        r hello 3
        assert_equal 3.5 [r eval {return {double=3.5}} 0]
        assert_equal {a 1} [r eval {return {map={a=1}}} 0]
        assert_equal 1 [r eval {redis.setresp(3) return true} 0]
        assert_equal 0 [r eval {redis.setresp(3) return false} 0]
        assert_equal {} [r eval {return false} 0]
        r hello 2
    }

    test "The sandbox: globals cannot be created or read when missing" {
        assert_error "ERR user_script:1: Attempt to modify a readonly table script: *" {r eval {x = 5} 0}
        assert_error "ERR user_script:1: Script attempted to access nonexistent global variable 'y' script: *" {r eval {return y} 0}
        assert_error "ERR Attempt to modify a readonly table script: *" {r eval {rawset(_G, 'x', 1)} 0}
        assert_equal 1 [r eval {local x = 5 return 1} 0]
    }

    test "The sandbox: library tables are read-only" {
        foreach lib {string math table redis cjson bit} {
            assert_error "ERR user_script:1: Attempt to modify a readonly table script: *" {r eval "$lib.foo = 1" 0}
        }
        assert_error "ERR user_script:1: Attempt to modify a readonly table script: *" {r eval {redis.call = nil} 0}
        assert_equal ABC [r eval {return ('abc'):upper()} 0]
        assert_equal 1 [r eval {return getmetatable('').__index == string} 0]
        assert_error "*Attempt to modify a readonly table*" {r eval {getmetatable('').__index = {}} 0}
        assert_equal ABC [r eval {return ('abc'):upper()} 0]
    }

    test "The sandbox: setmetatable and getmetatable cannot unlock _G or a library" {
        # refused from C, so the message has no position (as Redis's)
        foreach target {_G redis string {getmetatable('')} {getmetatable(_G)}} {
            assert_error "ERR Attempt to modify a readonly table script: *" {r eval "setmetatable($target, {})" 0}
        }
        assert_error "ERR Attempt to modify a readonly table script: *" {r eval {setmetatable(_G, nil)} 0}
        # what getmetatable(_G) shows is read-only too, and raises for a missing name
        assert_error "ERR user_script:1: Attempt to modify a readonly table script: *" {r eval {local g = getmetatable(_G) g.__index = {}} 0}
        assert_error "ERR Attempt to modify a readonly table script: *" {r eval {rawset(getmetatable(_G), '__index', {})} 0}
        assert_equal {function nil} [r eval {local g = getmetatable(_G) return {type(g.__index), type(g.__newindex)}} 0]
        assert_equal {nil nil} [r eval {return {type(getmetatable(redis)), type(getmetatable(cjson))}} 0]
        assert_equal {{} {Attempt to modify a readonly table}} [r eval {return {pcall(setmetatable, _G, {})}} 0]
        assert_error "*Script attempted to access nonexistent global variable 'x'*" {r eval {return x} 0}
    }

    test "The sandbox: setmetatable and getmetatable on bad input, and on ordinary tables" {
        assert_error "ERR user_script:1: bad argument #2 to 'setmetatable' (nil or table expected) script: *" {r eval {setmetatable(_G)} 0}
        assert_error "ERR user_script:1: bad argument #1 to 'setmetatable' (table expected, got number) script: *" {r eval {setmetatable(1, {})} 0}
        assert_error "ERR user_script:1: bad argument #2 to 'setmetatable' (nil or table expected) script: *" {r eval {setmetatable({}, 1)} 0}
        assert_error "ERR user_script:1: bad argument #1 to 'getmetatable' (value expected) script: *" {r eval {return getmetatable()} 0}
        assert_error "ERR user_script:1: cannot change a protected metatable script: *" {r eval {setmetatable(setmetatable({}, {__metatable = 1}), {})} 0}
        assert_equal a! [r eval {return setmetatable({}, {__index = function(t, k) return k .. '!' end}).a} 0]
        assert_equal x [r eval {return getmetatable(setmetatable({}, {__metatable = 'x'}))} 0]
        assert_equal nil [r eval {return type(getmetatable(1))} 0]
    }

    test "The sandbox: what is there and what is not" {
        foreach name {os io print loadfile dofile require setfenv getfenv module newproxy debug} {
            assert_error "*Script attempted to access nonexistent global variable '$name'*" {r eval "return type($name)" 0}
        }
        set globals [r eval {local t = {} for k, v in pairs(_G) do t[#t+1] = k end table.sort(t) return t} 0]
        foreach name {redis string math table cjson bit struct cmsgpack coroutine loadstring load pcall xpcall unpack KEYS ARGV} {
            assert {[lsearch -exact $globals $name] >= 0} "$name missing from $globals"
        }
        assert_equal {call pcall} [r eval {local t = {} for k in pairs(redis) do if k == 'call' or k == 'pcall' then t[#t+1] = k end end table.sort(t) return t} 0]
    }

    test "cjson, bit, struct and cmsgpack are there" {
        assert_equal {[1,2,3]} [r eval {return cjson.encode({1,2,3})} 0]
        assert_equal 2 [r eval {return cjson.decode('{"a":[1,2]}').a[2]} 0]
        assert_equal 15 [r eval {return bit.band(0xff, 0x0f)} 0]
        assert_equal 000000ff [r eval {return bit.tohex(255)} 0]
        assert_equal 258 [r eval {return struct.unpack('>I2', struct.pack('>I2', 258))} 0]
        assert_equal {1 2 3} [r eval {return cmsgpack.unpack(cmsgpack.pack({1,2,3}))} 0]
    }

    test "A shebang line with a NUL byte before its newline is invalid, as in Redis 7.0" {
        assert_error "ERR Invalid script shebang" {r eval "#!lua\0\nreturn 1" 0}
        assert_equal 1 [r eval "#!lua\nreturn 1" 0]
    }

    test "loadstring refuses precompiled chunks" {
        assert_equal {} [r eval {return loadstring(string.dump(function() return 1 end))} 0]
        assert_equal 1 [r eval {return loadstring('return 1')()} 0]
    }

    test "redis.* constants and no-op helpers" {
        assert_equal 7.0.15 [r eval {return redis.REDIS_VERSION} 0]
        assert_equal 458767 [r eval {return redis.REDIS_VERSION_NUM} 0]
        assert_equal {3 1 2 2 0} [r eval {return {redis.REPL_ALL, redis.REPL_AOF, redis.REPL_REPLICA, redis.REPL_SLAVE, redis.REPL_NONE}} 0]
        assert_equal {0 1 2 3} [r eval {return {redis.LOG_DEBUG, redis.LOG_VERBOSE, redis.LOG_NOTICE, redis.LOG_WARNING}} 0]
        assert_equal 1 [r eval {return redis.replicate_commands()} 0]
        assert_equal {} [r eval {return redis.breakpoint()} 0]
        assert_equal {} [r eval {return redis.debug('x')} 0]
        assert_error "ERR Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE. script: *" {r eval {redis.set_repl(9)} 0}
    }

    test "redis.log writes to the server log; its argument errors" {
        assert_equal {} [r eval {redis.log(redis.LOG_WARNING, 'hello from', 'a script')} 0]
        assert_error "ERR redis.log() requires two arguments or more. script: *" {r eval {redis.log(redis.LOG_WARNING)} 0}
        assert_error "ERR Invalid debug level. script: *" {r eval {redis.log(99, 'x')} 0}
    }

    test "redis.log line in the log" {
        r eval {redis.log(redis.LOG_WARNING, 'marker-7d1e')} 0
        wait_for_log "*marker-7d1e*"
    } {external:skip}

    test "math.random is a fixed sequence from a fixed seed" {
        set a [r eval {math.randomseed(42) return {math.random(1000), math.random(1000), math.random()}} 0]
        set b [r eval {math.randomseed(42) return {math.random(1000), math.random(1000), math.random()}} 0]
        assert_equal $a $b
        assert_equal {1 46} [r eval {math.randomseed(1) return {math.random(10), math.random(100)}} 0]
        assert_error "*interval is empty*" {r eval {return math.random(0)} 0}
    }

    test "Shebang flags and errors" {
        assert_equal 1 [r eval "#!lua flags=no-writes,allow-oom,allow-stale,no-cluster,allow-cross-slot-keys\nreturn 1" 0]
        assert_equal 1 [r eval "#!lua flags=\nreturn 1" 0]
        assert_error "ERR Unexpected flag in script shebang: bogus" {r eval "#!lua flags=bogus\nreturn 1" 0}
        assert_error "ERR Unknown lua shebang option: name=foo" {r eval "#!lua name=foo\nreturn 1" 0}
        assert_error "ERR Unexpected engine in script shebang: #!luax" {r eval "#!luax\nreturn 1" 0}
        assert_error "ERR Invalid script shebang" {r eval "#!lua" 0}
        assert_error "ERR Unexpected flag in script shebang: bad" {r script load "#!lua flags=bad\nreturn 1"}
    }

    test "The shebang line counts in line numbers" {
        assert_error "*on @user_script:2.*" {r eval "#!lua\nerror('x')" 0}
    }

    test "Writes from read-only scripts and *_RO commands" {
        assert_error "ERR Write commands are not allowed from read-only scripts. script: *, on @user_script:2." {r eval "#!lua flags=no-writes\nreturn redis.call('set','a','b')" 0}
        assert_error "ERR Write commands are not allowed from read-only scripts. script: *" {r eval_ro {return redis.call('set','a','b')} 0}
        r set a v
        assert_equal v [r eval_ro {return redis.call('get', KEYS[1])} 1 a]
        assert_error "ERR Can not execute a script with write flag using \*_ro command." {r eval_ro "#!lua\nreturn 1" 0}
        assert_equal 1 [r eval_ro "#!lua flags=no-writes\nreturn 1" 0]
        set sha [script_sha {return redis.call('get', 'a')}]
        assert_equal v [r evalsha_ro $sha 0]
    }

    test "CLIENT PAUSE WRITE holds EVAL, not no-writes scripts nor EVAL_RO" {
        r client pause 10000 write
        set rd [redis_deferring_client]
        $rd eval {return 'held'} 0
        $rd blocking 0
        assert_equal 1 [r eval "#!lua flags=no-writes\nreturn 1" 0]
        assert_equal 1 [r eval_ro {return 1} 0]
        after 100
        assert_equal 0 [$rd ready]
        $rd blocking 1
        r client unpause
        assert_equal held [$rd read]
        $rd close
    }

    test "SELECT inside a script does not change the caller's database" {
        r select 9
        r del x
        r eval {redis.call('select', 5) redis.call('set', 'x', 'in5')} 0
        assert_equal {} [r get x]
        r select 5
        assert_equal in5 [r get x]
        r del x
        r select 9
    }

    test "Keys don't expire in the middle of a script" {
        r set k v px 200
        # the script runs 300 ms of wall-clock time (TIME is not frozen in a
        # script), however fast or slow the machine or emulator: a count of
        # loop turns ran for minutes under QEMU on a loaded machine
        set r [r eval {
            local t0 = redis.call('time')
            local start = t0[1] * 1000000 + t0[2]
            for i = 1, 100000000 do
                local t = redis.call('time')
                if t[1] * 1000000 + t[2] - start > 300000 then break end
            end
            return redis.call('exists', 'k')} 0]
        assert_equal 1 $r
        after 250
        assert_equal 0 [r exists k]
    } {slow}

    test "EVAL inside MULTI runs at EXEC" {
        r del m1
        r multi
        r eval {return redis.call('incr', 'm1')} 0
        r incr m1
        assert_equal {1 2} [r exec]
    }

    test "WATCH: a script's write fails another client's EXEC" {
        r set w 1
        r watch w
        set c [redis_client]
        $c select 9
        $c eval {redis.call('set', 'w', 2)} 0
        $c close
        r multi
        r get w
        assert_equal {} [r exec]
    }

    test "Commandstats count EVAL and the commands it ran" {
        r config resetstat
        r eval {redis.call('set', 'cs', 1) redis.call('get', 'cs')} 0
        r set str abc
        catch {r eval {return redis.call('incr', 'str')} 0}
        catch {r eval {return redis.call('nosuch')} 0}
        set stats [r info commandstats]
        assert_match "*cmdstat_eval:calls=3,*failed_calls=2*" $stats
        assert_match "*cmdstat_get:calls=1,*" $stats
        assert_match "*cmdstat_incr:calls=1,*failed_calls=1*" $stats
        assert_equal 2 [s total_error_replies]
    }

    test "Errors from redis.pcall returned by the script are counted once" {
        r config resetstat
        r set str abc
        catch {r eval {return redis.pcall('incr', 'str')} 0}
        assert_equal 1 [s total_error_replies]
        assert_match "*cmdstat_eval:calls=1,*failed_calls=1*" [r info commandstats]
    }

    test "SLOWLOG records the script and its commands" {
        r config set slowlog-log-slower-than 0
        r slowlog reset
        r eval {redis.call('set', 'slow', '1')} 0
        set log [r slowlog get]
        r config set slowlog-log-slower-than 10000
        assert_equal {set slow 1} [lindex $log 1 3]
        assert_equal eval [lindex $log 0 3 0]
    }

    test "MONITOR shows the EVAL, then its commands from 'lua'" {
        set m [redis_deferring_client]
        $m monitor
        assert_equal OK [$m read]
        r eval {redis.call('set', 'mk', '1') return redis.call('get', 'mk')} 1 mk
        assert_match {*"eval" "redis.call('set', 'mk', '1')*" "1" "mk"} [$m read]
        assert_match {*\[9 lua\] "set" "mk" "1"} [$m read]
        assert_match {*\[9 lua\] "get" "mk"} [$m read]
        $m close
    }

    test "INFO memory: the cache and the Lua heap" {
        r script flush
        assert_equal 0 [s number_of_cached_scripts]
        r eval {return 'a'} 0
        r script load {return 'b'}
        assert_equal 2 [s number_of_cached_scripts]
        assert_morethan [s used_memory_lua] 0
        assert_equal [s used_memory_lua] [s used_memory_vm_eval]
        assert_morethan [s used_memory_scripts_eval] 0
    }

    test "A new server has no Lua heap until its first script" {
        r script flush
        assert_equal 0 [s used_memory_lua]
        r eval {return 1} 0
        assert_morethan [s used_memory_lua] 0
    } {our-only}

    test "Hostile scripts: deep recursion, huge tables, cyclic tables" {
        assert_error "*stack overflow*" {r eval {local function f(n) return 1 + f(n + 1) end return f(1)} 0}
        assert_equal 100000 [r eval {local t = {} for i = 1, 100000 do t[i] = i end return #t} 0]
        # a cyclic table nests arrays until Lua's stack is full, then an error
        set c [redis_client]
        $c readraw 1
        $c eval {local t = {} t[1] = t return t} 0
        set depth 0
        while {[set line [$c read]] eq "*1"} { incr depth }
        $c close
        assert_equal {-ERR reached lua stack limit} $line
        assert_morethan $depth 1000
        assert_equal PONG [r ping]
    }

    test "min-replicas-to-write not met: a flagless script's write is refused with NOREPLICAS, its reads run" {
        r set x v
        r config set min-replicas-to-write 1
        set reads [r eval {return redis.call('get', KEYS[1])} 1 x]
        set ro [r eval "#!lua flags=no-writes\nreturn redis.call('get', KEYS\[1\])" 1 x]
        catch {r eval {return redis.call('set', KEYS[1], 'w')} 1 x} call_err
        set pcalled [r eval {local e = redis.pcall('set', KEYS[1], 'w') return {e['err'], redis.call('get', KEYS[1])}} 1 x]
        catch {r eval "#!lua\nreturn redis.call('get', KEYS\[1\])" 1 x} flagged_err
        r config set min-replicas-to-write 0
        assert_equal {v v} [list $reads $ro]
        assert_match "NOREPLICAS Not enough good replicas to write. script: *" $call_err
        assert_equal {{NOREPLICAS Not enough good replicas to write.} v} $pcalled
        assert_equal "NOREPLICAS Not enough good replicas to write." $flagged_err
        assert_equal v [r get x]
        assert_equal OK [r eval {return redis.call('set', KEYS[1], 'w')} 1 x]
    }

    test "On a stale replica a script without a shebang fails as a whole with MASTERDOWN" {
        r config resetstat
        r config set replica-serve-stale-data no
        r replicaof 127.0.0.1 [::harness::find_free_port] ;# nobody there: the link stays down
        catch {r eval {return 1} 0} flagless
        catch {r eval {return redis.call('get', KEYS[1])} 1 x} flagless_get
        catch {r eval "#!lua flags=no-writes\nreturn 1" 0} flagged
        set stale_ok [r eval "#!lua flags=allow-stale,no-writes\nreturn redis.call('echo', 'e')" 0]
        catch {r eval "#!lua flags=allow-stale,no-writes\nreturn redis.call('get', 'x')" 0} stale_get
        set stats [r info commandstats]
        r replicaof no one
        r config set replica-serve-stale-data yes
        foreach e [list $flagless $flagless_get $flagged] {
            assert_equal "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'." $e
        }
        assert_equal e $stale_ok
        assert_match "ERR Can not execute the command on a stale replica script: *" $stale_get
        # the flagless runs failed (EVAL is flagged stale), the flagged one was rejected
        assert_match "*cmdstat_eval:calls=4,*rejected_calls=1,failed_calls=3*" $stats
        assert_equal 1 [r eval {return 1} 0]
    }

    test "MULTI: a queued script that may write aborts EXEC on a read-only replica" {
        set writer [redis_client]
        set flagless [redis_client]
        set reader [redis_client]
        foreach c [list $writer $flagless $reader] { $c multi }
        $writer eval "#!lua\nreturn 1" 0
        $flagless eval {redis.call('set', KEYS[1], '1') return 1} 1 x
        $reader eval "#!lua flags=no-writes\nreturn 1" 0
        r replicaof 127.0.0.1 [::harness::find_free_port]
        catch {$writer exec} writer_err
        catch {$flagless exec} flagless_reply
        set reader_reply [$reader exec]
        r replicaof no one
        foreach c [list $writer $flagless $reader] { $c close }
        assert_equal "EXECABORT Transaction discarded because of: READONLY You can't write against a read only replica." $writer_err
        # a script without a shebang runs, and its write is refused inside it
        assert_match "READONLY You can't write against a read only replica. script: *" $flagless_reply
        assert_equal 1 $reader_reply
    }

    test "A script that allocates until maxmemory fails its write, the server stays up" {
        r flushall
        r config set maxmemory 1
        assert_error "OOM command not allowed when used memory > 'maxmemory'. script: *" {r eval {return redis.call('set', 'a', 'b')} 0}
        assert_equal 200000 [r eval {local t = {} for i = 1, 200000 do t[i] = tostring(i) .. 'xxxxxxxx' end return #t} 0]
        assert_equal {} [r eval {return redis.call('get', 'a')} 0]
        assert_error "OOM command not allowed when used memory > 'maxmemory'*" {r eval "#!lua\nreturn 1" 0}
        assert_equal 1 [r eval "#!lua flags=no-writes\nreturn 1" 0]
        assert_equal OK [r eval "#!lua flags=allow-oom\nreturn redis.call('set', 'a', 'b')" 0]
        r config set maxmemory 0
        assert_equal PONG [r ping]
    }
}

start_server {tags {scripting}} {
    test "Busy script: others get -BUSY, SCRIPT KILL stops it" {
        r config set busy-reply-threshold 100
        set rd [redis_deferring_client]
        $rd eval {local i = 0 while true do i = i + 1 end} 0
        wait_for_condition 100 20 {[catch {r ping} e] && [string match "BUSY*" $e]} else { fail "no BUSY reply" }
        assert_error "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE." {r get x}
        assert_error "BUSY*" {r shutdown}
        assert_equal OK [r script kill]
        assert_error "ERR Script killed by user with SCRIPT KILL... script: *" {$rd read}
        assert_equal PONG [r ping]
        $rd close
    }

    test "SCRIPT KILL with no script: NOTBUSY" {
        assert_error "NOTBUSY No scripts in execution right now." {r script kill}
    }

    test "A killed script cannot hold on with pcall" {
        set rd [redis_deferring_client]
        $rd eval {while true do pcall(function() local i = 0 while true do i = i + 1 end end) end} 0
        wait_for_condition 100 20 {[catch {r ping} e] && [string match "BUSY*" $e]} else { fail "no BUSY reply" }
        assert_equal OK [r script kill]
        assert_error "*Script killed by user*" {$rd read}
        assert_equal PONG [r ping]
        $rd close
    }

    test "lua-time-limit is an alias of busy-reply-threshold" {
        r config set lua-time-limit 150
        assert_equal {busy-reply-threshold 150} [r config get busy-reply-threshold]
        r config set busy-reply-threshold 100
        assert_equal {lua-time-limit 100} [r config get lua-time-limit]
    }

    test "A client blocked on a key a busy script pushed to is served when the script ends" {
        r del x
        set blocked [redis_deferring_client]
        set runner [redis_deferring_client]
        set admin [redis_client]
        $blocked blpop x 0
        wait_for_blocked_clients 1
        r debug set-disable-deny-scripts 1
        # the script spins until a client named letgo shows up
        $runner eval {
            redis.call('lpush', KEYS[1], 'first')
            while not string.find(redis.call('client', 'list'), 'letgo') do end
            redis.call('lpush', KEYS[1], 'last')
            return 'done'
        } 1 x
        wait_for_condition 100 20 {[catch {r ping} e] && [string match "BUSY*" $e]} else { fail "no BUSY reply" }
        # HELLO runs while the script is busy; the pushed key must wait for the script
        assert_match {*proto 2*} [$admin hello 2 setname letgo]
        assert_equal {x last} [$blocked read]
        assert_equal done [$runner read]
        assert_equal first [r lrange x 0 -1]
        r debug set-disable-deny-scripts 0
        $blocked close
        $runner close
        $admin close
        r del x
    } {needs:debug}

    test "A busy script that wrote is UNKILLABLE; SHUTDOWN NOSAVE ends the server" {
        set rd [redis_deferring_client]
        $rd eval {redis.call('set', 'x', 'y') local i = 0 while true do i = i + 1 end} 0
        wait_for_condition 100 20 {[catch {r ping} e] && [string match "BUSY*" $e]} else { fail "no BUSY reply" }
        assert_error "UNKILLABLE Sorry the script already executed write commands against the dataset.*" {r script kill}
        catch {r shutdown nosave}
        wait_for_condition 100 50 {[catch {redis_client} c]} else { fail "server still up" }
        $rd close
        restart_server
        assert_equal PONG [r ping]
    } {needs:restart}
}

start_server {tags {scripting aof} overrides {appendonly yes appendfsync always aof-use-rdb-preamble no}} {
    test "A script's writes go to the AOF in MULTI/EXEC, never the script" {
        set w [aof_commands_written { r eval {redis.call('set','a','1') redis.call('incr','a')} 0 }]
        assert_equal {MULTI {set a 1} {incr a} EXEC} $w
    }

    test "A single write is not wrapped; reads write nothing" {
        assert_equal {{set b 1}} [aof_commands_written { r eval {redis.call('set','b','1')} 0 }]
        assert_equal {} [aof_commands_written { r eval {return redis.call('get','b')} 0 }]
    }

    test "A script's commands are propagated in their replayable forms" {
        set w [aof_commands_written { r eval {redis.call('set','t','v','ex','100')} 0 }]
        assert_equal {SET t v PXAT} [lrange [lindex $w 0] 0 3]
    }

    test "redis.set_repl: REPL_NONE and REPL_REPLICA leave the AOF out" {
        set w [aof_commands_written { r eval {redis.set_repl(redis.REPL_NONE) redis.call('set','n','1') redis.set_repl(redis.REPL_ALL) redis.call('set','m','1')} 0 }]
        assert_equal {{set m 1}} $w
        assert_equal {} [aof_commands_written { r eval {redis.set_repl(redis.REPL_REPLICA) redis.call('set','rep','1')} 0 }]
        assert_equal {{set aof 1}} [aof_commands_written { r eval {redis.set_repl(redis.REPL_AOF) redis.call('set','aof','1')} 0 }]
    }

    test "What ran before a run-time error is propagated" {
        assert_equal {{set z 1}} [aof_commands_written { catch {r eval {redis.call('set','z','1') error('x')} 0} }]
    }

    test "SCRIPT LOAD and SCRIPT FLUSH are not propagated" {
        assert_equal {} [aof_commands_written { r script load {return 1}; r script flush }]
    }

    test "EVAL inside MULTI: one transaction in the AOF" {
        set w [aof_commands_written {
            r multi
            r eval {redis.call('set','x1','1')} 0
            r set x2 2
            r exec
        }]
        assert_equal {MULTI {set x1 1} {set x2 2} EXEC} $w
    }

    test "The AOF replays to the same data" {
        r flushall
        r eval {redis.call('set','r1','1') redis.call('rpush','r2','a','b')} 0
        r debug loadaof
        assert_equal 1 [r get r1]
        assert_equal {a b} [r lrange r2 0 -1]
    }
}

start_server {tags {scripting repl} overrides {repl-diskless-sync-delay 0}} {
    start_server {} {
        test "redis.set_repl: REPL_AOF stays off the replicas, REPL_REPLICA reaches them" {
            r replicaof [srv -1 host] [srv -1 port]
            wait_for_condition 100 50 {[string match "*master_link_status:up*" [r info replication]]} else { fail "the replica did not sync" }
            r -1 eval {
                redis.call('set', 'a', '1')
                redis.set_repl(redis.REPL_NONE)
                redis.call('set', 'b', '2')
                redis.set_repl(redis.REPL_AOF)
                redis.call('set', 'c', '3')
                redis.set_repl(redis.REPL_REPLICA)
                redis.call('set', 'e', '5')
                redis.set_repl(redis.REPL_ALL)
                redis.call('set', 'd', '4')
            } 0
            wait_for_condition 100 20 {[r get d] eq 4} else { fail "the script's effects did not reach the replica" }
            assert_equal {1 {} {} 4 5} [r mget a b c d e]
            assert_equal {1 2 3 4 5} [r -1 mget a b c d e]
        } {needs:repl}
    }
}

# A chunk made by loadstring/load ran in the real globals, not the scripts'
# read-only environment: an attacker allowed only EVAL on its own keys could
# define globals, or replace the redis table and act with the rights of the
# next user who runs a script. The attacker's session and a victim's.
start_server {tags {scripting acl}} {
    r acl setuser attacker on >pw ~evil:* +eval +evalsha +fcall +get +set
    r set secret:token s3cr3t
    set attacker [redis_client]
    $attacker auth attacker pw

    test "loadstring and load cannot create or replace globals (sandbox escape)" {
        assert_error {ERR \[string "y = 5"\]:1: Attempt to modify a readonly table script: *} \
            {$attacker eval {loadstring("y = 5")() return 1} 0}
        assert_error {ERR \[string "redis = nil"\]:1: Attempt to modify a readonly table script: *} \
            {$attacker eval {loadstring("redis = nil")() return 1} 0}
        assert_error {*Attempt to modify a readonly table*} \
            {$attacker eval {local parts = {"redis = ", "{}"} local i = 0
                             load(function() i = i + 1 return parts[i] end)() return 1} 0}
        assert_error {*Attempt to modify a readonly table*} \
            {$attacker eval {loadstring("redis.call = function() end")() return 1} 0}
        assert_error {*Attempt to modify a readonly table*} \
            {$attacker eval {coroutine.wrap(loadstring("__redis__err__handler = nil"))() return 1} 0}
        assert_equal {[string "y = 5"]:1: Attempt to modify a readonly table} \
            [$attacker eval {local ok, e = pcall(loadstring("y = 5")) return e} 0]
        assert_error {*Script attempted to access nonexistent global variable 'y'*} {r eval {return y} 0}
    }

    test "A loaded chunk reads the scripts' globals and API as the script does" {
        assert_equal 1 [$attacker eval {return loadstring("return redis ~= nil and KEYS ~= nil")()} 0]
        assert_error {*Script attempted to access nonexistent global variable 'x'*} \
            {$attacker eval {return loadstring("return x")()} 0}
        assert_equal 6 [$attacker eval {return loadstring("return string.len('abcdef')")()} 0]
    }

    test "The victim's script still runs with its own rights after the attack" {
        catch {$attacker eval {loadstring("redis = {call = function() return 'captured' end}")()} 0}
        assert_equal s3cr3t [r eval {return redis.call('get', 'secret:token')} 0]
        assert_error {*can't access at least one of the keys*} \
            {$attacker eval {return redis.call('get', 'secret:token')} 0}
        assert_equal 1 [r eval {return type(redis.call) == 'function' and 1 or 0} 0]
    }

    test "A library's loadstring cannot escape either (FUNCTION)" {
        r function load replace {#!lua name=escape
            redis.register_function('esc', function() loadstring("z = 1")() return 1 end)}
        assert_error {ERR \[string "z = 1"\]:1: Attempt to modify a readonly table script: esc, on z = 1:1.} {r fcall esc 0}
        # while a library loads, its code sees only the library API (as Redis)
        assert_error {*nonexistent global variable 'loadstring'*} \
            {r function load replace {#!lua name=escape2
                loadstring("w = 1")()
                redis.register_function('f2', function() return 1 end)}}
        assert_error {*Script attempted to access nonexistent global variable 'z'*} {r eval {return z} 0}
    }
    $attacker close
}

# math.random: the generator starts where Redis 7.0's does (rand48's
# unseeded state), is shared by EVAL and FUNCTION, and is not reset by
# SCRIPT FLUSH: a fresh server gives Redis 7.0.15's numbers in its order.
start_server {tags {scripting}} {
    test "math.random gives Redis 7.0's sequence on a fresh server" {
        assert_equal {40 85 0.35333609737146} [r eval {return {math.random(100), math.random(100), tostring(math.random())}} 0]
        assert_equal {45 32 0.88642843341754} [r eval {return {math.random(100), math.random(100), tostring(math.random())}} 0]
        assert_equal {27 69 0.26549059351231} [r eval {math.randomseed(7) return {math.random(100), math.random(100), tostring(math.random())}} 0]
        r script flush
        assert_equal 13 [r eval {return math.random(100)} 0]
        r function load replace {#!lua name=rnd
            redis.register_function('rnd', function() return math.random(100) end)}
        assert_equal 50 [r fcall rnd 0]
        assert_equal 30 [r eval {return math.random(100)} 0]
    }
}

# The Lua heap is not in used_memory (INFO shows it as used_memory_lua), as
# in Redis: a script that builds a big table used to make allkeys-lru evict
# the whole dataset, and noeviction refuse writes until SCRIPT FLUSH.
start_server {tags {scripting maxmemory}} {
    set big_table {local t = {} for i = 1, 100000 do t[i] = 'value-' .. i end return #t}

    test "A script's Lua memory does not make maxmemory evict keys" {
        r config set maxmemory-policy allkeys-lru
        r debug populate 2000 key 100
        r config set maxmemory [expr {[s used_memory] + 1024 * 1024}]
        set lua_before [s used_memory_lua]
        assert_equal 100000 [r eval $big_table 0]
        assert_morethan [expr {[s used_memory_lua] - $lua_before}] [expr {2 * 1024 * 1024}]
        assert_lessthan [s used_memory] [r config get maxmemory]
        r set after-script 1
        assert_equal 2001 [r dbsize]
        assert_equal 0 [s evicted_keys]
    }

    test "Under noeviction, writes still work after a big script" {
        r config set maxmemory 0
        r flushall
        r script flush
        r config set maxmemory-policy noeviction
        r config set maxmemory [expr {[s used_memory] + 1024 * 1024}]
        assert_equal 100000 [r eval $big_table 0]
        assert_equal OK [r set k v]
        assert_equal 100000 [r eval $big_table 0]
        assert_equal OK [r set k2 v]
        r config set maxmemory 0
    }
}
