import { describe, expect, it } from 'vitest';
import { shareOptions, SHORT_LINK_CHARS, TX_LIMIT_FULL_SHARE, type ShareRequest } from './link';
import { decodeFragment } from './share';

const request = (over: Partial<ShareRequest>): ShareRequest => ({
  base: 'https://x.test/app/',
  name: 'bank.edn',
  transactions: 3,
  view: { level: 'SER', anomaly: 2, tab: 'anomaly' },
  selected: { level: 'SER', index: 2, title: 'Write skew' },
  wholeHistory: async () => '{"sessions": [[[["w","x",1]]]]}',
  counterexample: async () => ({ history: '{"sessions": []}', transactions: 2, reproduces: true, minimal: true }),
  ...over,
});

// a history whose link is long whatever deflate does with it
const noisy = (n: number) => JSON.stringify({ sessions: [Array.from({ length: n }, (_, i) => [['w', `k${(i * 7919) % 104729}`, (i * 104723) % 1000003]])] });

describe('share links', () => {
  it('carry the whole history, the view and the name when it fits', async () => {
    const made = await shareOptions(request({}));
    expect(made.options.map((o) => o.what)).toEqual(['history']);
    const back = decodeFragment(new URL(made.options[made.preferred].link).hash)!;
    expect(back.history).toBe('{"sessions": [[[["w","x",1]]]]}');
    expect(back.view).toEqual({ level: 'SER', anomaly: 2, tab: 'anomaly', name: 'bank.edn' });
    expect(back.counterexample).toBeFalsy();
  });
  it('offer both links of a medium history, the short one first', async () => {
    const made = await shareOptions(request({ transactions: 2000, wholeHistory: async () => noisy(2000) }));
    expect(made.options.map((o) => o.what)).toEqual(['counterexample', 'history']);
    const preferred = made.options[made.preferred];
    expect(preferred.what).toBe('counterexample');
    expect(preferred.link.length).toBeLessThan(SHORT_LINK_CHARS);
    expect(made.options[1].link.length).toBeGreaterThan(SHORT_LINK_CHARS);
    expect(preferred.note).toMatch(/2 of 2,000 transactions/);
  });
  it('carry the counterexample of the selected anomaly when the history is too large', async () => {
    let asked = false;
    const made = await shareOptions(request({ transactions: TX_LIMIT_FULL_SHARE + 1, wholeHistory: async () => { asked = true; return ''; } }));
    expect(asked).toBe(false);
    const back = decodeFragment(new URL(made.options[made.preferred].link).hash)!;
    expect(back.counterexample).toBe(true);
    expect(back.view).toEqual({ level: 'SER', anomaly: 0, tab: 'anomaly', name: 'bank.edn (counterexample)' });
    expect(made.options[0].note).toMatch(/minimal counterexample of SER's write skew \(2 of 200,001 transactions\)/);
  });
  it('are refused rather than claim what does not reproduce', async () => {
    const big = { transactions: TX_LIMIT_FULL_SHARE + 1 };
    expect((await shareOptions(request({ ...big, selected: undefined }))).refused).toMatch(/no anomaly/);
    const made = await shareOptions(request({ ...big, counterexample: async () => ({ history: '', transactions: 9, reproduces: false, minimal: false }) }));
    expect(made.options).toEqual([]);
    expect(made.refused).toMatch(/No smaller history reproduces/);
  });
});
