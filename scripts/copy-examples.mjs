#!/usr/bin/env node
// Copies the textbook histories of the shared corpus into public/examples/ for the web app's
// examples gallery, with an index.json (title, note, expected verdicts), followed by the
// histories `isoscope run` recorded from real databases (tests/fixtures/db/, each noted with
// the database, its version, the isolation level and the command). Run at build time;
// the copies are build output (never commit them). Corpus: $ISOSCOPE_CORPUS or ../shared/corpus.
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
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

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const index = [];
for (const file of readdirSync(src).filter((f) => f.endsWith('.json')).sort()) {
  copyFileSync(join(src, file), join(out, file));
  const e = byPath.get(`textbook/${file}`) ?? {};
  const expect = Object.fromEntries(order.filter((l) => e.expect?.[l]).map((l) => [l, e.expect[l]]));
  index.push({ file, title: title(file), note: e.note, expect });
}
// the serial history first, then alphabetical
index.sort((a, b) => (a.file === 'serial.json' ? -1 : b.file === 'serial.json' ? 1 : a.title.localeCompare(b.title)));
// Then the real databases, in the manifest's order.
const recorded = join(repo, 'tests', 'fixtures', 'db');
for (const e of JSON.parse(readFileSync(join(recorded, 'manifest.json'), 'utf8')).entries) {
  const by = JSON.parse(readFileSync(join(recorded, e.file), 'utf8')).recorded_by;
  copyFileSync(join(recorded, e.file), join(out, e.file));
  const note = `Recorded by isoscope run on ${by.database} ${by.version} at ${by.isolation}: ${by.sessions} sessions, ` +
    `${by.committed} committed, ${by.aborted} aborted. Command: ${by.command}`;
  index.push({ file: e.file, title: e.title, note, expect: e.expect });
}
writeFileSync(join(out, 'index.json'), JSON.stringify(index, null, 1) + '\n');
console.log(`copy-examples: ${index.length} histories (textbook and recorded) -> public/examples/`);
