// Every conversion and every share link reads back to the same verdicts (issue 35, class 4).
//
// Each history of the corpus (../shared/corpus), of `isoscope generate` (object, transactional,
// timed, aborted, unknown, list histories) and of the repository's fixtures (the LIN fixtures
// of tests/fixtures/jepsen, Elle's, the formats' lost update, the recorded runs) is loaded in the
// wasm module and checked at every level; then
//   - converted to every format `convert` writes (isoscope, plume, jepsen: the functions
//     `isoscope convert` calls) and read back by detection, as a file of that format;
//   - written as the page's share link holds it (convert('isoscope'), opened by detection as
//     shared-history.json, web/src/ui/app.ts openFromHash) and read back;
// and each reading back must give the same verdict at every level, the same transactions
// (operations, statuses, sessions, labels, times) and write out to the same text again; plume,
// which has no timestamps and numbers transactions anew, the same verdicts but SSER's and LIN's
// (n/a without times, which `convert` says) and the same text from its second writing on. A conversion a format cannot hold
// must be refused with a reason, never written incomplete. Counterexample links (the other
// thing a link holds) must fail their level again, as the kind of history they came from.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { corpusRoot, loadIsoscope, needsCorpus, readInput, repoRoot } from './load-module.mjs';

const mod = await loadIsoscope();
const enc = new TextEncoder();
// A budget per check: a level it leaves undecided ('unknown') is compared only when decided
// both times (the corpus's largest histories decide well within it).
const BUDGET_MS = 3000;
// The levels whose counterexamples are checked besides LIN's (a weak and a strong one: each
// counterexample shrinks by re-checking, which costs).
const counterexampleLevels = new Set(['RC', 'SER']);
const TARGETS = { isoscope: 'converted.json', plume: 'converted.plume.txt', jepsen: 'converted.edn' };

function answer(json) {
  const r = JSON.parse(json);
  return r.ok ? { value: r.value } : { error: r.error };
}
function must(json, what) {
  const r = answer(json);
  if (r.error) assert.fail(`${what}: ${r.error.text ?? r.error.message}`);
  return r.value;
}

// What a loaded history is, beyond its verdicts: the counts a reader must keep.
function shape(stats) {
  const { sessions, transactions, operations, keys, committed, aborted, unknown, timestamps, lists } = stats;
  return { sessions, transactions, operations, keys, committed, aborted, unknown, timestamps, lists };
}

must(mod.load(['t.json'], [enc.encode('{"sessions": [[[["w", 1, 1]]]]}')], ''), 'load');
const LEVELS = must(mod.levels(), 'levels').map((l) => l.level);  // every level, in order
/** Every level's verdict ('n/a' with its reason where it does not apply). */
function verdicts() {
  const r = must(mod.check(LEVELS.join(','), BUDGET_MS, 1), 'check');
  return Object.fromEntries(LEVELS.map((l) => [l, { verdict: r.levels[l].verdict, reason: r.levels[l].reason ?? '' }]));
}

// timeless: the history was written in a format without timestamps (plume), which leaves out
// the levels that need them (SSER, LIN), and only those, when the history had them.
function sameVerdicts(got, want, what, timeless = false) {
  for (const l of LEVELS) {
    const [g, w] = [got[l].verdict, want[l].verdict];
    if (g === 'unknown' || w === 'unknown') continue;  // the budget, not the history
    if (timeless && g === 'n/a' && w !== 'n/a' && /timestamp/.test(got[l].reason)) continue;
    assert.equal(g, w, `${what}: ${l} (${got[l].reason || want[l].reason})`);
  }
}

// The loaded history's transactions: sessions, positions, labels, statuses, operations, times.
function transactions() {
  return must(mod.transactions(0, 1e9), 'transactions');
}

// The same transactions, at the same times; an object history without times numbers its records
// by their position in the file, and then the same real-time order is what must hold (which
// operation returned before which was invoked).
function sameTransactions(got, want, objects, what) {
  const strip = (ts) => ts.map(({ start, end, ...t }) => t);
  assert.deepEqual(strip(got), strip(want), what);
  const times = (ts) => ts.map((t) => [t.start, t.end]);
  if (!objects || want.length > 2000) {
    assert.deepEqual(times(got), times(want), `${what}: times`);
    return;
  }
  const before = (ts) => ts.map((a) => ts.map((b) => a.end !== undefined && b.start !== undefined && a.end < b.start ? 1 : 0).join('')).join('\n');
  assert.equal(before(got), before(want), `${what}: which operation returned before which was invoked`);
}

// Loads `text` under `name` by detection and returns its stats, verdicts, transactions and its
// own writing in `format` (to see that a second round trip changes nothing).
function readBack(name, text, format, expectFormat) {
  const stats = must(mod.load([name], [enc.encode(text)], ''), `${name} read back`);
  if (expectFormat) assert.equal(stats.format, expectFormat, `${name}: read back as ${expectFormat}`);
  const v = verdicts();
  const txns = format === 'plume' ? null : transactions();
  const again = answer(mod.convert(format));
  return { stats, verdicts: v, txns, again };
}

/** One history through every writer and the share link. */
function roundTrip(label, names, blobs, format = '') {
  const loaded = answer(mod.load(names, blobs, format));
  if (loaded.error) return { skipped: loaded.error.message };
  const stats = loaded.value;
  const want = verdicts();
  const txns = transactions();
  const written = {};
  for (const to of Object.keys(TARGETS)) {
    must(mod.load(names, blobs, format), 'reload');
    const r = answer(mod.convert(to));
    if (r.error) {
      assert.ok(r.error.message.length > 10, `${label} -> ${to}: refused with a reason`);
      written[to] = null;
      continue;
    }
    written[to] = r.value;
  }
  // a plume history is written as plume again
  if (stats.format === 'plume') assert.ok(written.plume !== null, `${label}: plume is written as plume`);
  // an object history is written as Jepsen EDN, and a history of transactions as isoscope JSON
  const objects = written.jepsen !== null;
  assert.ok(objects ? written.jepsen !== null : written.isoscope !== null, `${label}: its lossless form is written`);
  const share = objects ? written.jepsen : written.isoscope;
  const problems = [];
  // the wasm module's convert('isoscope') of an object history is its share form, Jepsen EDN
  // (`isoscope convert --to isoscope` refuses it)
  if (objects && written.isoscope !== written.jepsen) problems.push(`${label}: convert('isoscope') is not its Jepsen EDN`);
  if (objects && written.plume !== null) problems.push(`${label}: plume cannot hold an object history, yet it was written`);
  for (const [to, text] of Object.entries(written)) {
    if (text === null || (objects && to !== 'jepsen')) continue;
    try {
      const back = readBack(TARGETS[to], text, to, to === 'jepsen' ? 'jepsen' : to);
      const what = `${label} -> ${to} -> read back`;
      sameVerdicts(back.verdicts, want, what, to === 'plume' && stats.timestamps);
      if (to === 'plume') {
        // plume has no timestamps, writes operations only (a transaction without one leaves no
        // line) and marks aborted operations -1 (a session's run of them reads back as one
        // aborted transaction): docs/cli.md, convert
        const { operations, keys, committed, unknown, lists } = stats;
        assert.deepEqual(shape(back.stats), { ...shape(back.stats), operations, keys, committed, unknown, lists, timestamps: false }, `${what}: the history's shape`);
      } else {
        assert.deepEqual(shape(back.stats), shape(stats), `${what}: the history's shape`);
        sameTransactions(back.txns, txns, objects, `${what}: the same transactions`);
      }
      if (to === 'plume') {
        // numbers the transactions anew (those plume cannot hold are gone): from the second
        // writing on, the same text
        const second = readBack(TARGETS[to], back.again.value, to, to);
        assert.ok(second.again.value === back.again.value, `${what}: written a third time, the same text as the second`);
      } else {
        assert.ok(back.again.value === text, `${what}: written again, the same text`);
      }
    } catch (e) { problems.push(e.message.split('\n').slice(0, 12).join(' | ')); }
  }
  // the share link: convert('isoscope') opened as shared-history.json by detection
  try {
    must(mod.load(names, blobs, format), 'reload');
    const link = must(mod.convert('isoscope'), `${label}: the share link's history`);
    assert.equal(link, share);
    const back = readBack('shared-history.json', link, 'isoscope');
    sameVerdicts(back.verdicts, want, `${label} -> share link`);
    assert.deepEqual(shape(back.stats), shape(stats), `${label} -> share link: the history's shape`);
    sameTransactions(back.txns, txns, objects, `${label} -> share link: the same transactions`);
  } catch (e) { problems.push(e.message.split('\n').slice(0, 12).join(' | ')); }
  // counterexample links: each failing level's first anomaly, as the page asks for it (after
  // checkLevel), opened as shared-counterexample.json: the level fails again, and the history
  // is of the kind it came from
  for (const l of LEVELS) {
    if (want[l].verdict !== 'fail' || (l !== 'LIN' && !counterexampleLevels.has(l))) continue;
    try {
      must(mod.load(names, blobs, format), 'reload');
      must(mod.checkLevel(l, BUDGET_MS, 1), `${label}: checkLevel ${l}`);
      const c = must(mod.counterexample(l, 0, BUDGET_MS), `${label}: counterexample ${l}`);
      if (!c.reproduces) continue;  // the page offers no link then
      const back = must(mod.load(['shared-counterexample.json'], [enc.encode(c.history)], ''), `${label}: ${l}'s counterexample read back`);
      assert.equal(back.format, objects ? 'jepsen' : 'isoscope', `${label}: ${l}'s counterexample is of the kind it came from`);
      assert.equal(must(mod.checkLevel(l, BUDGET_MS, 1), `${label}: ${l}'s counterexample`).verdict, 'fail', `${label}: ${l}'s counterexample fails ${l} again`);
    } catch (e) { problems.push(e.message.split('\n').slice(0, 12).join(' | ')); }
  }
  return { want, problems };
}

// ---- the histories ---------------------------------------------------------------------------

const tmp = mkdtempSync(path.join(tmpdir(), 'isoscope-roundtrip-'));
const cli = path.join(repoRoot, 'build/isoscope');
/** `isoscope generate ARGS` (the native CLI of this build): the text. */
function generate(args) {
  const out = path.join(tmp, 'generated');
  const r = spawnSync(cli, ['generate', ...args, out], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`isoscope generate ${args.join(' ')}: ${r.stderr}`);
  return readFileSync(out);
}
const GENERATED = [
  // object histories (Jepsen registers): one or several keys, cas or not, :info operations,
  // stale reads
  ['--register'],
  ['--register', '--keys', '1', '--sessions', '5', '--txns', '30', '--unknown-ratio', '0.3'],
  ['--register', '--no-cas', '--keys', '3', '--txns', '20', '--unknown-ratio', '0.2', '--seed', '7'],
  ['--register', '--keys', '2', '--txns', '25', '--stale-ratio', '0.2', '--seed', '3'],
  ['--register', '--keys', '1', '--txns', '20', '--stale-ratio', '0.1', '--unknown-ratio', '0.3', '--seed', '11'],
  // transactional ones: lightweight transactions (LIN), mini-transactions, engines, the random
  // generator with aborts, unknowns, timestamps, labels, injected anomalies, lists
  ['--lwt', '--sessions', '3', '--txns', '20'],
  ['--lwt', '--sessions', '3', '--txns', '20', '--stale-ratio', '0.2', '--seed', '5'],
  ['--mt', 'serial', '--txns', '15'],
  ['--mt', 'stale', '--txns', '15', '--seed', '2'],
  ['--engine', 'si', '--sessions', '4', '--txns', '20', '--mix', 'cobra'],
  ['--engine', 'rc', '--sessions', '4', '--txns', '20', '--abort-ratio', '0.1'],
  ['--target', 'random', '--sessions', '4', '--txns', '20', '--abort-ratio', '0.1', '--unknown-ratio', '0.1', '--timestamps', '--labels'],
  ['--target', 'inject=LostUpdate', '--timestamps'],
  ['--target', 'inject=StaleRead'],
  ['--target', 'level=CC', '--single-op', '--sessions', '3', '--txns', '10'],
  ['--target', 'serial', '--value-range', '3', '--txns', '15'],
  ['--list-append', '--txns', '15', '--labels'],
];

function filesUnder(dir) {
  return readdirSync(dir).filter((n) => !n.startsWith('.')).map((n) => path.join(dir, n));
}
const FIXTURES = [
  ...filesUnder(path.join(repoRoot, 'tests/fixtures/jepsen')).filter((p) => !p.endsWith('.md')),
  ...filesUnder(path.join(repoRoot, 'tests/fixtures/elle')),
  ...filesUnder(path.join(repoRoot, 'tests/fixtures/formats')).filter((p) => !/\.(mjs|md)$/.test(p) && !p.endsWith('expected.json')),
  ...filesUnder(path.join(repoRoot, 'tests/fixtures/db')).filter((p) => !p.endsWith('manifest.json')),
];

// Object histories a reader accepts, written by hand: a process that invokes again after its
// :info (Jepsen gives it a new number, but the readers take the same one: issue 35 4a), in EDN,
// JSON and log lines, timed and untimed; only nemesis operations (4b), or nemesis operations
// among clients'; an operation never completed; completions and invocations at equal times; a
// process whose times run backwards; every object model; strings with escapes.
const edn = (lines) => lines.join('\n') + '\n';
const OBJECTS = {
  'info then invoke (timed EDN), fails': edn([
    '{:type :invoke, :f :write, :value 1, :process 0, :time 10}',
    '{:type :info, :f :write, :value 1, :process 0, :time 20}',
    '{:type :invoke, :f :read, :value nil, :process 0, :time 30}',
    '{:type :ok, :f :read, :value 1, :process 0, :time 40}',
    '{:type :invoke, :f :read, :value nil, :process 1, :time 50}',
    '{:type :ok, :f :read, :value nil, :process 1, :time 60}',
  ]),
  'info then invoke (timed EDN), passes': edn([
    '{:type :invoke, :f :write, :value 1, :process 0, :time 10}',
    '{:type :invoke, :f :read, :value nil, :process 1, :time 11}',
    '{:type :info, :f :write, :value :timeout, :process 0, :time 20}',
    '{:type :invoke, :f :cas, :value [1 2], :process 0, :time 30}',
    '{:type :ok, :f :read, :value 1, :process 1, :time 35}',
    '{:type :info, :f :cas, :value [1 2], :process 0, :time 40}',
    '{:type :invoke, :f :read, :value nil, :process 0, :time 50}',
    '{:type :ok, :f :read, :value 2, :process 0, :time 60}',
    '{:type :invoke, :f :write, :value 3, :process 1, :time 70}',
  ]),
  'info then invoke (untimed EDN vector)': '[' + edn([
    '{:type :invoke, :f :write, :value 1, :process 0}',
    '{:type :info, :f :write, :value 1, :process 0}',
    '{:type :invoke, :f :write, :value 2, :process 1}',
    '{:type :invoke, :f :read, :value nil, :process 0}',
    '{:type :ok, :f :write, :value 2, :process 1}',
    '{:type :ok, :f :read, :value 1, :process 0}',
  ]) + ']',
  'info then invoke (JSON, independent keys)': JSON.stringify([
    { type: 'invoke', f: 'write', value: ['a', 1], process: 3, time: 1 },
    { type: 'info', f: 'write', value: ['a', 1], process: 3, time: 2 },
    { type: 'invoke', f: 'read', value: ['a', null], process: 3, time: 3 },
    { type: 'ok', f: 'read', value: ['a', 1], process: 3, time: 4 },
    { type: 'invoke', f: 'read', value: ['b', null], process: 4, time: 5 },
    { type: 'ok', f: 'read', value: ['b', 1], process: 4, time: 6 },
  ]),
  'info then invoke (log lines)': [
    'INFO  jepsen.util - 0\t:invoke\t:write\t1',
    'INFO  jepsen.util - 0\t:info\t:write\t:timed-out',
    'INFO  jepsen.util - :nemesis\t:info\t:start\tnil',
    'INFO  jepsen.util - 0\t:invoke\t:read\tnil',
    'INFO  jepsen.util - 1\t:invoke\t:cas\t[1 2]',
    'INFO  jepsen.util - 0\t:ok\t:read\t1',
    'INFO  jepsen.util - 1\t:fail\t:cas\t[1 2]',
    'INFO  jepsen.util - 1\t:invoke\t:read\tnil',
    'INFO  jepsen.util - 1\t:ok\t:read\tnil',
    'a line that is no operation',
  ].join('\n') + '\n',
  'nemesis only (EDN)': edn([
    '{:type :info, :f :start-partition, :value nil, :process :nemesis, :time 1}',
    '{:type :info, :f :stop-partition, :value nil, :process :nemesis, :time 2}',
  ]),
  'nemesis among clients': edn([
    '{:type :info, :f :start, :process :nemesis, :time 1}',
    '{:type :invoke, :f :write, :value 1, :process 0, :time 2}',
    '{:type :info, :f :kill, :process :nemesis, :time 3}',
    '{:type :ok, :f :write, :value 1, :process 0, :time 4}',
  ]),
  'never completed, equal times, a process whose times run backwards': edn([
    '{:type :invoke, :f :write, :value 1, :process 0, :time 100}',
    '{:type :ok, :f :write, :value 1, :process 0, :time 200}',
    '{:type :invoke, :f :read, :value nil, :process 0, :time 150}',
    '{:type :invoke, :f :write, :value 2, :process 1, :time 200}',
    '{:type :ok, :f :read, :value 1, :process 0, :time 250}',
    '{:type :invoke, :f :read, :value nil, :process 0, :time 250}',
    '{:type :ok, :f :read, :value 2, :process 0, :time 260}',
    '{:type :invoke, :f :read, :value nil, :process 2, :time 300}',
  ]),
  'key-value store with :info': edn([
    '{:process 0, :type :invoke, :f :put, :key "k", :value "x"}',
    '{:process 0, :type :info, :f :put, :key "k", :value "x"}',
    '{:process 0, :type :invoke, :f :append, :key "k", :value "y"}',
    '{:process 1, :type :invoke, :f :get, :key "k", :value nil}',
    '{:process 0, :type :ok, :f :append, :key "k", :value "y"}',
    '{:process 1, :type :ok, :f :get, :key "k", :value "xy"}',
  ]),
  'multi-register with :info': edn([
    '{:type :invoke, :f :txn, :value [[:write :x 1] [:read :y nil]], :process 0, :time 1}',
    '{:type :info, :f :txn, :value [[:write :x 1] [:read :y nil]], :process 0, :time 2}',
    '{:type :invoke, :f :txn, :value [[:read :x nil] [:write :y 2]], :process 0, :time 3}',
    '{:type :ok, :f :txn, :value [[:read :x 1] [:write :y 2]], :process 0, :time 4}',
  ]),
  'mutex with :info': edn([
    '{:type :invoke, :f :acquire, :process 0, :time 1}',
    '{:type :info, :f :acquire, :process 0, :time 2}',
    '{:type :invoke, :f :release, :process 0, :time 3}',
    '{:type :ok, :f :release, :process 0, :time 4}',
    '{:type :invoke, :f :acquire, :process 1, :time 5}',
    '{:type :ok, :f :acquire, :process 1, :time 6}',
  ]),
  'strings with escapes, keywords, large integers, labels': edn([
    '{:type :invoke, :f :write, :value ["k\\"1\\\\" "a\\nb \u00e9"], :process 0, :time 1, :index 0}',
    '{:type :ok, :f :write, :value ["k\\"1\\\\" "a\\nb \u00e9"], :process 0, :time 2, :index 1}',
    '{:type :invoke, :f :write, :value [:kw 9223372036854775807], :process 1, :time 3, :index 2}',
    '{:type :info, :f :write, :value [:kw 9223372036854775807], :process 1, :time 4, :index 3}',
    '{:type :invoke, :f :read, :value ["kw" nil], :process 1, :time 5, :index 4}',
    '{:type :ok, :f :read, :value ["kw" -9223372036854775807], :process 1, :time 6, :index 5}',
  ]),
};

test('object histories a reader accepts (processes going on after :info, nemesis only, every model) convert and link back', () => {
  const all = [];
  for (const [label, text] of Object.entries(OBJECTS)) {
    const r = roundTrip(label, [label.includes('log lines') ? 'h.log' : label.includes('JSON') ? 'h.json' : 'h.edn'], [enc.encode(text)]);
    // a history of no client operation may be refused by the reader (issue 35, class 1): then
    // there is nothing to convert
    if (r.skipped && !label.startsWith('nemesis only')) all.push(`${label}: ${r.skipped}`);
    if (!r.skipped) all.push(...r.problems);
    // isoscope convert (the CLI) writes what the module writes
    const cliOut = spawnSync(cli, ['convert', '--to', 'jepsen', '-', '-'], { input: text, encoding: 'utf8' });
    if (!r.skipped) {
      must(mod.load(['h.edn'], [enc.encode(text)], ''), label);
      if (cliOut.stdout !== must(mod.convert('jepsen'), label)) all.push(`${label}: isoscope convert --to jepsen writes another text than the module (${cliOut.stderr})`);
    }
  }
  assert.deepEqual(all, []);
});

test('fixtures (the LIN fixtures, Elle, every format\'s lost update, recorded runs) convert and link back to their verdicts', () => {
  const all = [];
  for (const p of FIXTURES) {
    const { names, blobs } = readInput(p);
    const r = roundTrip(path.relative(repoRoot, p), names, blobs);
    if (r.skipped) all.push(`${p}: ${r.skipped}`); else all.push(...r.problems);
  }
  assert.deepEqual(all, []);
});

test('generated histories convert and link back to their verdicts', () => {
  const all = [];
  for (const args of GENERATED) {
    const text = generate(args);
    const r = roundTrip(`generate ${args.join(' ')}`, ['generated'], [text]);
    if (args[0] === '--register') {  // isoscope convert (the CLI) writes what the module writes
      must(mod.load(['generated'], [text], ''), 'reload');
      const cliOut = spawnSync(cli, ['convert', '--to', 'jepsen', '-', '-'], { input: text, encoding: 'utf8' });
      if (cliOut.stdout !== must(mod.convert('jepsen'), 'convert')) all.push(`generate ${args.join(' ')}: isoscope convert --to jepsen writes another text than the module (${cliOut.stderr})`);
    }
    if (r.skipped) all.push(`generate ${args.join(' ')}: ${r.skipped}`); else all.push(...r.problems);
  }
  assert.deepEqual(all, []);
});

test('the corpus converts and links back to its verdicts', needsCorpus, () => {
  const all = [];
  const manifest = JSON.parse(readFileSync(path.join(corpusRoot, 'manifest.json'), 'utf8'));
  for (const e of manifest.entries) {
    const { names, blobs } = readInput(path.join(corpusRoot, e.path));
    const r = roundTrip(e.path, names, blobs, e.format);
    if (r.skipped) all.push(`${e.path}: ${r.skipped}`); else all.push(...r.problems);
  }
  assert.deepEqual(all, []);
});

test('isoscope convert --to plume says that it leaves out timestamps (SSER, LIN), and only when there are some', () => {
  for (const [args, timed] of [[['--engine', 'si', '--txns', '5'], true], [['--mt', 'serial', '--txns', '5'], true], [['--txns', '5'], false], [['--txns', '5', '--timestamps'], true]]) {
    const r = spawnSync(cli, ['convert', '--to', 'plume', '-', '-'], { input: generate(args), encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    if (timed) assert.match(r.stderr, /plume has no timestamps.*SSER and LIN cannot be decided/, args.join(' '));
    else assert.equal(r.stderr, '', args.join(' '));
  }
});
