// The benchmark runner (`npm run bench`, scripts/bench.mjs) in its quick mode: it runs end to end
// against both builds and writes every section it owns, each with verdicts, into a report of its
// own (not docs/benchmarks.md), keeping a section it does not own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { repoRoot } from './load-module.mjs';

test('the benchmark runner\'s quick mode writes its sections and keeps the hand-measured ones', () => {
  const report = path.join(os.tmpdir(), 'isoscope-bench', 'benchmarks.md');
  mkdirSync(path.dirname(report), { recursive: true });
  writeFileSync(report, '# Benchmarks\n\nold header\n\n## Measured by hand\n\nkept\n');
  const r = spawnSync(process.execPath, [path.join(repoRoot, 'scripts/bench.mjs'), '--quick'], { encoding: 'utf8', timeout: 120_000 });
  assert.equal(r.status, 0, r.stderr);
  const md = readFileSync(report, 'utf8');
  for (const section of ['Parse throughput', 'Generated histories', 'The dbcop paper\'s shape', 'Plots', 'Strong levels on concurrent histories'])
    assert.match(md, new RegExp(`^## ${section}`, 'm'), section);
  assert.match(md, /## Measured by hand\n\nkept\n/);
  assert.doesNotMatch(md, /old header/);
  assert.match(md, /\| ser, 10 sessions x 50 txns \| \d+ \| pass [\d.]+ \/ [\d.]+ \|/);
  assert.match(md, /\| (pass|fail) [\d.]+ \/ [\d.]+/);
});
