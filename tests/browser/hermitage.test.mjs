// Hermitage's table (`isoscope hermitage --json`, tests/fixtures/hermitage/): a dropped one shows
// its table, cell for cell as the JSON says; an "occurs" cell opens its cases, a case its history,
// checked again by the page (the failing level and its anomaly are the page's core's), Back
// returns to the table with the cell open; ?src= and the address reopen a cell and a case; a
// broken one says what was expected; the gallery lists the tables; the embed shows one from
// another origin; axe finds no serious violation on the table. Nothing here names an anomaly or
// a level: they are read from the JSON.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { dist, dropFiles, ladder, repo, seriousViolations, setup, shot, waitChecked } from './_helpers.mjs';
import { startServer } from './_server.mjs';

const fixtures = join(repo, 'tests', 'fixtures', 'hermitage');
const text = readFileSync(join(fixtures, 'postgresql-15.json'), 'utf8');
const doc = JSON.parse(text);
const manifest = JSON.parse(readFileSync(join(fixtures, 'manifest.json'), 'utf8'));
const OCCURS = '\u2014';

/** The first cell of the table that says "occurs", its cases, and the number (from 1) of a case that occurred. */
function occursCell(table) {
  for (const row of table.rows) {
    for (const a of table.anomalies) {
      if (row.cells[a.name] !== OCCURS) continue;
      const cases = row.cases.filter((c) => c.anomaly === a.name);
      return { row, anomaly: a.name, cases, number: cases.findIndex((c) => c.result === 'occurs') + 1 };
    }
  }
  throw new Error('no cell occurs');
}

/** The table as the page shows it: isolation -> [provides, the marks in the page's column order], and the columns. */
const shownTable = (root) => root.$eval('#hermitage-table', (t) => ({
  columns: [...t.querySelectorAll('thead th[data-anomaly]')].map((th) => th.dataset.anomaly),
  rows: Object.fromEntries([...t.querySelectorAll('tbody tr')].map((tr) => [tr.dataset.isolation,
    [tr.querySelector('.provides').textContent, ...[...tr.querySelectorAll('.hcell')].map((b) => b.dataset.mark)]])),
  names: [...t.querySelectorAll('.hcell')].map((b) => b.getAttribute('aria-label')),
}));
const expectedRows = (table) => Object.fromEntries(table.rows.map((r) => [r.isolation, [r.provides, ...table.anomalies.map((a) => r.cells[a.name])]]));

let env;
before(async () => { env = await setup({ '/tables/pg.json': ['application/json', text] }); });
after(async () => { await env?.close(); });

test('a dropped Hermitage JSON: its table, an occurring cell, its case checked by the page, and Back', async () => {
  const page = await env.landing();
  await dropFiles(page, [{ name: 'postgresql-15.json', content: text }]);
  await page.waitForSelector('#hermitage-table');
  assert.match(await page.textContent('#hermitage-title'), new RegExp(`${doc.database} ${doc.version.replace(/[()+.]/g, '\\$&')}`));
  const shown = await shownTable(page);
  assert.deepEqual(shown.columns, doc.anomalies.map((a) => a.name));
  assert.deepEqual(shown.rows, expectedRows(doc));
  // every cell has a name that says its row, its anomaly and what its mark means
  assert.ok(shown.names.every((n) => /^[\w-]+, \S+ \(.+\): \w/.test(n)), shown.names.join('\n'));
  assert.ok(await page.$$eval('#hermitage-table th', (ths) => ths.every((th) => th.getAttribute('scope'))), 'a header without scope');

  // an "occurs" cell: its cases, each with its script and how it ended
  const cell = occursCell(doc);
  const ref = `${cell.row.isolation}.${cell.anomaly}`;
  await page.click(`.hcell[data-cell="${ref}"]`);
  await page.waitForSelector(`#hermitage-cell[data-cell="${ref}"]`);
  assert.equal(await page.getAttribute(`.hcell[data-cell="${ref}"]`, 'aria-expanded'), 'true');
  assert.equal(new URL(page.url()).searchParams.get('cell'), ref);
  const cases = await page.$$eval('#hermitage-cell .hcase', (els) => els.map((e) => ({
    result: e.dataset.result, steps: e.querySelectorAll('.script tbody tr').length, outcome: e.querySelector('.outcome').textContent })));
  assert.deepEqual(cases.map((c) => c.result), cell.cases.map((c) => c.result));
  assert.deepEqual(cases.map((c) => c.steps), cell.cases.map((c) => c.script.split(';').filter((s) => s.trim()).length));
  cell.cases.forEach((c, i) => assert.match(cases[i].outcome, c.result === 'occurs' ? new RegExp(`^Occurs: .*fails ${c.level}`) : /^Prevented: /));
  await shot(page, 'hermitage');

  // its history, checked in the page's worker: the case's level fails, with the core's anomaly
  const c = cell.cases[cell.number - 1];
  await page.click(`#hermitage-cell .open-case[data-case="${cell.number}"]`);
  await waitChecked(page);
  assert.equal(new URL(page.url()).searchParams.get('case'), String(cell.number));
  const got = await ladder(page);
  assert.equal(got[c.level], 'fail');
  for (const [level, r] of Object.entries(c.check.levels)) assert.equal(got[level], r.verdict, `${level}: the page's core and the command's disagree`);
  assert.match(await page.textContent('#detail-title'), new RegExp(`^${c.level} `));
  await page.waitForSelector('#explanation h3');
  await page.waitForSelector('#diagram[data-ready="true"]');
  assert.match(await page.textContent('.inputbar .file strong'), new RegExp(`${cell.row.isolation} \u00b7 ${cell.anomaly}`));

  // Back: the table, the cell still open; Forward: the case again
  await page.goBack();
  await page.waitForSelector(`#hermitage-cell[data-cell="${ref}"]`);
  assert.equal(new URL(page.url()).searchParams.get('case'), null);
  assert.deepEqual((await shownTable(page)).rows, expectedRows(doc));
  await page.goForward();
  await waitChecked(page);
  assert.equal((await ladder(page))[c.level], 'fail');
  // and the results' own link up to the table
  await page.click('#up-link');
  await page.waitForSelector(`#hermitage-cell[data-cell="${ref}"]`);
  assert.deepEqual(page.errors, []);
});

test('a prevented case says how: blocked, or aborted with the database\'s message', async () => {
  const page = await env.landing();
  await dropFiles(page, [{ name: 'postgresql-15.json', content: text }]);
  await page.waitForSelector('#hermitage-table');
  for (const row of doc.rows) {
    const c = row.cases.find((k) => k.result === 'prevented' && k.refusals.length > 0);
    if (!c) continue;
    const cases = row.cases.filter((k) => k.anomaly === c.anomaly);
    await page.click(`.hcell[data-cell="${row.isolation}.${c.anomaly}"]`);
    const article = `#hermitage-cell .hcase[data-case="${cases.indexOf(c) + 1}"]`;
    await page.waitForSelector(article);
    assert.equal(await page.textContent(`${article} .outcome`), `Prevented: ${c.how}`);
    assert.deepEqual(await page.$$eval(`${article} .refusals pre`, (ps) => ps.map((p) => p.textContent)), c.refusals);
    const waited = await page.$$eval(`${article} .script tbody tr`, (trs) => trs.map((tr, i) => (tr.classList.contains('waited-step') ? i + 1 : 0)).filter(Boolean));
    assert.deepEqual(waited, c.waits.map((w) => w.step));
    assert.deepEqual(page.errors, []);
    return;
  }
  throw new Error('no case of the fixture was refused by the database');
});

test('?src= opens the table, and the address its cell and its case; a reload keeps them', async () => {
  const page = await env.page();
  const cell = occursCell(doc);
  const ref = `${cell.row.isolation}.${cell.anomaly}`;
  await page.goto(`${env.server.url}?src=/tables/pg.json&cell=${ref}&case=${cell.number}`);
  await waitChecked(page);
  assert.equal((await ladder(page))[cell.cases[cell.number - 1].level], 'fail');
  await page.click('#up-link');
  await page.waitForSelector(`#hermitage-cell[data-cell="${ref}"]`);
  await page.click('#hermitage-cell-close');
  await page.waitForFunction(() => !document.getElementById('hermitage-cell'));
  assert.equal(new URL(page.url()).searchParams.get('cell'), null);
  assert.match(await page.evaluate(() => document.activeElement?.dataset.cell ?? ''), new RegExp(`^${ref}$`));
  await page.reload();
  await page.waitForSelector('#hermitage-table');
  assert.deepEqual((await shownTable(page)).rows, expectedRows(doc));
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a broken Hermitage JSON says what was expected', async () => {
  const page = await env.landing();
  const broken = JSON.parse(text);
  delete broken.rows[1].cells[broken.anomalies[2].name];
  await dropFiles(page, [{ name: 'broken.json', content: JSON.stringify(broken) }]);
  await page.waitForSelector('#load-error');
  assert.equal(await page.textContent('#load-error h2'), 'This Hermitage table could not be read');
  assert.match(await page.textContent('#load-error pre'), new RegExp(`^rows\\[1\\]\\.cells\\.${broken.anomalies[2].name}: expected the cell of .* in a Hermitage table as \`isoscope hermitage TARGET --json\` writes it`));
  await dropFiles(page, [{ name: 'cut.json', content: text.slice(0, 5000) }]);
  await page.waitForFunction(() => /not valid JSON/.test(document.querySelector('#load-error pre')?.textContent ?? ''));
  assert.deepEqual(page.errors, []);
});

test("the gallery lists Hermitage's tables with their database, version and command", async () => {
  const page = await env.landing();
  for (const e of manifest.entries) {
    const card = `.example[data-example="${e.file}"]`;
    await page.waitForSelector(card);
    assert.equal(await page.textContent(`${card} strong`), e.title);
    assert.match(await page.textContent(`${card} .recorded`), new RegExp(`^${e.database} [\\d.]+, every level: isoscope hermitage \\S+ --json$`));
    assert.equal(await page.getAttribute(card, 'title'), e.note);
  }
  const maria = manifest.entries.find((e) => e.database === 'MariaDB');
  await page.click(`.example[data-example="${maria.file}"]`);
  await page.waitForSelector('#hermitage-table');
  assert.deepEqual((await shownTable(page)).rows, expectedRows(JSON.parse(readFileSync(join(fixtures, maria.file), 'utf8'))));
  assert.deepEqual(page.errors, []);
});

test('axe: the table and an open cell, in both themes', async () => {
  const page = await env.page({ bypassCSP: true });
  const cell = occursCell(doc);
  await page.goto(`${env.server.url}?src=/tables/pg.json&cell=${cell.row.isolation}.${cell.anomaly}`);
  await page.waitForSelector('#hermitage-cell');
  for (const colorScheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme });
    await page.evaluate(() => Promise.all(document.getAnimations().map((a) => a.finished.catch(() => {}))));
    await seriousViolations(page, `Hermitage table, ${colorScheme} theme`);
  }
  await page.close();
});

// A documentation site embeds the table from the bundle's origin; a case's link opens its
// history in the app there, which checks it.
test('the embed shows the table from another origin, and a case opens in the app', async () => {
  const bundle = await startServer(dist, {}, { cors: true });
  const host = `<!doctype html><html><head><meta charset="utf-8"><title>docs</title><link rel="icon" href="data:,">
<script type="module" src="${bundle.url}embed.js"></script></head><body><h1>Which anomalies PostgreSQL prevents</h1>
<isoscope-check src="${bundle.url}examples/postgresql-15.json"></isoscope-check></body></html>`;
  const site = await startServer(dist, { '/docs.html': ['text/html; charset=utf-8', host] });
  try {
    assert.notEqual(new URL(site.url).origin, new URL(bundle.url).origin);
    const page = await env.page();
    await page.goto(`${site.url}docs.html`);
    await page.waitForSelector('isoscope-check[data-state="done"]', { timeout: 60_000 });
    const el = page.locator('isoscope-check');
    const shown = await el.evaluate((e) => ({
      columns: [...e.shadowRoot.querySelectorAll('thead th[data-anomaly]')].map((th) => th.dataset.anomaly),
      rows: Object.fromEntries([...e.shadowRoot.querySelectorAll('tbody tr')].map((tr) => [tr.dataset.isolation,
        [tr.querySelector('.provides').textContent, ...[...tr.querySelectorAll('.hcell')].map((b) => b.dataset.mark)]])),
    }));
    assert.deepEqual(shown, { columns: doc.anomalies.map((a) => a.name), rows: expectedRows(doc) });
    const cell = occursCell(doc);
    await el.locator(`.hcell[data-cell="${cell.row.isolation}.${cell.anomaly}"]`).click();
    const link = el.locator(`#hermitage-cell .hcase[data-case="${cell.number}"] a.open-case`);
    const href = await link.getAttribute('href');
    assert.equal(new URL(href).origin, new URL(bundle.url).origin);
    assert.match(new URL(href).hash, /^#h=/);
    await shot(page, 'embed-hermitage');
    const app = await page.context().newPage();
    await app.goto(href);
    await app.waitForSelector('body[data-checked="true"]', { timeout: 60_000 });
    assert.equal((await ladder(app))[cell.cases[cell.number - 1].level], 'fail');
    assert.deepEqual(page.errors, []);
    assert.deepEqual(app.errors ?? [], []);
    await app.close();
    await page.close();
  } finally {
    await site.close();
    await bundle.close();
  }
});
