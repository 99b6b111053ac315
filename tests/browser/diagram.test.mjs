// Diagram legibility (issue 23): in every textbook anomaly's diagram, no edge label lies on a
// transaction's box (its operations' text), and no edge passes through a transaction it does not
// join. The dependency list under the diagram is its list form.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { dist, dropFiles, setup, waitChecked } from './_helpers.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

const EXAMPLES = ['write-skew.json', 'long-fork.json', 'lost-update.json', 'causality-violation.json', 'fractured-read.json', 'dbcop-long-fork.json', 'dbcop-causal-chain.json', 'dbcop-non-cc.json'];

test('edge labels never cover a transaction, edges go around the ones they do not join', async () => {
  // one page: each example is dropped on the page the last one left (a page load per example
  // would cost more than the checks)
  const page = await env.page();
  await page.goto(env.server.url);
  await page.waitForSelector('#dropzone');
  for (const ex of EXAMPLES) {
    await dropFiles(page, [{ name: ex, content: readFileSync(join(dist, 'examples', ex)) }]);
    await page.waitForFunction((name) => document.querySelector('.inputbar .file')?.textContent.includes(name), ex);
    await waitChecked(page);
    const failing = await page.$$eval('#ladder .level[data-verdict="fail"]', (els) => els.map((e) => e.dataset.level));
    if (!failing.length) continue;
    await page.click(`#ladder .level[data-level="${failing[failing.length - 1]}"]`);
    await page.waitForSelector('#diagram[data-ready="true"]');
    const bad = await page.$eval('#diagram svg', (svg) => {
      const nodes = [...svg.querySelectorAll('g.dnode')].map((g) => ({ txn: g.dataset.txn, r: g.querySelector('rect').getBBox() }));
      const inside = (p, r, m) => p.x > r.x + m && p.x < r.x + r.width - m && p.y > r.y + m && p.y < r.y + r.height - m;
      const overlap = (a, b) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
      const out = [];
      for (const l of svg.querySelectorAll('g.viewport > g:last-child > g > rect')) {
        const b = l.getBBox();
        for (const n of nodes) if (overlap(b, n.r)) out.push(`label ${l.nextSibling?.textContent} on T${n.txn}`);
      }
      for (const path of svg.querySelectorAll('g.dedge path')) {
        const len = path.getTotalLength();
        const ends = [path.getPointAtLength(0), path.getPointAtLength(len)];
        const joined = nodes.filter((n) => ends.some((e) => e.x >= n.r.x - 2 && e.x <= n.r.x + n.r.width + 2 && e.y >= n.r.y - 2 && e.y <= n.r.y + n.r.height + 2));
        for (let i = 1; i < 40; i++) {
          const p = path.getPointAtLength((len * i) / 40);
          for (const n of nodes) if (!joined.includes(n) && inside(p, n.r, 3)) { out.push(`${path.parentNode.dataset.type} edge through T${n.txn}`); break; }
        }
      }
      return [...new Set(out)];
    });
    assert.deepEqual(bad, [], ex);
  }
  assert.deepEqual(page.errors, []);
  await page.close();
});
