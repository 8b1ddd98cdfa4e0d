# incrbyfloat.tcl -- INCRBYFLOAT answers exactly as Redis on x86_64 does, on
# every CPU.
#
# The reference server computes in C `long double` and prints "%.17Lf"
# (trailing zeros dropped), so its replies depend on the CPU: 80-bit x87 on
# x86, 64-bit double on 32-bit ARM (1.23 comes back "1.22999999999999998"),
# 128-bit quad on SPARC64. This server computes in software x87 arithmetic
# (src/lib/xfloat.c) so every port gives the x86_64 replies.
#
# The expected replies below were RECORDED from Debian's redis-server 7.0 on
# x86_64 (not typed by hand); `./runtest --server /usr/bin/redis-server
# --single tests/unit/type/incrbyfloat.tcl` re-checks them against it. Under
# QEMU (make PORT=armv7 test) the same strings must come back.
#
# Each chain starts from a missing key or a SET value, applies increments in
# order and lists the reply to each: {reply TEXT}, {error TEXT}, or for a
# long reply {long LENGTH FIRST-40-BYTES HASH} (HASH as incrbyfloat_hash).
# After each chain the key must hold the last successful reply.

# A polynomial hash of the bytes of s (base 131, mod 2^31-1), enough to tell
# two 4933-digit replies apart without writing them out.
proc incrbyfloat_hash {s} {
    set h 0
    foreach byte [split [encoding convertto utf-8 $s] ""] {
        set h [expr {($h * 131 + [scan $byte %c]) % 2147483647}]
    }
    return $h
}

# Is `got` the expected reply {kind ...}? Returns "" if so, else what differs.
proc incrbyfloat_mismatch {expected got got_error} {
    lassign $expected kind a b c
    switch -- $kind {
        reply {
            if {!$got_error && $got eq $a} { return "" }
        }
        error {
            if {$got_error && $got eq $a} { return "" }
        }
        long {
            if {!$got_error && [string length $got] == $a &&
                [string range $got 0 [expr {[string length $b] - 1}]] eq $b &&
                [incrbyfloat_hash $got] == $c} { return "" }
            if {!$got_error} {
                set got "[string length $got] bytes, [string range $got 0 39]..., hash [incrbyfloat_hash $got]"
            }
        }
    }
    return "expected $expected, got [expr {$got_error ? "error" : "reply"}] $got"
}

# GENERATED from the reference server (see the top comment): do not edit by hand.
set incrbyfloat_chains {
    {missing {1.23} {{reply 1.23}}}
    {missing {0.1 0.2} {{reply 0.1} {reply 0.3}}}
    {missing {10.5 0.1} {{reply 10.5} {reply 10.6}}}
    {missing {0.1 0.1 0.1 0.1 0.1 0.1 0.1 0.1 0.1 0.1} {{reply 0.1} {reply 0.2} {reply 0.3} {reply 0.4} {reply 0.5} {reply 0.6} {reply 0.7} {reply 0.8} {reply 0.9} {reply 1}}}
    {missing {1e400} {{long 401 1000000000000000000028188068394758651458 109022838}}}
    {missing {1e400 1} {{long 401 1000000000000000000028188068394758651458 109022838} {long 401 1000000000000000000028188068394758651458 109022838}}}
    {1.5 {-3} {{reply -1.5}}}
    {0.1 {-0.3} {{reply -0.2}}}
    {-0 {0} {{reply 0}}}
    {missing {-0} {{reply 0}}}
    {5 {-5} {{reply 0}}}
    {1.23 {-1.23} {{reply 0}}}
    {100 {0.1} {{reply 100.1}}}
    {3.0 {0} {{reply 3}}}
    {missing {-1e-20} {{reply 0}}}
    {missing {1e-17 5e-18 -1e-17} {{reply 0.00000000000000001} {reply 0.00000000000000002} {reply 0.00000000000000001}}}
    {missing {123456789.123456789} {{reply 123456789.12345678899873747}}}
    {18446744073709551615 {1} {{reply 18446744073709551616}}}
    {9223372036854775807 {0.5} {{reply 9223372036854775807.5}}}
    {missing {1.7976931348623157e308 1.7976931348623157e308} {{long 309 1797693134862315699959210467741044340483 1457298213} {long 309 3595386269724631399918420935482088680967 587367696}}}
    {missing {5e-324} {{reply 0}}}
    {missing {1e-4951} {{error {ERR value is not a valid float}}}}
    {missing {4e-4951} {{reply 0}}}
    {missing {3.6451995318824746025e-4951 -3.6451995318824746025e-4951} {{reply 0} {reply 0}}}
    {missing {1e4932} {{long 4933 1000000000000000000006018949387963891323 166218193}}}
    {missing {-1e4932 -1e4932} {{long 4934 -100000000000000000000601894938796389132 1364837070} {error {ERR increment would produce NaN or Infinity}}}}
    {missing {-1e400 1e400} {{long 402 -100000000000000000002818806839475865145 379192515} {reply 0}}}
    {missing {-0.5 0.25} {{reply -0.5} {reply -0.25}}}
    {missing {-123.456 -0.544} {{reply -123.456} {reply -124}}}
    {missing {1e20 -1e20 0.1} {{reply 100000000000000000000} {reply 0} {reply 0.1}}}
    {missing {1e20 1.5} {{reply 100000000000000000000} {reply 100000000000000000000}}}
    {missing {-1e-4000 1} {{reply 0} {reply 1}}}
    {missing {0x10 0x1p-3} {{reply 16} {reply 16.125}}}
    {missing {3.14159265358979323846264338327950288} {{reply 3.14159265358979324}}}
    {missing {-2.5 -0.000000000000000005} {{reply -2.5} {reply -2.5}}}
    {missing {0.000003814697265625} {{reply 0.00000381469726562}}}
    {-7 {7.00000000000000000001} {{reply 0}}}
    {missing {1e4932 1e4932} {{long 4933 1000000000000000000006018949387963891323 166218193} {error {ERR increment would produce NaN or Infinity}}}}
    {missing {inf} {{error {ERR increment would produce NaN or Infinity}}}}
    {missing {1e99999} {{error {ERR value is not a valid float}}}}
    {missing {1e-99999} {{error {ERR value is not a valid float}}}}
}

start_server {tags {string incrbyfloat}} {
    test "INCRBYFLOAT replies as Redis on x86_64 does, on every CPU" {
        foreach chain $incrbyfloat_chains {
            lassign $chain start increments expected_replies
            r del k
            if {$start ne "missing"} { r set k $start }
            set stored [expr {$start eq "missing" ? "" : $start}]
            foreach incr $increments expected $expected_replies {
                set got_error [catch {r incrbyfloat k $incr} got]
                set diff [incrbyfloat_mismatch $expected $got $got_error]
                assert_equal "" $diff "INCRBYFLOAT k $incr (chain: $chain)"
                if {!$got_error} { set stored $got }
            }
            # The stored value is the reply text; a refused increment changes nothing.
            if {$stored eq ""} {
                assert_equal 0 [r exists k] "chain: $chain"
            } else {
                assert_equal $stored [r get k] "chain: $chain"
            }
        }
    }

    test "INCRBYFLOAT counts in tenths without drifting (x87 precision)" {
        r del k
        for {set i 1} {$i <= 100} {incr i} {
            set got [r incrbyfloat k 0.1]
            # 17 digits after the point of an x87 sum of tenths still print as
            # the exact decimal for the first hundred steps.
            set want [format %.1f [expr {$i / 10.0}]]
            regsub {\.0$} $want "" want
            assert_equal $want $got "after $i increments"
        }
    }
}
