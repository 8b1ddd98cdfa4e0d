# command-keyspecs.tcl -- key specs, tips and the keys of a command line:
# COMMAND INFO's flags, tips and key specs for a representative set of
# commands, COMMAND GETKEYS and COMMAND GETKEYSANDFLAGS for commands whose
# keys sit at fixed positions and for those whose keys depend on the
# arguments (numkeys, SORT ... STORE), and every error they give.
#
# Every expectation is Redis 7.0's answer (this file passes against
# /usr/bin/redis-server), including a few odd ones kept on purpose: when a
# numkeys count is not a plain number, Redis falls back to reading it as C's
# atoi would and then reports the keys without flags (the destination of a
# ZUNIONSTORE last). utils/compare-command-info.sh compares every command's
# entry with the reference; this file pins the facts clients rely on.

# COMMAND INFO name -> dict of the entry's named fields.
proc cmd_info {name} {
    lassign [lindex [r command info $name] 0] n arity flags first last step categories tips specs subs
    return [dict create name $n arity $arity flags $flags first $first last $last step $step \
        categories $categories tips $tips specs $specs subs $subs]
}

# A key spec as COMMAND INFO gives it, in RESP2 (maps as flat lists).
proc index_range_spec {flags index lastkey keystep limit} {
    return [list flags $flags begin_search [list type index spec [list index $index]] \
        find_keys [list type range spec [list lastkey $lastkey keystep $keystep limit $limit]]]
}

proc index_keynum_spec {flags index keynumidx firstkey keystep} {
    return [list flags $flags begin_search [list type index spec [list index $index]] \
        find_keys [list type keynum spec [list keynumidx $keynumidx firstkey $firstkey keystep $keystep]]]
}

start_server {tags {commands keyspecs}} {
    test "COMMAND INFO set: flags, categories, a variable-flags key spec with notes" {
        set e [cmd_info set]
        assert_equal -3 [dict get $e arity]
        assert_equal {write denyoom} [dict get $e flags]
        assert_equal {@write @string @slow} [dict get $e categories]
        assert_equal {} [dict get $e tips]
        set spec [lindex [dict get $e specs] 0]
        assert_equal "RW and ACCESS due to the optional `GET` argument" [dict get $spec notes]
        assert_equal {RW access update variable_flags} [dict get $spec flags]
        assert_equal {type index spec {index 1}} [dict get $spec begin_search]
        assert_equal {type range spec {lastkey 0 keystep 1 limit 0}} [dict get $spec find_keys]
    }

    test "COMMAND INFO get, del, ttl, mset: access flags and tips" {
        set get [cmd_info get]
        assert_equal {readonly fast} [dict get $get flags]
        assert_equal [list [index_range_spec {RO access} 1 0 1 0]] [dict get $get specs]

        set del [cmd_info del]
        assert_equal {write} [dict get $del flags]
        assert_equal {@keyspace @write @slow} [dict get $del categories]
        assert_equal {request_policy:multi_shard response_policy:agg_sum} [dict get $del tips]
        assert_equal [list [index_range_spec {RM delete} 1 -1 1 0]] [dict get $del specs]

        set ttl [cmd_info ttl]
        assert_equal {nondeterministic_output} [dict get $ttl tips]
        assert_equal [list [index_range_spec {RO access} 1 0 1 0]] [dict get $ttl specs]

        set mset [cmd_info mset]
        assert_equal {1 -1 2} [list [dict get $mset first] [dict get $mset last] [dict get $mset step]]
        assert_equal {request_policy:multi_shard response_policy:all_succeeded} [dict get $mset tips]
        assert_equal [list [index_range_spec {OW update} 1 -1 2 0]] [dict get $mset specs]
    }

    test "COMMAND INFO lmove and rename: one key spec per key" {
        assert_equal [list [index_range_spec {RW access delete} 1 0 1 0] [index_range_spec {RW insert} 2 0 1 0]] \
            [dict get [cmd_info lmove] specs]
        assert_equal [list [index_range_spec {RW access delete} 1 0 1 0] [index_range_spec {OW update} 2 0 1 0]] \
            [dict get [cmd_info rename] specs]
    }

    test "COMMAND INFO ping, keys, info: no keys, tips" {
        set ping [cmd_info ping]
        assert_equal {fast} [dict get $ping flags]
        assert_equal {request_policy:all_shards response_policy:all_succeeded} [dict get $ping tips]
        assert_equal {} [dict get $ping specs]
        assert_equal {0 0 0} [list [dict get $ping first] [dict get $ping last] [dict get $ping step]]
        set keys [cmd_info keys]
        assert_equal {@keyspace @read @slow @dangerous} [dict get $keys categories]
        assert_equal {request_policy:all_shards nondeterministic_output_order} [dict get $keys tips]
        assert_equal {nondeterministic_output request_policy:all_shards response_policy:special} \
            [dict get [cmd_info memory|stats] tips]
    }

    test "COMMAND INFO of movable-key commands: movablekeys and keynum or unknown specs" {
        set z [cmd_info zunionstore]
        assert_equal {write denyoom movablekeys} [dict get $z flags]
        assert_equal {1 1 1} [list [dict get $z first] [dict get $z last] [dict get $z step]]
        assert_equal [list [index_range_spec {OW update} 1 0 1 0] [index_keynum_spec {RO access} 2 0 1 1]] \
            [dict get $z specs]

        assert_equal [list [index_keynum_spec {RW access delete} 1 0 1 1]] [dict get [cmd_info lmpop] specs]
        assert_equal [list [index_keynum_spec {RW access delete} 2 0 1 1]] [dict get [cmd_info blmpop] specs]
        foreach name {zunion zinter zdiff zintercard sintercard lmpop blmpop zmpop bzmpop sort sort_ro} {
            assert [expr {"movablekeys" in [dict get [cmd_info $name] flags]}] "$name has movable keys"
        }
        foreach name {set get mset del lmove bitfield blpop} {
            assert [expr {"movablekeys" ni [dict get [cmd_info $name] flags]}] "$name has no movable keys"
        }

        set sort [cmd_info sort]
        assert_equal {write denyoom movablekeys} [dict get $sort flags]
        assert_equal {@write @set @sortedset @list @slow @dangerous} [dict get $sort categories]
        lassign [dict get $sort specs] first by store
        assert_equal [index_range_spec {RO access} 1 0 1 0] $first
        assert_equal {RO access} [dict get $by flags]
        assert_equal {type unknown spec {}} [dict get $by begin_search]
        assert_equal {type unknown spec {}} [dict get $by find_keys]
        assert_equal {OW update} [dict get $store flags]
        assert_match "For the optional STORE keyword*" [dict get $store notes]
        assert_equal 2 [llength [dict get [cmd_info sort_ro] specs]]
    }

    test "COMMAND INFO: shard channels are not keys, persistence commands refuse async loading" {
        set spublish [cmd_info spublish]
        assert_equal [list [index_range_spec {not_key} 1 0 1 0]] [dict get $spublish specs]
        assert_equal {admin noscript no_async_loading} [dict get [cmd_info bgsave] flags]
        assert_equal {admin noscript no_async_loading no_multi} [dict get [cmd_info save] flags]
        assert_equal -4 [dict get [cmd_info command|getkeys] arity]
        assert_equal -4 [dict get [cmd_info command|getkeysandflags] arity]
    }

    test "COMMAND GETKEYS of commands with keys at fixed positions" {
        assert_equal {k} [r command getkeys get k]
        assert_equal {k} [r command getkeys set k v ex 10]
        assert_equal {a b c} [r command getkeys mget a b c]
        assert_equal {a b} [r command getkeys mset a 1 b 2]
        assert_equal {k1 k2} [r command getkeys lmove k1 k2 left right]
        assert_equal {a b c} [r command getkeys blpop a b c 0]
        assert_equal {dst a b} [r command getkeys bitop and dst a b]
        assert_equal {k} [r command getkeys object encoding k]
        assert_equal {k} [r command getkeys memory usage k samples 5]
    }

    test "COMMAND GETKEYSANDFLAGS: each key with what the command does to it" {
        assert_equal {{k1 {RW access delete}} {k2 {RW insert}}} [r command getkeysandflags lmove k1 k2 left right]
        assert_equal {{k {RO access}}} [r command getkeysandflags get k]
        assert_equal {{a {RM delete}} {b {RM delete}}} [r command getkeysandflags del a b]
        assert_equal {{a {RW access delete}} {b {OW update}}} [r command getkeysandflags rename a b]
        assert_equal {{a {RO access}} {b {OW update}}} [r command getkeysandflags copy a b replace]
        assert_equal {{a {OW update}} {b {OW update}}} [r command getkeysandflags mset a 1 b 2]
        assert_equal {{d {RW access insert}} {a {RO access}}} [r command getkeysandflags pfmerge d a]
        assert_equal {{a RO} {b RO}} [r command getkeysandflags watch a b]
    }

    test "COMMAND GETKEYSANDFLAGS: SET and BITFIELD flags depend on the arguments" {
        assert_equal {{k1 {OW update}}} [r command getkeysandflags set k1 v1]
        assert_equal {{k1 {OW update}}} [r command getkeysandflags set k1 v1 nx ex 10]
        assert_equal {{k1 {RW access update}}} [r command getkeysandflags set k1 v1 get]
        assert_equal {{k1 {RW access update}}} [r command getkeysandflags set k1 v1 XX GeT]
        assert_equal {{k1 {OW update}}} [r command getkeysandflags set k1 get] "the value is no option"
        assert_equal {{k {RO access}}} [r command getkeysandflags bitfield k get u8 0]
        assert_equal {{k {RO access}}} [r command getkeysandflags bitfield k overflow sat get i8 1]
        assert_equal {{k {RO access}}} [r command getkeysandflags bitfield k get incrby 0] "GET's arguments are skipped"
        assert_equal {{k {RW access update}}} [r command getkeysandflags bitfield k get u8 0 set u8 0 1]
        assert_equal {{k {RW access update}}} [r command getkeysandflags bitfield k INCRBY u8 0 1]
        assert_equal {{k {RW access update}}} [r command getkeysandflags bitfield k get u8] "incomplete: assume a write"
        assert_equal {{k {RO access}}} [r command getkeysandflags bitfield_ro k get u8 0]
    }

    test "COMMAND GETKEYS of numkeys commands" {
        assert_equal {dst a b} [r command getkeys zunionstore dst 2 a b]
        assert_equal {dst a b} [r command getkeys zunionstore dst 2 a b weights 1 2 aggregate max]
        assert_equal {dst a} [r command getkeys zinterstore dst 1 a]
        assert_equal {dst a} [r command getkeys zdiffstore dst 1 a b]
        assert_equal {a b} [r command getkeys zunion 2 a b withscores]
        assert_equal {a b} [r command getkeys zinter 2 a b]
        assert_equal {a} [r command getkeys zdiff 1 a]
        assert_equal {a b} [r command getkeys zintercard 2 a b limit 1]
        assert_equal {a b} [r command getkeys sintercard 2 a b]
        assert_equal {a b} [r command getkeys lmpop 2 a b left]
        assert_equal {a b} [r command getkeys blmpop 0 2 a b left count 3]
        assert_equal {a b} [r command getkeys zmpop 2 a b min]
        assert_equal {a} [r command getkeys bzmpop 0 1 a min count 2]
        assert_equal {{dst {OW update}} {a {RO access}} {b {RO access}}} \
            [r command getkeysandflags zunionstore dst 2 a b]
        assert_equal {{a {RW access delete}} {b {RW access delete}}} [r command getkeysandflags lmpop 2 a b left]
        # The count is trusted as long as the keys fit in the arguments.
        assert_equal {a b left} [r command getkeys lmpop 3 a b left]
    }

    test "COMMAND GETKEYS of numkeys commands: a count that is not a plain number (Redis 7.0 fallback)" {
        assert_equal {{a {}} {b {}} {dst {}}} [r command getkeysandflags zunionstore dst 2x a b]
        assert_equal {{a {}}} [r command getkeysandflags zunion +1 a]
        assert_equal {{a {}}} [r command getkeysandflags lmpop 01 a left]
        assert_equal {{a {}}} [r command getkeysandflags blmpop 0 1x a left]
        assert_equal {{a {RW access delete}}} [r command getkeysandflags lmpop 4294967297 a left] \
            "the count is cut to 32 bits"
    }

    test "COMMAND GETKEYS of SORT: the key, and STORE's destination wherever it is" {
        assert_equal {abc} [r command getkeys sort abc]
        assert_equal {abc def} [r command getkeys sort abc store def]
        assert_equal {abc def} [r command getkeys sort abc STORE def by x get y]
        assert_equal {abc d} [r command getkeys sort abc limit 0 10 store d]
        assert_equal {abc b} [r command getkeys sort abc store a store b] "the last STORE counts"
        assert_equal {abc x} [r command getkeys sort abc store store x]
        assert_equal {abc} [r command getkeys sort abc store]
        assert_equal {abc} [r command getkeys sort abc by store x] "BY's argument is skipped"
        assert_equal {abc} [r command getkeys sort abc limit store x] "LIMIT's two arguments are skipped"
        assert_equal {{abc {RO access}} {def {OW update}}} [r command getkeysandflags sort abc store def]
        assert_equal {abc} [r command getkeys sort_ro abc store def]
        assert_equal {{abc {RO access}}} [r command getkeysandflags sort_ro abc by x]
    }

    test "COMMAND GETKEYS and GETKEYSANDFLAGS errors" {
        foreach sub {getkeys getkeysandflags} {
            assert_error "ERR Invalid command specified" {r command $sub no-such-command a}
            assert_error "ERR Invalid command specified" {r command $sub object no-such-sub k}
            assert_error "ERR The command has no key arguments" {r command $sub ping x}
            assert_error "ERR The command has no key arguments" {r command $sub config get maxmemory}
            assert_error "ERR The command has no key arguments" {r command $sub object help}
            assert_error "ERR The command has no key arguments" {r command $sub spublish channel message}
            assert_error "ERR The command has no key arguments" {r command $sub ssubscribe a b}
            assert_error "ERR Invalid number of arguments specified for command" {r command $sub get a b}
            assert_error "ERR Invalid number of arguments specified for command" {r command $sub lmpop 1 a}
            assert_error "ERR Invalid number of arguments specified for command" {r command $sub object encoding}
            assert_error "ERR Invalid arguments specified for command" {r command $sub zunionstore dst 0 a}
            assert_error "ERR Invalid arguments specified for command" {r command $sub zunionstore dst 3 a b}
            assert_error "ERR Invalid arguments specified for command" {r command $sub zunionstore dst -1 a}
            assert_error "ERR Invalid arguments specified for command" {r command $sub zunion x a}
            assert_error "ERR Invalid arguments specified for command" {r command $sub lmpop 0 a left}
            assert_error "ERR Invalid arguments specified for command" {r command $sub lmpop 4 a b left}
            assert_error "ERR Invalid arguments specified for command" {r command $sub sintercard 2 a}
            assert_error "ERR Invalid arguments specified for command" {r command $sub pfmerge dst}
            assert_error "ERR wrong number of arguments for 'command|$sub' command" {r command $sub get}
            assert_error "ERR wrong number of arguments for 'command|$sub' command" {r command $sub}
        }
    }

    test "Every command with keys answers GETKEYS for a line of its minimal arity" {
        foreach entry [r command] {
            foreach e [concat [list $entry] [lindex $entry 9]] {
                lassign $e name arity flags
                if {[llength [lindex $e 8]] == 0} continue
                set words [split $name |]
                set line $words
                for {set j [llength $words]} {$j < abs($arity)} {incr j} { lappend line "a$j" }
                set reply [catch {r command getkeys {*}$line} keys]
                if {$reply} {
                    # Only a count that cannot be a count, or shard channels.
                    assert_match "ERR*" $keys
                    continue
                }
                foreach k $keys { assert [expr {$k in $line}] "$name: $k is an argument" }
            }
        }
    }
}
