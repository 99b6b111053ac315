// The service worker (public/sw.js) serves the app's own build assets offline and nothing else:
// a history fetched by ?src= or by an embed's src is always the bytes the server sends now, and
// never lands in Cache Storage (issue 35, class 3). Each test changes a served file between two
// loads of a page the worker controls.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { dist, ladder, setup, waitChecked } from './_helpers.mjs';

// A lost update (fails SI and SER) and the same two sessions done one after the other (pass).
const serial = JSON.stringify({
  format: 'isoscope/1', initial: 0,
  sessions: [[{ ops: [['r', 'x', 0], ['w', 'x', 1]] }], [{ ops: [['r', 'x', 1], ['w', 'x', 2]] }]],
});
const lostUpdate = JSON.stringify({
  format: 'isoscope/1', initial: 0,
  sessions: [[{ ops: [['r', 'x', 0], ['w', 'x', 1]] }], [{ ops: [['r', 'x', 0], ['w', 'x', 2]] }]],
});
// The served files, changed by the tests (the server reads this object at each request).
const served = {};
const EMBED = `<!doctype html><html><head><meta charset="utf-8"><title>embed</title>
<script type="module" src="/embed.js"></script></head><body>
<isoscope-check src="/e.json" levels="SI,SER"></isoscope-check></body></html>`;

let env;
before(async () => {
  served['/embed-page.html'] = ['text/html; charset=utf-8', EMBED];
  env = await setup(served);
});
after(async () => { await env?.close(); });

/** A page of a context whose service worker is installed, active and controlling it. */
async function controlledPage() {
  const page = await env.page({ serviceWorkers: 'allow' });
  await page.goto(env.server.url);
  await page.evaluate(() => navigator.serviceWorker.ready);
  await page.reload();  // now under the worker's control
  await page.waitForFunction(() => !!navigator.serviceWorker.controller);
  return page;
}

/** Every URL in the origin's Cache Storage. */
async function cachedUrls(page) {
  return page.evaluate(async () => {
    const urls = [];
    for (const name of await caches.keys()) for (const r of await (await caches.open(name)).keys()) urls.push(r.url);
    return urls;
  });
}

async function embedVerdicts(page) {
  await page.waitForSelector('isoscope-check[data-state="done"]', { timeout: 60_000 });
  return page.$eval('isoscope-check', (el) => Object.fromEntries([...el.shadowRoot.querySelectorAll('.level')].map((e) => [e.dataset.level, e.dataset.verdict])));
}

test('?src= shows the verdict of the file the server holds now, and the file is not cached', async () => {
  {
    const [first, then, before, afterwards] = [serial, lostUpdate, 'pass', 'fail'];
    served['/h.json'] = ['application/json', first];
    const page = await controlledPage();
    await page.goto(env.server.url + '?src=/h.json');
    await waitChecked(page);
    assert.equal((await ladder(page)).SER, before);
    served['/h.json'] = ['application/json', then];
    await page.reload();
    await waitChecked(page);
    assert.equal((await ladder(page)).SER, afterwards, 'the reload checks the bytes the server sends now');
    // a fresh navigation too
    await page.goto(env.server.url + '?src=/h.json');
    await waitChecked(page);
    assert.equal((await ladder(page)).SER, afterwards);
    const urls = await cachedUrls(page);
    assert.ok(urls.length > 0, 'the app itself is cached (offline support)');
    assert.deepEqual(urls.filter((u) => new URL(u).pathname === '/h.json'), [], 'no history in Cache Storage');
    // the app's own assets are all that is cached
    for (const u of urls) assert.ok(!/\.json$/.test(new URL(u).pathname) || new URL(u).pathname.startsWith('/examples/') || new URL(u).pathname.startsWith('/docs/'), u);
    assert.deepEqual(page.errors, []);
    await page.close();
  }
});

test('an embed\'s src is fetched anew on each load and never cached', async () => {
  served['/e.json'] = ['application/json', serial];
  const page = await controlledPage();
  await page.goto(env.server.url + 'embed-page.html');
  assert.equal((await embedVerdicts(page)).SER, 'pass');
  served['/e.json'] = ['application/json', lostUpdate];
  await page.reload();
  assert.equal((await embedVerdicts(page)).SER, 'fail');
  const urls = await cachedUrls(page);
  assert.deepEqual(urls.filter((u) => ['/e.json', '/embed-page.html'].includes(new URL(u).pathname)), []);
  await page.close();
});

// A new deploy (another version of sw.js) replaces the cache: one build's files at a time, and
// the first worker's cache (isoscope-v1, which kept histories too) is gone.
async function newDeploy(page, before) {
  // what the first worker (isoscope-v1) left: a history among the app's files
  await page.evaluate(async () => { await (await caches.open('isoscope-v1')).put('/h.json', new Response('{}')); });
  // the next build: another version (served in place of dist/sw.js)
  const sw = readFileSync(join(dist, 'sw.js'), 'utf8');
  const next = sw.replace(/"version":"([0-9a-f]{16})"/, (_, v) => `"version":"${v.startsWith('0') ? '1' : '0'}${v.slice(1)}"`);
  assert.notEqual(next, sw);
  served['/sw.js'] = ['text/javascript', next];
  try {
    // the new worker installs (a cache of its own) and activates (the other caches deleted) in
    // its own time, which update() does not wait for: up to a minute, then the assertions below
    // say what is left
    await page.evaluate(async (old) => {
      await (await navigator.serviceWorker.getRegistration()).update();
      for (let i = 0; i < 600; i++) {
        const names = await caches.keys();
        if (names.length === 1 && names[0] !== old) return;
        await new Promise((r) => setTimeout(r, 100));
      }
    }, before);
    const names = await page.evaluate(() => caches.keys());
    assert.equal(names.length, 1, `one cache: ${names}`);
    assert.notEqual(names[0], before);
    assert.deepEqual((await cachedUrls(page)).filter((u) => new URL(u).pathname === '/h.json'), []);
  } finally {
    delete served['/sw.js'];
  }
}

test('the worker caches exactly the files of this build, under a cache named for this build, and a new build replaces it', async () => {
  const page = await controlledPage();
  const files = [];
  const walk = (d) => { for (const n of readdirSync(d)) { const p = join(d, n); if (statSync(p).isDirectory()) walk(p); else files.push(relative(dist, p).split('\\').join('/')); } };
  walk(dist);
  const expected = files.filter((f) => f !== 'sw.js').sort();
  const names = await page.evaluate(() => caches.keys());
  assert.equal(names.length, 1, `one cache: ${names}`);
  assert.match(names[0], /^isoscope-[0-9a-f]{16}$/);
  const got = (await cachedUrls(page)).map((u) => new URL(u).pathname.slice(1)).sort();
  assert.deepEqual(got, expected);
  // offline, the app still loads and checks an example (served from the cache)
  await page.context().setOffline(true);
  await page.goto(env.server.url + '?example=lost-update.json');
  await waitChecked(page, 30_000);
  assert.equal((await ladder(page)).SER, 'fail');
  await page.context().setOffline(false);
  await newDeploy(page, names[0]);
  await page.close();
});

