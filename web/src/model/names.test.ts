import { describe, expect, it } from 'vitest';
import { Names } from './names';
import { LoadedHistory } from './loaded';

describe('transaction names', () => {
  it('are the loaded numbers without an origin', () => {
    const n = new Names(null);
    expect(n.txnName(5)).toBe('T5');
    expect(n.sessionNumber(2)).toBe(2);
    expect(n.positionOf(5, 3)).toBe(3);
    expect(n.txnByNumber(7)).toBe(7);
    expect(n.ofOriginal(2)).toBeNull();
  });
  it("are the original history's for a counterexample", () => {
    const n = new Names({ transactions: 100002, txns: [[20001, 1, 10000], [90002, 8, 10000]] });
    expect(n.txnName(1)).toBe('T20001');
    expect(n.txnName(2)).toBe('T90002');
    expect(n.txnName(0)).toBe('T0');
    expect(n.sessionNumber(0)).toBe(1);
    expect(n.sessionNumber(1)).toBe(8);
    expect(n.positionOf(2, 0)).toBe(10000);
    expect(n.txnByNumber(90002)).toBe(2);
    expect(n.txnByNumber(3)).toBeUndefined();
    expect(n.ofOriginal(2)).toBe('2 of 100,002');
  });
  it('belong to one loaded history: two histories never share them', () => {
    const stats = { format: 'isoscope', sessions: 1, transactions: 2, operations: 2, keys: 1 };
    const cut = new LoadedHistory({ ...stats, origin: { transactions: 100002, txns: [[20001, 1, 10000], [90002, 8, 10000]] } });
    const plain = new LoadedHistory(stats);
    expect(cut.names.txnName(1)).toBe('T20001');
    expect(plain.names.txnName(1)).toBe('T1');
    expect(new LoadedHistory({ ...stats, format: 'elle' }).formatSpan(1_000_000, 3_500_000)).toBe('1 ms \u2192 3.5 ms (2.5 ms)');
    expect(plain.formatSpan(10, 25)).toBe('10 \u2192 25 (15 long)');
  });
});
