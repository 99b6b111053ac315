// The gallery's histories recorded from real databases by `isoscope run` (tests/fixtures/db/):
// each says which database, version, isolation level and command produced it, opens, and gets
// the verdicts of its manifest; a failing level lists every kind of anomaly it found.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ladder, repo, setup, waitChecked } from './_helpers.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

const manifest = JSON.parse(readFileSync(join(repo, 'tests', 'fixtures', 'db', 'manifest.json'), 'utf8'));

test('a recorded MariaDB history: its origin in the gallery, its verdicts, and its lost updates counted', async () => {
  const entry = manifest.entries.find((e) => e.file === 'mariadb-repeatable-read-lost-update.json');
  const page = await env.landing();
  const card = `.example[data-example="${entry.file}"]`;
  await page.waitForSelector(card);
  const origin = await page.textContent(`${card} .recorded`);
  assert.match(origin, /^MariaDB 10\.11\.\d+, repeatable-read: isoscope run mariadb:\/\//);
  assert.doesNotMatch(origin, /isoscope:[0-9a-f]+@/, 'no password');
  await page.click(card);
  await waitChecked(page);
  const got = await ladder(page);
  for (const [level, verdict] of Object.entries(entry.expect)) assert.equal(got[level], verdict, level);
  await page.click('#ladder [data-level="SI"]');
  await page.waitForSelector('#anomaly-kinds');
  assert.match(await page.textContent('#anomaly-kinds'), /^Found: Lost update \u00d7 \d+/);
  assert.deepEqual(page.errors, []);
});

test('a history recorded through crashes: the lost write named, the crashes as bands on the timeline', async () => {
  const entry = manifest.entries.find((e) => e.file === 'postgresql-crash-synchronous-commit-off.json');
  const page = await env.landing();
  const card = `.example[data-example="${entry.file}"]`;
  await page.waitForSelector(card);
  assert.match(await page.textContent(`${card} .recorded`), /--nemesis crash/);
  await page.click(card);
  await waitChecked(page);
  const got = await ladder(page);
  for (const [level, verdict] of Object.entries(entry.expect)) assert.equal(got[level], verdict, level);
  await page.click('#ladder [data-level="SSER"]');
  await page.waitForSelector('#anomaly-kinds');
  assert.match(await page.textContent('#anomaly-kinds'), /Lost write/);
  await page.click('#tab-timeline');
  await page.waitForSelector('#timeline-faults');
  const faults = JSON.parse(readFileSync(join(repo, 'tests', 'fixtures', 'db', entry.file), 'utf8')).faults;
  assert.equal(await page.locator('#timeline-faults li').count(), faults.length);
  assert.match(await page.textContent('#timeline-faults li'), /^crash of postgres from /);
  await page.waitForFunction(() => Number(document.querySelector('.tl-canvas')?.dataset.faults) > 0);
  assert.deepEqual(page.errors, []);
});
