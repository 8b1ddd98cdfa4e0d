#!/usr/bin/env bash
# gen-certs.sh DIR -- the certificates tests/unit/tls.tcl and utils/bench-tls.sh
# use, generated at test time with the openssl command line (no key is ever
# committed):
#   ca.crt ca.key            the test CA (also hashed into DIR/cadir for tls-ca-cert-dir)
#   server.crt server.key    CN=Server-only, signed by the CA, SAN localhost/127.0.0.1
#   client.crt client.key    CN=Client-only, signed by the CA
#   expired.crt expired.key  signed by the CA, validity ended in the past
#   other-ca.crt other-ca.key, other.crt other.key   a second CA and a client cert it signed
#   server2.crt server2.key  a second server cert from the CA (CONFIG SET reload)
#   server-pass.key          server.key encrypted with the passphrase "secret"
#   bad.crt                  not a certificate at all
#   dh.pem                   DH parameters for tls-dh-params-file (the RFC 7919 ffdhe2048 group)
# Why: certificates with fixed dates rot; generated ones don't, and an expired
# one is made expired on purpose (openssl x509 -days with a past start date
# needs `openssl ca`, so the CA signs through a tiny `openssl ca` setup).
set -eu
dir=${1:?usage: gen-certs.sh DIR}
mkdir -p "$dir" && cd "$dir"
command -v openssl >/dev/null || { echo "gen-certs.sh: openssl not found (Debian: openssl)" >&2; exit 1; }
quiet() { "$@" >/dev/null 2>&1 || { echo "gen-certs.sh: failed: $*" >&2; "$@"; exit 1; }; }

newca() { # name subject
    quiet openssl req -x509 -new -nodes -newkey rsa:2048 -sha256 -days 3650 \
        -keyout "$1.key" -out "$1.crt" -subj "$2"
}
ext=$(mktemp) && trap 'rm -f "$ext"' EXIT
printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\n' > "$ext"
cert() { # name ca subject [days]
    quiet openssl req -new -nodes -newkey rsa:2048 -keyout "$1.key" -out "$1.csr" -subj "$3"
    quiet openssl x509 -req -in "$1.csr" -CA "$2.crt" -CAkey "$2.key" -CAcreateserial \
        -days "${4:-3650}" -sha256 -extfile "$ext" -out "$1.crt"
    rm -f "$1.csr"
}
expired() { # name ca subject: valid from 2000-01-01 to 2000-01-02, through `openssl ca`
    quiet openssl req -new -nodes -newkey rsa:2048 -keyout "$1.key" -out "$1.csr" -subj "$3"
    mkdir -p ca-db && : > ca-db/index.txt && echo 01 > ca-db/serial
    cat > ca-db/ca.cnf <<CNF
[ca]
default_ca = test
[test]
database = ca-db/index.txt
serial = ca-db/serial
new_certs_dir = ca-db
default_md = sha256
policy = any
[any]
commonName = supplied
CNF
    quiet openssl ca -batch -config ca-db/ca.cnf -cert "$2.crt" -keyfile "$2.key" \
        -startdate 20000101000000Z -enddate 20000102000000Z -in "$1.csr" -out "$1.crt" -notext
    rm -rf ca-db "$1.csr"
}

newca ca "/O=redis-portable tests/CN=Test CA"
cert server ca "/O=redis-portable tests/CN=Server-only"
cert server2 ca "/O=redis-portable tests/CN=Server-two"
cert client ca "/O=redis-portable tests/CN=Client-only"
expired expired ca "/O=redis-portable tests/CN=Expired"
newca other-ca "/O=somebody else/CN=Other CA"
cert other other-ca "/O=somebody else/CN=Other client"
quiet openssl rsa -in server.key -aes256 -passout pass:secret -out server-pass.key
echo "this is not a certificate" > bad.crt
mkdir -p cadir && cp ca.crt cadir/ && quiet openssl rehash cadir
# ffdhe2048 (RFC 7919): fixed public parameters, so no slow generation at test time.
quiet openssl genpkey -genparam -algorithm DH -pkeyopt group:ffdhe2048 -out dh.pem
chmod 600 ./*.key
