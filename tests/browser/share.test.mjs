// Share links: one click copies a URL; opening it reproduces the same result and view.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { assertBoundedPage, corpus, countMainThreadWasm, dropFiles, generateHistory, ladder, setup, shot, waitChecked } from './_helpers.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

test('a share link reproduces the verdicts and the selected level', async () => {
  const page = await env.landing();
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: env.server.url.replace(/\/$/, '') });
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
  await other.close();
});

test('a damaged share link shows an error', async () => {
  const page = await env.page();
  await page.goto(env.server.url + '#h=AAAAbroken');
  await page.waitForSelector('#load-error');
  assert.match(await page.textContent('#load-error'), /share link/i);
  await page.close();
});

// A history too large for a link (100,000 transactions, an injected write skew): Share offers
// the core's counterexample, re-checked before it is offered; opening that link shows the same
// failing level and the same anomaly, with the handful of transactions the anomaly needs.
test('a counterexample link from a large history reproduces the violation', async () => {
  // seed 7: the write skew, T20001 (session 1 #10000) and T90002 (session 8 #10000)
  const history = generateHistory(['--sessions', 10, '--txns', 10000, '--target', 'inject=WriteSkew', '--seed', 7]);
  env.serve({ '/ws.json': ['application/json', history] });
  const page = await env.page();
  await countMainThreadWasm(page);
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: env.server.url.replace(/\/$/, '') });
  await page.goto(`${env.server.url}?levels=SER&src=/ws.json`);
  await waitChecked(page, 120_000);
  assert.equal((await ladder(page)).SER, 'fail');
  await page.click('#ladder .level[data-level="SER"]');
  const kind = await page.textContent('#explanation h3');
  const witness = Number(/(\d+) transactions?/.exec(kind)?.[1]);
  assert.ok(witness >= 2 && witness <= 6, kind);
  await assertBoundedPage(page);
  await page.click('#share');
  await page.waitForFunction(() => document.getElementById('share')?.dataset.link, null, { timeout: 60_000 });
  const link = await page.$eval('#share', (b) => b.dataset.link);
  assert.match(link, /&c=1/);
  assert.ok(link.length < 20_000, `a counterexample link of ${link.length} characters`);

  const other = await env.page();
  await other.goto(link);
  await waitChecked(other);
  assert.equal((await ladder(other)).SER, 'fail');
  assert.equal(await other.getAttribute('#ladder .level.selected', 'data-level'), 'SER');
  const shared = await other.textContent('#explanation h3');
  assert.equal(shared.split('\u00b7')[0].trim(), kind.split('\u00b7')[0].trim());
  const n = Number(/(\d+) transactions?/.exec(shared)?.[1]);
  assert.ok(n >= 2 && n <= 6, shared);
  // the transactions keep their numbers (T20001 is the recipient's T20001), sessions and
  // positions, and the page says how many of the original's it holds
  const names = async (p) => [...new Set(await p.$$eval('ol.edges .txlink', (bs) => bs.map((b) => b.textContent)))].sort();
  const original = await names(page);
  assert.deepEqual(original, ['T20001', 'T90002']);
  assert.deepEqual(await names(other), original);
  assert.match(await other.textContent('#explanation .core'), /T20001 \(session 1 #10000\)/);
  assert.match(await other.textContent('#explanation .core'), /T90002 \(session 8 #10000\)/);
  assert.match(await other.textContent('#stats'), new RegExp(`${n} of 100,002\\s*transactions`));
  assert.match(await other.textContent('.inputbar .file'), /ws\.json \(counterexample\)/);
  assert.deepEqual(other.errors, []);
  await page.close();
  await other.close();
});

// 50 sessions of 200 transactions (the 933 KB history): the whole history makes a link
// of hundreds of thousands of characters, so the counterexample's short link is the default; both
// are offered with their lengths. A passing level in view still shares, and offers the anomalies of
// the other levels.
test('a medium history: the default link is short, both are offered, a passing level shares', async () => {
  const history = generateHistory(['--sessions', 50, '--txns', 200, '--target', 'inject=WriteSkew', '--seed', 5]);
  env.serve({ '/medium.json': ['application/json', history] });
  const page = await env.page();
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: env.server.url.replace(/\/$/, '') });
  await page.goto(`${env.server.url}?src=/medium.json`);
  await waitChecked(page, 120_000);
  await page.click('#ladder .level[data-level="SER"]');
  await page.click('#share');
  await page.waitForSelector('#share-dialog .share-option[data-what="history"]', { timeout: 60_000 });
  const lengths = await page.$$eval('#share-dialog .share-option button', (bs) => Object.fromEntries(bs.map((b) => [b.dataset.what, Number(b.dataset.length)])));
  assert.ok(lengths.history > 4000, JSON.stringify(lengths));
  assert.ok(lengths.counterexample < 4000, JSON.stringify(lengths));
  assert.match(await page.textContent('#share-dialog'), /Whole history · [\d,]+ characters[\s\S]*Counterexample · [\d,]+ characters|Counterexample · [\d,]+ characters[\s\S]*Whole history · [\d,]+ characters/);
  await page.waitForFunction(() => document.getElementById('share')?.dataset.link);
  const link = await page.$eval('#share', (b) => b.dataset.link);
  assert.ok(link.length < 4000, `the default link has ${link.length} characters`);
  assert.match(link, /&c=1/);
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), link);
  await shot(page, 'share');
  await page.click('#share-dialog button[value="close"]');

  // a passing level in view: the whole history with that level, and the other levels' anomalies
  await page.click('#ladder .level[data-level="RC"]');
  await page.evaluate(() => { delete document.getElementById('share').dataset.link; });
  await page.click('#share');
  await page.waitForSelector('#share-dialog .share-option[data-what="history"]', { timeout: 60_000 });
  assert.equal(await page.$('#share-refused'), null);
  const whole = await page.$eval('#share', (b) => b.dataset.link);
  assert.match(whole, /l=RC/);
  await page.click('#share-dialog button[data-level="SER"]');
  await page.waitForFunction(() => /&c=1.*l=SER/.test(document.getElementById('share')?.dataset.link ?? ''), null, { timeout: 60_000 });
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a shared link opens with the file name, the level and the tab', async () => {
  const page = await env.landing();
  await dropFiles(page, [{ name: 'bank-transfers.json', content: readFileSync(join(corpus, 'textbook', 'write-skew.json')) }]);
  await waitChecked(page);
  await page.click('#ladder .level[data-level="SI"]');
  await page.click('#tab-history');
  await page.click('#share');
  await page.waitForFunction(() => document.getElementById('share')?.dataset.link);
  const link = await page.$eval('#share', (b) => b.dataset.link);
  const other = await env.page();
  await other.goto(link);
  await waitChecked(other);
  assert.equal(await other.textContent('.inputbar .file strong'), 'bank-transfers.json');
  assert.equal(await other.getAttribute('#ladder .level.selected', 'data-level'), 'SI');
  assert.equal(await other.getAttribute('#tab-history', 'aria-selected'), 'true');
  await other.close();
});

// An object history's link holds its Jepsen EDN (the core's convert): a process that invokes
// again after an :info, and a history of nemesis operations only, open with the same verdicts
// (issue 35, class 4; tests/wasm/roundtrip.test.mjs checks every corpus and generated history).
test('object histories\' share links reproduce their verdicts', async () => {
  const histories = {
    'info-then-invoke.edn': [
      '{:type :invoke, :f :write, :value 1, :process 0, :time 10}',
      '{:type :info, :f :write, :value 1, :process 0, :time 20}',
      '{:type :invoke, :f :read, :value nil, :process 0, :time 30}',
      '{:type :ok, :f :read, :value 1, :process 0, :time 40}',
      '{:type :invoke, :f :read, :value nil, :process 1, :time 50}',
      '{:type :ok, :f :read, :value nil, :process 1, :time 60}',
    ],
    'nemesis-only.edn': [
      '{:type :info, :f :start-partition, :value nil, :process :nemesis, :time 1}',
      '{:type :info, :f :stop-partition, :value nil, :process :nemesis, :time 2}',
    ],
  };
  for (const [name, lines] of Object.entries(histories)) {
    const page = await env.landing();
    await dropFiles(page, [{ name, content: lines.join('\n') + '\n' }]);
    await page.waitForSelector('body[data-checked="true"], #load-error', { timeout: 60_000 });
    // a history of no client operation may be refused by the reader (issue 35, class 1): then
    // there is nothing to share
    if (name === 'nemesis-only.edn' && await page.$('#load-error')) continue;
    const before = await ladder(page);
    assert.ok(['pass', 'fail'].includes(before.LIN), `${name}: ${JSON.stringify(before)}`);
    await page.click('#share');
    await page.waitForFunction(() => document.getElementById('share')?.dataset.link);
    const link = await page.$eval('#share', (b) => b.dataset.link);
    const other = await env.page();
    await other.goto(link);
    await other.waitForSelector('body[data-checked="true"], #load-error', { timeout: 60_000 });
    // the error's text only when there is one (textContent waits for its element to appear)
    const loadError = await other.$('#load-error');
    assert.equal(loadError, null, `${name}: ${loadError ? await loadError.textContent() : ''}`);
    assert.deepEqual(await ladder(other), before, name);
    assert.deepEqual(other.errors, [], name);
    await other.close();
  }
});
