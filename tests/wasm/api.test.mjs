// The wasm module under Node: the same answers as the native CLI, through the embind API.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadIsoscope, readInput, corpusRoot, needsCorpus, value } from './load-module.mjs';

const mod = await loadIsoscope();
const enc = new TextEncoder();

function load(text, name = 'h.json', format = '') {
  return JSON.parse(mod.load([name], [enc.encode(text)], format));
}

test('loads a canonical history and reports its statistics', () => {
  const r = load('{"initial": 0, "sessions": [[ [["r","x",0], ["w","x",1]] ], [ [["r","x",1]] ]]}');
  assert.equal(r.ok, true);
  assert.equal(r.value.format, 'isoscope');
  assert.equal(r.value.sessions, 2);
  assert.equal(r.value.transactions, 2);
  assert.equal(r.value.operations, 3);
  assert.equal(r.value.keys, 1);
});

test('a malformed file gives the file, byte offset and what was expected', () => {
  const r = load('{"sessions": [[ [["r","x",0] ["w","x",1]] ]]}', 'broken.json');
  assert.equal(r.ok, false);
  assert.equal(r.error.file, 'broken.json');
  assert.equal(typeof r.error.offset, 'number');
  assert.match(r.error.message, /expected/);
  assert.match(r.error.text, /broken\.json: line 1/);
});

test('thin-air read fails every level with the read named', needsCorpus, () => {
  const r = load(readFileSync(path.join(corpusRoot, 'textbook/thin-air-read.json'), 'utf8'));
  assert.equal(r.ok, true);
  const result = value(mod.check('', 0, 10));
  assert.equal(result.levels.RC.verdict, 'fail');
  assert.equal(result.levels.RC.anomalies[0].kind, 'ThinAirRead');
  assert.equal(result.levels.RC.anomalies[0].ops[0].text, 'r(x, 5)');
  assert.equal(result.levels.SSER.verdict, 'n/a');
});

test('checkLevel decides one level at a time and applies the lattice', needsCorpus, () => {
  load(readFileSync(path.join(corpusRoot, 'textbook/intermediate-read.json'), 'utf8'));
  const rc = value(mod.checkLevel('RC', 0, 10));
  assert.equal(rc.verdict, 'fail');
  assert.equal(rc.anomalies[0].kind, 'IntermediateRead');
  const ser = value(mod.checkLevel('SER', 0, 10));
  assert.equal(ser.verdict, 'fail');
  assert.match(ser.reason, /implied by the RC violation/);
  const levels = value(mod.levels());
  assert.deepEqual(levels.map((l) => l.level), ['RC', 'RR', 'RA', 'CC', 'PC', 'SI', 'SER', 'SSER', 'WCC', 'CCv', 'CM', 'LIN']);
});

test('the lattice both ways: in the core\'s order, a passing SSER decides SER, SI and PC', () => {
  // A serial history with timestamps: every level holds.
  const sessions = [0, 1, 2].map((s) => [0, 1, 2].map((i) => {
    const t = 3 * i + s, v = t + 1;
    return { ops: [['r', 'x', t === 0 ? 0 : t], ['w', 'x', v]], start: 10 * t, end: 10 * t + 5 };
  }));
  assert.equal(load(JSON.stringify({ initial: 0, sessions })).ok, true);
  const levels = value(mod.levels());
  const order = levels.filter((l) => l.applies && ['RC', 'RR', 'RA', 'CC', 'PC', 'SI', 'SER', 'SSER'].includes(l.level))
    .sort((a, b) => a.order - b.order).map((l) => l.level);
  assert.deepEqual(order, ['RC', 'RR', 'RA', 'CC', 'SSER', 'SER', 'SI', 'PC']);
  const got = Object.fromEntries(order.map((l) => [l, value(mod.checkLevel(l, 0, 5))]));
  for (const l of order) assert.equal(got[l].verdict, 'pass', l);
  assert.equal(got.SSER.implied_by, undefined);
  for (const l of ['SER', 'SI', 'PC']) {
    assert.equal(got[l].implied_by, 'SSER', l);
    assert.equal(got[l].reason, 'implied by the SSER pass', l);
  }
  const all = value(mod.check('', 0, 5));
  assert.equal(all.levels.SER.implied_by, 'SSER');
});

test('history view data: transactions and sessions', () => {
  load('{"initial": 0, "sessions": [[ {"id": "a", "ops": [["w","x",1]], "start": 1, "end": 2} ], [ [["r","x",1]] ]]}');
  assert.deepEqual(value(mod.sessions()), [{ first: 1, count: 1 }, { first: 2, count: 1 }]);
  const txns = value(mod.transactions(0, 3));
  assert.equal(txns.length, 3);
  assert.equal(txns[0].id, 'init');
  assert.equal(txns[1].id, 'a');
  assert.deepEqual(txns[1].ops, [['w', 'x', 1]]);
  assert.equal(txns[1].start, 1);
  assert.deepEqual(txns[2].ops, [['r', 'x', 1]]);
});

test('convert round-trips through the canonical format', () => {
  load('{"initial": 0, "sessions": [[ [["w",1,1]] ], [ [["r",1,1]] ]]}');
  const text = value(mod.convert('isoscope'));
  const again = load(text);
  assert.equal(again.ok, true);
  assert.equal(again.value.operations, 2);
  const plume = value(mod.convert('plume'));
  assert.match(plume, /^w\(1,1,0,1\)\nr\(1,1,1,2\)\n$/);
});

test('every corpus entry, in every format, gives the manifest verdicts in wasm too', needsCorpus, () => {
  const manifest = JSON.parse(readFileSync(path.join(corpusRoot, 'manifest.json'), 'utf8'));
  let checked = 0;
  for (const e of manifest.entries) {
    const { names, blobs } = readInput(path.join(corpusRoot, e.path));
    const auto = JSON.parse(mod.load(names, blobs, ''));
    assert.equal(auto.ok, true, `${e.path}: ${auto.error?.text}`);
    assert.equal(auto.value.format, e.format, e.path);
    const result = value(mod.check('', 0, 5));
    for (const [level, expected] of Object.entries(e.expect)) {
      assert.equal(result.levels[level]?.verdict, expected, `${e.path} ${level}`);
      checked++;
    }
  }
  assert.ok(checked > 200, `only ${checked} verdicts checked`);
});

test('cobra logs with dangling reads load and report thin-air reads', needsCorpus, () => {
  const { names, blobs } = readInput(path.join(corpusRoot, 'cobra/cock-blog'));
  const r = JSON.parse(mod.load(names, blobs, ''));
  assert.equal(r.ok, true);
  assert.equal(r.value.format, 'cobra');
  const rc = value(mod.checkLevel('RC', 0, 50));
  assert.equal(rc.verdict, 'fail');
  assert.ok(rc.anomalies.some((a) => a.kind === 'ThinAirRead' && /in no log/.test(a.explanation)));
});

test('timeline, readers and read_from: real time, who read what, and from whom', () => {
  load('{"initial": 0, "sessions": [[ {"ops": [["w","x",1], ["w","y",1]], "start": 1, "end": 2} ], ' +
    '[ {"ops": [["r","x",1], ["r","y",0]], "start": 3, "end": 4, "status": "committed"}, {"ops": [["r","z",9]], "start": 5, "end": 6} ], ' +
    '[ {"ops": [["w","z",2]], "status": "aborted", "start": 0.5, "end": 7.25} ]]}');
  assert.deepEqual(value(mod.timeline()), { first: 1, start: [1, 3, 5, 0.5], end: [2, 4, 6, 7.25], session: [0, 1, 1, 2], status: 'ccca' });
  assert.deepEqual(value(mod.readers(1)), [{ position: 0, readers: [2] }, { position: 1, readers: [] }]);
  const [, t2, t3] = value(mod.transactions(1, 4));
  assert.deepEqual(t2.read_from, [1, 0]);
  assert.deepEqual(t3.read_from, [-1]);
  assert.match(JSON.parse(mod.readers(99)).error.message, /from 1 to 4/);
});

test('find: transactions by label, then by a key they touch', () => {
  load('{"initial": 0, "sessions": [[ {"id": "alpha", "ops": [["w","x",1]]}, {"id": "7", "ops": [["w","y",1]]} ], [ {"ops": [["r","x",1], ["w","7",2]]} ]]}');
  assert.deepEqual(value(mod.find('alpha', 10)), [{ txn: 1, match: 'label' }]);
  assert.deepEqual(value(mod.find('x', 10)), [{ txn: 1, match: 'key' }, { txn: 3, match: 'key' }]);
  assert.deepEqual(value(mod.find('7', 10)), [{ txn: 2, match: 'label' }]);
  assert.deepEqual(value(mod.find('"7"', 10)), [{ txn: 3, match: 'key' }]);
  assert.deepEqual(value(mod.find('x', 1)), [{ txn: 1, match: 'key' }]);
  assert.deepEqual(value(mod.find('nothing', 10)), []);
});

test('a pass names the failing levels decided before it again; levelResult gives them as they stand', () => {
  // Random history (generate --sessions 3 --txns 5 --keys 2 --timestamps --target random --seed 148):
  // in the app's order SSER is decided before SER; its cycle looks like a write skew, but SER passes.
  load('{"format":"isoscope/1","initial":0,"sessions":[[{"ops":[["r",1,0],["r",0,0],["r",0,0],["w",0,1]],"start":0,"end":0.5},{"ops":[["r",1,0],["w",0,2],["w",0,3],["r",0,3]],"start":3,"end":3.5},{"ops":[["w",1,4],["r",1,4],["w",0,5],["w",1,6]],"start":4,"end":4.5},{"ops":[["r",1,9],["r",0,5],["r",0,5]],"start":8,"end":8.5},{"ops":[["r",1,12]],"start":12,"end":12.5}],[{"ops":[["r",1,0],["r",0,1],["r",1,0],["r",0,1]],"start":2,"end":2.5},{"ops":[["r",0,1]],"start":7,"end":7.5},{"ops":[["w",0,10],["r",1,9],["r",0,10]],"start":9,"end":9.5},{"ops":[["w",1,11],["r",1,11]],"start":10,"end":10.5},{"ops":[["w",1,12],["r",1,12]],"start":11,"end":11.5}],[{"ops":[["r",1,0]],"start":1,"end":1.5},{"ops":[["r",0,5],["w",1,7],["r",0,5],["r",1,7]],"start":5,"end":5.5},{"ops":[["r",0,5],["r",0,5],["w",1,8],["w",1,9]],"start":6,"end":6.5},{"ops":[["w",1,13]],"start":13,"end":13.5},{"ops":[["r",0,10],["w",1,14],["w",0,15]],"start":14,"end":14.5}]]}');
  for (const l of ['RC', 'RR', 'RA', 'CC']) assert.equal(value(mod.checkLevel(l, 0, 10)).verdict, 'pass', l);
  const sser = value(mod.checkLevel('SSER', 0, 10));
  assert.equal(sser.verdict, 'fail');
  assert.equal(sser.anomalies[0].kind, 'WriteSkew', 'named before SER is decided');
  assert.equal(value(mod.checkLevel('SER', 0, 10)).verdict, 'pass');
  const now = value(mod.levelResult('SSER'));
  assert.equal(now.verdict, 'fail');
  assert.equal(now.anomalies[0].kind, 'RealTimeViolation', 'SER passes: the cycle is what SSER adds');
  const undecided = JSON.parse(mod.levelResult('PC'));
  assert.equal(undecided.ok, false);
  assert.match(undecided.error.message, /PC has not been checked/);
});

test('a repeated-value violation\'s counterexample keeps every writer its reads may read from', () => {
  // SER fails whichever writer of x = 5 T1 reads from; a counterexample with T1 alone would
  // show a thin-air read instead, which this history does not have.
  load('{"initial": 0, "sessions": [[ [["r","x",5],["w","y",1]], [["w","x",5]] ], [ [["w","x",5],["r","y",1]] ]]}');
  const r = value(mod.checkLevel('SER', 0, 5));
  assert.equal(r.verdict, 'fail');
  assert.match(r.anomalies[0].explanation, /may read from T2 or T3/);
  const c = value(mod.counterexample('SER', 0, 1000));
  assert.equal(c.reproduces, true);
  assert.equal(c.transactions, 3);
  load(c.history, 'counterexample.json');
  const again = value(mod.checkLevel('SER', 0, 5));
  assert.equal(again.verdict, 'fail');
  assert.equal(again.anomalies[0].kind, r.anomalies[0].kind);
});
