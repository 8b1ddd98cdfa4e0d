# acl.tcl -- ACL users as Redis 7.0 has them: ACL SETUSER rules and their
# errors, how ACL LIST / GETUSER write them back, AUTH and HELLO with users,
# the NOPERM refusals of commands, subcommands, keys and channels (root
# rules and selectors), ACL DRYRUN, ACL LOG (fields, grouping, limits),
# MULTI/EXEC, what happens to clients of changed and deleted users,
# requirepass as the default user's password, ACL CAT, ACL GENPASS and
# CLIENT KILL USER.
#
# Design decisions:
# - Every expectation was first checked against Debian's Redis 7.0.15
#   (./runtest --server /usr/bin/redis-server --single tests/unit/acl.tcl).
#   Where 7.0 prints single commands in its hash table's order, the tests
#   compare only descriptions with at most one such command.
# - Each test creates the users it needs and deletes them at the end, so
#   tests do not depend on one another.

proc acl_client {user pass} {
    set c [redis_client]
    $c auth $user $pass
    return $c
}

start_server {tags {acl}} {
    test "the default user and a new user as ACL LIST shows them" {
        assert_equal {{user default on nopass ~* &* +@all}} [r acl list]
        assert_equal OK [r acl setuser newbie]
        assert_equal {user newbie off resetchannels -@all} [lindex [r acl list] 1]
        assert_equal {default newbie} [r acl users]
        assert_equal default [r acl whoami]
        r acl deluser newbie
    }

    test "ACL LIST writes flags, passwords, keys, channels, commands, selectors in order" {
        r acl setuser rich on {>p1} {~k*} {%R~r*} {%W~w*} {&ch*} -@all +@string -incr {(~a* +get)} {(%W~b* &x +set)}
        set hash [exec printf %s p1 | sha256sum]
        set hash [lindex $hash 0]
        assert_equal "user rich on #$hash ~k* %R~r* %W~w* resetchannels &ch* -@all +@string -incr (~a* resetchannels -@all +get) (%W~b* resetchannels &x -@all +set)" \
            [lindex [r acl list] 1]
        r acl setuser all on nopass allkeys allchannels allcommands
        assert_equal {user all on nopass ~* &* +@all} [lindex [r acl list] 0]
        r acl setuser sani skip-sanitize-payload
        assert_match {user sani off skip-sanitize-payload resetchannels -@all} [lindex [r acl list] 3]
        r acl setuser sani reset
        assert_match {user sani off sanitize-payload resetchannels -@all} [lindex [r acl list] 3]
        r acl deluser rich all sani
    }

    test "ACL GETUSER fields" {
        r acl setuser g on {>pw} {~a} {%R~b} {&c} +get {(~x +set)}
        set u [r acl getuser g]
        assert_equal {flags passwords commands keys channels selectors} [dict keys $u]
        assert_equal {on} [dict get $u flags]
        assert_equal 1 [llength [dict get $u passwords]]
        assert_equal {-@all +get} [dict get $u commands]
        assert_equal {~a %R~b} [dict get $u keys]
        assert_equal {&c} [dict get $u channels]
        set sel [lindex [dict get $u selectors] 0]
        assert_equal {-@all +set} [dict get $sel commands]
        assert_equal {~x} [dict get $sel keys]
        assert_equal {} [dict get $sel channels]
        assert_equal {} [r acl getuser nosuchuser]
        set d [r acl getuser default]
        assert_equal {on nopass} [dict get $d flags]
        assert_equal {~*} [dict get $d keys]
        assert_equal {&*} [dict get $d channels]
        assert_equal {+@all} [dict get $d commands]
        r acl deluser g
    }

    test "rules that repeat or merge" {
        r acl setuser m {%R~x} {%W~x} {&c} {&c} {>a} {>a}
        set u [r acl getuser m]
        assert_equal {~x} [dict get $u keys]
        assert_equal {&c} [dict get $u channels]
        assert_equal 1 [llength [dict get $u passwords]]
        r acl setuser m {<a}
        assert_equal {} [dict get [r acl getuser m] passwords]
        r acl setuser m nopass
        assert_equal {off nopass} [dict get [r acl getuser m] flags]
        r acl setuser m resetpass
        assert_equal {off} [dict get [r acl getuser m] flags]
        r acl setuser m allkeys resetkeys {~y}
        assert_equal {~y} [dict get [r acl getuser m] keys]
        r acl deluser m
    }

    test "malformed rules: Redis's error texts" {
        foreach {rule why} {
            foo {Syntax error}
            +nosuchcmd {Unknown command or category name in ACL}
            +@nosuchcat {Unknown command or category name in ACL}
            -@nosuchcat {Unknown command or category name in ACL}
            +config|nosuch {Unknown command or category name in ACL}
            +select|0|1 {Unknown command or category name in ACL}
            -select|0 {Unknown command or category name in ACL}
            +config|get|x {Allowing first-arg of a subcommand is not supported}
            %X~a {Syntax error}
            %~a {Syntax error}
            %RR~a {Syntax error}
            #abc {The password hash must be exactly 64 characters and contain only lowercase hexadecimal characters}
            !abc {The password hash must be exactly 64 characters and contain only lowercase hexadecimal characters}
            <nope {The password you are trying to remove from the user does not exist}
            (foo) {Syntax error}
        } {
            assert_error "ERR Error in ACL SETUSER modifier '$rule': $why" [list r acl setuser bad $rule]
        }
        assert_error "ERR Unmatched parenthesis in acl selector starting at '(~a'." {r acl setuser bad (~a +get}
        assert_error "ERR Usernames can't contain spaces or null characters" {r acl setuser "a b"}
        assert_equal {default} [r acl users]
    }

    test "patterns after allkeys / allchannels are refused" {
        assert_error "ERR Error in ACL SETUSER modifier '~b': Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not have any effect. Try 'resetkeys' to start with an empty list of patterns" \
            {r acl setuser p allkeys ~b}
        assert_error "ERR Error in ACL SETUSER modifier '&x': Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and does not have any effect. Try 'resetchannels' to start with an empty list of channels" \
            {r acl setuser p allchannels &x}
    }

    test "ACL SETUSER is all or nothing" {
        r acl setuser keep on {~a} +get
        set before [r acl list]
        assert_error "*Syntax error*" {r acl setuser keep off {~b} -get bogus}
        assert_equal $before [r acl list]
        r acl deluser keep
    }

    test "AUTH with users, and WRONGPASS for every failure" {
        r acl setuser alice on {>secret} allkeys +@all
        r acl setuser off-user off {>secret} allkeys +@all
        set c [redis_client]
        assert_equal OK [$c auth alice secret]
        assert_equal alice [$c acl whoami]
        assert_error "WRONGPASS invalid username-password pair or user is disabled." {$c auth alice wrong}
        assert_error "WRONGPASS invalid username-password pair or user is disabled." {$c auth off-user secret}
        assert_error "WRONGPASS invalid username-password pair or user is disabled." {$c auth nobody secret}
        assert_equal alice [$c acl whoami] ;# a failed AUTH keeps the user
        set h [$c hello 2 auth default anything]
        assert_equal default [$c acl whoami]
        assert_error "WRONGPASS invalid username-password pair or user is disabled." {$c hello 3 auth alice nope}
        $c close
        r acl deluser alice off-user
    }

    test "NOPERM for commands, subcommands, keys and channels" {
        r acl setuser lim on {>pw} {~k*} {&ch*} +@all -incr -client|kill
        set c [acl_client lim pw]
        assert_error "NOPERM this user has no permissions to run the 'incr' command" {$c incr k}
        assert_error "NOPERM this user has no permissions to run the 'client|kill' command" {$c client kill id 99999}
        assert_error "NOPERM this user has no permissions to access one of the keys used as arguments" {$c get x}
        assert_error "NOPERM this user has no permissions to access one of the keys used as arguments" {$c mget k1 x}
        assert_equal OK [$c set k1 v]
        assert_error "NOPERM this user has no permissions to access one of the channels used as arguments" {$c publish x m}
        assert_equal 0 [$c publish ch1 m]
        assert_error "NOPERM this user has no permissions to access one of the channels used as arguments" {$c subscribe ch1 x}
        $c close
        r acl deluser lim
    }

    test "a user without commands can still AUTH, HELLO, RESET and QUIT" {
        r acl setuser none on {>x} -@all
        set c [redis_client]
        assert_equal OK [$c auth none x]
        assert_error "NOPERM this user has no permissions to run the 'ping' command" {$c ping}
        assert_error "NOPERM this user has no permissions to run the 'acl|whoami' command" {$c acl whoami}
        $c hello 2 auth none x
        assert_equal RESET [$c reset]
        assert_equal default [$c acl whoami]
        $c close
        r acl deluser none
    }

    test "PSUBSCRIBE needs the pattern itself, SUBSCRIBE a matching pattern" {
        r acl setuser ps on nopass +@all {&news.*}
        set c [redis_client]
        $c auth ps any
        assert_error "NOPERM *channels*" {$c psubscribe news.sport*}
        $c close
        assert_equal OK [r acl dryrun ps psubscribe news.*]
        assert_equal OK [r acl dryrun ps subscribe news.sport]
        assert_equal "This user has no permissions to access the 'news.sport*' channel" \
            [r acl dryrun ps psubscribe news.sport*]
        r acl deluser ps
    }

    test "read and write key permissions (%R~ %W~)" {
        r acl setuser rw on nopass +@all {%R~r*} {%W~w*}
        assert_equal OK [r acl dryrun rw get r1]
        assert_equal "This user has no permissions to access the 'r1' key" [r acl dryrun rw set r1 v]
        assert_equal OK [r acl dryrun rw set w1 v]
        assert_equal "This user has no permissions to access the 'w1' key" [r acl dryrun rw get w1]
        assert_equal "This user has no permissions to access the 'w1' key" [r acl dryrun rw copy w1 r1]
        assert_equal OK [r acl dryrun rw copy r1 w1]
        assert_equal OK [r acl dryrun rw exists w1]
        r acl deluser rw
    }

    test "SORT BY and GET patterns need access to every key" {
        r acl setuser so on {>x} {~l*} +@all
        r del l1
        r rpush l1 2 1
        set c [acl_client so x]
        assert_error "ERR BY option of SORT denied due to insufficient ACL permissions." {$c sort l1 by w_*}
        assert_error "ERR GET option of SORT denied due to insufficient ACL permissions." {$c sort l1 get #}
        assert_equal {2 1} [$c sort l1 by nosort]
        assert_equal {1 2} [$c sort l1]
        $c close
        r acl setuser so allkeys
        set c [acl_client so x]
        assert_equal {1 2} [$c sort l1 get #]
        $c close
        r acl deluser so
        r del l1
    }

    test "first arguments: +select|0" {
        r acl setuser fa on nopass allkeys -@all {+select|0} {+client|id}
        assert_equal OK [r acl dryrun fa select 0]
        assert_equal "This user has no permissions to run the 'select' command" [r acl dryrun fa select 1]
        assert_equal OK [r acl dryrun fa client id]
        assert_equal "This user has no permissions to run the 'client|list' command" [r acl dryrun fa client list]
        set rules [dict get [r acl getuser fa] commands]
        assert_equal -@all [lindex $rules 0]
        assert_equal {+client|id +select|0} [lsort [lrange $rules 1 end]] ;# 7.0 lists them in hash order
        wait_for_log "*Deprecation warning: Allowing a first arg of an otherwise blocked command is a misuse of ACL and may get disabled in the future (offender: +select|0)*"
        r acl deluser fa
    }

    test "selectors: one of them allowing all of the command is enough" {
        r acl setuser sel on nopass {~a*} +get {(~b* +set)}
        assert_equal OK [r acl dryrun sel get a1]
        assert_equal OK [r acl dryrun sel set b1 v]
        # the most relevant denial wins: a key over a command
        assert_equal "This user has no permissions to access the 'a1' key" [r acl dryrun sel set a1 v]
        assert_equal "This user has no permissions to access the 'b1' key" [r acl dryrun sel get b1]
        r acl setuser sel clearselectors
        assert_equal {} [dict get [r acl getuser sel] selectors]
        r acl deluser sel
    }

    test "ACL DRYRUN errors" {
        r acl setuser d on nopass +@all allkeys
        assert_error "ERR User 'nobody' not found" {r acl dryrun nobody get x}
        assert_error "ERR Command 'nosuchcmd' not found" {r acl dryrun d nosuchcmd}
        assert_error "ERR wrong number of arguments for 'get' command" {r acl dryrun d get}
        assert_error "ERR wrong number of arguments for 'acl|dryrun' command" {r acl dryrun d}
        r acl deluser d
    }

    test "ACL LOG: fields, grouping, count, RESET" {
        r acl log reset
        r acl setuser lg on {>pw} {~k*} +@all -incr
        set c [acl_client lg pw]
        catch {$c incr k}
        catch {$c get x}
        catch {$c mget k1 x}
        set log [r acl log]
        assert_equal 2 [llength $log]
        set e [lindex $log 0]
        assert_equal {count reason context object username age-seconds client-info} [lrange [dict keys $e] 0 6]
        assert_equal 2 [dict get $e count]
        assert_equal key [dict get $e reason]
        assert_equal toplevel [dict get $e context]
        assert_equal x [dict get $e object]
        assert_equal lg [dict get $e username]
        assert_match {*cmd=mget user=lg*} [dict get $e client-info]
        set e [lindex $log 1]
        assert_equal command [dict get $e reason]
        assert_equal incr [dict get $e object]
        assert_equal 1 [llength [r acl log 1]]
        assert_equal {} [r acl log 0]
        assert_error "ERR value is not an integer or out of range" {r acl log abc}
        assert_equal OK [r acl log reset]
        assert_equal {} [r acl log]
        $c close
        r acl deluser lg
    }

    test "ACL LOG entries have Redis 7.0's seven fields (not 7.2's entry-id and timestamps)" {
        r acl log reset
        set c [redis_client]
        catch {$c auth ts1 wrong}
        catch {$c auth ts1 wrong}
        set entry [lindex [r acl log] 0]
        assert_equal {count reason context object username age-seconds client-info} [dict keys $entry]
        assert_equal 2 [dict get $entry count]
        $c close
    }

    test "every failed AUTH is logged, grouped by user" {
        r acl log reset
        set c [redis_client]
        for {set i 0} {$i < 3} {incr i} { catch {$c auth someone wrong} }
        catch {$c auth other wrong}
        set log [r acl log]
        assert_equal 2 [llength $log]
        assert_equal {auth other 1} [list [dict get [lindex $log 0] reason] [dict get [lindex $log 0] username] [dict get [lindex $log 0] count]]
        assert_equal {auth someone 3} [list [dict get [lindex $log 1] reason] [dict get [lindex $log 1] username] [dict get [lindex $log 1] count]]
        assert_equal auth [dict get [lindex $log 1] object]
        $c close
    }

    test "acllog-max-len keeps the newest entries" {
        r acl log reset
        r config set acllog-max-len 2
        set c [redis_client]
        foreach u {u1 u2 u3} { catch {$c auth $u wrong} }
        set log [r acl log]
        assert_equal {u3 u2} [list [dict get [lindex $log 0] username] [dict get [lindex $log 1] username]]
        r config set acllog-max-len 128
        $c close
    }

    test "MULTI: a denied command fails when queued, changed rules fail at EXEC" {
        r acl setuser mu on {>pw} allkeys +@all -incr
        set c [acl_client mu pw]
        $c multi
        assert_error "NOPERM this user has no permissions to run the 'incr' command" {$c incr k}
        $c set k v
        assert_error "EXECABORT Transaction discarded because of previous errors." {$c exec}
        assert_equal multi [dict get [lindex [r acl log] 0] context]
        $c multi
        $c set k v
        $c get k
        r acl setuser mu -set
        catch {$c exec} err
        assert_match "*NOPERM ACLs rules changed between the moment the transaction was accumulated and the EXEC call. This command is no longer allowed for the following reason: no permission to execute the command or subcommand*" $err
        $c close
        r acl deluser mu
    }

    test "changed rules apply to connected clients at once" {
        r acl setuser ch on {>pw} allkeys +@all
        set c [acl_client ch pw]
        assert_equal {} [$c get k2]
        r acl setuser ch -get
        assert_error "NOPERM this user has no permissions to run the 'get' command" {$c get k2}
        r acl setuser ch off
        assert_error "NOPERM*" {$c get k2} ;# already authenticated: still that user
        $c close
        r acl deluser ch
    }

    test "ACL DELUSER disconnects the user's clients; default can't be removed" {
        r acl setuser gone on {>pw} +@all
        set c [acl_client gone pw]
        assert_equal 1 [r acl deluser gone nosuch]
        assert_error "*" {$c ping}
        assert_error "ERR The 'default' user cannot be removed" {r acl deluser default}
        assert_error "ERR The 'default' user cannot be removed" {r acl deluser x default}
    }

    test "ACL DELUSER of the client's own user: the reply comes, then the connection closes" {
        r acl setuser self on {>pw} +acl +ping
        set c [acl_client self pw]
        assert_equal 1 [$c acl deluser self]
        assert_error "*" {$c ping}
        # the same inside MULTI: EXEC's whole reply first (Redis 7.0 cuts the
        # EXEC reply short after the DELUSER's, an array shorter than its
        # header says; we deliberately send it whole)
        r acl setuser self on {>pw} +acl +ping +multi +exec
        set c [acl_client self pw]
        $c multi
        $c acl deluser self
        $c ping
        assert_equal {1 PONG} [$c exec]
        assert_error "*" {$c ping}
        # and with replies switched off: closed all the same
        r acl setuser self on {>pw} +acl +client|reply +ping
        set c [acl_client self pw]
        $c deferred 1
        $c client reply off
        $c acl deluser self
        $c ping
        assert_error "*" {$c read} ;# no reply, the connection closed
        assert_equal PONG [r ping]
    }

    test "a subscriber whose user loses the channel is disconnected" {
        r acl setuser sub on nopass +@all {&news}
        set c [redis_client]
        $c auth sub x
        $c subscribe news
        r acl setuser sub resetchannels {&other}
        wait_for_condition 50 20 {[catch {$c ping}]} else { fail "subscriber still connected" }
        r acl deluser sub
    }

    test "requirepass is the default user's password" {
        r config set requirepass s3cret
        set c [redis_client]
        assert_error "NOAUTH Authentication required." {$c ping}
        assert_error "WRONGPASS invalid username-password pair or user is disabled." {$c auth wrong}
        assert_equal OK [$c auth s3cret]
        assert_equal OK [$c auth default s3cret]
        assert_equal {on} [dict get [$c acl getuser default] flags]
        assert_equal 1 [llength [dict get [$c acl getuser default] passwords]]
        $c config set requirepass ""
        assert_equal {on nopass} [dict get [$c acl getuser default] flags]
        $c close
    }

    test "ACL CAT" {
        assert_equal {keyspace read write set sortedset list hash string bitmap hyperloglog geo stream pubsub admin fast slow blocking dangerous connection transaction scripting} \
            [r acl cat]
        assert_error "ERR Unknown category 'nosuch'" {r acl cat nosuch}
        set strings [r acl cat string]
        assert {[lsearch $strings get] >= 0 && [lsearch $strings set] >= 0}
        assert {[lsearch [r acl cat admin] config|set] >= 0}
        assert {[lsearch [r acl cat connection] client|id] >= 0}
    }

    test "ACL SETUSER's arguments are redacted in the slow log" {
        r config set slowlog-log-slower-than 0
        r slowlog reset
        r acl setuser sl on {>secretpw}
        set entry [lindex [r slowlog get 1] 0]
        r config set slowlog-log-slower-than 10000
        assert_equal {acl setuser (redacted) (redacted) (redacted)} [lindex $entry 3]
        r acl deluser sl
    }

    test "ACL GENPASS" {
        assert_equal 64 [string length [r acl genpass]]
        assert_equal 2 [string length [r acl genpass 5]]
        assert_equal 1024 [string length [r acl genpass 4096]]
        assert_match {[0-9a-f]*} [r acl genpass]
        foreach bad {0 -1 4097} {
            assert_error "ERR ACL GENPASS argument must be the number of bits for the output password, a positive number up to 4096" \
                [list r acl genpass $bad]
        }
        assert_error "ERR value is not an integer or out of range" {r acl genpass abc}
    }

    test "ACL SAVE / LOAD without an aclfile" {
        assert_error "ERR This Redis instance is not configured to use an ACL file*" {r acl save}
        assert_error "ERR This Redis instance is not configured to use an ACL file*" {r acl load}
    }

    test "a script's redis.call runs with its caller's permissions (commands, keys, channels), logged as lua" {
        r acl setuser scr on {>pw} {~a*} {&x} +eval +get +publish
        set c [acl_client scr pw]
        r acl log reset
        assert_error "ERR The user executing the script can't run this command or subcommand script: *" \
            {$c eval "return redis.call('set','a1','v')" 0}
        assert_error "ERR The user executing the script can't access at least one of the keys mentioned in the command arguments script: *" \
            {$c eval "return redis.call('get','zz')" 0}
        assert_error "ERR The user executing the script can't publish to the channel mentioned in the command script: *" \
            {$c eval "return redis.call('publish','ch','m')" 0}
        assert_equal {ERR The user executing the script can't run this command or subcommand} \
            [$c eval {return redis.pcall('set','a1','v')['err']} 0]
        assert_equal {} [$c eval "return redis.call('get','a1')" 0]
        assert_equal 0 [r exists a1]
        set entries [r acl log]
        assert_equal 3 [llength $entries]
        foreach entry $entries want {{command set} {channel ch} {key zz}} {
            assert_equal lua [dict get $entry context]
            assert_equal scr [dict get $entry username]
            assert_equal $want [list [dict get $entry reason] [dict get $entry object]]
        }
        $c close
        r acl deluser scr
    }

    test "redis.acl_check_cmd answers for the caller and logs nothing" {
        r acl setuser chk on {>pw} {~a*} +eval +get
        set c [acl_client chk pw]
        r acl log reset
        assert_equal 1 [$c eval "return redis.acl_check_cmd('get','a1')" 0]
        assert_equal {} [$c eval "return redis.acl_check_cmd('get','zz')" 0]
        assert_equal {} [$c eval "return redis.acl_check_cmd('set','a1','v')" 0]
        assert_error "ERR Invalid command passed to redis.acl_check_cmd() script: *" \
            {$c eval "return redis.acl_check_cmd('nosuch')" 0}
        assert_error "ERR Please specify at least one argument for this redis lib call script: *" \
            {$c eval "return redis.acl_check_cmd()" 0}
        assert_equal 1 [r eval "return redis.acl_check_cmd('set','zz','v')" 0]
        assert_equal {} [r acl log]
        $c close
        r acl deluser chk
    }

    test "Debian's redis-cli --user/--pass (and a URI with a user) logs in as that user" {
        if {![file executable /usr/bin/redis-cli]} { skip "Debian's redis-cli is not installed (redis-tools)" }
        if {[::harness::external]} { skip "external mode" }
        r acl setuser cliuser on {>pw} {~*} +@all
        set cli [list /usr/bin/redis-cli -h 127.0.0.1 -p [srv port] --no-auth-warning]
        assert_equal cliuser [exec {*}$cli --user cliuser --pass pw acl whoami]
        assert_equal cliuser [exec /usr/bin/redis-cli -u redis://cliuser:pw@127.0.0.1:[srv port] --no-auth-warning acl whoami]
        catch {exec {*}$cli --user cliuser --pass wrong acl whoami 2>@1} out
        assert_match "*WRONGPASS invalid username-password pair or user is disabled.*" $out
        r acl deluser cliuser
    }

    test "CLIENT KILL USER and CLIENT LIST's user field" {
        r acl setuser k on {>pw} +@all
        set c [acl_client k pw]
        assert_match "*user=k*" [$c client info]
        assert_error "ERR No such user 'nosuch'" {r client kill user nosuch}
        assert_equal 1 [r client kill user k]
        assert_error "*" {$c ping}
        r acl deluser k
    }
}

start_server {tags {acl} overrides {acl-pubsub-default allchannels}} {
    test "acl-pubsub-default allchannels: new users get &*" {
        r acl setuser pub
        assert_equal {user pub off &* -@all} [lindex [r acl list] 1]
        r acl setuser pub reset
        assert_equal {user pub off sanitize-payload &* -@all} [lindex [r acl list] 1]
    }

    test "&* and ~* repeat allchannels and allkeys without an error; other patterns after them are refused" {
        r acl setuser rep on nopass {&*} {~*} {~*} {&*} allchannels allkeys +get
        assert_match "*~* &* *" [r acl getuser rep]
        assert_error "*Adding a pattern after the * pattern*" {r acl setuser rep {&news}}
        assert_error "*Adding a pattern after the * pattern*" {r acl setuser rep {~k}}
        r acl deluser rep
    }

    test "selectors: spaces inside the parentheses are separators, however many" {
        r acl setuser sel on nopass {(~key1 +get )} {( ~key2 +get )} {(  ~key3   +get)}
        set selectors [dict get [r acl getuser sel] selectors]
        assert_equal 3 [llength $selectors]
        assert_equal {~key2} [dict get [lindex $selectors 1] keys]
        assert_error "*Syntax error*" {r acl setuser sel {( ~key4 bogus )}}
        r acl deluser sel
    }
}
