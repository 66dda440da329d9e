#!/usr/bin/env bash
# fresh-check: the README's two commands on a Debian 12 that nothing has
# touched, the only proof that the project installs what it needs.
#
#   1. debootstrap a minimal Debian 12 (variant minbase) into $FRESH_DIR;
#   2. copy a clean `git clone` of HEAD to /root/src/schema-registry inside it
#      (/root is mode 700, the likeliest place to fail) and ../shared beside it;
#   3. inside it, as root, in private mount and PID namespaces (chroot, with
#      /proc, /sys, /dev, /dev/shm mounted as PostgreSQL needs): install
#      `make` (the README's one prerequisite), run `make test` with CI=true,
#      then `make run` in the background, register a schema with curl, stop it
#      with SIGINT (Ctrl-C), check that no process is left, start it again and
#      read the schema back;
#   4. print one summary line, "fresh-check: PASS ..." or "fresh-check: FAIL ...".
#
# Only uncommitted work is invisible to it: it tests HEAD. Needs root and the
# Debian mirror; takes about 15 minutes on 2 cores (docs/operations.md).
# Environment: FRESH_DIR (default /var/tmp/sr-fresh-check), DEBIAN_MIRROR,
# SHARED_DIR (default ../shared), FRESH_KEEP=1 keeps the root afterwards.
set -euo pipefail

top=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
work=${FRESH_DIR:-/var/tmp/sr-fresh-check}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
shared=${SHARED_DIR:-$top/../shared}
root=$work/root
started=$(date +%s)

say() { echo "fresh-check: $*" >&2; }
fail() {
  echo "fresh-check: FAIL: $* (logs in $work)"
  exit 1
}

(( $(id -u) == 0 )) || fail "needs root (debootstrap, chroot and mounts)"
if ! command -v debootstrap >/dev/null; then
  say "installing debootstrap on this machine"
  apt-get install -y --no-install-recommends debootstrap >/dev/null
fi

# Leftover mounts of an interrupted run live in a namespace that is gone;
# the directory itself can simply go.
rm -rf "$work"
mkdir -p "$work"

say "debootstrap bookworm (minbase) into $root"
debootstrap --variant=minbase bookworm "$root" "$mirror" >"$work/debootstrap.log" 2>&1 ||
  fail "debootstrap failed: $(tail -n 1 "$work/debootstrap.log")"

security=${mirror%/debian}/debian-security
cat >"$root/etc/apt/sources.list" <<EOF
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb $security bookworm-security main
EOF
cp /etc/resolv.conf "$root/etc/resolv.conf"
# The network's own trust, as resolv.conf is its own names: where TLS leaves
# through an intercepting egress proxy, this machine was given that proxy's CA
# (NODE_EXTRA_CA_CERTS, for node, which keeps its own CA list), and so is any
# fresh machine on the same network. Without one, nothing is copied.
if [[ -n "${NODE_EXTRA_CA_CERTS:-}" && -f "$NODE_EXTRA_CA_CERTS" ]]; then
  cp "$NODE_EXTRA_CA_CERTS" "$root/etc/network-ca.crt"
fi
# As in Debian's container images: packages do not start services in here.
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod 755 "$root/usr/sbin/policy-rc.d"

say "copying a clone of HEAD ($(git -C "$top" rev-parse --short HEAD)) and shared/"
mkdir -p "$root/root/src"
chmod 700 "$root/root"
git clone --quiet --no-hardlinks "$top" "$root/root/src/schema-registry"
if [[ -d "$shared" ]]; then
  cp -a "$shared" "$root/root/src/shared"
  chmod -R a-w "$root/root/src/shared"
fi

cat >"$root/root/fresh-inner.sh" <<'INNER'
#!/bin/bash
# Runs inside the fresh root. Writes its verdict to /root/verdict.
set -uo pipefail
export DEBIAN_FRONTEND=noninteractive CI=true LANG=C.UTF-8
[[ -f /etc/network-ca.crt ]] && export NODE_EXTRA_CA_CERTS=/etc/network-ca.crt
verdict() { echo "$*" >/root/verdict; exit 0; }
H='Content-Type: application/vnd.schemaregistry.v1+json'
SCHEMA='{"schema":"{\"type\":\"record\",\"name\":\"Fresh\",\"fields\":[{\"name\":\"id\",\"type\":\"long\"}]}"}'

apt-get update >/root/apt.log 2>&1 && apt-get install -y --no-install-recommends make >>/root/apt.log 2>&1 ||
  verdict "FAIL: cannot install make: $(tail -n 1 /root/apt.log)"
cd /root/src/schema-registry || verdict "FAIL: no clone"

make test >/root/make-test.log 2>&1
test_rc=$?
test_line=$(grep -E '^make test: ' /root/make-test.log | tail -n 1)
(( test_rc == 0 )) || verdict "FAIL: make test exited $test_rc: ${test_line:-$(tail -n 1 /root/make-test.log)}"

# make run as from a terminal: its own process group, so SIGINT reaches it all, as Ctrl-C does.
serve() {
  setsid make run RUN_ARGS='--listen 127.0.0.1:8081' >>/root/make-run.log 2>&1 &
  pgid=$!
  for _ in $(seq 600); do
    curl -sf -o /dev/null http://127.0.0.1:8081/ && return 0
    kill -0 "$pgid" 2>/dev/null || return 1
    sleep 0.5
  done
  return 1
}
stop() {
  kill -INT -- "-$pgid"
  for _ in $(seq 120); do
    kill -0 "$pgid" 2>/dev/null || break
    sleep 0.5
  done
  wait "$pgid"
}
left() { ps -e -o pid=,comm= | awk '$2 ~ /postgres|schema-registr|make/ {print $2}' | sort -u | tr '\n' ' '; }

serve || verdict "FAIL: make run did not serve: $(tail -n 1 /root/make-run.log)"
id=$(curl -s -X POST -H "$H" --data "$SCHEMA" http://127.0.0.1:8081/subjects/fresh-value/versions)
[[ "$id" == '{"id":1}' ]] || verdict "FAIL: registration answered $id"
stop
[[ -z "$(left)" ]] || verdict "FAIL: still running after SIGINT: $(left)"
grep -q ' INFO stopped' /root/make-run.log || verdict "FAIL: the server did not stop cleanly: $(tail -n 1 /root/make-run.log)"

serve || verdict "FAIL: make run did not start again: $(tail -n 1 /root/make-run.log)"
latest=$(curl -s http://127.0.0.1:8081/subjects/fresh-value/versions/latest)
stop
[[ -z "$(left)" ]] || verdict "FAIL: still running after the second SIGINT: $(left)"
[[ "$latest" == *'"id":1'* && "$latest" == *'"version":1'* ]] ||
  verdict "FAIL: after a restart the schema is gone: $latest"

verdict "PASS: ${test_line}; make run: registered id 1 as root under /root (mode 700), kept across a restart, stopped cleanly by SIGINT, no process left"
INNER
chmod 755 "$root/root/fresh-inner.sh"

say "running make test and make run inside (logs: $root/root/*.log)"
unshare --mount --pid --fork --propagation private bash -c '
  set -e
  root=$1
  mount -t proc proc "$root/proc"
  mount -t sysfs sysfs "$root/sys"
  mount --rbind /dev "$root/dev"
  mount -t tmpfs -o mode=1777 tmpfs "$root/dev/shm"
  mount -t tmpfs -o mode=1777 tmpfs "$root/tmp"
  exec chroot "$root" /root/fresh-inner.sh
' _ "$root" || true

verdict=$(cat "$root/root/verdict" 2>/dev/null || echo "FAIL: the check inside did not finish")
cp "$root"/root/*.log "$work/" 2>/dev/null || true
elapsed=$(( $(date +%s) - started ))
if [[ "${FRESH_KEEP:-0}" != 1 && "$verdict" == PASS* ]]; then
  rm -rf "$root"
fi
echo "fresh-check: $verdict (Debian 12 minbase, $elapsed s)"
[[ "$verdict" == PASS* ]]
