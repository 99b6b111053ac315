// The wasm API's contract (docs/wasm-api.md) against the module and the app's types: the same
// functions in the bindings, the document and web/src/core/types.ts; every answer is
// {"ok": true, "value"} or {"ok": false, "error": {message, text, ...}}, before and after a load,
// for good and bad arguments; unknown levels are rejected as the command line rejects them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadIsoscope, repoRoot, value } from './load-module.mjs';

const read = (p) => readFileSync(path.join(repoRoot, p), 'utf8');
const sorted = (xs) => [...new Set(xs)].sort();

const bound = sorted([...read('wasm/bindings/embind.cpp').matchAll(/emscripten::function\("(\w+)"/g)].map((m) => m[1]));
const documented = sorted([...read('docs/wasm-api.md').matchAll(/^### (\w+)\(/gm)].map((m) => m[1]));
const typesTs = read('web/src/core/types.ts');
const iface = /export interface IsoscopeModule \{([\s\S]*?)\n\}/.exec(typesTs)?.[1] ?? '';
const typed = sorted([...iface.matchAll(/^\s+(\w+)\(/gm)].map((m) => m[1]));

test('the bindings, docs/wasm-api.md and the TypeScript types name the same functions', () => {
  assert.ok(bound.length >= 10, bound.join());
  assert.deepEqual(documented, bound);
  assert.deepEqual(typed, bound);
});

test('each function documents the value type the TypeScript types give it', () => {
  // types.ts says /** CoreResult<T> */ above each method: every method has one
  const annotated = [...iface.matchAll(/CoreResult<([^>]+(?:>)?)>[^\n]*\n\s+(\w+)\(/g)].map((m) => m[2]);
  assert.deepEqual(sorted(annotated), bound);
});

const mod = await loadIsoscope();
const enc = new TextEncoder();

function envelope(json, what) {
  const r = JSON.parse(json);
  assert.equal(typeof r.ok, 'boolean', `${what}: ${json.slice(0, 200)}`);
  if (r.ok) assert.ok('value' in r, `${what}: no value`);
  else {
    assert.equal(typeof r.error?.message, 'string', `${what}: ${json}`);
    assert.equal(typeof r.error?.text, 'string', `${what}: ${json}`);
  }
  return r;
}

// One call of every function, with good arguments.
const calls = {
  load: () => mod.load(['h.json'], [enc.encode('{"initial": 0, "sessions": [[ [["w",1,1],["w",2,1]] ], [ [["r",2,0],["r",1,1]] ]]}')], ''),
  levels: () => mod.levels(),
  histories: () => mod.histories(['a/h.json', 'b/h.json'], [enc.encode('{"sessions": []}'), enc.encode('{"sessions": []}')]),
  checkLevel: () => mod.checkLevel('SER', 0, 5),
  levelResult: () => mod.levelResult('RA'),
  check: () => mod.check('RC,SER', 0, 5),
  transactions: () => mod.transactions(0, 2),
  sessions: () => mod.sessions(),
  timeline: () => mod.timeline(),
  readers: () => mod.readers(1),
  find: () => mod.find('x', 10),
  names: () => mod.names(),
  convert: () => mod.convert('isoscope'),
  counterexample: () => mod.counterexample('RA', 0, 1000),
  formats: () => mod.formats(),
  anomalyKinds: () => mod.anomalyKinds(),
  memoryBytes: () => mod.memoryBytes(),
};

test('every function answers the one envelope, before any history is loaded', () => {
  assert.deepEqual(sorted(Object.keys(calls)), bound);
  for (const name of bound) {
    if (name === 'load') continue;
    const r = envelope(calls[name](), name);
    const needsHistory = !['formats', 'anomalyKinds', 'memoryBytes', 'histories'].includes(name);
    assert.equal(r.ok, !needsHistory, `${name} before load`);
    if (needsHistory) assert.match(r.error.message, /no history is loaded/);
  }
});

test('every function answers the one envelope with a history loaded', () => {
  assert.equal(envelope(calls.load(), 'load').ok, true);
  const ra = value(mod.checkLevel('RA', 0, 5));
  assert.equal(ra.verdict, 'fail'); // a fractured read: T1 sees x from T0's sibling write but not y
  for (const name of bound) {
    const r = envelope(calls[name](), name);
    assert.equal(r.ok, true, `${name}: ${JSON.stringify(r.error)}`);
  }
  assert.equal(typeof value(mod.memoryBytes()), 'number');
  assert.equal(typeof value(mod.convert('plume')), 'string');
  assert.ok(value(mod.formats()).some((f) => f.name === 'elle' && f.title));
  assert.deepEqual(value(calls.histories()), [{ name: 'a', files: [0] }, { name: 'b', files: [1] }]);
  assert.deepEqual(value(mod.histories(['h.json'], [enc.encode('{"sessions": []}')])), []);
});

test('bad arguments are error answers, and the module stays usable', () => {
  assert.equal(envelope(calls.load(), 'load').ok, true);
  const bad = {
    'checkLevel XYZ': [() => mod.checkLevel('XYZ', 0, 5), /unknown level 'XYZ'; the levels are RC, RR, RA/],
    'check SER,XYZ': [() => mod.check('SER,XYZ', 0, 5), /unknown level 'XYZ'/],
    'check SER,,SI': [() => mod.check('SER,,SI', 0, 5), /an empty level name/],
    'convert dot': [() => mod.convert('dot'), /unknown output format 'dot'/],
    'transactions 5..2': [() => mod.transactions(5, 2), /begin <= end/],
    'counterexample SSER': [() => mod.counterexample('SSER', 0, 100), /no anomaly 0 at SSER/],
    'counterexample ZZ': [() => mod.counterexample('ZZ', 0, 100), /unknown level 'ZZ'/],
    'levelResult ZZ': [() => mod.levelResult('ZZ'), /unknown level 'ZZ'/],
    'load unknown format': [() => mod.load(['h.json'], [enc.encode('{}')], 'csv'), /unknown format 'csv'/],
  };
  for (const [what, [call, message]] of Object.entries(bad)) {
    if (what.startsWith('load')) continue;
    const r = envelope(call(), what);
    assert.equal(r.ok, false, what);
    assert.match(r.error.message, message, what);
  }
  assert.equal(value(mod.checkLevel('RC', 0, 5)).verdict, 'pass'); // still loaded, still usable
  const r = envelope(bad['load unknown format'][0](), 'load');
  assert.equal(r.ok, false);
  assert.match(r.error.message, bad['load unknown format'][1]);
});

test('an unrecognised input says so in fields the app can act on', () => {
  const r = envelope(mod.load(['notes.txt'], [enc.encode('hello, this is not a history\n')], ''), 'load');
  assert.equal(r.ok, false);
  assert.equal(r.error.format_unrecognised, true);
  assert.equal(r.error.file, 'notes.txt');
  assert.doesNotMatch(r.error.message, /--format/); // the command line adds its own hint
});
