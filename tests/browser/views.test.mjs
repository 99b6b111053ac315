// Screenshots of the main views (docs/screenshots/) and keyboard/theme behaviour.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { assertBoundedPage, countMainThreadWasm, generateHistory, ladder, setup, shot, waitChecked } from './_helpers.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

test('dark theme, history lanes with the anomaly highlighted, exports', async () => {
  const page = await env.page({ colorScheme: 'dark', acceptDownloads: true });
  await page.goto(env.server.url + '?example=' + (process.env.ISOSCOPE_VIEW_EXAMPLE ?? 'write-skew.json'));
  await waitChecked(page);
  await page.waitForSelector('#diagram[data-ready] svg .dnode');
  await shot(page, 'result-dark');
  // exports
  for (const [id, ext] of [['#export-svg', '.svg'], ['#export-dot', '.dot'], ['#export-png', '.png']]) {
    const [dl] = await Promise.all([page.waitForEvent('download'), page.click(id)]);
    assert.ok(dl.suggestedFilename().endsWith(ext), dl.suggestedFilename());
  }
  // the anomaly's transactions are highlighted in the history view
  await page.click('.explain ~ .diagram-tools button:has-text("Show in history")');
  await page.waitForSelector('.hv-cell.hl');
  const hl = await page.$$eval('.hv-cell.hl', (els) => els.map((e) => e.dataset.txn));
  assert.ok(hl.length >= 1);
  await shot(page, 'history-dark');
  await page.close();
});

test('light theme toggle and keyboard navigation of the ladder', async () => {
  const page = await env.page({ colorScheme: 'dark' });
  await page.goto(env.server.url + '?example=lost-update.json');
  await waitChecked(page);
  await page.click('#theme-toggle');
  assert.equal(await page.getAttribute('html', 'data-theme'), 'light');
  await page.focus('#ladder .level[data-level="RC"]');
  await page.keyboard.press('Enter');
  assert.equal(await page.getAttribute('#ladder .level.selected', 'data-level'), 'RC');
  await page.close();
});

test('works offline once loaded (service worker), and makes no foreign requests', async () => {
  const page = await env.page({ serviceWorkers: 'allow' });
  await page.goto(env.server.url);
  await page.waitForSelector('.example');
  await page.evaluate(() => navigator.serviceWorker.ready);
  // a second load goes through the worker and fills the cache with every asset
  await page.reload();
  await page.waitForSelector('.example');
  await page.click('.example[data-example="lost-update.json"]');
  await waitChecked(page);
  await page.context().setOffline(true);
  // the reload keeps the example (?example=), served from the cache
  await page.reload();
  await waitChecked(page, 15_000);
  assert.ok(Object.keys(await page.$$eval('#ladder .level', (els) => els.map((e) => e.dataset.level))).length > 0);
  assert.deepEqual(page.foreign, []);
  await page.close();
});

test('the Content-Security-Policy forbids requests to other hosts', async () => {
  const page = await env.page();
  await page.goto(env.server.url);
  const csp = await page.getAttribute('meta[http-equiv="Content-Security-Policy"]', 'content');
  assert.match(csp, /connect-src 'self'/);
  assert.doesNotMatch(csp, /https?:|\*/);
  const blocked = await page.evaluate(() => fetch('http://example.com/x', { method: 'POST', body: 'history' }).then(() => false, () => true));
  assert.ok(blocked);
  await page.close();
});

// A witness too large to draw (a 300-transaction cycle of reads-from): the page shows a summary
// and a download instead of a diagram, lists every anomaly's count, and keeps the page bounded.
test('a witness of hundreds of transactions is summarised, not drawn', async () => {
  const n = 300;
  // Ti reads T(i-1)'s write of key i-1 and writes key i; T0 reads the last one: a cycle.
  const sessions = Array.from({ length: n }, (_, i) => [[['r', (i + n - 1) % n, 1000 + ((i + n - 1) % n)], ['w', i, 1000 + i]]]);
  const text = JSON.stringify({ format: 'isoscope/1', initial: 0, sessions });
  env.serve({ '/cycle.json': ['application/json', text] });
  const page = await env.page();
  await countMainThreadWasm(page);
  await page.goto(`${env.server.url}?levels=RC&src=/cycle.json`);
  await waitChecked(page);
  assert.equal((await ladder(page)).RC, 'fail');
  await page.click('#ladder .level[data-level="RC"]');
  await page.waitForSelector('#diagram-summary');
  assert.equal(await page.$('#diagram'), null);
  assert.match(await page.textContent('#diagram-summary'), /300 transactions/);
  assert.ok(await page.$('#download-witness'));
  await assertBoundedPage(page);
  assert.deepEqual(page.errors, []);
  await page.close();
});

// Every anomaly is reachable: the ladder counts all of them, and "Show all" re-checks the level
// alone and pages through every one.
test('all 65 anomalies of a level are counted and reachable', async () => {
  const sessions = Array.from({ length: 65 }, (_, i) => [[['r', `k${i}`, 7]]]);  // 65 thin-air reads
  env.serve({ '/many.json': ['application/json', JSON.stringify({ format: 'isoscope/1', initial: 0, sessions })] });
  const page = await env.page();
  await page.goto(`${env.server.url}?levels=RC&src=/many.json`);
  await waitChecked(page);
  assert.match(await page.textContent('#ladder .level[data-level="RC"]'), /65 anomalies/);
  await page.click('#ladder .level[data-level="RC"]');
  assert.match(await page.textContent('#anomaly-count'), /of 65 anomalies/);
  await page.click('#all-anomalies');
  await page.waitForFunction(() => document.querySelectorAll('.anomaly-tab[aria-pressed]').length === 20);
  assert.match(await page.textContent('#anomaly-count'), /1\u201320 of 65/);
  await page.click('.anomaly-tab[aria-label="Next anomalies"]');
  assert.match(await page.textContent('#anomaly-count'), /21\u201340 of 65/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

// The History's column headers stay over their sessions' cells: after selecting a partly hidden
// transaction with the mouse and moving with the keyboard, each header starts where its cells do.
test('history headers stay aligned with their sessions', async () => {
  const text = generateHistory(['--sessions', 8, '--txns', 50, '--seed', 1]);
  env.serve({ '/h.json': ['application/json', text] });
  const page = await env.page({ viewport: { width: 1100, height: 800 } });
  await page.goto(`${env.server.url}?src=/h.json`);
  await waitChecked(page);
  await page.click('#tab-history');
  await page.waitForSelector('.hv-cell');
  const misaligned = () => page.evaluate(() => {
    const heads = new Map([...document.querySelectorAll('.hv-hcell')].map((e) => [e.textContent.split(' ')[1], e.getBoundingClientRect().left]));
    const bad = [];
    for (const c of document.querySelectorAll('.hv-cell:not([hidden])')) {
      const session = c.getAttribute('data-session');
      const x = heads.get(session);
      if (x !== undefined && Math.abs(c.getBoundingClientRect().left - x) > 6) bad.push(`T${c.dataset.txn} (session ${session})`);
    }
    return bad;
  });
  const edge = await page.evaluate(() => { const s = document.querySelector('.hv-scroller').getBoundingClientRect(); return { x: s.right - 20, y: s.top + 40 }; });
  await page.mouse.click(edge.x, edge.y);
  assert.deepEqual(await misaligned(), []);
  for (const key of ['ArrowRight', 'ArrowRight', 'ArrowDown', 'ArrowLeft']) {
    await page.keyboard.press(key);
    await page.waitForTimeout(50);
    assert.deepEqual(await misaligned(), [], `after ${key}`);
  }
  await page.close();
});

// One level again: only that level runs (the others keep their verdicts), with the page's budget.
test('a single level can be checked again', async () => {
  const page = await env.page();
  await page.goto(`${env.server.url}?example=write-skew.json`);
  await waitChecked(page);
  await page.click('#ladder .level[data-level="SER"]');
  await page.evaluate(() => {
    window.__ran = new Set();
    new MutationObserver(() => {
      for (const e of document.querySelectorAll('#ladder .level[data-verdict="running"]')) window.__ran.add(e.getAttribute('data-level'));
    }).observe(document.getElementById('ladder'), { subtree: true, childList: true, attributes: true });
  });
  await page.click('#recheck-level');
  await page.waitForFunction(() => window.__ran.size > 0 && document.querySelector('#ladder .level[data-level="SER"]')?.getAttribute('data-verdict') === 'fail');
  await page.waitForSelector('#recheck-level');
  assert.deepEqual(await page.evaluate(() => [...window.__ran]), ['SER']);
  assert.equal((await ladder(page)).SI, 'pass');
  assert.deepEqual(page.errors, []);
  await page.close();
});

// Search in the History: by number, by label and by key, each revealing the first match.
test('the History finds transactions by number, label or key', async () => {
  const text = '{"initial": 0, "sessions": [[ {"id": "deposit-17", "ops": [["w","acct",1]]}, {"ops": [["r","acct",1], ["w","other",2]]} ], [ {"ops": [["r","other",2]]} ]]}';
  env.serve({ '/s.json': ['application/json', text] });
  const page = await env.page();
  await page.goto(`${env.server.url}?src=/s.json`);
  await waitChecked(page);
  await page.click('#tab-history');
  await page.waitForSelector('#history-search');
  const search = async (q) => { await page.fill('#history-search', q); await page.press('#history-search', 'Enter'); };
  await search('deposit-17');
  await page.waitForFunction(() => /match for deposit-17 \(label\)/.test(document.getElementById('search-result')?.textContent ?? ''));
  await page.waitForFunction(() => document.querySelector('.hv-detail h3')?.textContent?.startsWith('T1'));
  await search('other');
  await page.waitForFunction(() => /2 matches for other \(key\): T2, T3/.test(document.getElementById('search-result')?.textContent ?? ''));
  await page.click('#search-result .txlink:nth-of-type(2)');
  await page.waitForFunction(() => document.querySelector('.hv-detail h3')?.textContent?.startsWith('T3'));
  await search('T2');
  await page.waitForFunction(() => document.querySelector('.hv-detail h3')?.textContent?.startsWith('T2'));
  await search('nothing-here');
  await page.waitForFunction(() => /No transaction matches nothing-here/.test(document.getElementById('search-result')?.textContent ?? ''));
  assert.deepEqual(page.errors, []);
  await page.close();
});
