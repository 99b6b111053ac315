// Embedding: the documented example page (web component + iframe).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { dist, repo, setup, shot } from './_helpers.mjs';
import { startServer } from './_server.mjs';

let env;
// a page of "another site" section that only adds the script tag and the element
const PLAIN = `<!doctype html><html><head><meta charset="utf-8"><title>plain</title>
<script type="module" src="/embed.js"></script></head><body>
<isoscope-check src="/examples/serial.json" levels="SER"></isoscope-check></body></html>`;
before(async () => { env = await setup({ '/plain.html': ['text/html; charset=utf-8', PLAIN] }); });
after(async () => { await env?.close(); });

test('the embed example page shows the component, a Hermitage table and the iframe', async () => {
  const page = await env.page();
  await page.goto(env.server.url + 'embed/');
  await page.waitForSelector('#demo-component[data-state="done"]', { timeout: 60_000 });
  await shot(page, 'embed');
  const got = await page.$eval('#demo-component', (el) => Object.fromEntries([...el.shadowRoot.querySelectorAll('.level')].map((e) => [e.dataset.level, e.dataset.verdict])));
  assert.deepEqual(Object.keys(got).sort(), ['CC', 'RA', 'RC', 'SER', 'SI']);
  assert.equal(got.SER, 'fail');
  assert.equal(got.RC, 'pass');
  await page.waitForSelector('#demo-hermitage[data-state="done"]', { timeout: 60_000 });
  assert.deepEqual(await page.$eval('#demo-hermitage', (el) => [...el.shadowRoot.querySelectorAll('tbody tr')].map((r) => r.dataset.isolation)),
    JSON.parse(readFileSync(join(repo, 'tests/fixtures/hermitage/postgresql-15.json'), 'utf8')).rows.map((r) => r.isolation));
  const frame = page.frameLocator('#demo-iframe');
  await frame.locator('body[data-checked="true"]').waitFor({ timeout: 60_000 });
  assert.equal(await frame.locator('#ladder .level[data-level="SER"]').getAttribute('data-verdict'), 'fail');
  await page.locator('#demo-iframe').scrollIntoViewIfNeeded();
  await shot(page, 'embed-iframe');
  assert.deepEqual(page.errors, []);
  assert.deepEqual(page.foreign, []);
  await page.close();
});

test('embed.js alone defines <isoscope-check>', async () => {
  const page = await env.page();
  await page.goto(env.server.url + 'plain.html');
  await page.waitForSelector('isoscope-check[data-state="done"]', { timeout: 60_000 });
  const v = await page.$eval('isoscope-check', (el) => el.shadowRoot.querySelector('.level[data-level="SER"]').dataset.verdict);
  assert.equal(v, 'pass');
  await page.close();
});

test('?embed&levels= shows exactly those levels, each decided', async () => {
  const page = await env.page();
  await page.goto(env.server.url + '?embed&example=write-skew.json&levels=SI,SER');
  await page.waitForSelector('body[data-checked="true"]', { timeout: 60_000 });
  const shown = await page.$$eval('#ladder .level', (els) => Object.fromEntries(els.map((e) => [e.dataset.level, e.dataset.verdict])));
  assert.deepEqual(Object.keys(shown).sort(), ['SER', 'SI']);
  assert.deepEqual(shown, { SI: 'pass', SER: 'fail' });
  assert.deepEqual(page.errors, []);
  await page.close();
});

// A documentation site on one origin embeds the bundle served from another: the worker starts
// from a blob of the page's origin, the module, the wasm and the history come with CORS, and
// "Open in isoscope" carries the history to the full app on the bundle's origin.
test('embed.js from another origin checks a history and opens it in the app', async () => {
  const bundle = await startServer(dist, {}, { cors: true });
  const host = `<!doctype html><html><head><meta charset="utf-8"><title>docs</title><link rel="icon" href="data:,">
<script type="module" src="${bundle.url}embed.js"></script></head><body><h1>Our isolation guarantees</h1>
<isoscope-check src="${bundle.url}examples/write-skew.json" levels="SI,SER"></isoscope-check></body></html>`;
  const site = await startServer(dist, { '/docs.html': ['text/html; charset=utf-8', host] });
  try {
    assert.notEqual(new URL(site.url).origin, new URL(bundle.url).origin);
    const page = await env.page();
    await page.goto(`${site.url}docs.html`);
    await page.waitForSelector('isoscope-check[data-state="done"]', { timeout: 60_000 });
    const verdicts = await page.$$eval('isoscope-check', ([el]) => Object.fromEntries([...el.shadowRoot.querySelectorAll('.level')].map((e) => [e.dataset.level, e.dataset.verdict])));
    assert.deepEqual(verdicts, { SER: 'fail', SI: 'pass' });
    await page.waitForFunction(() => document.querySelector('isoscope-check')?.shadowRoot?.querySelector('.open-in-app a'));
    const href = await page.$eval('isoscope-check', (el) => el.shadowRoot.querySelector('.open-in-app a').href);
    assert.equal(new URL(href).origin, new URL(bundle.url).origin);
    assert.match(new URL(href).hash, /^#h=/);
    await shot(page, 'embed-cross-origin');
    const app = await page.context().newPage();
    await app.goto(href);
    await app.waitForSelector('body[data-checked="true"]', { timeout: 60_000 });
    assert.equal(await app.$eval('#ladder .level[data-level="SER"]', (e) => e.dataset.verdict), 'fail');
    assert.deepEqual(page.errors, []);
    await app.close();
    await page.close();
  } finally {
    await site.close();
    await bundle.close();
  }
});

// A dark documentation page: the element follows prefers-color-scheme, and its theme attribute
// overrides it either way; a history it may not fetch (another origin, no CORS) is an error in
// the box, not a blank box.
test('the embed is dark on a dark page, follows its theme attribute, and says why a fetch fails', async () => {
  const page = await env.page({ colorScheme: 'dark' });
  await page.goto(env.server.url + 'plain.html');
  await page.waitForSelector('isoscope-check[data-state="done"]', { timeout: 60_000 });
  const background = () => page.$eval('isoscope-check', (el) => getComputedStyle(el.shadowRoot.querySelector('.box')).backgroundColor);
  const luminance = (rgb) => { const [r, g, b] = rgb.match(/\d+/g).map(Number); return (r + g + b) / 3; };
  assert.ok(luminance(await background()) < 60, `dark page, box ${await background()}`);
  await page.$eval('isoscope-check', (el) => el.setAttribute('theme', 'light'));
  assert.ok(luminance(await background()) > 200, `theme=light, box ${await background()}`);
  await page.emulateMedia({ colorScheme: 'light' });
  await page.$eval('isoscope-check', (el) => el.setAttribute('theme', 'dark'));
  assert.ok(luminance(await background()) < 60, `theme=dark on a light page, box ${await background()}`);

  const elsewhere = await startServer(dist, {});  // another origin, without CORS
  try {
    await page.$eval('isoscope-check', (el, src) => el.setAttribute('src', src), `${elsewhere.url}examples/serial.json`);
    await page.waitForFunction(() => document.querySelector('isoscope-check').shadowRoot.querySelector('[role="alert"]'));
    const text = await page.$eval('isoscope-check', (el) => el.shadowRoot.querySelector('[role="alert"]').textContent);
    assert.match(text, /Could not fetch .*serial\.json: .*CORS/);
  } finally {
    await elsewhere.close();
  }
  await page.close();
});
