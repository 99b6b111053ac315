#!/usr/bin/env bash
# Installs what isoscope needs on a fresh Debian machine (run as root): the C++ toolchain,
# GoogleTest, Google Benchmark, Emscripten, Chromium for browser tests, clang-14 with its
# sanitizer and libFuzzer runtimes, the client libraries and servers `isoscope run` and its
# tests use (PostgreSQL 15, MariaDB, SQLite, etcd 3.4, Redis 7), and the npm packages.
# Idempotent: it installs only what is missing.
#
#   scripts/setup.sh          everything
#   scripts/setup.sh native   the npm packages and what the native build needs (small: the
#                             native build can start while `rest` installs the large packages)
#   scripts/setup.sh rest     Emscripten, Chromium, clang-14's runtimes and the database servers
set -euo pipefail
cd "$(dirname "$0")/.."
part=${1:-all}

native_packages=(cmake ninja-build g++ libgtest-dev libbenchmark-dev pkg-config libpq-dev libmariadb-dev libsqlite3-dev libhiredis-dev libcurl4-openssl-dev libnghttp2-dev)
rest_packages=(emscripten chromium clang-14 libclang-rt-14-dev postgresql-15 postgresql-client-15 mariadb-server mariadb-client etcd-server etcd-client redis-server)

. scripts/apt-install.sh

case "$part" in
  native|all)
    apt_install "${native_packages[@]}"
    # npm packages (simdjson, the web app's tools): reinstall only when the lock file changed
    if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
      echo "setup: installing npm packages"
      npm ci --no-audit --no-fund
    fi
    ;;&
  rest|all)
    apt_install "${rest_packages[@]}"
    ;;
  native) ;;
  *) echo "usage: scripts/setup.sh [native|rest|all]" >&2; exit 2 ;;
esac
