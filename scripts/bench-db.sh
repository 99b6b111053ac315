#!/usr/bin/env bash
# The runner's committed transactions per second against PostgreSQL on loopback, beside pgbench
# running the same statements (docs/benchmarks.md, "isoscope run against pgbench"): a 10,000-row
# table, 20 clients, every transaction reading and writing one random key at READ COMMITTED,
# for the same time. Rounds alternate pgbench and isoscope run so both see the same machine;
# pgbench runs one thread per client (-j 20), as the runner runs one thread per session.
#   scripts/bench-db.sh [SECONDS] [ROUNDS]     (default 10 s, 3 rounds)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-10}
rounds=${2:-3}
url=$(scripts/db.sh postgres start)
user=$(node -e 'const u=new URL(process.argv[1]);console.log(u.username)' "$url")
export PGPASSWORD=$(node -e 'const u=new URL(process.argv[1]);console.log(decodeURIComponent(u.password))' "$url")
host=127.0.0.1
port=$(node -e 'console.log(new URL(process.argv[1]).port)' "$url")
db=isoscope
psql -h $host -p "$port" -U "$user" -d $db -qAt -c "SET client_min_messages = warning; DROP TABLE IF EXISTS pgbench_kv; CREATE TABLE pgbench_kv (k bigint PRIMARY KEY, v bigint NOT NULL); INSERT INTO pgbench_kv SELECT g, 0 FROM generate_series(0, 9999) g" -c "VACUUM ANALYZE pgbench_kv"
script=$(mktemp)
cat > "$script" <<'SQL'
\set k random(0, 9999)
\set v random(1, 1000000000)
BEGIN ISOLATION LEVEL READ COMMITTED;
SELECT v FROM pgbench_kv WHERE k = :k;
UPDATE pgbench_kv SET v = :v WHERE k = :k;
COMMIT;
SQL
out=$(mktemp)
for r in $(seq 1 "$rounds"); do
  for mode in simple prepared; do
    tps=$(pgbench -n -h $host -p "$port" -U "$user" -c 20 -j 20 -T "$seconds" -M $mode -f "$script" $db 2>/dev/null |
          sed -n 's/^tps = \([0-9.]*\).*/\1/p')
    echo "round $r: pgbench -M $mode: $tps tps"
  done
  line=$(build/isoscope run "$url" --isolation read-committed --mix 0,0,1 --ops 2 --keys 10000 --sessions 20 \
         --duration "$seconds" --out "$out" --level RC | head -1)
  committed=$(node -e 'const m=JSON.parse(require("fs").readFileSync(process.argv[1])).recorded_by;console.log((m.committed/m.seconds).toFixed(1))' "$out")
  echo "round $r: isoscope run (history recorded): $committed committed/s   [$line]"
done
psql -h $host -p "$port" -U "$user" -d $db -qAt -c "DROP TABLE pgbench_kv"
rm -f "$script" "$out"
