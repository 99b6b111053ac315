// Loading: drop a textbook history and read its verdict ladder; several files; a zip; a bad file.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { zipSync } from 'fflate';
import { gzipSync } from 'node:zlib';
import { corpus, dropFiles, ladder, setup, shot, waitChecked } from './_helpers.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

const manifest = JSON.parse(readFileSync(join(corpus, 'manifest.json'), 'utf8'));
const expectOf = (p) => manifest.entries.find((e) => e.path === p).expect;

for (const name of ['lost-update', 'write-skew', 'serial', 'causality-violation']) {
  test(`drop textbook/${name}.json: the ladder matches the corpus verdicts`, async () => {
    const page = await env.landing();
    await dropFiles(page, [{ name: `${name}.json`, content: readFileSync(join(corpus, 'textbook', `${name}.json`)) }]);
    await page.waitForSelector('#format');
    assert.equal(await page.textContent('#format'), 'isoscope');
    await waitChecked(page);
    const got = await ladder(page);
    for (const [level, verdict] of Object.entries(expectOf(`textbook/${name}.json`))) assert.equal(got[level], verdict, `${name}: ${level}`);
    // the strongest satisfied level is marked, and nothing stronger passes while a weaker fails
    const best = await page.$$eval('#ladder .level.best', (els) => els.map((e) => e.dataset.level));
    const chain = ['SSER', 'SER', 'SI', 'PC', 'CC', 'RA', 'RR', 'RC'].filter((l) => got[l]);
    const firstPass = chain.find((l) => got[l] === 'pass');
    if (firstPass) assert.ok(best.includes(firstPass));
    if (Object.values(got).includes('fail')) {
      await page.waitForSelector('#explanation');
      await page.waitForSelector('#diagram[data-ready] svg .dnode');
      if (name === 'lost-update') await shot(page, 'result-anomaly');
    }
    assert.deepEqual(page.errors, []);
    assert.deepEqual(page.foreign, []);
  });
}

test('the examples gallery opens a textbook history', async () => {
  const page = await env.landing();
  await page.waitForSelector('.example[data-example="write-skew.json"]');
  await shot(page, 'landing');
  await page.click('.example[data-example="write-skew.json"]');
  await waitChecked(page);
  const got = await ladder(page);
  assert.equal(got.SER, 'fail');
  assert.equal(got.SI, 'pass');
});

const cobraDir = join(corpus, 'cobra', 'cock-G2');
const cobraFiles = () => readdirSync(cobraDir).filter((f) => f.endsWith('.log')).map((f) => ({ name: f, content: readFileSync(join(cobraDir, f)) }));

test('several files at once: the Cobra logs of one run', async () => {
  const page = await env.landing();
  await dropFiles(page, cobraFiles());
  await page.waitForSelector('#format');
  assert.equal(await page.textContent('#format'), 'cobra');
  await waitChecked(page);
  const got = await ladder(page);
  for (const [level, verdict] of Object.entries(expectOf('cobra/cock-G2'))) assert.equal(got[level], verdict, level);
});

test('a zip of a folder of Cobra logs', async () => {
  const page = await env.landing();
  const zip = zipSync(Object.fromEntries(cobraFiles().map((f) => [`cock-G2/${f.name}`, new Uint8Array(f.content)])));
  await dropFiles(page, [{ name: 'cock-G2.zip', content: Buffer.from(zip) }]);
  await page.waitForSelector('#format');
  assert.equal(await page.textContent('#format'), 'cobra');
  await waitChecked(page);
  assert.equal((await ladder(page)).SER, 'fail');
});

test('a zip of a history loads like the file itself', async () => {
  const page = await env.landing();
  const zip = zipSync({ 'lost-update.json': readFileSync(join(corpus, 'textbook', 'lost-update.json')) });
  await dropFiles(page, [{ name: 'history.zip', content: Buffer.from(zip) }]);
  await waitChecked(page);
  assert.equal((await ladder(page)).SI, 'fail');
});

test('a .gz of a history loads, and a damaged zip shows the core\'s archive error', async () => {
  const page = await env.landing();
  await dropFiles(page, [{ name: 'lost-update.json.gz', content: gzipSync(readFileSync(join(corpus, 'textbook', 'lost-update.json'))) }]);
  await waitChecked(page);
  assert.equal((await ladder(page)).SI, 'fail');
  const zip = zipSync(Object.fromEntries(cobraFiles().map((f) => [`cock-G2/${f.name}`, new Uint8Array(f.content)])));
  await dropFiles(page, [{ name: 'cut.zip', content: Buffer.from(zip.subarray(0, zip.length - 40)) }]);
  await page.waitForSelector('#load-error');
  const text = await page.textContent('#load-error');
  assert.match(text, /cut\.zip/);
  assert.match(text, /byte \d+/);
  assert.match(text, /end-of-central-directory/);
});

test('a malformed file shows the parser message with its position, and the page survives', async () => {
  const page = await env.landing();
  await dropFiles(page, [{ name: 'broken.json', content: '{"format": "isoscope/1",\n "sessions": [[{"ops": [["r", "x" 0]]}]]}' }]);
  await page.waitForSelector('#load-error');
  const text = await page.textContent('#load-error');
  assert.match(text, /broken\.json/);
  assert.match(text, /line 2/);
  await shot(page, 'error');
  // the tab still works: a good file loads afterwards
  await dropFiles(page, [{ name: 'serial.json', content: readFileSync(join(corpus, 'textbook', 'serial.json')) }]);
  await waitChecked(page);
  assert.equal((await ladder(page)).SER, 'pass');
  assert.deepEqual(page.foreign, []);
});

test('binary junk is rejected with a message, not a crash', async () => {
  const page = await env.landing();
  await dropFiles(page, [{ name: 'junk.bin', content: Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 131 + 7) & 255)) }]);
  await page.waitForSelector('#load-error');
  assert.match(await page.textContent('#load-error'), /junk\.bin|format|expected/i);
});

test('an unrecognised file offers the core\'s formats, and reads the same file as the one chosen', async () => {
  const page = await env.landing();
  await dropFiles(page, [{ name: 'notes.txt', content: 'these are notes, not a history\n' }]);
  await page.waitForSelector('#load-error #read-as');
  const text = await page.textContent('#load-error');
  assert.match(text, /could not recognise the format/);
  assert.doesNotMatch(text, /--format/); // the app's words, not the command line's
  const options = await page.$$eval('#load-error select option', (os) => os.map((o) => o.value).filter(Boolean));
  // every format the core reads (`isoscope formats --json`, one source of truth)
  const coreFormats = JSON.parse(readFileSync(new URL('../../web/generated/formats.json', import.meta.url), 'utf8')).map((f) => f.name);
  assert.deepEqual(options.sort(), coreFormats.sort());
  await page.selectOption('#load-error select', 'plume');
  await page.click('#read-as');
  await page.waitForFunction(() => /plume|r\(key/.test(document.getElementById('load-error')?.textContent ?? '') && !/could not recognise/.test(document.getElementById('load-error')?.textContent ?? ''));
  assert.match(await page.textContent('#load-error'), /notes\.txt/);
  assert.match(await page.textContent('#load-error'), /line 1/);
  assert.deepEqual(page.errors, []);
});

test('pasted text is checked', async () => {
  const page = await env.landing();
  await page.click('#paste-open');
  await page.fill('dialog textarea', readFileSync(join(corpus, 'textbook', 'lost-update.json'), 'utf8'));
  await page.click('#paste-load');
  await waitChecked(page);
  assert.equal((await ladder(page)).SER, 'fail');
});
