#!/usr/bin/env bash
# Runs every suite: native unit/differential/corpus tests (GoogleTest via ctest), `isoscope run`
# against real databases, the wasm module
# under Node, web unit tests (Vitest), the browser tests (headless Chromium), the native tests
# again under ASan + UBSan, and a short fuzzing run.
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
# The browser tests refresh docs/screenshots/ only when asked (ISOSCOPE_SHOTS=1), so a test run
# leaves the work tree as it was.
[ "${ISOSCOPE_SHOTS:-0}" = 1 ] || export ISOSCOPE_NO_SHOTS=1
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
# isoscope run against throwaway PostgreSQL and MariaDB servers (scripts/db.sh) and SQLite.
run "database tests (isoscope run)" node --test --test-concurrency=1 tests/db/
run "wasm tests (node)" node --test tests/wasm/
run "web type check (tsc)" npx tsc -p web/tsconfig.json
run "web unit tests (vitest)" npx vitest run --config web/vitest.config.ts
run "browser tests (chromium)" node --test --test-concurrency=1 tests/browser/
# The same native tests under AddressSanitizer and UndefinedBehaviorSanitizer (clang), then a
# short bounded fuzzing run of every reader, the archives and the check entry; `npm run fuzz`
# runs longer campaigns.
run "sanitizer build (clang, ASan + UBSan)" bash scripts/fuzz.sh --build-only
run "native tests under ASan + UBSan" ctest --test-dir build-fuzz --output-on-failure -j 2 --timeout 900
run "fuzzing (15 s per target)" bash scripts/fuzz.sh --seconds 15 --jobs 2
echo
if [ $status -eq 0 ]; then echo "all suites passed"; else echo "some suites FAILED"; fi
exit $status
