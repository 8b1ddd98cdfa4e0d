# check-rdb.tcl -- redis-check-rdb (the server binary under that name, see
# src/rdb_check.c) on good and bad files, and the usage texts of both
# programs.
#
# Good files: a dump our server writes with every type and encoding and
# keys with an expire, the dump Redis 7.0.15 wrote (tests/assets), and a
# file built byte by byte below with a listpack value and an already expired
# key. Where Debian's redis-check-rdb is installed it checks the same good
# files and its output must be ours, line for line (offsets, AUX fields,
# databases, the "[info]" counts); on the pre-7.0 fixtures (tests/assets/
# legacy-*.rdb, one good, the others corrupt) everything but the wording of
# the reason must be the same. Bad files: empty, truncated, a flipped
# byte (checksum), a listpack that only the loader's deep validation
# catches, not an RDB at all, missing. Each must exit 1 with the error block
# naming the reason the loader gives, and the key being read when there is
# one.
#
# Design decision: the files built by hand carry a zero checksum ("saved
# with checksum disabled"), so a test needs no CRC-64 of its own.

set fixture [file normalize tests/assets/redis-7.0.15-all-types.rdb]


# redis-check-rdb of the same build, next to the server (a link to it).
proc check_rdb_tool {} {
    set tool [file join [file dirname $::harness::opt(server)] redis-check-rdb]
    if {![file exists $tool]} { skip "redis-check-rdb not built next to the server" }
    return $tool
}

# Runs a redis-check-rdb (ours unless TOOL is given): {exit-status stdout stderr}.
proc run_check_rdb {args} {
    return [run_checker $::harness::opt(wrapper) [check_rdb_tool] {*}$args]
}

# WRAPPER: the emulator our build runs under (a port's QEMU), or "" for a
# native program such as Debian's tool.
proc run_checker {wrapper tool args} {
    set dir [::harness::fresh_run_dir check-rdb]
    set out [file join $dir stdout]
    set err [file join $dir stderr]
    set status 0
    if {[catch {exec {*}$wrapper $tool {*}$args > $out 2> $err} result opts]} {
        set code [dict get $opts -errorcode]
        if {[lindex $code 0] ne "CHILDSTATUS"} { error "running $tool: $result" }
        set status [lindex $code 2]
    }
    return [list $status [::harness::read_file $out] [::harness::read_file $err]]
}

proc reference_checker {} {
    if {[file executable /usr/bin/redis-check-rdb]} { return /usr/bin/redis-check-rdb }
    return ""
}

# Ours and Debian's tool must print the same on a good file.
proc assert_same_as_reference {path} {
    set ref [reference_checker]
    if {$ref eq ""} { return }
    lassign [run_check_rdb $path] status ours
    lassign [run_checker {} $ref $path] ref_status theirs
    assert_equal $ref_status $status
    assert_equal $theirs $ours
}


proc scratch_file {name data} {
    set path [file join [::harness::fresh_run_dir check-rdb-file] $name]
    ::harness::write_file $path $data
    return $path
}

# ---- files built byte by byte (RDB version 10, checksum 0) -------------------------------------

proc rdb_str {s} { binary format ca* [string length $s] $s }

# A listpack of short strings: each entry is 0x80|len, the bytes, and its
# backlen (len + 1); `count` is the header's entry count.
proc listpack {entries {count ""}} {
    if {$count eq ""} { set count [llength $entries] }
    set body ""
    foreach e $entries {
        set n [string length $e]
        append body [binary format ca*c [expr {0x80 | $n}] $e [expr {$n + 1}]]
    }
    set total [expr {6 + [string length $body] + 1}]
    return [binary format isa*c $total $count $body 0xff]
}

# DB 0: "gone" (a string that expired in 1970), "hlp" (a hash listpack
# {field value}); DB 3: "plain".
proc handmade_rdb {listpack} {
    set data "REDIS0010"
    append data \xfa [rdb_str maker] [rdb_str check-rdb.tcl]
    append data \xfe\x00
    append data \xfc [binary format w 1000] \x00 [rdb_str gone] [rdb_str x]
    append data \x10 [rdb_str hlp] [rdb_str $listpack]
    append data \xfe\x03 \x00 [rdb_str plain] [rdb_str value]
    append data \xff [string repeat \x00 8]
    return $data
}

# ---- the checks ------------------------------------------------------------------------------

test "redis-check-rdb passes Redis 7.0.15's dump, printing what Redis's tool prints" {
    lassign [run_check_rdb $fixture] status out
    assert_equal 0 $status $out
    set lines [split [string trimright $out \n] \n]
    assert_equal "\[offset 0\] Checking RDB file $fixture" [lindex $lines 0]
    assert_equal {[offset 27] AUX FIELD redis-ver = '7.0.15'} [lindex $lines 1]
    assert_match "*\\\[offset 82\\\] Selecting DB ID 0*\\\[offset 9033\\\] Selecting DB ID 5*" $out
    assert_equal [list {[offset 9054] Checksum OK} {[offset 9054] \o/ RDB looks OK! \o/} \
                      {[info] 17 keys read} {[info] 1 expires} {[info] 0 already expired}] [lrange $lines end-4 end]
    assert_same_as_reference $fixture
}

start_server {tags {rdb check-rdb}} {
    test "redis-check-rdb passes our dump of every type and encoding, keys with an expire counted" {
        r flushall
        r set str hello
        r set num 12345
        r set long [string repeat "compressible " 50]
        r set ttl1 v px 100000000
        r set ttl2 v ex 50000
        r rpush list a b 3
        r rpush biglist {*}[lrepeat 600 elem]
        r rpush hugeelem [string repeat x 20000]
        r hset hash a 1 b 2
        r hset bighash {*}[concat {*}[lmap i [lsearch -all [lrepeat 300 x] x] {list f$i v$i}]]
        r sadd intset 1 2 -3
        r sadd set a b c
        r sadd bigset {*}[lsearch -all [lrepeat 700 x] x]
        r zadd zset 1 a 2.5 b -inf c
        r zadd bigzset {*}[concat {*}[lmap i [lsearch -all [lrepeat 200 x] x] {list $i m$i}]]
        r select 9
        r set "bin\x00key" "\x01\x02"
        r select 0
        r save
        set dump [file join [srv dir] dump.rdb]
        lassign [run_check_rdb $dump] status out
        assert_equal 0 $status $out
        assert_match "*Selecting DB ID 0*Selecting DB ID 9*Checksum OK*RDB looks OK!*" $out
        assert_match "*\\\[info\\\] 16 keys read\n\\\[info\\\] 2 expires\n\\\[info\\\] 0 already expired\n" $out
        assert_same_as_reference $dump
    }

    test "redis-check-rdb: a truncated dump is an error naming the key being read" {
        set path [scratch_file truncated.rdb [string range [::harness::read_file $::fixture] 0 99]]
        lassign [run_check_rdb $path] status out
        assert_equal 1 $status $out
        assert_match "*--- RDB ERROR DETECTED ---\n\\\[offset *\\\] Unexpected EOF reading RDB file\n*" $out
        assert_match "*\\\[additional info\\\] Reading key 'biglist'\n\\\[additional info\\\] Reading type 18 (quicklist-v2)\n*" $out
        assert_match "*\\\[info\\\] 1 keys read\n*" $out
    }
}

test "redis-check-rdb: a flipped byte fails the checksum" {
    set data [::harness::read_file $fixture]
    set at [string first indb5 $data]
    assert {$at > 0}
    set path [scratch_file flipped.rdb [string replace $data $at $at J]]
    lassign [run_check_rdb $path] status out
    assert_equal 1 $status $out
    assert_match "*--- RDB ERROR DETECTED ---\n*" $out
    assert_match "*\\\] RDB CRC error\n*" $out ;# Redis 7.0's words
    if {[ours]} { assert_match "*\\\[offset 9054\\\] RDB CRC error\n*" $out }
    assert_match "*While doing: check-sum\n*" $out
    assert_no_match "*RDB looks OK*" $out
}

test "redis-check-rdb: a hand-built dump with a listpack and an expired key passes, counted like Redis" {
    set path [scratch_file handmade.rdb [handmade_rdb [listpack {field value}]]]
    lassign [run_check_rdb $path] status out
    assert_equal 0 $status $out
    assert_match "*AUX FIELD maker = 'check-rdb.tcl'*Selecting DB ID 0*Selecting DB ID 3*" $out
    assert_match "*checksum disabled*RDB looks OK!*" $out
    assert_match "*\\\[info\\\] 3 keys read\n\\\[info\\\] 1 expires\n\\\[info\\\] 1 already expired\n" $out
    assert_same_as_reference $path
}

test "redis-check-rdb: a corrupt listpack inside a value is caught by the loader's deep validation" {
    # The header counts 3 entries where there are 2: only a walk of the
    # listpack's entries sees it.
    set path [scratch_file corrupt-listpack.rdb [handmade_rdb [listpack {field value} 3]]]
    lassign [run_check_rdb $path] status out
    assert_equal 1 $status $out
    assert_match "*--- RDB ERROR DETECTED ---\n*" $out
    if {[ours]} { assert_match "*\\\] Hash listpack integrity check failed\n*" $out }
    assert_match "*\\\[additional info\\\] Reading key 'hlp'\n*" $out
    assert_match "*Reading type 16 (hash-listpack)\n*" $out
    # The server refuses it for the same reason.
    if {[ours]} {
        set dir [::harness::fresh_run_dir check-rdb-load]
        file copy $path [file join $dir dump.rdb]
        lassign [run_failing_server --port [::harness::find_free_port] --bind 127.0.0.1 --dir $dir --logfile ""] \
            status err log
        assert_equal 1 $status
        assert_match "*Hash listpack integrity check failed*" $log
    }
}

# An error report with its reason left out (the loader's words are not
# Redis's), and without the log line Redis's tool adds.
proc without_reason {out} {
    set kept {}
    set after_banner 0
    foreach line [split $out \n] {
        if {[regexp {^\d+:C } $line]} { continue }
        if {$after_banner} { regsub {\] .*} $line {] (reason)} line }
        set after_banner [expr {$line eq "--- RDB ERROR DETECTED ---"}]
        lappend kept $line
    }
    return [join $kept \n]
}

test "redis-check-rdb on the pre-7.0 fixtures: verdicts, offsets, keys and counts as Redis's tool gives them" {
    set ref [reference_checker]
    foreach path [lsort [glob tests/assets/legacy-*.rdb]] {
        lassign [run_check_rdb $path] status out
        set good [string match *legacy-v9-all-types.rdb $path]
        assert_equal [expr {$good ? 0 : 1}] $status "$path: $out"
        if {!$good} { assert_match "*--- RDB ERROR DETECTED ---*Reading key '*" $out }
        if {$ref eq ""} { continue }
        lassign [run_checker {} $ref $path] ref_status theirs
        assert_equal $ref_status $status $path
        assert_equal [without_reason $theirs] [without_reason $out] $path
    }
}

test "redis-check-rdb: an empty file, a file that is not an RDB, an unknown version" {
    lassign [run_check_rdb [scratch_file empty.rdb ""]] status out
    assert_equal 1 $status
    assert_match "*--- RDB ERROR DETECTED ---\n\\\[offset 0\\\] Unexpected EOF reading RDB file\n*While doing: start\n*" $out
    lassign [run_check_rdb [scratch_file text.rdb "hello world, this is not an RDB file\n"]] status out
    assert_equal 1 $status
    assert_match "*\\\[offset 9\\\] Wrong signature trying to load DB from file\n*" $out
    assert_match "*\\\[info\\\] 0 keys read\n*" $out
    lassign [run_check_rdb [scratch_file v99.rdb "REDIS0099\xff"]] status out
    assert_equal 1 $status
    assert_match "*\\\[offset 9\\\] Can't handle RDB format version 99\n*" $out
}

test "the server under a name ending in check-rdb is the checker (the Debian package's redis-portable-check-rdb)" {
    if {![ours]} { skip "our build's naming only" }
    set link [file join [::harness::fresh_run_dir check-rdb-name] redis-portable-check-rdb]
    file link -symbolic $link [file normalize $::harness::opt(server)]
    lassign [run_checker $::harness::opt(wrapper) $link $fixture] status out
    assert_equal 0 $status $out
    assert_match "*RDB looks OK!*" $out
}

test "redis-check-rdb: a missing file exits 1" {
    set path [file join [::harness::fresh_run_dir check-rdb-missing] nosuch.rdb]
    lassign [run_check_rdb $path] status out
    assert_equal 1 $status
    assert_match "\\\[offset 0\\\] Checking RDB file $path\n*" $out
    if {[ours]} { assert_match "*Can't open the RDB file: No such file or directory\n" $out }
}

# ---- usage --------------------------------------------------------------------------------------

test "redis-check-rdb without a file prints its usage on stderr and exits 1; -v its version" {
    set tool [check_rdb_tool]
    lassign [run_check_rdb] status out err
    assert_equal 1 $status
    assert_equal "" $out
    assert_equal "Usage: $tool <rdb-file-name>\n" $err
    lassign [run_check_rdb a.rdb b.rdb] status out err
    assert_equal 1 $status
    assert_match "Usage: *" $err
    lassign [run_check_rdb -v] status out
    assert_equal 0 $status
    assert_match "redis-check-rdb 7.*\n" $out
}

test "redis-server --help and -h print the usage: Redis 7.0's lines, and only options that exist" {
    if {![ours]} { skip "the usage text is this server's" }
    set help [exec {*}[server_command --help]]
    assert_equal $help [exec {*}[server_command -h]]
    set lines [split $help \n]
    assert_equal {Usage: ./redis-server [/path/to/redis.conf] [options] [-]} [lindex $lines 0]
    foreach expected {
        {       ./redis-server - (read config from stdin)}
        {       ./redis-server -v or --version}
        {       ./redis-server -h or --help}
        {       ./redis-server --test-memory <megabytes>}
        {       ./redis-server --check-system (check allocator and platform, then exit)}
        {Examples:}
        {       ./redis-server (run the server with default conf)}
        {       echo 'maxmemory 128mb' | ./redis-server -}
        {       ./redis-server --port 7777}
    } {
        assert {[lsearch -exact $lines $expected] >= 0} "missing line '$expected'"
    }
    # Nothing this server lacks.
    assert_no_match "*--sentinel*" $help
    assert_no_match "*replicaof*" $help
    # Every program option shown works, and every directive in an example exists.
    assert_equal 0 [catch {exec {*}[server_command --check-system]}]
    set directives [split [exec {*}[server_command --list-config-directives]] \n]
    foreach word [regexp -all -inline -- {--[a-z-]+} $help] {
        set name [string range $word 2 end]
        if {$name in {version help test-memory check-system list-config-directives directive}} { continue }
        assert {[lsearch -exact $directives $name] >= 0} "the usage shows $word, not a directive"
    }
    assert_match "*redis-check-rdb <rdb-file-name>*" $help
}
