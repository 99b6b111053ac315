#!/usr/bin/env bash
# `npm run fuzz -- [--minutes N | --seconds N] [--jobs J] [--build-only] [TARGET ...]`: builds the
# libFuzzer targets and the native tests with ASan + UBSan (clang-14; build-fuzz/; --build-only
# stops there, for the test run), seeds each target from the test fixtures, the shared
# corpus when it is there, generated histories and tests/fuzz/make-seeds.mjs (with the
# dictionary tests/fuzz/isoscope.dict), and runs each for the given time (default 10
# minutes), J at a time (default 2). Prints executions per second and coverage per target;
# exits 1 when any target finds a crash (kept in build-fuzz/findings/<target>/).
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH=600
JOBS=2
BUILD_ONLY=0
TARGETS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --minutes) SECONDS_EACH=$(( $2 * 60 )); shift 2 ;;
    --seconds) SECONDS_EACH=$2; shift 2 ;;
    --jobs) JOBS=$2; shift 2 ;;
    --build-only) BUILD_ONLY=1; shift ;;
    *) TARGETS+=("$1"); shift ;;
  esac
done

# -O1 with line tables only: what the sanitizers' reports need (file and line of each frame), at
# half the compile time of -O2 -g (the test bodies build at -O0: CMakeLists.txt).
CC=clang-14 CXX=clang++-14 cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" -DISOSCOPE_FUZZ=ON >/dev/null
cmake --build build-fuzz -j "${JOBS}" --target fuzz_targets isoscope isoscope_tests >/dev/null
[ "$BUILD_ONLY" = 1 ] && exit 0
# every target, by default (the binary's table: tests/fuzz/fuzz_read.cpp)
[ ${#TARGETS[@]} -gt 0 ] || mapfile -t TARGETS < <(ISOSCOPE_FUZZ_TARGET=list build-fuzz/fuzz_read 2>/dev/null)

# Seeds: every small file of the fixtures and the corpus (a reader rejects the others fast, and
# libFuzzer keeps what adds coverage), plus generated histories and a zip and gzip of one.
seeds=build-fuzz/seeds
if [ ! -d "$seeds" ]; then
  mkdir -p "$seeds"
  i=0
  while IFS= read -r f; do
    i=$((i + 1)); cp "$f" "$seeds/s$i-$(basename "$f")"
  done < <(find tests/fixtures ../shared/corpus -type f -size -64k 2>/dev/null | sort | head -400)
  for fmt in isoscope plume; do
    build-fuzz/isoscope generate --sessions 3 --txns 4 --ops 1-4 --keys 3 --target random --format "$fmt" --seed 1 "$seeds/gen.$fmt" >/dev/null
  done
  build-fuzz/isoscope generate --sessions 3 --txns 4 --list-append --seed 2 "$seeds/gen-lists.json" >/dev/null
  (cd "$seeds" && gzip -k -f gen.isoscope && python3 -c "import zipfile; z=zipfile.ZipFile('gen.zip','w',zipfile.ZIP_DEFLATED); z.write('gen.plume'); z.close()")
  # Every text seed with CR-only and CRLF line endings too (a comment once ran to
  # an LF that a CR-only file never has); the text targets also check that endings never matter.
  for f in "$seeds"/*; do
    if grep -Iq . "$f" && grep -q . "$f" && ! grep -q $'\r' "$f"; then
      tr '\n' '\r' <"$f" >"$f.cr"
      sed 's/$/\r/' "$f" >"$f.crlf"
    fi
  done
fi

# What found earlier crashes, regenerated every run (cheap): long runs of one construct, EDN
# discards and tags, CR-only line endings, inputs no detector recognises, folders.
rm -rf build-fuzz/seeds-generated
node tests/fuzz/make-seeds.mjs build-fuzz/seeds-generated >/dev/null

status=0
run_target() {
  local t=$1 dir=build-fuzz/findings/$1
  mkdir -p "$dir" "build-fuzz/corpora/$t"
  ISOSCOPE_FUZZ_TARGET=$t build-fuzz/fuzz_read -max_total_time="$SECONDS_EACH" -rss_limit_mb=2560 -timeout=20 -max_len=65536 \
    -dict=tests/fuzz/isoscope.dict -print_final_stats=1 -artifact_prefix="$dir/" \
    "build-fuzz/corpora/$t" "$seeds" build-fuzz/seeds-generated >"$dir/log" 2>&1 || true
}
running=0
for t in "${TARGETS[@]}"; do
  run_target "$t" &
  running=$((running + 1))
  if [ "$running" -ge "$JOBS" ]; then wait -n; running=$((running - 1)); fi
done
wait

printf '%-14s %12s %10s %8s %8s %s\n' target executions exec/s cov ft findings
for t in "${TARGETS[@]}"; do
  log=build-fuzz/findings/$t/log
  runs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' || echo 0)
  rate=$(grep -oE 'stat::average_exec_per_sec: *[0-9]+' "$log" | grep -oE '[0-9]+$' || echo 0)
  cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+' || echo 0)
  ft=$(grep -oE 'ft: [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+' || echo 0)
  found=$(find "build-fuzz/findings/$t" -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' | wc -l)
  printf '%-14s %12s %10s %8s %8s %s\n' "$t" "$runs" "$rate" "$cov" "$ft" "$found"
  [ "$found" -eq 0 ] || status=1
done
exit $status
