#!/usr/bin/env bash
# run: what `make run` does. Installs missing packages (as root), builds only
# the server binary, and serves on 0.0.0.0:8081 with the embedded PostgreSQL
# in ./var, replacing this shell so Ctrl-C reaches the server directly.
# Arguments go to `schema-registry serve` (make run RUN_ARGS='--listen ...').
#
# Through sudo, only the package installation runs as root: the build and the
# server run as the invoking user, so build/ and ./var stay theirs.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}

./scripts/install-deps.sh

if [[ $(id -u) -eq 0 && -n "${SUDO_UID:-}" && "${SUDO_UID}" != 0 ]]; then
  user=$(getent passwd "$SUDO_UID" | cut -d: -f1)
  home=$(getent passwd "$SUDO_UID" | cut -d: -f6)
  echo "make run: started through sudo; building and serving as ${user:-uid $SUDO_UID}, not root" >&2
  exec setpriv --reuid="$SUDO_UID" --regid="$SUDO_GID" --init-groups \
    env HOME="${home:-/}" USER="${user:-}" BUILD_DIR="$BUILD_DIR" "$0" "$@"
fi

cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$BUILD_DIR" -j"${JOBS:-2}" --target schema-registry
exec "./$BUILD_DIR/schema-registry" serve "$@"
