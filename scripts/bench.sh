#!/usr/bin/env bash
# `npm run bench`: builds, then runs the benchmark matrix (native and wasm) into
# docs/benchmarks.md. Pass --full for 10^7-operation histories, --quick for a smoke run.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
cmake --build build -j "${JOBS:-2}" --target isoscope_bench
node scripts/bench.mjs "$@"
