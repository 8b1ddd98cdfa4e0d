# python-client.tcl -- a real client library against the server: Debian's
# python3-redis connects as an ACL user (allowed commands and keys work,
# others raise its NoPermissionError, a wrong password, a disabled or an
# unknown user get WRONGPASS) and, where the build has TLS, over TLS with a
# client certificate.
#
# Design decisions:
# - The client runs as a small Python program per check, fed on stdin, so
#   what the library really does (HELLO/AUTH with a user name, its TLS
#   context) is what is tested, not a Tcl imitation of it.
# - Debian's python3 is used explicitly (/usr/bin/python3): the library is a
#   Debian package, and another python3 first on PATH may lack it. Every
#   test skips, saying why, where python3-redis or TLS is absent.
# - Validated against Debian's Redis 7.0.15 (--server /usr/bin/redis-server).

set ::py /usr/bin/python3
set ::py_tls_dir [file join $::harness::opt(run_dir) pyclient-[pid]]

proc py_why_not {} {
    if {[::harness::external]} { return "external mode: the servers are started with users and certificates" }
    if {![file executable $::py]} { return "no /usr/bin/python3 (Debian: python3)" }
    if {[catch {exec $::py -c "import redis"}]} { return "python3-redis is not installed (apt-get install python3-redis)" }
    return ""
}

# Runs the Python program CODE (it prints its results); returns stdout.
proc py_run {code} {
    set limit [expr {int(60 * [::harness::factor])}]
    return [string trim [exec timeout $limit $::py - << $code 2>@1]]
}

set ::py_skip [py_why_not]
if {$::py_skip ne ""} {
    test "python3-redis" { skip $::py_skip }
    return
}

start_server {tags {acl external:skip}} {
    r acl setuser app on {>s3cret} {~app:*} +@read +@write +@connection +acl|whoami
    set port [srv port]

    test "python3-redis as an ACL user: its keys and commands work, others raise NoPermissionError" {
        set out [py_run [string map [list @PORT@ $port] {
import redis
c = redis.Redis(host="127.0.0.1", port=@PORT@, username="app", password="s3cret", decode_responses=True)
print(c.acl_whoami())
c.set("app:x", "1")
print(c.incr("app:x"))
for call in (lambda: c.get("other"), lambda: c.info(), lambda: c.config_get("dir")):
    try:
        call()
        print("allowed")
    except redis.exceptions.NoPermissionError as e:
        print("denied:", e)
}]]
        assert_equal "app
2
denied: this user has no permissions to access one of the keys used as arguments
denied: this user has no permissions to run the 'info' command
denied: this user has no permissions to run the 'config|get' command" $out
        assert_equal 2 [r get app:x]
    }

    test "python3-redis with a wrong password, a disabled or an unknown user gets WRONGPASS" {
        r acl setuser off-user off {>pw} +@all
        set out [py_run [string map [list @PORT@ $port] {
import redis
for user, password in (("app", "wrong"), ("off-user", "pw"), ("nobody", "x")):
    try:
        redis.Redis(host="127.0.0.1", port=@PORT@, username=user, password=password).ping()
        print("connected")
    except redis.exceptions.ResponseError as e:
        print("refused:", type(e).__name__, e)
}]]
        set refusal "refused: ResponseError WRONGPASS invalid username-password pair or user is disabled."
        assert_equal [join [list $refusal $refusal $refusal] "\n"] $out
        r acl deluser off-user
    }
}

# ---- TLS -------------------------------------------------------------------------------------

if {![server_built_with_tls]} {
    test "python3-redis over TLS" { skip "this build has no TLS (make BUILD_TLS=yes, which needs libssl-dev)" }
    return
}
if {[auto_execok openssl] eq ""} {
    test "python3-redis over TLS" { skip "no openssl command to make certificates with (Debian: openssl)" }
    return
}

file mkdir $::py_tls_dir
exec [file join [pwd] tests helpers gen-certs.sh] $::py_tls_dir
proc py_cert {name} { file join $::py_tls_dir $name }

set ::py_tls_port [::harness::find_free_port]
start_server [list tags {tls acl external:skip} overrides [list tls-port $::py_tls_port \
        tls-cert-file [py_cert server.crt] tls-key-file [py_cert server.key] tls-ca-cert-file [py_cert ca.crt]]] {
    r acl setuser app on {>s3cret} {~app:*} +@all

    test "python3-redis over TLS with a client certificate, as an ACL user" {
        set out [py_run [string map [list @PORT@ $::py_tls_port @CA@ [py_cert ca.crt] \
                @CERT@ [py_cert client.crt] @KEY@ [py_cert client.key]] {
import redis
c = redis.Redis(host="127.0.0.1", port=@PORT@, ssl=True, ssl_ca_certs="@CA@", ssl_certfile="@CERT@",
                ssl_keyfile="@KEY@", username="app", password="s3cret", decode_responses=True)
c.set("app:tls", "over tls")
print(c.get("app:tls"))
print(c.acl_whoami())
}]]
        assert_equal "over tls\napp" $out
        assert_equal "over tls" [r get app:tls]
    }

    test "python3-redis over TLS without a client certificate is refused (tls-auth-clients yes)" {
        set out [py_run [string map [list @PORT@ $::py_tls_port @CA@ [py_cert ca.crt]] {
import redis
try:
    redis.Redis(host="127.0.0.1", port=@PORT@, ssl=True, ssl_ca_certs="@CA@", socket_timeout=10).ping()
    print("connected")
except (redis.exceptions.ConnectionError, OSError) as e:
    print("refused")
}]]
        assert_equal refused $out
        assert_equal PONG [r ping]
    }
}
