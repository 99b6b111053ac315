// Issue 22 in the wasm module: file names with lone surrogates, errors that say where, one rule
// for members given twice and for empty histories, CC over many sessions, text without
// terminal escapes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { loadIsoscope, value } from './load-module.mjs';

const mod = await loadIsoscope();
const enc = new TextEncoder();

function load(text, name = 'h.json', format = '', options = undefined) {
  const bytes = typeof text === 'string' ? enc.encode(text) : text;
  return JSON.parse(options ? mod.load([name], [bytes], format, options) : mod.load([name], [bytes], format));
}
// A repeated (key, value) makes its reads ambiguous; uniqueValues refuses it, naming both writes.
const unique = { uniqueValues: true };

test('a lone surrogate in a file name keeps the rest of the name', () => {
  const r = load('{"sessions": [[ [["r","x",0] ["w","x",1]] ]]}', 'a\uD800.json');
  assert.equal(r.ok, false);
  assert.equal(r.error.file, 'a\uFFFD.json');
  const r2 = load('not json', 'b\uDC00\uD800.json', 'isoscope');
  assert.equal(r2.error.file, 'b\uFFFD\uFFFD.json');
  const r3 = load('not json', 'ok\u{1F600}.json', 'isoscope');  // a pair stays a pair
  assert.equal(r3.error.file, 'ok\u{1F600}.json');
});

test('JSON text errors are located in the bytes', () => {
  const nul = enc.encode('{"sessions": [[[["w", "x\u0000", 1]]]]}');
  let r = load(nul);
  assert.equal(r.ok, false);
  assert.equal(r.error.offset, 24);
  assert.match(r.error.message, /control byte 0x00 inside a string/);
  const bad = new Uint8Array([...enc.encode('{"sessions":\n [[[["w", "x'), 0xff, ...enc.encode('", 1]]]]}')]);
  r = load(bad);
  assert.equal(r.error.line, 2);
  assert.match(r.error.message, /not UTF-8/);
  r = load('{"sessions": [[[["w", "x", 1]]]]}\n\nmore');
  assert.equal(r.error.line, 3);
  assert.match(r.error.message, /text after the end of the JSON document/);
  r = load('[[{"events":[{"Write":{"variable":0,"version":1}}],"comm', 'cut.json', 'dbcop-json');
  assert.match(r.error.message, /cut short/);
  assert.notEqual(r.error.offset, 0);
});

test('an archive inside an archive is named, not parsed', () => {
  const inner = gzipSync(Buffer.from('{"sessions": [[[["w", "x", 1]]]]}'));
  const r = load(gzipSync(inner), 'h.json.gz.gz');
  assert.equal(r.ok, false);
  assert.match(r.error.message, /an archive inside an archive is not read/);
  assert.equal(r.error.file, 'h.json.gz');
  assert.doesNotMatch(r.error.text, /line \d/);
});

test('EDN symbolic values, duplicate writes with lines, members given twice, empty histories', () => {
  let r = load('{:type :invoke, :f :txn, :value [[:w :x 1]], :process 0, :time 1, :a ##NaN}\n' +
               '{:type :ok, :f :txn, :value [[:w :x 1]], :process 0, :time 2}\n', 'h.edn');
  assert.equal(r.ok, true);
  r = load('{"sessions": [\n [[["w", "x", 1]]],\n [[["w", "x", 1]]]\n]}', 'h.json', '', unique);
  assert.match(r.error.message, /the first write at line 2/);
  assert.equal(r.error.line, 3);
  r = load('{"sessions": [[{"ops": [["w", "x", 1]], "status": "aborted",\n "status": "committed"}]]}');
  assert.match(r.error.message, /a second "status" member/);
  r = load('{"sessions": []}');
  assert.match(r.error.message, /no transactions/);
});

test('CC over 10^5 one-operation sessions is decided', () => {
  const parts = [];
  for (let i = 0; i < 100000; i++)
    parts.push(i % 2 === 0 ? `[[["w", ${i % 8}, ${i + 1}]]]` : `[[["r", ${(i - 1) % 8}, ${i}]]]`);
  const r = load(`{"initial": 0, "sessions": [${parts.join(',')}]}`);
  assert.equal(r.ok, true);
  const result = value(mod.check('CC', 0, 10));
  assert.equal(result.levels.CC.verdict, 'pass');
});

test('error text carries no terminal escapes', () => {
  const r = load('{"sessions": [[{"id": "t\\u001b]0;x\\u0007", "ops": [["w", "k\\u001b[2J", 1]]}], [[["w", "k\\u001b[2J", 1]]]]}',
                 'e\u001b[31m.json', '', unique);
  assert.equal(r.ok, false);
  assert.doesNotMatch(r.error.text, /[\u0000-\u001f\u007f-\u009f]/);
  assert.match(r.error.text, /\\x1b\[2J/);
});
