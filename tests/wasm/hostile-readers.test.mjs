// The Jepsen readers against hostile records through the wasm module (issue 35, classes 1, 2, 12
// and 13; tests/native/formats/hostile_readers_test.cpp holds the variants): the module gives the
// same located errors and verdicts as the command line, and its result JSON names the lines of
// the operations LIN's counterexample names.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadIsoscope, value } from './load-module.mjs';

const mod = await loadIsoscope();
const enc = (s) => new TextEncoder().encode(s);
const load = (name, text) => JSON.parse(mod.load([name], [enc(text)], ''));

const ednStale = (p1) =>
  '{:type :invoke, :f :write, :value 1, :process 0}\n' +
  '{:type :ok, :f :write, :value 1, :process 0}\n' +
  `{:type :invoke, :f :read, :value nil, :process ${p1}}\n` +
  `{:type :ok, :f :read, :value 2, :process ${p1}}\n`;
const logStale = (p1) =>
  'INFO  jepsen.util - 0\t:invoke\t:write\t1\n' +
  'INFO  jepsen.util - 0\t:ok\t:write\t1\n' +
  `INFO  jepsen.util - ${p1}\t:invoke\t:read\tnil\n` +
  `INFO  jepsen.util - ${p1}\t:ok\t:read\t2\n`;

test('a :process that is neither an integer nor the nemesis is a located error, not the nemesis', () => {
  for (const p of ['"1"', 'nil', '1.5', ':client', '[1]']) {
    const r = load('h.edn', ednStale(p));
    assert.ok(r.error, `EDN :process ${p} read: ${JSON.stringify(r).slice(0, 200)}`);
    assert.equal(r.error.line, 3, p);
    assert.match(r.error.message, /:process .*:nemesis/, p);
  }
  for (const p of [':client', '"1"', 'nil']) {
    const r = load('h.log', logStale(p));
    assert.ok(r.error, `log process ${p}`);
    assert.equal(r.error.line, 3, p);
  }
  // Every process a string (JSON): an error, where it used to pass with no operation at all.
  const json = '[{"type": "invoke", "f": "write", "value": 1, "process": "0"},\n' +
    ' {"type": "ok", "f": "write", "value": 1, "process": "0"}]\n';
  const j = load('h.json', json);
  assert.ok(j.error);
  assert.equal(j.error.line, 1);
  const elle = load('e.edn', '{:type :ok, :f :txn, :value [[:w :x 1]], :process "0"}\n');
  assert.ok(elle.error);
  assert.match(elle.error.message, /:nemesis/);
  // The nemesis is still no client, and a history of only its records passes.
  value(mod.load(['n.edn'], [enc(ednStale('1') + '{:type :info, :f :start, :value nil, :process :nemesis}\n')], ''));
  assert.equal(value(mod.check('LIN', 0, 5)).levels.LIN.verdict, 'fail');
  value(mod.load(['n.log'], [enc('INFO  jepsen.util - :nemesis\t:info\t:start\tnil\n')], ''));
  assert.equal(value(mod.check('LIN', 0, 5)).levels.LIN.verdict, 'pass');
});

test('no process number is a reader\'s mark, and a completion nobody invoked is an error', () => {
  value(mod.load(['m.log'], [enc(logStale('-9223372036854775808'))], ''));
  assert.equal(value(mod.check('LIN', 0, 5)).levels.LIN.verdict, 'fail');
  const orphan = load('o.edn', '{:type :invoke, :f :write, :value 1, :process 0, :time 1}\n{:type :ok, :f :read, :value 1, :process 1, :time 2}\n');
  assert.ok(orphan.error);
  assert.equal(orphan.error.line, 2);
  assert.match(orphan.error.message, /process 1 completes an operation it has not invoked/);
  value(mod.load(['t.edn'], [enc(
    '{:type :invoke, :f :write, :value 1, :process 0, :time 0}\n{:type :ok, :f :write, :value 1, :process 0, :time 10}\n' +
    '{:type :invoke, :f :read, :value nil, :process 1, :time 20}\n{:type :ok, :f :read, :value 2, :process 1, :time 9223372036854775807}\n')], ''));
  const why = value(mod.check('LIN', 0, 5)).levels.LIN.anomalies[0].explanation;
  assert.match(why, /returned at 9223372036854775807 ns/);
  assert.doesNotMatch(why, /never/);
});

test('LIN\'s counterexample names the lines and :index of its operations, in words and in fields', () => {
  const edn = '{:type :invoke, :f :write, :value 1, :process 0, :index 0}\n' +
    '{:type :ok, :f :write, :value 1, :process 0, :index 1}\n' +
    '\n' +
    '{:type :invoke, :f :read, :value nil, :process 1, :index 2}\n' +
    '{:type :ok, :f :read, :value 2, :process 1, :index 3}\n';
  value(mod.load(['i.edn'], [enc(edn)], ''));
  const a = value(mod.check('LIN', 0, 5)).levels.LIN.anomalies[0];
  assert.match(a.explanation, /process 1's read 2 \(T\d+, index 3, invoked on line 4, returned on line 5\)/);
  const read = a.transactions.find((t) => t.id === '3');
  assert.deepEqual([read.line, read.completion_line], [4, 5]);
  assert.doesNotMatch(a.explanation, /record \d/);
});
