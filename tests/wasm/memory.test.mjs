// The module's memory limits under Node: an input whose reading would not fit the heap, a gzip
// whose last member's ISIZE is 0 (bgzip and multi-member files: the size field cannot size the
// output) and a bomb are clean errors, and the next call on the same module works. The limits
// are met with small inputs on the 256 MB build (isoscope-small), the same code as the
// 4 GB one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { spawnSync } from 'node:child_process';
import { readFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadIsoscope, repoRoot, value } from './load-module.mjs';

const small = await loadIsoscope({ small: true });
const enc = new TextEncoder();
const load = (mod, name, bytes) => JSON.parse(mod.load([name], [bytes], ''));

function generated(args) {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'isoscope-')), 'h');
  const r = spawnSync(path.join(repoRoot, 'build/isoscope'), ['generate', ...args, file], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
  return readFileSync(file);
}
const tiny = enc.encode('{"initial": 0, "sessions": [[ [["w","x",1]] ], [ [["r","x",1]] ]]}');

test('a history too large for the heap is refused before reading, and the module goes on', () => {
  // 40 MB of canonical JSON needs about 8 x 40 MB to read: more than 256 MB
  const big = generated(['--sessions', 50, '--txns', 8000, '--ops', 10, '--keys', 10000, '--seed', 3]);
  assert.ok(big.length > 35e6, `${big.length} bytes`);
  const r = load(small, 'big.json', big);
  assert.equal(r.ok, false);
  assert.match(r.error.message, /needs about \d+ MB of memory, more than is available/);
  assert.equal(r.error.file, 'big.json');
  const next = load(small, 'h.json', tiny);
  assert.equal(next.ok, true, JSON.stringify(next.error));
  assert.equal(value(small.check('', 0, 5)).levels.SER.verdict, 'pass');
});

test('a multi-member gzip whose last ISIZE is 0 loads like the file', () => {
  const json = generated(['--sessions', 10, '--txns', 500, '--ops', 8, '--seed', 4]);
  const half = json.length >> 1;
  // three members: two halves of the history and an empty one (ISIZE 0) last
  const gz = Buffer.concat([gzipSync(json.subarray(0, half)), gzipSync(json.subarray(half)), gzipSync(Buffer.alloc(0))]);
  assert.equal(gz.readUInt32LE(gz.length - 4), 0);
  const plain = value(small.load(['h.json'], [new Uint8Array(json)], ''));
  const r = value(small.load(['h.json.gz'], [new Uint8Array(gz)], ''));
  for (const k of ['format', 'sessions', 'transactions', 'operations', 'keys']) assert.equal(r[k], plain[k], k);
});

test('a gzip bomb on the small heap is refused by the archive limit, and the module goes on', () => {
  const member = gzipSync(Buffer.alloc(16 << 20), { level: 9 });
  const bomb = Buffer.concat(Array.from({ length: 16 }, () => member)); // 256 MiB from 256 KB
  const r = load(small, 'bomb.json.gz', new Uint8Array(bomb));
  assert.equal(r.ok, false);
  assert.match(r.error.text, /bomb\.json\.gz/);
  assert.match(r.error.text, /limit|memory/);
  assert.equal(load(small, 'h.json', tiny).ok, true);
  assert.equal(value(small.checkLevel('RC', 0, 1)).verdict, 'pass');
});
