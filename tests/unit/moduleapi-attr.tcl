# moduleapi-attr.tcl -- RESP3 attributes in the module API
# (src/module_api.c): a Call's reply keeps the attribute sent before it
# (CallReplyAttribute, CallReplyAttributeElement; the reply's proto starts
# with it), and a module replies one with a postponed length
# (ReplyWithAttribute, ReplySetAttributeLength), through
# tests/modules/mattr.c.
# Every expectation holds for Debian's Redis 7.0.15 loading the same .so
# but one: 7.0.15's CallReplyAttributeElement refuses every index (it checks
# for a map), which its later releases fixed; that test is ours only.
# Run the file with --server /usr/bin/redis-server to check.

source [file join $::harness_dir modules.tcl] ;# module_skip_reason, need_modules

# What a RESP3 client reads: a raw connection in RESP3.
proc mattr_raw_reply {cmd} {
    set rd [redis_client]
    $rd hello 3
    $rd readraw 1
    $rd write [::resp::encode_command $cmd]
    set out {}
    # the attribute, its two pairs' four lines, then the reply
    while {[llength $out] < 12} {
        set line [$rd read]
        lappend out $line
        if {[string index $line 0] eq "+" && [string range $line 1 end] eq "done"} break
    }
    $rd close
    return $out
}

start_server {tags {module} overrides {enable-module-command yes enable-debug-command yes}} {
    test "CallReplyAttribute: the attribute before a Call's RESP3 reply, counted in its proto" {
        need_modules
        assert_equal OK [r module load [file join $::module_dir mattr.so]]
        set got [r mattr.call]
        # a string reply (type 0) whose proto (93 bytes) starts with the attribute of 1 pair
        assert_equal {0 93 {Some real reply following the attribute} 1} [lrange $got 0 3]
        assert_equal {0 7 PONG none} [r mattr.plain]
    }

    test "CallReplyAttributeElement: the attribute's pairs (ours: 7.0.15 refuses them)" {
        need_modules
        ours_only "Redis 7.0.15's CallReplyAttributeElement checks for a map and fails"
        assert_equal {key-popularity 2} [lrange [r mattr.call] 4 5]
        assert_no_match {*out-of-range element*} [log_tail 0 200]
    }

    test "ReplyWithAttribute with a postponed length: RESP3 gets it, RESP2 is refused" {
        need_modules
        assert_equal {|2 +attr:0 :0 +attr:1 :1 +done} [mattr_raw_reply {mattr.reply 2}]
        assert_equal {|0 +done} [mattr_raw_reply {mattr.reply 0}]
        assert_error {*attribute refused*} {r mattr.reply 2}
        # RESP2: nothing to set, no misuse logged
        assert_equal OK [r mattr.misuse]
    }
}
