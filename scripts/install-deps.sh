#!/usr/bin/env bash
# install-deps: make sure every Debian 12 package the build, the server, the
# tests and the benchmarks need is installed. Installs what is missing when
# run as root; otherwise prints the one command to run and fails, so `make`
# stops early with a clear message instead of a confusing compiler or test
# error later.
#
# The lists are exact: packages are installed without their "Recommends", so
# nothing works here by accident that a fresh machine would lack.
# `make fresh-check` proves it on a debootstrap'd Debian 12.
#
#   install-deps.sh [GROUP...]         install GROUPs (default: build run test)
#   install-deps.sh --list [GROUP...]  print their packages and exit
#
# GROUPs: build (compile), run (the embedded database), test (make test,
# make fuzz), bench (make bench), image (the shared libraries a built binary needs: the
# Dockerfile's runtime stage).
set -euo pipefail

# Compiling: the toolchain and the -dev packages of the chosen libraries.
# libgoogle-common-protos-java: its jar carries google/type/*.proto as sources,
# embedded at build time as built-in Protobuf imports (compat/protobuf/protobuf.cmake).
# libcurl4-openssl-dev: the HTTP client of client/ (HTTP/2, TLS, connection reuse;
# libh2o 2.2.5 has no HTTP/2 client), docs/architecture.md.
BUILD=(
  build-essential cmake pkg-config
  libh2o-evloop-dev libssl-dev libpq-dev
  libjansson-dev libprotobuf-c-dev protobuf-c-compiler libprotobuf-dev
  libgoogle-common-protos-java libcurl4-openssl-dev
)
# Serving: the embedded database's server binaries (initdb, pg_ctl, postgres).
RUN=(postgresql-15)
# Testing (make test, make fuzz): every program and Python module the suites
# call. python3-requests: python3-confluent-kafka only "Suggests" it, but its
# SchemaRegistryClient imports it. sudo, util-linux (setpriv, runuser) and
# passwd (useradd): the embedded-database tests for each kind of user; util-linux's
# prlimit, the out-of-descriptors test. python3-h2: raw HTTP/2 frames
# (RST_STREAM floods) in the overload tests. python3-prometheus-client: its
# parser reads GET /metrics in test_metrics.py.
# docker-compose: parses docker-compose.yml in a test (no daemon is started).
# python3-yaml, python3-jsonschema: test_openapi reads docs/openapi.yaml and
# checks the server's answers against its schemas.
# python3-protobuf: test_decoder reads what `encode` writes with Google's own
# Protobuf runtime (python3-jsonschema there too: the validator's verdicts).
# man-db (man, with groff-base's groff) and mandoc (mandoc -T lint): the man page test.
# pgbouncer: test_pgbouncer runs the nodes behind it in session and transaction pooling.
# libavro-dev: Debian's avro-c, the independent Avro writer and reader
# test_decoder_interop holds client/ to (and make bench-decode's baseline).
TEST=(
  libcmocka-dev clang-14 libclang-rt-14-dev protobuf-compiler
  curl nghttp2-client openssl procps util-linux passwd sudo
  python3 python3-confluent-kafka python3-requests python3-avro python3-h2
  python3-prometheus-client docker-compose python3-yaml python3-jsonschema python3-protobuf
  man-db groff-base mandoc pgbouncer
  chromium libavro-dev
)
# test_openapi runs an OpenAPI 3.1 validator from the npm registry (Debian has
# none for 3.1; tests/openapi/package.json pins it), so the test group needs
# node and npm. Only when the machine has none: a node installed otherwise
# (NodeSource's nodejs bundles npm) conflicts with Debian's npm package.
TEST_NODE=()
if ! command -v node >/dev/null 2>&1; then
  TEST_NODE=(nodejs npm)
elif ! command -v npm >/dev/null 2>&1; then
  TEST_NODE=(npm)
fi

# Benchmarks (make bench): the load generator and the static-file baseline
# (pgbench comes with postgresql-15, h2load with nghttp2-client); make
# bench-decode's baseline, avro-c, is in the test group (libavro-dev).
BENCH=(wrk nginx-light)
# A built binary's shared libraries, and curl for container health checks.
IMAGE=(libh2o-evloop0.13 libssl3 libpq5 libjansson4 libprotobuf-c1 libcurl4 ca-certificates curl)

list=0
if [[ "${1:-}" == "--list" ]]; then
  list=1
  shift
fi
groups=("$@")
(( ${#groups[@]} > 0 )) || groups=(build run test)
PACKAGES=()
for group in "${groups[@]}"; do
  case "$group" in
    build) PACKAGES+=("${BUILD[@]}") ;;
    run) PACKAGES+=("${RUN[@]}") ;;
    test) PACKAGES+=("${TEST[@]}" "${TEST_NODE[@]}") ;;
    image) PACKAGES+=("${IMAGE[@]}") ;;
    bench) PACKAGES+=("${BENCH[@]}") ;;
    *) echo "install-deps: unknown group '$group' (build, run, test, bench, image)" >&2; exit 2 ;;
  esac
done

if (( list )); then
  printf '%s\n' "${PACKAGES[@]}"
  exit 0
fi

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

install=(apt-get install -y --no-install-recommends "${missing[@]}")
if [[ $(id -u) -ne 0 ]]; then
  echo "install-deps: missing Debian packages: ${missing[*]}" >&2
  if command -v sudo >/dev/null 2>&1; then
    echo "install-deps: run this, then try again:" >&2
    echo "  sudo apt-get update && sudo ${install[*]}" >&2
  else
    echo "install-deps: as root (su -), run this, then try again:" >&2
    echo "  apt-get update && ${install[*]}" >&2
  fi
  exit 1
fi

echo "install-deps: installing ${missing[*]}" >&2
apt-get update
DEBIAN_FRONTEND=noninteractive "${install[@]}"
