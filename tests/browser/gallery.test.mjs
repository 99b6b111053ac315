// The gallery and help (issue 23): an RR example, no two identical examples, one example in each
// format other tools write (Elle EDN, plume, dbcop text and bincode, a Cobra folder), each
// opening with its verdicts; links to the levels, formats and API docs that resolve.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ladder, setup, waitChecked } from './_helpers.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

test('the gallery: an RR example, no duplicates, every format, links to the docs', async () => {
  const page = await env.landing();
  await page.waitForSelector('.example');
  const index = await page.evaluate(async () => (await fetch('./examples/index.json')).json());
  assert.ok(index.some((e) => e.expect?.RR === 'fail' && e.expect?.RC === 'pass'), 'no example fails RR and passes RC');
  const files = index.map((e) => e.file);
  assert.equal(new Set(files).size, files.length);
  assert.ok(!files.includes('dbcop-dirty-read.json'), 'dbcop-dirty-read.json is aborted-read.json');
  assert.deepEqual(['elle', 'plume', 'dbcop-text', 'dbcop-bincode', 'cobra'].filter((f) => !index.some((e) => e.format === f)), []);
  for (const href of await page.$$eval('#docs-links a', (as) => as.map((a) => a.href))) {
    const status = await page.evaluate(async (u) => (await fetch(u)).status, href.split('#')[0]);
    assert.equal(status, 200, href);
  }
  // a folder example opens as the folder it is, with the verdicts the gallery shows
  const cobra = index.find((e) => e.format === 'cobra');
  await page.click(`.example[data-example="${cobra.file}"]`);
  await waitChecked(page);
  assert.equal(await page.textContent('#format'), 'cobra');
  const got = await ladder(page);
  for (const [level, verdict] of Object.entries(cobra.expect)) assert.equal(got[level], verdict, level);
  // and from its address, after a reload
  await page.reload();
  await waitChecked(page);
  assert.equal(await page.textContent('#format'), 'cobra');
  assert.deepEqual(page.errors, []);
});

test("the textbook tables (a phantom, predicate skews) open with the verdicts their manifest gives, as on the command line", async () => {
  const page = await env.landing();
  await page.waitForSelector('.example');
  const index = await page.evaluate(async () => (await fetch('./examples/index.json')).json());
  const tables = ['phantom.json', 'predicate-write-skew.json', 'predicate-read-skew.json'].map((f) => index.find((e) => e.file === f));
  assert.ok(tables.every(Boolean), 'the gallery has the three textbook tables');
  for (const t of tables) {
    await env.landing(page);
    await page.waitForSelector('.example');
    await page.click(`.example[data-example="${t.file}"]`);
    await waitChecked(page);
    const got = await ladder(page);
    for (const [level, verdict] of Object.entries(t.expect)) assert.equal(got[level], verdict, `${t.file} ${level}`);
  }
  assert.deepEqual(page.errors, []);
});
