// The benchmark runner (`npm run bench`): generates the standard set of histories with
// `isoscope generate`, checks every level natively (the CLI) and in wasm (the Node build of the
// same core), and writes docs/benchmarks.md with tables and SVG plots of time and memory vs size.
//
//   node scripts/bench.mjs            the standard set (10^3 .. 10^6 operations)
//   node scripts/bench.mjs --full     also 10^7 operations
//   node scripts/bench.mjs --quick    a small smoke run (used by the tests of this script)
//   node scripts/bench.mjs --parse-only   refresh only the parse-throughput section
//   node scripts/bench.mjs --strong-only  refresh only the section on strong levels over concurrent
//                                         histories (the database simulator); with
//                                         ISOSCOPE_BASELINE=path/to/older/isoscope it adds that
//                                         binary's native figures as "before"
//
// Each level runs alone (no lattice shortcut) with a budget, so a row shows that level's own
// cost; `unknown` means the budget ran out.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync, existsSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadIsoscope, readInput, value } from '../tests/wasm/load-module.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cli = path.join(root, 'build/isoscope');
const corpus = path.resolve(root, '../shared/corpus');
const work = path.join(os.tmpdir(), 'isoscope-bench');
mkdirSync(work, { recursive: true });
const args = new Set(process.argv.slice(2));
const quick = args.has('--quick');
const outFile = quick ? path.join(work, 'benchmarks.md') : path.join(root, 'docs/benchmarks.md');

const WEAK = ['RC', 'RR', 'RA', 'CC'];
const mb = (b) => (b / 1048576).toFixed(0);
const ms = (x) => (x >= 100 ? x.toFixed(0) : x.toFixed(1));
const STRONG = ['PC', 'SI', 'SER', 'SSER'];
// The sections of docs/benchmarks.md this script writes, in their order; the others were measured
// by hand and are kept.
const OWNED_SECTIONS = ['Strong levels on concurrent histories', 'Parse throughput', 'Generated histories', 'The dbcop paper',
  'Strong levels vs sessions', 'Corpus histories', 'Plots'];
const BUDGET_MS = quick ? 2000 : 20000;

// The standard set. ops = sessions * txns * ops-per-txn.
function standardSet() {
  const set = [];
  const sizes = quick ? [1e3, 1e4] : args.has('--full') ? [1e3, 1e4, 1e5, 1e6, 1e7] : [1e3, 1e4, 1e5, 1e6];
  for (const ops of sizes)
    for (const sessions of [10, 100, 1000]) {
      const txns = Math.floor(ops / 8 / sessions);
      if (txns < 1) continue;
      set.push({ name: `general ${fmt(ops)} ops, ${sessions} sessions`, group: 'general', ops, sessions,
        gen: ['--sessions', sessions, '--txns', txns, '--ops', '4-12', '--keys', Math.max(100, ops / 100), '--target', 'level=CC', '--timestamps'],
        levels: ops <= 1e5 ? [...WEAK, ...STRONG] : WEAK });
    }
  // The dbcop paper's shape: 6 sessions x 30 transactions x 20 operations.
  for (let seed = 1; seed <= (quick ? 1 : 3); seed++)
    set.push({ name: `dbcop shape 6x30x20 (seed ${seed})`, group: 'dbcop', ops: 3600, sessions: 6,
      gen: ['--sessions', 6, '--txns', 30, '--ops', 20, '--keys', 50, '--target', 'serial', '--seed', seed], levels: [...WEAK, ...STRONG] });
  // How strong levels grow with sessions (3..30) at a fixed transaction count per session.
  if (!quick)
    for (const sessions of [3, 5, 10, 20, 30])
      set.push({ name: `serial, ${sessions} sessions x 50 txns`, group: 'sessions', ops: sessions * 50 * 8, sessions,
        gen: ['--sessions', sessions, '--txns', 50, '--ops', '4-12', '--keys', 200, '--target', 'serial'], levels: STRONG.slice(0, 3) });
  // The corpus histories with a stated SER verdict.
  const manifest = JSON.parse(readFileSync(path.join(corpus, 'manifest.json'), 'utf8'));
  for (const e of manifest.entries)
    if (!quick && (e.path.startsWith('dbcop-oopsla19') || e.path.startsWith('polysi') || e.path.startsWith('cobra/cock-G2')))
      set.push({ name: e.path, group: 'corpus', file: path.join(corpus, e.path), levels: [...WEAK, ...STRONG] });
  return set;
}

function fmt(n) {
  return n >= 1e6 ? `${n / 1e6}M` : n >= 1e3 ? `${n / 1e3}k` : `${n}`;
}

function generate(c) {
  if (c.file) return c.file;
  const file = path.join(work, `${c.name.replace(/[^a-z0-9]+/gi, '_')}.json`);
  if (!existsSync(file)) {
    const r = spawnSync(cli, ['generate', ...c.gen.map(String), file], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`generate failed: ${r.stderr}`);
  }
  return file;
}

function runNative(file, level, binary = cli, budget = BUDGET_MS) {
  const r = spawnSync(binary, ['check', '--json', '--level', level, '--budget-ms', String(budget), file],
    { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status === 2) throw new Error(r.stderr);
  const j = JSON.parse(r.stdout);
  return { verdict: j.levels[level].verdict, ms: j.levels[level].ms, parse_ms: j.input.parse_ms,
    mem: j.peak_rss_bytes, input: j.input };
}

async function runWasm(file, levels) {
  // A fresh instance per history: wasm memory never shrinks, so its size is this run's peak.
  const mod = await loadIsoscope();
  const { names, blobs } = readInput(file);
  const t0 = performance.now();
  const loaded = JSON.parse(mod.load(names, blobs, ''));
  const parseMs = performance.now() - t0;
  if (!loaded.ok) throw new Error(loaded.error.text);
  const out = {};
  for (const level of levels) {
    const r = value(mod.check(level, BUDGET_MS, 1));
    out[level] = { verdict: r.levels[level].verdict, ms: r.levels[level].ms };
  }
  return { parse_ms: parseMs, levels: out, mem: value(mod.memoryBytes()) };
}

// Replaces one "## title" section of the existing report (or adds it after the others that
// this script writes: before the first section measured by hand).
function refreshSection(title, section) {
  const old = existsSync(outFile) ? readFileSync(outFile, 'utf8') : '# Benchmarks\n\n';
  const at = old.indexOf(`## ${title}`);
  let out;
  if (at >= 0) {
    const next = old.indexOf('\n## ', at + 1) + 1;
    out = old.slice(0, at) + section + (next > 0 ? old.slice(next) : '');
  } else {
    const heads = [...old.matchAll(/^## (.*)$/gm)].filter((m) => !OWNED_SECTIONS.some((t) => m[1].startsWith(t)));
    const before = heads.length ? heads[0].index : old.length;
    out = old.slice(0, before) + section + old.slice(before);
  }
  writeFileSync(outFile, out);
  console.log(`updated the "${title}" section of ${outFile}`);
}

// ---- strong levels on concurrent histories (isoscope generate --engine) ------------------------
const STRONG_TITLE = 'Strong levels on concurrent histories';
function concurrentSet() {
  const set = [];
  const add = (engine, sessions, txns, extra = [], keys = Math.max(1000, sessions * txns / 10)) => set.push({
    name: `${engine}${extra.length ? ` (${extra.join(' ')})` : ''}${keys < 1000 ? ` on ${keys} hot keys` : ''}, ${sessions} sessions x ${txns} txns`,
    engine, sessions, txns: sessions * txns,
    gen: ['--engine', engine, '--sessions', sessions, '--txns', txns, '--ops', 8, '--keys', keys, '--seed', 1, ...extra] });
  if (quick) {
    add('ser', 10, 50);
    add('si', 10, 50);
    return set;
  }
  for (const engine of ['ser', 'si', 'rc']) add(engine, 50, 200);  // the headline: ~10,000 transactions
  add('ser', 50, 200, ['--mix', 'cobra']);
  for (const sessions of [10, 20, 100]) add('ser', sessions, 10000 / sessions);  // growth with sessions
  for (const txns of [1000, 100000]) add('ser', 50, txns / 50);  // growth with transactions
  add('si', 100, 1000);  // 100 sessions, 100,000 transactions
  add('ser', 100, 1000);
  // Hot keys: 10^6 transactions of 100 sessions on 8 keys.
  for (const engine of ['ser', 'si']) add(engine, 100, 10000, [], 8);
  return set;
}
async function strongConcurrent() {
  const baseline = process.env.ISOSCOPE_BASELINE;
  const rows = [];
  for (const c of concurrentSet()) {
    const file = path.join(work, `sim-${c.name.replace(/[^a-z0-9]+/gi, '_')}-${c.gen.join('_').replace(/[^a-z0-9]+/gi, '')}.json`);
    if (!existsSync(file)) {
      const r = spawnSync(cli, ['generate', ...c.gen.map(String), file], { encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`generate failed: ${r.stderr}`);
    }
    const native = {}, before = {};
    let input = null, nativeMem = 0;
    for (const level of STRONG) {
      const r = runNative(file, level);
      native[level] = r;
      input = r.input;
      nativeMem = Math.max(nativeMem, r.mem);
      if (baseline && c.txns <= 10000) before[level] = runNative(file, level, baseline, 30000);
    }
    const wasm = await runWasm(file, STRONG);
    rows.push({ ...c, input, native, nativeMem, wasm, before });
    console.log(`${c.name}: ${STRONG.map((l) => `${l} ${native[l].verdict} ${native[l].ms.toFixed(0)}/${wasm.levels[l].ms.toFixed(0)}ms` +
      (before[l] ? ` (before ${before[l].verdict} ${before[l].ms.toFixed(0)})` : '')).join('  ')}`);
  }
  let md = `## ${STRONG_TITLE}\n\nHistories of the database simulator (\`isoscope generate --engine ser|si|rc\`, 8 operations per ` +
    'transaction, keys = transactions / 10, at least 1000): every session runs its transactions concurrently with all the others, ' +
    'as in real isolation tests. `ser` (optimistic concurrency control) passes every level, `si` (first committer wins) passes SI ' +
    'and fails SER by write skew, `rc` fails above RC. Each level runs alone with a ' + `${BUDGET_MS / 1000} s budget; times are ` +
    'native CLI / wasm (Node) in milliseconds. "before" is the previous release (session-antichain search only, 30 s budget). ' +
    'Memory: native peak RSS / wasm heap, MB.\n\n';
  md += `| history | committed | ${STRONG.join(' | ')} | memory |\n|${'---|'.repeat(STRONG.length + 3)}\n`;
  for (const r of rows) {
    const cells = STRONG.map((l) => {
      const n = r.native[l], w = r.wasm.levels[l], b = r.before[l];
      return `${n.verdict} ${ms(n.ms)} / ${ms(w.ms)}` + (b ? ` (before: ${b.verdict} ${ms(b.ms)})` : '');
    });
    md += `| ${r.name} | ${r.input.committed} | ${cells.join(' | ')} | ${mb(r.nativeMem)} / ${mb(r.wasm.mem)} |\n`;
  }
  return md + '\n';
}
if (args.has('--strong-only')) {
  refreshSection(STRONG_TITLE, await strongConcurrent());
  process.exit(0);
}

const rows = [];
for (const c of standardSet()) {
  const file = generate(c);
  const native = {};
  let input = null, nativeMem = 0, nativeParse = 0;
  for (const level of c.levels) {
    const r = runNative(file, level);
    native[level] = r;
    input = r.input;
    nativeMem = Math.max(nativeMem, r.mem);
    nativeParse = r.parse_ms;
  }
  const wasm = await runWasm(file, c.levels);
  rows.push({ ...c, input, native, nativeMem, nativeParse, wasm });
  const summary = c.levels.map((l) => `${l} ${native[l].verdict} ${native[l].ms.toFixed(1)}/${wasm.levels[l].ms.toFixed(1)}ms`).join('  ');
  console.log(`${c.name}: ${input.operations} ops  ${summary}`);
}

// ---- parse throughput: ~100 MB files, end to end through the CLI and the wasm API -------------
// Both report input.parse_ms (read_history() alone: no disk read, no check), so the figures
// are the importers' own. The plume file has its sessions interleaved transaction by
// transaction, as the Plume/PolySI collectors write them.
function interleavePlume(text) {
  const bySession = new Map();
  let txn = null, cur = null;
  for (const line of text.split('\n')) {
    if (!line) continue;
    const f = line.slice(2, -1).split(',');
    if (f[3] !== txn) {
      txn = f[3];
      if (!bySession.has(f[2])) bySession.set(f[2], []);
      cur = [];
      bySession.get(f[2]).push(cur);
    }
    cur.push(line);
  }
  const queues = [...bySession.values()], out = [];
  for (let i = 0, live = true; live; i++) {
    live = false;
    for (const q of queues) if (i < q.length) { live = true; out.push(...q[i]); }
  }
  return out.join('\n') + '\n';
}

async function parseThroughput() {
  const txns = quick ? 20 : 400;  // x 1000 sessions x 10 ops: 4M operations, ~100 MB
  const rows = [];
  for (const format of ['plume', 'isoscope']) {
    const file = path.join(work, `parse-${txns}.${format === 'plume' ? 'txt' : 'json'}`);
    if (!existsSync(file)) {
      const r = spawnSync(cli, ['generate', '--sessions', '1000', '--txns', String(txns), '--ops', '10', '--keys', '100000',
        '--format', format, '--seed', '1', file], { encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`generate failed: ${r.stderr}`);
      if (format === 'plume') writeFileSync(file, interleavePlume(readFileSync(file, 'utf8')));
    }
    const bytes = statSync(file).size;
    const native = [];
    let input = null;
    for (let i = 0; i < 5; i++) {
      const r = runNative(file, 'RC');
      native.push(r.parse_ms);
      input = r.input;
    }
    const mod = await loadIsoscope();
    const blob = new Uint8Array(readFileSync(file));
    const wasm = [];
    for (let i = 0; i < 3; i++) {
      const loaded = JSON.parse(mod.load([file], [blob], format));
      if (!loaded.ok) throw new Error(loaded.error.text);
      wasm.push(loaded.value.parse_ms);
    }
    rows.push({ format, bytes, ops: input.operations, perOp: input.memory_bytes / input.operations, native, wasm });
    console.log(`parse ${format}: ${(bytes / 1e6).toFixed(0)} MB native ${native.map((x) => x.toFixed(0)).join(' ')} ms, wasm ${wasm.map((x) => x.toFixed(0)).join(' ')} ms`);
  }
  return rows;
}
function parseSection(parseRows) {
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const rate = (bytes, msv) => (bytes / 1e3 / msv).toFixed(0);
  let md = '## Parse throughput\n\nA generated history of 1000 sessions, 4M operations, imported by `read_history()` ' +
    '(input.parse_ms of `isoscope check --json` and of the wasm `load`; native 5 runs, wasm 3). MB/s are decimal megabytes ' +
    'of input per second, median (best). Bytes/op is the loaded history\'s own memory (`input.memory_bytes`).\n\n' +
    '| format | MB | operations | native MB/s | wasm MB/s | bytes/op |\n|---|---|---|---|---|---|\n';
  for (const r of parseRows)
    md += `| ${r.format === 'plume' ? 'plume (sessions interleaved)' : 'isoscope JSON'} | ${(r.bytes / 1e6).toFixed(0)} | ${r.ops} | ` +
      `${rate(r.bytes, median(r.native))} (${rate(r.bytes, Math.min(...r.native))}) | ` +
      `${rate(r.bytes, median(r.wasm))} (${rate(r.bytes, Math.min(...r.wasm))}) | ${r.perOp.toFixed(1)} |\n`;
  return md + '\n';
}
const parseRows = await parseThroughput();
if (args.has('--parse-only')) {
  refreshSection('Parse throughput', parseSection(parseRows));
  process.exit(0);
}

// ---- report ----------------------------------------------------------------------------------
// Each generated section replaces its namesake in docs/benchmarks.md; the sections measured by
// hand (side by side with peers, the database runner) stay as they are.
const header = `# Benchmarks\n\nProduced by \`npm run bench\` (scripts/bench.mjs) on ${new Date().toISOString().slice(0, 10)}, ` +
  `${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown CPU'}), ${(os.totalmem() / 2 ** 30).toFixed(0)} GB, Node ${process.version}.\n` +
  `Histories come from \`isoscope generate\` (seeded) and ../shared/corpus. Each level runs alone with a ${BUDGET_MS / 1000} s budget. ` +
  `Times are per level in milliseconds: native CLI / wasm (Node), then the wasm/native ratio. Memory: the native process's peak RSS ` +
  `and the wasm heap size. Sections that say they were measured by hand are not produced by this script, and it keeps them.\n\n`;
{
  const old = existsSync(outFile) ? readFileSync(outFile, 'utf8') : '';
  const first = old.indexOf('\n## ');
  writeFileSync(outFile, header + (first >= 0 ? old.slice(first + 1) : ''));
}
refreshSection('Parse throughput', parseSection(parseRows));
const GROUP_TITLES = { general: 'Generated histories (causally consistent, random beyond CC)', dbcop: 'The dbcop paper\'s shape',
  sessions: 'Strong levels vs sessions (serializable histories)', corpus: 'Corpus histories' };
for (const group of ['general', 'dbcop', 'sessions', 'corpus']) {
  const gr = rows.filter((r) => r.group === group);
  if (!gr.length) continue;
  const levels = [...new Set(gr.flatMap((r) => r.levels))];
  let md = `## ${GROUP_TITLES[group]}\n\n`;
  md += `| history | ops | parse ms | ${levels.join(' | ')} | native MB | wasm MB |\n|${'---|'.repeat(levels.length + 5)}\n`;
  for (const r of gr) {
    const cells = levels.map((l) => {
      const n = r.native[l], w = r.wasm.levels[l];
      if (!n) return '';
      const ratio = n.ms > 0.05 ? ` (${(w.ms / n.ms).toFixed(1)}x)` : '';
      return `${n.verdict} ${ms(n.ms)} / ${ms(w.ms)}${ratio}`;
    });
    md += `| ${r.name} | ${r.input.operations} | ${ms(r.nativeParse)} / ${ms(r.wasm.parse_ms)} | ${cells.join(' | ')} | ${mb(r.nativeMem)} | ${mb(r.wasm.mem)} |\n`;
  }
  refreshSection(GROUP_TITLES[group], md + '\n');
}

// Plots: time and memory vs operations for the general set (log-log), one line per level.
function plot(title, series, yLabel) {
  const W = 560, H = 300, L = 60, B = 40, T = 30, R = 110;
  const pts = series.flatMap((s) => s.points);
  if (!pts.length) return '';
  const lx = (v) => Math.log10(Math.max(v, 1e-3));
  const [x0, x1] = [Math.min(...pts.map((p) => lx(p[0]))), Math.max(...pts.map((p) => lx(p[0])))];
  const [y0, y1] = [Math.floor(Math.min(...pts.map((p) => lx(p[1])))), Math.ceil(Math.max(...pts.map((p) => lx(p[1]))))];
  const sx = (v) => L + ((lx(v) - x0) / Math.max(x1 - x0, 1e-9)) * (W - L - R);
  const sy = (v) => H - B - ((lx(v) - y0) / Math.max(y1 - y0, 1e-9)) * (H - B - T);
  const colors = ['#2563eb', '#dc2626', '#16a34a', '#9333ea', '#ea580c', '#0891b2', '#4b5563', '#ca8a04'];
  let svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="11">` +
    `<rect width="${W}" height="${H}" fill="white"/><text x="${W / 2}" y="18" text-anchor="middle" font-size="13">${title}</text>`;
  for (let e = y0; e <= y1; e++) svg += `<line x1="${L}" x2="${W - R}" y1="${sy(10 ** e)}" y2="${sy(10 ** e)}" stroke="#e5e7eb"/><text x="${L - 6}" y="${sy(10 ** e) + 4}" text-anchor="end">1e${e}</text>`;
  for (const p of [...new Set(pts.map((p) => p[0]))]) svg += `<text x="${sx(p)}" y="${H - B + 16}" text-anchor="middle">${fmt(p)}</text>`;
  svg += `<text x="${(L + W - R) / 2}" y="${H - 6}" text-anchor="middle">operations</text><text x="14" y="${H / 2}" transform="rotate(-90 14 ${H / 2})" text-anchor="middle">${yLabel}</text>`;
  series.forEach((s, i) => {
    const c = colors[i % colors.length];
    svg += `<polyline fill="none" stroke="${c}" stroke-width="2" ${s.dash ? 'stroke-dasharray="5 3"' : ''} points="${s.points.map((p) => `${sx(p[0])},${sy(p[1])}`).join(' ')}"/>`;
    svg += `<text x="${W - R + 8}" y="${T + 14 * i + 4}" fill="${c}">${s.name}</text>`;
  });
  return svg + '</svg>\n';
}
const general = rows.filter((r) => r.group === 'general' && r.sessions === 100);
if (general.length > 1) {
  const timeSeries = [];
  for (const l of WEAK) {
    timeSeries.push({ name: `${l} native`, points: general.map((r) => [r.input.operations, Math.max(r.native[l].ms, 0.01)]) });
    timeSeries.push({ name: `${l} wasm`, dash: true, points: general.map((r) => [r.input.operations, Math.max(r.wasm.levels[l].ms, 0.01)]) });
  }
  const memSeries = [
    { name: 'native RSS', points: general.map((r) => [r.input.operations, r.nativeMem / 1048576]) },
    { name: 'wasm heap', dash: true, points: general.map((r) => [r.input.operations, r.wasm.mem / 1048576]) },
  ];
  const dir = quick ? work : path.join(root, 'docs');
  writeFileSync(path.join(dir, 'bench-time.svg'), plot('Time per level vs size (100 sessions)', timeSeries, 'ms'));
  writeFileSync(path.join(dir, 'bench-memory.svg'), plot('Peak memory vs size (100 sessions)', memSeries, 'MB'));
  refreshSection('Plots', '## Plots\n\n![time](bench-time.svg)\n\n![memory](bench-memory.svg)\n\n' +
    'Micro-benchmarks of single components (Google Benchmark) run with `build/isoscope_bench`; see tests/bench/.\n\n');
}
refreshSection(STRONG_TITLE, await strongConcurrent());
