// Navigation in the URL: an example opened from the gallery is in the address (a reload keeps
// it), Back returns to the landing page and Forward to the results, and a dropped file's
// results are an entry of their own.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { dropFiles, ladder, setup, waitChecked } from './_helpers.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

test('Back, Forward and reload move between the landing page and the results', async () => {
  const page = await env.page();
  await page.goto(`${env.server.url}?levels=RC,SI,SER`);
  await page.waitForSelector('.example[data-example="write-skew.json"]');
  await page.click('.example[data-example="write-skew.json"]');
  await waitChecked(page);
  const url = new URL(page.url());
  assert.equal(url.searchParams.get('example'), 'write-skew.json');
  assert.equal(url.searchParams.get('levels'), 'RC,SI,SER'); // the other parameters stay
  await page.reload();
  await waitChecked(page);
  assert.equal((await ladder(page)).SER, 'fail', 'the reload kept the example');
  await page.goBack();
  await page.waitForSelector('#dropzone');
  assert.equal(new URL(page.url()).searchParams.get('example'), null);
  await page.goForward();
  await waitChecked(page);
  assert.equal((await ladder(page)).SER, 'fail');
  // a dropped history: its own entry; Back leaves it for the example
  await dropFiles(page, [{ name: 'mine.json', content: '{"initial": 0, "sessions": [[ [["w","x",1]] ], [ [["r","x",1]] ]]}' }]);
  await page.waitForFunction(() => document.querySelector('.inputbar .file strong')?.textContent === 'mine.json');
  await waitChecked(page);
  assert.equal((await ladder(page)).SER, 'pass');
  await page.goBack();
  await page.waitForFunction(() => document.querySelector('.inputbar .file strong')?.textContent === 'write-skew.json');
  await page.goForward();
  await page.waitForFunction(() => document.querySelector('.inputbar .file strong')?.textContent === 'mine.json');
  // the Open button is a step back to the landing page
  await page.click('#open-another');
  await page.waitForSelector('#dropzone');
  await page.goBack();
  await page.waitForFunction(() => document.querySelector('.inputbar .file strong')?.textContent === 'mine.json');
  assert.deepEqual(page.errors, []);
  await page.close();
});
