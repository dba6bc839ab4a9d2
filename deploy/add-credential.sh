#!/usr/bin/env bash
# Gives someone (a client, a worker, an admin) their own token for a server
# that runs with --credentials FILE, or takes it back.
#
#   deploy/add-credential.sh FILE ROLE NAME [OUT_DIR]   add; token in OUT_DIR/NAME.token
#   deploy/add-credential.sh --revoke FILE ROLE NAME    remove the line
#
# ROLE is client (submit, watch, cancel, read), worker (register, lease,
# report: under NAME only, so start it with --name NAME) or admin (what a
# client does, plus `pruner admin purge-worker|release-worker`).
# FILE keeps only the token's SHA-256, so reading it gives no one a token;
# the token itself goes to OUT_DIR (default: the current folder), mode 600,
# to hand to its owner. The server re-reads FILE when it changes: no restart.
set -euo pipefail

usage() {
  sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'
  exit "${1:-2}"
}

die() {
  echo "add-credential: $*" >&2
  exit 1
}

revoke=false
if [[ ${1:-} == --revoke ]]; then
  revoke=true
  shift
fi
case "${1:-}" in -h | --help) usage 0 ;; esac
[[ $# -ge 3 ]] || usage
file=$1 role=$2 name=$3 out=${4:-.}
case "$role" in client | worker | admin) ;; *) die "role must be client, worker or admin, not '$role'" ;; esac
[[ $name =~ ^[A-Za-z0-9._/:@-]{1,128}$ ]] || die "name '$name' must be 1-128 of [A-Za-z0-9._/:@-]"

# The file is replaced in one rename, so the server never reads half of it.
rewrite() {
  local tmp
  tmp=$(mktemp "$file.XXXXXX")
  cat >"$tmp"
  chmod 600 "$tmp"
  mv "$tmp" "$file"
}

if $revoke; then
  [[ -f $file ]] || die "$file does not exist"
  grep -Eq "^[[:space:]]*$role[[:space:]]+$name[[:space:]]" "$file" || die "no $role '$name' in $file"
  grep -Ev "^[[:space:]]*$role[[:space:]]+$name[[:space:]]" "$file" | rewrite
  echo "revoked $role '$name' (the server stops accepting its token on the next call)"
  exit 0
fi

command -v openssl >/dev/null || die "openssl is not installed (apt-get install openssl)"
if [[ -f $file ]] && grep -Eq "^[[:space:]]*$role[[:space:]]+$name[[:space:]]" "$file"; then
  die "$role '$name' is already in $file (revoke it first to give a new token)"
fi
token_file=$out/${name//\//_}.token
[[ ! -e $token_file ]] || die "$token_file exists; move it away first"
mkdir -p "$out"
token=$(openssl rand -hex 32)
hash=$(printf '%s' "$token" | openssl dgst -sha256 -r | cut -d' ' -f1)
(umask 077 && printf '%s\n' "$token" >"$token_file")
{ [[ -f $file ]] && cat "$file"; printf '%-7s %s sha256:%s\n' "$role" "$name" "$hash"; } | rewrite
echo "added $role '$name' to $file; its token is in $token_file (give it --token-file)"
