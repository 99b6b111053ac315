// Big histories: cancel a long check; the virtualized history view with 10^6 transactions.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { assertBoundedPage, countMainThreadWasm, setup, shot } from './_helpers.mjs';
import { bigHistory } from './_big.mjs';

const N = Number(process.env.ISOSCOPE_BIG_N ?? 300_000);
let env;
before(async () => { env = await setup({ '/big.json': ['application/json', bigHistory(N)] }); });
after(async () => { await env?.close(); });

test(`cancel a long check of ${N.toLocaleString('en-US')} transactions, then scroll the history`, async () => {
  const page = await env.page();
  await countMainThreadWasm(page);
  await page.goto(env.server.url + '?src=/big.json');
  await page.waitForSelector('#stats', { timeout: 300_000 });
  assert.match(await page.textContent('#stats'), new RegExp(N.toLocaleString('en-US')));
  // a level is being checked, in a worker: the main thread answers while it runs; cancel it
  await page.waitForSelector('#ladder .level[data-verdict="running"]', { timeout: 300_000 });
  await page.evaluate(() => new Promise((r) => setTimeout(r, 0)));
  await assertBoundedPage(page);
  await page.click('#cancel');
  // cancelling ends the worker (a timeout here only stops a hung test)
  await page.waitForSelector('body[data-checked="true"]', { timeout: 120_000 });
  const cancelled = await page.$$eval('#ladder .level[data-verdict="unknown"]', (els) => els.map((e) => e.textContent));
  assert.ok(cancelled.length >= 1, 'some level is unknown');
  assert.ok(cancelled.some((t) => /cancelled/.test(t)));
  await shot(page, 'cancelled');
  // too large for a link, and no anomaly to share instead: the Share dialog says so
  await page.click('#share');
  await page.waitForFunction(() => /too large/i.test(document.getElementById('share-refused')?.textContent ?? ''), null, { timeout: 30_000 });
  await page.click('#share-dialog button[value="close"]');
  await page.waitForSelector('#share-dialog', { state: 'detached' });

  // history view: only visible cells exist, scrolling to the end shows the last transactions
  await page.click('#tab-history');
  await page.waitForSelector('.hv-cell .hv-ops', { timeout: 60_000 });
  const cells = await page.$$eval('.hv-cell', (els) => els.length);
  assert.ok(cells < 800, `${cells} cells in the DOM`);
  await page.click('.hv-cell[data-txn="1"]');
  await page.waitForSelector('.hv-detail h3');
  await shot(page, 'history');
  await page.$eval('.hv-scroller', (s) => { s.scrollTop = s.scrollHeight; s.scrollLeft = s.scrollWidth; });
  await page.waitForFunction((n) => [...document.querySelectorAll('.hv-cell .hv-id')].some((e) => Number(e.textContent.slice(1)) > n - 40), N, { timeout: 30_000 });
  const after = await page.$$eval('.hv-cell', (els) => els.length);
  assert.ok(after < 800);
  assert.deepEqual(page.foreign, []);
  await page.close();
});
