# moduleapi-keys-api.tcl -- the keys a module command declares
# ("getkeys-api": IsKeysPositionRequest, KeyAtPos, KeyAtPosWithFlags; the
# legacy first/last/step range) and how COMMAND, COMMAND INFO/DOCS/LIST and
# ACL see module commands, through tests/modules/mkeys.c (src/module.c,
# src/keyspec.c, src/command_cmd.c).
# Every expectation holds for Debian's Redis 7.0.15 loading the same .so:
# run the file with --server /usr/bin/redis-server to check.

source [file join $::harness_dir modules.tcl] ;# module_skip_reason, need_modules

# The fields of one command's COMMAND INFO entry, by name.
proc mkeys_info {name field} {
    set entry [lindex [r command info $name] 0]
    set at [dict get {name 0 arity 1 flags 2 first 3 last 4 step 5 categories 6 tips 7 specs 8 subcommands 9} $field]
    return [lindex $entry $at]
}

start_server {tags {module} overrides {enable-module-command yes}} {
    test "getkeys-api: COMMAND GETKEYS asks the module, which reports positions and flags" {
        need_modules
        assert_equal OK [r module load [file join $::module_dir mkeys.so]]
        assert_equal {a b c} [r command getkeys mkeys.movable 3 a b c x]
        assert_equal {{a {RO access}} {b {RW access update}}} [r command getkeysandflags mkeys.movable 2 a b x y]
        # no keys reported: Redis's error for a command line without keys
        assert_error {*Invalid arguments specified for command*} {r command getkeys mkeys.movable 0 x}
    }

    test "GetCommandKeys(WithFlags): positions and REDISMODULE_CMD_KEY_* flags, errno on failure" {
        need_modules
        # as Redis 7.0: flags come from a getkeys function (SET's: OW UPDATE,
        # 4|32) or a module's getkeys-api; a legacy range (LMOVE's, MSET's,
        # a module's) gives none
        assert_equal {{1 36}} [r mkeys.keysof set k v]
        assert_equal {{1 0} {2 0}} [r mkeys.keysof lmove a b left right]
        assert_equal {1 3 5} [r mkeys.keysof0 mset a 1 b 2 c 3]
        assert_equal {{1 17} {3 36}} [r mkeys.keysof sort k store d]
        assert_equal {{1 0} {7 0}} [r mkeys.keysof georadius k 0 0 1 m store s]
        assert_equal {{4 0} {5 0}} [r mkeys.keysof xread count 1 streams a b 0 0]
        assert_equal {{2 17} {3 50}} [r mkeys.keysof mkeys.movable 2 a b]
        assert_equal {{1 0}} [r mkeys.keysof mkeys.read k]
        assert_equal {} [r mkeys.keysof ping]
        assert_error {*ENOENT*} {r mkeys.keysof nosuchcommand a}
        assert_error {*EINVAL*} {r mkeys.keysof get}
        assert_error {*EINVAL*} {r mkeys.keysof0 get a b}
    }

    test "getkeys-api: the command still runs; KeyAtPos outside a keys request is ignored" {
        need_modules
        assert_equal 2 [r mkeys.movable 2 a b]
        assert_error {*bad key count*} {r mkeys.movable 9 a}
    }

    test "COMMAND INFO of module commands: the module flag, no ACL categories, Redis 7.0's key specs" {
        need_modules
        assert_equal {readonly module movablekeys} [mkeys_info mkeys.movable flags]
        assert_equal {0 0 0} [list [mkeys_info mkeys.movable first] [mkeys_info mkeys.movable last] [mkeys_info mkeys.movable step]]
        assert_equal {} [mkeys_info mkeys.movable specs]
        assert_equal {} [mkeys_info mkeys.movable categories]
        assert_equal {readonly module} [mkeys_info mkeys.read flags]
        # the legacy range has full access whatever the command's flags
        assert_equal {{flags {RW access update} begin_search {type index spec {index 1}} find_keys {type range spec {lastkey 0 keystep 1 limit 0}}}} \
            [mkeys_info mkeys.read specs]
        assert_equal {{k {RW access update}}} [r command getkeysandflags mkeys.read k]
    }

    test "Module commands and subcommands are in COMMAND, COMMAND INFO, DOCS and LIST" {
        need_modules
        set names {}
        foreach entry [r command] { lappend names [lindex $entry 0] }
        foreach name {mkeys.movable mkeys.read mkeys.box} { assert {[lsearch -exact $names $name] >= 0} $name }
        assert_equal [r command count] [llength $names]
        assert_equal [llength $names] [llength [r command info]]
        assert_equal [llength $names] [expr {[llength [r command docs]] / 2}]
        assert_equal {mkeys.box|get} [lmap e [mkeys_info mkeys.box subcommands] {lindex $e 0}]
        set list [r command list]
        foreach name {mkeys.movable mkeys.read mkeys.box mkeys.box|get} { assert {[lsearch -exact $list $name] >= 0} $name }
        assert_equal {mkeys.box mkeys.box|get mkeys.chan mkeys.far mkeys.keysof mkeys.keysof0 mkeys.movable mkeys.read} [lsort [r command list filterby module mkeys]]
        assert_equal [lsort [r command list filterby module mkeys]] [lsort [r command list filterby module MKEYS]]
        assert_equal {} [r command list filterby module nosuchmodule]
        assert_equal {} [lsearch -all -inline -glob [r command list filterby aclcat read] mkeys.*]
    }

    test "COMMAND DOCS of a module command: group module and the module's name, no summary" {
        need_modules
        assert_equal {mkeys.read {group module module mkeys}} [r command docs mkeys.read]
        set box [dict get [r command docs mkeys.box] mkeys.box]
        assert_equal module [dict get $box group]
        assert_equal mkeys [dict get $box module]
        assert_equal {mkeys.box|get} [dict keys [dict get $box subcommands]]
    }

    test "ACL: the keys a getkeys-api command reports are checked; categories do not reach module commands" {
        need_modules
        r acl setuser mk on nopass {~a*} +@all
        assert_equal OK [r acl dryrun mk mkeys.movable 2 a1 a2]
        assert_match {*no permissions to access the 'b1' key*} [r acl dryrun mk mkeys.movable 2 a1 b1]
        r acl setuser mk2 on nopass {~*} +@read
        assert_match {*no permissions to run the 'mkeys.read' command*} [r acl dryrun mk2 mkeys.read k]
        r acl setuser mk3 on nopass {~*} +@all -@read
        assert_equal OK [r acl dryrun mk3 mkeys.read k]
    }

    test "getchannels-api: ACL checks the channels a module command publishes to or subscribes" {
        need_modules
        r acl setuser ch on nopass {~*} +@all resetchannels {&news*}
        assert_equal OK [r acl dryrun ch mkeys.chan pub news1]
        assert_match {*no permissions to access the 'other' channel*} [r acl dryrun ch mkeys.chan pub other]
        # a pattern must be one of the user's patterns as written
        assert_equal OK [r acl dryrun ch mkeys.chan psub news*]
        assert_match {*no permissions to access the 'n\*' channel*} [r acl dryrun ch mkeys.chan psub n*]
        # unsubscribing needs no permission
        assert_equal OK [r acl dryrun ch mkeys.chan unsub other]
        assert_equal pub [r mkeys.chan pub anything]
        assert_equal {readonly module} [mkeys_info mkeys.read flags]
        assert_equal {module} [mkeys_info mkeys.chan flags]
    }

    test "ACL rules name module commands and subcommands; +@all covers them" {
        need_modules
        r acl setuser mk4 on nopass {~*} +mkeys.read +mkeys.box|get
        assert_equal OK [r acl dryrun mk4 mkeys.read k]
        assert_equal OK [r acl dryrun mk4 mkeys.box get k]
        assert_match {*no permissions to run the 'mkeys.movable' command*} [r acl dryrun mk4 mkeys.movable 0]
        assert_match {*+mkeys.read*} [r acl getuser mk4]
        r acl setuser mk5 on nopass {~*} +@all -mkeys.read -mkeys.box
        assert_match {*no permissions to run the 'mkeys.read' command*} [r acl dryrun mk5 mkeys.read k]
        assert_match {*no permissions to run the 'mkeys.box|get' command*} [r acl dryrun mk5 mkeys.box get k]
        assert_equal OK [r acl dryrun mk5 mkeys.movable 0]
        assert_error {*Unknown command or category name in ACL*} {r acl setuser mk6 +mkeys.nosuch}
        assert_error {*Unknown command or category name in ACL*} {r acl setuser mk6 +mkeys.box|nosuch}
    }
}

start_server {tags {module} overrides {enable-module-command yes}} {
    test "A key position past the arguments is dropped, not read (ours: Redis 7.0 reads past argv)" {
        need_modules
        ours_only "Redis 7.0 reads past argv"
        assert_equal OK [r module load [file join $::module_dir mkeys.so]]
        assert_equal {a} [r command getkeys mkeys.far a b]
        r acl setuser far on nopass {~a*} +@all
        assert_equal OK [r acl dryrun far mkeys.far a1 b]
        assert_equal 3 [r mkeys.far a b]
        assert_equal OK [r module unload mkeys]
    }

    test "A user's rule on a module command holds when the module is loaded again (ours)" {
        need_modules
        ours_only "ACL LIST after MODULE UNLOAD crashes Redis 7.0.15"
        assert_equal OK [r module load [file join $::module_dir mkeys.so]]
        r acl setuser mk7 on nopass {~*} +mkeys.read
        assert_equal OK [r module unload mkeys]
        assert_match {*-@all*} [r acl getuser mk7]
        assert_no_match {*mkeys*} [r acl list]
        assert_equal OK [r module load [file join $::module_dir mkeys.so]]
        assert_match {*user mk7 on nopass ~* resetchannels -@all +mkeys.read*} [r acl list]
        assert_equal OK [r acl dryrun mk7 mkeys.read k]
        assert_match {*no permissions*} [r acl dryrun mk7 mkeys.movable 0]
    }
}
