# commands.tcl -- COMMAND and its subcommands: COUNT, INFO, DOCS, LIST,
# GETKEYS, HELP.
#
# The first test is the guard of the command table: COMMAND COUNT must equal
# the number of entries of the table compiled into the server (DEBUG
# COMMAND-TABLE counts them). A handler missing from the code is already a
# link error (src/commands.def); this catches an entry the server would
# fail to register.
#
# COMMAND INFO entries are checked for shape and for consistency between a
# command's flags and its ACL categories over the whole table, and for a few
# commands against the exact Redis 7 reply. Key specs, tips and GETKEYS /
# GETKEYSANDFLAGS have their own file, command-keyspecs.tcl.

# COMMAND INFO entry (a list of 10) -> dict of named fields.
proc command_entry {entry} {
    lassign $entry name arity flags first last step categories tips specs subs
    return [dict create name $name arity $arity flags $flags first $first last $last step $step \
        categories $categories tips $tips specs $specs subs $subs]
}

# Every entry of COMMAND, subcommands included, as a flat list of dicts.
proc all_command_entries {} {
    set out {}
    foreach entry [r command] {
        set e [command_entry $entry]
        lappend out $e
        foreach sub [dict get $e subs] { lappend out [command_entry $sub] }
    }
    return $out
}

start_server {tags {commands}} {
    test "COMMAND COUNT equals the number of command-table entries: no entry lacks a handler" {
        set table [r debug command-table]
        assert_equal "" [dict get $table missing] "command-table entries without a handler"
        assert_equal [dict get $table entries] [r command count]
        assert_equal [dict get $table subcommand-entries] [dict get $table registered-subcommands]
    }

    test "COMMAND, COMMAND INFO and COMMAND COUNT agree" {
        set all [r command]
        assert_equal [r command count] [llength $all]
        assert_equal $all [r command info]
        set names {}
        foreach entry $all { lappend names [lindex $entry 0] }
        assert_equal [llength $names] [llength [lsort -unique $names]] "no command is listed twice"
    }

    test "COMMAND INFO get is Redis's entry, field for field" {
        set expected [list get 2 {readonly fast} 1 1 1 {@read @string @fast} {} \
            [list [list flags {RO access} begin_search {type index spec {index 1}} \
                 find_keys {type range spec {lastkey 0 keystep 1 limit 0}}]] {}]
        assert_equal [list $expected] [r command info get]
        assert_equal [list $expected] [r command info GET]
    }

    test "COMMAND INFO of a container lists its subcommands" {
        set client [command_entry [lindex [r command info client] 0]]
        assert_equal client [dict get $client name]
        assert_equal -2 [dict get $client arity]
        assert_equal {} [dict get $client flags]
        assert_equal {@slow} [dict get $client categories]
        set subs {}
        foreach sub [dict get $client subs] { lappend subs [lindex $sub 0] }
        foreach name {client|id client|list client|kill client|pause client|help} {
            assert [expr {$name in $subs}] "$name is a subcommand of client"
        }
        set setname [command_entry [lindex [r command info client|setname] 0]]
        assert_equal 3 [dict get $setname arity]
        assert_equal {noscript loading stale} [dict get $setname flags]
        assert_equal {@slow @connection} [dict get $setname categories]
    }

    test "COMMAND INFO: unknown names give a null in their place" {
        set reply [r command info no-such-command get client|no-such-sub get|x]
        assert_equal 4 [llength $reply]
        assert_equal {} [lindex $reply 0]
        assert_equal get [lindex $reply 1 0]
        assert_equal {} [lindex $reply 2]
        assert_equal {} [lindex $reply 3]
    }

    test "COMMAND INFO entries have the same shape everywhere" {
        foreach e [all_command_entries] {
            set name [dict get $e name]
            assert_equal [string tolower $name] $name
            assert [string is integer -strict [dict get $e arity]] "$name arity"
            assert {[dict get $e arity] != 0} "$name: an arity of 0 allows nothing"
            foreach f {first last step} { assert [string is integer -strict [dict get $e $f]] "$name $f" }
            if {[dict get $e first] != 0} {
                # The legacy positions describe the first key spec.
                set spec [lindex [dict get $e specs] 0]
                assert_equal [dict get $e first] [dict get $spec begin_search spec index] "$name first key"
            }
            set movable 0
            foreach spec [dict get $e specs] {
                foreach field {flags begin_search find_keys} {
                    assert [dict exists $spec $field] "$name: a key spec has $field"
                }
                set begin [dict get $spec begin_search type]
                set find [dict get $spec find_keys type]
                assert [expr {$begin in {index keyword unknown}}] "$name begin_search"
                assert [expr {$find in {range keynum unknown}}] "$name find_keys"
                if {$begin ne "index" || $find ne "range"} { set movable 1 }
            }
            assert_equal $movable [expr {"movablekeys" in [dict get $e flags]}] \
                "$name: movablekeys when a key spec is not an index and a range"
        }
    }

    test "ACL categories follow the flags for every command" {
        foreach e [all_command_entries] {
            set name [dict get $e name]
            set flags [dict get $e flags]
            set cats [dict get $e categories]
            assert {("@fast" in $cats) != ("@slow" in $cats)} "$name is either @fast or @slow: $cats"
            assert_equal [expr {"fast" in $flags}] [expr {"@fast" in $cats}] "$name fast"
            if {"write" in $flags} { assert {"@write" in $cats} "$name @write" }
            # EVAL_RO, EVALSHA_RO, FCALL_RO: readonly, but only @slow @scripting in Redis 7.0
            if {"readonly" in $flags && "@scripting" ni $cats} { assert {"@read" in $cats} "$name @read" }
            if {"admin" in $flags} { assert {"@admin" in $cats && "@dangerous" in $cats} "$name @admin" }
            if {"blocking" in $flags} { assert {"@blocking" in $cats} "$name @blocking" }
        }
    }

    test "COMMAND DOCS: summary, since, group and arguments" {
        set docs [r command docs get]
        assert_equal get [lindex $docs 0]
        set doc [lindex $docs 1]
        assert_match "?*" [dict get $doc summary]
        assert_equal 1.0.0 [dict get $doc since]
        assert_equal string [dict get $doc group]
        assert_equal {{name key type key key_spec_index 0}} [dict get $doc arguments]
    }

    test "COMMAND DOCS turns the argument hint into tokens, optional and multiple arguments" {
        set args [dict get [lindex [r command docs set] 1] arguments]
        assert_equal {name key type key key_spec_index 0} [lindex $args 0]
        assert_equal {name value type string} [lindex $args 1]
        set condition [lindex $args 2]
        assert_equal oneof [dict get $condition type]
        assert_equal optional [dict get $condition flags]
        assert_equal {{name nx type pure-token token NX} {name xx type pure-token token XX}} \
            [dict get $condition arguments]
        assert_equal {name get type pure-token token GET flags optional} [lindex $args 3]
        set expiration [dict get [lindex $args 4] arguments]
        assert_equal {name seconds type integer token EX} [lindex $expiration 0]

        set mset [dict get [lindex [r command docs mset] 1] arguments]
        assert_equal 1 [llength $mset]
        assert_equal block [dict get [lindex $mset 0] type]
        assert_equal multiple [dict get [lindex $mset 0] flags]
        assert_equal {{name key type key key_spec_index 0} {name value type string}} \
            [dict get [lindex $mset 0] arguments]
        assert_equal {{name key type key key_spec_index 0 flags multiple}} \
            [dict get [lindex [r command docs del] 1] arguments]
    }

    test "COMMAND DOCS of a container has its subcommands; unknown names are left out" {
        set docs [r command docs no-such-command client]
        assert_equal 2 [llength $docs]
        set subs [dict get [lindex $docs 1] subcommands]
        assert [dict exists $subs client|list]
        assert_equal connection [dict get $subs client|list group]
        assert_equal {} [r command docs no-such-command]
        assert_equal [r command count] [expr {[llength [r command docs]] / 2}]
    }

    test "COMMAND LIST names every command and subcommand" {
        set list [r command list]
        foreach name {get set client client|list command|info} {
            assert [expr {$name in $list}] "$name is listed"
        }
        set expected 0
        foreach e [all_command_entries] { incr expected }
        assert_equal $expected [llength $list]
    }

    test "COMMAND LIST FILTERBY PATTERN, ACLCAT and MODULE" {
        assert_equal {get} [lsort [lsearch -all -inline [r command list filterby pattern g?t] *]]
        set clients [r command list filterby pattern client*]
        assert [expr {"client|id" in $clients && "client" in $clients}]
        set strings [r command list filterby aclcat string]
        assert [expr {"get" in $strings && "set" in $strings && "ping" ni $strings}]
        assert_equal [lsort $strings] [lsort [r command list filterby aclcat STRING]]
        assert_equal {} [r command list filterby aclcat no-such-category]
        assert_equal {} [r command list filterby module no-such-module]
    }

    test "COMMAND LIST syntax errors" {
        assert_error "ERR syntax error" {r command list filterby}
        assert_error "ERR syntax error" {r command list filterby pattern}
        assert_error "ERR syntax error" {r command list foo bar}
        assert_error "ERR syntax error" {r command list filterby foo bar}
    }

    test "COMMAND GETKEYS returns the keys of a command by its key positions" {
        assert_equal {k} [r command getkeys get k]
        assert_equal {k} [r command getkeys set k v ex 10]
        assert_equal {a b c} [r command getkeys mget a b c]
        assert_equal {a c} [r command getkeys mset a 1 c 2]
        assert_equal {a c} [r command getkeys mset a b c]
        assert_equal {src dst} [r command getkeys rename src dst]
    }

    test "COMMAND GETKEYS errors" {
        assert_error "ERR Invalid command specified" {r command getkeys no-such-command a}
        assert_error "ERR The command has no key arguments" {r command getkeys ping x}
        assert_error "ERR The command has no key arguments" {r command getkeys client list}
        assert_error "ERR Invalid number of arguments specified for command" {r command getkeys get a b}
        assert_error "ERR Invalid number of arguments specified for command" {r command getkeys mset a}
        assert_error "ERR wrong number of arguments for 'command|getkeys' command" {r command getkeys}
    }

    test "COMMAND HELP and unknown subcommands" {
        set help [r command help]
        assert_equal "COMMAND <subcommand> \[<arg> \[value\] \[opt\] ...\]. Subcommands are:" [lindex $help 0]
        assert [expr {"GETKEYS <full-command>" in $help}]
        assert_equal "    Prints this help." [lindex $help end]
        assert_error "ERR unknown subcommand 'foo'. Try COMMAND HELP." {r command foo}
        assert_error "ERR wrong number of arguments for 'command|count' command" {r command count x}
    }
}
