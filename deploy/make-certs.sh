#!/usr/bin/env bash
# Makes what a farm outside loopback needs: a private CA, a server key and
# certificate signed by it, and a random bearer token.
#
#   deploy/make-certs.sh DIR [HOSTNAME_OR_IP...]
#
# DIR receives:
#   ca.pem      the CA certificate: copy it to every worker and client (--tls-ca)
#   ca.key      the CA's key: keep it offline; it signs new server certificates
#   server.pem  the server certificate, valid for the names given, localhost
#               and 127.0.0.1 (--tls-cert)
#   server.key  its key (--tls-key)
#   token       the bearer token, one line (--token-file on server, workers
#               and clients)
# Keys and token are mode 600. Existing files are never overwritten: a farm's
# CA must not change under running workers by accident.
set -euo pipefail

usage() {
  sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'
  exit "${1:-2}"
}

die() {
  echo "make-certs: $*" >&2
  exit 1
}

[[ $# -ge 1 ]] || usage
case "$1" in -h | --help) usage 0 ;; esac
dir=$1
shift
hosts=("$@")

command -v openssl >/dev/null || die "openssl is not installed (apt-get install openssl)"
mkdir -p "$dir"
for f in ca.pem ca.key server.pem server.key token; do
  [[ ! -e "$dir/$f" ]] || die "$dir/$f exists; remove the old files first (or use another DIR)"
done

# Subject alternative names: what clients may call the server. IP literals
# need IP entries; everything else is a DNS name.
sans=("DNS:localhost" "IP:127.0.0.1")
for host in "${hosts[@]}"; do
  if [[ $host =~ ^[0-9]+(\.[0-9]+){3}$ || $host == *:* ]]; then
    sans+=("IP:$host")
  else
    sans+=("DNS:$host")
  fi
done
san_list=$(IFS=,; echo "${sans[*]}")
common_name=${hosts[0]:-localhost}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
umask 077

openssl req -x509 -newkey rsa:2048 -nodes -sha256 -days 3650 \
  -keyout "$dir/ca.key" -out "$dir/ca.pem" \
  -subj "/CN=pruner farm CA" \
  -addext "basicConstraints=critical,CA:TRUE" \
  -addext "keyUsage=critical,keyCertSign,cRLSign" 2>"$work/log" ||
  { cat "$work/log" >&2; die "could not make the CA"; }

openssl req -newkey rsa:2048 -nodes -sha256 \
  -keyout "$dir/server.key" -out "$work/server.csr" \
  -subj "/CN=$common_name" 2>"$work/log" ||
  { cat "$work/log" >&2; die "could not make the server key"; }

cat >"$work/server.ext" <<EOF
basicConstraints = CA:FALSE
keyUsage = critical, digitalSignature, keyEncipherment
extendedKeyUsage = serverAuth
subjectAltName = $san_list
EOF
openssl x509 -req -sha256 -days 825 -in "$work/server.csr" \
  -CA "$dir/ca.pem" -CAkey "$dir/ca.key" -CAcreateserial -CAserial "$work/ca.srl" \
  -extfile "$work/server.ext" -out "$dir/server.pem" 2>"$work/log" ||
  { cat "$work/log" >&2; die "could not sign the server certificate"; }

openssl rand -hex 32 >"$dir/token"
chmod 600 "$dir/ca.key" "$dir/server.key" "$dir/token"
chmod 644 "$dir/ca.pem" "$dir/server.pem"

echo "made in $dir: ca.pem ca.key server.pem server.key token"
echo "server certificate names: $san_list"
