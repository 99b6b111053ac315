// The Timeline: session lanes on the real-time axis of a concurrent database's history (the
// simulator records start and end times). At ISOSCOPE_TIMELINE_TXNS transactions (default
// 100,000) every frame of a pan and zoom draws a number of bars bounded by the pixels in view
// (the longest main-thread task is a figure of scripts/bench-responsiveness.mjs at 10^6),
// outlines the selected anomaly, and a click shows a transaction's operations with who it read
// from and who read it; search finds a transaction by number.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { dropFiles, generateHistory, seriousViolations, setup, shot, timelineFrame, waitChecked } from './_helpers.mjs';

const TXNS = Number(process.env.ISOSCOPE_TIMELINE_TXNS ?? 100_000);
const SESSIONS = 20;  // 5,000 transactions a lane at the default: more than a lane's pixels
let env, small;
before(async () => {
  const big = generateHistory(['--engine', 'si', '--sessions', SESSIONS, '--txns', Math.ceil(TXNS / SESSIONS), '--ops', 2, '--keys', 100_000, '--seed', 5]);
  small = generateHistory(['--engine', 'si', '--sessions', 8, '--txns', 40, '--ops', 4, '--keys', 30, '--seed', 3]);
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
  await page.close();
});

test(`${TXNS.toLocaleString('en-US')} transactions pan and zoom, each frame drawing bars bounded by its pixels`, async () => {
  const page = await env.page();
  await page.goto(`${env.server.url}?src=/big.json&levels=RC`);
  await waitChecked(page, 300_000);
  await page.click('#tab-timeline');
  await page.waitForSelector('.tl-canvas[data-view]', { timeout: 120_000 });
  const box = await canvasBox(page);
  const frames = [await timelineFrame(page)];
  assert.ok(frames[0].drawn > 0, 'no bar drawn');
  await page.mouse.move(box.x + box.w / 2, box.y + box.h / 2);
  for (let i = 0; i < 12; i++) { await page.mouse.wheel(0, -240); frames.push(await timelineFrame(page)); } // zoom in
  await page.mouse.down();
  for (let i = 0; i < 12; i++) { await page.mouse.move(box.x + box.w / 2 - i * 25, box.y + box.h / 2 + i * 6); frames.push(await timelineFrame(page)); }
  await page.mouse.up();
  for (let i = 0; i < 12; i++) { await page.mouse.wheel(0, 240); frames.push(await timelineFrame(page)); } // and out again
  for (const f of frames) assert.ok(f.drawn <= f.bound, `a frame drew ${f.drawn} bars (bound ${f.bound})`);
  assert.deepEqual(page.errors, []);
  await page.close();
});

// LIN's witness as Porcupine shows it: the linearization's points inside each operation.
test('a passing LIN check shows its linearization on the timeline', async () => {
  const lwt = generateHistory(['--lwt', '--sessions', 4, '--txns', 12, '--keys', 2, '--stale-ratio', 0, '--seed', 9]);
  const page = await env.landing();
  await dropFiles(page, [{ name: 'lwt.json', content: lwt }]);
  await waitChecked(page);
  assert.equal(await page.$eval('#ladder .level[data-level="LIN"]', (e) => e.dataset.verdict), 'pass');
  await page.click('#ladder .level[data-level="LIN"]');
  await page.click('#tab-timeline');
  await page.waitForSelector('.tl-canvas[data-linearization]');
  assert.equal(Number(await page.$eval('.tl-canvas', (c) => c.dataset.linearization)), 48);
  assert.match(await page.textContent('#tp-timeline'), /The linearization/);
  await shot(page, 'timeline-lin');
  assert.deepEqual(page.errors, []);
});

// The Timeline's words and controls (issue 23): a legend, "zoom to the anomaly", search by key
// kept apart from search by number, and a Jepsen history's nanoseconds on the axis in units.
test('legend, zoom to the anomaly, key search and an axis in units', async () => {
  const page = await env.landing();
  await dropFiles(page, [{ name: 'small.json', content: small }]);
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

  // Elle times are nanoseconds: the axis says s, ms or µs
  const edn = Array.from({ length: 6 }, (_, i) => [
    `{:type :invoke, :f :txn, :value [[:append :x ${i}]], :process ${i % 2}, :time ${2_000_000_000 + i * 300_000_000}}`,
    `{:type :ok, :f :txn, :value [[:append :x ${i}]], :process ${i % 2}, :time ${2_100_000_000 + i * 300_000_000}}`]).flat().join('\n');
  const other = await env.landing();
  await dropFiles(other, [{ name: 'jepsen.edn', content: edn }]);
  await waitChecked(other);
  await other.click('#tab-timeline');
  await other.waitForSelector('.tl-canvas[data-ticks]');
  const ticks = (await other.$eval('.tl-canvas', (c) => c.dataset.ticks)).split('|');
  assert.ok(ticks.length >= 2 && ticks.every((t) => / (s|ms|µs|ns)$/.test(t)), ticks.join(' '));
  await other.click('.tl-canvas', { position: { x: 400, y: 26 + 11 } }).catch(() => {});
});
