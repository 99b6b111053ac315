// The Timeline: session lanes on the real-time axis of a concurrent database's history (the
// simulator records start and end times). It pans and zooms with no main-thread task over
// 100 ms at ISOSCOPE_TIMELINE_TXNS transactions (default 200,000; 10^6 measured for the README),
// outlines the selected anomaly, and a click shows a transaction's operations with who it read
// from and who read it; search finds a transaction by number.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { dropFiles, generateHistory, observeLongTasks, seriousViolations, setup, shot, waitChecked } from './_helpers.mjs';

const TXNS = Number(process.env.ISOSCOPE_TIMELINE_TXNS ?? 200_000);
const SESSIONS = 100;
let env;
before(async () => {
  const big = generateHistory(['--engine', 'si', '--sessions', SESSIONS, '--txns', Math.ceil(TXNS / SESSIONS), '--ops', 2, '--keys', 100_000, '--seed', 5]);
  const small = generateHistory(['--engine', 'si', '--sessions', 8, '--txns', 40, '--ops', 4, '--keys', 30, '--seed', 3]);
  env = await setup({ '/big.json': ['application/json', big], '/small.json': ['application/json', small] });
});
after(async () => { await env?.close(); });

const canvasBox = (page) => page.$eval('.tl-canvas', (c) => { const b = c.getBoundingClientRect(); return { x: b.left, y: b.top, w: b.width, h: b.height }; });

test('the anomaly is outlined; a click shows operations with reads-from links; search finds a transaction', async () => {
  const page = await env.page({ bypassCSP: true }); // for axe
  await page.goto(`${env.server.url}?src=/small.json&levels=SI,SER`);
  await waitChecked(page);
  await page.click('#ladder .level[data-level="SER"]');
  await page.click('#tab-timeline');
  await page.waitForSelector('.tl-canvas[data-view]');
  assert.match(await page.textContent('#tp-timeline'), /transactions are outlined/);
  const box = await canvasBox(page);
  await page.mouse.click(box.x + box.w * 0.45, box.y + 26 + 22 * 3 + 11);
  await page.waitForSelector('.tl-detail h3');
  const selected = Number(await page.$eval('.tl-canvas', (c) => c.dataset.selected));
  assert.ok(selected > 0);
  assert.equal(await page.textContent('.tl-detail h3'), `T${selected}`);
  const links = await page.$$('.tl-detail .txlink');
  assert.ok(links.length > 0, 'no reads-from links');
  const other = await links[0].textContent();
  await links[0].click();
  await page.waitForFunction((t) => document.querySelector('.tl-detail h3')?.textContent === t, other);
  await page.fill('#timeline-search', 'T7');
  await page.press('#timeline-search', 'Enter');
  await page.waitForFunction(() => document.querySelector('.tl-detail h3')?.textContent === 'T7');
  await seriousViolations(page, 'timeline');
  await shot(page, 'timeline');
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test(`${TXNS.toLocaleString('en-US')} transactions pan and zoom with no main-thread task over 100 ms`, async () => {
  const page = await env.page();
  await observeLongTasks(page);
  await page.goto(`${env.server.url}?src=/big.json&levels=RC`);
  await waitChecked(page, 180_000);
  await page.click('#tab-timeline');
  await page.waitForSelector('.tl-canvas[data-view]', { timeout: 120_000 });
  const from = await page.evaluate(() => performance.now());
  const box = await canvasBox(page);
  await page.mouse.move(box.x + box.w / 2, box.y + box.h / 2);
  const t0 = Date.now();
  for (let i = 0; i < 12; i++) { await page.mouse.wheel(0, -240); await page.waitForTimeout(16); } // zoom in
  await page.mouse.down();
  for (let i = 0; i < 12; i++) { await page.mouse.move(box.x + box.w / 2 - i * 25, box.y + box.h / 2 + i * 6); await page.waitForTimeout(16); }
  await page.mouse.up();
  for (let i = 0; i < 12; i++) { await page.mouse.wheel(0, 240); await page.waitForTimeout(16); } // and out again
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  const tasks = (await page.evaluate((from) => window.__longTasks.filter(([s]) => s >= from).map(([, d]) => d), from));
  const longest = Math.max(0, ...tasks);
  console.log(`# timeline: ${TXNS} transactions in ${SESSIONS} lanes; 36 zoom and pan steps in ${Date.now() - t0} ms, longest main-thread task ${longest.toFixed(0)} ms`);
  assert.ok(longest < 100, `a main-thread task took ${longest.toFixed(0)} ms`);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

// LIN's witness as Porcupine shows it: the linearization's points inside each operation.
test('a passing LIN check shows its linearization on the timeline', async () => {
  const lwt = generateHistory(['--lwt', '--sessions', 4, '--txns', 12, '--keys', 2, '--stale-ratio', 0, '--seed', 9]);
  const lin = await setup({ '/lwt.json': ['application/json', lwt] });
  try {
    const page = await lin.page();
    await page.goto(`${lin.server.url}?src=/lwt.json&levels=LIN`);
    await waitChecked(page);
    assert.equal(await page.$eval('#ladder .level[data-level="LIN"]', (e) => e.dataset.verdict), 'pass');
    await page.click('#ladder .level[data-level="LIN"]');
    await page.click('#tab-timeline');
    await page.waitForSelector('.tl-canvas[data-linearization]');
    assert.equal(Number(await page.$eval('.tl-canvas', (c) => c.dataset.linearization)), 48);
    assert.match(await page.textContent('#tp-timeline'), /The linearization/);
    await shot(page, 'timeline-lin');
    assert.deepEqual(page.errors, []);
    await page.context().close();
  } finally {
    await lin.close();
  }
});

// The Timeline's words and controls (issue 23): a legend, "zoom to the anomaly", search by key
// kept apart from search by number, and a Jepsen history's nanoseconds on the axis in units.
test('legend, zoom to the anomaly, key search and an axis in units', async () => {
  const page = await env.page();
  await page.goto(`${env.server.url}?src=/small.json&levels=SI,SER`);
  await waitChecked(page);
  await page.click('#ladder .level[data-level="SER"]');
  await page.click('#tab-timeline');
  await page.waitForSelector('.tl-canvas[data-view]');
  assert.match(await page.textContent('#timeline-legend'), /committed.*aborted.*unknown outcome.*in the anomaly/);
  const span = async () => { const [a, b] = (await page.$eval('.tl-canvas', (c) => c.dataset.view)).split(',').map(Number); return b - a; };
  const whole = await span();
  await page.click('#timeline-anomaly');
  await page.waitForFunction((w) => { const [a, b] = document.querySelector('.tl-canvas').dataset.view.split(',').map(Number); return b - a < w; }, whole);
  assert.ok(await span() < whole);
  // k3 finds the transactions touching key 3, and only by key; T3 finds transaction 3
  await page.fill('#timeline-search', 'k3');
  await page.press('#timeline-search', 'Enter');
  await page.waitForSelector('#search-result');
  assert.match(await page.textContent('#search-result'), /for k3 \(key\)/);
  await page.fill('#timeline-search', 'T3');
  await page.press('#timeline-search', 'Enter');
  await page.waitForFunction(() => /for T3 \(number\)/.test(document.querySelector('#search-result')?.textContent ?? ''));
  const fits = await page.$eval('#timeline-search', (i) => i.scrollWidth <= i.clientWidth + 1);
  assert.ok(fits, 'the placeholder is cut');
  await page.context().close();

  // Elle times are nanoseconds: the axis says s, ms or µs
  const edn = Array.from({ length: 6 }, (_, i) => [
    `{:type :invoke, :f :txn, :value [[:append :x ${i}]], :process ${i % 2}, :time ${2_000_000_000 + i * 300_000_000}}`,
    `{:type :ok, :f :txn, :value [[:append :x ${i}]], :process ${i % 2}, :time ${2_100_000_000 + i * 300_000_000}}`]).flat().join('\n');
  const other = await env.page();
  await other.goto(env.server.url);
  await other.waitForSelector('#dropzone');
  await dropFiles(other, [{ name: 'jepsen.edn', content: edn }]);
  await waitChecked(other);
  await other.click('#tab-timeline');
  await other.waitForSelector('.tl-canvas[data-ticks]');
  const ticks = (await other.$eval('.tl-canvas', (c) => c.dataset.ticks)).split('|');
  assert.ok(ticks.length >= 2 && ticks.every((t) => / (s|ms|µs|ns)$/.test(t)), ticks.join(' '));
  await other.click('.tl-canvas', { position: { x: 400, y: 26 + 11 } }).catch(() => {});
  await other.context().close();
});
