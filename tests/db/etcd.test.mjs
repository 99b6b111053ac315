// `isoscope run` against etcd 3.4 (scripts/db.sh etcd): one member, and a cluster of three on
// loopback. Transactions are optimistic (reads at one revision, a Txn of mod_revision compares):
// committed ones are strictly serializable, compare-and-set is linearizable; serializable reads
// (--reads serializable) read a member's own, possibly stale, state.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli, recorder, testDir, useServer, verdict } from './_servers.mjs';

const dir = testDir('etcd');
const run = recorder(dir);

const single = useServer('etcd');
// The cluster in a data folder of its own (db.sh keeps one server of a kind per folder).
const cluster = useServer('etcd', ['--nodes', '3'], join(process.env.ISOSCOPE_DB_DIR || '/tmp/isoscope-db', 'etcd-cluster'));

// The run's keys and mark are gone (etcdctl lists what is left under the runner's prefixes).
function runnerKeys(url) {
  const out = execFileSync('etcdctl', ['--endpoints', url.replace('etcd://', ''), 'get', '--prefix', 'isoscope_run', '--keys-only'],
    { encoding: 'utf8', env: { ...process.env, ETCDCTL_API: '3' } });
  return out.split('\n').filter((l) => l.trim()).length;
}

function assertEtcdRun(res, members) {
  assert.ok(res.result, res.stderr);
  const meta = res.history.recorded_by;
  assert.equal(meta.database, 'etcd');
  assert.match(meta.version, /^3\./);
  assert.equal(meta.tables_dropped, true);
  // The servers are named: every member of the cluster, and the endpoints the run spread over.
  const names = meta.server_variables.members.split(', ').map((m) => m.split('=')[0]).sort();
  assert.deepEqual(names, members);
  assert.equal(meta.server_variables.endpoints.split(',').length, members.length);
  return meta;
}

test('etcd, one member: registers pass SSER, list-append passes SSER, --lwt passes LIN', (t) => {
  const reg = run(single.url, ['--sessions', '10', '--txns', '60', '--keys', '6', '--seed', '1']);
  const meta = assertEtcdRun(reg, ['n1']);
  assert.equal(meta.server_variables.reads, 'linearizable');
  for (const level of ['RC', 'RR', 'SI', 'SER', 'SSER']) assert.equal(verdict(reg, level), 'pass', level);
  assert.ok(meta.aborted > 0, 'failed compares are recorded as aborts');
  assert.equal(meta.committed + meta.aborted + meta.unknown + meta.aborted_before_any_operation, 600);
  t.diagnostic(`registers: ${meta.committed} committed, ${meta.aborted} aborted in ${meta.seconds.toFixed(1)} s`);

  const lists = run(single.url, ['--list-append', '--sessions', '5', '--txns', '40', '--keys', '4']);
  assertEtcdRun(lists, ['n1']);
  assert.equal(lists.result.input.lists, true);
  assert.equal(verdict(lists, 'SSER'), 'pass');

  const lwt = run(single.url, ['--lwt', '--sessions', '5', '--txns', '60', '--keys', '3']);
  assertEtcdRun(lwt, ['n1']);
  assert.equal(verdict(lwt, 'LIN'), 'pass');
  assert.equal(runnerKeys(single.url), 0, "the runner's keys are gone");
});

test('etcd, three members: registers pass SSER and --lwt LIN; the URL and the history name every member', (t) => {
  assert.equal(cluster.url.replace('etcd://', '').split(',').length, 3);
  assert.equal(cluster.info.kind, 'etcd');
  assert.equal(cluster.info.url, cluster.url);
  assert.deepEqual(cluster.info.nodes.map((x) => x.name), ['n1', 'n2', 'n3']);
  for (const node of cluster.info.nodes) {
    assert.ok(cluster.url.includes(node.address));
    assert.ok(existsSync(node.start) && existsSync(node.pid_file));
  }
  const reg = run(cluster.url, ['--sessions', '9', '--txns', '50', '--keys', '6', '--seed', '2']);
  assertEtcdRun(reg, ['n1', 'n2', 'n3']);
  for (const level of ['RC', 'SI', 'SER', 'SSER']) assert.equal(verdict(reg, level), 'pass', level);
  const lwt = run(cluster.url, ['--lwt', '--sessions', '6', '--txns', '50', '--keys', '3']);
  assertEtcdRun(lwt, ['n1', 'n2', 'n3']);
  assert.equal(verdict(lwt, 'LIN'), 'pass');
  // Serializable reads come from each member's own state: committed transactions still
  // serialize (their compares go through the leader), but a read may be stale, which SSER sees.
  const stale = run(cluster.url, ['--reads', 'serializable', '--sessions', '9', '--txns', '50', '--keys', '6']);
  assert.equal(assertEtcdRun(stale, ['n1', 'n2', 'n3']).server_variables.reads, 'serializable');
  assert.equal(verdict(stale, 'SER'), 'pass');
  t.diagnostic(`--reads serializable on three members: SSER ${verdict(stale, 'SSER')}`);
  assert.equal(runnerKeys(cluster.url), 0, "the runner's keys are gone");
});

test('etcd: clear errors for an unreachable member, --nemesis kill, --reads elsewhere, a password file and hermitage', () => {
  const down = run('etcd://127.0.0.1:1', ['--txns', '5']);
  assert.notEqual(down.status, 0);
  assert.match(down.stderr, /etcd at 127\.0\.0\.1:1/);
  assert.match(down.stderr, /scripts\/db\.sh etcd start/);
  const kill = run(single.url, ['--nemesis', 'kill']);
  assert.equal(kill.status, 2);
  assert.match(kill.stderr, /--nemesis kill .*etcd/);
  const reads = run('sqlite:' + join(dir, 'x.db'), ['--reads', 'serializable']);
  assert.equal(reads.status, 2);
  assert.match(reads.stderr, /--reads chooses how an etcd target reads/);
  // A password would go unused (the etcd client sends none): said, not ignored.
  writeFileSync(join(dir, 'pw'), 'secret\n');
  const pw = run(single.url, ['--password-file', join(dir, 'pw')]);
  assert.equal(pw.status, 2);
  assert.match(pw.stderr, /the etcd target sends no password/);
  const h = spawnSync(cli, ['hermitage', single.url], { encoding: 'utf8' });
  assert.equal(h.status, 2);
  assert.match(h.stderr, /etcd is a key-value store without SQL/);
});

// A runner key that is not there when read (a serializable read from a member that has not yet
// applied the run's setup, or a key removed, as here, by another client in the middle of the
// run) reads as the run's initial value: the run goes on to its end and the report judges it,
// instead of stopping with "the runner's key ... is missing".
test('etcd: a runner key removed during the run reads as the initial value; the run goes on', async () => {
  const out = join(dir, 'removed.json');
  const child = spawn(cli, ['run', single.url, '--duration', '3', '--keys', '4', '--level', 'SER', '--out', out, '--json'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '', stderr = '';
  child.stdout.on('data', (d) => { stdout += d; });
  child.stderr.on('data', (d) => { stderr += d; });
  await new Promise((r) => setTimeout(r, 1200));
  const endpoints = single.url.replace('etcd://', '');
  const keys = execFileSync('etcdctl', ['--endpoints', endpoints, 'get', '--prefix', 'isoscope_run', '--keys-only'],
    { encoding: 'utf8', env: { ...process.env, ETCDCTL_API: '3' } }).split('\n').filter((k) => /_registers\/\d+$/.test(k));
  assert.ok(keys.length > 0, 'the run made its keys');
  for (const k of keys) execFileSync('etcdctl', ['--endpoints', endpoints, 'del', k], { env: { ...process.env, ETCDCTL_API: '3' } });
  const code = await new Promise((r) => child.on('exit', r));
  assert.ok(code === 0 || code === 1, `the run ended with a verdict (exit ${code}): ${stderr}`);
  assert.doesNotMatch(stderr, /is missing/);
  const result = JSON.parse(stdout);
  assert.ok(['pass', 'fail'].includes(result.levels.SER.verdict));
  assert.equal(JSON.parse(readFileSync(out, 'utf8')).recorded_by.interrupted, false);
  assert.equal(runnerKeys(single.url), 0, "the runner's keys are gone");
});
