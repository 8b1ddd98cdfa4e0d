# TLS (src/tls.c, the client library's src/tools/rclient_tls.c): a tls-port
# beside the plain port, and port 0 with only tls-port; our redis-cli --tls
# against our server and against Debian's redis-server 7.0 with TLS, Debian's
# redis-cli --tls against ours; tls-auth-clients yes / optional / no;
# certificates from another CA, expired ones, plaintext and garbage on the
# TLS port refused while a TLS client (a subscriber) keeps working; CONFIG
# SET reloading the certificate (a bad file keeps the old context); an
# encrypted key, a CA directory; big and pipelined payloads through TLS
# (input left decrypted inside OpenSSL included); BLPOP and MONITOR;
# Redis 7.0's tls-* defaults in CONFIG GET; replication over TLS
# (tls-replication yes): ours -> ours from disk and diskless, Debian's
# primary -> our replica, our primary -> Debian's replica, and a replica
# whose certificate is from another CA refused while it keeps retrying.
#
# The test harness speaks plain TCP only, so it drives each server on its
# plain port and every TLS check goes through redis-cli (or openssl
# s_client, to see which certificate is served). Certificates are made at
# test time by tests/helpers/gen-certs.sh in the run directory; nothing
# secret is committed.
#
# Skipped, with the reason printed: a build without TLS (then only the
# refusal of the tls-* directives is checked), no openssl command, and in
# external mode (the servers need TLS options at start-up). Validated
# against Debian's Redis 7.0.15 with --server /usr/bin/redis-server.

set ::tls_bin_dir [file dirname $::harness::opt(server)]
set ::tls_cli [file join $::tls_bin_dir redis-cli]
set ::tls_dir [file join $::harness::opt(run_dir) tls-[pid]]

proc tls_built {} { server_built_with_tls }

proc tls_why_not {} {
    if {[::harness::external]} { return "external mode: TLS servers are started with their certificates" }
    if {[auto_execok openssl] eq ""} { return "no openssl command to make certificates with (Debian: openssl)" }
    if {![file executable $::tls_cli]} { return "no redis-cli next to the server" }
    return ""
}

proc tls_cert {name} { file join $::tls_dir $name }

# Runs a program bounded by timeout(1): {status stdout stderr}. Its stdin
# is empty, or the bytes after a leading -in.
proc tls_run {args} {
    set input ""
    if {[lindex $args 0] eq "-in"} { set args [lassign $args - input] }
    set in [file join $::tls_dir in]
    ::harness::write_file $in $input
    set out [file join $::tls_dir out]
    set err [file join $::tls_dir err]
    set limit [expr {int(60 * [::harness::factor])}]
    set cmd $args
    if {[auto_execok timeout] ne ""} { set cmd [list timeout $limit {*}$cmd] }
    set status 0
    if {[catch {exec {*}$cmd < $in > $out 2> $err} msg opts]} {
        set code [dict get $opts -errorcode]
        if {[lindex $code 0] ne "CHILDSTATUS"} { error "running $args: $msg" }
        set status [lindex $code 2]
    }
    return [list $status [::harness::read_file $out] [::harness::read_file $err]]
}

# Our redis-cli (or PROG) over TLS to PORT with the client certificate,
# unless the options name others. Returns {status stdout stderr}.
proc tls_cli_run {port args} {
    set prog [list {*}$::harness::opt(wrapper) $::tls_cli]
    set input {}
    if {[lindex $args 0] eq "-in"} { set args [lassign $args - text]; set input [list -in $text] }
    if {[lindex $args 0] eq "-prog"} { set args [lassign $args - prog] }
    set opts [list --tls --cacert [tls_cert ca.crt]]
    if {"--cert" ni $args && "-nocert" ni $args} {
        lappend opts --cert [tls_cert client.crt] --key [tls_cert client.key]
    }
    set args [lsearch -all -inline -not -exact $args -nocert]
    return [tls_run {*}$input {*}$prog -h 127.0.0.1 -p $port {*}$opts {*}$args]
}

# stdout of a TLS redis-cli command that must succeed.
proc tls_cli {port args} {
    lassign [tls_cli_run $port {*}$args] status out err
    if {$status != 0} { fail "redis-cli --tls $args: exit $status: $err" }
    return [string trimright $out "\n"]
}

# The subject of the certificate a TLS port serves.
proc served_subject {port} {
    lassign [tls_run openssl s_client -connect 127.0.0.1:$port -CAfile [tls_cert ca.crt] \
                 -cert [tls_cert client.crt] -key [tls_cert client.key]] status out err
    if {![regexp -line {^subject=(.*)$} $out -> subject]} { fail "no subject from s_client: $err" }
    return $subject
}

proc tls_overrides {port args} {
    return [list tls-port $port tls-cert-file [tls_cert server.crt] tls-key-file [tls_cert server.key] \
                tls-ca-cert-file [tls_cert ca.crt] loglevel verbose {*}$args]
}

# ---- a build without TLS ---------------------------------------------------------------

if {![tls_built]} {
    test "without TLS built in, tls-* directives are refused naming the cause" {
        set dir [::harness::fresh_run_dir notls]
        set conf [file join $dir notls.conf]
        set fd [open $conf w]
        puts $fd "port 0\ntls-port 6380"
        close $fd
        lassign [run_failing_server $conf] status err
        assert_equal 1 $status
        assert_match "*tls-port: TLS support was not compiled in*" $err
    }
    test "TLS" { skip "this build has no TLS (make BUILD_TLS=yes, which needs libssl-dev): the TLS tests did not run" }
    return
}

set ::tls_skip [tls_why_not]
if {$::tls_skip ne ""} {
    test "TLS" { skip $::tls_skip }
    return
}

file mkdir $::tls_dir
exec [file join [pwd] tests helpers gen-certs.sh] $::tls_dir

# ---- the basics ------------------------------------------------------------------------------

set ::tls_port [::harness::find_free_port]
start_server [list tags {tls external:skip} overrides [tls_overrides $::tls_port]] {
    test "TLS: CONFIG GET shows every tls-* directive with Redis 7.0's defaults" {
        set defaults {
            tls-key-file-pass "" tls-client-cert-file "" tls-client-key-file "" tls-client-key-file-pass ""
            tls-dh-params-file "" tls-ca-cert-dir "" tls-protocols "" tls-ciphers "" tls-ciphersuites ""
            tls-auth-clients yes tls-prefer-server-ciphers no tls-session-caching yes
            tls-session-cache-size 20480 tls-session-cache-timeout 300 tls-cluster no tls-replication no
        }
        foreach {name value} $defaults {
            assert_equal [list $name $value] [r config get $name]
        }
        assert_equal [list tls-port $::tls_port] [r config get tls-port]
        assert_equal 20 [expr {[llength [r config get tls-*]] / 2}]
    }

    test "TLS: our redis-cli --tls sets and gets; the client shows on the TLS port" {
        assert_equal OK [tls_cli $::tls_port set tlskey hello]
        assert_equal hello [tls_cli $::tls_port get tlskey]
        assert_equal hello [r get tlskey]
        set list [tls_cli $::tls_port client list]
        assert_match "*laddr=127.0.0.1:$::tls_port *cmd=client|list*" $list
    }

    test "TLS: Lua debugging sessions (forked, sync) over TLS" {
        set script [file join $::tls_dir ldb.lua]
        ::harness::write_file $script "redis.call('set', KEYS\[1\], ARGV\[1\])\nreturn redis.call('get', KEYS\[1\])\n"
        r set ldbkey old
        set ::env(TERM) dumb
        lassign [tls_cli_run $::tls_port -in "n\nc\n" --ldb --eval $script ldbkey , new] status out err
        assert_equal 0 $status $err
        assert_match "*\n<redis> set ldbkey new\n<reply> \"+OK\"\n*\n\"new\"\n\n(Lua debugging session ended -- dataset changes rolled back)\n\n" $out
        assert_equal old [r get ldbkey]
        lassign [tls_cli_run $::tls_port -in "c\n" --ldb-sync-mode --eval $script ldbkey , new] status out err
        assert_match "*\n\"new\"\n\n(Lua debugging session ended)\n\n" $out
        assert_equal new [r get ldbkey]
    }

    test "TLS: Debian's redis-cli --tls against our server" {
        if {![file executable /usr/bin/redis-cli]} { skip "/usr/bin/redis-cli not installed" }
        assert_equal PONG [tls_cli $::tls_port -prog /usr/bin/redis-cli ping]
        assert_equal hello [tls_cli $::tls_port -prog /usr/bin/redis-cli get tlskey]
    }

    test "TLS: a CA directory (--cacertdir, tls-ca-cert-dir) and --insecure" {
        lassign [tls_run {*}$::harness::opt(wrapper) $::tls_cli -p $::tls_port --tls --cacertdir [tls_cert cadir] \
                     --cert [tls_cert client.crt] --key [tls_cert client.key] ping] status out err
        assert_equal "0 PONG" [list $status [string trim $out]] $err
        lassign [tls_run {*}$::harness::opt(wrapper) $::tls_cli -p $::tls_port --tls --insecure \
                     --cert [tls_cert client.crt] --key [tls_cert client.key] ping] status out err
        assert_equal "0 PONG" [list $status [string trim $out]] $err
        assert_equal OK [r config set tls-ca-cert-file "" tls-ca-cert-dir [tls_cert cadir]]
        assert_equal PONG [tls_cli $::tls_port ping]
        assert_equal OK [r config set tls-ca-cert-file [tls_cert ca.crt] tls-ca-cert-dir ""]
    }

    test "TLS: a server certificate from another CA fails the client's check" {
        lassign [tls_run {*}$::harness::opt(wrapper) $::tls_cli -p $::tls_port --tls --cacert [tls_cert other-ca.crt] \
                     --cert [tls_cert client.crt] --key [tls_cert client.key] ping] status out err
        assert_equal 1 $status
        assert_match "*SSL_connect failed: certificate verify failed*" $err
        lassign [tls_run {*}$::harness::opt(wrapper) $::tls_cli -p $::tls_port --tls --cacert /nonexistent ping] \
            status out err
        # (Redis 7.0's tool prints the line twice; ours once)
        assert_equal "1 {Could not negotiate a TLS connection: Invalid CA Certificate File/Directory}" \
            [list $status [lindex [split $err \n] 0]]
    }

    test "TLS: bad clients are refused, logged, and a TLS subscriber keeps working" {
        set sub_out [file join $::tls_dir sub.out]
        set sub_pid [exec {*}$::harness::opt(wrapper) $::tls_cli -p $::tls_port --tls --cacert [tls_cert ca.crt] \
                         --cert [tls_cert client.crt] --key [tls_cert client.key] subscribe tlsch > $sub_out 2>@1 &]
        wait_for_condition 100 50 {[dict get [r pubsub numsub tlsch] tlsch] == 1} else {
            fail "the TLS subscriber did not subscribe: [::harness::read_file $sub_out]"
        }
        set from [log_line_count]
        # no client certificate while tls-auth-clients is yes
        lassign [tls_cli_run $::tls_port -nocert ping] status out err
        assert_equal 1 $status
        # a certificate from another CA, an expired one
        lassign [tls_cli_run $::tls_port --cert [tls_cert other.crt] --key [tls_cert other.key] ping] status
        assert_equal 1 $status
        lassign [tls_cli_run $::tls_port --cert [tls_cert expired.crt] --key [tls_cert expired.key] ping] status
        assert_equal 1 $status
        # plaintext RESP, then garbage, on the TLS port
        lassign [tls_run {*}$::harness::opt(wrapper) $::tls_cli -p $::tls_port ping] status out err
        assert_equal 1 $status
        set sock [socket 127.0.0.1 $::tls_port]
        fconfigure $sock -translation binary
        puts -nonewline $sock [string repeat "\x16\x03\x01\xff\xff garbage \x00" 40]
        flush $sock
        fconfigure $sock -blocking 1
        catch {read $sock}
        close $sock
        wait_for_log "*Error accepting a client connection*certificate*" -from $from
        wait_for_log "*Error accepting a client connection*wrong version number*" -from $from
        assert_equal PONG [tls_cli $::tls_port ping]
        r publish tlsch still-here
        wait_for_condition 100 50 {[string match "*still-here*" [::harness::read_file $sub_out]]} else {
            fail "the subscriber got nothing: [::harness::read_file $sub_out]"
        }
        exec kill $sub_pid
    }

    test "TLS: blocking commands and MONITOR through TLS" {
        set out [file join $::tls_dir blpop.out]
        set pid [exec {*}$::harness::opt(wrapper) $::tls_cli -p $::tls_port --tls --cacert [tls_cert ca.crt] \
                     --cert [tls_cert client.crt] --key [tls_cert client.key] blpop tlslist 0 > $out 2>@1 &]
        wait_for_blocked_clients 1
        r rpush tlslist item
        wait_for_condition 100 50 {![::harness::pid_alive $pid]} else { fail "BLPOP over TLS never returned" }
        assert_equal "tlslist\nitem" [string trim [::harness::read_file $out]]
        set mon [file join $::tls_dir monitor.out]
        set pid [exec {*}$::harness::opt(wrapper) $::tls_cli -p $::tls_port --tls --cacert [tls_cert ca.crt] \
                     --cert [tls_cert client.crt] --key [tls_cert client.key] monitor > $mon 2>@1 &]
        wait_for_condition 100 50 {[string match "*OK*" [::harness::read_file $mon]]} else { fail "no MONITOR" }
        r set monitored-over-tls 1
        wait_for_condition 100 50 {[string match "*monitored-over-tls*" [::harness::read_file $mon]]} else {
            fail "MONITOR over TLS saw nothing: [::harness::read_file $mon]"
        }
        exec kill $pid
    }

    test "TLS: a big value and a big pipeline go through TLS" {
        set value [string repeat "0123456789abcdef" [expr {256 * 1024}]]
        set file [file join $::tls_dir big.val]
        set fd [open $file wb]
        puts -nonewline $fd $value
        close $fd
        lassign [tls_run sh -c "[join $::harness::opt(wrapper)] $::tls_cli -p $::tls_port --tls \
                     --cacert [tls_cert ca.crt] --cert [tls_cert client.crt] --key [tls_cert client.key] \
                     -x set bigval < $file"] status out err
        assert_equal "0 OK" [list $status [string trim $out]] $err
        assert_equal [string length $value] [r strlen bigval]
        assert_equal [expr {[string length $value] + 1}] [string length [tls_cli $::tls_port get bigval]\n]
        set cmds [file join $::tls_dir pipe.txt]
        set fd [open $cmds wb]
        set payload [string repeat x 1000]
        for {set i 0} {$i < 20000} {incr i} {
            puts -nonewline $fd "*3\r\n\$3\r\nSET\r\n\$[string length k$i]\r\nk$i\r\n\$1000\r\n$payload\r\n"
        }
        close $fd
        lassign [tls_run sh -c "[join $::harness::opt(wrapper)] $::tls_cli -p $::tls_port --tls \
                     --cacert [tls_cert ca.crt] --cert [tls_cert client.crt] --key [tls_cert client.key] \
                     --pipe < $cmds"] status out err
        assert_equal 0 $status $err
        assert_match "*errors: 0, replies: 20000*" $out
        assert_equal $payload [r get k19999]
        # arguments over 32 KB in a pipeline: the server reads each one's tail
        # exactly, leaving the next command's bytes decrypted inside OpenSSL,
        # where only the pending-input pass (tlsProcessPendingData) finds them
        set fd [open $cmds wb]
        set big [string repeat y 40000]
        for {set i 0} {$i < 200} {incr i} {
            puts -nonewline $fd "*3\r\n\$3\r\nSET\r\n\$[string length bk$i]\r\nbk$i\r\n\$40000\r\n$big\r\n"
        }
        close $fd
        lassign [tls_run sh -c "[join $::harness::opt(wrapper)] $::tls_cli -p $::tls_port --tls \
                     --cacert [tls_cert ca.crt] --cert [tls_cert client.crt] --key [tls_cert client.key] \
                     --pipe < $cmds"] status out err
        assert_equal 0 $status $err
        assert_match "*errors: 0, replies: 200*" $out
        assert_equal $big [r get bk199]
        # and big replies to a pipeline, read back through TLS
        set fd [open $cmds wb]
        for {set i 0} {$i < 5000} {incr i} { puts -nonewline $fd "*2\r\n\$3\r\nGET\r\n\$2\r\nk1\r\n" }
        close $fd
        lassign [tls_run sh -c "[join $::harness::opt(wrapper)] $::tls_cli -p $::tls_port --tls \
                     --cacert [tls_cert ca.crt] --cert [tls_cert client.crt] --key [tls_cert client.key] \
                     --pipe < $cmds"] status out err
        assert_equal 0 $status $err
        assert_match "*errors: 0, replies: 5000*" $out
    }

    test "TLS: CONFIG SET reloads the certificate; a bad one leaves the old serving" {
        assert_match "*CN*=*Server-only*" [served_subject $::tls_port]
        assert_error "*Unable to update TLS configuration*" {r config set tls-cert-file [tls_cert bad.crt]}
        assert_error "*Unable to update TLS configuration*" {r config set tls-cert-file [tls_cert server2.crt]}
        assert_equal [list tls-cert-file [tls_cert server.crt]] [r config get tls-cert-file]
        assert_equal PONG [tls_cli $::tls_port ping]
        assert_equal OK [r config set tls-cert-file [tls_cert server2.crt] tls-key-file [tls_cert server2.key]]
        assert_match "*CN*=*Server-two*" [served_subject $::tls_port]
        assert_equal PONG [tls_cli $::tls_port ping]
    }

    test "TLS: bad tls-* values get Redis's errors" {
        assert_error "*Unable to update TLS configuration*" {r config set tls-protocols TLSv9}
        assert_error "*Unable to update TLS configuration*" {r config set tls-ciphers nonsense}
        assert_error "*Unable to update TLS configuration*" {r config set tls-ciphersuites nonsense}
        assert_error "*must be one of the following: no, yes, optional*" {r config set tls-auth-clients maybe}
        assert_error "*argument must be between 0 and 2147483647 inclusive*" {r config set tls-session-cache-size -1}
        assert_equal OK [r config set tls-protocols TLSv1.2]
        assert_equal PONG [tls_cli $::tls_port ping]
        assert_equal OK [r config set tls-protocols "TLSv1.2 TLSv1.3" tls-dh-params-file [tls_cert dh.pem]]
        assert_equal PONG [tls_cli $::tls_port ping]
    }

    test "TLS: no client certificate while tls-auth-clients is yes: Redis 7.0's tool's message" {
        # The server's alert ends the session: OpenSSL's read returns 0,
        # which hiredis (and so Redis's tool) reports as a closed connection.
        lassign [tls_cli_run $::tls_port -nocert ping] status out err
        if {[file normalize $::harness::opt(server)] eq "/usr/bin/redis-server"} {
            # Redis's server resets the connection, often before its alert is read
            assert_match "Error: *" $err
        } else {
            assert_equal [list 1 "" "Error: Server closed the connection\n"] [list $status $out $err]
            if {[file executable /usr/bin/redis-cli]} {
                assert_equal [list $status $out $err] [tls_cli_run $::tls_port -prog /usr/bin/redis-cli -nocert ping]
            }
        }
        lassign [tls_cli_run $::tls_port -nocert --rdb [file join $::tls_dir nocert.rdb]] status out err
        assert_equal [list 1 "sending REPLCONF capa eof\n\nI/O error\n"] [list $status $err]
    }

    test "TLS: tls-auth-clients optional and no" {
        assert_equal OK [r config set tls-auth-clients optional]
        assert_equal PONG [tls_cli $::tls_port -nocert ping]
        lassign [tls_cli_run $::tls_port --cert [tls_cert other.crt] --key [tls_cert other.key] ping] status
        assert_equal 1 $status "optional still checks a certificate that is presented"
        assert_equal OK [r config set tls-auth-clients no]
        assert_equal PONG [tls_cli $::tls_port -nocert ping]
        assert_equal PONG [tls_cli $::tls_port --cert [tls_cert other.crt] --key [tls_cert other.key] ping]
        assert_equal OK [r config set tls-auth-clients yes]
        lassign [tls_cli_run $::tls_port -nocert ping] status
        assert_equal 1 $status
    }

    test "TLS: CONFIG SET tls-port moves the TLS listener" {
        set new [::harness::find_free_port]
        assert_equal OK [r config set tls-port $new]
        assert_equal PONG [tls_cli $new ping]
        lassign [tls_cli_run $::tls_port ping] status
        assert_equal 1 $status
        assert_equal OK [r config set tls-port $::tls_port]
        assert_equal PONG [tls_cli $::tls_port ping]
    }
}

# ---- start-up variants ------------------------------------------------------------------------

# A server started by hand (the harness needs a plain port): {pid port dir}.
proc start_tls_only {args} {
    set dir [::harness::fresh_run_dir tlsonly]
    set port [::harness::find_free_port]
    set pid [exec {*}[server_command --port 0 --bind 127.0.0.1 --save "" --dir $dir --logfile [file join $dir log] \
                 --tls-port $port --tls-cert-file [tls_cert server.crt] --tls-ca-cert-file [tls_cert ca.crt] \
                 {*}$args] &]
    return [list $pid $port $dir]
}

proc stop_by_pid {pid} {
    catch {exec kill $pid}
    wait_for_condition 100 50 {![::harness::pid_alive $pid]} else { catch {exec kill -9 $pid} }
}

tags {tls external:skip} {
    test "TLS: port 0 and tls-port only, with an encrypted key" {
        lassign [start_tls_only --tls-key-file [tls_cert server-pass.key] --tls-key-file-pass secret] pid port dir
        wait_for_condition 100 50 {[lindex [tls_cli_run $port ping] 1] eq "PONG\n"} else {
            stop_by_pid $pid
            fail "TLS-only server did not answer: [::harness::read_file [file join $dir log]]"
        }
        assert_equal "port\n0" [tls_cli $port config get port]
        assert_match "*Ready to accept connections*" [::harness::read_file [file join $dir log]]
        stop_by_pid $pid
    }

    test "TLS: a tls-port without a certificate stops start-up, as in Redis" {
        set dir [::harness::fresh_run_dir tlsnocert]
        lassign [run_failing_server --port 0 --tls-port [::harness::find_free_port] --save "" \
                     --logfile [file join $dir log]] status
        assert_equal 1 $status
        set log [::harness::read_file [file join $dir log]]
        assert_match "*No tls-cert-file configured!*" $log
        assert_match "*Failed to configure TLS. Check logs for more info.*" $log
    }

    test "TLS: our redis-cli --tls against Debian's redis-server with TLS" {
        set ref [reference_server]
        if {$ref eq ""} { skip "/usr/bin/redis-server not installed" }
        set dir [::harness::fresh_run_dir tlsref]
        set port [::harness::find_free_port]
        set pid [exec $ref --port 0 --bind 127.0.0.1 --save "" --dir $dir --logfile [file join $dir log] \
                     --tls-port $port --tls-cert-file [tls_cert server.crt] --tls-key-file [tls_cert server.key] \
                     --tls-ca-cert-file [tls_cert ca.crt] &]
        wait_for_condition 100 50 {[lindex [tls_cli_run $port ping] 1] eq "PONG\n"} else {
            stop_by_pid $pid
            fail "Debian's server did not answer over TLS: [::harness::read_file [file join $dir log]]"
        }
        assert_equal OK [tls_cli $port set k v]
        assert_equal v [tls_cli $port get k]
        lassign [tls_cli_run $port -nocert ping] status
        assert_equal 1 $status
        stop_by_pid $pid
    }
}

# ---- replication over TLS (tls-replication) ------------------------------------------------------
#
# The replica connects to its primary's tls-port; INFO and DEBUG DIGEST go
# through the plain ports. Our primary relays a TLS replica's snapshot from
# the child through a pipe (replication.c), so both framings are covered:
# "$<len>" from disk and diskless "$EOF:".

# stdout of our redis-cli on a plain PORT.
proc plain_cli {port args} {
    lassign [tls_run {*}$::harness::opt(wrapper) $::tls_cli -h 127.0.0.1 -p $port {*}$args] status out err
    if {$status != 0} { fail "redis-cli -p $port $args: exit $status: $err" }
    return [string trimright $out "\n"]
}

proc tls_wait_link_up {port} {
    wait_for_condition 200 50 {[string match "*master_link_status:up*" [plain_cli $port info replication]]} else {
        fail "the replica on port $port never got its link up over TLS"
    }
}

proc tls_wait_same_digest {pport rport} {
    wait_for_condition 100 50 {[plain_cli $pport debug digest] eq [plain_cli $rport debug digest]} else {
        fail "primary and replica digests differ: [plain_cli $pport debug digest] [plain_cli $rport debug digest]"
    }
}

# A Debian redis-server with a plain and a TLS port: {pid port tls_port dir}.
proc start_reference_tls {args} {
    set dir [::harness::fresh_run_dir tlsrefrepl]
    set port [::harness::find_free_port]
    set tport [::harness::find_free_port]
    set pid [exec [reference_server] --port $port --bind 127.0.0.1 --save "" --dir $dir \
                 --logfile [file join $dir log] --enable-debug-command yes --tls-port $tport \
                 --tls-cert-file [tls_cert server.crt] --tls-key-file [tls_cert server.key] \
                 --tls-ca-cert-file [tls_cert ca.crt] {*}$args &]
    wait_for_condition 100 50 {[lindex [tls_run redis-cli -p $port ping] 1] eq "PONG\n"} else {
        stop_by_pid $pid
        fail "Debian's server did not start: [::harness::read_file [file join $dir log]]"
    }
    return [list $pid $port $tport $dir]
}

# the replica's diskless load (swapdb) parses the TLS link as it comes
foreach {diskless load} {no disabled yes disabled yes swapdb} {
    set ptls [::harness::find_free_port]
    start_server [list tags {tls repl external:skip} overrides [tls_overrides $ptls repl-diskless-sync $diskless \
                                                                  repl-diskless-sync-delay 0]] {
        r debug populate 20000 tlsrepl 100
        r set big [string repeat x 200000]
        set rtls [::harness::find_free_port]
        start_server [list tags {tls repl} overrides [tls_overrides $rtls tls-replication yes repl-diskless-load $load]] {
            test "TLS replication: ours -> ours over tls-port (diskless $diskless, replica's load $load)" {
                set from [log_line_count -1]
                r replicaof 127.0.0.1 $ptls
                tls_wait_link_up [srv 0 port]
                r -1 rpush tlslist a b c
                r -1 incrby tlscounter 5
                tls_wait_same_digest [srv -1 port] [srv 0 port]
                assert_equal 20003 [r dbsize]
                set target [expr {$diskless eq "yes" ? "replicas sockets" : "disk"}]
                wait_for_log "*Starting BGSAVE for SYNC with target: $target" -level -1 -from $from
                wait_for_log "*Synchronization with replica*succeeded*" -level -1 -from $from
                assert_match "*laddr=127.0.0.1:$ptls *flags=S*" [r -1 client list]
                # the replica announces its TLS port (REPLCONF listening-port), as Redis 7.0
                assert_match "*slave0:ip=127.0.0.1,port=$rtls,*" [plain_cli [srv -1 port] info replication]
                r replicaof no one
            }
        }
    }
}

tags {tls repl external:skip} {
    test "TLS replication: Debian's redis-server primary -> our replica" {
        if {[reference_server] eq ""} { skip "/usr/bin/redis-server not installed" }
        lassign [start_reference_tls --repl-diskless-sync yes --repl-diskless-sync-delay 0] pid port tport
        try {
            plain_cli $port debug populate 5000 refkey 50
            set rtls [::harness::find_free_port]
            start_server [list overrides [tls_overrides $rtls tls-replication yes]] {
                r replicaof 127.0.0.1 $tport
                tls_wait_link_up [srv 0 port]
                plain_cli $port rpush reflist x y z
                tls_wait_same_digest $port [srv 0 port]
                assert_equal 5001 [r dbsize]
                assert_match "*slave0:ip=127.0.0.1,port=$rtls,*" [plain_cli $port info replication]
            }
        } finally {
            stop_by_pid $pid ;# also when a check failed: a reference left running holds the run open
        }
    }

    test "TLS replication: our primary -> Debian's redis-server replica (tls-replication yes)" {
        if {[reference_server] eq ""} { skip "/usr/bin/redis-server not installed" }
        set ptls [::harness::find_free_port]
        start_server [list overrides [tls_overrides $ptls repl-diskless-sync no]] {
            r debug populate 5000 ourkey 50
            lassign [start_reference_tls --tls-replication yes --replicaof 127.0.0.1 $ptls] pid port tport
            try {
                tls_wait_link_up $port
                r sadd ourset a b c
                tls_wait_same_digest [srv 0 port] $port
                assert_equal 5001 [plain_cli $port dbsize]
            } finally {
                stop_by_pid $pid
            }
        }
    }
}

set ptls [::harness::find_free_port]
start_server [list tags {tls repl external:skip} overrides [tls_overrides $ptls]] {
    set rtls [::harness::find_free_port]
    start_server [list tags {tls repl} overrides [tls_overrides $rtls tls-replication yes \
                     tls-client-cert-file [tls_cert other.crt] tls-client-key-file [tls_cert other.key]]] {
        test "TLS replication: a replica's certificate from another CA fails the handshake, retried" {
            set pfrom [log_line_count -1]
            set from [log_line_count]
            r replicaof 127.0.0.1 $ptls
            wait_for_log "*Error accepting a client connection*certificate verify failed*" -level -1 -from $pfrom
            wait_for_condition 100 50 {
                [regexp -all {Connecting to MASTER} [join [lrange [split [::harness::read_file [srv 0 stdout]] \n] $from end] \n]] >= 3
            } else { fail "the replica did not keep retrying" }
            assert_match "*master_link_status:down*" [r info replication]
            assert_equal 0 [s -1 connected_slaves]
            assert_equal OK [tls_cli $ptls set still serving]
            assert_equal serving [r -1 get still]
            r replicaof no one
        }
    }
}
