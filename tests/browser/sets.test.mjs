// Many histories at once: a folder of 12 dbcop runs (hist-00000/ ... hist-00011/, as dbcop and
// PolySI write them) shows a table of 12 rows whose verdicts match `isoscope check DIR`; a row
// opens its results, and Back returns to the table. Two EDN files dropped together are two
// histories, not one with duplicate transaction ids.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { corpus, dropFiles, repo, setup, shot, waitChecked } from './_helpers.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

function bincodes(dir, out = []) {
  for (const e of readdirSync(dir).sort()) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) bincodes(p, out);
    else if (e === 'history.bincode') out.push(p);
  }
  return out;
}

test('a folder of 12 dbcop runs shows 12 rows matching the command line', async () => {
  const found = bincodes(corpus);
  assert.ok(found.length >= 12, `the corpus has ${found.length} dbcop histories`);
  const root = join(mkdtempSync(join(tmpdir(), 'isoscope-set-')), 'runs');
  found.slice(0, 12).forEach((f, i) => {
    const d = join(root, `hist-${String(i).padStart(5, '0')}`);
    mkdirSync(d, { recursive: true });
    copyFileSync(f, join(d, 'history.bincode'));
  });
  const cli = spawnSync(join(repo, 'build/isoscope'), ['check', '--json', root], { encoding: 'utf8' });
  assert.equal(cli.status, 1, cli.stderr);
  const expected = Object.fromEntries(JSON.parse(cli.stdout).histories.map((r) =>
    [r.history, Object.fromEntries(Object.entries(r.levels).map(([l, v]) => [l, v.verdict]))]));
  assert.equal(Object.keys(expected).length, 12);

  const page = await env.landing();
  await page.setInputFiles('#dir-input', root);
  await page.waitForSelector('#set-table');
  await waitChecked(page, 120_000);
  const rows = await page.$$eval('#set-table tbody tr', (trs) => trs.map((tr) => ({
    name: tr.dataset.name,
    verdicts: Object.fromEntries([...tr.querySelectorAll('td[data-level]')].map((td) => [td.dataset.level, td.querySelector('.pill')?.className.replace('pill ', '') ?? ''])),
  })));
  assert.equal(rows.length, 12);
  for (const r of rows) {
    const want = expected[r.name];
    assert.ok(want, `row ${r.name} is not one of ${Object.keys(expected)}`);
    for (const [level, verdict] of Object.entries(want)) assert.equal(r.verdicts[level], verdict === 'n/a' ? 'na' : verdict, `${r.name} ${level}`);
  }
  assert.match(await page.textContent('#set-summary'), /12 histories checked/);
  await shot(page, 'history-set');

  // a row opens that history; Back shows the table again, still checked
  await page.click('#set-table button[data-part="3"]');
  await page.waitForSelector('#ladder');
  await waitChecked(page);
  assert.equal(await page.textContent('.inputbar .file strong'), 'hist-00003');
  await page.goBack();
  await page.waitForSelector('#set-table');
  assert.equal(await page.$$eval('#set-table tbody tr[data-done="true"]', (t) => t.length), 12);
  assert.deepEqual(page.errors, []);
});

test('two EDN files dropped together are two histories', async () => {
  const edn = readFileSync(join(repo, 'tests/fixtures/formats/lost-update.edn'));
  const page = await env.landing();
  await dropFiles(page, [{ name: 'run-1.edn', content: edn }, { name: 'run-2.edn', content: edn }]);
  await page.waitForSelector('#set-table');
  await waitChecked(page);
  assert.deepEqual(await page.$$eval('#set-table tbody tr', (trs) => trs.map((tr) => tr.dataset.name)), ['run-1.edn', 'run-2.edn']);
  assert.equal(await page.$eval('#set-table tbody tr td[data-level="SER"] .pill', (p) => p.className), 'pill fail');
});
