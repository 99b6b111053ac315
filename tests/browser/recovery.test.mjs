// Defence in depth (issue 22, class 7): a trap in the core's worker is forced with the test-only
// format "debug-trap" (docs/wasm-api.md). The app and the embed then say that the checker
// stopped and runs afresh, and the same page, without a reload, checks a good history in a
// fresh module instance.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { dropFiles, generateHistory, ladder, setup, waitChecked } from './_helpers.mjs';

const good = generateHistory(['--sessions', 3, '--txns', 10, '--seed', 5]);
const EMBED = `<!doctype html><html><head><meta charset="utf-8"><title>trap</title><link rel="icon" href="data:,">
<script type="module" src="/embed.js"></script></head><body>
<isoscope-check src="/good.json" format="debug-trap" levels="RC"></isoscope-check></body></html>`;

let env;
before(async () => {
  env = await setup({ '/good.json': ['application/json', good], '/trap.html': ['text/html; charset=utf-8', EMBED] });
});
after(async () => { await env?.close(); });

test('the app: a trap is reported as such, and the next history checks in a fresh instance', async () => {
  const page = await env.page();
  await page.goto(`${env.server.url}?src=/good.json&format=debug-trap`);
  await page.waitForSelector('#load-error', { timeout: 60_000 });
  const text = await page.textContent('#load-error');
  assert.match(text, /The checker stopped unexpectedly/);
  assert.match(text, /unreachable/);
  assert.match(text, /fresh instance/);
  await dropFiles(page, [{ name: 'good.json', content: good }]);
  await waitChecked(page);
  assert.equal((await ladder(page)).RC, 'pass');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('the embed: a trap is reported as such, and the element checks again in a fresh instance', async () => {
  const page = await env.page();
  await page.goto(`${env.server.url}trap.html`);
  await page.waitForFunction(() => document.querySelector('isoscope-check')?.shadowRoot?.querySelector('[role=alert]'), null, { timeout: 60_000 });
  const text = await page.$eval('isoscope-check', (el) => el.shadowRoot.querySelector('[role=alert]').textContent);
  assert.match(text, /stopped unexpectedly/);
  assert.match(text, /fresh instance/);
  await page.$eval('isoscope-check', (el) => el.removeAttribute('format'));
  await page.waitForSelector('isoscope-check[data-state="done"]', { timeout: 60_000 });
  const rc = await page.$eval('isoscope-check', (el) => el.shadowRoot.querySelector('.level[data-level="RC"]').dataset.verdict);
  assert.equal(rc, 'pass');
  assert.deepEqual(page.errors, []);
  await page.close();
});
