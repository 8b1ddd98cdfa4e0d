# test.tcl -- the test command, assertions, tags and skips.
#
#   test "name" { body } ?{tag ...}?
#   tags {slow} { ...tests... }
#   assert_equal expected actual, assert_match pattern value, ...
#
# Design decisions:
# - Each test prints exactly one result line, "[ok] name (N ms)",
#   "[err] name (N ms)" followed by indented details, or "[skip] name: why";
#   the runner counts those lines, so output and totals cannot disagree.
# - Assertions raise Tcl errors with errorCode {HARNESS ASSERT}; any other
#   error inside a test is reported as an error with its message. Both fail
#   the test. "skip" raises {HARNESS SKIP reason}.
# - A failure is located in the test file: "at FILE:LINE: <that source
#   line>" for the failing assertion (see "locating code" below), or the
#   body line the error came from for other errors.
# - Tags accumulate from enclosing start_server blocks, tags blocks and the
#   test's own list. --tags "a -b" runs only tests tagged a (if any include
#   tag is given) and never tests tagged b.
# - After every test the servers of the enclosing blocks are checked; a
#   server that died fails the test, and the block is abandoned since later
#   tests could only fail for the same reason.

namespace eval ::harness {
    variable counts
    array set counts {passed 0 failed 0 skipped 0}
    variable tag_stack {}
    variable current_test ""
    # Frame level of the test body's commands, and where the body starts.
    variable body_frame 0
    variable body_origin {"" 0}
    variable failure_location ""
    variable test_file ""
    # Stack of {file line}: where the bodies being evaluated start.
    variable origins {}
}

# ---- tags ---------------------------------------------------------------------------

proc tags {taglist body} {
    set ::harness::tag_stack [concat $::harness::tag_stack $taglist]
    set depth [llength $taglist]
    set code [catch {::harness::eval_body [info frame -1] $body} result opts]
    set ::harness::tag_stack [lrange $::harness::tag_stack 0 end-$depth]
    return -options $opts $result
}

proc ::harness::include_tags {} {
    set out {}
    foreach t $::harness::opt(tags) {
        if {![string match -* $t]} { lappend out $t }
    }
    return $out
}

proc ::harness::exclude_tags {} {
    set out {}
    foreach t $::harness::opt(tags) {
        if {[string match -* $t]} { lappend out [string range $t 1 end] }
    }
    return $out
}

# Why a block or test with TAGS must not run, or "" if it may. Include tags
# are only checked for tests (a block may contain a matching test).
proc ::harness::tag_skip_reason {tags for_test} {
    foreach t [exclude_tags] {
        if {$t in $tags} { return "excluded by --tags (tagged '$t')" }
    }
    if {[external]} {
        foreach t {needs:restart external:skip} {
            if {$t in $tags} {
                return "tagged '$t': cannot run against an external server"
            }
        }
    }
    set includes [include_tags]
    if {$for_test && [llength $includes]} {
        foreach t $includes {
            if {$t in $tags} { return "" }
        }
        return "not tagged with any of --tags '[join $includes { }]'"
    }
    return ""
}

# ---- results ---------------------------------------------------------------------------

proc ::harness::report_pass {name ms} {
    incr ::harness::counts(passed)
    say "\[ok\] $name ($ms ms)"
}

proc ::harness::report_fail {name ms details} {
    incr ::harness::counts(failed)
    if {$ms ne ""} {
        say "\[err\] $name ($ms ms)"
    } else {
        say "\[err\] $name"
    }
    if {$details ne ""} { say [indent $details] }
}

proc ::harness::report_skip {name reason} {
    incr ::harness::counts(skipped)
    say "\[skip\] $name: $reason"
}

# ---- test --------------------------------------------------------------------------------

proc test {name body {taglist {}}} {
    if {$::harness::current_test ne ""} {
        error "test \"$name\" is nested inside test \"$::harness::current_test\""
    }
    foreach t $taglist {
        if {![regexp {^[A-Za-z0-9_.:-]+$} $t]} {
            error "test \"$name\": the third argument is a list of tags, and\
                   '$t' is not a tag (check results with assert_equal)"
        }
    }
    set reason [::harness::tag_skip_reason [concat $::harness::tag_stack $taglist] 1]
    if {$reason ne ""} {
        ::harness::report_skip $name $reason
        return
    }
    if {$::harness::opt(verbose)} { ::harness::say "\[run\] $name" }
    set frame [info frame -1]
    set ::harness::body_origin [::harness::body_origin $frame $body]
    lappend ::harness::origins $::harness::body_origin
    set ::harness::body_frame [expr {[info frame] + 1}]
    set ::harness::current_test $name
    set ::harness::failure_location ""
    set start [clock milliseconds]
    set code [catch {uplevel 1 $body} result opts]
    set ::harness::current_test ""
    set ::harness::body_frame 0
    set ::harness::origins [lrange $::harness::origins 0 end-1]
    set ms [expr {[clock milliseconds] - $start}]
    ::harness::finish_test $name $ms $code $result $opts
}

# ---- locating code in the test file ------------------------------------------------------
#
# Tcl knows the file and line of commands in a sourced file and in literal
# bodies evaluated from there, but a body evaluated from inside another
# body (a test in a start_server block) only knows its line relative to that
# body. So each construct that evaluates a body pushes where the body starts
# (origins), and a relative line is resolved against the innermost one.

# {file line} of the command of FRAME, or "" when unknown.
proc ::harness::frame_location {frame} {
    variable origins
    if {![dict exists $frame line]} { return "" }
    set line [dict get $frame line]
    if {[dict exists $frame file]} {
        return [list [relative_path [dict get $frame file]] $line]
    }
    if {[dict get $frame type] eq "eval" && [llength $origins]} {
        lassign [lindex $origins end] file first
        if {$file ne ""} { return [list $file [expr {$first + $line - 1}]] }
    }
    return ""
}

# {file line} where BODY, an argument of the command of FRAME, starts.
proc ::harness::body_origin {frame body} {
    set location [frame_location $frame]
    if {$location eq ""} { return {"" 0} }
    set offset [source_offset [dict get $frame cmd] $body]
    if {$offset < 0} { return {"" 0} }
    lassign $location file line
    set before [string range [dict get $frame cmd] 0 [expr {$offset - 1}]]
    return [list $file [expr {$line + [regexp -all "\n" $before]}]]
}

# Offset in the source text SOURCE of the braced word whose value is BODY.
# Inside braces Tcl still turns backslash-newline-blanks into one space, so
# the search runs on the source with that done, and the offset found is
# mapped back.
proc ::harness::source_offset {source body} {
    set join_re "\\\\\n\[ \t\]*"
    set joins [regexp -all -indices -inline $join_re $source]
    if {![llength $joins]} { return [string first $body $source] }
    set offset [string first $body [regsub -all $join_re $source " "]]
    if {$offset < 0} { return -1 }
    set shift 0
    foreach range $joins {
        lassign $range from to
        if {$from - $shift >= $offset} { break }
        incr shift [expr {$to - $from}]
    }
    return [expr {$offset + $shift}]
}

# Evaluates BODY in the caller's caller, with its origin known.
proc ::harness::eval_body {frame body} {
    variable origins
    lappend origins [body_origin $frame $body]
    set code [catch {uplevel 2 $body} result opts]
    set origins [lrange $origins 0 end-1]
    return -options $opts $result
}

proc ::harness::finish_test {name ms code result opts} {
    set errorcode [expr {[dict exists $opts -errorcode] ? [dict get $opts -errorcode] : ""}]
    if {$code == 1 && [lrange $errorcode 0 1] eq {HARNESS SKIP}} {
        report_skip $name [lindex $errorcode 2]
        return
    }
    set dead [dead_servers_report]
    if {$code == 0 || $code == 2} {
        if {$dead eq ""} {
            report_pass $name $ms
            return
        }
        set details ""
    } elseif {$code == 1} {
        set details [failure_details $result $opts]
    } else {
        set details "the test body ended with [lindex {ok error return break continue} $code]"
    }
    if {$dead ne ""} { append details [expr {$details eq "" ? "" : "\n"}] $dead }
    append details [server_logs_for_failure]
    report_fail $name $ms $details
    if {$dead ne ""} {
        return -code error -errorcode {HARNESS SERVER_DIED} \
            "a server died during test \"$name\"; the rest of this block is not run"
    }
}

proc ::harness::failure_details {result opts} {
    set errorcode [dict get $opts -errorcode]
    if {[lrange $errorcode 0 1] eq {HARNESS ASSERT}} {
        set text "assertion failed: $result"
        if {$::harness::failure_location ne ""} {
            append text "\n$::harness::failure_location"
        }
        return $text
    }
    set text "error: $result"
    set line [body_line_from_errorinfo [dict get $opts -errorinfo]]
    if {$line ne ""} { append text "\nat $line" }
    if {$::harness::opt(verbose)} {
        append text "\n" [dict get $opts -errorinfo]
    }
    return $text
}

proc ::harness::body_line_from_errorinfo {info} {
    variable body_origin
    lassign $body_origin file first
    set lines [regexp -all -inline {\("uplevel" body line (\d+)\)} $info]
    if {![llength $lines] || $file eq ""} { return "" }
    return "$file:[expr {$first + [lindex $lines end] - 1}]"
}

# "at file:line: text of that line" for the innermost command of the test
# body running now: frames are followed from the body's own level inward
# while they are still test-file code (the body, loops in it, procs of the
# test file), and not past the first frame of a helper.
proc ::harness::caller_location {} {
    variable body_frame
    variable test_file
    if {$body_frame <= 0 || $body_frame > [info frame]} { return "" }
    set chosen ""
    for {set level $body_frame} {$level < [info frame]} {incr level} {
        set frame [info frame $level]
        if {[dict exists $frame file]} {
            if {[file normalize [dict get $frame file]] ne $test_file} { break }
            set chosen $frame
            # Lines of eval frames below this one are relative to
            # scripts we know nothing about.
            set absolute_only 1
        } elseif {[dict get $frame type] eq "eval" && ![info exists absolute_only]} {
            set chosen $frame
        } else {
            break
        }
    }
    if {$chosen eq ""} { return "" }
    set location [frame_location $chosen]
    if {$location eq ""} { return "" }
    set text [string trim [source_line {*}$location]]
    if {$text eq ""} { set text [string trim [dict get $chosen cmd]] }
    if {[string length $text] > 200} { set text "[string range $text 0 196]..." }
    return "at [join $location :]: $text"
}

proc ::harness::source_line {file line} {
    variable source_lines
    if {![info exists source_lines($file)]} {
        set source_lines($file) [split [read_file $file] \n]
    }
    return [lindex $source_lines($file) [expr {$line - 1}]]
}

# ---- assertions ----------------------------------------------------------------------------

proc fail {message} {
    set ::harness::failure_location [::harness::caller_location]
    return -code error -errorcode {HARNESS ASSERT} -level 1 $message
}

proc skip {reason} {
    return -code error -errorcode [list HARNESS SKIP $reason] "skipped: $reason"
}

# A value quoted for a failure message: long ones cut, control characters
# other than newline and tab escaped so binary data cannot garble the output.
proc ::harness::show {value} {
    set length [string length $value]
    if {$length > 300} { set value [string range $value 0 296] }
    set shown ""
    foreach char [split $value ""] {
        scan $char %c code
        if {($code < 32 && $char ni {"\n" "\t"}) || $code == 127} {
            append shown [format {\x%02x} $code]
        } else {
            append shown $char
        }
    }
    if {$length > 300} { return "'$shown...' ($length chars)" }
    return "'$shown'"
}

proc assert {condition {message ""}} {
    if {[uplevel 1 [list expr $condition]]} { return }
    if {$message eq ""} {
        set message "expected the condition to be true: $condition"
        if {![catch {uplevel 1 [list subst -nocommands $condition]} seen] && $seen ne $condition} {
            append message " (with values: $seen)"
        }
    }
    fail $message
}

proc assert_equal {expected value {detail ""}} {
    if {$expected eq $value} { return }
    fail "expected [::harness::show $value] to equal [::harness::show $expected][::harness::detail $detail]"
}

proc assert_not_equal {unexpected value {detail ""}} {
    if {$unexpected ne $value} { return }
    fail "expected [::harness::show $value] to differ from [::harness::show $unexpected][::harness::detail $detail]"
}

proc assert_match {pattern value {detail ""}} {
    if {[string match $pattern $value]} { return }
    fail "expected [::harness::show $value] to match the pattern [::harness::show $pattern][::harness::detail $detail]"
}

proc assert_no_match {pattern value {detail ""}} {
    if {![string match $pattern $value]} { return }
    fail "expected [::harness::show $value] not to match the pattern [::harness::show $pattern][::harness::detail $detail]"
}

proc assert_error {pattern script} {
    if {![catch {uplevel 1 $script} result]} {
        fail "expected an error matching [::harness::show $pattern], but the script returned [::harness::show $result]"
    }
    if {![string match $pattern $result]} {
        fail "expected an error matching [::harness::show $pattern], got [::harness::show $result]"
    }
}

# The error message of a command that must fail: error_of r config set x y
proc error_of {args} {
    if {![catch {uplevel 1 $args} err]} { fail "expected an error from: $args" }
    return $err
}

proc assert_range {value min max {detail ""}} {
    if {[string is double -strict $value] && $value >= $min && $value <= $max} { return }
    fail "expected [::harness::show $value] to be in the range $min..$max[::harness::detail $detail]"
}

proc assert_morethan {value min {detail ""}} {
    if {[string is double -strict $value] && $value > $min} { return }
    fail "expected [::harness::show $value] to be more than $min[::harness::detail $detail]"
}

proc assert_lessthan {value max {detail ""}} {
    if {[string is double -strict $value] && $value < $max} { return }
    fail "expected [::harness::show $value] to be less than $max[::harness::detail $detail]"
}

proc assert_encoding {encoding key {level 0}} {
    set actual [r $level object encoding $key]
    if {$actual eq $encoding} { return }
    fail "expected key [::harness::show $key] to have encoding '$encoding', it has '$actual'"
}

# The encoding a value is really stored in. OBJECT ENCODING gives Redis 7.0's
# names, so a small list or set kept as one listpack says "quicklist" or
# "hashtable"; DEBUG LISTPACK accepts only a listpack (here and in Redis), so
# it tells the two apart. Against Redis 7.0 this is OBJECT ENCODING's answer.
proc storage_encoding {key {level 0}} {
    set reported [r $level object encoding $key]
    if {$reported in {quicklist hashtable} && ![catch {r $level debug listpack $key}]} { return listpack }
    return $reported
}

proc assert_storage {encoding key {level 0}} {
    set actual [storage_encoding $key $level]
    if {$actual eq $encoding} { return }
    fail "expected key [::harness::show $key] to be stored as '$encoding', it is stored as '$actual'"
}

proc assert_type {type key {level 0}} {
    set actual [r $level type $key]
    if {$actual eq $type} { return }
    fail "expected key [::harness::show $key] to be of type '$type', it is '$actual'"
}

proc ::harness::detail {detail} {
    if {$detail eq ""} { return "" }
    return " ($detail)"
}

# wait_for_condition MAXTRIES DELAY_MS {condition} else {script}
# Polls the condition up to MAXTRIES x time-factor times, DELAY_MS apart;
# when it never holds, runs the else script (usually a fail).
proc wait_for_condition {maxtries delay condition else_word else_script} {
    if {$else_word ne "else"} {
        error "usage: wait_for_condition maxtries delay_ms {condition} else {script}"
    }
    set tries [::harness::scaled $maxtries]
    for {set i 0} {$i < $tries} {incr i} {
        if {[uplevel 1 [list expr $condition]]} { return }
        ::harness::sleep_ms $delay
    }
    uplevel 1 $else_script
}
