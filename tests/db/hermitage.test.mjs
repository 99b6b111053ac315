// `isoscope hermitage` against the servers scripts/db.sh starts (PostgreSQL 15, MariaDB 10.11)
// and SQLite: the table Hermitage publishes for each (github.com/ept/hermitage, README), every
// column, each cell decided by isoscope's verdict on the history its case recorded.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { root, useServers } from './_servers.mjs';

const cli = join(root, 'build', 'isoscope');
const dir = mkdtempSync(join(tmpdir(), 'isoscope-hermitage-test-'));
const servers = useServers();
after(() => rmSync(dir, { recursive: true, force: true }));

function hermitage(target, args = []) {
  const r = spawnSync(cli, ['hermitage', target, '--json', ...args], { encoding: 'utf8', maxBuffer: 1 << 26 });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

const columns = ['G0', 'G1a', 'G1b', 'G1c', 'OTV', 'PMP', 'P4', 'G-single', 'G2-item', 'G2'];
// A row as Hermitage writes it: ✓ prevented, — occurs, R/O prevented for read-only transactions.
const table = (result) => Object.fromEntries(result.rows.map((r) => [r.isolation, columns.map((c) => r.cells[c]).join(' ')]));

// Hermitage's rows.
const postgres = {
  'read-committed': '✓ ✓ ✓ ✓ ✓ — — — — —',
  'repeatable-read': '✓ ✓ ✓ ✓ ✓ ✓ ✓ ✓ — —',
  serializable: '✓ ✓ ✓ ✓ ✓ ✓ ✓ ✓ ✓ ✓',
};
const mysql = {
  'read-uncommitted': '✓ — — — — — — — — —',
  'read-committed': '✓ ✓ ✓ ✓ ✓ — — — — —',
  'repeatable-read': '✓ ✓ ✓ ✓ ✓ R/O — R/O — —',
  serializable: '✓ ✓ ✓ ✓ ✓ ✓ ✓ ✓ ✓ ✓',
};

test("PostgreSQL gives Hermitage's rows, the same on three runs", () => {
  for (let run = 0; run < 3; ++run) {
    const result = hermitage(servers.pg);
    assert.equal(result.database, 'PostgreSQL');
    assert.deepEqual(table(result), postgres, `run ${run + 1}`);
  }
});

test("MariaDB gives Hermitage's MySQL/InnoDB rows", () => {
  const result = hermitage(servers.maria);
  assert.equal(result.database, 'MariaDB');
  assert.deepEqual(table(result), mysql);
});

test('SQLite prevents every anomaly', () => {
  const result = hermitage(`sqlite:${join(dir, 'h.sqlite')}`);
  assert.deepEqual(table(result), { serializable: '✓ ✓ ✓ ✓ ✓ ✓ ✓ ✓ ✓ ✓' });
  assert.equal(result.rows[0].provides, 'SSER');
});

test('each cell comes with its history and isoscope verdict: an occurring anomaly with its counterexample', () => {
  const result = hermitage(servers.pg, ['--isolation', 'read-committed']);
  const [row] = result.rows;
  const lostUpdate = row.cases.find((c) => c.anomaly === 'P4');
  assert.equal(lostUpdate.result, 'occurs');
  // The verdict at the case's level, on the history the case recorded, names the user's T1 and T2.
  const level = lostUpdate.check.levels[lostUpdate.level];
  assert.equal(level.verdict, 'fail');
  assert.equal(level.anomalies[0].kind, 'LostUpdate');
  assert.match(level.anomalies[0].explanation, /id T1\).*id T2\)/);
  assert.deepEqual(lostUpdate.history.sessions.map((s) => s.map((t) => t.status)), [['committed'], ['committed']]);
  // G0 is prevented by blocking: T2's write of x waited for T1.
  const g0 = row.cases.find((c) => c.anomaly === 'G0');
  assert.equal(g0.result, 'prevented');
  assert.equal(g0.how, 'blocked');
  assert.deepEqual(g0.waits.map((w) => [w.step, w.session, w.waited_for]), [[4, 'T2', ['T1']]]);
  // The Markdown table, as Hermitage's README writes it.
  const md = spawnSync(cli, ['hermitage', servers.pg, '--isolation', 'read-committed', '--markdown'], { encoding: 'utf8' });
  assert.equal(md.status, 0, md.stderr);
  assert.match(md.stdout, /\| "read-committed" \| RC \| ✓ \| ✓ \| ✓ \| ✓ \| ✓ \| — \| — \| — \| — \| — \|/);
  // A phantom: T1's second select returns the row T2 inserted; its history is a table.
  const pmp = row.cases.find((c) => c.anomaly === 'PMP' && c.variant === 'read-only');
  assert.equal(pmp.result, 'occurs');
  assert.deepEqual(pmp.history.rows, [[1, 10], [2, 20]]);
  assert.deepEqual(pmp.history.sessions[0][0].ops, [['select', 'value = 30', []], ['select', 'value % 3 = 0', [[3, 30]]]]);
  const phantom = pmp.check.levels.RA.anomalies[0];
  assert.equal(phantom.kind, 'PMP');
  assert.match(phantom.explanation, /select\(value = 30\) saw no row at key 3.*select\(value % 3 = 0\) returned \(3, 30\)/);
  // Predicate write skew: both selects miss the other's insert.
  const g2 = row.cases.find((c) => c.anomaly === 'G2' && c.variant === '');
  assert.equal(g2.check.levels.SER.anomalies[0].kind, 'G2-predicate');
});

test('a bad target or option is a usage error that names it', () => {
  let r = spawnSync(cli, ['hermitage'], { encoding: 'utf8' });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /hermitage needs a TARGET/);
  r = spawnSync(cli, ['hermitage', servers.pg, '--isolation', 'snapshot'], { encoding: 'utf8' });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /--isolation needs read-uncommitted, read-committed, repeatable-read, serializable or all/);
  assert.doesNotMatch(r.stderr, new RegExp(new URL(servers.pg).password));
  r = spawnSync(cli, ['hermitage', 'postgresql://nobody@127.0.0.1:1/none'], { encoding: 'utf8' });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /isoscope hermitage: postgresql:\/\/nobody@127\.0\.0\.1:1\/none at read-committed: /);
});
