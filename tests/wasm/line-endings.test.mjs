// CR, LF and CRLF line endings are one thing in the wasm module too (issue 22, class 2): with
// CR-only endings a comment used to swallow the rest of the file, and the check passed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadIsoscope, value } from './load-module.mjs';

const mod = await loadIsoscope();
const enc = new TextEncoder();

// A lost update (SI fails) after comments, in each text format that has comments or lines.
const samples = {
  'history.edn': [
    '; a lost update',
    '{:type :ok, :f :txn, :value [[:r :x nil] [:w :x 1]], :process 0} ; the first',
    ';; between',
    '{:type :ok, :f :txn, :value [[:r :x nil] [:w :x 2]], :process 1}',
    '; the end'],
  'h.dbcop.txt': ['// a lost update', '[x==? x:=1] // the first', '--- // the second session', '[x==? x:=2]', '// the end'],
  'h.plume': ['r(1,0,0,1)', 'w(1,1,0,1)', '', 'r(1,0,1,2)', 'w(1,2,1,2)'],
  'h.awdit.txt': ['w 1 0', '=====', '', 'r 1 0', 'w 1 1', '=====', 'r 1 0', 'w 1 2'],
};

function verdicts(name, text) {
  const r = JSON.parse(mod.load([name], [enc.encode(text)], ''));
  assert.equal(r.ok, true, `${name}: ${JSON.stringify(r.error)}`);
  const levels = value(mod.check('', 0, 10)).levels;
  return { transactions: r.value.transactions, verdicts: Object.fromEntries(Object.entries(levels).map(([l, v]) => [l, v.verdict])) };
}

for (const [name, lines] of Object.entries(samples)) {
  test(`${name}: CR, LF and CRLF endings give the same history and verdicts`, () => {
    const lf = verdicts(name, lines.join('\n') + '\n');
    assert.equal(lf.verdicts.SI, 'fail');
    for (const nl of ['\r', '\r\n']) assert.deepEqual(verdicts(name, lines.join(nl) + nl), lf, JSON.stringify(nl));
  });
}

test('an error names the same line with CR-only endings', () => {
  const lines = ['// one', '[x:=1]', '// three', '[x=1]'];
  for (const nl of ['\n', '\r', '\r\n']) {
    const r = JSON.parse(mod.load(['bad.txt'], [enc.encode(lines.join(nl))], 'dbcop-text'));
    assert.equal(r.ok, false);
    assert.equal(r.error.line, 4, JSON.stringify(nl));
  }
});
