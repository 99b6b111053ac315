// The page's state (issue 23): a dropped history survives a reload (kept in this browser's
// IndexedDB, never sent); the level, anomaly and tab in view are in the address, so a reload and
// Back/Forward come back to them; arrow keys move in the level list; while levels run, the panel
// shows those decided; "Show in history" puts the anomaly's sessions whole in view.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { corpus, dropFiles, ladder, setup, waitChecked } from './_helpers.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

test('a reload after a drop keeps the history, the level and the anomaly', async () => {
  const page = await env.page();
  await page.goto(env.server.url);
  await page.waitForSelector('#dropzone');
  await dropFiles(page, [{ name: 'skew.json', content: readFileSync(join(corpus, 'textbook', 'write-skew.json')) }]);
  await waitChecked(page);
  const verdicts = await ladder(page);
  await page.click('#ladder .level[data-level="SI"]');
  assert.match(page.url(), /input=local.*level=SI|level=SI.*input=local/);
  // arrow keys move in the level list, selecting as they go
  await page.focus('#ladder .level[data-level="SI"]');
  await page.keyboard.press('ArrowUp');
  await page.waitForFunction(() => document.querySelector('#ladder .level.selected')?.dataset.level === 'SER');
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.level), 'SER');
  assert.match(page.url(), /level=SER/);
  await page.reload();
  await waitChecked(page);
  assert.deepEqual(await ladder(page), verdicts);
  assert.equal(await page.textContent('.inputbar .file strong'), 'skew.json');
  assert.equal(await page.getAttribute('#ladder .level.selected', 'data-level'), 'SER');
  // only this origin was ever asked for anything
  assert.deepEqual(page.foreign, []);
  await page.close();
});

test('"Show in history" puts the anomaly\'s sessions whole in view', async () => {
  const page = await env.page({ viewport: { width: 1100, height: 800 } });
  await page.goto(`${env.server.url}?example=write-skew.json`);
  await waitChecked(page);
  await page.click('#ladder .level[data-level="SER"]');
  await page.click('button:has-text("Show in history")');
  await page.waitForSelector('.hv-cell.hl');
  await page.waitForTimeout(300);
  const inView = await page.$$eval('.hv-cell.hl', (cells) => {
    const box = document.querySelector('.hv-scroller, .hv')?.getBoundingClientRect();
    return cells.map((c) => { const r = c.getBoundingClientRect(); return r.left >= (box?.left ?? 0) - 1 && r.right <= (box?.right ?? innerWidth) + 1; });
  });
  assert.ok(inView.length >= 2 && inView.every(Boolean), JSON.stringify(inView));
  await page.close();
});
