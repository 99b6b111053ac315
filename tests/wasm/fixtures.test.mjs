// The repository's own fixtures through the wasm module: the lost update in every format the
// core reads (tests/fixtures/formats), detected and decided as the definitions say, with or
// without ../shared/corpus.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadIsoscope, readInput, repoRoot, value } from './load-module.mjs';

const dir = path.join(repoRoot, 'tests/fixtures/formats');
const expected = JSON.parse(readFileSync(path.join(dir, 'expected.json'), 'utf8'));
const mod = await loadIsoscope();

test('every format the core reads has a fixture, and each gives the lost update its verdicts', () => {
  // object histories (jepsen, jepsen-log) hold no transactions: tests/wasm/registers.test.mjs has theirs
  const transactional = value(mod.formats()).map((f) => f.name).filter((n) => n !== 'jepsen' && n !== 'jepsen-log');
  assert.deepEqual(Object.values(expected.files).sort(), transactional.sort());
  for (const [file, format] of Object.entries(expected.files)) {
    const { names, blobs } = readInput(path.join(dir, file));
    const input = value(mod.load(names, blobs, ''));
    assert.equal(input.format, format, file);
    const result = value(mod.check(Object.keys(expected.verdicts).join(','), 0, 5));
    for (const [level, verdict] of Object.entries(expected.verdicts)) assert.equal(result.levels[level].verdict, verdict, `${file} ${level}`);
  }
});
