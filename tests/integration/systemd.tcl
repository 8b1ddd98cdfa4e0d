# supervised systemd: the server announces readiness and shutdown over
# $NOTIFY_SOCKET (the sd_notify protocol, spoken without libsystemd). A perl
# listener stands in for systemd.

proc start_notify_listener {dir seconds} {
    set sock $dir/notify.sock
    set out $dir/notify.log
    close [open $out w]
    set pid [exec perl [file join [pwd] tests/helpers/notify-listener.pl] $sock $out $seconds &]
    wait_for_condition 50 100 {[file exists $sock]} else { fail "the notify listener did not start" }
    return [list $sock $out $pid]
}

proc notify_messages {out} {
    set fh [open $out r]
    set text [read $fh]
    close $fh
    return $text
}

set notify_dir [file normalize tests/tmp/notify.[pid]]
file mkdir $notify_dir

tags {systemd} {
    lassign [start_notify_listener $notify_dir 60] notify_sock notify_out notify_pid
    set ::env(NOTIFY_SOCKET) $notify_sock

    start_server {overrides {supervised systemd}} {
        test "supervised systemd: READY=1 is sent once the server accepts connections" {
            wait_for_condition 50 100 {[string match "*READY=1*" [notify_messages $notify_out]]} else {
                fail "no READY=1 received: [notify_messages $notify_out]"
            }
            assert_match "*STATUS=Ready to accept connections*" [notify_messages $notify_out]
            assert_equal PONG [r ping]
        }

        test "supervised systemd: STATUS=Redis is loading... before loading, then Ready, as Redis 7.0 sends them" {
            set text [notify_messages $notify_out]
            assert_match "STATUS=Redis is loading...|\nSTATUS=Ready to accept connections|*READY=1*" $text
        }

        test "supervised systemd: STOPPING=1 on SIGTERM, READY=1 again after a restart" {
            restart_server ;# SIGTERM, as systemctl stop sends, then a new start
            wait_for_condition 50 100 {[string match "*STOPPING=1*READY=1*" [notify_messages $notify_out]]} else {
                fail "expected STOPPING=1 then READY=1, got: [notify_messages $notify_out]"
            }
            assert_equal PONG [r ping]
        }
    }

    start_server {overrides {supervised no}} {
        test "supervised no: nothing is sent even with NOTIFY_SOCKET set" {
            set before [notify_messages $notify_out]
            assert_equal PONG [r ping]
            after 200
            assert_equal $before [notify_messages $notify_out]
        }
    }

    unset ::env(NOTIFY_SOCKET)
    catch {exec kill $notify_pid}
}
file delete -force $notify_dir
