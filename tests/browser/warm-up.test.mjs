// The page's warm-up (web/src/worker/warm-up.ts, issue 21): while the page waits for a file, a
// worker of its own checks built-in histories so that V8 optimises the core's hot functions,
// whose code every worker shares (the page compiles the module once). Not a timing test (speed
// is shown by scripts/bench-histories.mjs --page): the warm-up runs to its end without an error
// on an idle page, a history dropped once it started stops it and checks as before, none
// starts once a checker has taken a worker, and the first check after it decides every level.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { dropFiles, generateHistory, ladder, setup, waitChecked } from './_helpers.mjs';

// repeated values (the choice of reads-from), serializable by construction: every level passes
const history = generateHistory(['--engine', 'ser', '--sessions', 4, '--txns', 15, '--keys', 6, '--value-range', 3, '--seed', 4]);
const warmUp = (page) => page.evaluate(() => performance.getEntriesByName('isoscope:warm-up').map((e) => e.detail));

let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

test('an idle page warms up, and its first check decides every level', async () => {
  const page = await env.page();
  await page.goto(env.server.url);
  await page.waitForFunction(() => performance.getEntriesByName('isoscope:warm-up').length > 0, null, { timeout: 60_000 });
  const [detail] = await warmUp(page);
  assert.equal(detail.outcome, 'done', JSON.stringify(detail));
  assert.equal(detail.ms.length, detail.rounds);
  await dropFiles(page, [{ name: 'h.json', content: history }]);
  await waitChecked(page);
  const verdicts = await ladder(page);
  for (const level of ['RC', 'RA', 'CC', 'PC', 'SI', 'SER', 'SSER']) assert.equal(verdicts[level], 'pass', `${level}: ${verdicts[level]}`);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a history dropped once the warm-up has started stops it and checks as before', async () => {
  const page = await env.page();
  await page.goto(env.server.url);
  await page.waitForFunction(() => performance.getEntriesByName('isoscope:warm-up-start').length > 0, null, { timeout: 60_000 });
  await dropFiles(page, [{ name: 'h.json', content: history }]);
  await waitChecked(page);
  assert.equal((await ladder(page)).SER, 'pass');
  // stopped (terminated; or done, on a machine faster than the drop): never a failure, never an error on the page
  for (const d of await warmUp(page)) assert.notEqual(d.outcome, 'failed', JSON.stringify(d));
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('no warm-up starts once a checker has taken a worker', async () => {
  const page = await env.page();
  await page.goto(env.server.url);
  await page.waitForFunction(() => window.__isoscope);
  await dropFiles(page, [{ name: 'h.json', content: history }]);
  await waitChecked(page);
  assert.equal((await ladder(page)).SER, 'pass');
  // The warm-up waits WARM_UP_DELAY_MS (web/src/worker/client.ts) for a file: dropped sooner
  // (as here, on all but a very slow machine), none ever starts; dropped later, it was stopped.
  const checked = await page.evaluate(() => performance.now());
  await page.waitForTimeout(1500);
  const starts = await page.evaluate(() => performance.getEntriesByName('isoscope:warm-up-start').map((e) => e.startTime));
  for (const t of starts) assert.ok(t < checked, `a warm-up started at ${t} ms, after the check (${checked} ms)`);
  for (const d of await warmUp(page)) assert.notEqual(d.outcome, 'failed', JSON.stringify(d));
  assert.deepEqual(page.errors, []);
  await page.close();
});
