// The Jepsen readers against hostile records in the page (issue 35, classes 1 and 13): a history
// whose processes are strings is a located error (it used to pass LIN with no operation at all),
// and LIN's counterexample on a Jepsen log names the lines of its operations.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { setup, waitChecked } from './_helpers.mjs';

const STRINGS = [
  '[{"type": "invoke", "f": "write", "value": 1, "process": "0"},',
  ' {"type": "ok", "f": "write", "value": 1, "process": "0"},',
  ' {"type": "invoke", "f": "read", "value": null, "process": "1"},',
  ' {"type": "ok", "f": "read", "value": 2, "process": "1"}]',
].join('\n') + '\n';

// Process 3's read of 2 (lines 6 and 7) cannot follow process 0's write of 1 (lines 3 and 4).
const LOG = [
  'INFO  jepsen.core - Running test',
  '',
  'INFO  jepsen.util - 0\t:invoke\t:write\t1',
  'INFO  jepsen.util - 0\t:ok\t:write\t1',
  'INFO  jepsen.util - :nemesis\t:info\t:start\tnil',
  'INFO  jepsen.util - 3\t:invoke\t:read\tnil',
  'INFO  jepsen.util - 3\t:ok\t:read\t2',
].join('\n') + '\n';

let env;
before(async () => {
  env = await setup({ '/strings.json': ['application/json', STRINGS], '/stale.log': ['text/plain', LOG] });
});
after(async () => { await env?.close(); });

test('a Jepsen history whose processes are strings is a located error, not a pass', async () => {
  const page = await env.page();
  await page.goto(`${env.server.url}?src=/strings.json`);
  await page.waitForSelector('#load-error', { timeout: 60_000 });
  const text = await page.textContent('#load-error');
  assert.match(text, /strings\.json/);
  assert.match(text, /line 1/);
  assert.match(text, /expected :process to be a client's number \(an integer\) or "nemesis", found the string "0"/);
  assert.equal(await page.$('#ladder .level[data-level="LIN"][data-verdict="pass"]'), null);
  await page.close();
});

test('LIN\'s counterexample on a Jepsen log names the lines of its operations', async () => {
  const page = await env.page();
  await page.goto(`${env.server.url}?src=/stale.log`);
  await waitChecked(page);
  assert.equal(await page.$eval('#ladder .level[data-level="LIN"]', (e) => e.dataset.verdict), 'fail');
  await page.click('#ladder .level[data-level="LIN"]');
  await page.waitForSelector('#explanation');
  const text = await page.textContent('#explanation');
  assert.match(text, /process 3's read 2 \(T\d+, invoked on line 6, returned on line 7\)/);
  assert.match(text, /process 0's write 1 \(T\d+, invoked on line 3, returned on line 4\)/);
  assert.doesNotMatch(text, /record \d/);
  assert.deepEqual(page.errors, []);
  await page.close();
});
