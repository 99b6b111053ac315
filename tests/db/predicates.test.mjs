// `isoscope run --predicates` against real servers (issue 38): random transactions over a table
// whose rows come and go (selects, reads by key, inserts, updates, deletes, UPDATE/DELETE ...
// WHERE), recorded as the client observed them. PostgreSQL 15 and MariaDB 10.11 from
// scripts/db.sh, SQLite in a file. What each run must show, and that the recorded history is
// what the checks were made on.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { assertPostgresSerializable, cli, recorder, testDir, useServers, verdict } from './_servers.mjs';

const dir = testDir('predicates');
const record = recorder(dir);
let pg, maria;

const servers = useServers();
before(() => ({ pg, maria } = servers));

// `isoscope run TARGET --predicates ARGS --json` (recorder in _servers.mjs).
const run = (target, args) => record(target, ['--predicates', ...args]);
const kinds = (res, level) => (res.result.levels[level]?.kinds ?? []).map((k) => k.kind);
const anomalies = (res, level) => res.result.levels[level]?.anomalies ?? [];
const weaker = ['RC', 'RR', 'RA', 'CC', 'PC', 'SI', 'SER'];

// A recorded table: its rows at the start, table operations only, and `isoscope check` on the
// file gives the run's verdicts; the runner's table is gone.
function assertRecorded(res) {
  const h = res.history;
  assert.ok(res.result, res.stderr);
  assert.ok(h, 'the history was written');
  assert.ok(Array.isArray(h.rows) && h.rows.length > 0, 'the table at the start');
  assert.equal(h.recorded_by.workload, 'predicates');
  assert.match(h.recorded_by.tables, /^isoscope_run_[0-9a-f]{16}_rows$/);
  assert.equal(h.recorded_by.tables_dropped, true);
  const seen = new Set();
  for (const session of h.sessions) {
    for (let i = 0; i < session.length; i++) {
      const t = session[i];
      assert.ok(Number.isInteger(t.start) && Number.isInteger(t.end) && t.start <= t.end);
      if (i > 0) assert.ok(session[i - 1].end <= t.start, 'session order follows time');
      for (const op of t.ops) {
        seen.add(op[0]);
        assert.ok(['select', 'r', 'insert', 'update', 'delete'].includes(op[0]), JSON.stringify(op));
        if (op[0] === 'select') for (let j = 1; j < op[2].length; j++) assert.ok(op[2][j - 1][0] < op[2][j][0], 'rows by key, each once');
      }
    }
  }
  for (const op of ['select', 'r', 'insert', 'update', 'delete']) assert.ok(seen.has(op), `the history has ${op}s`);
  const levels = Object.keys(res.result.levels).join(',');
  const check = spawnSync(cli, ['check', '--json', '--level', levels, '--budget-ms', '20000', res.out], { encoding: 'utf8', maxBuffer: 1 << 28 });
  const again = JSON.parse(check.stdout);
  for (const [level, r] of Object.entries(res.result.levels)) assert.equal(again.levels[level].verdict, r.verdict, level);
}

// Whether a counterexample goes through a predicate read: a select's read of a row it returned,
// or of one it did not (then its kind is G2-predicate, PMP or G-single-predicate).
const throughSelect = (a) => a.edges.some((e) => /select\(/.test(e.why ?? '')) || a.ops.some((o) => /^select\(/.test(o.text));

// PostgreSQL's unique check sees the latest committed rows, not the inserting transaction's
// snapshot: at REPEATABLE READ, an INSERT of a key whose row a concurrent transaction deleted
// (and committed) after the inserter took its snapshot succeeds, with no serialization failure.
// Two concurrent transactions have then both written the key, which snapshot isolation forbids
// (docs/testing-a-database.md). Whether the history holds such a pair: a committed insert and a
// committed delete of one key by transactions that overlap in time.
function insertAfterConcurrentDelete(history) {
  const txns = history.sessions.flat().filter((t) => t.status === 'committed');
  for (const t of txns) {
    for (const [kind, key] of t.ops) {
      if (kind !== 'insert') continue;
      if (txns.some((d) => d !== t && d.start < t.end && t.start < d.end && d.ops.some(([k, x]) => k === 'delete' && x === key))) return true;
    }
  }
  return false;
}

test('PostgreSQL REPEATABLE READ: random tables show predicate write skew (SER fails); SERIALIZABLE keeps SI and SER on the same seeds', (t) => {
  const shape = ['--sessions', '4', '--txns', '25', '--keys', '6'];
  const found = [];
  for (let seed = 1; seed <= 5; seed++) {
    const rr = run(pg, ['--isolation', 'repeatable-read', ...shape, '--seed', String(seed)]);
    assertRecorded(rr);
    const meta = rr.history.recorded_by;
    assert.equal(meta.database, 'PostgreSQL');
    assert.deepEqual(meta.predicate_writes, { update: 'returning', delete: 'returning' });
    for (const level of ['RC', 'RR', 'RA', 'CC', 'PC']) assert.equal(verdict(rr, level), 'pass', `seed ${seed}: ${level}`);
    // Snapshot isolation, but for PostgreSQL's insert after a concurrent delete (above).
    if (verdict(rr, 'SI') !== 'pass') {
      assert.equal(verdict(rr, 'SI'), 'fail', `seed ${seed}`);
      assert.ok(kinds(rr, 'SI').every((k) => k === 'WriteConflict' || k === 'LostUpdate'), `seed ${seed}: SI names ${kinds(rr, 'SI')}`);
      assert.ok(insertAfterConcurrentDelete(rr.history), `seed ${seed}: SI fails without an insert after a concurrent delete`);
    }
    // Write skew needs sessions that overlap just so: most runs show it, a run may not (once in
    // a fresh npm test, seed 2 passed SER).
    assert.ok(['pass', 'fail'].includes(verdict(rr, 'SER')), `seed ${seed}: SER ${verdict(rr, 'SER')}`);
    if (verdict(rr, 'SER') === 'fail') {
      const ser = anomalies(rr, 'SER')[0];
      found.push({ seed, si: verdict(rr, 'SI'), kinds: kinds(rr, 'SER'), throughSelect: throughSelect(ser), transactions: ser.transactions.length });
    }
    // The same programs at SERIALIZABLE: PostgreSQL's serialization failures keep it serializable.
    const s = run(pg, ['--isolation', 'serializable', ...shape, '--seed', String(seed)]);
    assertRecorded(s);
    assertPostgresSerializable(t, s, weaker);
    assert.ok(s.history.recorded_by.aborted > 0, 'serialization failures are recorded as aborts');
  }
  t.diagnostic(JSON.stringify(found));
  assert.ok(found.length >= 3, `SER fails at REPEATABLE READ in most of the five runs (${found.length})`);
  // The counterexample is the smallest cycle the known orderings close: on a hundred
  // transactions more often a write skew through the rows a select returned (WriteSkew, G2)
  // than through one it missed (G2-predicate), which about a third of these runs name.
  assert.ok(found.some((f) => f.throughSelect), 'a counterexample goes through a select');
  assert.equal(execFileSync('psql', psqlArgs("SELECT count(*) FROM pg_tables WHERE tablename LIKE 'isoscope_run_%_rows'"), psqlEnv()).trim(), '0');
});

function psqlArgs(sql) {
  const u = new URL(pg);
  return ['-h', u.hostname, '-p', u.port, '-U', u.username, '-d', u.pathname.slice(1), '-qAtc', sql];
}
function psqlEnv() {
  return { encoding: 'utf8', env: { ...process.env, PGPASSWORD: decodeURIComponent(new URL(pg).password) } };
}

test('MariaDB: SERIALIZABLE passes SER; REPEATABLE READ runs and reads back', (t) => {
  const s = run(maria, ['--isolation', 'serializable', '--sessions', '6', '--txns', '20', '--keys', '6', '--seed', '1']);
  assertRecorded(s);
  assert.equal(s.history.recorded_by.database, 'MariaDB');
  // DELETE ... RETURNING; no UPDATE ... RETURNING: the rows an update matches are read FOR UPDATE.
  assert.deepEqual(s.history.recorded_by.predicate_writes, { update: 'locking read', delete: 'returning' });
  for (const level of weaker) assert.equal(verdict(s, level), 'pass', `SERIALIZABLE ${level}`);
  // InnoDB's REPEATABLE READ: its writes read the latest rows, not the snapshot (RR and SI
  // fail); RC is left out (on such a table it is decided by a search this test does not wait for).
  const rr = run(maria, ['--isolation', 'repeatable-read', '--sessions', '4', '--txns', '15', '--keys', '6', '--seed', '1', '--level', 'RR,SI,SER']);
  assertRecorded(rr);
  for (const level of ['RR', 'SI', 'SER']) assert.ok(['pass', 'fail'].includes(verdict(rr, level)), `${level}: ${verdict(rr, level)}`);
  t.diagnostic(`REPEATABLE READ: RR ${verdict(rr, 'RR')} ${kinds(rr, 'RR')}, SI ${verdict(rr, 'SI')} ${kinds(rr, 'SI')}`);
});

test('SQLite: a table run passes SER and reads back', () => {
  const s = run('', ['--sessions', '4', '--txns', '30', '--keys', '8', '--seed', '2']);
  assertRecorded(s);
  assert.equal(s.history.recorded_by.database, 'SQLite');
  for (const level of [...weaker, 'SSER']) assert.equal(verdict(s, level), 'pass', level);
});

test('a table run killed (SIGKILL) leaves a history in which no select saw what the file lacks', async () => {
  // A select that missed a row may have seen its delete: the file holds it only once every
  // transaction it may have seen is in (HistoryStream; the rule's cases are
  // tests/native/runner/table_workload_test.cpp). Cut off at any point, the history of a
  // serializable database passes SER.
  const out = join(dir, 'killed-predicates.json');
  const child = spawn(cli, ['run', pg, '--predicates', '--isolation', 'serializable', '--sessions', '10', '--txns', '100000', '--keys', '8', '--out', out], { stdio: 'ignore' });
  const exited = new Promise((r) => child.on('exit', r));
  try {
    for (let i = 0; i < 400; i++) {
      await new Promise((r) => setTimeout(r, 25));
      let live;
      try { live = JSON.parse(readFileSync(out, 'utf8')); } catch { continue; }
      if (live.sessions.reduce((k, s) => k + s.length, 0) >= 300) break;
    }
  } finally {
    child.kill('SIGKILL');
    await exited;
    spawnSync(cli, ['run', pg, '--cleanup'], { stdio: 'ignore' });
  }
  const h = JSON.parse(readFileSync(out, 'utf8'));
  assert.equal(h.recorded_by.streaming, true, 'cut off');
  const recorded = h.sessions.reduce((k, s) => k + s.length, 0);
  assert.ok(recorded >= 100, `${recorded} transactions recorded`);
  const check = spawnSync(cli, ['check', '--json', '--budget-ms', '20000', out], { encoding: 'utf8', maxBuffer: 1 << 28 });
  const r = JSON.parse(check.stdout);
  for (const level of weaker) assert.equal(r.levels[level].verdict, 'pass', level);
});
