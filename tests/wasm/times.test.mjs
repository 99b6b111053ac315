// Real time is exact in the wasm module too (issue 22, class 1): epoch nanoseconds 100 ns apart
// (beyond 2^53, where doubles are 256 apart) still order two transactions, in every format that
// carries times; the verdicts are the core's, never JS doubles'. Times leave the module as exact
// decimal text (convert, counterexample, transactions); JSON.parse in JS may round them for
// display, so these tests read the raw text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadIsoscope, value } from './load-module.mjs';

const mod = await loadIsoscope();
const enc = new TextEncoder();

const B = 1700000000000000000n;  // a multiple of 256: B + 200n and B + 300n are one double
const [t1s, t1e, t2s, t2e] = [B, B + 200n, B + 300n, B + 400n].map(String);

function load(names, blobs, format = '') {
  const r = JSON.parse(mod.load(names, blobs, format));
  assert.equal(r.ok, true, JSON.stringify(r.error));
  return r.value;
}
const loadText = (name, text, format = '') => load([name], [enc.encode(text)], format);

function be64(v) {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, BigInt(v));
  return b;
}
function record(tag, ...fields) {
  return Uint8Array.from([tag.charCodeAt(0), ...fields.flatMap((f) => [...be64(f)])]);
}
const concat = (...parts) => Uint8Array.from(parts.flatMap((p) => [...p]));

const histories = {
  'isoscope JSON': () => loadText('h.json', `{"initial": 0, "sessions": [
    [{"ops": [["w", "x", 1]], "start": ${t1s}, "end": ${t1e}}],
    [{"ops": [["r", "x", 0]], "start": ${t2s}, "end": ${t2e}}]]}`),
  'Elle EDN': () => loadText('history.edn', [
    `{:type :invoke, :f :txn, :value [[:w :x 1]], :process 0, :time ${t1s}}`,
    `{:type :ok, :f :txn, :value [[:w :x 1]], :process 0, :time ${t1e}}`,
    `{:type :invoke, :f :txn, :value [[:r :x nil]], :process 1, :time ${t2s}}`,
    `{:type :ok, :f :txn, :value [[:r :x nil]], :process 1, :time ${t2e}}`].join('\n')),
  'Elle JSON': () => loadText('history.json', `[
    {"type": "invoke", "f": "txn", "value": [["w", "x", 1]], "process": 0, "time": ${t1s}},
    {"type": "ok", "f": "txn", "value": [["w", "x", 1]], "process": 0, "time": ${t1e}},
    {"type": "invoke", "f": "txn", "value": [["r", "x", null]], "process": 1, "time": ${t2s}},
    {"type": "ok", "f": "txn", "value": [["r", "x", null]], "process": 1, "time": ${t2e}}]`, 'elle'),
  Cobra: () => load(['logs/T0.log', 'logs/T1.log'], [
    concat(record('S', 0x100, B), record('W', 77, 5, 0xabc), record('C', 0x100, B + 200n)),
    concat(record('S', 0x200, B + 300n), record('R', 0xbebeebee, 0xbebeebee, 5, 0), record('C', 0x200, B + 400n)),
  ]),
};

for (const [name, loadIt] of Object.entries(histories)) {
  test(`${name}: a stale read 100 ns after the write at epoch nanoseconds fails SSER`, () => {
    loadIt();
    const r = value(mod.check('SER,SSER', 0, 10));
    assert.equal(r.levels.SER.verdict, 'pass');
    assert.equal(r.levels.SSER.verdict, 'fail');
    // The explanation names the exact times; the canonical JSON and the counterexample keep them.
    const why = JSON.stringify(r.levels.SSER.anomalies);
    assert.ok(why.includes(`at ${t1e})`) && why.includes(`at ${t2s})`), why);
    const text = value(mod.convert('isoscope'));
    assert.ok(text.includes(`"start": ${t2s}, "end": ${t2e}`), text);
    assert.equal(value(mod.checkLevel('SSER', 0, 10)).verdict, 'fail');
    const c = value(mod.counterexample('SSER', 0, 1000));
    assert.ok(c.history.includes(`"end": ${t1e}`) && c.history.includes(`"start": ${t2s}`), c.history);
    // Read back, the canonical text gives the same verdict (times survived the round trip).
    loadText('back.json', text);
    assert.equal(value(mod.check('SSER', 0, 10)).levels.SSER.verdict, 'fail');
  });
}

test('transactions() and timeline() write times as exact decimals', () => {
  histories['isoscope JSON']();
  const raw = mod.transactions(1, 3);
  assert.ok(raw.includes(`"start": ${t2s}, "end": ${t2e}`), raw);
  const tl = mod.timeline();
  assert.ok(tl.includes(`${t1e}, ${t2e}`), tl);
});

// One rule for every format (issue 22, class 8): an end before its start, or a time that is not
// finite, is refused with its place; nothing is loaded that convert could not write back.
test('an end before its start or a non-finite time is a located error in every format', () => {
  const cases = [
    ['h.json', '{"sessions": [\n[{"ops": [["w", "x", 1]], "start": 20, "end": 10}]]}', ''],
    ['h.edn', '{:type :invoke, :f :txn, :value [[:w :x 1]], :process 0, :time 20}\n{:type :ok, :f :txn, :value [[:w :x 1]], :process 0, :time 10}', 'elle'],
    ['h.edn', '{:type :invoke, :f :txn, :value [[:w :x 1]], :process 0, :time 1}\n{:type :ok, :f :txn, :value [[:w :x 1]], :process 0, :time ##Inf}', 'elle'],
    ['h.json', '[{"type": "invoke", "f": "txn", "value": [["w", "x", 1]], "process": 0, "time": 2},\n{"type": "ok", "f": "txn", "value": [["w", "x", 1]], "process": 0, "time": 1}]', 'elle'],
    ['h.json', '{"sessions": [\n[{"ops": [["w", "x", 1]], "start": 1, "end": 1e999}]]}', ''],
  ];
  for (const [name, text, format] of cases) {
    const r = JSON.parse(mod.load([name], [enc.encode(text)], format));
    assert.equal(r.ok, false, text);
    assert.equal(r.error.line, 2, r.error.text);
  }
  const r = JSON.parse(mod.load(['logs/T0.log'], [concat(record('S', 0x100, 1000), record('W', 77, 5, 0xabc), record('C', 0x100, 999))], ''));
  assert.equal(r.ok, false);
  assert.equal(r.error.offset, 17 + 25 + 9);
  assert.match(r.error.message, /before it starts/);
});
