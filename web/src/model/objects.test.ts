import { describe, expect, it } from 'vitest';
import { timelineData, TimelineModel } from './timeline';
import { keyTimeline, keysByCount } from './objects';

// processes 0 and 1 on key x (index 0), process 2 on key y (index 1); T4 has no time
const data = timelineData({
  first: 1, start: [0, 5, 2, null, 7], end: [10, 6, 3, null, 30], session: [0, 1, 2, 0, 1], status: 'ccucu',
  object_keys: ['x', 'y'], object_key: [0, 0, 1, 0, 1], lane_names: ['process 0', 'process 1', 'process 7'],
});

describe('object timeline', () => {
  it('parses the object arrays of the core', () => {
    expect(data.objectKeys).toEqual(['x', 'y']);
    expect([...data.objectKey!]).toEqual([0, 0, 1, 0, 1]);
  });
  it('one key: only its timed operations, on lanes of the processes that touch it, named by process', () => {
    const y = keyTimeline(data, 1);
    const m = new TimelineModel(y);
    expect(m.lanes.map((l) => [...l].map((i) => m.txnAt(i)))).toEqual([[3], [5]]);
    expect(y.laneNames).toEqual(['process 7', 'process 1']);
    const x = new TimelineModel(keyTimeline(data, 0));
    expect(x.lanes.map((l) => [...l].map((i) => x.txnAt(i)))).toEqual([[1], [2]]);
  });
  it('keys by their number of operations', () => {
    expect(keysByCount(data)).toEqual([0, 1]);
  });
});
