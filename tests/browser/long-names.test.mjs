// Long names in the page (issue 35, class 11): a history whose key, values and transaction id
// are a megabyte each. The results, the anomaly, its diagram and the History show them shortened
// (the DOM's text stays small), and the whole key is one click away, as a text file (a blob: URL)
// that never enters the DOM. Sizes and structure only: no durations are asserted here.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { deflateRawSync } from 'node:zlib';
import { ladder, setup, waitChecked } from './_helpers.mjs';

const MiB = 1 << 20;
const key = 'k'.repeat(MiB);
const value = 'v'.repeat(MiB);
const id = 'i'.repeat(MiB);
// A lost update on the long key (SI, SER and SSER fail); T3 (the long id) reads the long value.
const history = JSON.stringify({
  format: 'isoscope/1', initial: 0, sessions: [
    [{ id, ops: [['r', key, 0], ['w', key, value]], start: 1, end: 5 }],
    [{ ops: [['r', key, 0], ['w', key, 2]], start: 2, end: 6 }],
    [{ ops: [['r', key, value], ['w', 'y', 'nil']], start: 7, end: 8 }],
  ],
});

let env;
before(async () => { env = await setup({ '/long.json': ['application/json', history] }); });
after(async () => { await env?.close(); });

const domText = (page) => page.evaluate(() => document.body.innerHTML.length + document.body.textContent.length);

test('a 1 MiB key, value and id: shortened in every view, the whole key on demand', async () => {
  const page = await env.page();
  // the page's CSP allows no fetch of blob: URLs: keep each Blob the page makes a URL of
  await page.addInitScript(() => {
    const make = URL.createObjectURL;
    window.__blobs = new Map();
    URL.createObjectURL = (b) => { const u = make(b); window.__blobs.set(u, b); return u; };
  });
  await page.goto(`${env.server.url}?src=/long.json`);
  await waitChecked(page);
  const levels = await ladder(page);
  assert.equal(levels.SER, 'fail');
  assert.equal(levels.RC, 'pass');
  // the anomaly's explanation, edges and diagram: shortened
  const results = await domText(page);
  assert.ok(results < 400_000, `the results page holds ${results} characters of markup and text`);
  assert.match(await page.textContent('body'), /k{32}\u2026\[key 1, 1048576 bytes\]/);

  await page.click('#tab-history');
  await page.waitForSelector('.hv-cell .hv-ops');
  await page.click('.hv-cell[data-txn="1"]');
  await page.waitForSelector('.hv-detail .whole-name');
  const history = await domText(page);
  assert.ok(history < 400_000, `the History holds ${history} characters of markup and text`);
  const detail = await page.textContent('.hv-detail');
  assert.match(detail, /k{32}\u2026\[key 1, 1048576 bytes\]/);
  assert.match(detail, /v{32}\u2026\[value 1, 1048576 bytes\]/);
  assert.match(detail, /i{32}\u2026\[1048576 bytes\]/);  // the id
  // the string "nil" is quoted: it cannot be read as nil
  await page.click('.hv-cell[data-txn="3"]');
  await page.waitForFunction(() => document.querySelector('.hv-detail h3')?.textContent.startsWith('T3'));
  assert.match(await page.textContent('.hv-detail'), /w y \u2190 "nil"/);

  // the whole key: a link that opens it as a text file, outside the DOM
  await page.click('.hv-cell[data-txn="1"]');
  await page.waitForSelector('.hv-detail .whole-name[data-name="key 1"]');
  const popup = page.context().waitForEvent('page').catch(() => null);
  await page.click('.hv-detail .whole-name[data-name="key 1"]');
  await page.waitForFunction(() => document.querySelector('.whole-name[data-name="key 1"]')?.href.startsWith('blob:'));
  const whole = await page.evaluate(async () => {
    const t = await window.__blobs.get(document.querySelector('.whole-name[data-name="key 1"]').href).text();
    return { length: t.length, same: t === 'k'.repeat(1 << 20) };
  });
  assert.deepEqual(whole, { length: MiB, same: true });
  await (await popup)?.close();
  assert.ok((await domText(page)) < 400_000);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a share link of an 8 MiB key: decoded in a worker of its own, checked, shown shortened', async () => {
  const big = 'k'.repeat(8 * MiB);
  const text = JSON.stringify({ format: 'isoscope/1', initial: 0, sessions: [
    [{ ops: [['r', big, 0], ['w', big, 1]] }], [{ ops: [['r', big, 0], ['w', big, 2]] }]] });
  const link = `${env.server.url}#h=${deflateRawSync(Buffer.from(text), { level: 9 }).toString('base64url')}`;
  const page = await env.page();
  const workers = [];
  page.on('worker', (w) => workers.push(w.url()));
  await page.goto(link);
  await waitChecked(page);
  // inflating the link's 8 MiB took the main thread for 1.5 s: the link worker does it
  assert.ok(workers.some((u) => /decode\.worker/.test(u)), workers.join(' '));
  assert.equal((await ladder(page)).SER, 'fail');  // a lost update on the long key
  assert.ok((await domText(page)) < 400_000);
  assert.deepEqual(page.errors, []);
  await page.close();
});
