import { describe, expect, it } from 'vitest';
import { inverseScaledOffset, PAGE, scaledOffset, sessionOf, TxnCache } from './cache';

describe('history cache', () => {
  it('fetches pages once and evicts least recently used', async () => {
    const calls: [number, number][] = [];
    let loaded = 0;
    const c = new TxnCache(async (b, e) => { calls.push([b, e]); return Array.from({ length: e - b }, (_, i) => ({ txn: b + i, session: 0, index: b + i, ops: [] })); }, () => loaded++, 2, 10 * PAGE);
    expect(c.get(5)).toBeUndefined();
    expect(c.get(6)).toBeUndefined();
    await new Promise((r) => setTimeout(r, 0));
    expect(calls).toEqual([[0, PAGE]]);
    expect(c.get(6)?.txn).toBe(6);
    c.get(PAGE); c.get(2 * PAGE);
    await new Promise((r) => setTimeout(r, 0));
    expect(c.size).toBe(2);
    expect(loaded).toBe(3);
    expect(c.get(20 * PAGE)).toBeUndefined(); // beyond the end: no request
    await new Promise((r) => setTimeout(r, 0));
    expect(calls.length).toBe(3);
  });
  it('scales huge extents', () => {
    expect(scaledOffset(100, 500, 1000, 1000)).toBe(100);
    const real = 30_000_000, virt = 8_000_000;
    expect(scaledOffset(virt - 500, 500, real, virt)).toBe(real - 500);
    expect(inverseScaledOffset(scaledOffset(1234567, 500, real, virt), 500, real, virt)).toBeCloseTo(1234567, 3);
  });
  it('finds sessions of transactions', () => {
    const r = [{ first: 1, count: 3 }, { first: 4, count: 0 }, { first: 4, count: 2 }];
    expect(sessionOf(r, 1)).toBe(0);
    expect(sessionOf(r, 3)).toBe(0);
    expect(sessionOf(r, 5)).toBe(2);
    expect(sessionOf(r, 0)).toBe(-1);
    expect(sessionOf(r, 6)).toBe(-1);
  });
});
