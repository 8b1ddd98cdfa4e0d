#!/usr/bin/perl
# slow-reader.pl HOST PORT -- a client with a tiny receive buffer, for the
# write-barrier test in tests/integration/aof.tcl. It sends GET big and
# reads nothing, so the server's reply stays pending with its write handler
# installed; prints "sent". On a line from stdin (the test sends it while
# the server is blocked in DEBUG SLEEP) it drains what has arrived and sends
# SET x 1, so that the socket is readable and writable for the server in the
# same event-loop pass. Then it reads until the server closes, and prints
# the number of bytes received and the last 16 of them, escaped.
use strict;
use warnings;
use Socket;
use IO::Select;

my ($host, $port) = @ARGV;
socket(my $s, PF_INET, SOCK_STREAM, 0) or die "socket: $!";
setsockopt($s, SOL_SOCKET, SO_RCVBUF, 4096) or die "SO_RCVBUF: $!";
connect($s, sockaddr_in($port, inet_aton($host))) or die "connect: $!";
binmode $s;
$| = 1;
syswrite($s, "GET big\r\n") or die "write: $!";
print "sent\n";

my $go = <STDIN>;
my $got = '';
my $sel = IO::Select->new($s);
while ($sel->can_read(0.3)) {        # what has arrived, while the server sleeps
    my $n = sysread($s, my $buf, 65536);
    last unless $n;
    $got .= $buf;
}
syswrite($s, "SET x 1\r\n") or die "write: $!";
$sel->can_read(30) or last;
while (1) {                          # the rest, until the server is gone
    my $n = sysread($s, my $buf, 65536);
    last unless $n;
    $got .= $buf;
}
my $tail = substr($got, -16);
$tail =~ s/\r/\\r/g;
$tail =~ s/\n/\\n/g;
print length($got), " $tail\n";
