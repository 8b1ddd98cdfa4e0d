# redis.tcl -- a small, pure-Tcl RESP client for the integration tests.
#
#   set c [::resp::connect 127.0.0.1 6379 ?-deferred 1? ?-timeout SECONDS?]
#   set c [::resp::connect_unix /path/to/socket ?options?]
#   $c set foo bar            ;# sends a command, returns its reply
#   $c read                   ;# reads the next reply (deferred clients)
#
# Design decisions:
# - The socket is always non-blocking and every wait goes through the event
#   loop with a timer, so a silent server makes a read fail with a clear
#   "read timeout" error instead of hanging the test file. Output queued on
#   the socket is drained in the background by Tcl, so writing a large
#   pipeline can never deadlock against replies the server is writing back.
# - Replies are parsed by their type byte, so RESP2 and RESP3 need no mode:
#   after HELLO 3 the same parser simply meets the RESP3 types. Values come
#   back as Tcl strings of bytes (one char per byte, 0..255). Arguments are
#   sent as bytes the same way; a string holding characters above U+00FF is
#   sent as UTF-8.
# - Nulls ($-1, *-1, _) are the empty string, maps are flat key/value lists,
#   booleans are 1/0, doubles and big numbers are returned as sent, verbatim
#   strings lose their "txt:" prefix, attributes are skipped.
# - An error reply raises a Tcl error carrying the message (errorCode
#   {REDIS ERROR}). An error nested inside an array (e.g. one EXEC result)
#   raises too, but only after the whole reply was read, so the connection
#   stays in sync; errorCode is then {REDIS NESTED <whole reply>}.
# - Received bytes are kept in a per-connection buffer and a reply is
#   consumed only once it is complete, so a timeout or a "not ready" answer in
#   non-blocking mode leaves the connection usable.
# - RESP3 push messages (>) arriving while a command waits for its reply are
#   queued; "$c read" returns queued pushes first. In readraw or pub/sub mode
#   (after SUBSCRIBE, PSUBSCRIBE or SSUBSCRIBE) a push is the next reply.
# - Unix sockets: Tcl 8.6 has no AF_UNIX support, so a tiny relay process
#   (perl, part of every Debian base system; socat if perl is missing) bridges
#   a pipe to the socket. It exits as soon as either side closes.

namespace eval ::resp {
    variable next_id 0
    # Seconds a read may wait for more bytes; the harness scales it.
    variable default_timeout 10.0
    # Per-connection state, indexed by "$id,field".
    variable C
    # Wake-up variables for vwait, one per connection.
    variable W
}

# ---- connecting ----------------------------------------------------------------

proc ::resp::connect {host port args} {
    variable default_timeout
    set timeout $default_timeout
    if {[dict exists $args -timeout]} { set timeout [dict get $args -timeout] }
    set fd [connect_within $host $port $timeout]
    return [new_connection $fd "$host:$port" $args]
}

# An asynchronous connect, so an unreachable host fails within TIMEOUT
# seconds instead of the system's connect timeout.
proc ::resp::connect_within {host port timeout} {
    variable W
    if {[catch {socket -async $host $port} fd]} {
        return -code error -errorcode {RESP CONNECT} "cannot connect to $host:$port: $fd"
    }
    set key connect,$fd
    set W($key) ""
    fileevent $fd writable [list set ::resp::W($key) done]
    set timer [after [expr {int($timeout * 1000)}] [list set ::resp::W($key) timeout]]
    vwait ::resp::W($key)
    after cancel $timer
    fileevent $fd writable {}
    set outcome $W($key)
    unset W($key)
    set err [expr {$outcome eq "timeout" ? "no answer within $timeout s" : [fconfigure $fd -error]}]
    if {$err ne ""} {
        catch {close $fd}
        return -code error -errorcode {RESP CONNECT} "cannot connect to $host:$port: $err"
    }
    return $fd
}

proc ::resp::connect_unix {path args} {
    set relay [unix_relay_command $path]
    if {[catch {open |$relay r+} fd]} {
        return -code error -errorcode {RESP CONNECT} \
            "cannot connect to unix socket $path: $fd"
    }
    set handle [new_connection $fd "unix:$path" $args]
    set id [string range $handle [string length ::resp::conn] end]
    if {[catch {read_line $id} hello] || $hello ne "relay-connected"} {
        close_connection $id
        if {[string match "relay-failed:*" $hello]} {
            set hello [string trim [string range $hello 13 end]]
        }
        return -code error -errorcode {RESP CONNECT} \
            "cannot connect to unix socket $path: $hello"
    }
    commit $id
    return $handle
}

# The relay connects, says "relay-connected" (or "relay-failed: why") on its
# first line, then copies stdin to the socket and the socket to stdout until
# either side reaches end of file.
proc ::resp::unix_relay_command {path} {
    # A test may put its own relay first (tests/unit/shm.tcl: shared memory).
    if {[info exists ::resp::relay_override]} { return [list {*}$::resp::relay_override $path 2>@stderr] }
    set script {
        use Socket;
        binmode STDIN; binmode STDOUT; $| = 1;
        socket(my $s, PF_UNIX, SOCK_STREAM, 0) or print("relay-failed: socket: $!\r\n"), exit 1;
        connect($s, pack_sockaddr_un($ARGV[0])) or print("relay-failed: $!\r\n"), exit 1;
        print "relay-connected\r\n";
        my $rin = ''; vec($rin, fileno(STDIN), 1) = 1; vec($rin, fileno($s), 1) = 1;
        while (1) {
            select(my $rout = $rin, undef, undef, undef) > 0 or next;
            for my $pair ([\*STDIN, $s], [$s, \*STDOUT]) {
                my ($from, $to) = @$pair;
                next unless vec($rout, fileno($from), 1);
                my $n = sysread($from, my $buf, 65536);
                exit 0 unless $n;
                while (length $buf) {
                    my $w = syswrite($to, $buf) or exit 0;
                    substr($buf, 0, $w) = '';
                }
            }
        }
    }
    if {[auto_execok perl] ne ""} {
        return [list perl -e $script $path 2>@stderr]
    }
    if {[auto_execok socat] ne ""} {
        # socat has no greeting: fake the relay's first line.
        return [list sh -c {printf 'relay-connected\r\n'; exec socat - "UNIX-CONNECT:$0"} $path 2>@stderr]
    }
    return -code error -errorcode {RESP CONNECT} \
        "unix sockets need perl or socat to be installed"
}

proc ::resp::new_connection {fd addr options} {
    variable next_id
    variable C
    variable default_timeout
    set id [incr next_id]
    fconfigure $fd -translation binary -blocking 0 -buffering full -buffersize 65536
    array set C [list $id,fd $fd $id,addr $addr $id,buf "" $id,pos 0 \
        $id,deferred 0 $id,raw 0 $id,rawbulk -1 $id,blocking 1 $id,pubsub 0 \
        $id,pushes {} $id,timeout $default_timeout $id,nested ""]
    foreach {opt value} $options {
        switch -- $opt {
            -deferred { set C($id,deferred) [expr {!!$value}] }
            -timeout  { set C($id,timeout) $value }
            -readraw  { set C($id,raw) [expr {!!$value}] }
            default {
                close_connection $id
                return -code error "unknown connection option $opt"
            }
        }
    }
    set handle ::resp::conn$id
    interp alias {} $handle {} ::resp::dispatch $id
    return $handle
}

# ---- the handle's methods ----------------------------------------------------------

proc ::resp::dispatch {id method args} {
    variable C
    if {![info exists C($id,fd)]} {
        return -code error "connection $id is closed"
    }
    switch -exact -- $method {
        read        { return [read_message $id] }
        write       { send_bytes $id [to_bytes [lindex $args 0]] 0; return }
        flush       { drain $id; return }
        close       { close_connection $id; return }
        readraw     { set C($id,raw) [expr {!![lindex $args 0]}]; set C($id,rawbulk) -1; return }
        blocking    { set C($id,blocking) [expr {!![lindex $args 0]}]; return }
        deferred    { set C($id,deferred) [expr {!![lindex $args 0]}]; return }
        read_timeout { set C($id,timeout) [lindex $args 0]; return }
        ready       { return [reply_ready $id] }
        channel     { return $C($id,fd) }
        address     { return $C($id,addr) }
        default     { return [call $id [linsert $args 0 $method]] }
    }
}

# Sends one command; a normal client then waits for its reply.
proc ::resp::call {id argv} {
    variable C
    set name [string tolower [lindex $argv 0]]
    if {$name in {subscribe psubscribe ssubscribe}} { set C($id,pubsub) 1 }
    if {$name eq "reset"} { set C($id,pubsub) 0 }
    send_bytes $id [encode_command $argv] 1
    if {$C($id,deferred)} { return "" }
    if {$C($id,raw)} { return [read_raw $id] }
    return [read_reply $id [expr {$C($id,pubsub)}]]
}

proc ::resp::close_connection {id} {
    variable C
    variable W
    set fd $C($id,fd)
    # A relay pipe is closed without waiting for the relay to exit.
    catch {fconfigure $fd -blocking 0}
    catch {close $fd}
    array unset C $id,*
    unset -nocomplain W($id)
    catch {interp alias {} ::resp::conn$id {}}
}

# ---- writing -----------------------------------------------------------------------

proc ::resp::to_bytes {s} {
    if {[regexp {[^\x00-\xff]} $s]} { return [encoding convertto utf-8 $s] }
    return $s
}

proc ::resp::encode_command {argv} {
    set out "*[llength $argv]\r\n"
    foreach arg $argv {
        set arg [to_bytes $arg]
        append out "\$[string length $arg]\r\n" $arg "\r\n"
    }
    return $out
}

proc ::resp::send_bytes {id bytes wait_drained} {
    variable C
    if {[catch {
        puts -nonewline $C($id,fd) $bytes
        flush $C($id,fd)
    } err]} {
        return -code error -errorcode {RESP IO} "write to $C($id,addr) failed: $err"
    }
    if {$wait_drained && $C($id,blocking)} { drain $id }
}

# Waits (bounded) until Tcl has handed all queued output to the kernel.
proc ::resp::drain {id} {
    variable C
    set fd $C($id,fd)
    if {[catch {flush $fd} err]} {
        return -code error -errorcode {RESP IO} "write to $C($id,addr) failed: $err"
    }
    set deadline [expr {[clock milliseconds] + int($C($id,timeout) * 1000)}]
    while {[chan pending output $fd] > 0} {
        if {[clock milliseconds] > $deadline} {
            return -code error -errorcode {RESP TIMEOUT} \
                "write timeout: $C($id,addr) did not accept our data within $C($id,timeout) s"
        }
        sleep_in_event_loop $id 2
    }
}

proc ::resp::sleep_in_event_loop {id ms} {
    variable W
    set W($id) ""
    set timer [after $ms [list set ::resp::W($id) timer]]
    vwait ::resp::W($id)
    after cancel $timer
}

# ---- reading: the buffer -------------------------------------------------------------

# Appends whatever bytes are available; waits for some if there are none.
proc ::resp::more {id} {
    variable C
    set fd $C($id,fd)
    while 1 {
        if {[catch {read $fd} data]} {
            return -code error -errorcode {RESP IO} "read from $C($id,addr) failed: $data"
        }
        if {$data ne ""} {
            append C($id,buf) $data
            return
        }
        if {[eof $fd]} {
            return -code error -errorcode {RESP EOF} \
                "connection closed by the server ($C($id,addr))"
        }
        if {!$C($id,blocking)} {
            return -code error -errorcode {RESP NOTREADY} \
                "no complete reply available yet from $C($id,addr)"
        }
        wait_readable $id
    }
}

proc ::resp::wait_readable {id} {
    variable C
    variable W
    set fd $C($id,fd)
    set W($id) ""
    fileevent $fd readable [list set ::resp::W($id) readable]
    set timer [after [expr {int($C($id,timeout) * 1000)}] [list set ::resp::W($id) timeout]]
    vwait ::resp::W($id)
    after cancel $timer
    if {[info exists C($id,fd)]} { fileevent $fd readable {} }
    if {$W($id) eq "timeout"} {
        return -code error -errorcode {RESP TIMEOUT} \
            "read timeout: no reply from $C($id,addr) within $C($id,timeout) s"
    }
}

proc ::resp::read_line {id} {
    upvar #0 ::resp::C($id,buf) buf ::resp::C($id,pos) pos
    while {[set end [string first "\r\n" $buf $pos]] < 0} { more $id }
    set line [string range $buf $pos [expr {$end - 1}]]
    set pos [expr {$end + 2}]
    return $line
}

proc ::resp::read_bytes {id n} {
    upvar #0 ::resp::C($id,buf) buf ::resp::C($id,pos) pos
    while {[string length $buf] - $pos < $n + 2} { more $id }
    set last [expr {$pos + $n - 1}]
    if {[string range $buf $last+1 $last+2] ne "\r\n"} {
        protocol_error $id "bulk payload of $n bytes not followed by CRLF"
    }
    set bytes [string range $buf $pos $last]
    set pos [expr {$pos + $n + 2}]
    return $bytes
}

# Forgets the bytes of replies already returned.
proc ::resp::commit {id} {
    upvar #0 ::resp::C($id,buf) buf ::resp::C($id,pos) pos
    if {$pos >= [string length $buf]} {
        set buf ""
        set pos 0
    } elseif {$pos > 65536} {
        set buf [string range $buf $pos end]
        set pos 0
    }
}

proc ::resp::protocol_error {id what} {
    variable C
    return -code error -errorcode {RESP PROTOCOL} "protocol error from $C($id,addr): $what"
}

# ---- reading: messages --------------------------------------------------------------------

# "$c read": the next message of any kind, queued pushes first.
proc ::resp::read_message {id} {
    variable C
    if {$C($id,raw)} { return [read_raw $id] }
    if {[llength $C($id,pushes)]} {
        set msg [lindex $C($id,pushes) 0]
        set C($id,pushes) [lrange $C($id,pushes) 1 end]
        return $msg
    }
    return [read_reply $id 1]
}

# Reads one reply; pushes are returned only when accept_push is true,
# otherwise they are queued for a later "read".
proc ::resp::read_reply {id accept_push} {
    variable C
    while 1 {
        set start $C($id,pos)
        set C($id,nested) ""
        if {[catch {parse_value $id 1} value opts]} {
            set C($id,pos) $start
            return -options $opts $value
        }
        commit $id
        lassign $value kind reply
        if {$kind eq "push" && !$accept_push} {
            lappend C($id,pushes) $reply
            continue
        }
        if {$kind eq "error"} {
            return -code error -errorcode {REDIS ERROR} $reply
        }
        if {$C($id,nested) ne ""} {
            return -code error -errorcode [list REDIS NESTED $reply] $C($id,nested)
        }
        return $reply
    }
}

# 1 when a whole reply can be read without waiting.
proc ::resp::reply_ready {id} {
    variable C
    if {[llength $C($id,pushes)]} { return 1 }
    set saved $C($id,blocking)
    set start $C($id,pos)
    set C($id,blocking) 0
    set code [catch {
        if {$C($id,raw)} { raw_item $id } else { parse_value $id 1 }
    } result opts]
    set C($id,blocking) $saved
    set C($id,pos) $start
    if {$code == 0} { return 1 }
    if {[lindex [dict get $opts -errorcode] 1] eq "NOTREADY"} { return 0 }
    return -options $opts $result
}

# Parses one value. At the top level it returns {kind value} where kind is
# reply, push or error; nested values are returned bare.
proc ::resp::parse_value {id top} {
    variable C
    set line [read_line $id]
    set type [string index $line 0]
    set rest [string range $line 1 end]
    set kind reply
    switch -exact -- $type {
        + - ( { set value $rest }
        : { set value [parse_count $id $rest] }
        , { set value $rest }
        _ { set value "" }
        # { set value [expr {$rest eq "t"}] }
        $ {
            set n [parse_count $id $rest]
            # Not expr's ?: operator: it would turn a payload that looks
            # like a number (" 1", "0123", "1e3") into a different string.
            if {$n < 0} { set value "" } else { set value [read_bytes $id $n] }
        }
        = {
            set value [string range [read_bytes $id [parse_count $id $rest]] 4 end]
        }
        - { set kind error; set value $rest }
        ! { set kind error; set value [read_bytes $id [parse_count $id $rest]] }
        * - ~ { set value [parse_elements $id [parse_count $id $rest]] }
        > { set kind push; set value [parse_elements $id [parse_count $id $rest]] }
        % { set value [parse_elements $id [expr {2 * [parse_count $id $rest]}]] }
        | {
            parse_elements $id [expr {2 * [parse_count $id $rest]}]
            return [parse_value $id $top]
        }
        default {
            protocol_error $id "unexpected reply line '[string range $line 0 60]'"
        }
    }
    if {$top} { return [list $kind $value] }
    if {$kind eq "error" && $C($id,nested) eq ""} { set C($id,nested) $value }
    return $value
}

proc ::resp::parse_count {id text} {
    if {![string is entier -strict $text]} {
        protocol_error $id "bad length or integer '$text'"
    }
    return $text
}

proc ::resp::parse_elements {id count} {
    set items {}
    for {set i 0} {$i < $count} {incr i} {
        lappend items [parse_value $id 0]
    }
    return $items
}

# ---- readraw mode ------------------------------------------------------------------------------

# Returns the next protocol line without its CRLF; after a "$N" (or "=N",
# "!N") header the next call returns the N payload bytes.
proc ::resp::read_raw {id} {
    variable C
    set start $C($id,pos)
    if {[catch {raw_item $id} value opts]} {
        set C($id,pos) $start
        return -options $opts $value
    }
    commit $id
    if {$C($id,rawbulk) >= 0} {
        set C($id,rawbulk) -1
    } elseif {[regexp {^[$=!](\d+)$} $value -> n]} {
        set C($id,rawbulk) $n
        return $value
    }
    return $value
}

proc ::resp::raw_item {id} {
    variable C
    if {$C($id,rawbulk) >= 0} { return [read_bytes $id $C($id,rawbulk)] }
    return [read_line $id]
}
