// Elle operations without :process are sessions of their own in the wasm module too (issue 22,
// class 3): a :process equal to the id the reader once made up for them (INT64_MIN/2) merged
// two sessions, and a serializable history failed RA and WCC.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadIsoscope, value } from './load-module.mjs';

const mod = await loadIsoscope();
const enc = new TextEncoder();

test('a :process of -4611686018427387904 next to an operation without :process keeps two sessions', () => {
  const text = '{:type :ok, :f :txn, :value [[:r :x 1]]}\n' +
    '{:type :ok, :f :txn, :value [[:w :x 1]], :process -4611686018427387904}\n';
  const r = JSON.parse(mod.load(['history.edn'], [enc.encode(text)], 'elle'));
  assert.equal(r.ok, true, JSON.stringify(r.error));
  assert.equal(r.value.sessions, 2);
  const levels = value(mod.check('RA,WCC,SER', 0, 10)).levels;
  assert.equal(levels.RA.verdict, 'pass');
  assert.equal(levels.WCC.verdict, 'pass');
  assert.equal(levels.SER.verdict, 'pass');
});
