# moduleapi-misc.tcl -- the small functions of Redis 7.0's module API
# (src/module_misc.c): GetAbsExpire/SetAbsExpire, GetLRU/SetLRU/GetLFU/SetLFU,
# GetKeyNameFromModuleKey, GetDbIdFromModuleKey, SignalModifiedKey, random
# bytes and hex characters, the Malloc*Size functions (MallocSizeDict is
# module_dict.c's), GetUsedMemoryRatio, PublishMessage(Shard),
# Get/SetClientNameById, GetClientInfoById, LatencyAddSample,
# AvoidReplicaTraffic, GetTypeMethodVersion, ResetDataset and LogIOError
# (module_type.c's), through the
# test module tests/modules/mmisc.c. Every expectation holds for Debian's
# Redis 7.0.15 loading the same .so: run the file with
# --server /usr/bin/redis-server to check.

source [file join $::harness_dir modules.tcl] ;# module_skip_reason, need_modules

# A field of CLIENT INFO's line.
proc mmisc_client_field {field} {
    foreach kv [split [string trim [r client info]] " "] {
        lassign [split $kv =] k v
        if {$k eq $field} { return $v }
    }
    return ""
}

start_server {tags {module} overrides {enable-module-command yes}} {
    test "GetAbsExpire, SetAbsExpire: the absolute expire in ms; refusals" {
        need_modules
        r module load [file join $::module_dir mmisc.so]
        r del k missing
        r set k v
        assert_equal -1 [r mmisc.getabsexp k]
        assert_equal -1 [r mmisc.getabsexp missing]
        set when [expr {[clock milliseconds] + 100000}]
        assert_equal OK [r mmisc.setabsexp k $when]
        assert_equal $when [r mmisc.getabsexp k]
        assert_equal $when [r pexpiretime k]
        assert_error {ERR failed} {r mmisc.setabsexp missing $when}
        assert_error {ERR failed} {r mmisc.setabsexp k $when RO}
        assert_error {ERR failed} {r mmisc.setabsexp k -5}
        assert_equal $when [r mmisc.getabsexp k]
        assert_equal OK [r mmisc.setabsexp k -1]
        assert_equal -1 [r ttl k]
        assert_equal 1 [r exists k]
    }

    test "GetLRU, SetLRU under an LRU policy; SetLFU refused there" {
        need_modules
        r config set maxmemory-policy allkeys-lru
        r set k v
        assert_equal OK [r mmisc.setlru k 100000]
        set idle [r mmisc.getlru k]
        assert {$idle >= 99000 && $idle <= 102000}
        set secs [r object idletime k]
        assert {$secs >= 99 && $secs <= 102}
        assert_equal -1 [r mmisc.getlfu k]
        assert_error {ERR failed} {r mmisc.setlfu k 10}
        assert_error {ERR failed} {r mmisc.setlru k -1}
        assert_error {ERR failed -1} {r mmisc.getlru missing}
        assert_error {ERR failed} {r mmisc.setlru missing 1000}
    }

    test "GetLFU, SetLFU under an LFU policy; SetLRU refused there" {
        need_modules
        r config set maxmemory-policy allkeys-lfu
        r set k v
        assert_equal OK [r mmisc.setlfu k 100]
        assert_equal 100 [r object freq k]
        set f [r mmisc.getlfu k]
        assert {$f >= 100 && $f <= 101}
        assert_equal -1 [r mmisc.getlru k]
        assert_error {ERR failed} {r mmisc.setlru k 1000}
        assert_error {ERR failed} {r mmisc.setlfu k -1}
        assert_error {ERR failed -1} {r mmisc.getlfu missing}
        assert_error {ERR failed} {r mmisc.setlfu missing 5}
        r config set maxmemory-policy noeviction
        # no policy flag: SetLRU works, SetLFU does not
        assert_equal OK [r mmisc.setlru k 5000]
        assert_error {ERR failed} {r mmisc.setlfu k 5}
    }

    test "GetKeyNameFromModuleKey, GetDbIdFromModuleKey" {
        need_modules
        set db [mmisc_client_field db]
        r set somekey 1
        assert_equal [list somekey $db] [r mmisc.keyinfo somekey]
        r select 3
        r set other 1
        assert_equal {other 3} [r mmisc.keyinfo other]
        r del other
        r select $db
        # a missing key opened for reading is a NULL handle
        r del missing
        assert_equal {{} -1} [r mmisc.keyinfo missing]
    }

    test "SignalModifiedKey: a WATCH on the key fails the transaction" {
        need_modules
        r set k v
        r watch k
        assert_equal OK [r mmisc.signal k]
        r multi
        r ping
        assert_equal {} [r exec]
        r watch k
        r multi
        r ping
        assert_equal {PONG} [r exec]
    }

    test "a key opened for writing is signalled modified when closed (WATCH), unless the module opts out" {
        need_modules
        r set k v
        # written through the key API, closed by CloseKey
        r watch k
        assert_equal OK [r mmisc.strset k v2]
        r multi
        r ping
        assert_equal {} [r exec]
        assert_equal v2 [r get k]
        # opened for writing, nothing written, closed by auto memory
        r watch k
        assert_equal OK [r mmisc.openw k]
        r multi
        r ping
        assert_equal {} [r exec]
        # a missing key opened for writing and left empty: signalled too
        r watch nokey
        assert_equal OK [r mmisc.openw nokey]
        r multi
        r ping
        assert_equal {} [r exec]
        assert_equal 0 [r exists nokey]
        # opened for reading only: not signalled
        r watch k
        assert_equal k [lindex [r mmisc.keyinfo k] 0]
        r multi
        r ping
        assert_equal {PONG} [r exec]
        # REDISMODULE_OPTION_NO_IMPLICIT_SIGNAL_MODIFIED (1 << 1): the module signals itself
        assert_equal OK [r mmisc.options 2]
        r watch k
        assert_equal OK [r mmisc.strset k v3]
        r multi
        r ping
        assert_equal {PONG} [r exec]
        assert_equal v3 [r get k]
        # ... with SignalModifiedKey, which still counts
        r watch k
        assert_equal OK [r mmisc.signal k]
        r multi
        r ping
        assert_equal {} [r exec]
        assert_equal OK [r mmisc.options 0]
    }

    test "GetRandomBytes, GetRandomHexChars" {
        need_modules
        set a [r mmisc.randhex 40]
        assert_match {[0-9a-f]*} $a
        assert_equal 40 [string length $a]
        assert {[regexp {^[0-9a-f]+$} $a]}
        assert {$a ne [r mmisc.randhex 40]}
        assert_equal {} [r mmisc.randhex 0]
        assert {[r mmisc.randbytes 4096] > 200}
        assert_equal 0 [r mmisc.randbytes 0]
    }

    test "MallocSize, MallocUsableSize, MallocSizeString, MallocSizeDict" {
        need_modules
        assert_equal 1 [r mmisc.malloc 100]
        assert_equal 1 [r mmisc.malloc 5000]
        assert_equal 1 [r mmisc.strsize hello]
        assert_equal 1 [r mmisc.strsize [string repeat x 200]]
        set empty [r mmisc.dictsize 0]
        assert {$empty > 0}
        assert {[r mmisc.dictsize 100] > $empty}
        assert {[r mmisc.dictsize 1000] > [r mmisc.dictsize 100]}
    }

    test "GetUsedMemoryRatio: 0 without maxmemory, used/maxmemory with it" {
        need_modules
        r config set maxmemory 0
        assert_equal 0 [r mmisc.memratio]
        r config set maxmemory 1gb
        set ratio [r mmisc.memratio]
        r config set maxmemory 0
        assert {$ratio > 0 && $ratio < 0.5}
    }

    test "PublishMessage, PublishMessageShard: the subscribers hear it; the count" {
        need_modules
        set rd [redis_deferring_client]
        $rd subscribe mch
        $rd read
        assert_equal 1 [r mmisc.publish mch hello]
        assert_equal {message mch hello} [$rd read]
        assert_equal 0 [r mmisc.publish nobody hello]
        $rd ssubscribe sch
        $rd read
        assert_equal 1 [r mmisc.spublish sch 12345]
        assert_equal {smessage sch 12345} [$rd read]
        assert_equal 0 [r mmisc.spublish mch x]
        $rd close
    }

    test "GetClientNameById (NULL), SetClientNameById (ENOENT, EINVAL, clearing)" {
        need_modules
        set id [r client id]
        r client setname ""
        assert_equal {} [r mmisc.getname $id]
        assert_equal {} [r mmisc.getname 999999]
        assert_equal OK [r mmisc.setname $id myname]
        assert_equal myname [r client getname]
        assert_equal myname [r mmisc.getname $id]
        assert_error {ERR errno EINVAL} {r mmisc.setname $id "two words"}
        assert_equal myname [r client getname]
        assert_error {ERR errno ENOENT} {r mmisc.setname 999999 x}
        set other [redis_client]
        assert_equal OK [r mmisc.setname [$other client id] theother]
        assert_equal theother [$other client getname]
        assert_equal theother [r mmisc.getname [$other client id]]
        $other close
        assert_equal OK [r mmisc.setname $id ""]
        assert_equal {} [r client getname]
        r client setname again
        assert_equal OK [r mmisc.setname $id]
        assert_equal {} [r client getname]
    }

    test "GetClientInfoById: version 1's fields; no client, another version" {
        need_modules
        set id [r client id]
        lassign [split [mmisc_client_field addr] :] host port
        set db [mmisc_client_field db]
        assert_equal [list 0 $id $host $port $db] [r mmisc.clientinfo $id]
        r client tracking on
        assert_equal 8 [lindex [r mmisc.clientinfo $id] 0]
        r client tracking off
        r multi
        r mmisc.clientinfo $id
        set flags [lindex [lindex [r exec] 0] 0]
        assert_equal 32 $flags
        assert_error {ERR failed} {r mmisc.clientinfo 999999}
        assert_error {ERR failed} {r mmisc.clientinfo $id 2}
        assert_equal OK [r mmisc.clientinfo $id NULL]
        assert_error {ERR failed} {r mmisc.clientinfo 999999 NULL}
    }

    test "LatencyAddSample: kept from the threshold up, and always with the monitor off" {
        need_modules
        r config set latency-monitor-threshold 100
        r latency reset
        assert_equal OK [r mmisc.latency mod-event 50]
        assert_equal {} [r latency latest]
        assert_equal OK [r mmisc.latency mod-event 150]
        set e [lindex [r latency latest] 0]
        assert_equal {mod-event 150} [list [lindex $e 0] [lindex $e 2]]
        r config set latency-monitor-threshold 0
        assert_equal OK [r mmisc.latency off-event 7]
        assert_equal 7 [lindex [lindex [r latency history off-event] 0] 1]
        r latency reset
    }

    test "AvoidReplicaTraffic: true while clients are paused" {
        need_modules
        assert_equal 0 [r mmisc.avoid]
        r client pause 100000 write
        assert_equal 1 [r mmisc.avoid]
        r client unpause
        assert_equal 0 [r mmisc.avoid]
    }

    test "ResetDataset: every database emptied, functions kept, WATCH fails" {
        need_modules
        set db [mmisc_client_field db]
        r function load replace {#!lua name=mmisclib
            redis.register_function('mmiscf', function() return 1 end)}
        r set a 1
        r select 3
        r set b 2
        r select $db
        r watch a
        assert_equal OK [r mmisc.reset 0 0]
        r multi
        r ping
        assert_equal {} [r exec]
        assert_equal 0 [r dbsize]
        r select 3
        assert_equal 0 [r dbsize]
        r select $db
        assert_equal 1 [r fcall mmiscf 0]
        r set c 3
        assert_equal OK [r mmisc.reset 1 1]
        assert_equal 0 [r dbsize]
        r function delete mmisclib
    }

    test "LogIOError: the type's rdb_save logs under the module's name" {
        need_modules
        r del tk
        assert_equal OK [r mmisc.settype tk 4242]
        r save
        r del tk
        set log [::harness::read_file [srv stdout]]
        assert_match {*<mmisc> mmisc saving 4242 (LogIOError)*} $log
    }

    test "GetTypeMethodVersion: 7.0's 4" {
        need_modules
        assert_equal 4 [r mmisc.typever]
    }

    test "GetContextFlags: MAXMEMORY, EVICT, OOM and OOM_WARNING, MASTER, not CLUSTER, MULTI_DIRTY" {
        need_modules
        set MASTER 4; set CLUSTER 32; set MAXMEMORY 256; set EVICT 512; set OOM 1024; set OOM_WARNING 2048
        set f [r mmisc.ctxflags]
        assert_equal $MASTER [expr {$f & ($MASTER | $CLUSTER | $MAXMEMORY | $EVICT | $OOM | $OOM_WARNING)}]
        r config set maxmemory 100mb
        assert_equal $MAXMEMORY [expr {[r mmisc.ctxflags] & ($MAXMEMORY | $EVICT | $OOM)}]
        r config set maxmemory-policy allkeys-lru
        assert_equal [expr {$MAXMEMORY | $EVICT}] [expr {[r mmisc.ctxflags] & ($MAXMEMORY | $EVICT | $OOM)}]
        r config set maxmemory-policy noeviction maxmemory 1
        assert_equal [expr {$OOM | $OOM_WARNING}] [expr {[r mmisc.ctxflags] & ($OOM | $OOM_WARNING)}]
        r config set maxmemory 0
        # a transaction whose WATCHed key changed: MULTI_DIRTY (1 << 19)
        set rd [redis_client]
        $rd watch wk
        r set wk changed
        $rd multi
        $rd mmisc.ctxflags
        set f [lindex [$rd exec] 0]
        assert_equal {} $f ;# the EXEC is aborted: the flag is seen while queueing only
        $rd close
    }

    test "RetainString of an auto-memory string keeps it unshared: StringAppendBuffer works in place" {
        need_modules
        assert_equal foobar [r mmisc.retainappend]
    }

    test "ReplyWithCallReply refuses a RESP3 call's reply to a RESP2 client" {
        need_modules
        r hset h3 f v
        assert_equal refused [r mmisc.resp3call h3]
        r hello 3
        assert_equal {f v} [r mmisc.resp3call h3]
        r hello 2
        r del h3
    }
}
