// isoscope's side of a side-by-side benchmark on a folder of histories (docs/benchmarks.md,
// "Repeated values: side by side with VeriStrong"): every history is checked at each level
// alone, natively (build/isoscope, wall and CPU time of the process, parsing included) and in
// wasm (the Node build: load + check inside one fresh instance), several rounds, medians.
//
//   node scripts/bench-histories.mjs [--levels SER,SI] [--rounds 3] [--budget-ms 60000] DIR...
//       every history under each DIR: a Cobra folder (*.log files), or a file
//       (history.bincode, a JSON history, ...), found down to four levels deep
//   node scripts/bench-histories.mjs --wasm-once LEVEL BUDGET_MS PATH
//       one wasm run, as one JSON line (for harnesses that interleave other checkers): cold, a
//       fresh instance of a freshly compiled module, so V8's first (baseline) code runs it;
//       ms (wall) and cpu_ms (the process's CPU time, V8's background compiles included) of
//       load + check
//   node scripts/bench-histories.mjs --wasm-warm LEVEL BUDGET_MS PATH [PAUSE_MS] [--fresh-instance]
//       the same run as the page makes it: the module compiled once, the page's built-in
//       warm-up (web/src/worker/warm-up.ts) run in one instance, a pause (default 1000 ms: the
//       user choosing a file, while V8 finishes optimising), then the same instance loads and
//       checks PATH (the page's first check takes the warm-up's worker: client.ts, the spare);
//       --fresh-instance: a fresh instance of the same module does (as the page did before it
//       kept that worker); one JSON line, with the warm-up's own times
//   node scripts/bench-histories.mjs --page [--levels SER,SI] [--rounds 1] [--budget-s 60] PATH...
//       the page itself (dist/, served as the browser tests serve it, in Debian's Chromium):
//       for each history and level, a fresh browser context opened twice: "cold", the files
//       dropped as soon as the app is up (no warm-up), and "warm", dropped 1 s after the page's
//       warm-up has reported (as a user who opened the page a moment before). Reads the level's
//       check time as the page reports it (the core's ms), the wall time from the check's start
//       to its verdict, and from the drop to the verdict (parsing included); one JSON line each.
//       ISOSCOPE_DIST=DIR serves another build than dist/ (two builds compared in one run)
//
// Prints one JSON line per history and level, then a Markdown table. Compare times only as
// ratios within one run: the machine is shared.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { loadIsoscope, readInput, value } from '../tests/wasm/load-module.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cli = process.env.ISOSCOPE_CLI ?? path.join(root, 'build/isoscope');

/** CPU time of this process since `from` (every thread: V8's background compiles included). */
const cpuMs = (from) => { const d = process.cpuUsage(from); return (d.user + d.system) / 1000; };

async function wasmOnce(level, budgetMs, file) {
  const mod = await loadIsoscope();
  const { names, blobs } = readInput(file);
  const c0 = process.cpuUsage(), t0 = performance.now();
  const input = value(mod.load(names, blobs, ''));
  const r = value(mod.check(level, budgetMs, 1));
  const ms = performance.now() - t0;
  return { verdict: r.levels[level].verdict, ms, cpu_ms: cpuMs(c0), input };
}

/** The page's warm-up (TypeScript, its types stripped by Vite's transform). */
async function pageWarmUp() {
  const { transformWithOxc } = await import('vite');
  const source = readFileSync(path.join(root, 'web/src/worker/warm-up.ts'), 'utf8');
  const js = (await transformWithOxc(source, 'warm-up.ts')).code;
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'isoscope-warm-')), 'warm-up.mjs');
  writeFileSync(file, js);
  return (await import(pathToFileURL(file).href)).warmUp;
}

async function wasmWarm(level, budgetMs, file, pauseMs, freshInstance) {
  const warmUp = await pageWarmUp();
  // one compiled module, two instances (as the page's workers share the module it compiles)
  const { default: createIsoscope } = await import(pathToFileURL(path.join(root, 'build-wasm/isoscope.mjs')).href);
  const module = await WebAssembly.compile(readFileSync(path.join(root, 'build-wasm/isoscope.wasm')));
  const instance = () => createIsoscope({
    instantiateWasm(imports, done) { WebAssembly.instantiate(module, imports).then((i) => done(i, module)); return {}; },
  });
  const t0 = performance.now();
  const warmed = await instance();
  const warm = warmUp(warmed);
  const warmMs = performance.now() - t0;
  await new Promise((r) => setTimeout(r, pauseMs));
  const mod = freshInstance ? await instance() : warmed;
  const { names, blobs } = readInput(file);
  const c1 = process.cpuUsage(), t1 = performance.now();
  const input = value(mod.load(names, blobs, ''));
  const r = value(mod.check(level, budgetMs, 1));
  const ms = performance.now() - t1;
  return { verdict: r.levels[level].verdict, ms, cpu_ms: cpuMs(c1), input, warm_up: { ms: Math.round(warmMs), rounds_ms: warm.ms } };
}

function nativeOnce(level, budgetMs, file) {
  // CPU time: the child's user + system time, from /usr/bin/time's format.
  const args = ['-f', 'CPU %U %S', cli, 'check', '--json', '--level', level, '--budget-ms', String(budgetMs), file];
  const t0 = performance.now();
  const p = spawnSync('/usr/bin/time', args, { encoding: 'utf8', maxBuffer: 1 << 28 });
  const ms = performance.now() - t0;
  const cpu = /CPU ([\d.]+) ([\d.]+)/.exec(p.stderr ?? '');
  let r;
  try {
    r = JSON.parse(p.stdout);
  } catch {
    return { verdict: `error (exit ${p.status}): ${(p.stderr ?? '').split('\n')[0]}`, ms, cpu_ms: NaN };
  }
  return { verdict: r.levels[level].verdict, ms, cpu_ms: cpu ? (Number(cpu[1]) + Number(cpu[2])) * 1000 : NaN, input: r.input };
}

// Histories under dir: a folder holding *.log files is one Cobra history; other files count alone.
function histories(dir, depth = 0) {
  const st = statSync(dir);
  if (!st.isDirectory()) return [dir];
  const entries = readdirSync(dir).sort();
  if (entries.some((n) => n.endsWith('.log'))) return [dir];
  if (depth >= 4) return [];
  return entries.flatMap((n) => histories(path.join(dir, n), depth + 1));
}

const median = (xs) => {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  return s.length ? s[Math.floor((s.length - 1) / 2)] : NaN;
};

/** A history's files as the page gets them when dropped (a Cobra folder: its *.log files). */
function dropped(file) {
  const { names, blobs } = readInput(file);
  return names.map((n, i) => ({ name: path.basename(n), content: Buffer.from(blobs[i]) }));
}

async function pageRuns(argv) {
  let levels = ['SER', 'SI'], rounds = 1, budgetS = 60;
  const files = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--levels') levels = argv[++i].split(',');
    else if (argv[i] === '--rounds') rounds = Number(argv[++i]);
    else if (argv[i] === '--budget-s') budgetS = Number(argv[++i]);
    else files.push(argv[i]);
  }
  const { setup, dropFiles } = await import('../tests/browser/_helpers.mjs');
  const env = await setup();
  try {
    for (let round = 0; round < rounds; round++)
      for (const file of files)
        for (const level of levels)
          for (const mode of ['cold', 'warm']) {
            const page = await env.page();
            await page.goto(`${env.server.url}?levels=${level}`);
            await page.waitForFunction(() => window.__isoscope);
            let warmUp = null;
            if (mode === 'warm') {
              await page.waitForFunction(() => performance.getEntriesByName('isoscope:warm-up').length > 0, null, { timeout: 60_000 });
              warmUp = await page.evaluate(() => { const e = performance.getEntriesByName('isoscope:warm-up')[0]; return { ...e.detail, total_ms: Math.round(e.duration) }; });
              await page.waitForTimeout(1000);  // the user choosing a file, while V8 finishes optimising
            }
            await page.evaluate(() => {
              window.__checkedAt = null;
              window.__droppedAt = null;
              window.addEventListener('drop', () => { window.__droppedAt ??= performance.now(); }, true);
              new MutationObserver(() => { if (document.body.dataset.checked === 'true' && window.__checkedAt === null) window.__checkedAt = performance.now(); })
                .observe(document.body, { attributes: true, attributeFilter: ['data-checked'] });
            });
            await page.evaluate((s) => { window.__isoscope.budgetS = s; }, budgetS);
            await dropFiles(page, dropped(file));
            await page.waitForFunction(() => window.__checkedAt !== null, null, { timeout: (budgetS + 120) * 1000 });
            const r = await page.evaluate((level) => {
              const app = window.__isoscope;
              const start = performance.getEntriesByName('isoscope:check-start').at(-1).startTime;
              return { verdict: app.results[level]?.verdict, check_ms: app.results[level]?.ms, reason: app.results[level]?.reason, wall_ms: window.__checkedAt - start, drop_to_verdict_ms: window.__checkedAt - window.__droppedAt, parse_ms: app.input?.parse_ms };
            }, level);
            console.log(JSON.stringify({ round, history: file, level, mode, ...r, warm_up: warmUp, errors: page.errors.slice(0, 3) }));
            await page.context().close();
          }
  } finally {
    await env.close();
  }
}

async function main(argv) {
  if (argv[0] === '--page') return pageRuns(argv.slice(1));
  if (argv[0] === '--wasm-once') {
    const [, level, budget, file] = argv;
    console.log(JSON.stringify(await wasmOnce(level, Number(budget), file)));
    return;
  }
  if (argv[0] === '--wasm-warm') {
    const fresh = argv.includes('--fresh-instance');
    const [, level, budget, file, pause = '1000'] = argv.filter((a) => a !== '--fresh-instance');
    console.log(JSON.stringify(await wasmWarm(level, Number(budget), file, Number(pause), fresh)));
    return;
  }
  let levels = ['SER', 'SI'], rounds = 3, budget = 60000;
  const dirs = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--levels') levels = argv[++i].split(',');
    else if (argv[i] === '--rounds') rounds = Number(argv[++i]);
    else if (argv[i] === '--budget-ms') budget = Number(argv[++i]);
    else dirs.push(argv[i]);
  }
  const rows = [];
  for (const file of dirs.flatMap((d) => histories(d)))
    for (const level of levels) {
      const native = [], wasm = [];
      for (let round = 0; round < rounds; round++) {
        native.push(nativeOnce(level, budget, file));
        wasm.push(await wasmOnce(level, budget, file));
      }
      const input = native.find((r) => r.input)?.input ?? wasm[0].input;
      const verdicts = [...new Set([...native, ...wasm].map((r) => r.verdict))];
      const row = {
        history: file, level, txns: input.transactions, ambiguous_reads: input.ambiguous_reads ?? 0,
        verdict: verdicts.join('/'), native_ms: median(native.map((r) => r.ms)),
        native_cpu_ms: median(native.map((r) => r.cpu_ms)), wasm_ms: median(wasm.map((r) => r.ms)),
      };
      console.log(JSON.stringify(row));
      rows.push(row);
    }
  console.log('\n| history | txns | ambiguous reads | level | verdict | native ms | native CPU ms | wasm ms |');
  console.log('|---|--:|--:|---|---|--:|--:|--:|');
  for (const r of rows)
    console.log(`| ${r.history} | ${r.txns} | ${r.ambiguous_reads} | ${r.level} | ${r.verdict} | ${r.native_ms.toFixed(0)} | ${r.native_cpu_ms.toFixed(0)} | ${r.wasm_ms.toFixed(0)} |`);
}

await main(process.argv.slice(2));
