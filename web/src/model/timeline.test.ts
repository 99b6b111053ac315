import { describe, expect, it } from 'vitest';
import { STATUS_ABORTED, STATUS_COMMITTED, ticks, TimelineModel, timelineData } from './timeline';

const data = timelineData({
  first: 1,
  // session 0: T1 [0,10], T2 [20,30]; session 1: T3 [5,6], T4 [6.5,7], T5 no time, T6 [2,3] (out of order)
  start: [0, 20, 5, 6.5, null, 2],
  end: [10, 30, 6, 7, null, 3],
  session: [0, 0, 1, 1, 1, 1],
  status: 'ccaccu',
});

describe('timeline model', () => {
  const m = new TimelineModel(data);
  it('lanes hold the timed transactions of each session, by start', () => {
    expect(m.lanes.map((l) => [...l].map((i) => m.txnAt(i)))).toEqual([[1, 2], [6, 3, 4]]);
    expect([m.t0, m.t1, m.timed]).toEqual([0, 30, 5]);
  });
  it('bars: one per transaction when wide enough, merged below a pixel, with the worst status', () => {
    expect(m.bars(0, 0, 30, 10).map((b) => [b.txn, b.x0, b.x1, b.count])).toEqual([[1, 0, 100, 1], [2, 200, 300, 1]]);
    const wide = m.bars(1, 0, 30, 10);
    expect(wide.map((b) => b.txn)).toEqual([6, 3, 4]);
    expect(wide[1].status).toBe(STATUS_ABORTED);
    const merged = m.bars(1, 0, 30, 0.1); // everything within a pixel or so
    expect(merged).toHaveLength(1);
    expect(merged[0].count).toBe(3);
    expect(merged[0].status).not.toBe(STATUS_COMMITTED);
  });
  it('bars only in the window', () => {
    expect(m.bars(0, 12, 18, 10)).toEqual([]);
    expect(m.bars(0, 25, 40, 1).map((b) => b.txn)).toEqual([2]);
  });
  it('hit finds the transaction under a time, within the slack', () => {
    expect(m.hit(0, 5, 0)).toBe(1);
    expect(m.hit(0, 15, 1)).toBe(-1);
    expect(m.hit(0, 19.5, 1)).toBe(2);
    expect(m.hit(1, 6.2, 0.3)).toBe(3);
    expect(m.hit(7, 1, 1)).toBe(-1);
  });
  it('ticks are round numbers across the range', () => {
    expect(ticks(0, 10, 5)).toEqual([0, 2, 4, 6, 8, 10]);
    expect(ticks(0.3, 0.71, 8)).toEqual([0.3, 0.4, 0.5, 0.6, 0.7]);
    expect(ticks(0.3, 0.71, 4)).toEqual([0.4, 0.6]);
  });
});

describe('faults on the timeline', () => {
  it('are kept from the core JSON and widen the time span to hold them', () => {
    const d = timelineData({ first: 1, start: [10], end: [20], session: [0], status: 'c',
      faults: [{ kind: 'crash', node: 'postgres', start: 25, end: 40 }, { kind: 'pause', node: '', start: 5, end: 8 }] });
    expect(d.faults).toEqual([{ kind: 'crash', node: 'postgres', start: 25, end: 40 }, { kind: 'pause', node: '', start: 5, end: 8 }]);
    const m = new TimelineModel(d);
    expect([m.t0, m.t1]).toEqual([5, 40]);
  });
  it('are absent when the history has none', () => {
    expect(timelineData({ first: 1, start: [1], end: [2], session: [0], status: 'c' }).faults).toBeUndefined();
  });
});
