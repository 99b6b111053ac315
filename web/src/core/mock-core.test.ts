import { describe, expect, it } from 'vitest';
import { MockIsoscope } from './mock-core';

const enc = (s: string) => new TextEncoder().encode(s);

describe('MockIsoscope (test double of the embind API)', () => {
  it('loads canonical JSON and reports anomalies in the documented shape', () => {
    const m = new MockIsoscope();
    const r = JSON.parse(m.load(['h.json'], [enc('{"sessions":[[{"ops":[["r","x",0],["w","x",1]]}],[[["r","x",0],["w","x",2]]]]}')], ''));
    expect(r).toMatchObject({ ok: true, input: { sessions: 2, transactions: 2, operations: 4, keys: 1 } });
    expect(JSON.parse(m.levels()).find((l: any) => l.level === 'SSER')).toMatchObject({ applies: false });
    const si = JSON.parse(m.checkLevel('SI', 1000, 5));
    expect(si.verdict).toBe('fail');
    expect(si.anomalies[0].transactions.map((t: any) => t.txn)).toEqual([1, 2]);
    expect(JSON.parse(m.sessions())).toEqual([{ first: 1, count: 1 }, { first: 2, count: 1 }]);
    expect(JSON.parse(m.transactions(1, 3)).length).toBe(2);
    expect(JSON.parse(m.convert('isoscope')).sessions.length).toBe(2);
  });
  it('reports parse errors with position', () => {
    const r = JSON.parse(new MockIsoscope().load(['bad.json'], [enc('{\n  "sessions": [}')], ''));
    expect(r.ok).toBe(false);
    expect(r.error.file).toBe('bad.json');
  });
});
