#!/usr/bin/env node
// Copies the textbook histories of the shared corpus into public/examples/ for the web app's
// examples gallery, with an index.json (title, note, expected verdicts), followed by the
// histories `isoscope run` recorded from real databases (tests/fixtures/db/, each noted with
// the database, its version, the isolation level and the command), and Hermitage's tables of
// real databases (tests/fixtures/hermitage/, `isoscope hermitage --json`, each noted with the
// database, its version and the command; scripts/hermitage-fixtures.sh remakes them). Run at build time;
// the copies are build output (never commit them). Corpus: $ISOSCOPE_CORPUS or ../shared/corpus.
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const corpus = resolve(process.env.ISOSCOPE_CORPUS ?? join(repo, '..', 'shared', 'corpus'));
const src = join(corpus, 'textbook');
const out = join(repo, 'public', 'examples');

if (!existsSync(src)) {
  console.error(`copy-examples: ${src} not found (set ISOSCOPE_CORPUS); the gallery will be empty`);
  process.exit(process.env.ISOSCOPE_EXAMPLES_OPTIONAL ? 0 : 1);
}
const manifest = JSON.parse(readFileSync(join(corpus, 'manifest.json'), 'utf8'));
const byPath = new Map(manifest.entries.map((e) => [e.path, e]));
const order = ['RC', 'RR', 'RA', 'CC', 'PC', 'SI', 'SER', 'SSER'];

const title = (file) => {
  const base = file.replace(/\.json$/, '');
  const dbcop = base.startsWith('dbcop-');
  const words = base.replace(/^dbcop-/, '').split('-');
  const t = words.map((w, i) => (w === 'rc' || w === 'cc' ? w.toUpperCase() : i === 0 ? w[0].toUpperCase() + w.slice(1) : w)).join(' ');
  return dbcop ? `${t} (dbcop)` : t;
};

// The native CLI of this build, when there is one: it fills the verdicts the manifest leaves out
// (RR for the older textbook entries), tells identical histories apart, and checks the examples
// in other formats. Without it the gallery has the manifest's verdicts only.
const cli = join(repo, 'build', 'isoscope');
const run = (args) => {
  if (!existsSync(cli)) return null;
  const r = spawnSync(cli, args, { encoding: 'utf8', maxBuffer: 64 << 20 });
  return r.status === 0 || r.status === 1 ? r.stdout : null;
};
const verdicts = (paths) => {
  const out = run(['check', '--json', '--level', order.join(','), ...paths.slice(0, 1)]);
  if (!out) return {};
  const levels = JSON.parse(out).levels ?? {};
  return Object.fromEntries(order.filter((l) => levels[l] && levels[l].verdict !== 'n/a').map((l) => [l, levels[l].verdict]));
};

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const index = [];
const seen = new Map();  // canonical text -> the example that has it
for (const file of readdirSync(src).filter((f) => f.endsWith('.json')).sort((a, b) => Number(a.startsWith('dbcop-')) - Number(b.startsWith('dbcop-')) || a.localeCompare(b))) {
  // no two identical histories in the gallery (dbcop-dirty-read.json is aborted-read.json)
  const canonical = run(['convert', '--to', 'isoscope', join(src, file), '-']) ?? readFileSync(join(src, file), 'utf8');
  if (seen.has(canonical)) { console.log(`copy-examples: ${file} is ${seen.get(canonical)}: left out`); continue; }
  seen.set(canonical, file);
  copyFileSync(join(src, file), join(out, file));
  const e = byPath.get(`textbook/${file}`) ?? {};
  const computed = order.some((l) => !e.expect?.[l]) ? verdicts([join(src, file)]) : {};
  const expect = Object.fromEntries(order.filter((l) => e.expect?.[l] ?? computed[l]).map((l) => [l, e.expect?.[l] ?? computed[l]]));
  index.push({ file, title: title(file), note: e.note, expect, format: 'isoscope' });
}
// the serial history first, then alphabetical
index.sort((a, b) => (a.file === 'serial.json' ? -1 : b.file === 'serial.json' ? 1 : a.title.localeCompare(b.title)));
// Then the textbook tables (rows that come and go: phantoms, predicate skews), with the verdicts
// their manifest gives.
const tables = join(repo, 'tests', 'fixtures', 'tables');
for (const e of JSON.parse(readFileSync(join(tables, 'manifest.json'), 'utf8')).entries) {
  copyFileSync(join(tables, e.file), join(out, e.file));
  index.push({ file: e.file, title: e.title, note: e.note, expect: e.expect, format: 'isoscope' });
}
// Then the real databases, in the manifest's order.
const recorded = join(repo, 'tests', 'fixtures', 'db');
for (const e of JSON.parse(readFileSync(join(recorded, 'manifest.json'), 'utf8')).entries) {
  const by = JSON.parse(readFileSync(join(recorded, e.file), 'utf8')).recorded_by;
  copyFileSync(join(recorded, e.file), join(out, e.file));
  const note = `Recorded by isoscope run on ${by.database} ${by.version} at ${by.isolation}: ${by.sessions} sessions, ` +
    `${by.committed} committed, ${by.aborted} aborted. Command: ${by.command}`;
  const version = by.version.split(/[ -]/)[0];  // "15.18 (Debian 15.18-0+deb12u1)" -> "15.18"
  index.push({ file: e.file, title: e.title, note, expect: e.expect, format: 'isoscope',
    recorded: { database: by.database, version, isolation: by.isolation, command: by.command } });
}

// Then Hermitage's tables, in their manifest's order: the page shows each as its table.
const hermitage = join(repo, 'tests', 'fixtures', 'hermitage');
for (const e of JSON.parse(readFileSync(join(hermitage, 'manifest.json'), 'utf8')).entries) {
  copyFileSync(join(hermitage, e.file), join(out, e.file));
  index.push({ file: e.file, title: e.title, note: e.note, format: 'hermitage',
    hermitage: { database: e.database, version: e.version.split(/[ -]/)[0], command: e.command } });
}

// One history in each of the other formats people bring (the repository's format fixtures), so
// they see theirs is welcome: a folder example lists its files.
const fixtures = join(repo, 'tests', 'fixtures', 'formats');
const others = [
  { file: 'lost-update.edn', title: 'Lost update (Elle / Jepsen EDN)', format: 'elle', from: ['lost-update.edn'] },
  { file: 'lost-update.plume.txt', title: 'Lost update (plume / PolySI text)', format: 'plume', from: ['lost-update.plume.txt'] },
  { file: 'lost-update.dbcop.txt', title: 'Lost update (dbcop text)', format: 'dbcop-text', from: ['lost-update.dbcop.txt'] },
  { file: 'dbcop-run', title: 'A dbcop run (history.bincode)', format: 'dbcop-bincode', from: ['dbcop-bincode/history.bincode'] },
  { file: 'cobra-logs', title: 'Cobra client logs (a folder)', format: 'cobra', from: ['cobra/T1.log', 'cobra/T2.log', 'cobra/T3.log'] },
];
for (const o of others) {
  if (!o.from.every((f) => existsSync(join(fixtures, f)))) continue;
  const folder = o.from.length > 1 || o.format === 'dbcop-bincode';
  const files = o.from.map((f) => (folder ? `${o.file}/${f.split('/').pop()}` : o.file));
  o.from.forEach((f, i) => { mkdirSync(dirname(join(out, files[i])), { recursive: true }); copyFileSync(join(fixtures, f), join(out, files[i])); });
  const expect = verdicts([folder ? join(out, o.file) : join(out, files[0])]);
  index.push({ file: o.file, title: o.title, format: o.format, expect, ...(folder ? { files } : {}) });
}
writeFileSync(join(out, 'index.json'), JSON.stringify(index, null, 1) + '\n');
console.log(`copy-examples: ${index.length} examples (textbook, recorded, Hermitage tables, other formats) -> public/examples/`);

// The reference documents the page links to (levels and formats, the command line, the API),
// served beside the app.
const docsOut = join(repo, 'public', 'docs');
rmSync(docsOut, { recursive: true, force: true });
mkdirSync(docsOut, { recursive: true });
for (const d of ['formats.md', 'cli.md', 'wasm-api.md', 'result-json.md']) if (existsSync(join(repo, 'docs', d))) copyFileSync(join(repo, 'docs', d), join(docsOut, d));
