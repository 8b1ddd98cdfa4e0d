# lolwut.tcl -- LOLWUT (src/lolwut.c): the version line, the two drawings
# (versions 5 and 6) with their arguments clamped as Redis clamps them, and
# the errors. The drawings themselves are this server's own, so only their
# shape is checked. Also checked against the reference server.


# the reply comes as bytes: the braille is UTF-8
proc lolwut_lines {reply} { return [split [string trimright [encoding convertfrom utf-8 $reply] "\n"] "\n"] }

start_server {tags {lolwut}} {
    set version [dict get [r hello 2] version]

    test "LOLWUT without a version gives the version line" {
        assert_equal "Redis ver. $version\n" [r lolwut]
        assert_equal "Redis ver. $version\n" [r lolwut whatever args]
        assert_equal "Redis ver. $version\n" [r lolwut version 7]
        assert_equal "Redis ver. $version\n" [r lolwut version -1]
    }

    test "LOLWUT VERSION 5: braille lines the width asked for, then the version" {
        set lines [lolwut_lines [r lolwut version 5 20 4 3]]
        assert_match "*Redis ver. $version" [lindex $lines end]
        set art [lrange $lines 0 end-2]
        assert_morethan [llength $art] 2
        foreach line $art {
            assert_equal 20 [string length $line]
            assert {[regexp {^[\u2800-\u28ff]+$} $line]}
        }
        # something is drawn
        assert {[regexp {[\u2801-\u28ff]} [join $art ""]]}
    }

    test "LOLWUT VERSION 5 clamps its arguments" {
        set lines [lolwut_lines [r lolwut version 5 0 0 0]]
        assert_equal 1 [string length [lindex $lines 0]]
        set lines [lolwut_lines [r lolwut version 5 5000 1 1]]
        assert_equal 1000 [string length [lindex $lines 0]]
        # the version is taken as an unsigned 32-bit number, as Redis takes it
        assert_match "*Redis ver. $version" [lindex [lolwut_lines [r lolwut version 4294967301 4]] end]
        assert_equal 4 [string length [lindex [lolwut_lines [r lolwut version 4294967301 4]] 0]]
    }

    test "LOLWUT VERSION 6: the rows asked for, then the version" {
        set lines [lolwut_lines [r lolwut version 6 30 8]]
        assert_match "*Redis ver. $version" [lindex $lines end]
        set art [lrange $lines 0 7]
        foreach line $art {
            # 30 cells once the colour escapes are taken out
            assert_equal 30 [string length [regsub -all {\033\[[0-9;]*m} $line ""]]
        }
        assert_equal 1 [llength [lsearch -all -regexp [lolwut_lines [r lolwut version 6 1 1]] "Redis ver"]]
    }

    test "LOLWUT: arguments that are not integers" {
        assert_error "ERR value is not an integer or out of range" {r lolwut version x}
        assert_error "ERR value is not an integer or out of range" {r lolwut version 5 wide}
        assert_error "ERR value is not an integer or out of range" {r lolwut version 5 10 1 x}
        assert_error "ERR value is not an integer or out of range" {r lolwut version 6 10 tall}
        assert_equal PONG [r ping]
    }

    test "LOLWUT in RESP3 is verbatim text (txt)" {
        set c [redis_client]
        $c hello 3
        $c readraw 1
        set header [$c lolwut]
        set payload [$c read]
        assert_equal "=[expr {4 + [string length "Redis ver. $version\n"]}]" $header
        assert_equal "txt:Redis ver. $version\n" $payload
        $c close
    }
}
