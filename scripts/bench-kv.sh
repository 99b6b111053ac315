#!/usr/bin/env bash
# The runner's rate against Redis and etcd on loopback, beside each one's own benchmark tool
# doing the same operations (docs/benchmarks.md, "isoscope run against redis-benchmark and etcd"):
#   Redis: transactions of one write (MULTI, SET, EXEC in one round trip, WATCH-free) from 20
#          sessions, beside redis-benchmark -t set with 20 clients (one SET a round trip).
#   etcd:  transactions of one write (one Txn request putting a key, over gRPC: an HTTP/2
#          connection a session) from 100 sessions, beside etcdctl check perf (puts over gRPC from its own clients at the
#          load given, 60 s; load l asks 8,000 writes/s of 500 clients: more than one member on
#          two cores gives, so it measures the most it can).
# Rounds alternate the tool and isoscope run so both see the same machine; the history is
# recorded (and checked) as in any run.
#   scripts/bench-kv.sh [SECONDS] [ROUNDS] [PERF_LOAD]   (default 10 s, 3 rounds, etcd load l)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-10}
rounds=${2:-3}
load=${3:-l}
export ISOSCOPE_DB_DIR=${ISOSCOPE_DB_DIR:-/tmp/isoscope-db}/bench-kv
out=$(mktemp)
trap 'rm -f "$out"; scripts/db.sh redis stop; scripts/db.sh etcd stop' EXIT
rate() { node -e 'const m=JSON.parse(require("fs").readFileSync(process.argv[1])).recorded_by;console.log((m.committed/m.seconds).toFixed(0))' "$1"; }

redis=$(scripts/db.sh redis start)
port=$(node -e 'console.log(new URL(process.argv[1]).port)' "$redis")
pass=$(node -e 'console.log(decodeURIComponent(new URL(process.argv[1]).password))' "$redis")
for r in $(seq 1 "$rounds"); do
  rps=$(redis-benchmark -h 127.0.0.1 -p "$port" -a "$pass" -c 20 -n $((20000 * seconds)) -r 10000 -t set -q 2>/dev/null | tr '\r' '\n' |
        sed -n 's/^SET: \([0-9.]*\) requests per second.*/\1/p')
  echo "round $r: redis-benchmark SET: $rps/s"
  build/isoscope run "$redis" --mix 0,1,0 --ops 1 --keys 10000 --sessions 20 --duration "$seconds" --out "$out" --level RC >/dev/null 2>&1
  echo "round $r: isoscope run, one-write transactions (history recorded): $(rate "$out")/s"
done

# A fresh member each round: check perf leaves a large keyspace behind, which slows what follows.
for r in $(seq 1 "$rounds"); do
  scripts/db.sh etcd stop
  etcd=$(scripts/db.sh etcd start)
  build/isoscope run "$etcd" --mix 0,1,0 --ops 1 --keys 10000 --sessions 100 --duration "$seconds" --out "$out" --level RC >/dev/null 2>&1
  echo "round $r: isoscope run, one-write transactions (history recorded): $(rate "$out")/s"
  { etcdctl --endpoints "${etcd#etcd://}" check perf --load "$load" 2>&1 || true; } | tr '\r' '\n' | { grep -E "Throughput" || true; } | sed "s/^/round $r: etcdctl check perf --load $load: /"
done
