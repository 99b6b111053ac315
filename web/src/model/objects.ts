// An object history's timeline, one key at a time (the data; timeline/objects.ts draws it).
import type { TimelineData } from './timeline';

/** Key k's transactions of an object history as timeline data of their own: lanes only for the processes that touch k. */
export function keyTimeline(data: TimelineData, k: number): TimelineData {
  const n = data.start.length;
  const keyOf = data.objectKey!;
  const lane = new Map<number, number>();
  const start = new Float64Array(n).fill(NaN), end = new Float64Array(n).fill(NaN), session = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    if (keyOf[i] !== k || Number.isNaN(data.start[i])) continue;
    let l = lane.get(data.session[i]);
    if (l === undefined) { l = lane.size; lane.set(data.session[i], l); }
    start[i] = data.start[i];
    end[i] = data.end[i];
    session[i] = l;
  }
  const names: string[] = [];
  for (const [s, l] of lane) names[l] = data.laneNames?.[s] ?? `session ${s}`;
  return { first: data.first, start, end, session, status: data.status, laneNames: names, objectKey: keyOf, objectKeys: data.objectKeys, faults: data.faults };
}

/** The keys that have operations, most operations first (the busiest key is the default view). */
export function keysByCount(data: TimelineData): number[] {
  const count = new Map<number, number>();
  const keyOf = data.objectKey!;
  for (let i = 0; i < keyOf.length; i++) count.set(keyOf[i], (count.get(keyOf[i]) ?? 0) + 1);
  return [...count.keys()].sort((x, y) => count.get(y)! - count.get(x)! || x - y);
}
