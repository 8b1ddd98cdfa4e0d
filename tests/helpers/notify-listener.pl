#!/usr/bin/perl
# notify-listener.pl SOCKET OUTFILE SECONDS -- a stand-in for systemd's
# notification socket: receives datagrams on SOCKET and appends each to
# OUTFILE (one per line) for at most SECONDS. Used by tests/integration/systemd.tcl.
use strict;
use warnings;
use IO::Socket::UNIX;
use IO::Select;
use Socket;

my ($path, $out, $seconds) = @ARGV;
unlink $path;
my $sock = IO::Socket::UNIX->new(Type => SOCK_DGRAM, Local => $path) or die "socket $path: $!";
open(my $fh, '>>', $out) or die "open $out: $!";
$fh->autoflush(1);
my $sel = IO::Select->new($sock);
my $deadline = time + $seconds;
while (time < $deadline) {
    next unless $sel->can_read(0.2);
    my $buf = '';
    $sock->recv($buf, 4096);
    $buf =~ s/\n/|/g;
    print $fh "$buf\n";
}
unlink $path;
