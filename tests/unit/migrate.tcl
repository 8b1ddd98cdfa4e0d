# migrate.tcl -- MIGRATE between two of our servers: a key moved, its TTL
# kept, COPY, REPLACE and BUSYKEY, KEYS with missing keys, NOKEY, another
# database, AUTH and AUTH2 (and their errors), I/O errors (a closed port, a
# target that never answers, an unresolvable host), the cached link (reused,
# re-made after the target closed it, closed when idle, counted in INFO's
# migrate_cached_sockets), the DEL that propagates instead of MIGRATE,
# every type's value, every argument error, COMMAND GETKEYS, and the
# credentials redacted in SLOWLOG.
#
# Design decisions:
# - Three servers: a plain target (level -2), a target with a password and
#   an ACL user (level -1), and the source (level 0), which keeps an AOF
#   so the propagated DEL can be read back (aof_commands_written).
# - Every reply and error string was checked by hand against Redis 7.0.15
#   migrating into another 7.0.15 (two servers are not available in
#   external mode, so the file is external:skip).
# - The idle-link test waits for the cron's 10 s limit: it is tagged slow.

proc target_addr {level} { list [srv $level host] [srv $level port] }

# MIGRATE from the source (level 0) to the server of `level`.
proc migrate_to {level key db args} {
    r migrate {*}[target_addr $level] $key $db 5000 {*}$args
}

# The ids of the target's connections that last ran RESTORE: the source's links.
proc link_ids {level} {
    set ids {}
    foreach line [split [r $level client list] \n] {
        if {[regexp {id=(\d+) .*cmd=restore} $line -> id]} { lappend ids $id }
    }
    return $ids
}

# A port nothing listens on (it did a moment ago).
proc closed_port {} {
    set s [socket -server {apply {{c a p} {close $c}}} -myaddr 127.0.0.1 0]
    set port [lindex [fconfigure $s -sockname] 2]
    close $s
    return $port
}

start_server {tags {migrate external:skip}} {
start_server {tags {migrate} overrides {requirepass secret}} {
r auth secret
r acl setuser mover on >moverpw ~* +@all
start_server {tags {migrate} overrides {appendonly yes appendfsync always aof-use-rdb-preamble no}} {

    test "MIGRATE moves a string and deletes it here" {
        r -2 flushall
        r set a hello
        assert_equal OK [migrate_to -2 a 0]
        assert_equal 0 [r exists a]
        assert_equal hello [r -2 get a]
    }

    test "MIGRATE keeps the remaining TTL, and no TTL stays none" {
        r set ttl v px 100000
        r set nottl v
        assert_equal OK [migrate_to -2 ttl 0]
        assert_equal OK [migrate_to -2 nottl 0]
        assert_range [r -2 pttl ttl] 90000 100000
        assert_equal -1 [r -2 pttl nottl]
    }

    test "MIGRATE of a missing key replies NOKEY, with KEYS too" {
        assert_equal NOKEY [migrate_to -2 missing 0]
        assert_equal NOKEY [migrate_to -2 "" 0 KEYS missing1 missing2]
    }

    test "MIGRATE COPY leaves the key here" {
        r set c1 v1
        assert_equal OK [migrate_to -2 c1 0 COPY]
        assert_equal v1 [r get c1]
        assert_equal v1 [r -2 get c1]
    }

    test "MIGRATE onto an existing key: BUSYKEY, the key stays; REPLACE overwrites" {
        r set c1 v2
        assert_error "ERR Target instance replied with error: BUSYKEY Target key name already exists." {
            migrate_to -2 c1 0
        }
        assert_equal v2 [r get c1]
        assert_equal v1 [r -2 get c1]
        assert_equal OK [migrate_to -2 c1 0 REPLACE]
        assert_equal 0 [r exists c1]
        assert_equal v2 [r -2 get c1]
    }

    test "MIGRATE KEYS moves the keys that exist and skips the others" {
        r mset k1 1 k2 2 k3 3
        assert_equal OK [migrate_to -2 "" 0 KEYS k1 nothere k2 k3]
        assert_equal 0 [r exists k1 k2 k3]
        assert_equal {1 2 3} [r -2 mget k1 k2 k3]
    }

    test "MIGRATE KEYS: the keys the target refused stay, the others move" {
        r -2 set busy old
        r mset busy new free1 x free2 y
        assert_error "ERR Target instance replied with error: BUSYKEY*" {
            migrate_to -2 "" 0 KEYS free1 busy free2
        }
        assert_equal {0 1 0} [list [r exists free1] [r exists busy] [r exists free2]]
        assert_equal {x old y} [r -2 mget free1 busy free2]
    }

    test "MIGRATE into another database, then back to database 0" {
        r set indb3 v
        assert_equal OK [migrate_to -2 indb3 3]
        r -2 select 3
        assert_equal v [r -2 get indb3]
        r -2 select 0
        assert_equal 0 [r -2 exists indb3]
        r set indb0 w
        assert_equal OK [migrate_to -2 indb0 0]
        assert_equal w [r -2 get indb0]
    }

    test "MIGRATE to a database the target does not have" {
        r set nodb v
        assert_error "ERR Target instance replied with error: ERR DB index is out of range" {
            migrate_to -2 nodb 99
        }
        assert_equal v [r get nodb]
    }

    test "MIGRATE of every type keeps the value (DEBUG DIGEST-VALUE)" {
        r -2 flushall
        r del l s1 s2 h z st
        r rpush l a b c 1 2 3
        r sadd s1 1 2 3
        r sadd s2 a b c
        r hset h f1 v1 f2 v2
        r zadd z 1 a 2.5 b -3 c
        r xadd st 1-1 f v
        r xadd st 2-1 g w
        r xgroup create st grp 0
        r xreadgroup group grp alice count 1 streams st >
        set keys {l s1 s2 h z st}
        set digests [r debug digest-value {*}$keys]
        assert_equal OK [migrate_to -2 "" 0 KEYS {*}$keys]
        assert_equal 0 [r exists {*}$keys]
        assert_equal $digests [r -2 debug digest-value {*}$keys]
        assert_equal 1 [lindex [lindex [r -2 xpending st grp] 0] 0]
    }

    test "MIGRATE without AUTH to a target that wants a password" {
        r set authkey v
        assert_error "ERR Target instance replied with error: NOAUTH Authentication required." {
            migrate_to -1 authkey 0
        }
        assert_equal v [r get authkey]
    }

    test "MIGRATE AUTH with a wrong password, then the right one" {
        assert_error "ERR Target instance replied with error: WRONGPASS invalid username-password pair or user is disabled." {
            migrate_to -1 authkey 0 AUTH wrong
        }
        assert_equal v [r get authkey]
        assert_equal OK [migrate_to -1 authkey 0 AUTH secret]
        assert_equal 0 [r exists authkey]
        assert_equal v [r -1 get authkey]
    }

    test "MIGRATE AUTH2 with an ACL user" {
        # The link is still authenticated from the test before, so the target
        # restores the key; the AUTH error still keeps it here (as in Redis).
        r set auth2key v
        assert_error "ERR Target instance replied with error: WRONGPASS*" {
            migrate_to -1 auth2key 0 AUTH2 mover wrong
        }
        assert_equal v [r get auth2key]
        r set auth2key2 w
        assert_equal OK [migrate_to -1 auth2key2 0 AUTH2 mover moverpw]
        assert_equal w [r -1 get auth2key2]
        assert_equal 0 [r exists auth2key2]
    }

    test "MIGRATE to a closed port: the write fails (as in Redis 7.0)" {
        r set iokey v
        assert_error "IOERR error or timeout writing to target instance" {
            r migrate 127.0.0.1 [closed_port] iokey 0 1000
        }
        assert_equal v [r get iokey]
    }

    test "MIGRATE to a host that does not resolve" {
        assert_error "IOERR error or timeout connecting to the client" {
            r migrate "" [srv -2 port] iokey 0 1000
        }
    }

    test "MIGRATE to a target that never answers times out reading" {
        set listener [socket -server {apply {{c a p} {}}} -myaddr 127.0.0.1 0]
        set port [lindex [fconfigure $listener -sockname] 2]
        set start [clock milliseconds]
        assert_error "IOERR error or timeout reading to target instance" {
            r migrate 127.0.0.1 $port iokey 0 300
        }
        assert_range [expr {[clock milliseconds] - $start}] 250 5000
        close $listener
        assert_equal v [r get iokey]
        assert_equal PONG [r ping]
    }

    test "MIGRATE reuses its cached link" {
        r mset reuse1 a reuse2 b
        assert_equal OK [migrate_to -2 reuse1 0]
        set ids [link_ids -2]
        assert_equal 1 [llength $ids]
        assert_equal OK [migrate_to -2 reuse2 0]
        assert_equal $ids [link_ids -2]
        # this one and the one to the AUTH target; those that failed are gone
        assert_equal 2 [s migrate_cached_sockets]
    }

    test "MIGRATE retries on a fresh link when the target closed the cached one" {
        set id [lindex [link_ids -2] 0]
        r -2 client kill id $id
        r set retry v
        assert_equal OK [migrate_to -2 retry 0]
        assert_equal v [r -2 get retry]
        set ids [link_ids -2]
        assert_equal 1 [llength $ids]
        assert_not_equal $id [lindex $ids 0]
    }

    test "MIGRATE's cached link is closed after 10 s idle" {
        assert_equal 1 [llength [link_ids -2]]
        wait_for_condition 150 100 {[llength [link_ids -2]] == 0} else {
            fail "the link is still open: [r -2 client list]"
        }
        assert_equal 0 [s migrate_cached_sockets]
    } {slow}

    test "MIGRATE propagates DEL of the keys that moved, and nothing for COPY or NOKEY" {
        r -2 flushall
        r -2 set p2 old
        r mset p1 1 p2 2 p3 3 p4 4
        set written [aof_commands_written {
            catch {migrate_to -2 "" 0 KEYS p1 p2 missing p3}
        }]
        assert_equal {{DEL p1 p3}} $written
        assert_equal {} [aof_commands_written { migrate_to -2 p4 0 COPY }]
        assert_equal {} [aof_commands_written { migrate_to -2 missing 0 }]
        assert_equal {{DEL p4}} [aof_commands_written { migrate_to -2 p4 0 REPLACE }]
    }

    test "MIGRATE argument errors" {
        r set a v
        set host [srv -2 host]
        set port [srv -2 port]
        set keyserr "ERR When using MIGRATE KEYS option, the key argument must be set to the empty string"
        assert_error "ERR wrong number of arguments for 'migrate' command" {r migrate $host $port a 0}
        assert_error "ERR syntax error" {r migrate $host $port a 0 1000 foo}
        assert_error "ERR syntax error" {r migrate $host $port a 0 1000 AUTH}
        assert_error "ERR syntax error" {r migrate $host $port a 0 1000 AUTH2 user}
        assert_error "ERR syntax error" {r migrate $host $port a 0 1000 COPY REPLACE AUTH2}
        assert_error $keyserr {r migrate $host $port a 0 1000 KEYS a}
        assert_error $keyserr {r migrate $host $port a 0 1000 COPY keys}
        assert_error "ERR value is not an integer or out of range" {r migrate $host $port a 0 abc}
        assert_error "ERR value is not an integer or out of range" {r migrate $host $port a x 1000}
        assert_error "ERR value is not an integer or out of range" {r migrate $host $port a 0 10000000000000000000}
        # the KEYS check comes before the numbers, the options before both
        assert_error $keyserr {r migrate $host $port a x y KEYS a}
        assert_error "ERR syntax error" {r migrate $host $port a x y foo}
        assert_equal v [r get a]
    }

    test "MIGRATE with a timeout of 0 or less uses 1000 ms" {
        r set t0 v
        assert_equal OK [r migrate {*}[target_addr -2] t0 0 0 COPY]
        assert_equal OK [r migrate {*}[target_addr -2] t0 0 -5 COPY REPLACE]
    }

    test "MIGRATE options repeat; a later AUTH keeps an earlier AUTH2's username" {
        r set rep v
        assert_equal OK [migrate_to -2 rep 0 COPY COPY REPLACE REPLACE]
        assert_error "ERR Target instance replied with error: WRONGPASS*" {
            migrate_to -1 rep 0 AUTH2 mover moverpw AUTH secret
        }
    }

    test "COMMAND GETKEYS MIGRATE" {
        assert_equal {k} [r command getkeys migrate h 1 k 0 5]
        assert_equal {a b} [r command getkeys migrate h 1 "" 0 5 KEYS a b]
        assert_equal {a} [r command getkeys migrate h 1 "" 0 5 AUTH keys KEYS a]
        assert_equal {a} [r command getkeys migrate h 1 "" 0 5 AUTH2 u keys KEYS a]
        assert_equal [list ""] [r command getkeys migrate h 1 "" 0 5 keys]
        assert_error "*Invalid arguments*" {r command getkeys migrate h 1 k 0 5 KEYS a b}
        assert_equal {{k {RW access delete}}} [r command getkeysandflags migrate h 1 k 0 5]
    }

    test "MIGRATE's AUTH and AUTH2 credentials are redacted in SLOWLOG" {
        r config set slowlog-log-slower-than 0
        r slowlog reset
        catch {r migrate 127.0.0.1 [closed_port] "" 0 100 COPY AUTH2 user pass AUTH pw KEYS a}
        r config set slowlog-log-slower-than 10000
        set args {}
        foreach entry [r slowlog get 5] {
            if {[lindex $entry 3 0] eq "migrate"} { set args [lindex $entry 3] }
        }
        assert_equal {COPY AUTH2 (redacted) (redacted) AUTH (redacted) KEYS a} [lrange $args 6 end]
    }
}
}
}
