#!/usr/bin/env bash
# install-deps: make sure every Debian 12 package the build and the tests
# need is installed. Installs what is missing when run as root; otherwise
# prints the one command to run and fails, so `make` stops early with a
# clear message instead of a confusing compiler or test error later.
set -euo pipefail

PACKAGES=(
  build-essential cmake pkg-config
  libh2o-evloop-dev libssl-dev libpq-dev postgresql-15
  libjansson-dev libprotobuf-c-dev protobuf-c-compiler libprotobuf-dev protobuf-compiler
  libcmocka-dev clang-14 libclang-rt-14-dev
  curl nghttp2-client python3 python3-confluent-kafka python3-avro
  openssl procps util-linux
)

is_installed() {
  local status
  status=$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null) || return 1
  [[ "$status" == "install ok installed" ]]
}

missing=()
for pkg in "${PACKAGES[@]}"; do
  is_installed "$pkg" || missing+=("$pkg")
done

if [[ ${#missing[@]} -eq 0 ]]; then
  exit 0
fi

if [[ $(id -u) -ne 0 ]]; then
  echo "install-deps: missing Debian packages: ${missing[*]}" >&2
  echo "install-deps: run this, then try again:" >&2
  echo "  sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi

echo "install-deps: installing ${missing[*]}" >&2
apt-get update
DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
