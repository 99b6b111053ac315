// `isoscope run` against Redis 7 (scripts/db.sh redis, with a password): transactions WATCH what
// they read and commit with MULTI/EXEC, so committed ones are serializable; the connection
// nemesis ends sessions with CLIENT KILL.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { cli, recorder, testDir, useServer, verdict } from './_servers.mjs';

const dir = testDir('redis');
const run = recorder(dir);

const redis = useServer('redis');
const durable = useServer('redis', ['--durable'], join(process.env.ISOSCOPE_DB_DIR || '/tmp/isoscope-db', 'redis-durable'));

const password = () => decodeURIComponent(new URL(redis.url).password);

function assertRedisRun(res) {
  assert.ok(res.result, res.stderr);
  const meta = res.history.recorded_by;
  assert.equal(meta.database, 'Redis');
  assert.match(meta.version, /^\d+\./);
  assert.equal(meta.tables_dropped, true);
  assert.ok(!JSON.stringify(res.history.recorded_by).includes(password()), 'the password is not recorded');
  return meta;
}

test('Redis: registers and list-append pass SER and SSER, --lwt passes LIN; the persistence in force is recorded', (t) => {
  const reg = run(redis.url, ['--sessions', '10', '--txns', '100', '--keys', '8', '--seed', '1']);
  const meta = assertRedisRun(reg);
  for (const level of ['RC', 'RR', 'SI', 'SER', 'SSER']) assert.equal(verdict(reg, level), 'pass', level);
  assert.ok(meta.aborted > 0, 'EXEC answering nil is recorded as an abort');
  // Without --durable: Redis's default persistence, RDB snapshots only.
  assert.equal(meta.server_variables.appendonly, 'no');
  assert.ok(meta.server_variables.save.length > 0);
  assert.equal(redis.info.settings.appendonly, 'no');
  t.diagnostic(`registers: ${meta.committed} committed, ${meta.aborted} aborted in ${meta.seconds.toFixed(2)} s`);

  const lists = run(redis.url, ['--list-append', '--sessions', '10', '--txns', '100', '--keys', '6']);
  assertRedisRun(lists);
  assert.equal(lists.result.input.lists, true);
  for (const level of ['SER', 'SSER']) assert.equal(verdict(lists, level), 'pass', level);

  const lwt = run(redis.url, ['--lwt', '--sessions', '5', '--txns', '100', '--keys', '3']);
  assertRedisRun(lwt);
  assert.equal(verdict(lwt, 'LIN'), 'pass');

  const d = run(durable.url, ['--txns', '20']);
  const dm = assertRedisRun(d);
  assert.equal(dm.server_variables.appendonly, 'yes');
  assert.equal(dm.server_variables.appendfsync, 'always');
  assert.equal(durable.info.settings.appendfsync, 'always');
});

test('Redis --nemesis kill: connections ended by CLIENT KILL, SER still passes', () => {
  const res = run(redis.url, ['--nemesis', 'kill', '--nemesis-interval', '20', '--sessions', '6', '--txns', '400', '--keys', '6']);
  const meta = assertRedisRun(res);
  assert.ok(meta.kills > 0, 'connections were killed');
  assert.equal(verdict(res, 'SER'), 'pass');
});

test('Redis: a killed run leaves its keys, which the next run names and --cleanup drops', async () => {
  const child = spawn(cli, ['run', redis.url, '--duration', '20', '--out', join(dir, 'killed.json')], { stdio: 'ignore' });
  await new Promise((r) => setTimeout(r, 700));
  child.kill('SIGKILL');
  await new Promise((r) => child.on('exit', r));
  const next = run(redis.url, ['--txns', '3']);
  assert.match(next.stderr, /holds 1 table of runs that did not finish/);
  const c = spawnSync(cli, ['run', redis.url, '--cleanup'], { encoding: 'utf8' });
  assert.equal(c.status, 0, c.stderr);
  assert.match(c.stdout, /dropped isoscope_run_[0-9a-f]{16}_registers/);
});

test('Redis: a wrong password and an unreachable server are clear errors that print no password', () => {
  const right = password();
  const wrong = run(redis.url.replace(`:${right}@`, ':not-the-password@'), ['--txns', '5']);
  assert.equal(wrong.status, 2);
  assert.match(wrong.stderr, /cannot log in as default: WRONGPASS/);
  for (const text of [wrong.stderr, wrong.stdout]) {
    assert.ok(!text.includes('not-the-password') && !text.includes(right), text);
  }
  // No password at all: the server asks for one, and the message says where to give it.
  const u = new URL(redis.url);
  const none = run(`redis://${u.host}`, ['--txns', '5'], { ...process.env, REDISCLI_AUTH: '' });
  assert.equal(none.status, 2);
  assert.match(none.stderr, /NOAUTH.*REDISCLI_AUTH/);
  const down = run('redis://:some-secret@127.0.0.1:1', ['--txns', '5']);
  assert.equal(down.status, 2);
  assert.match(down.stderr, /Redis at 127\.0\.0\.1:1: cannot connect/);
  assert.ok(!down.stderr.includes('some-secret'));
  const h = spawnSync(cli, ['hermitage', redis.url], { encoding: 'utf8' });
  assert.equal(h.status, 2);
  assert.ok(!h.stderr.includes(right));
});
