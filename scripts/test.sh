#!/usr/bin/env bash
# Runs every suite: native unit/differential/corpus tests (GoogleTest via ctest), the wasm module
# under Node, web unit tests (Vitest) and the browser tests (headless Chromium).
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
run() {
  echo
  echo "=== $1"
  shift
  if ! "$@"; then
    echo "=== FAILED: $*"
    status=1
  fi
}
run "native tests (ctest)" ctest --test-dir build --output-on-failure -j 2 --timeout 900
run "wasm tests (node)" node --test tests/wasm/
if compgen -G "web/src/**/*.test.ts" >/dev/null || compgen -G "web/src/*.test.ts" >/dev/null; then
  run "web unit tests (vitest)" npx vitest run --root . --dir web/src
fi
if compgen -G "tests/browser/*.test.mjs" >/dev/null; then
  run "browser tests (chromium)" node --test --test-concurrency=1 tests/browser/
fi
echo
if [ $status -eq 0 ]; then echo "all suites passed"; else echo "some suites FAILED"; fi
exit $status
