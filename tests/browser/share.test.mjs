// Share links: one click copies a URL; opening it reproduces the same result and view.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { corpus, dropFiles, ladder, setup, waitChecked } from './_helpers.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

test('a share link reproduces the verdicts and the selected level', async () => {
  const page = await env.page();
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: env.server.url.replace(/\/$/, '') });
  await page.goto(env.server.url);
  await page.waitForSelector('#dropzone');
  await dropFiles(page, [{ name: 'write-skew.json', content: readFileSync(join(corpus, 'textbook', 'write-skew.json')) }]);
  await waitChecked(page);
  const before = await ladder(page);
  await page.click('#ladder .level[data-level="SER"]');
  await page.click('#share');
  await page.waitForFunction(() => document.getElementById('share')?.dataset.link);
  const link = await page.$eval('#share', (b) => b.dataset.link);
  assert.match(link, /#h=[A-Za-z0-9_-]+.*l=SER/);
  const clip = await page.evaluate(() => navigator.clipboard.readText()).catch(() => link);
  assert.equal(clip, link);

  const other = await env.page();
  await other.goto(link);
  await waitChecked(other);
  assert.deepEqual(await ladder(other), before);
  assert.equal(await other.getAttribute('#ladder .level.selected', 'data-level'), 'SER');
  assert.match(await other.textContent('#detail-title'), /^SER/);
  assert.deepEqual(other.foreign, []);
  await page.context().close();
  await other.context().close();
});

test('a damaged share link shows an error', async () => {
  const page = await env.page();
  await page.goto(env.server.url + '#h=AAAAbroken');
  await page.waitForSelector('#load-error');
  assert.match(await page.textContent('#load-error'), /share link/i);
  await page.context().close();
});
