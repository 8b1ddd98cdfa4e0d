# scripting-apps.tcl -- the scripts real applications send, run unchanged:
# a Redlock-style lock (acquire with SET NX PX, release and extend only by
# the owner's token), a BullMQ-style job queue (add, move to active, complete,
# retry with a delay, promote due delayed jobs, all atomic scripts over a
# wait list, an active list, a delayed and a completed/failed sorted set and
# one hash per job), a sliding-window rate limiter on a sorted set, and the
# client habit of EVALSHA first, EVAL on NOSCRIPT.
#
# Design decisions:
# - The scripts are written here from the patterns those projects document
#   (the lock release of Redis's distributed-lock page, a queue's states as
#   job-queue libraries describe them), not copied from any project.
# - Time is passed in by the caller (ARGV), as those libraries do, so the
#   tests are exact and don't depend on the clock.
# - Every expectation was checked against Debian's Redis 7.0.15
#   (./runtest --server /usr/bin/redis-server --single tests/unit/scripting-apps.tcl).

set lock_release {
    if redis.call("get", KEYS[1]) == ARGV[1] then
        return redis.call("del", KEYS[1])
    else
        return 0
    end
}

set lock_extend {
    if redis.call("get", KEYS[1]) == ARGV[1] then
        return redis.call("pexpire", KEYS[1], ARGV[2])
    else
        return 0
    end
}

# KEYS: id counter, wait list, job prefix. ARGV: payload (JSON), timestamp.
set queue_add {
    local id = redis.call("incr", KEYS[1])
    local job = KEYS[3] .. id
    local data = cjson.decode(ARGV[1])
    redis.call("hset", job, "name", data.name, "data", ARGV[1], "timestamp", ARGV[2], "attemptsMade", 0)
    redis.call("lpush", KEYS[2], id)
    return id
}

# KEYS: wait, active, job prefix. ARGV: timestamp. Returns {id, data} or nil.
set queue_take {
    local id = redis.call("rpoplpush", KEYS[1], KEYS[2])
    if not id then return nil end
    local job = KEYS[3] .. id
    redis.call("hset", job, "processedOn", ARGV[1])
    return {id, redis.call("hget", job, "data")}
}

# KEYS: active, completed, job prefix. ARGV: id, timestamp, return value.
set queue_complete {
    if redis.call("lrem", KEYS[1], 1, ARGV[1]) == 0 then
        return redis.error_reply("ERR job " .. ARGV[1] .. " is not active")
    end
    redis.call("zadd", KEYS[2], ARGV[2], ARGV[1])
    redis.call("hset", KEYS[3] .. ARGV[1], "finishedOn", ARGV[2], "returnvalue", ARGV[3])
    return 1
}

# KEYS: active, delayed, failed, job prefix. ARGV: id, timestamp, backoff
# ms, max attempts, reason. Returns "delayed" or "failed".
set queue_fail {
    if redis.call("lrem", KEYS[1], 1, ARGV[1]) == 0 then
        return redis.error_reply("ERR job " .. ARGV[1] .. " is not active")
    end
    local job = KEYS[4] .. ARGV[1]
    local made = redis.call("hincrby", job, "attemptsMade", 1)
    redis.call("hset", job, "failedReason", ARGV[5])
    if made < tonumber(ARGV[4]) then
        redis.call("zadd", KEYS[2], tonumber(ARGV[2]) + tonumber(ARGV[3]), ARGV[1])
        return "delayed"
    end
    redis.call("zadd", KEYS[3], ARGV[2], ARGV[1])
    return "failed"
}

# KEYS: delayed, wait. ARGV: now, at most this many. Returns how many moved.
set queue_promote {
    local due = redis.call("zrangebyscore", KEYS[1], "-inf", ARGV[1], "LIMIT", 0, tonumber(ARGV[2]))
    for _, id in ipairs(due) do
        redis.call("zrem", KEYS[1], id)
        redis.call("lpush", KEYS[2], id)
    end
    return #due
}

# KEYS: the window's sorted set. ARGV: now ms, window ms, limit, request id.
# Returns {allowed (1/0), requests in the window}.
set rate_limit {
    local now, window, limit = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
    redis.call("zremrangebyscore", KEYS[1], "-inf", now - window)
    local used = redis.call("zcard", KEYS[1])
    if used >= limit then return {0, used} end
    redis.call("zadd", KEYS[1], now, ARGV[4])
    redis.call("pexpire", KEYS[1], window)
    return {1, used + 1}
}

# What client libraries do: EVALSHA with the SHA1 they know (here learnt
# once with SCRIPT LOAD), and on NOSCRIPT send the body with EVAL. Counts
# the fallbacks in ::noscript_fallbacks.
set ::noscript_fallbacks 0
proc run_script {body numkeys args} {
    if {![info exists ::sha($body)]} { set ::sha($body) [r script load $body] }
    if {[catch {r evalsha $::sha($body) $numkeys {*}$args} reply]} {
        if {![string match "NOSCRIPT*" $reply]} { error $reply }
        incr ::noscript_fallbacks
        set reply [r eval $body $numkeys {*}$args]
    }
    return $reply
}

start_server {tags {scripting}} {
    test "lock: only the holder's token releases it; others get 0 and the lock stays" {
        assert_equal OK [r set lock:res tok-a NX PX 30000]
        assert_equal {} [r set lock:res tok-b NX PX 30000]
        assert_equal 0 [r eval $lock_release 1 lock:res tok-b]
        assert_equal tok-a [r get lock:res]
        assert_equal 1 [r eval $lock_release 1 lock:res tok-a]
        assert_equal 0 [r exists lock:res]
        assert_equal 0 [r eval $lock_release 1 lock:res tok-a]
        assert_equal OK [r set lock:res tok-b NX PX 30000]
        r del lock:res
    }

    test "lock: the holder extends its lease, nobody else can" {
        r set lock:res tok-a PX 1000
        assert_equal 0 [r eval $lock_extend 1 lock:res tok-b 60000]
        assert_range [r pttl lock:res] 1 1000
        assert_equal 1 [r eval $lock_extend 1 lock:res tok-a 60000]
        assert_range [r pttl lock:res] 59000 60000
        r del lock:res
    }

    test "queue: jobs go wait -> active -> completed in FIFO order with their data" {
        r del q:id q:wait q:active q:completed
        foreach n {first second third} {
            run_script $queue_add 3 q:id q:wait q:job: "{\"name\":\"$n\",\"n\":1}" 1000
        }
        assert_equal 3 [r llen q:wait]
        assert_equal {1 {{"name":"first","n":1}}} [run_script $queue_take 3 q:wait q:active q:job: 2000]
        assert_equal {2 {{"name":"second","n":1}}} [run_script $queue_take 3 q:wait q:active q:job: 2001]
        assert_equal {2 1} [r lrange q:active 0 -1]
        assert_equal 1 [run_script $queue_complete 3 q:active q:completed q:job: 1 3000 done]
        assert_equal {1 3000} [r zrange q:completed 0 -1 withscores]
        assert_equal {first 2000 3000 done} [r hmget q:job:1 name processedOn finishedOn returnvalue]
        assert_error "ERR job 1 is not active" {run_script $queue_complete 3 q:active q:completed q:job: 1 3001 x}
        assert_equal {1 3000} [r zrange q:completed 0 -1 withscores]
        assert_equal {3 {{"name":"third","n":1}}} [run_script $queue_take 3 q:wait q:active q:job: 2002]
        assert_equal {} [run_script $queue_take 3 q:wait q:active q:job: 2003]
    }

    test "queue: a failed job is retried after its backoff, then fails for good" {
        r del q:id q:wait q:active q:delayed q:failed
        run_script $queue_add 3 q:id q:wait q:job: {{"name":"flaky"}} 1000
        set id [lindex [run_script $queue_take 3 q:wait q:active q:job: 1000] 0]
        assert_equal delayed [run_script $queue_fail 4 q:active q:delayed q:failed q:job: $id 5000 250 2 boom]
        assert_equal [list $id 5250] [r zrange q:delayed 0 -1 withscores]
        assert_equal 0 [run_script $queue_promote 2 q:delayed q:wait 5249 10]
        assert_equal 1 [run_script $queue_promote 2 q:delayed q:wait 5250 10]
        assert_equal 0 [r zcard q:delayed]
        assert_equal [list $id] [r lrange q:wait 0 -1]
        run_script $queue_take 3 q:wait q:active q:job: 6000
        assert_equal failed [run_script $queue_fail 4 q:active q:delayed q:failed q:job: $id 7000 250 2 boom]
        assert_equal [list $id 7000] [r zrange q:failed 0 -1 withscores]
        assert_equal {2 boom} [r hmget q:job:$id attemptsMade failedReason]
        assert_equal 0 [r llen q:active]
    }

    test "queue: promotion moves at most the limit, oldest due first" {
        r del q:delayed q:wait
        r zadd q:delayed 100 a 200 b 300 c 900 late
        assert_equal 2 [run_script $queue_promote 2 q:delayed q:wait 500 2]
        assert_equal {b a} [r lrange q:wait 0 -1]
        assert_equal 1 [run_script $queue_promote 2 q:delayed q:wait 500 2]
        assert_equal {late} [r zrange q:delayed 0 -1]
    }

    test "rate limiter: N per window, the window slides" {
        r del rl:user
        for {set i 0} {$i < 3} {incr i} {
            assert_equal [list 1 [expr {$i + 1}]] [run_script $rate_limit 1 rl:user [expr {1000 + $i}] 1000 3 req$i]
        }
        assert_equal {0 3} [run_script $rate_limit 1 rl:user 1500 1000 3 req3]
        assert_equal {1 3} [run_script $rate_limit 1 rl:user 2000 1000 3 req4]
        assert_equal {req1 req2 req4} [r zrange rl:user 0 -1]
        assert_range [r pttl rl:user] 1 1000
    }

    test "clients' EVALSHA-then-EVAL works after SCRIPT FLUSH" {
        r set lock:res tok-a
        run_script $lock_release 1 lock:res other
        r script flush
        set before $::noscript_fallbacks
        assert_equal 1 [run_script $lock_release 1 lock:res tok-a]
        assert_equal [expr {$before + 1}] $::noscript_fallbacks
        assert_equal 1 [r script exists $::sha($lock_release)]
    }
}
