// The lattice both ways in the page: the worker checks levels in the core's order (strong levels
// strongest first), so on a history with timestamps a passing SSER decides SER, SI and PC at once
// and the page never says "Satisfies SSER; unknown: ..." (issue 21: a 10^6-transaction engine
// history used to leave SER, SI and PC unknown after SSER passed).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { generateHistory, ladder, setup, waitChecked } from './_helpers.mjs';

let env;
before(async () => {
  const history = generateHistory(['--engine', 'ser', '--sessions', 100, '--txns', 100, '--seed', 3]);
  env = await setup({ '/ser.json': ['application/json', history] });
});
after(async () => { await env?.close(); });

test('a passing SSER decides SER, SI and PC: every level passes, none unknown', async () => {
  const page = await env.page();
  const seen = [];
  await page.exposeFunction('__verdictSeen', (s) => seen.push(s));
  await page.goto(`${env.server.url}?src=/ser.json`);
  // Watch the summary while the check runs: no state may show a stronger pass beside an unknown.
  await page.evaluate(() => {
    new MutationObserver(() => {
      const s = document.getElementById('summary')?.textContent ?? '';
      window.__verdictSeen(s);
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  await waitChecked(page, 120_000);
  const verdicts = await ladder(page);
  for (const l of ['RC', 'RR', 'RA', 'CC', 'PC', 'SI', 'SER', 'SSER']) assert.equal(verdicts[l], 'pass', `${l}: ${verdicts[l]}`);
  const summary = await page.textContent('#summary');
  assert.match(summary, /Satisfies SSER/);
  assert.doesNotMatch(summary, /unknown/);
  for (const s of seen) assert.doesNotMatch(s, /Satisfies SSER.*unknown/, s);
  // The weaker strong levels say why they pass.
  await page.click('#ladder .level[data-level="SER"]');
  await page.waitForFunction(() => /implied by the SSER pass/.test(document.body.textContent ?? ''), null, { timeout: 10_000 });
  assert.deepEqual(page.errors, []);
  await page.context().close();
});
