# check-aof-compat.tcl -- redis-check-aof reports as Redis 7.0.15's tool
# does, byte for byte: operators' scripts and Redis's own tests read its
# lines ("Start checking Multi Part AOF", "AOF analyzed: ... ok_up_to_line",
# "0x<offset>: <reason>", "INCR AOF <name> is valid", the --fix and
# --truncate-to-timestamp messages) and its exit status.
#
# Every case runs our tool and Debian's /usr/bin/redis-check-aof on copies
# of the same file, from the same directory under the same name, and the
# two reports, exit statuses and resulting files must be equal. Cases: an
# AOF cut at every byte offset, a bad prefix, a missing CRLF, nested MULTI,
# EXEC alone, a line that is no command, a negative length, an empty
# command, an overlong count line; annotations cut at four timestamps;
# manifests (valid, a bad middle file, --fix on the last and on an earlier
# file, answered at the prompt); usage.
#
# One byte is left out of the comparison: for a count line cut short ("*"
# as the file's last byte) Redis's tool prints the byte after the string's
# end from an uninitialised buffer ("got: 00<byte>", different between its
# builds); ours prints 00.

proc cac_reference {} {
    if {![file executable /usr/bin/redis-check-aof]} {
        skip "Debian's redis-check-aof is not installed (apt-get install redis-tools)"
    }
    return /usr/bin/redis-check-aof
}

proc cac_cmd {args} {
    set out "*[llength $args]\r\n"
    foreach a $args { append out "\$[string length $a]\r\n$a\r\n" }
    return $out
}

# Runs a tool in dir on its arguments (stdin: `input`): {status output}.
# Ours runs under the port's emulator, Debian's natively.
proc cac_run {dir tool input args} {
    set status 0
    set here [pwd]
    set wrapper [expr {$tool eq "/usr/bin/redis-check-aof" ? {} : $::harness::opt(wrapper)}]
    cd $dir
    try {
        if {[catch {exec {*}$wrapper $tool {*}$args << $input 2>@1} out opts]} {
            set status [lindex [dict get $opts -errorcode] 2]
            regsub {\nchild process exited abnormally$} $out "" out
        }
    } finally {
        cd $here
    }
    return [list $status [regsub -all {got: 00[0-9a-f]{2}} $out {got: 00??}]]
}

# The same files (name -> bytes) in two directories, each tool run in its
# own on the same arguments; returns what differs, "" if nothing.
proc cac_compare {files input args} {
    set ours_tool [need_check_aof]
    set ref_tool [cac_reference]
    set base [::harness::fresh_run_dir cac]
    file mkdir [file join $base ours] [file join $base ref]
    foreach side {ours ref} {
        foreach {name bytes} $files { ::harness::write_file [file join $base $side $name] $bytes }
    }
    set a [cac_run [file join $base ours] $ours_tool $input {*}$args]
    set b [cac_run [file join $base ref] $ref_tool $input {*}$args]
    if {$a ne $b} { return "args $args:\n ours:  $a\n redis: $b" }
    foreach {name bytes} $files {
        if {[::harness::read_file [file join $base ours $name]] ne [::harness::read_file [file join $base ref $name]]} {
            return "args $args: $name differs after the run"
        }
    }
    return ""
}

set ::cac_good [join [list [cac_cmd SELECT 0] [cac_cmd SET a 1] [cac_cmd MULTI] [cac_cmd INCR a] [cac_cmd EXEC] \
    [cac_cmd RPUSH l x y]] ""]

start_server {tags {aof tools}} {
    test "redis-check-aof on an AOF cut at every byte offset: Redis 7.0.15's report and status" {
        set good $::cac_good
        for {set cut 0} {$cut <= [string length $good]} {incr cut} {
            assert_equal "" [cac_compare [list f.aof [string range $good 0 [expr {$cut - 1}]]] "" f.aof]
        }
    }

    test "redis-check-aof on malformed AOFs: Redis 7.0.15's report and status" {
        set good $::cac_good
        foreach bytes [list \
                "$good\$3\r\nGET\r\n" \
                "$good*1\r\n\$4\r\nPINGxx" \
                "[cac_cmd MULTI][cac_cmd MULTI][cac_cmd EXEC]" \
                "[cac_cmd SET a 1][cac_cmd EXEC]" \
                "${good}hello\r\n" \
                "$good*1\r\n\$-5\r\n" \
                "*0\r\n$good" \
                "$good*[string repeat 1 200]\r\n" \
                "[cac_cmd MULTI][cac_cmd SET a 1]"] {
            assert_equal "" [cac_compare [list f.aof $bytes] "" f.aof]
        }
    }

    test "redis-check-aof --truncate-to-timestamp: Redis 7.0.15's messages and cuts" {
        set bytes "#TS:1628217470\r\n[cac_cmd SET a 1]#TS:1628217471\r\n[cac_cmd SET b 1]"
        foreach ts {1628217469 1628217470 1628217471 1628217472} {
            assert_equal "" [cac_compare [list f.aof $bytes] "" --truncate-to-timestamp $ts f.aof]
        }
    }

    test "redis-check-aof on manifests (valid, a bad file, --fix answered at the prompt): Redis 7.0.15's report" {
        set manifest "file appendonly.aof.1.base.aof seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n"
        append manifest "file appendonly.aof.2.incr.aof seq 2 type i\n"
        set base [cac_cmd SET a 1]
        set incr [cac_cmd SET b 2]
        set cut [string range $incr 0 end-3]
        foreach {files input args} [list \
                [list appendonly.aof.manifest $manifest appendonly.aof.1.base.aof $base \
                     appendonly.aof.1.incr.aof $incr appendonly.aof.2.incr.aof $incr] "" {} \
                [list appendonly.aof.manifest $manifest appendonly.aof.1.base.aof $base \
                     appendonly.aof.1.incr.aof $cut appendonly.aof.2.incr.aof $incr] "" {} \
                [list appendonly.aof.manifest $manifest appendonly.aof.1.base.aof $base \
                     appendonly.aof.1.incr.aof $cut appendonly.aof.2.incr.aof $incr] "y\n" --fix \
                [list appendonly.aof.manifest $manifest appendonly.aof.1.base.aof $base \
                     appendonly.aof.1.incr.aof $incr appendonly.aof.2.incr.aof $cut] "n\n" --fix \
                [list appendonly.aof.manifest $manifest appendonly.aof.1.base.aof $base \
                     appendonly.aof.1.incr.aof $incr appendonly.aof.2.incr.aof $cut] "y\n" --fix \
                [list appendonly.aof.manifest $manifest appendonly.aof.1.base.aof "" \
                     appendonly.aof.1.incr.aof "" appendonly.aof.2.incr.aof $incr] "" {}] {
            assert_equal "" [cac_compare $files $input {*}$args appendonly.aof.manifest]
        }
    }

    test "redis-check-aof usage and a missing file: Redis 7.0.15's status, on stdout" {
        cac_reference
        lassign [cac_run [pwd] [need_check_aof] "" --bogus x] status out
        assert_equal 1 $status
        assert_match {Usage: *redis-check-aof \[--fix*|--truncate-to-timestamp $timestamp\] <file.manifest|file.aof>} $out
        lassign [cac_run [pwd] [need_check_aof] "" --truncate-to-timestamp abc x.aof] status out
        assert_equal {1 {Invalid timestamp, aborting...}} [list $status $out]
        lassign [cac_run [pwd] [need_check_aof] "" /nonexistent/x.aof] status out
        lassign [cac_run [pwd] [cac_reference] "" /nonexistent/x.aof] rstatus rout
        assert_equal [list $rstatus $rout] [list $status $out]
    }
}
