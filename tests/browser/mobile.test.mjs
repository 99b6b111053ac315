// Any screen: at 390 x 844 (a phone) nothing is wider than the screen and every action of the
// landing page, the results, the anomaly panel and the History can be reached.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { setup, shot, waitChecked } from './_helpers.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

/** Controls that stick out of the screen sideways, and the page's layout width. */
async function overflow(page) {
  return page.evaluate(() => {
    const out = [];
    for (const e of document.querySelectorAll('button, a, input, select, [tabindex]')) {
      const b = e.getBoundingClientRect();
      if (b.width === 0 || e.closest('.sr-only, [hidden]') || e.getAttribute('tabindex') === '-1') continue;
      if (e.closest('.hv-scroller, #diagram')) continue; // scrolling and panning areas of their own
      if (b.right > window.innerWidth + 1 || b.left < -1) out.push(`${e.tagName.toLowerCase()}#${e.id} ${Math.round(b.left)}..${Math.round(b.right)}`);
    }
    return { width: document.documentElement.scrollWidth, out };
  });
}

test('390 x 844: landing, results, anomaly and History fit the screen; every action is on it', async () => {
  const page = await env.page({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
  await page.goto(env.server.url);
  await page.waitForSelector('.example');
  assert.deepEqual(await overflow(page), { width: 390, out: [] }, 'landing');
  await page.goto(`${env.server.url}?example=write-skew.json`);
  await waitChecked(page);
  assert.deepEqual(await overflow(page), { width: 390, out: [] }, 'results');
  for (const id of ['#share', '#theme-toggle', '#open-another', '#recheck', '#cancel']) {
    const box = await page.$eval(id, (e) => { const b = e.getBoundingClientRect(); return { left: b.left, right: b.right, width: b.width }; });
    assert.ok(box.width > 0 && box.left >= 0 && box.right <= 390, `${id} is off-screen: ${JSON.stringify(box)}`);
  }
  await shot(page, 'mobile');
  await page.tap('#ladder .level[data-level="SER"]');
  await page.waitForSelector('#diagram[data-ready="true"]');
  assert.deepEqual(await overflow(page), { width: 390, out: [] }, 'anomaly');
  // the panel header keeps the verdict pill on screen and the description readable; the anomaly
  // starts within the first 1,000 px of the page
  const layout = await page.evaluate(() => {
    const box = (sel) => document.querySelector(sel).getBoundingClientRect();
    return { pill: [box('.level-head .pill').left, box('.level-head .pill').right], desc: box('.level-head p').width, anomaly: box('#explanation').top + scrollY };
  });
  assert.ok(layout.pill[0] >= 0 && layout.pill[1] <= 390, `the pill is off-screen: ${layout.pill}`);
  assert.ok(layout.desc > 250, `the description is a column ${layout.desc} px wide`);
  assert.ok(layout.anomaly < 1000, `the anomaly starts ${layout.anomaly} px down`);
  // the diagram's text is not shrunk to fit a phone: part of it at a readable size, panned to the rest
  const scale = await page.$eval('#diagram svg', (svg) => {
    const vb = svg.viewBox.baseVal, r = svg.getBoundingClientRect();
    return Math.min(r.width / vb.width, r.height / vb.height);
  });
  assert.ok(scale >= 0.8, `the diagram is drawn at ${scale.toFixed(2)}x`);
  await page.tap('#tab-history');
  await page.waitForSelector('.hv-cell');
  assert.deepEqual(await overflow(page), { width: 390, out: [] }, 'history');
  assert.deepEqual(page.errors, []);
  await page.close();
});
