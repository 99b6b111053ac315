// Shared setup for the browser tests: build check, server, Chromium (playwright-core only).
import { existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { createRequire } from 'node:module';
import assert from 'node:assert/strict';
import { startServer } from './_server.mjs';

export const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
// ISOSCOPE_DIST: another build to serve (scripts/bench-histories.mjs --page compares two builds so)
export const dist = resolve(process.env.ISOSCOPE_DIST ?? join(repo, 'dist'));
export const corpus = resolve(process.env.ISOSCOPE_CORPUS ?? join(repo, '..', 'shared', 'corpus'));
export const shots = join(repo, 'docs', 'screenshots');

/**
 * A server for dist/ (with `extra` files, and those `serve` adds later) and a Chromium. Pages with
 * the default options share one browser context (a context costs a second or two of CPU to make):
 * such a page's tests must not leave state behind that another test reads (the theme in
 * localStorage, the last input in IndexedDB). A page with options has a context of its own,
 * closed with the page. Tests close their pages with `page.close()`.
 */
export async function setup(extra = {}) {
  if (!existsSync(join(dist, 'index.html'))) throw new Error('dist/ is missing: run `npx vite build --config web/vite.config.ts` first');
  const server = await startServer(dist, extra);
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const defaults = { viewport: { width: 1440, height: 960 }, deviceScaleFactor: 1, serviceWorkers: 'block' };
  let shared = null, landingPage = null;
  return {
    server, browser,
    /** Adds files the server answers with: { '/path': [content-type, body] }. */
    serve(files) { Object.assign(extra, files); },
    async page(opts = {}) {
      const own = Object.keys(opts).length > 0;
      const ctx = own ? await browser.newContext({ ...defaults, ...opts }) : (shared ??= await browser.newContext(defaults));
      const page = await ctx.newPage();
      if (own) page.once('close', () => { ctx.close().catch(() => {}); });
      const errors = [];
      page.on('pageerror', (e) => errors.push(String(e)));
      page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
      // no request may leave 127.0.0.1
      const foreign = [];
      page.on('request', (r) => { const u = new URL(r.url()); if (!['127.0.0.1', ''].includes(u.hostname) && !['data:', 'blob:'].includes(u.protocol)) foreign.push(r.url()); });
      page.errors = errors;
      page.foreign = foreign;
      return page;
    },
    /**
     * The file's page for dropped inputs, on its landing page: loaded once, then brought back by
     * the app's own Open button, with no page load (a page load costs several times what
     * checking a small history does). Its errors and foreign requests are those since this call.
     * Tests leave it open.
     */
    async landing() {
      if (!landingPage || landingPage.isClosed()) {
        landingPage = await this.page();
        await landingPage.goto(server.url);
      } else {
        await landingPage.keyboard.press('Escape');  // a dialog the last test left open (Share)
        await landingPage.click('#open-another');
      }
      await landingPage.waitForSelector('#dropzone');
      landingPage.errors.length = 0;
      landingPage.foreign.length = 0;
      return landingPage;
    },
    async close() { await browser.close(); await server.close(); },
  };
}

export async function shot(page, name) {
  if (process.env.ISOSCOPE_NO_SHOTS) return;
  mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: join(shots, `${name}.png`), fullPage: false });
}

/** Simulates dropping files (name, content) on the page, as a real DataTransfer. */
export async function dropFiles(page, files) {
  const payload = files.map((f) => ({ name: f.name, b64: Buffer.from(f.content).toString('base64') }));
  await page.evaluate((payload) => {
    const dt = new DataTransfer();
    for (const f of payload) {
      const bin = atob(f.b64);
      const bytes = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
      dt.items.add(new File([bytes], f.name));
    }
    const target = document.getElementById('dropzone') ?? document.body;
    for (const type of ['dragenter', 'dragover', 'drop']) target.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, payload);
}

export async function ladder(page) {
  return page.$$eval('#ladder .level', (els) => Object.fromEntries(els.map((e) => [e.dataset.level, e.dataset.verdict])));
}

export async function waitChecked(page, timeout = 60_000) {
  await page.waitForSelector('body[data-checked="true"]', { timeout });
}

/**
 * Records main-thread long tasks (over 50 ms) from before the page's own scripts run. Tests do not
 * assert on their durations (a shared machine's speed is no property of the page): the
 * benchmark (scripts/bench-responsiveness.mjs) measures them; tests assert the mechanisms.
 */
export async function observeLongTasks(page) {
  await page.addInitScript(() => {
    window.__longTasks = [];
    new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__longTasks.push([e.startTime, e.duration]); })
      .observe({ type: 'longtask', buffered: true });
  });
}
/**
 * The durations (ms) of the long tasks recorded so far; with `sinceCheck`, only those since the
 * last check started (the app's `isoscope:check-start` mark), not the page's start-up; with
 * `from`, those that began at or after that page time.
 */
export async function longTasks(page, { sinceCheck = false, from = 0 } = {}) {
  return page.evaluate(([sinceCheck, from]) => {
    const marks = sinceCheck ? performance.getEntriesByName('isoscope:check-start') : [];
    const start = marks.length ? marks[marks.length - 1].startTime : from;
    // tasks that begin once the check has started (the task that renders the results page and
    // starts the check is the page's, whatever the history)
    return window.__longTasks.filter(([s]) => s >= start).map(([, duration]) => duration);
  }, [sinceCheck, from]);
}

/**
 * Counts WebAssembly instances made on the page's main thread (workers are not affected by an
 * init script): the core must only ever run in a worker, whatever the history's size.
 */
export async function countMainThreadWasm(page) {
  await page.addInitScript(() => {
    window.__wasmInstances = 0;
    const inst = WebAssembly.instantiate, stream = WebAssembly.instantiateStreaming, Instance = WebAssembly.Instance;
    WebAssembly.instantiate = function (...a) { window.__wasmInstances++; return inst.apply(this, a); };
    if (stream) WebAssembly.instantiateStreaming = function (...a) { window.__wasmInstances++; return stream.apply(this, a); };
    WebAssembly.Instance = new Proxy(Instance, { construct(t, a) { window.__wasmInstances++; return Reflect.construct(t, a); } });
  });
}

/**
 * The mechanisms that keep a page responsive with a large history, which do not depend on the
 * machine's speed: the core ran in a worker (none on the main thread, one or more workers), and
 * the DOM holds a bounded number of elements (large views are virtualised or summarised).
 */
export async function assertBoundedPage(page, { maxElements = 6000 } = {}) {
  const { instances, elements } = await page.evaluate(() => ({
    instances: window.__wasmInstances, elements: document.getElementsByTagName('*').length }));
  assert.equal(instances, 0, 'the core was instantiated on the main thread');
  assert.ok(page.workers().length >= 1, 'no worker runs the core');
  assert.ok(elements <= maxElements, `${elements} elements in the page`);
}

/**
 * What the timeline's canvas drew in its last frame: bars (close operations share a pixel's bar,
 * so at most the lanes in view times the canvas's width, whatever the history's size), and that
 * bound. The mechanism that keeps pan and zoom smooth on a history of any size.
 */
export async function timelineFrame(page) {
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  return page.$eval('.tl-canvas', (c) => ({ drawn: Number(c.dataset.drawn), bound: Number(c.dataset.lanes) * c.clientWidth }));
}

/** A history from `isoscope generate` (the native CLI of this build), as text. */
export function generateHistory(args) {
  const file = join(mkdtempSync(join(tmpdir(), 'isoscope-')), 'generated.json');
  const r = spawnSync(join(repo, 'build/isoscope'), ['generate', ...args.map(String), file], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`isoscope generate failed: ${r.stderr}`);
  return readFileSync(file, 'utf8');
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
/**
 * Runs axe-core (npm) in the page and fails on any serious or critical violation. The page must
 * come from a context with bypassCSP: axe is injected through the DevTools protocol and the
 * page's CSP allows no inline script.
 */
export async function seriousViolations(page, where) {
  await page.evaluate(axeSource);
  const found = await page.evaluate(async () => (await window.axe.run(document, { resultTypes: ['violations'] })).violations
    .map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) })));
  const bad = found.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(bad, [], `${where}: ${JSON.stringify(bad)}`);
}
