// Process faults (issue 39): `isoscope run --nemesis pause,crash` on servers scripts/db.sh started
// in a folder of their own (ISOSCOPE_DB_DIR), each durability set explicitly (scripts/db.sh
// start [--durable]; the settings in force are recorded with the history). What was measured on
// PostgreSQL 15 and MariaDB 10.11 is in docs/testing-a-database.md, "Faults":
//   - PostgreSQL with synchronous_commit = off loses commits it acknowledged when its processes
//     are killed: the report names the lost write (LostWrite, first among SSER's anomalies);
//   - PostgreSQL with synchronous_commit = on loses nothing, and its SERIALIZABLE holds through
//     crashes as it does without them (SI; SER and SSER but for a rare cycle of anti-dependencies
//     its SSI lets through under load, crash or not); MariaDB with
//     innodb_flush_log_at_trx_commit = 1 loses nothing: SSER holds through every crash;
//   - a pause loses nothing either;
//   - Redis with its default persistence (RDB snapshots) loses what it acknowledged since its
//     last snapshot: named as lost writes; with appendonly yes and appendfsync always, nothing;
//   - etcd, three members, paused and crashed one at a time: SSER and LIN hold.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync, execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assertPostgresSerializable, cli, keepHistory, recorder, root, testDir, verdict } from './_servers.mjs';

const dbsh = join(root, 'scripts', 'db.sh');
const dir = testDir('faults');
const record = recorder(dir);
// Servers of their own: the crashes never touch the other tests' servers. (Beside the test's
// folder, not in it: the servers' user must reach it, and mkdtemp's folder is the test's alone.)
const serverDir = join(tmpdir(), `isoscope-db-faults-${process.pid}`);
const env = { ...process.env, ISOSCOPE_DB_DIR: serverDir };

function start(kind, durable, extra = []) {
  return execFileSync('bash', [dbsh, kind, 'start', ...(durable ? ['--durable'] : []), ...extra],
    { encoding: 'utf8', env, stdio: ['ignore', 'pipe', 'inherit'] }).trim();
}
after(() => {
  for (const kind of ['postgres', 'mariadb', 'redis', 'etcd']) spawnSync('bash', [dbsh, kind, 'stop'], { env, stdio: 'inherit' });
  rmSync(serverDir, { recursive: true, force: true });
});

// Runs at --rate 200 (Jepsen's rate) by default: the faults come every interval whatever the
// load, and a light load keeps the histories small and the machine free for the suites beside
// this one (at full speed these runs took 1.5 times the CPU). The tests that need a commit in
// flight when a server dies (an unknown outcome) run at full speed (rate 0): at 200 a second a
// crash can fall between commits.
const run = (target, args, { rate = 200 } = {}) => record(target, [...(rate > 0 ? ['--rate', String(rate)] : []), ...args], env);
const kinds = (res, level) => (res.result.levels[level]?.anomalies ?? []).map((a) => a.kind);

// `isoscope check` on the recorded file gives the run's verdicts.
function assertCheckAgrees(res, levels) {
  const r = spawnSync(cli, ['check', res.out, '--json', '--level', levels.join(',')], { encoding: 'utf8', maxBuffer: 1 << 28 });
  const again = JSON.parse(r.stdout);
  for (const l of levels) assert.equal(again.levels[l].verdict, verdict(res, l), `${l} from the file`);
}

// The level holds; when it does not, the history is kept in build-logs/ (the test's folder is
// removed at the end) and the message names it with the first anomaly.
function assertHolds(res, level) {
  if (verdict(res, level) === 'pass') return;
  const kept = keepHistory(res, 'faults');
  assert.fail(`${level} ${verdict(res, level)} (history kept in ${kept}): ${JSON.stringify(res.result.levels[level]?.anomalies?.[0])}`);
}

function assertFaults(res, kind, settings) {
  const h = res.history;
  assert.ok(Array.isArray(h.faults) && h.faults.length > 0, `faults in the history: ${res.stderr}`);
  for (const f of h.faults) {
    assert.equal(f.kind, kind);
    assert.ok(f.start <= f.end, JSON.stringify(f));
    assert.equal(f.note, undefined, `the fault went as planned: ${f.note}`);
  }
  assert.equal(h.recorded_by.faults, h.faults.length);
  for (const [k, v] of Object.entries(settings)) assert.equal(h.recorded_by.servers.settings[k], v, k);
}

test('PostgreSQL, synchronous_commit = off: a crash loses acknowledged commits, named as lost writes', () => {
  const pg = start('postgres', false);
  let lost = null;
  for (const seed of [1, 2, 3, 4]) {
    const res = run(pg, ['--nemesis', 'crash', '--nemesis-interval', '1500', '--duration', '6', '--txns', '1000000',
      '--seed', String(seed), '--level', 'SER,SSER']);
    assert.ok(res.result, res.stderr);
    assertFaults(res, 'crash', { synchronous_commit: 'off' });
    if (kinds(res, 'SSER').includes('LostWrite')) {
      lost = res;
      break;
    }
  }
  assert.ok(lost, 'a lost write within four seeds');
  assert.equal(verdict(lost, 'SSER'), 'fail');
  assert.equal(kinds(lost, 'SSER')[0], 'LostWrite');
  const a = lost.result.levels.SSER.anomalies[0];
  assert.ok(a.transactions.length <= 3, 'the write, the read, and the version it read');
  assert.match(a.explanation, /acknowledged at \d+; then came the crash of postgres at \d+/);
  assertCheckAgrees(lost, ['SER', 'SSER']);
});

// Nothing acknowledged is lost (no LostWrite, no stale read), and SERIALIZABLE holds through the
// crashes as it does without them: SI always, SER and SSER but for the rare cycle of
// anti-dependencies PostgreSQL's SSI lets through under load, crash or not (_servers.mjs,
// assertPostgresSerializable; docs/testing-a-database.md, "PostgreSQL's SERIALIZABLE").
test('PostgreSQL, synchronous_commit = on: no acknowledged commit is lost through crashes, and SERIALIZABLE holds as without them', (t) => {
  const pg = start('postgres', true);
  const res = run(pg, ['--nemesis', 'crash', '--nemesis-interval', '1500', '--duration', '6', '--txns', '1000000', '--level', 'SI,SER,SSER'], { rate: 0 });
  assert.ok(res.result, res.stderr);
  assertFaults(res, 'crash', { synchronous_commit: 'on', fsync: 'on' });
  assertPostgresSerializable(t, res, ['SI', 'SER', 'SSER']);
  assert.ok(res.history.recorded_by.unknown > 0, 'commits cut off by a crash are unknown (:info)');
  assertCheckAgrees(res, ['SI', 'SER', 'SSER']);
});

test('PostgreSQL: a pause loses nothing', (t) => {
  const pg = start('postgres', true);
  const res = run(pg, ['--nemesis', 'pause', '--nemesis-interval', '1000', '--duration', '4', '--txns', '1000000', '--level', 'SI,SSER']);
  assert.ok(res.result, res.stderr);
  assertFaults(res, 'pause', { synchronous_commit: 'on' });
  assertPostgresSerializable(t, res, ['SI', 'SSER']);
});

test('MariaDB, innodb_flush_log_at_trx_commit = 1: SSER holds through every crash', () => {
  const maria = start('mariadb', true);
  const res = run(maria, ['--nemesis', 'crash', '--nemesis-interval', '2500', '--duration', '8', '--txns', '1000000', '--level', 'SER,SSER']);
  assert.ok(res.result, res.stderr);
  assertFaults(res, 'crash', { innodb_flush_log_at_trx_commit: '1' });
  assertHolds(res, 'SSER');
  assertCheckAgrees(res, ['SER', 'SSER']);
});

test('Redis, default persistence: a crash loses what it acknowledged since its last snapshot, named as lost writes', () => {
  const redis = start('redis', false);
  let lost = null;
  for (const seed of [1, 2, 3]) {
    const res = run(redis, ['--nemesis', 'crash', '--nemesis-interval', '1500', '--duration', '4', '--txns', '1000000',
      '--seed', String(seed), '--level', 'SER,SSER']);
    assert.ok(res.result, res.stderr);
    assertFaults(res, 'crash', { appendonly: 'no' });
    if (kinds(res, 'SSER')[0] === 'LostWrite') {
      lost = res;
      break;
    }
  }
  assert.ok(lost, 'a lost write within three seeds');
  const a = lost.result.levels.SSER.anomalies[0];
  assert.ok(a.transactions.length <= 3);
  assert.match(a.explanation, /then came the crash of n1 at \d+/);
  assertCheckAgrees(lost, ['SER', 'SSER']);
});

test('Redis, appendonly yes and appendfsync always: SSER holds through every crash', () => {
  const redis = start('redis', true);
  const res = run(redis, ['--nemesis', 'crash', '--nemesis-interval', '1500', '--duration', '4', '--txns', '1000000', '--level', 'SER,SSER']);
  assert.ok(res.result, res.stderr);
  assertFaults(res, 'crash', { appendonly: 'yes', appendfsync: 'always' });
  assertHolds(res, 'SSER');
});

test('etcd, three members paused and crashed one at a time: SSER and LIN hold', () => {
  const etcd = start('etcd', false, ['--nodes', '3']);
  assert.equal(etcd.split(',').length, 3);
  // Crashes only, then both: every member's faults, on its own node.
  const res = run(etcd, ['--nemesis', 'crash', '--nemesis-interval', '1500', '--duration', '6', '--txns', '1000000', '--level', 'SER,SSER'], { rate: 0 });
  assert.ok(res.result, res.stderr);
  assertFaults(res, 'crash', {});
  for (const f of res.history.faults) assert.match(f.node, /^n[123]$/);
  assertHolds(res, 'SSER');
  // A commit in flight to the member that died has no answer: unknown (Jepsen's :info).
  assert.ok(res.history.recorded_by.unknown > 0, 'unknown transactions');
  const lwt = run(etcd, ['--lwt', '--nemesis', 'pause', '--nemesis-interval', '1000', '--duration', '4', '--txns', '1000000', '--level', 'LIN']);
  assert.ok(lwt.result, lwt.stderr);
  assertFaults(lwt, 'pause', {});
  assert.equal(verdict(lwt, 'LIN'), 'pass');
  assertCheckAgrees(lwt, ['LIN']);
});

test('etcd, one member, paused and crashed: SSER and LIN hold, with unknown transactions', () => {
  const etcd = start('etcd', false);
  const res = run(etcd, ['--nemesis', 'pause,crash', '--nemesis-interval', '1200', '--duration', '6', '--txns', '1000000', '--seed', '2', '--level', 'SER,SSER']);
  assert.ok(res.result, res.stderr);
  assert.ok(res.history.faults.length > 0);
  assertHolds(res, 'SSER');
  const lwt = run(etcd, ['--lwt', '--nemesis', 'crash', '--nemesis-interval', '1200', '--duration', '5', '--txns', '1000000', '--level', 'LIN'], { rate: 0 });
  assert.ok(lwt.result, lwt.stderr);
  assertFaults(lwt, 'crash', {});
  assert.equal(verdict(lwt, 'LIN'), 'pass');
  assert.ok(res.history.recorded_by.unknown + lwt.history.recorded_by.unknown > 0, 'unknown transactions');
});

test('etcd, three members, serializable reads while members are paused: serializable, and stale reads named when they appear', (t) => {
  const etcd = start('etcd', false, ['--nodes', '3']);
  const res = run(etcd, ['--reads', 'serializable', '--nemesis', 'pause', '--nemesis-interval', '1200', '--duration', '6',
    '--txns', '1000000', '--level', 'SER,SSER']);
  assert.ok(res.result, res.stderr);
  assertFaults(res, 'pause', {});
  // A member's own state may be behind the leader's: SER holds (reads at one revision, commits
  // compared), SSER may not. What fails is named by its real-time edge.
  assert.equal(verdict(res, 'SER'), 'pass');
  if (verdict(res, 'SSER') === 'fail') assert.ok(['StaleRead', 'RealTimeViolation'].includes(kinds(res, 'SSER')[0]), kinds(res, 'SSER')[0]);
  t.diagnostic(`serializable reads with pauses: SSER ${verdict(res, 'SSER')}`);
  // Compare-and-set with serializable reads: a stale read fails LIN, named by its key and read.
  const lwt = run(etcd, ['--lwt', '--reads', 'serializable', '--nemesis', 'pause', '--nemesis-interval', '1200', '--duration', '5',
    '--txns', '1000000', '--level', 'LIN']);
  assert.ok(lwt.result, lwt.stderr);
  if (verdict(lwt, "LIN") === "fail") assert.match(lwt.result.levels.LIN.anomalies[0].explanation, /\br\(\d+, \d+\)/, "names the read and its key");
  t.diagnostic(`serializable reads with pauses, compare-and-set: LIN ${verdict(lwt, 'LIN')}`);
});

test('pause and crash need a server scripts/db.sh started: a clear error otherwise', () => {
  const pg = start('postgres', true);
  const r = spawnSync(cli, ['run', pg, '--nemesis', 'crash', '--servers', join(dir, 'nothing.json'), '--txns', '1'], { encoding: 'utf8', env });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /nothing\.json: cannot read it/);
  assert.doesNotMatch(r.stderr, new RegExp(new URL(pg).password), 'no password printed');
  const sqlite = spawnSync(cli, ['run', '--nemesis', 'pause', '--txns', '1'], { encoding: 'utf8', env });
  assert.equal(sqlite.status, 2);
  assert.match(sqlite.stderr, /need a database server/);
});
