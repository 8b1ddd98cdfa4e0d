# moduleapi-acl.tcl -- module users and the ACL API of Redis 7.0 modules
# (src/module_acl.c): CreateModuleUser, SetModuleUserACL(String),
# AuthenticateClientWith(ACL)User and the user-changed callback, FreeModuleUser,
# DeauthenticateAndCloseClient, GetCurrentUserName, GetClientUserNameById, the
# ACLCheck*Permissions, ACLAddLogEntry, RedactClientCommandArgument and
# GetClientCertificate, through the test module tests/modules/macl.c.
# Every expectation holds for Debian's Redis 7.0.15 loading the same .so:
# run the file with --server /usr/bin/redis-server to check.

source [file join $::harness_dir modules.tcl] ;# module_skip_reason, need_modules

# The rules of a module user as a sorted list: Redis prints single commands
# in its hash table's order, we in the command table's.
proc macl_rules {} { return [lsort [r macl.describe]] }

# The error a command raised ("" if none).
proc catch_error {script} {
    if {[catch {uplevel 1 $script} e]} { return $e }
    return ""
}

# A field of the n-th newest ACL LOG entry.
proc macl_log_field {n field} { return [dict get [lindex [r acl log] $n] $field] }

start_server {tags {module} overrides {enable-module-command yes}} {
    test "CreateModuleUser, SetModuleUserACL: rules apply one by one; the user is in no ACL list" {
        need_modules
        r module load [file join $::module_dir macl.so]
        assert_equal OK [r macl.create modu on >pw ~foo* &chan* +get +acl|whoami]
        assert_equal [lsort {on #30c952fab122c3f9759f02a6d95c3758b246b4fee239957b2d4fee46e26170c4 ~foo*
                             resetchannels &chan* -@all +get +acl|whoami}] [macl_rules]
        assert_equal {{user default on nopass ~* &* +@all}} [r acl list]
        assert_equal {} [r acl getuser modu]
        assert_equal {default} [r acl users]
        # AUTH knows only ACL users
        assert_error {WRONGPASS*} {r auth modu pw}
    }

    test "SetModuleUserACL: a refused rule, with Redis's errno for each reason" {
        need_modules
        assert_equal {ERR rule nosuchrule refused EINVAL} [catch_error {r macl.create bad nosuchrule}]
        assert_equal {ERR rule +nosuchcmd refused ENOENT} [catch_error {r macl.create bad +nosuchcmd}]
        assert_equal {ERR rule ~x refused EEXIST} [catch_error {r macl.create bad ~* ~x}]
        assert_equal {ERR rule &x refused EISDIR} [catch_error {r macl.create bad &* &x}]
        assert_equal {ERR rule <nopw refused ENODEV} [catch_error {r macl.create bad <nopw}]
        assert_equal {ERR rule #abc refused EBADMSG} [catch_error {r macl.create bad #abc}]
        assert_equal {ERR rule +acl|whoami|x refused ECHILD} [catch_error {r macl.create bad +acl|whoami|x}]
    }

    test "SetModuleUserACLString: all or nothing, ACL SETUSER's error texts" {
        need_modules
        assert_equal OK [r macl.create modu on]
        assert_equal OK [r macl.rules "on >pw ~foo* %R~rd* &chan* +get +set +acl|whoami"]
        set rules [macl_rules]
        assert_equal [lsort {on #30c952fab122c3f9759f02a6d95c3758b246b4fee239957b2d4fee46e26170c4 ~foo* %R~rd*
                             resetchannels &chan* -@all +get +set +acl|whoami}] $rules
        assert_error {ERR Error in ACL SETUSER modifier '+nope': Unknown command or category name in ACL} {
            r macl.rules "+del +nope"
        }
        assert_error {ERR Unmatched parenthesis in acl selector starting at '(~x'.} {r macl.rules "+del (~x"}
        assert_equal $rules [macl_rules]
        # unbalanced quotes: no rules at all, which is OK
        assert_equal OK [r macl.rules "+del \"oops"]
        assert_equal $rules [macl_rules]
    }

    test "ACLCheckCommandPermissions: allowed, denied (EACCES), unknown command (ENOENT)" {
        need_modules
        assert_equal OK [r macl.checkcmd @mod get foo1]
        assert_equal {ERR denied EACCES} [catch_error {r macl.checkcmd @mod get bar}]
        assert_equal OK [r macl.checkcmd @mod set foo1 v]
        assert_equal {ERR denied EACCES} [catch_error {r macl.checkcmd @mod set rd1 v}]
        assert_equal {ERR denied EACCES} [catch_error {r macl.checkcmd @mod del foo1}]
        assert_equal {ERR denied ENOENT} [catch_error {r macl.checkcmd @mod nosuch foo1}]
        assert_equal OK [r macl.checkcmd @mod acl whoami]
        assert_equal {ERR denied EACCES} [catch_error {r macl.checkcmd @mod acl list}]
        # GetModuleUserFromUserName: ACL users; unknown names give NULL
        assert_equal OK [r macl.checkcmd default get foo1]
        assert_error {ERR no such user} {r macl.checkcmd nobody get foo1}
        r acl setuser limited on nopass ~k* +get
        assert_equal OK [r macl.checkcmd limited get k1]
        assert_equal {ERR denied EACCES} [catch_error {r macl.checkcmd limited get x}]
        assert_equal {ERR denied EACCES} [catch_error {r macl.checkcmd limited set k1 v}]
    }

    test "ACLCheckKeyPermissions: access flags against %R~ / ~ patterns; other flags EINVAL" {
        need_modules
        assert_equal OK [r macl.checkkey @mod R foo1]
        assert_equal OK [r macl.checkkey @mod RWID foo1]
        assert_equal OK [r macl.checkkey @mod - foo1]
        assert_equal {ERR denied EACCES} [catch_error {r macl.checkkey @mod - bar}]
        assert_equal OK [r macl.checkkey @mod R rd1]
        assert_equal OK [r macl.checkkey @mod - rd1]
        assert_equal {ERR denied EACCES} [catch_error {r macl.checkkey @mod W rd1}]
        assert_equal {ERR denied EACCES} [catch_error {r macl.checkkey @mod I rd1}]
        assert_equal {ERR denied EACCES} [catch_error {r macl.checkkey @mod D rd1}]
        assert_equal {ERR denied EINVAL} [catch_error {r macl.checkkey @mod O foo1}]
        assert_equal {ERR denied EINVAL} [catch_error {r macl.checkkey @mod RO foo1}]
        assert_equal OK [r macl.checkkey default RWID anything]
    }

    test "ACLCheckChannelPermissions: channels match the patterns, patterns only literally" {
        need_modules
        assert_equal OK [r macl.checkchan @mod - chan1]
        assert_equal OK [r macl.checkchan @mod S chan1]
        assert_equal OK [r macl.checkchan @mod BS chan9]
        assert_match {ERR denied*} [catch_error {r macl.checkchan @mod B other}]
        assert_match {ERR denied*} [catch_error {r macl.checkchan @mod P chan1}]
        assert_equal OK [r macl.checkchan @mod P chan*]
        # unsubscribing is always allowed; an unknown flag is EINVAL
        assert_equal OK [r macl.checkchan @mod U other]
        assert_equal {ERR denied EINVAL} [catch_error {r macl.checkchan @mod X chan1}]
        assert_equal OK [r macl.checkchan default P anything*]
    }

    test "AuthenticateClientWithUser: the client becomes the module user (WHOAMI, permissions, CLIENT LIST)" {
        need_modules
        set c [redis_client]
        set id [$c client id]
        assert_equal $id [$c macl.auth]
        assert_equal modu [$c acl whoami]
        assert_equal modu [r macl.username $id]
        assert_match "*id=$id *user=modu*" [r client list id $id]
        r set foo1 v1
        assert_equal v1 [$c get foo1]
        assert_equal OK [$c set foo1 v2]
        assert_error {NOPERM*keys*} {$c get bar}
        assert_error {NOPERM*'del'*} {$c del foo1}
        assert_error {NOPERM*'ping'*} {$c ping}
        assert_equal {0 0} [r macl.callbacks]
        # a denial the server logs names the module user
        r acl log reset
        catch {$c get bar}
        assert_equal {modu key bar toplevel} [list [macl_log_field 0 username] [macl_log_field 0 reason] \
                                                  [macl_log_field 0 object] [macl_log_field 0 context]]
        set ::macl_client $c
        set ::macl_id $id
    }

    test "FreeModuleUser: the callback fires at once with the client's id, and the client is closed" {
        need_modules
        assert_equal OK [r macl.free]
        assert_equal [list 1 $::macl_id] [r macl.callbacks]
        assert_error {*} {$::macl_client ping}
        $::macl_client close
        wait_for_condition 50 20 { [r client list id $::macl_id] eq "" } else { fail "client not closed" }
        assert_equal {1} [llength [split [string trim [r client list]] "\n"]]
        assert_equal [list 1 $::macl_id] [r macl.callbacks]
    }

    test "The callback fires once when the user changes: AUTH, RESET, another module authentication" {
        need_modules
        r macl.create modu on +@all ~* &*
        r acl setuser other on >op +@all ~*
        set c [redis_client]
        set id [$c client id]
        # AUTH to an ACL user
        assert_equal $id [$c macl.auth]
        assert_equal OK [$c auth other op]
        assert_equal [list 2 $id] [r macl.callbacks]
        assert_equal other [$c acl whoami]
        # RESET
        assert_equal $id [$c macl.auth]
        assert_equal RESET [$c reset]
        assert_equal [list 3 $id] [r macl.callbacks]
        assert_equal default [$c acl whoami]
        # authenticating again: the previous callback fires first
        assert_equal $id [$c macl.auth]
        assert_equal $id [$c macl.authacl other]
        assert_equal [list 4 $id] [r macl.callbacks]
        assert_equal other [$c macl.whoami]
        # ...and a freed client fires the last one
        $c close
        wait_for_condition 50 20 { [lindex [r macl.callbacks] 0] == 5 } else { fail "no callback at close" }
    }

    test "AuthenticateClientWithACLUser: unknown or disabled users are refused" {
        need_modules
        set c [redis_client]
        assert_error {ERR authentication refused} {$c macl.authacl nobody}
        r acl setuser offuser off +@all
        assert_error {ERR authentication refused} {$c macl.authacl offuser}
        r macl.create modu off +@all
        assert_error {ERR authentication refused} {$c macl.auth}
        assert_equal default [$c acl whoami]
        $c close
    }

    test "DeauthenticateAndCloseClient: callback, then the client is closed; unknown ids refused" {
        need_modules
        set before [lindex [r macl.callbacks] 0]
        set c [redis_client]
        set id [$c client id]
        assert_equal $id [$c macl.authacl other]
        assert_equal OK [r macl.deauth $id]
        assert_equal [list [expr {$before + 1}] $id] [r macl.callbacks]
        assert_error {*} {$c ping}
        $c close
        assert_error {ERR no such client} {r macl.deauth 987654}
    }

    test "ACL DELUSER of a user a module authenticated with: callback, client closed" {
        need_modules
        set before [lindex [r macl.callbacks] 0]
        set c [redis_client]
        set id [$c client id]
        assert_equal $id [$c macl.authacl other]
        assert_equal 1 [r acl deluser other]
        assert_equal [list [expr {$before + 1}] $id] [r macl.callbacks]
        assert_error {*} {$c ping}
        $c close
    }

    test "GetCurrentUserName, GetClientUserNameById: names; an unknown id is ENOENT" {
        need_modules
        assert_equal default [r macl.whoami]
        r acl setuser named on >np +@all
        set c [redis_client]
        $c auth named np
        assert_equal named [$c macl.whoami]
        assert_equal named [r macl.username [$c client id]]
        assert_equal default [r macl.username [r client id]]
        assert_equal {ERR errno ENOENT} [catch_error {r macl.username 987654}]
        $c close
    }

    test "ACLAddLogEntry: entries in the module context, with the module user and the caller's info" {
        need_modules
        r macl.create modu on
        r acl log reset
        r client setname logger
        assert_equal OK [r macl.log @mod 1 mycmd]
        assert_equal OK [r macl.log @mod 2 mykey]
        assert_equal OK [r macl.log @mod 3 mych]
        assert_equal OK [r macl.log @mod 0 myauth]
        assert_equal OK [r macl.log default 2 otherkey]
        assert_equal OK [r macl.log @mod 9 ignored]
        set log [r acl log]
        assert_equal 5 [llength $log]
        set got {}
        foreach e $log {
            lappend got [list [dict get $e reason] [dict get $e context] [dict get $e object] [dict get $e username] \
                             [dict get $e count]]
        }
        assert_equal [list {key module otherkey default 1} {auth module myauth modu 1} {channel module mych modu 1} \
                          {key module mykey modu 1} {command module mycmd modu 1}] $got
        assert_equal {count reason context object username age-seconds client-info} [dict keys [lindex $log 0]]
        assert_match "*name=logger*cmd=macl.log*user=default*" [dict get [lindex $log 0] client-info]
        # the same entry again within a minute: counted, moved to the front
        r macl.log @mod 1 mycmd
        assert_equal {command 2 mycmd} [list [macl_log_field 0 reason] [macl_log_field 0 count] [macl_log_field 0 object]]
        assert_equal 5 [llength [r acl log]]
        r client setname ""
    }

    test "RedactClientCommandArgument: SLOWLOG shows (redacted); the module still reads the value" {
        need_modules
        r config set slowlog-log-slower-than 0
        r slowlog reset
        # redacting position 0 or past the arguments is refused
        assert_equal {0 secret 1 1} [r macl.redact a secret c]
        set entry [lindex [r slowlog get] 0]
        r config set slowlog-log-slower-than 10000
        assert_equal {macl.redact a (redacted) c} [lindex $entry 3]
    }

    test "GetClientCertificate: NULL on a connection without TLS" {
        need_modules
        assert_equal {} [r macl.cert]
    }

    test "Unloading the module revokes the clients it authenticated with a callback" {
        need_modules
        r macl.create modu on +@all ~* &*
        set c [redis_client]
        set id [$c client id]
        assert_equal $id [$c macl.auth]
        assert_equal OK [r module unload macl]
        assert_error {*} {$c ping}
        $c close
        wait_for_condition 50 20 { [r client list id $id] eq "" } else { fail "client not closed" }
    }
}
