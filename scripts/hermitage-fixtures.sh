#!/usr/bin/env bash
# Remakes tests/fixtures/hermitage/: Hermitage's table of each database scripts/db.sh starts
# (PostgreSQL, MariaDB) and of SQLite, as `isoscope hermitage TARGET --json` writes it, and the
# folder's manifest.json (each table's title in the gallery, and a note naming the database, its
# version and the command). Run it when Hermitage's cases change (native/runner/hermitage_cases.cpp).
#
#   scripts/hermitage-fixtures.sh        with build/isoscope (ISOSCOPE_CLI: another binary)
#
# The servers are started in a data folder of this script's own (ISOSCOPE_DB_DIR, default a new
# temporary folder), so a server someone else runs is neither used nor stopped, and are stopped
# at the end, whatever happens. The JSON files are the command's output as it printed it.
set -euo pipefail
cd "$(dirname "$0")/.."
cli=${ISOSCOPE_CLI:-build/isoscope}
out=tests/fixtures/hermitage
[ -x "$cli" ] || { echo "hermitage-fixtures: $cli is missing (scripts/build.sh native, or set ISOSCOPE_CLI)" >&2; exit 2; }
cli=$(realpath "$cli")

work=$(mktemp -d)
chmod 755 "$work"  # the servers run as a user of their own (scripts/db.sh), under it
export ISOSCOPE_DB_DIR=${ISOSCOPE_DB_DIR:-$work/db}
stop_servers() {
  bash scripts/db.sh postgres stop || true
  bash scripts/db.sh mariadb stop || true
  rm -rf "$work"
}
trap stop_servers EXIT

# run KIND FILE TARGET: FILE gets `isoscope hermitage TARGET --json` (the command fails on a case
# that could not run, and so does this script)
run() {
  echo "hermitage-fixtures: $1" >&2
  (cd "$work" && "$cli" hermitage "$3" --json) > "$work/$2"
}
url=$(bash scripts/db.sh postgres start)
run postgres postgresql.json "$url"
bash scripts/db.sh postgres stop
url=$(bash scripts/db.sh mariadb start)
run mariadb mariadb.json "$url"
bash scripts/db.sh mariadb stop
run sqlite sqlite.json sqlite:hermitage.sqlite

# Named after the version each reports (postgresql-15.json, mariadb-10.11.json, sqlite.json),
# with the manifest copy-examples.mjs reads.
node --input-type=module - "$work" "$out" <<'EOF'
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
const [work, out] = process.argv.slice(2);
const made = new Date().toISOString().slice(0, 10);
const tables = [
  { from: 'postgresql.json', server: 'scripts/db.sh postgres start', name: (v) => `postgresql-${v.split('.')[0]}.json` },
  { from: 'mariadb.json', server: 'scripts/db.sh mariadb start', name: (v) => `mariadb-${v.split('.').slice(0, 2).join('.')}.json` },
  { from: 'sqlite.json', server: null, name: () => 'sqlite.json' },
];
mkdirSync(out, { recursive: true });
for (const f of readdirSync(out)) if (f.endsWith('.json')) rmSync(join(out, f));
const entries = tables.map((t) => {
  const doc = JSON.parse(readFileSync(join(work, t.from), 'utf8'));
  const file = t.name(doc.version);
  copyFileSync(join(work, t.from), join(out, file));
  const command = `isoscope hermitage ${doc.target} --json`;
  const where = t.server ? `the throwaway server \`${t.server}\` runs` : 'a new database file';
  return {
    file, title: `Hermitage's table: ${doc.database} ${doc.version.split(/[ -]/)[0]}`,
    database: doc.database, version: doc.version, command,
    note: `${doc.database} ${doc.version}, every isolation level it offers, on ${where}; made on ${made} by \`${command}\` (remade by scripts/hermitage-fixtures.sh).`,
  };
});
const manifest = {
  note: "Hermitage's tables as `isoscope hermitage TARGET --json` writes them (docs/hermitage.md), each decided by isoscope on the histories its cases recorded. Written by scripts/hermitage-fixtures.sh; the web app's gallery shows them (scripts/copy-examples.mjs).",
  entries,
};
writeFileSync(join(out, 'manifest.json'), JSON.stringify(manifest, null, 1) + '\n');
for (const e of entries) console.log(`hermitage-fixtures: ${join(out, e.file)}: ${e.database} ${e.version}`);
EOF
