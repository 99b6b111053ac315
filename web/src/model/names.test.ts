import { afterEach, describe, expect, it } from 'vitest';
import { ofOriginal, positionOf, sessionNumber, setOrigin, txnByNumber, txnName } from './names';

describe('transaction names', () => {
  afterEach(() => setOrigin(null));
  it('are the loaded numbers without an origin', () => {
    expect(txnName(5)).toBe('T5');
    expect(sessionNumber(2)).toBe(2);
    expect(positionOf(5, 3)).toBe(3);
    expect(txnByNumber(7)).toBe(7);
    expect(ofOriginal(2)).toBeNull();
  });
  it("are the original history's for a counterexample", () => {
    setOrigin({ transactions: 100002, txns: [[20001, 1, 10000], [90002, 8, 10000]] });
    expect(txnName(1)).toBe('T20001');
    expect(txnName(2)).toBe('T90002');
    expect(txnName(0)).toBe('T0');
    expect(sessionNumber(0)).toBe(1);
    expect(sessionNumber(1)).toBe(8);
    expect(positionOf(2, 0)).toBe(10000);
    expect(txnByNumber(90002)).toBe(2);
    expect(txnByNumber(3)).toBeUndefined();
    expect(ofOriginal(2)).toBe('2 of 100,002');
  });
});
