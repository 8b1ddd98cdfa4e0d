# moduleapi-cmdinfo.tcl -- SetCommandInfo (src/module_cmdinfo.c): what a
# module says about its commands, in COMMAND INFO, COMMAND DOCS and the
# key lookups, and its refusals, through tests/modules/mcmdinfo.c.
# Every expectation holds for Debian's Redis 7.0.15 loading the same .so:
# run the file with --server /usr/bin/redis-server to check.

source [file join $::harness_dir modules.tcl] ;# module_skip_reason, need_modules

start_server {tags {module} overrides {enable-module-command yes}} {
    test "SetCommandInfo: invalid descriptions are refused (EINVAL), a second one too (EEXIST)" {
        need_modules
        assert_equal OK [r module load [file join $::module_dir mcmdinfo.so]]
        assert_equal {noversion:EINVAL twoaccess:EINVAL nokeyword:EINVAL notoken:EINVAL nosubargs:EINVAL badtype:EINVAL nochanges:EINVAL first:ok again:EEXIST} \
            [r mci.results]
    }

    test "SetCommandInfo: each refusal logs Redis's warning" {
        need_modules
        foreach line {
            {Invalid command info: version missing}
            {Invalid command info: key_specs[0].flags: Exactly one of the flags RO, RW, OW, RM required}
            {Invalid command info: key_specs[0].bs.keyword.keyword required when begin_search_type is KEYWORD}
            {Invalid command info: Argument "t": token required when type is PURE_TOKEN}
            {Invalid command info: Argument "o": subargs required when type is ONEOF or BLOCK}
            {Invalid command info: Argument "b": Undefined type 42}
            {Invalid command info: history[0].changes missing}
        } {
            assert {[string first $line [log_tail 0 200]] >= 0} $line
        }
    }

    test "COMMAND INFO: arity, tips and key specs as described; the legacy range glued from the specs" {
        need_modules
        lassign [lindex [r command info mci.get] 0] name arity flags first last step cats tips specs
        assert_equal {-2 {readonly module} 1 1 1 nondeterministic_output} [list $arity $flags $first $last $step $tips]
        # find_keys omitted: a single key
        assert_equal {{flags {RO access} begin_search {type index spec {index 1}} find_keys {type range spec {lastkey 0 keystep 1 limit 0}}}} $specs
        lassign [lindex [r command info mci.move] 0] name arity flags first last step cats tips specs
        assert_equal {-1 {write module movablekeys} 1 -1 1} [list $arity $flags $first $last $step]
        assert_equal 3 [llength $specs]
        assert_equal {flags {OW update} begin_search {type keyword spec {keyword STORE startfrom 1}} find_keys {type range spec {lastkey 0 keystep 1 limit 0}}} \
            [lindex $specs 2]
        lassign [lindex [r command info mci.plain] 0] name arity flags first last step cats tips specs
        assert_equal {-1 module 0 0 0 {} {}} [list $arity $flags $first $last $step $tips $specs]
    }

    test "COMMAND DOCS: summary, since, complexity, history and arguments of a described command" {
        need_modules
        set docs [dict get [r command docs mci.get] mci.get]
        assert_equal {summary since group complexity module history arguments} [dict keys $docs]
        assert_equal {Returns the type of a key} [dict get $docs summary]
        assert_equal {1.0.0 module O(1) mcmdinfo} [list [dict get $docs since] [dict get $docs group] [dict get $docs complexity] [dict get $docs module]]
        assert_equal {{1.1.0 {Added WITHY.}} {1.2.0 {Added FLAG.}}} [dict get $docs history]
        set args [dict get $docs arguments]
        assert_equal {name key type key key_spec_index 0} [lindex $args 0]
        assert_equal {name mode type oneof flags optional arguments {{name withx type string token WITHX} {name withy type pure-token token WITHY since 1.1.0}}} \
            [lindex $args 1]
        assert_equal {name flag type string token FLAG summary {a flag} deprecated_since 1.3.0 flags {optional multiple_token}} \
            [lindex $args 2]
        assert_equal {mci.plain {group module module mcmdinfo}} [r command docs mci.plain]
        assert_equal {mci.bad1 {summary once group module module mcmdinfo}} [r command docs mci.bad1]
    }

    test "The described key specs find the keys (GETKEYS, ACL)" {
        need_modules
        assert_equal {{k {RO access}}} [r command getkeysandflags mci.get k]
        assert_equal {{a {RW delete}} {b {RW insert}} {c {RW insert}}} [r command getkeysandflags mci.move a b c]
        assert_equal {a b store d d} [r command getkeys mci.move a b store d]
        r acl setuser ci on nopass {%R~r*} +@all
        assert_equal OK [r acl dryrun ci mci.get r1]
        assert_match {*no permissions to access the 'r1' key*} [r acl dryrun ci mci.move r1 r2]
        r set k v
        assert_equal string [r mci.get k]
        assert_error {*wrong number of arguments*} {r mci.get}
    }

    test "MODULE UNLOAD frees the descriptions; a reload describes again" {
        need_modules
        assert_equal OK [r module unload mcmdinfo]
        assert_equal {} [r command docs mci.get]
        assert_equal OK [r module load [file join $::module_dir mcmdinfo.so]]
        assert_equal {Returns the type of a key} [dict get [dict get [r command docs mci.get] mci.get] summary]
    }
}
