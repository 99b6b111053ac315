// Canonical-JSON parse throughput of the wasm module under Node (MB/s), on the same shape of
// history as the native BM_ParseCanonicalJson: 1M operations, 100 sessions, 10 ops per txn.
// Usage: node tests/bench/wasm-parse-bench.mjs [operations]
import { loadIsoscope } from '../wasm/load-module.mjs';

function makeHistoryJson(ops, sessions) {
  const parts = ['{"format": "isoscope/1", "initial": 0, "sessions": ['];
  let x = 88172645463325252n, nextValue = 1;
  const mask = (1n << 64n) - 1n;
  const perSession = Math.floor(ops / sessions);
  for (let s = 0; s < sessions; s++) {
    const txns = [];
    for (let i = 0; i < perSession; i += 10) {
      const o = [];
      for (let j = 0; j < 10; j++) {
        x ^= (x << 13n) & mask; x ^= x >> 7n; x ^= (x << 17n) & mask;
        const write = (x & 3n) === 0n;
        const key = Number((x >> 8n) % 10000n);
        const value = write ? nextValue++ : Number((x >> 20n) % BigInt(nextValue + 1));
        o.push(`[${write ? '"w"' : '"r"'}, ${key}, ${value}]`);
      }
      txns.push(`[${o.join(', ')}]`);
    }
    parts.push(`${s ? ',\n' : '\n'}[${txns.join(', ')}]`);
  }
  parts.push(']}');
  return parts.join('');
}

const ops = Number(process.argv[2] ?? 1_000_000);
const mod = await loadIsoscope();
const bytes = new TextEncoder().encode(makeHistoryJson(ops, 100));
const times = [];
for (let rep = 0; rep < 7; rep++) {
  const t0 = performance.now();
  const r = JSON.parse(mod.load(['bench.json'], [bytes], 'isoscope'));
  const t1 = performance.now();
  if (!r.ok) throw new Error(r.error.text);
  times.push(t1 - t0);
}
times.sort((a, b) => a - b);
const median = times[Math.floor(times.length / 2)];
console.log(JSON.stringify({ bench: 'wasm-parse-canonical-json', operations: ops, mb: bytes.length / 1e6,
  median_ms: +median.toFixed(1), mb_per_s: +(bytes.length / 1e3 / median).toFixed(1) }));
