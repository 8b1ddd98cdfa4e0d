# Real clients against our server: Debian's redis-cli and redis-benchmark
# (package redis-tools). They are test tools only, never a dependency of the
# product; when they are missing each test is skipped with the reason.

proc tool_path {name} {
    set path [auto_execok $name]
    if {$path eq ""} { return "" }
    return [lindex $path 0]
}

proc need_tool {name} {
    if {[tool_path $name] eq ""} { skip "$name not installed (apt-get install redis-tools)" }
}

# redis-cli with the current server's address; its stdout is a pipe, so it
# formats replies in raw mode exactly as a shell script sees them.
proc cli {args} {
    exec -ignorestderr [tool_path redis-cli] -h [srv host] -p [srv port] {*}$args
}

proc cli_stdin {input args} {
    exec -ignorestderr [tool_path redis-cli] -h [srv host] -p [srv port] {*}$args << $input
}

# Runs redis-cli and returns {exit-status output}.
proc cli_status {args} {
    set status [catch {exec [tool_path redis-cli] -h [srv host] -p [srv port] {*}$args 2>@1} out opts]
    regsub {\n?child process exited abnormally$} $out {} out
    if {$status} {
        set code [dict get $opts -errorcode]
        if {[lindex $code 0] eq "CHILDSTATUS"} { return [list [lindex $code 2] [string trim $out]] }
        return [list -1 [string trim $out]]
    }
    return [list 0 [string trim $out]]
}

start_server {tags {tools} unixsocket 1} {
    test "redis-cli one-shot commands print raw replies" {
        need_tool redis-cli
        assert_equal OK [cli set greeting hello]
        assert_equal hello [cli get greeting]
        assert_equal 5 [cli strlen greeting]
        assert_equal 1 [cli incr counter]
        assert_equal "" [cli get nosuchkey]
        assert_equal "hello\n\n1" [cli mget greeting nosuchkey counter]
        assert_equal {"hello",NULL} [cli --csv mget greeting nosuchkey]
    }

    test "redis-cli reports errors, with a failing exit status under -e" {
        need_tool redis-cli
        assert_equal {0 {ERR wrong number of arguments for 'get' command}} [cli_status get]
        assert_equal {1 {ERR wrong number of arguments for 'get' command}} [cli_status -e get]
        lassign [cli_status -e nosuchcommand x] status out
        assert_equal 1 $status
        assert_match "ERR unknown command 'nosuchcommand', with args beginning with: 'x'*" $out
    }

    test "redis-cli reads commands from stdin, one per line" {
        need_tool redis-cli
        assert_equal "OK\n2\n2" [cli_stdin "SET a 1\nINCR a\nGET a\n"]
    }

    test "redis-cli -x takes the last argument from stdin" {
        need_tool redis-cli
        assert_equal OK [cli_stdin "line from stdin\n" -x set fromstdin]
        assert_equal "line from stdin\n" [r get fromstdin]
    }

    test "redis-cli -n selects the database" {
        need_tool redis-cli
        assert_equal OK [cli -n 3 set indb3 yes]
        assert_equal 1 [cli -n 3 exists indb3]
        assert_equal 0 [cli -n 0 exists indb3]
    }

    test "redis-cli --pipe mass insertion reports every reply" {
        need_tool redis-cli
        r flushall
        set proto ""
        for {set i 0} {$i < 1000} {incr i} {
            set key "mass:$i"
            append proto "*3\r\n\$3\r\nSET\r\n\$[string length $key]\r\n$key\r\n\$1\r\nv\r\n"
        }
        set out [cli_stdin $proto --pipe]
        assert_match "*errors: 0, replies: 1000*" $out
        assert_equal 1000 [r dbsize]
    }

    test "redis-cli --scan with --pattern visits every matching key" {
        need_tool redis-cli
        set keys [lsort [split [cli --scan --pattern "mass:1??"] "\n"]]
        assert_equal 100 [llength $keys]
        assert_equal mass:100 [lindex $keys 0]
        assert_equal mass:199 [lindex $keys end]
    }

    test "redis-cli over the unix socket and with RESP3" {
        need_tool redis-cli
        catch {exec [tool_path redis-cli] -s [srv unixsocket] ping 2>@1} out
        assert_equal PONG $out
        assert_equal "server redis" [lindex [split [cli -3 hello 3] "\n"] 0]
        assert_equal "" [cli -3 get nosuchkey]
    }

    test "redis-cli info, client list and config get" {
        need_tool redis-cli
        assert_match "*redis_version:*" [cli info server]
        assert_match "id=* addr=127.0.0.1:* cmd=*" [cli client list]
        assert_equal "port\n[srv port]" [cli config get port]
    }
}

start_server {tags {tools}} {
    test "redis-benchmark runs the core tests without errors" {
        need_tool redis-benchmark
        set out [exec -ignorestderr [tool_path redis-benchmark] -h [srv host] -p [srv port] \
                     -t ping,set,get,incr,mset -n 2000 -c 10 -q]
        foreach name {PING_INLINE PING_MBULK SET GET INCR MSET} {
            assert_match "*$name*requests per second*" $out
        }
        assert_no_match "*rror*" $out
        assert_equal 0 [s total_error_replies]
    }

    test "redis-benchmark with pipelining and random keys" {
        need_tool redis-benchmark
        set out [exec -ignorestderr [tool_path redis-benchmark] -h [srv host] -p [srv port] \
                     -t set,get -n 5000 -c 20 -P 16 -r 1000 -q]
        assert_match "*SET*requests per second*GET*requests per second*" $out
        assert_no_match "*rror*" $out
        assert_morethan [r dbsize] 100
    }
}
