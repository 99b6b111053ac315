#!/usr/bin/env node
// The page's responsiveness, measured (never asserted in a test: a shared machine's speed is no
// property of the page). For each scenario, the longest main-thread task (PerformanceObserver
// 'longtask': every task over 50 ms) in headless Chromium, over several runs: median and worst,
// with the machine named. The tests check the mechanisms behind these figures (the core in a
// worker, a bounded DOM, a timeline frame bounded by its pixels); this script measures them.
//
//   node scripts/bench-responsiveness.mjs [--runs N] [--ops N] [--only NAME,...] [--markdown]
//
// Scenarios:
//   load-check   10^6 operations (--ops): load, check RC, RA, CC (from the page's start, and
//                from the check's start)
//   timeline     a concurrent run of as many operations (the simulator's, with times): its
//                timeline, 36 zoom and pan steps
//   link         a 100,000-transaction write skew: check SER, show the witness, make the
//                counterexample link, open it in a new page
//   witness      a 300-transaction cycle: check RC and show the summarised witness
// Needs dist/ (npm run build) and build/isoscope.
import os from 'node:os';
import { assertBoundedPage, countMainThreadWasm, generateHistory, ladder, longTasks, observeLongTasks, setup, waitChecked }
  from '../tests/browser/_helpers.mjs';
import { bigHistory } from '../tests/browser/_big.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : dflt; };
const RUNS = Number(opt('--runs', 3));
const OPS = Number(opt('--ops', 1_000_000));
const ONLY = opt('--only', '')?.split(',').filter(Boolean) ?? [];
const MARKDOWN = args.includes('--markdown');

const worst = (xs) => Math.max(0, ...xs);
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s.length ? s[(s.length - 1) >> 1] : 0; };

/** A page that records long tasks and counts main-thread wasm instances. */
async function watchedPage(env) {
  const page = await env.page();
  await observeLongTasks(page);
  await countMainThreadWasm(page);
  return page;
}

const scenarios = {
  async 'load-check'() {
    const env = await setup({ '/perf.json': ['application/json', bigHistory(Math.ceil(OPS / 3))] });
    try {
      const page = await watchedPage(env);
      const t0 = Date.now();
      await page.goto(env.server.url + '?levels=RC,RA,CC&src=/perf.json');
      await waitChecked(page, 600_000);
      const wall = Date.now() - t0;
      await assertBoundedPage(page);
      const all = await longTasks(page), check = await longTasks(page, { sinceCheck: true });
      const v = await ladder(page);
      await page.context().close();
      return { what: `${OPS.toLocaleString('en-US')} operations, RC RA CC ${v.RC}/${v.RA}/${v.CC}`, longest: worst(all), during: worst(check), wall };
    } finally { await env.close(); }
  },
  async timeline() {
    // a concurrent run with start and end times (the simulator's): OPS / 3 transactions of 3
    // operations in 100 sessions
    const txns = Math.ceil(OPS / 3);
    const run = generateHistory(['--engine', 'si', '--sessions', 100, '--txns', Math.ceil(txns / 100), '--ops', 3, '--keys', 100_000, '--seed', 5]);
    const env = await setup({ '/perf.json': ['application/json', run] });
    try {
      const page = await watchedPage(env);
      await page.goto(env.server.url + '?levels=RC&src=/perf.json');
      await waitChecked(page, 600_000);
      await page.click('#tab-timeline');
      await page.waitForSelector('.tl-canvas[data-view]', { timeout: 300_000 });
      const from = await page.evaluate(() => performance.now());
      const t0 = Date.now();
      const b = await page.$eval('.tl-canvas', (c) => { const r = c.getBoundingClientRect(); return { x: r.left, y: r.top, w: r.width, h: r.height }; });
      await page.mouse.move(b.x + b.w / 2, b.y + b.h / 2);
      for (let i = 0; i < 12; i++) { await page.mouse.wheel(0, -240); await page.waitForTimeout(16); }
      await page.mouse.down();
      for (let i = 0; i < 12; i++) { await page.mouse.move(b.x + b.w / 2 - i * 25, b.y + b.h / 2 + i * 6); await page.waitForTimeout(16); }
      await page.mouse.up();
      for (let i = 0; i < 12; i++) { await page.mouse.wheel(0, 240); await page.waitForTimeout(16); }
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      const tasks = await longTasks(page, { from });
      await page.context().close();
      return { what: `${txns.toLocaleString('en-US')} transactions in 100 sessions, 36 zoom and pan steps`, longest: worst(tasks), during: worst(tasks), wall: Date.now() - t0 };
    } finally { await env.close(); }
  },
  async link() {
    const history = generateHistory(['--sessions', 10, '--txns', 10000, '--target', 'inject=WriteSkew', '--seed', 7]);
    const env = await setup({ '/ws.json': ['application/json', history] });
    try {
      const page = await watchedPage(env);
      const t0 = Date.now();
      await page.goto(`${env.server.url}?levels=SER&src=/ws.json`);
      await waitChecked(page, 300_000);
      await page.click('#ladder .level[data-level="SER"]');
      await page.waitForSelector('#explanation h3');
      await page.click('#share');
      await page.waitForFunction(() => document.getElementById('share')?.dataset.link, null, { timeout: 120_000 });
      const link = await page.$eval('#share', (el) => el.dataset.link);
      const first = await longTasks(page);
      const other = await watchedPage(env);
      await other.goto(link);
      await waitChecked(other, 300_000);
      const opened = await longTasks(other);
      const wall = Date.now() - t0;
      await page.context().close();
      await other.context().close();
      return { what: `100,000-transaction write skew, its ${link.length.toLocaleString('en-US')}-character link opened`, longest: worst([...first, ...opened]), during: worst(opened), wall };
    } finally { await env.close(); }
  },
  async witness() {
    const n = 300;
    const sessions = Array.from({ length: n }, (_, i) => [[['r', (i + n - 1) % n, 1000 + ((i + n - 1) % n)], ['w', i, 1000 + i]]]);
    const env = await setup({ '/cycle.json': ['application/json', JSON.stringify({ format: 'isoscope/1', initial: 0, sessions })] });
    try {
      const page = await watchedPage(env);
      const t0 = Date.now();
      await page.goto(`${env.server.url}?levels=RC&src=/cycle.json`);
      await waitChecked(page, 300_000);
      const from = await page.evaluate(() => performance.now());
      await page.click('#ladder .level[data-level="RC"]');
      await page.waitForSelector('#diagram-summary');
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      const all = await longTasks(page), shown = await longTasks(page, { from });
      await page.context().close();
      return { what: 'a 300-transaction witness, summarised', longest: worst(all), during: worst(shown), wall: Date.now() - t0 };
    } finally { await env.close(); }
  },
};

const names = Object.keys(scenarios).filter((n) => !ONLY.length || ONLY.includes(n));
const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
console.log(`# responsiveness: ${os.cpus().length} x ${cpu}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${os.loadavg()[0].toFixed(1)} load; ${RUNS} runs each; headless Chromium`);
const rows = [];
for (const name of names) {
  const runs = [];
  for (let r = 0; r < RUNS; r++) {
    const m = await scenarios[name]();
    runs.push(m);
    console.log(`#   ${name} run ${r + 1}: longest task ${m.longest.toFixed(0)} ms (after the start of the check or step: ${m.during.toFixed(0)} ms), ${(m.wall / 1000).toFixed(1)} s`);
  }
  rows.push({ name, what: runs[0].what, longest: runs.map((m) => m.longest), during: runs.map((m) => m.during), wall: runs.map((m) => m.wall) });
}
const fmt = (xs) => `${median(xs).toFixed(0)} / ${worst(xs).toFixed(0)}`;
if (MARKDOWN) {
  console.log('\n| scenario | what | longest main-thread task, ms (median / worst) | once the check or step started | wall, s (median) |');
  console.log('|---|---|--:|--:|--:|');
  for (const r of rows) console.log(`| ${r.name} | ${r.what} | ${fmt(r.longest)} | ${fmt(r.during)} | ${(median(r.wall) / 1000).toFixed(1)} |`);
} else {
  for (const r of rows) console.log(`${r.name.padEnd(11)} ${r.what}: longest ${fmt(r.longest)} ms (median / worst); after start ${fmt(r.during)} ms; wall ${(median(r.wall) / 1000).toFixed(1)} s`);
}
