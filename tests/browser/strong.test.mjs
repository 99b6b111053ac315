// Strong levels at the scale of real test runs, in the page: 10,000-transaction histories of
// 50 concurrent sessions from the database simulator (`isoscope generate --engine`) check
// every level with the right verdicts, in a worker (the main thread's longest task during such a
// check is a figure of scripts/bench-responsiveness.mjs, not an assertion here).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { assertBoundedPage, countMainThreadWasm, generateHistory, setup } from './_helpers.mjs';

const simulate = (engine) => generateHistory(['--engine', engine, '--sessions', 50, '--txns', 200, '--ops', 8, '--keys', 1000, '--seed', 7]);

let env;
before(async () => {
  env = await setup({ '/ser.json': ['application/json', simulate('ser')], '/si.json': ['application/json', simulate('si')] });
});
after(async () => { await env?.close(); });

const expected = {
  ser: { RC: 'pass', RR: 'pass', RA: 'pass', CC: 'pass', PC: 'pass', SI: 'pass', SER: 'pass', SSER: 'pass' },
  si: { RC: 'pass', RR: 'pass', RA: 'pass', CC: 'pass', PC: 'pass', SI: 'pass', SER: 'fail', SSER: 'fail' },
};

for (const engine of ['ser', 'si']) {
  test(`${engine} engine, 50 sessions x 200 transactions: every level decided in a worker`, async () => {
    const page = await env.page();
    await countMainThreadWasm(page);
    await page.goto(`${env.server.url}?src=/${engine}.json`);
    await page.waitForSelector('body[data-checked="true"]', { timeout: 120_000 });
    const verdicts = await page.$$eval('#ladder .level', (els) =>
      Object.fromEntries(els.map((e) => [e.getAttribute('data-level'), e.getAttribute('data-verdict')])));
    for (const [level, verdict] of Object.entries(expected[engine])) assert.equal(verdicts[level], verdict, `${level}: ${verdicts[level]}`);
    await assertBoundedPage(page);
    assert.deepEqual(page.errors, []);
    await page.close();
  });
}
