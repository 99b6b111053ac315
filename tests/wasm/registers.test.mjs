// Object histories through the wasm module: Knossos's and Porcupine's published examples
// (tests/fixtures/jepsen) give the verdicts the native tests expect; the lossless form a share
// link holds (Jepsen EDN) reads back to the same verdict; the timeline names keys and processes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { loadIsoscope, readInput, repoRoot, value } from './load-module.mjs';

const dir = path.join(repoRoot, 'tests/fixtures/jepsen');
const mod = await loadIsoscope();
const cases = {
  'porcupine-etcd_000.log': ['jepsen-log', 'fail'],
  'porcupine-etcd_002.log': ['jepsen-log', 'pass'],
  'porcupine-kv-c01-bad.txt': ['jepsen', 'fail'],
  'porcupine-kv-c01-ok.txt': ['jepsen', 'pass'],
  'knossos-immediate-failure.edn': ['jepsen', 'fail'],
  'knossos-bad-analysis.edn': ['jepsen', 'fail'],
  'knossos-rethink-fail-minimal.edn': ['jepsen', 'fail'],
  'knossos-cas-register-bug.edn': ['jepsen', 'pass'],
  'knossos-memstress3-30.edn': ['jepsen', 'pass'],
  'knossos-multi-register.edn': ['jepsen', 'fail'],  // valid only from x = 0, y = 0 (SOURCES.md): see below
};

test('an initial value gives Knossos\'s multi-register its stated verdict, and is refused where it means nothing', () => {
  const { names, blobs } = readInput(path.join(dir, 'knossos-multi-register.edn'));
  assert.equal(value(mod.load(names, blobs, '', { initial: '0' })).initial, 0);
  assert.equal(value(mod.check('LIN', 0, 5)).levels.LIN.verdict, 'pass');
  value(mod.load(names, blobs, '', {}));
  assert.equal(value(mod.check('LIN', 0, 5)).levels.LIN.verdict, 'fail');
  const mutex = new TextEncoder().encode('{:type :invoke, :f :acquire, :process 0}\n{:type :ok, :f :acquire, :process 0}\n');
  assert.match(JSON.parse(mod.load(['m.edn'], [mutex], '', { initial: '0' })).error.message, /mutex starts free/);
  const txns = new TextEncoder().encode('{"sessions": [[[["w", 1, 1]]]]}');
  const e = JSON.parse(mod.load(['t.json'], [txns], '', { initial: '0' })).error;
  assert.equal(e.file, 't.json');
  assert.match(e.message, /history of transactions/);
});

test('convert writes an object history only as Jepsen EDN', () => {
  const { names, blobs } = readInput(path.join(dir, 'knossos-bad-analysis.edn'));
  value(mod.load(names, blobs, ''));
  const edn = value(mod.convert('jepsen'));
  assert.equal(value(mod.load(['back.edn'], [new TextEncoder().encode(edn)], '')).format, 'jepsen');
  assert.equal(value(mod.check('LIN', 0, 5)).levels.LIN.verdict, 'fail');
  value(mod.load(['t.json'], [new TextEncoder().encode('{"sessions": [[[["w", 1, 1]]]]}')], ''));
  assert.match(JSON.parse(mod.convert('jepsen')).error.message, /of transactions/);
});

test('the published examples give their verdicts, and read back from their share form', () => {
  for (const [file, [format, verdict]] of Object.entries(cases)) {
    const { names, blobs } = readInput(path.join(dir, file));
    assert.equal(value(mod.load(names, blobs, '')).format, format, file);
    const r = value(mod.check('LIN,SER', 0, 5));
    assert.equal(r.levels.LIN.verdict, verdict, file);
    assert.equal(r.levels.SER.verdict, 'n/a', file);
    if (verdict === 'fail') assert.ok(Array.isArray(r.levels.LIN.lin_prefix) || /is empty/.test(r.levels.LIN.anomalies[0].explanation), file);
    const t = value(mod.timeline());
    assert.ok(t.object_keys.length >= 1 && t.object_key.length === t.start.length, file);
    const edn = value(mod.convert('isoscope'));
    assert.equal(value(mod.load(['shared-history.json'], [new TextEncoder().encode(edn)], '')).format, 'jepsen', file);
    assert.equal(value(mod.check('LIN', 0, 5)).levels.LIN.verdict, verdict, `${file} after its share form`);
  }
});
