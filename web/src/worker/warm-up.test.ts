import { describe, expect, it } from 'vitest';
import type { IsoscopeModule } from '../core/types';
import { cobraLogs, dbcopBincode, isoscopeJson, serialHistory, WARM_UP_ROUND_STEPS, warmUp, warmUpStep } from './warm-up';

describe('the warm-up histories', () => {
  const h = serialHistory(4, 10, 6, 3, 7);
  it('repeat values, and read what the last writer of the serial order wrote', () => {
    // replay in real-time order (ends increase with the serial order)
    const txns = h.flat().sort((a, b) => a.end - b.end);
    const state = new Map<number, number>();
    const written = new Map<string, number>();
    for (const t of txns)
      for (const [write, key, value] of t.ops) {
        if (write) { state.set(key, value); written.set(`${key}=${value}`, (written.get(`${key}=${value}`) ?? 0) + 1); }
        else expect(value).toBe(state.get(key) ?? 0);
      }
    expect(Math.max(...written.values())).toBeGreaterThan(1);
  });
  it('keep real time consistent with the serial order, and sessions in order', () => {
    const txns = h.flat().sort((a, b) => a.end - b.end);
    for (let i = 0; i < txns.length; i++)
      for (let j = 0; j < i; j++) expect(txns[i].end < txns[j].start).toBe(false);
    for (const s of h) for (let i = 1; i < s.length; i++) expect(s[i].start).toBeGreaterThan(s[i - 1].end);
  });
  it('write the same transactions in both formats', () => {
    const json = JSON.parse(isoscopeJson(h));
    expect(json.sessions.map((s: unknown[]) => s.length)).toEqual(h.map((s) => s.length));
    const ops = h.flat().reduce((n, t) => n + t.ops.length, 0);
    const txns = h.flat().length;
    // 5 params + 3 strings ("warm-up") + session count + per session a count + per txn a count and a flag + 18 bytes an event
    expect(dbcopBincode(h).length).toBe(40 + 3 * 8 + 7 + 8 + 8 * h.length + 9 * txns + 18 * ops);
    // Cobra: a log a session; S and C records of 9 bytes, W of 25, R of 33
    const logs = cobraLogs(h);
    expect(logs.map(([name]) => name)).toEqual(h.map((_, s) => `T${s}.log`));
    const writes = h.flat().reduce((n, t) => n + t.ops.filter(([w]) => w).length, 0);
    expect(logs.reduce((n, [, b]) => n + b.length, 0)).toBe(18 * txns + 25 * writes + 33 * (ops - writes));
  });
});

describe('warmUp', () => {
  /** A core that passes everything and records its calls: "load <first file>", or the level. */
  const recordingCore = () => {
    const calls: string[] = [];
    const core = {
      load: (names: string[]) => { calls.push(`load ${names[0]}`); return '{"ok":true,"value":{}}'; },
      checkLevel: (level: string) => { calls.push(level); return '{"ok":true,"value":{"verdict":"pass"}}'; },
    } as unknown as IsoscopeModule;
    return { core, calls };
  };
  const levels = ['RC', 'RA', 'CC', 'PC', 'SI', 'SER', 'SSER'];
  const round = ['load warm-up.json', ...levels, 'load history.bincode', ...levels, 'load T0.log', ...levels];
  it('loads each history and checks every level on its own, each round', () => {
    const { core, calls } = recordingCore();
    const report = warmUp(core, 2);
    expect(report.rounds).toBe(2);
    expect(report.ms).toHaveLength(2);
    expect(calls).toEqual([...round, ...round]);
  });
  it('runs a step at a time, in the same order (the page stops between steps)', () => {
    const { core, calls } = recordingCore();
    for (let step = 0; step < WARM_UP_ROUND_STEPS + 2; step++) warmUpStep(core, step);
    expect(calls).toEqual([...round, 'load warm-up.json', 'RC']);
  });
  it("throws the core's error (the page records it and goes on)", () => {
    const core = { load: () => '{"ok":false,"error":{"message":"bad"}}' } as unknown as IsoscopeModule;
    expect(() => warmUp(core)).toThrow(/warm-up: bad/);
  });
});
