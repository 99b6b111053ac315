// A large history (ISOSCOPE_PERF_OPS operations, default 300,000) loads and checks RC, RA and CC
// in the page by the mechanisms that keep the main thread free whatever the machine's speed:
// the core runs only in a worker and the page's DOM stays bounded. How long the longest
// main-thread task takes at 10^6 operations is a figure of the benchmark
// (scripts/bench-responsiveness.mjs, docs/benchmarks.md), not an assertion here.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { assertBoundedPage, countMainThreadWasm, setup } from './_helpers.mjs';
import { bigHistory } from './_big.mjs';

const OPS = Number(process.env.ISOSCOPE_PERF_OPS ?? 300_000);
const TXNS = Math.ceil(OPS / 3);  // bigHistory writes three operations per transaction
let env;
before(async () => { env = await setup({ '/perf.json': ['application/json', bigHistory(TXNS)] }); });
after(async () => { await env?.close(); });

test(`${OPS.toLocaleString('en-US')} operations: RC, RA, CC checked in a worker, the page bounded`, async () => {
  const page = await env.page();
  await countMainThreadWasm(page);
  await page.goto(env.server.url + '?levels=RC,RA,CC&src=/perf.json');
  await page.waitForSelector('#stats', { timeout: 300_000 });
  await page.waitForSelector('body[data-checked="true"]', { timeout: 600_000 });
  const verdicts = await page.$$eval('#ladder .level', (els) =>
    Object.fromEntries(els.map((e) => [e.getAttribute('data-level'), e.getAttribute('data-verdict')])));
  for (const level of ['RC', 'RA', 'CC']) assert.equal(verdicts[level], 'pass', `${level}: ${verdicts[level]}`);
  await assertBoundedPage(page);
  // the history view of every transaction is virtualised too
  await page.click('#tab-history');
  await page.waitForSelector('.hv-cell .hv-ops', { timeout: 120_000 });
  await assertBoundedPage(page);
  assert.deepEqual(page.foreign, []);
  assert.deepEqual(page.errors, []);
  await page.close();
});
