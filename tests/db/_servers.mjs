// The throwaway servers of scripts/db.sh for a test file: started before its tests (their URLs
// in servers.pg and servers.maria), and stopped after them when this file started them (ones
// already running are left running).
import { before, after } from 'node:test';
import { spawnSync, execFileSync } from 'node:child_process';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const dbsh = join(root, 'scripts', 'db.sh');

export function useServers() {
  const servers = { pg: '', maria: '' };
  const startedHere = [];
  before(() => {
    const start = (kind) => {
      if (spawnSync('bash', [dbsh, kind, 'url'], { stdio: 'ignore' }).status !== 0) startedHere.push(kind);
      return execFileSync('bash', [dbsh, kind, 'start'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
    };
    servers.pg = start('postgres');
    servers.maria = start('mariadb');
  });
  after(() => {
    for (const kind of startedHere) spawnSync('bash', [dbsh, kind, 'stop'], { stdio: 'inherit' });
  });
  return servers;
}
