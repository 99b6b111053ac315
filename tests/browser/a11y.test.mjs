// Accessibility: axe-core (from npm) runs in the page on the landing page, the results with the
// anomaly diagram, and the History, in the light and the dark theme, and finds no serious or
// critical violation (contrast included: 4.5:1). A keyboard-only walk goes from loading an
// example to the ladder, the anomaly, the diagram and the History, and focus never falls to
// <body>.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { dropFiles, seriousViolations, setup, waitChecked } from './_helpers.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

// Each view is checked in the light and the dark theme on the same page: the themes are the
// stylesheet's prefers-color-scheme, switched by emulating the media feature.
async function inBothThemes(page, where) {
  const backgrounds = new Set();
  for (const colorScheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme });
    // the colours' transitions (buttons fade between themes) end before axe reads them
    await page.evaluate(() => Promise.all(document.getAnimations().map((a) => a.finished.catch(() => {}))));
    backgrounds.add(await page.evaluate(() => getComputedStyle(document.body).backgroundColor));
    await seriousViolations(page, `${where}, ${colorScheme} theme`);
  }
  assert.equal(backgrounds.size, 2, `${where}: the two themes look the same`);
}

test('axe finds no serious or critical violation on the landing page, the results, the diagram and the History', async () => {
  // axe's script is injected through the DevTools protocol; the page's CSP allows no inline script
  const page = await env.page({ bypassCSP: true });
  await page.goto(env.server.url);
  await page.waitForSelector('.example');
  await inBothThemes(page, 'landing');
  // every example in the page's own scroll, none hidden in an inner scroll area
  assert.ok(await page.$eval('.examples', (e) => e.scrollHeight <= e.clientHeight + 1), 'the examples scroll inside their box');
  await page.goto(`${env.server.url}?example=write-skew.json`);
  await waitChecked(page);
  await page.click('#ladder .level[data-level="SER"]');
  await page.waitForSelector('#diagram[data-ready="true"]');
  await inBothThemes(page, 'results and diagram');
  await page.click('#tab-history');
  await page.waitForSelector('.hv-cell');
  await inBothThemes(page, 'history');
  await page.close();
});

// The other views (issue 23): the History of a history with aborted transactions, the Timeline,
// the Share dialog, an error with its format choice, and a set of histories.
test('axe: every other view, in both themes', async () => {
  const page = await env.page({ bypassCSP: true });
  await page.goto(`${env.server.url}?example=aborted-read.json`);
  await waitChecked(page);
  await page.click('#tab-history');
  await page.waitForSelector('.hv-cell.st-aborted');
  await inBothThemes(page, 'history with aborted transactions');
  await page.goto(`${env.server.url}?example=stale-read-realtime.json`);
  await waitChecked(page);
  await page.click('#tab-timeline');
  await page.waitForSelector('.tl-canvas[data-view]');
  await inBothThemes(page, 'timeline');
  await page.click('#share');
  await page.waitForSelector('#share-dialog .share-option');
  await inBothThemes(page, 'share dialog');
  await page.keyboard.press('Escape');
  await page.goto(env.server.url);
  await page.waitForSelector('#dropzone');
  await dropFiles(page, [{ name: 'notes.txt', content: 'hello, this is not a history\n' }]);
  await page.waitForSelector('#load-error select');
  await inBothThemes(page, 'error with a format choice');
  const edn = '{:type :ok, :f :txn, :value [[:r :x []] [:append :y 1]], :process 0}\n';
  await dropFiles(page, [{ name: 'a.edn', content: edn }, { name: 'b.edn', content: edn }]);
  await page.waitForSelector('#set-table');
  await waitChecked(page);
  await inBothThemes(page, 'a set of histories');
  await page.close();
});

test('keyboard only: example, ladder, anomaly, diagram, history; focus never falls to <body>', async () => {
  const page = await env.page();
  await page.goto(env.server.url);
  await page.waitForSelector('.example');
  const focused = () => page.evaluate(() => {
    const e = document.activeElement;
    return e === document.body || !e ? 'BODY' : `${e.tagName.toLowerCase()}#${e.id}.${[...e.classList].join('.')}[${e.getAttribute('data-level') ?? e.getAttribute('data-example') ?? ''}]`;
  });
  const tabTo = async (match, max = 60, key = 'Tab') => {
    for (let i = 0; i < max; i++) {
      await page.keyboard.press(key);
      const f = await focused();
      assert.notEqual(f, 'BODY', 'Tab reached <body>');
      if (match(f)) return f;
    }
    throw new Error(`never reached by Tab (last: ${await focused()})`);
  };
  // the two hidden file inputs are not Tab stops on the way
  const stops = [];
  for (let i = 0; i < 8; i++) { await page.keyboard.press('Tab'); stops.push(await focused()); }
  assert.ok(!stops.some((s) => s.startsWith('input#file-input') || s.startsWith('input#dir-input')), stops.join(' '));
  await tabTo((f) => f.includes('[write-skew.json]'));
  await page.keyboard.press('Enter');
  await waitChecked(page);
  assert.notEqual(await focused(), 'BODY', 'focus fell to <body> after opening an example');
  await tabTo((f) => f.includes('[SER]'));
  await page.keyboard.press('Enter');
  assert.match(await focused(), /\[SER\]/, 'focus left the ladder row after Enter');
  assert.match(await page.textContent('#explanation h3'), /Write skew/i);
  await page.waitForSelector('#diagram[data-ready="true"]');
  await tabTo((f) => f.startsWith('div#diagram'));
  const before = await page.$eval('#diagram svg', (s) => s.getAttribute('viewBox') ?? s.style.transform);
  await page.keyboard.press('+');
  const zoomed = await page.$eval('#diagram svg', (s) => s.getAttribute('viewBox') ?? s.style.transform);
  assert.notEqual(zoomed, before, 'the diagram did not zoom from the keyboard');
  await tabTo((f) => f.startsWith('button#tab-anomaly'), 80, 'Shift+Tab');
  await page.keyboard.press('ArrowRight');
  assert.match(await focused(), /^button#tab-history/);
  await page.waitForSelector('.hv-cell');
  await tabTo((f) => f.startsWith('div#.hv-scroller') || f.includes('hv-scroller'));
  await page.keyboard.press('ArrowDown');
  assert.notEqual(await focused(), 'BODY');
  assert.deepEqual(page.errors, []);
  await page.close();
});
