// Screenshots of the main views (docs/screenshots/) and keyboard/theme behaviour.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { setup, shot, waitChecked } from './_helpers.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

test('dark theme, history lanes with the anomaly highlighted, exports', async () => {
  const page = await env.page({ colorScheme: 'dark', acceptDownloads: true });
  await page.goto(env.server.url + '?example=' + (process.env.ISOSCOPE_VIEW_EXAMPLE ?? 'write-skew.json'));
  await waitChecked(page);
  await page.waitForSelector('#diagram[data-ready] svg .dnode');
  await shot(page, 'result-dark');
  // exports
  for (const [id, ext] of [['#export-svg', '.svg'], ['#export-dot', '.dot'], ['#export-png', '.png']]) {
    const [dl] = await Promise.all([page.waitForEvent('download'), page.click(id)]);
    assert.ok(dl.suggestedFilename().endsWith(ext), dl.suggestedFilename());
  }
  // the anomaly's transactions are highlighted in the history view
  await page.click('.explain ~ .diagram-tools button:has-text("Show in history")');
  await page.waitForSelector('.hv-cell.hl');
  const hl = await page.$$eval('.hv-cell.hl', (els) => els.map((e) => e.dataset.txn));
  assert.ok(hl.length >= 1);
  await shot(page, 'history-dark');
  await page.context().close();
});

test('light theme toggle and keyboard navigation of the ladder', async () => {
  const page = await env.page({ colorScheme: 'dark' });
  await page.goto(env.server.url + '?example=lost-update.json');
  await waitChecked(page);
  await page.click('#theme-toggle');
  assert.equal(await page.getAttribute('html', 'data-theme'), 'light');
  await page.focus('#ladder .level[data-level="RC"]');
  await page.keyboard.press('Enter');
  assert.equal(await page.getAttribute('#ladder .level.selected', 'data-level'), 'RC');
  await page.context().close();
});

test('works offline once loaded (service worker), and makes no foreign requests', async () => {
  const page = await env.page({ serviceWorkers: 'allow' });
  await page.goto(env.server.url);
  await page.waitForSelector('.example');
  await page.evaluate(() => navigator.serviceWorker.ready);
  // a second load goes through the worker and fills the cache with every asset
  await page.reload();
  await page.waitForSelector('.example');
  await page.click('.example[data-example="lost-update.json"]');
  await waitChecked(page);
  await page.context().setOffline(true);
  await page.reload();
  await page.waitForSelector('.example', { timeout: 15_000 });
  await page.click('.example[data-example="lost-update.json"]');
  await waitChecked(page);
  assert.ok(Object.keys(await page.$$eval('#ladder .level', (els) => els.map((e) => e.dataset.level))).length > 0);
  assert.deepEqual(page.foreign, []);
  await page.context().close();
});

test('the Content-Security-Policy forbids requests to other hosts', async () => {
  const page = await env.page();
  await page.goto(env.server.url);
  const csp = await page.getAttribute('meta[http-equiv="Content-Security-Policy"]', 'content');
  assert.match(csp, /connect-src 'self'/);
  assert.doesNotMatch(csp, /https?:|\*/);
  const blocked = await page.evaluate(() => fetch('http://example.com/x', { method: 'POST', body: 'history' }).then(() => false, () => true));
  assert.ok(blocked);
  await page.context().close();
});
