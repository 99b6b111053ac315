// Seeds for the fuzz targets (scripts/fuzz.sh): what found issue 22's crashes. Long runs of one
// construct (EDN discards, tags, sets, maps, vectors, lists, metadata, JSON nesting, dbcop text
// brackets), EDN with discards and tagged literals, CR-only line endings, inputs that no
// detector recognises (a history after a 5 KB discard, "sessions" after byte 4096, "ustar" at
// byte 257), and folders in fuzz_read.cpp's FUZZ_FOLDER layout.
// Usage: node tests/fuzz/make-seeds.mjs DIR
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const dir = process.argv[2];
if (!dir) throw new Error('usage: make-seeds.mjs DIR');
mkdirSync(dir, { recursive: true });
let n = 0;
const put = (name, content) => writeFileSync(path.join(dir, `g${++n}-${name}`), content);

const ops =
  '{:type :invoke, :f :txn, :value [[:append :x 1] [:r :y nil]], :process 0, :time 1, :index 0}\n' +
  '{:type :ok, :f :txn, :value [[:append :x 1] [:r :y [1]]], :process 0, :time 2, :index 1}\n';
const json = '{"format": "isoscope/1", "sessions": [[{"ops": [["w", "x", 1]], "start": 1, "end": 2}], [[["r", "x", 1]]]]}';
const plume = 'w(1,1,0,0)\nr(1,1,1,1)\n';
const dbcopText = '[x:=1 y:=2]\n---\n[x==1 y==?]\n';

// Long runs of one construct: 60 KB each (the targets' -max_len is 64 KB).
const runs = { discard: '#_ 1 ', nested_discard: '#_ ', tag: '#inst ', tag_str: '#uuid "x" ', set: '#{', map: '{:a ',
  vector: '[', list: '(', meta: '^:m ', json_array: '[', json_object: '{"a": ', dbcop_bracket: '[x:=1 ', plume_paren: 'r(' };
for (const [name, c] of Object.entries(runs)) put(`run-${name}.edn`, c.repeat(Math.floor(60000 / c.length)) + ops);

// EDN with discards and tagged literals in every position.
put('discards.edn', `#_ {:skipped 1}\n[#_ 0 ${ops.trim().split('\n').map((l) => `#jepsen.history.Op ${l.replace(':value [', ':value #_ 7 [#_ [:bogus 1] ')}`).join('\n #_ "x" ')} #_ 9]`);
put('tags.edn', ops.replace(':time 1', ':time #inst #uuid 1 #_ 2').replace('[:r :y [1]]', '#foo/bar [:r :y #foo [1]]'));
// CR-only line endings, with comments
put('cr.edn', `; a comment\r${ops.replace(/\n/g, '\r')}`);
put('cr.dbcop.txt', `// a comment\r${dbcopText.replace(/\n/g, '\r')}`);
put('cr.plume.txt', plume.replace(/\n/g, '\r'));
put('crlf.json', json.replace(/, /g, ',\r\n'));
// Unrecognised by detection: the telling part comes after the first 4 KB, or looks like tar.
put('late-elle.edn', `#_ "${'x'.repeat(5000)}"\n${ops}`);
put('late-sessions.json', `{"pad": "${'p'.repeat(5000)}", "sessions": [[[["w", "x", 1]]]]}`);
const ustar = `{"sessions": [[[["w", "x", 1]]]], "pad": "`;
put('ustar.json', `${ustar}${'a'.repeat(257 - ustar.length)}ustar${'b'.repeat(300)}"}`);
put('bad-plume.txt', 'r(1,1,0,0)\nw(1,2,0,1)\nr(1,x,0,2)\n');
// Folders (FUZZ_FOLDER): parts split at "\xff\xfe|", the first byte of each choosing its name
// (0 T1.log, 1 T2.log, 2 T10.log, 3 history.bincode, 4 h.json, 5 .DS_Store, 6 history.edn, 7 h.txt).
const folder = (...parts) => Buffer.concat(parts.flatMap(([k, b], i) => [...(i ? [Buffer.from([0xff, 0xfe, 0x7c])] : []), Buffer.from([k]), Buffer.from(b)]));
const cobraLog = Buffer.from('5300000000000000015700000000000000650000000000000007000000000000000143000000000000000001', 'hex');
put('folder-cobra', folder([0, cobraLog], [1, cobraLog], [5, 'junk']));
put('folder-damaged-cobra', folder([0, Buffer.concat([Buffer.from('X'), cobraLog.subarray(1)])], [1, cobraLog]));
put('folder-json-dsstore', folder([4, json], [5, '\0\0\0\x01Bud1']));
put('folder-edn-txt', folder([6, ops], [7, plume]));
console.log(`${n} seeds in ${dir}`);
