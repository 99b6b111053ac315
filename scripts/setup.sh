#!/usr/bin/env bash
# Installs what isoscope needs on a fresh Debian machine (run as root): the C++ toolchain,
# GoogleTest, Google Benchmark, Emscripten, Chromium for browser tests, clang-14 with its
# sanitizer and libFuzzer runtimes, the client libraries and servers `isoscope run` and its
# tests use (PostgreSQL 15, MariaDB, SQLite), and the npm packages.
# Idempotent: it installs only what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

apt_packages=(cmake ninja-build g++ libgtest-dev libbenchmark-dev emscripten chromium clang-14 libclang-rt-14-dev
              pkg-config libpq-dev libmariadb-dev libsqlite3-dev postgresql-15 postgresql-client-15 mariadb-server mariadb-client)
missing=()
for p in "${apt_packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# npm packages: reinstall only when the lock file changed since the last install.
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "setup: installing npm packages"
  npm ci --no-audit --no-fund
fi
