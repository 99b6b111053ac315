// A folder holding a history beside .DS_Store and __MACOSX (issue 22, class 13): the app skips
// them as the command line and zips do, whether the folder is chosen or its files dropped.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { dropFiles, generateHistory, ladder, setup, waitChecked } from './_helpers.mjs';

const good = generateHistory(['--sessions', 3, '--txns', 10, '--seed', 6]);
let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

test('a chosen folder with .DS_Store and __MACOSX reads as its one history', async () => {
  const dir = path.join(mkdtempSync(path.join(tmpdir(), 'isoscope-hidden-')), 'run');
  mkdirSync(path.join(dir, '__MACOSX'), { recursive: true });
  writeFileSync(path.join(dir, 'h.json'), good);
  writeFileSync(path.join(dir, '.DS_Store'), Buffer.from([0, 0, 0, 1, 0x42, 0x75, 0x64, 0x31]));
  writeFileSync(path.join(dir, '__MACOSX', '._h.json'), 'junk');
  const page = await env.page();
  await page.goto(env.server.url);
  await page.setInputFiles('#dir-input', dir);
  await waitChecked(page);
  assert.equal((await ladder(page)).RC, 'pass');
  await dropFiles(page, [{ name: 'h.json', content: good }, { name: '.DS_Store', content: 'junk' }]);
  await waitChecked(page);
  assert.equal((await ladder(page)).RC, 'pass');
  assert.deepEqual(page.errors, []);
  await page.close();
});
