#!/usr/bin/env bash
# Builds everything from the same C++ sources: the native CLI and tests (build/), the
# WebAssembly module (build-wasm/, an ES module for the app and a CommonJS one for Node), and
# the web app (dist/).
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS="${JOBS:-2}"

echo "build: native"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$JOBS"

# The anomaly vocabulary and the format list for the web app, from the core (one source of truth).
mkdir -p web/generated
build/isoscope anomalies --json > web/generated/anomaly-kinds.json
build/isoscope formats --json > web/generated/formats.json

echo "build: wasm"
# Debian's Emscripten 3.1.6 loads Debian's acorn through NODE_PATH.
export NODE_PATH=/usr/share/nodejs
if [ ! -f build-wasm/build.ninja ]; then
  emcmake cmake -S . -B build-wasm -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build build-wasm -j "$JOBS"
unset NODE_PATH
cp build-wasm/isoscope.mjs build-wasm/isoscope.wasm web/generated/

echo "build: web"
node scripts/copy-examples.mjs
npx vite build --config web/vite.config.ts --logLevel warn
