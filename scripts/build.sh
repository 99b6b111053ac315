#!/usr/bin/env bash
# Builds everything from the same C++ sources: the native CLI and tests (build/), the
# WebAssembly module (build-wasm/, one ES module for the app and for Node), and
# the web app (dist/).
#
#   scripts/build.sh            all three
#   scripts/build.sh native     build/ (and web/generated's vocabulary from it)
#   scripts/build.sh wasm       build-wasm/ (copied to web/generated/)
#   scripts/build.sh web        dist/ (needs the other two)
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS="${JOBS:-2}"
part=${1:-all}

build_native() {
  echo "build: native"
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build build -j "$JOBS"
  # The anomaly vocabulary, the format list and the levels for the web app, from the core (one source of truth).
  mkdir -p web/generated
  build/isoscope anomalies --json > web/generated/anomaly-kinds.json
  build/isoscope formats --json > web/generated/formats.json
  build/isoscope levels --json > web/generated/levels.json
}

build_wasm() {
  echo "build: wasm"
  # Debian's Emscripten 3.1.6 loads Debian's acorn through NODE_PATH.
  export NODE_PATH=/usr/share/nodejs
  if [ ! -f build-wasm/build.ninja ]; then
    emcmake cmake -S . -B build-wasm -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  fi
  cmake --build build-wasm -j "$JOBS"
  unset NODE_PATH
  mkdir -p web/generated
  cp build-wasm/isoscope.mjs build-wasm/isoscope.wasm web/generated/
}

build_web() {
  echo "build: web"
  node scripts/copy-examples.mjs
  npx vite build --config web/vite.config.ts --logLevel warn
}

case "$part" in
  native) build_native ;;
  wasm) build_wasm ;;
  web) build_web ;;
  all) build_native; build_wasm; build_web ;;
  *) echo "usage: scripts/build.sh [native|wasm|web|all]" >&2; exit 2 ;;
esac
