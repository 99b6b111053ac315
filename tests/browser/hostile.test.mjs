// Hostile input in the page: a gzip bomb and a history too large for the browser's heap end in
// a located error while the tab stays responsive, and the next history loads as usual.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { assertBoundedPage, countMainThreadWasm, dropFiles, generateHistory, ladder, setup, waitChecked } from './_helpers.mjs';

// 40 members of 64 MiB of spaces: 2.5 GiB from 2.6 MB, past the page's limit of a quarter heap
const member = gzipSync(Buffer.alloc(64 << 20, 0x20), { level: 9 });
const bomb = Buffer.concat(Array.from({ length: 40 }, () => member));
const good = generateHistory(['--sessions', 4, '--txns', 20, '--seed', 2]);

let env;
before(async () => {
  env = await setup({ '/bomb.json.gz': ['application/gzip', bomb], '/good.json': ['application/json', good] });
});
after(async () => { await env?.close(); });

test('a gzip bomb: the page shows the error, inflates in a worker, and loads the next history', async () => {
  const page = await env.page();
  await countMainThreadWasm(page);
  await page.goto(`${env.server.url}?src=/bomb.json.gz`);
  // the worker inflates (the longest main-thread task meanwhile is a benchmark's figure)
  await page.waitForSelector('#load-error', { timeout: 300_000 });
  await assertBoundedPage(page);
  const text = await page.textContent('#load-error');
  assert.match(text, /bomb\.json\.gz/);
  assert.match(text, /limit|memory/);
  // the same page, without a reload, checks a good history next
  await dropFiles(page, [{ name: 'good.json', content: good }]);
  await waitChecked(page);
  assert.equal((await ladder(page)).RC, 'pass');
  assert.deepEqual(page.errors, []);
  await page.close();
});

// A file that is plainly something else says so first, with no format to choose.
test('a PNG dropped on the page: "this is a PNG image, not a history", then the details', async () => {
  const page = await env.landing();
  const png = Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), Buffer.alloc(200, 7)]);
  await dropFiles(page, [{ name: 'diagram.png', content: png }]);
  await page.waitForSelector('#load-error');
  assert.match(await page.textContent('#load-error pre'), /^this is a PNG image, not a history\. What each reader found: /);
  assert.equal(await page.$('#read-as'), null);
});
