// Hostile input, second round (issue 22), through the wasm module: long runs of every nesting
// construct in every reader (class 4), the diagnosis of an unrecognised input within the memory
// estimate on the 256 MB build (5), buffer lengths near 4 GiB (6), the test-only trap (7), tar
// look-alikes (10), hidden files (13) and a damaged Cobra log (14). After each hostile input the
// SAME module instance must still check a good history: a corrupt instance is the failure.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { loadIsoscope, repoRoot, value } from './load-module.mjs';

const enc = new TextEncoder();
const good = enc.encode('{"initial": 0, "sessions": [[ [["w","x",1]] ], [ [["r","x",1]] ]]}');
const ednOps =
  '{:type :invoke, :f :txn, :value [[:append :x 1]], :process 0, :time 1, :index 0}\n' +
  '{:type :ok, :f :txn, :value [[:append :x 1]], :process 0, :time 2, :index 1}\n';

/** load() never throws: it answers {ok} or {ok: false, error}. */
function load(mod, names, blobs, format = '') {
  let json;
  assert.doesNotThrow(() => { json = mod.load(names, blobs, format); }, `load(${names}) threw`);
  return JSON.parse(json);
}
function stillWorks(mod, what) {
  const r = load(mod, ['good.json'], [good]);
  assert.equal(r.ok, true, `${what}: ${JSON.stringify(r.error)}`);
  assert.equal(value(mod.checkLevel('RC', 0, 1)).verdict, 'pass', what);
}

test('long runs of any one construct in any reader: an answer, and the module goes on (class 4)', async () => {
  const mod = await loadIsoscope();
  const formats = ['', ...value(mod.formats()).map((f) => f.name)];
  const constructs = ['[', '{', '(', '#{', '#_ ', '#_ 1 ', '#inst ', '#tag "x" ', '^:m ', '{"a": ', '"', ';', '[x:=1 ', 'r('];
  for (const c of constructs) {
    const run = enc.encode(c.repeat(Math.ceil(100000 / c.length)));
    for (const format of formats) {
      const r = load(mod, [format === 'cobra' ? 'T1.log' : 'h.txt'], [run], format);
      if (!r.ok) assert.ok(r.error.message.length > 0, `${c} as ${format || 'detected'}`);
    }
    stillWorks(mod, `after runs of '${c}'`);
  }
  // 40,000 discards (a RangeError at 6-10k before): a correct parse
  const r = load(mod, ['h.edn'], [enc.encode('#_ 1 '.repeat(40000) + ednOps)], 'elle');
  assert.equal(r.ok, true, JSON.stringify(r.error));
  assert.equal(r.value.transactions, 1);
  const deep = load(mod, ['h.edn'], [enc.encode('#_ '.repeat(40000) + ednOps)], 'elle');
  assert.equal(deep.ok, false);
  assert.match(deep.error.text, /h\.edn: line 1.*nest too deeply/);
  stillWorks(mod, 'after 40,000 discards');
});

test('an unrecognised input is diagnosed within the memory estimate on the 256 MB build (class 5)', async () => {
  const small = await loadIsoscope({ small: true });
  // Sizes as the issue found them: 64 MB on the 256 MB heap, with distinct values (a history
  // that reads all the way through, allocating as it goes).
  const lines = (n, f) => { const a = new Array(n); for (let i = 0; i < n; i++) a[i] = f(i); return a.join(''); };
  // Elle whose first form is a 5 KB discard (detection looks at 4 KB)
  const edn = enc.encode(`#_ "${'x'.repeat(5000)}"\n` +
    lines(640_000, (i) => `{:type :ok, :f :txn, :value [[:append :k${i % 1000} ${i}]], :process ${i % 50}, :time ${i}, :index ${i}}\n`));
  assert.ok(edn.length > 60e6, `${edn.length} bytes`);
  let r = load(small, ['history.edn'], [edn]);
  assert.equal(r.ok, false);
  assert.equal(r.error.format_unrecognised, true);
  // Elle's own estimate, or (when even the lightest reader would not fit) the one message for all.
  assert.match(r.error.message, /elle: reading this elle input \(\d+ MB\) needs about \d+ MB of memory|no reader can try this \d+ MB input in the memory available/);
  stillWorks(small, 'after the Elle file');
  // isoscope JSON whose "sessions" starts after byte 4096
  const json = enc.encode(`{"pad": "${'p'.repeat(5000)}", "sessions": [[` +
    lines(1_600_000, (i) => `[["w","k${i % 1000}",${i}],["r","k${(i + 7) % 1000}",${i - 7}]],`) + '[]]]}');
  assert.ok(json.length > 60e6, `${json.length} bytes`);
  r = load(small, ['h.json'], [json]);
  assert.equal(r.ok, false);
  // Every reader that would not fit is refused by its estimate (plume's goes by lines, so it may
  // try this one-line file and stop at its first byte); none runs past the memory there is.
  assert.match(r.error.message, /no reader can try this 64 MB input in the memory available|isoscope: reading this isoscope input \(64 MB\) needs about \d+ MB of memory/);
  stillWorks(small, 'after the JSON file');
});

test('a buffer length near 4 GiB is refused as an answer, not a thrown number (class 6)', async () => {
  const mod = await loadIsoscope();
  // The guard reads the length before touching the bytes: an object with only a length is enough.
  for (const length of [2 ** 32 - 64, 2 ** 32 - 10, 2 ** 32 - 1, 2 ** 32, 2 ** 32 + 5, 2 ** 33, 2 ** 31]) {
    const r = load(mod, ['huge.json'], [{ length }]);
    assert.equal(r.ok, false, String(length));
    assert.equal(r.error.file, 'huge.json');
    assert.match(r.error.message, /not enough memory to load \d+ bytes/, String(length));
  }
  for (const length of [-1, NaN]) assert.equal(load(mod, ['bad'], [{ length }]).ok, false, String(length));
  stillWorks(mod, 'after the 4 GiB lengths');
});

test('the test-only format "debug-trap" traps the module (class 7: docs/wasm-api.md)', async () => {
  const mod = await loadIsoscope();
  assert.throws(() => mod.load(['good.json'], [good], 'debug-trap'), /unreachable/);
  // front ends then start a fresh instance (web/src/worker/core.worker.ts), which works
  stillWorks(await loadIsoscope(), 'a fresh instance after the trap');
});

test('ustar at byte 257 without a tar checksum, hidden files, a damaged Cobra log (classes 10, 13, 14)', async () => {
  const mod = await loadIsoscope();
  let json = '{"format": "isoscope/1", "sessions": [[[["w", "x", 1]]]], "pad": "';
  json += 'a'.repeat(257 - json.length) + 'ustar' + 'b'.repeat(300) + '"}';
  for (const format of ['', 'isoscope']) {
    const r = load(mod, ['h.json'], [enc.encode(json)], format);
    assert.equal(r.ok, true, JSON.stringify(r.error));
  }
  let r = load(mod, ['run/.DS_Store', 'run/h.json'], [new Uint8Array([0, 0, 0, 1]), good]);
  assert.equal(r.ok, true, JSON.stringify(r.error));
  assert.equal(r.value.format, 'isoscope');
  const dir = path.join(repoRoot, 'tests/fixtures/formats/cobra');
  const names = readdirSync(dir).sort();
  const blobs = names.map((n) => new Uint8Array(readFileSync(path.join(dir, n))));
  blobs[0][0] = 'X'.charCodeAt(0);
  r = load(mod, names.map((n) => `cobra/${n}`), blobs);
  assert.equal(r.ok, false);
  assert.match(r.error.text, /^cobra\/T1\.log: byte 0: .*Cobra logs.*found 'X'/);
  stillWorks(mod, 'after the damaged log');
});
