# fuzz-regressions.tcl -- server behaviour behind findings of the fuzz
# harnesses (tests/fuzz/): each finding's input is kept under
# tests/fuzz/regressions/<harness>/ and replayed by `make test-unit`; the
# tests here check the same fix the way a user meets it.

# The aof harness's manifest round trip: a file name that needs quoting
# (appendfilename with a space) was written to the manifest unquoted, and
# the server could not start again ("Invalid AOF manifest line").
start_server {tags {aof needs:restart external:skip} overrides {appendonly yes} config_lines {{appendfilename "my aof"}}} {
    test "An AOF whose name has a space is listed quoted in the manifest and loads after a restart" {
        r set k v
        set fd [open [file join [srv dir] appendonlydir {my aof.manifest}]]
        set manifest [read $fd]
        close $fd
        assert_match {*file "my aof.*" seq * type i*} $manifest
        restart_server
        assert_equal v [r get k]
    }
}

# The config harness (a `user` line's rules): an empty word inside a
# selector being joined ("(~x" "" ...) was checked for its closing ')' by
# reading the byte before it (UBSan: pointer overflow in
# aclMergeSelectorArgs). An empty word closes nothing, as in Redis; the
# input is tests/fuzz/regressions/config/ (the UBSan build replays it).
start_server {tags {acl}} {
    test "ACL selectors: an empty word inside parentheses closes nothing" {
        assert_error "*Unmatched parenthesis in acl selector starting at '(~x'*" {r acl setuser fuzzu "(~x" ""}
        assert_equal OK [r acl setuser fuzzu "(~x" "" "+get)"]
        assert_match "*~x*+get*" [r acl list]
        r acl deluser fuzzu
    }
}
