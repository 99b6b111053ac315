#!/usr/bin/env bash
# `npm test`: sets up, builds and runs every suite, printing the wall time of each phase and the
# total, so that a slow suite shows in every CI log. The suites: native unit, differential and
# corpus tests (GoogleTest, in three shards), `isoscope run` against real databases, the wasm module
# under Node, tsc, Vitest, the browser tests (headless Chromium), the native tests again under
# ASan + UBSan, and a short fuzzing run of every reader.
#
# On a two-core machine what can overlap does: the large Debian packages (Emscripten,
# Chromium, the database servers) install while the native build compiles; the database
# tests, which mostly wait on their servers, run while the WebAssembly module compiles; the
# sanitizer chain (its build, the native tests under ASan + UBSan, the fuzzing run) runs at the
# lowest priority from the end of the npm install on, on whatever the other phases leave of
# the two cores.
#
# The sanitizers look for memory and undefined-behaviour faults, not for verdict coverage (the
# optimised run has the full counts): under them the randomised tests run a share of their
# histories, of every shape, set by ISOSCOPE_SANITIZER_SCALE (default 0.01; 1 runs them all).
# ISOSCOPE_FUZZ_SECONDS is each fuzz target's time (default 3).
#
#   scripts/test.sh          everything (npm test)
#   scripts/test.sh --deep   the full counts under the sanitizers and a 10-minute fuzzing
#                            campaign per target (npm run test:deep; about two hours)
set -uo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = --deep ]; then
  : "${ISOSCOPE_SANITIZER_SCALE:=1}" "${ISOSCOPE_FUZZ_SECONDS:=600}"
fi
SANITIZER_SCALE=${ISOSCOPE_SANITIZER_SCALE:-0.01}
FUZZ_SECONDS=${ISOSCOPE_FUZZ_SECONDS:-3}
# The browser tests refresh docs/screenshots/ only when asked (ISOSCOPE_SHOTS=1), so a test run
# leaves the work tree as it was.
[ "${ISOSCOPE_SHOTS:-0}" = 1 ] || export ISOSCOPE_NO_SHOTS=1

logs=build-logs
mkdir -p "$logs"
status=0
summary=()
start_all=$(date +%s)
now() { date +%s.%N; }
took() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.0f", b - a }'; }
mark() { if [ "$1" -eq 0 ]; then echo ok; else echo "FAILED (exit $1)"; fi; }
record() {  # name, seconds, exit status
  [ "$3" -eq 0 ] || status=1
  summary+=("$(printf '%6s s  %-48s %s' "$2" "$1" "$(mark "$3")")")
  echo "=== $1: $2 s, $(mark "$3")"
}

# phase NAME COMMAND...: runs in the foreground
phase() {
  local name=$1 t
  shift
  echo
  echo "=== $name"
  t=$(now)
  "$@"
  local rc=$?  # before the command substitution below, which sets $? again
  record "$name" "$(took "$t")" $rc
}

# background NAME COMMAND...: runs beside the next phases, its output kept in build-logs/
# until `finish NAME` prints it
declare -A bg_pid bg_start bg_title
background() {
  local key=$1 title=$2
  shift 2
  echo
  echo "=== $title (beside the next phases; its output follows when it ends)"
  bg_title[$key]=$title
  bg_start[$key]=$(now)
  "$@" >"$logs/$key.log" 2>&1 &
  bg_pid[$key]=$!
}
finish() {
  local key=$1 rc
  wait "${bg_pid[$key]}"
  rc=$?
  local t
  t=$(took "${bg_start[$key]}")
  echo
  echo "=== ${bg_title[$key]} (output)"
  cat "$logs/$key.log"
  record "${bg_title[$key]}" "$t" $rc
  # the times of the steps of a background phase (sub_phase), under its own
  if [ -f "$logs/$key.times" ]; then
    while IFS= read -r line; do summary+=("$line"); done <"$logs/$key.times"
  fi
}

# sub_phase KEY NAME COMMAND...: a step of background phase KEY, timed into build-logs/KEY.times
sub_phase() {
  local key=$1 name=$2 t rc
  shift 2
  echo "=== $name"
  t=$(now)
  "$@"
  rc=$?
  printf '%6s s    %-46s %s\n' "$(took "$t")" "$name" "$(mark $rc)" >>"$logs/$key.times"
  echo "=== $name: $(mark $rc)"
  return $rc
}

# gtest_shards BINARY N NAME: the binary's tests in N processes at once (GoogleTest's sharding),
# logged to build-logs/NAME-shard*.log: a process per test, as ctest runs them, costs the
# process's start-up (the sanitizers', the fixtures') 450 times: 35 CPU-s more for the
# optimised build. Three shards on two cores: GoogleTest deals the tests out in turn, and two
# shards came out a third apart. A hung test fails after 30 minutes.
gtest_shards() {
  local bin=$1 n=$2 name=$3 i rc=0 pids=()
  for ((i = 0; i < n; i++)); do
    GTEST_TOTAL_SHARDS=$n GTEST_SHARD_INDEX=$i timeout 1800 "$bin" --gtest_brief=1 >"$logs/$name-shard$i.log" 2>&1 &
    pids+=($!)
  done
  for i in "${!pids[@]}"; do
    wait "${pids[$i]}" || { rc=1; echo "--- shard $i of $n failed:"; cat "$logs/$name-shard$i.log"; }
  done
  [ $rc -ne 0 ] || tail -n 2 "$logs/$name"-shard*.log
  return $rc
}

# The native tests under AddressSanitizer and UndefinedBehaviorSanitizer (clang), then a short
# bounded fuzzing run of every reader, the archives and the check entry (`npm run fuzz` runs
# longer campaigns).
sanitizers() {
  rm -f "$logs/asan.times"
  # clang-14 and its runtimes come with the `rest` packages, installing beside it: wait for them
  # (while that install runs) on a machine that lacks them
  while ! dpkg -s clang-14 libclang-rt-14-dev >/dev/null 2>&1 && kill -0 "$apt_pid" 2>/dev/null; do sleep 2; done
  sub_phase asan "build: ASan + UBSan (clang)" bash scripts/fuzz.sh --build-only || return 1
  export ISOSCOPE_TEST_SCALE="$SANITIZER_SCALE"
  sub_phase asan "native tests under ASan + UBSan (scale $SANITIZER_SCALE)" gtest_shards build-fuzz/isoscope_tests 3 asan || return 1
  sub_phase asan "fuzzing ($FUZZ_SECONDS s per target)" bash scripts/fuzz.sh --seconds "$FUZZ_SECONDS" --jobs 2
}

phase "setup: npm packages and the native toolchain" bash scripts/setup.sh native
background apt "setup: Emscripten, Chromium, clang, database servers" bash scripts/setup.sh rest
# The sanitizer chain at the lowest priority from here on, on whatever the other phases leave of
# the two cores (the native build's compiler leaves little; the installs beside it, more).
background asan "sanitizers: build, native tests, fuzzing" nice -n 19 bash -c "$(declare -f now took mark sub_phase gtest_shards sanitizers); logs=$logs apt_pid=${bg_pid[apt]} SANITIZER_SCALE=$SANITIZER_SCALE FUZZ_SECONDS=$FUZZ_SECONDS sanitizers"
phase "build: native" bash scripts/build.sh native
phase "native tests" gtest_shards build/isoscope_tests 3 native
finish apt

# isoscope run against throwaway PostgreSQL, MariaDB, etcd and Redis servers (scripts/db.sh) and SQLite.
# A hung test fails after --test-timeout (ms) instead of holding the run for ever; no test is near it.
background db "database tests (isoscope run, isoscope hermitage)" node --test --test-timeout=600000 --test-concurrency=1 tests/db/
phase "build: wasm" bash scripts/build.sh wasm
phase "build: web" bash scripts/build.sh web
phase "wasm tests (node)" node --test --test-timeout=600000 tests/wasm/
phase "web type check (tsc)" npx tsc -p web/tsconfig.json
phase "web unit tests (vitest)" npx vitest run --config web/vitest.config.ts
# one test file at a time: Chromium keeps both cores busy on its own (two files at a time took
# as long and 9 % more CPU, which the sanitizer chain beside it then lacks)
phase "browser tests (chromium)" node --test --test-timeout=600000 --test-concurrency=1 tests/browser/
# The database tests mostly wait (for locks, for the servers): they go on beside the browser tests.
finish db
finish asan

echo
echo "=== wall time of each phase (background phases overlap the ones after them)"
printf '%s\n' "${summary[@]}"
echo "total: $(( $(date +%s) - start_all )) s"
if [ $status -eq 0 ]; then echo "all suites passed"; else echo "some suites FAILED"; fi
exit $status
