// A 1M-operation history loads and checks RC, RA and CC in the page while the main thread stays
// responsive. Long tasks (PerformanceObserver 'longtask', every main-thread task over 50 ms) are
// recorded from before the page's own scripts run until the three verdicts are in: none over
// 100 ms once the check has started, none over 200 ms from the page's start-up on (parsing and
// first layout included). The figures are printed for the README.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { longTasks, observeLongTasks, setup } from './_helpers.mjs';
import { bigHistory } from './_big.mjs';

const OPS = Number(process.env.ISOSCOPE_PERF_OPS ?? 1_000_000);
const TXNS = Math.ceil(OPS / 3);  // bigHistory writes three operations per transaction
let env;
before(async () => { env = await setup({ '/perf.json': ['application/json', bigHistory(TXNS)] }); });
after(async () => { await env?.close(); });

test(`${OPS.toLocaleString('en-US')} operations: load and check RC, RA, CC with no long main-thread task`, async () => {
  const page = await env.page();
  await observeLongTasks(page);
  const t0 = Date.now();
  await page.goto(env.server.url + '?levels=RC,RA,CC&src=/perf.json');
  await page.waitForSelector('#stats', { timeout: 120_000 });
  const loadedMs = Date.now() - t0;
  await page.waitForSelector('body[data-checked="true"]', { timeout: 300_000 });
  const totalMs = Date.now() - t0;
  const verdicts = await page.$$eval('#ladder .level', (els) =>
    Object.fromEntries(els.map((e) => [e.getAttribute('data-level'), e.getAttribute('data-verdict')])));
  for (const level of ['RC', 'RA', 'CC']) assert.equal(verdicts[level], 'pass', `${level}: ${verdicts[level]}`);
  const tasks = await longTasks(page);
  const longest = Math.max(0, ...tasks);
  const duringCheck = Math.max(0, ...(await longTasks(page, { sinceCheck: true })));
  console.log(`# perf: ${OPS} ops (${TXNS} txns): stats shown after ${loadedMs} ms, RC/RA/CC decided after ${totalMs} ms; ` +
    `${tasks.length} long tasks, longest ${longest.toFixed(0)} ms (during the check: ${duringCheck.toFixed(0)} ms)`);
  assert.ok(duringCheck < 100, `a main-thread task took ${duringCheck.toFixed(0)} ms during the check`);
  assert.ok(longest < 200, `a main-thread task took ${longest.toFixed(0)} ms`);
  assert.deepEqual(page.foreign, []);
  await page.context().close();
});
