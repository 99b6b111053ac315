import { describe, expect, it } from 'vitest';
import { shareLink, TX_LIMIT_FULL_SHARE, type ShareRequest } from './link';
import { decodeFragment } from './share';

const request = (over: Partial<ShareRequest>): ShareRequest => ({
  base: 'https://x.test/app/',
  transactions: 3,
  view: { level: 'SER', anomaly: 2, tab: 'anomaly' },
  hasAnomaly: true,
  wholeHistory: async () => '{"sessions": [[[["w","x",1]]]]}',
  counterexample: async () => ({ history: '{"sessions": []}', transactions: 2, reproduces: true, minimal: true }),
  ...over,
});

describe('share links', () => {
  it('carry the whole history and the view when it fits', async () => {
    const made = await shareLink(request({}));
    if (!('link' in made)) throw new Error(made.refused);
    const back = decodeFragment(new URL(made.link).hash)!;
    expect(back.history).toBe('{"sessions": [[[["w","x",1]]]]}');
    expect(back.view).toEqual({ level: 'SER', anomaly: 2, tab: 'anomaly' });
    expect(back.counterexample).toBeFalsy();
  });
  it('carry the counterexample of the selected anomaly when the history is too large', async () => {
    let asked = false;
    const made = await shareLink(request({ transactions: TX_LIMIT_FULL_SHARE + 1, wholeHistory: async () => { asked = true; return ''; } }));
    if (!('link' in made)) throw new Error(made.refused);
    expect(asked).toBe(false);
    const back = decodeFragment(new URL(made.link).hash)!;
    expect(back.counterexample).toBe(true);
    expect(back.view).toEqual({ level: 'SER', anomaly: 0, tab: 'anomaly' });
    expect(made.note).toMatch(/minimal counterexample \(2 transactions\) that fails SER again/);
  });
  it('are refused rather than claim what does not reproduce', async () => {
    const big = { transactions: TX_LIMIT_FULL_SHARE + 1 };
    expect(await shareLink(request({ ...big, hasAnomaly: false }))).toHaveProperty('refused');
    const made = await shareLink(request({ ...big, counterexample: async () => ({ history: '', transactions: 9, reproduces: false, minimal: false }) }));
    expect(made).toEqual({ refused: expect.stringMatching(/no smaller history reproduces/) });
  });
});
