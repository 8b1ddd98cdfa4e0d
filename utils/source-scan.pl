#!/usr/bin/env perl
# source-scan.pl -- the C-aware half of utils/check-source-names.sh: it
# parses just enough C to tell comments, code and file-scope declarations
# apart (a grep cannot), using core Perl only.
#
#   source-scan.pl comments FILE...     every comment line, as "file:line:text"
#                                       (C: /* */ and //, string literals
#                                       skipped; other files: lines whose
#                                       first non-blank is '#', as redis.conf)
#   source-scan.pl code FILE...         the code with comments and string
#                                       literals blanked, as "file:line:text"
#   source-scan.pl shortstructs TYPES FILE...
#                                       every file-scope variable of struct or
#                                       union type (or of a typedef of one, or
#                                       a pointer or array of it) whose name
#                                       has one or two characters, as
#                                       "file:line:name"; TYPES is a file of
#                                       C sources and headers to read typedefs from
#
# Decisions:
# - Literals are blanked, not removed, and newlines are kept, so line
#   numbers stay right.
# - A file-scope statement is what lies between two top-level ';' (or after
#   a function body); brace blocks inside it are collapsed to "{}", so a
#   struct definition with its variable (`static struct {...} R = {...};`)
#   reads as `static struct {} R = {};`. Preprocessor lines are dropped.
# - typedef statements declare types, not variables, and `extern` ones
#   declare what another file defines: neither is reported.
use strict;
use warnings;

sub slurp {
    my ($f) = @_;
    open(my $fh, '<', $f) or die "$f: $!\n";
    local $/;
    my $s = <$fh>;
    close $fh;
    return $s;
}

# Splits C source into (code, comments), both the same length as the input
# with what belongs to the other blanked (newlines kept); string and
# character literals are blanked in both.
sub split_source {
    my ($src) = @_;
    my ($code, $comm) = ('', '');
    my $len = length $src;
    my $i = 0;
    while ($i < $len) {
        my $c = substr($src, $i, 1);
        my $two = substr($src, $i, 2);
        if ($two eq '/*' || $two eq '//') {
            my $end = $two eq '/*' ? index($src, '*/', $i + 2) : index($src, "\n", $i);
            $end = $end < 0 ? $len : ($two eq '/*' ? $end + 2 : $end);
            my $text = substr($src, $i, $end - $i);
            (my $blank = $text) =~ s/[^\n]/ /g;
            $comm .= $text;
            $code .= $blank;
            $i = $end;
        } elsif ($c eq '"' || $c eq "'") {
            my $j = $i + 1;
            while ($j < $len) {
                my $d = substr($src, $j, 1);
                if ($d eq '\\') { $j += 2; next; }
                $j++;
                last if $d eq $c || $d eq "\n";
            }
            my $text = substr($src, $i, $j - $i);
            (my $blank = $text) =~ s/[^\n]/ /g;
            $code .= $blank;
            $comm .= $blank;
            $i = $j;
        } else {
            $code .= $c;
            $comm .= $c eq "\n" ? "\n" : ' ';
            $i++;
        }
    }
    return ($code, $comm);
}

sub print_lines {
    my ($f, $text, $only_nonblank) = @_;
    my $n = 0;
    for my $l (split /\n/, $text, -1) {
        $n++;
        print "$f:$n:$l\n" if !$only_nonblank || $l =~ /\S/;
    }
}

# File-scope statements of blanked code: [text with braces collapsed, line].
sub statements {
    my ($code) = @_;
    my $cont = 0;    # preprocessor lines, with their continuations, blanked
    $code = join "\n", map {
        my $pp = $cont || /^\s*#/;
        $cont = $pp && /\\\s*$/;
        $pp ? '' : $_;
    } split /\n/, $code, -1;
    my @out;
    my ($depth, $cur, $line, $start) = (0, '', 1, 0);
    my $len = length $code;
    for (my $i = 0; $i < $len; $i++) {
        my $c = substr($code, $i, 1);
        $line++ if $c eq "\n";
        if ($c eq '{') {
            $cur .= '{' if $depth == 0;
            $depth++;
            next;
        }
        if ($c eq '}') {
            $depth-- if $depth > 0;
            next unless $depth == 0;
            $cur .= '}';
            # a function body ends the statement: "...) {}"
            if ($cur =~ /\)\s*\{\}$/ && $cur !~ /=\s*\{\}$/) {
                $cur = '';
            }
            next;
        }
        next if $depth > 0;
        if ($c eq ';') {
            push @out, [$cur, $start];
            $cur = '';
            next;
        }
        $start = $line if $cur !~ /\S/ && $c =~ /\S/;
        $cur .= $c;
    }
    return @out;
}

# Splits on commas outside parentheses, brackets and braces.
sub split_top {
    my ($s) = @_;
    my @parts;
    my ($depth, $cur) = (0, '');
    for my $c (split //, $s) {
        $depth++ if $c =~ /[(\[{]/;
        $depth-- if $c =~ /[)\]}]/;
        if ($c eq ',' && $depth == 0) { push @parts, $cur; $cur = ''; next; }
        $cur .= $c;
    }
    push @parts, $cur;
    return @parts;
}

my $QUAL = qr/(?:(?:static|const|volatile|_Thread_local|__thread|_Alignas\s*\([^)]*\))\s+)*/;

sub struct_typedefs {
    my (@files) = @_;
    my %types;
    for my $f (@files) {
        my ($code) = split_source(slurp($f));
        for my $st (statements($code)) {
            my $s = $st->[0];
            next unless $s =~ /^\s*typedef\s+(?:const\s+)?(?:struct|union)\b/;
            $types{$1} = 1 if $s =~ /(\w+)\s*(?:\[[^\]]*\]\s*)*$/;
        }
    }
    return \%types;
}

sub short_structs {
    my ($types, @files) = @_;
    for my $f (@files) {
        my ($code) = split_source(slurp($f));
        for my $st (statements($code)) {
            my ($s, $line) = @$st;
            $s =~ s/^\s+//;
            next if $s =~ /^(?:typedef|extern)\b/;
            my $rest;
            if ($s =~ /^$QUAL(?:struct|union)\s*(?:\w+\s*)?(?:\{\}\s*)?(.*)$/s) {
                $rest = $1;
            } elsif ($s =~ /^$QUAL(\w+)\s+(.*)$/s && $types->{$1}) {
                $rest = $2;
            } else {
                next;
            }
            for my $decl (split_top($rest)) {
                $decl =~ s/=.*//s;
                next if $decl =~ /\(/;    # a function, or a pointer to one
                next unless $decl =~ /^[\s*]*(?:const\s+)?(\w+)\s*(?:\[[^\]]*\]\s*)*$/;
                print "$f:$line:$1\n" if length($1) <= 2;
            }
        }
    }
}

my $mode = shift @ARGV or die "usage: source-scan.pl comments|code|shortstructs ...\n";
if ($mode eq 'comments' || $mode eq 'code') {
    for my $f (@ARGV) {
        my $src = slurp($f);
        if ($f !~ /\.[ch]$/) {
            my $n = 0;
            for my $l (split /\n/, $src, -1) { $n++; print "$f:$n:$l\n" if $mode eq 'comments' && $l =~ /^\s*#/; }
            next;
        }
        my ($code, $comm) = split_source($src);
        print_lines($f, $mode eq 'code' ? $code : $comm, 1);
    }
} elsif ($mode eq 'shortstructs') {
    my $typefile = shift @ARGV;
    my @typesrc = grep { length } split /\n/, slurp($typefile);
    short_structs(struct_typedefs(@typesrc), @ARGV);
} else {
    die "unknown mode $mode\n";
}
