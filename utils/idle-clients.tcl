# idle-clients.tcl PORT N -- what N idle connections cost a server: opens N
# connections, sends one PING on each, and prints used_memory per client at
# once and after the connections have been quiet for 3.5 s (when servers
# that size their buffers to use have shrunk them), as "AT_ONCE IDLE" bytes.
# Used by utils/bench-server.sh; needs only tclsh.
lassign $argv port n

proc send_command {fd args} {
    set out "*[llength $args]\r\n"
    foreach a $args { append out "\$[string length $a]\r\n$a\r\n" }
    puts -nonewline $fd $out
    flush $fd
}

proc used_memory {port} {
    set fd [socket 127.0.0.1 $port]
    fconfigure $fd -translation binary
    send_command $fd info memory
    gets $fd header
    set body [read $fd [expr {[string range $header 1 end] + 2}]]
    close $fd
    regexp {used_memory:(\d+)} $body -> value
    return $value
}

set before [used_memory $port]
set fds {}
for {set i 0} {$i < $n} {incr i} {
    set fd [socket 127.0.0.1 $port]
    fconfigure $fd -translation binary
    send_command $fd ping
    gets $fd
    lappend fds $fd
}
set at_once [used_memory $port]
after 3500
set idle [used_memory $port]
puts "[expr {($at_once - $before) / $n}] [expr {($idle - $before) / $n}]"
foreach fd $fds { close $fd }
