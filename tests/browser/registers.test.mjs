// LIN of Jepsen object histories in the browser: a Jepsen etcd-style register history with a
// violation shows the failing key, its longest linearizable prefix and the operation that
// cannot follow it, on that key's lanes; the share link reproduces it (and, for a passing
// history, the key in view); a 10^5-operation history
// (ISOSCOPE_REGISTER_OPS) pans and zooms, each frame drawing bars bounded by its pixels.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { generateHistory, setup, shot, timelineFrame, waitChecked } from './_helpers.mjs';

const OPS = Number(process.env.ISOSCOPE_REGISTER_OPS ?? 100_000);
// Key 7 of three: process 1 reads 0 although process 0's write of 1 completed before it began.
const BAD = [
  '{:type :invoke, :f :write, :value [3 5], :process 2, :time 0, :index 0}',
  '{:type :ok, :f :write, :value [3 5], :process 2, :time 5, :index 1}',
  '{:type :invoke, :f :write, :value [7 0], :process 0, :time 10, :index 2}',
  '{:type :invoke, :f :read, :value [9 nil], :process 3, :time 12, :index 3}',
  '{:type :ok, :f :write, :value [7 0], :process 0, :time 20, :index 4}',
  '{:type :ok, :f :read, :value [9 nil], :process 3, :time 22, :index 5}',
  '{:type :invoke, :f :write, :value [7 1], :process 0, :time 30, :index 6}',
  '{:type :invoke, :f :cas, :value [7 [1 2]], :process 4, :time 31, :index 7}',
  '{:type :info, :f :cas, :value [7 [1 2]], :process 4, :time 39, :index 8}',
  '{:type :ok, :f :write, :value [7 1], :process 0, :time 40, :index 9}',
  '{:type :invoke, :f :read, :value [7 nil], :process 1, :time 50, :index 10}',
  '{:type :ok, :f :read, :value [7 0], :process 1, :time 60, :index 11}',
].join('\n') + '\n';

// Linearizable, on keys 3 (the most operations: the Timeline's first key) and 9.
const GOOD = [
  '{:type :invoke, :f :write, :value [3 1], :process 0, :time 0}',
  '{:type :ok, :f :write, :value [3 1], :process 0, :time 5}',
  '{:type :invoke, :f :read, :value [3 nil], :process 1, :time 6}',
  '{:type :ok, :f :read, :value [3 1], :process 1, :time 8}',
  '{:type :invoke, :f :write, :value [3 2], :process 0, :time 10}',
  '{:type :ok, :f :write, :value [3 2], :process 0, :time 12}',
  '{:type :invoke, :f :write, :value [9 4], :process 2, :time 20}',
  '{:type :ok, :f :write, :value [9 4], :process 2, :time 25}',
].join('\n') + '\n';

// Clicks Share on `page` and opens the link in a new page, on its Timeline.
async function openShareLink(page) {
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']).catch(() => {});
  await page.click('#share');
  await page.waitForSelector('#share[data-link]');
  const link = await page.$eval('#share', (b) => b.dataset.link);
  const again = await env.page();
  await again.goto(link);
  await waitChecked(again);
  await again.click('#tab-timeline').catch(() => {});
  return again;
}

let env;
before(async () => {
  const big = generateHistory(['--register', '--sessions', 50, '--txns', Math.ceil(OPS / 50), '--keys', 100, '--seed', 5]);
  env = await setup({ '/bad.edn': ['text/plain', BAD], '/good.edn': ['text/plain', GOOD], '/big.edn': ['text/plain', big] });
});
after(async () => { await env?.close(); });

test('a Jepsen register history with a violation shows the failing key, prefix and operation', async () => {
  const page = await env.page();
  await page.goto(`${env.server.url}?src=/bad.edn`);
  await waitChecked(page);
  assert.equal(await page.$eval('#ladder .level[data-level="LIN"]', (e) => e.dataset.verdict), 'fail');
  assert.equal(await page.$eval('#ladder .level[data-level="SER"]', (e) => e.dataset.verdict), 'n/a');
  await page.click('#ladder .level[data-level="LIN"]');
  const text = await page.textContent('body');
  assert.match(text, /key 7 is not linearizable/);
  // the deepest prefix takes the indeterminate cas 1 -> 2 too (it may have taken effect): 3 operations
  assert.match(text, /longest linearizable prefix has 3 operations/);
  assert.match(text, /it read 0 where key 7 holds 2/);
  assert.match(text, /process 1's read 0/);
  await page.click('#tab-timeline');
  await page.waitForSelector('.tl-objects[data-key="7"] .tl-canvas[data-linearization]');
  assert.equal(await page.$eval('.tl-objects', (e) => e.dataset.prefix), '3');
  const offending = Number(await page.$eval('.tl-objects', (e) => e.dataset.offending));
  assert.ok(offending > 0);
  assert.match(await page.textContent('#timeline-key-note'), new RegExp(`Key 7: the longest linearizable prefix, 3 operations .*T${offending}, outlined, cannot take effect after it`));
  await shot(page, 'timeline-registers');
  // The share link holds the history as Jepsen EDN and opens on the same key and prefix.
  const again = await openShareLink(page);
  await again.waitForSelector('.tl-objects[data-key="7"]');
  assert.equal(await again.$eval('.tl-objects', (e) => e.dataset.prefix), '3');
  assert.deepEqual(again.errors, []);
  await again.close();
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('the share link of a passing register history keeps the key in view', async () => {
  const page = await env.page();
  await page.goto(`${env.server.url}?src=/good.edn`);
  await waitChecked(page);
  assert.equal(await page.$eval('#ladder .level[data-level="LIN"]', (e) => e.dataset.verdict), 'pass');
  await page.click('#ladder .level[data-level="LIN"]');
  await page.click('#tab-timeline');
  await page.waitForSelector('.tl-objects[data-key="3"]');
  await page.selectOption('#timeline-key', { label: '9' });
  await page.waitForSelector('.tl-objects[data-key="9"]');
  assert.match(await page.textContent('#timeline-key-note'), /Key 9: its linearization, 1 operation/);
  const again = await openShareLink(page);
  await again.waitForSelector('.tl-objects[data-key]');
  assert.equal(await again.$eval('.tl-objects', (e) => e.dataset.key), '9');
  assert.match(await again.textContent('#timeline-key-note'), /Key 9: its linearization, 1 operation/);
  assert.deepEqual(again.errors, []);
  await again.close();
  assert.deepEqual(page.errors, []);
  await page.close();
});

test(`${OPS.toLocaleString('en-US')} register operations pan and zoom, each frame drawing bars bounded by its pixels`, async () => {
  const page = await env.page();
  await page.goto(`${env.server.url}?src=/big.edn&levels=LIN`);
  await waitChecked(page, 180_000);
  assert.equal(await page.$eval('#ladder .level[data-level="LIN"]', (e) => e.dataset.verdict), 'pass');
  await page.click('#ladder .level[data-level="LIN"]');
  await page.click('#tab-timeline');
  await page.waitForSelector('.tl-objects .tl-canvas[data-view]', { timeout: 120_000 });
  const frames = [await timelineFrame(page)];
  assert.ok(frames[0].drawn > 0, 'no bar drawn');
  const box = await page.$eval('.tl-canvas', (c) => { const b = c.getBoundingClientRect(); return { x: b.left, y: b.top, w: b.width, h: b.height }; });
  await page.mouse.move(box.x + box.w / 2, box.y + box.h / 2);
  for (let i = 0; i < 12; i++) { await page.mouse.wheel(0, -240); frames.push(await timelineFrame(page)); }
  await page.mouse.down();
  for (let i = 0; i < 12; i++) { await page.mouse.move(box.x + box.w / 2 - i * 25, box.y + box.h / 2 + i * 6); frames.push(await timelineFrame(page)); }
  await page.mouse.up();
  for (let i = 0; i < 12; i++) { await page.mouse.wheel(0, 240); frames.push(await timelineFrame(page)); }
  // another key, then pan there too
  const second = await page.$eval('#timeline-key', (s) => s.options[1]?.value);
  if (second) await page.selectOption('#timeline-key', second);
  await page.mouse.down();
  for (let i = 0; i < 6; i++) { await page.mouse.move(box.x + box.w / 2 + i * 25, box.y + box.h / 2); frames.push(await timelineFrame(page)); }
  await page.mouse.up();
  for (const f of frames) assert.ok(f.drawn <= f.bound, `a frame drew ${f.drawn} bars (bound ${f.bound})`);
  assert.deepEqual(page.errors, []);
  await page.close();
});
