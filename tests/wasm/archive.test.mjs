// Archives through the wasm module's load(): the C++ core expands zip and gzip itself, the one
// implementation the app's worker and the CLI share. The zips come from fflate (an independent
// writer, also what the browser tests use); the gzip from Node's zlib.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import path from 'node:path';
import { zipSync } from 'fflate';
import { loadIsoscope, readInput, corpusRoot, needsCorpus, value } from './load-module.mjs';

const mod = await loadIsoscope();
const load = (names, blobs) => JSON.parse(mod.load(names, blobs, ''));

function zipDirectory(dir, level) {
  const { names, blobs } = readInput(dir);
  const entries = { [`${path.basename(dir)}/`]: new Uint8Array(0), '__MACOSX/._x': new Uint8Array(1) };
  names.forEach((n, i) => { entries[`${path.basename(dir)}/${path.basename(n)}`] = blobs[i]; });
  return zipSync(entries, { level });
}

for (const dir of ['cobra/cock-G2', 'cobra/chengRW-100']) {
  test(`a zip of ${dir} loads with the directory's counts and verdicts`, needsCorpus, () => {
    const { names, blobs } = readInput(path.join(corpusRoot, dir));
    const plain = load(names, blobs);
    assert.equal(plain.ok, true);
    const plainSer = value(mod.checkLevel('SER', 0, 5)).verdict;
    for (const level of [0, 6, 9]) {
      const r = load([`${path.basename(dir)}.zip`], [zipDirectory(path.join(corpusRoot, dir), level)]);
      assert.equal(r.ok, true, JSON.stringify(r.error));
      for (const k of ['format', 'sessions', 'transactions', 'operations', 'keys']) assert.equal(r.value[k], plain.value[k], `${k}, level ${level}`);
      assert.equal(value(mod.checkLevel('SER', 0, 5)).verdict, plainSer);
    }
  });
}

test('a .gz of a history loads like the file', needsCorpus, () => {
  const json = readFileSync(path.join(corpusRoot, 'textbook/lost-update.json'));
  const plain = load(['lost-update.json'], [new Uint8Array(json)]);
  const r = load(['lost-update.json.gz'], [new Uint8Array(gzipSync(json))]);
  assert.equal(r.ok, true, JSON.stringify(r.error));
  assert.deepEqual({ ...r.value, parse_ms: 0 }, { ...plain.value, parse_ms: 0 });
  assert.equal(value(mod.checkLevel('SI', 0, 5)).verdict, 'fail');
});

test('a damaged archive is an error naming the archive, entry and byte', needsCorpus, () => {
  const zip = zipDirectory(path.join(corpusRoot, 'cobra/cock-G2'), 6);
  const r1 = load(['g2.zip'], [zip.subarray(0, zip.length - 30)]);
  assert.equal(r1.ok, false);
  assert.equal(r1.error.file, 'g2.zip');
  assert.match(r1.error.message, /end-of-central-directory/);
  // the first entry's data: flip bytes in the middle of its deflate stream
  const bad = zip.slice();
  for (let i = 200; i < 240; i++) bad[i] ^= 0x55;
  const r2 = load(['g2.zip'], [bad]);
  assert.equal(r2.ok, false);
  assert.match(r2.error.file, /^g2\.zip, entry cock-G2\//);
  assert.equal(typeof r2.error.offset, 'number');
  assert.match(r2.error.text, /byte \d+/);
  const r3 = load(['e.zip'], [zipSync({ '.DS_Store': new Uint8Array(3) })]);
  assert.equal(r3.ok, false);
  assert.match(r3.error.message, /holds no files/);
  const gz = gzipSync(Buffer.from('{"sessions": []}'));
  const r4 = load(['h.json.gz'], [gz.subarray(0, gz.length - 4)]);
  assert.equal(r4.ok, false);
  assert.match(r4.error.message, /trailer/);
});

// Hostile input: a gzip bomb (48 members of 64 MiB of zeros: 3 GiB from 3 MB) is refused with
// an error naming the file, not an abort, and the module loads the next history as usual.
test('a gzip bomb is refused cleanly and the module stays usable', () => {
  const member = gzipSync(Buffer.alloc(64 << 20), { level: 9 });
  const bomb = Buffer.concat(Array.from({ length: 48 }, () => member));
  const r = load(['bomb.json.gz'], [new Uint8Array(bomb)]);
  assert.equal(r.ok, false);
  assert.match(r.error.text ?? r.error.message, /bomb\.json\.gz/);
  assert.match(r.error.text ?? r.error.message, /limit|memory/);
  const next = load(['h.json'], [new TextEncoder().encode('{"format": "isoscope/1", "sessions": [[[["w", "x", 1]]]]}')]);
  assert.equal(next.ok, true, JSON.stringify(next.error));
  assert.equal(value(mod.checkLevel('SER', 0, 1)).verdict, 'pass');
});
