// Embedding: the documented example page (web component + iframe).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { setup, shot } from './_helpers.mjs';

let env;
// a page of "another site" section that only adds the script tag and the element
const PLAIN = `<!doctype html><html><head><meta charset="utf-8"><title>plain</title>
<script type="module" src="/embed.js"></script></head><body>
<isoscope-check src="/examples/serial.json" levels="SER"></isoscope-check></body></html>`;
before(async () => { env = await setup({ '/plain.html': ['text/html; charset=utf-8', PLAIN] }); });
after(async () => { await env?.close(); });

test('the embed example page shows the component and the iframe', async () => {
  const page = await env.page();
  await page.goto(env.server.url + 'embed/');
  await page.waitForSelector('isoscope-check[data-state="done"]', { timeout: 60_000 });
  await shot(page, 'embed');
  const got = await page.$$eval('isoscope-check', ([el]) => Object.fromEntries([...el.shadowRoot.querySelectorAll('.level')].map((e) => [e.dataset.level, e.dataset.verdict])));
  assert.deepEqual(Object.keys(got).sort(), ['CC', 'RA', 'RC', 'SER', 'SI']);
  assert.equal(got.SER, 'fail');
  assert.equal(got.RC, 'pass');
  const frame = page.frameLocator('#demo-iframe');
  await frame.locator('body[data-checked="true"]').waitFor({ timeout: 60_000 });
  assert.equal(await frame.locator('#ladder .level[data-level="SER"]').getAttribute('data-verdict'), 'fail');
  await page.locator('#demo-iframe').scrollIntoViewIfNeeded();
  await shot(page, 'embed-iframe');
  assert.deepEqual(page.errors, []);
  assert.deepEqual(page.foreign, []);
  await page.context().close();
});

test('embed.js alone defines <isoscope-check>', async () => {
  const page = await env.page();
  await page.goto(env.server.url + 'plain.html');
  await page.waitForSelector('isoscope-check[data-state="done"]', { timeout: 60_000 });
  const v = await page.$eval('isoscope-check', (el) => el.shadowRoot.querySelector('.level[data-level="SER"]').dataset.verdict);
  assert.equal(v, 'pass');
  await page.context().close();
});

test('?embed&levels= shows exactly those levels, each decided', async () => {
  const page = await env.page();
  await page.goto(env.server.url + '?embed&example=write-skew.json&levels=SI,SER');
  await page.waitForSelector('body[data-checked="true"]', { timeout: 60_000 });
  const shown = await page.$$eval('#ladder .level', (els) => Object.fromEntries(els.map((e) => [e.dataset.level, e.dataset.verdict])));
  assert.deepEqual(Object.keys(shown).sort(), ['SER', 'SI']);
  assert.deepEqual(shown, { SI: 'pass', SER: 'fail' });
  assert.deepEqual(page.errors, []);
  await page.context().close();
});
