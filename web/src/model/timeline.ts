// The timeline's data, without the DOM: every transaction's real-time extent in flat typed
// arrays (from the core's timeline()), lanes of transactions sorted by start, and the queries
// the canvas needs at 10^6 transactions: what is visible in a lane between two times, merged to
// one bar per pixel when zoomed out, and which transaction is under the pointer.

/** Flat arrays, transaction first + i at index i (NaN times: the transaction has none). */
export interface TimelineData {
  first: number;
  start: Float64Array;
  end: Float64Array;
  session: Uint32Array;
  status: Uint8Array;  // STATUS_* below
  /** lane names (default "session s"); an object history names its processes */
  laneNames?: string[];
  /** an object history: each transaction's key (an index into objectKeys) */
  objectKey?: Uint32Array;
  objectKeys?: string[];
  /** what a nemesis did meanwhile (the history's "faults"): drawn as bands behind the lanes */
  faults?: Fault[];
}
/** A fault: a server paused, or crashed and started again, from start to end. */
export interface Fault { kind: string; node: string; start: number; end: number }
export const STATUS_COMMITTED = 0, STATUS_ABORTED = 1, STATUS_UNKNOWN = 2;

/** A bar to draw: transactions [a, b) of a lane merged when they share pixels. */
export interface Bar { x0: number; x1: number; txn: number; count: number; status: number }

export class TimelineModel {
  /** lanes[s]: the indexes (into the arrays) of session s's timed transactions, by start */
  readonly lanes: Uint32Array[];
  /** per lane, the greatest end among the first k transactions (for searches by time) */
  private readonly maxEnd: Float64Array[];
  readonly t0: number;
  readonly t1: number;
  readonly timed: number;

  constructor(readonly data: TimelineData) {
    const n = data.start.length;
    let sessions = 0;
    for (let i = 0; i < n; i++) sessions = Math.max(sessions, data.session[i] + 1);
    const counts = new Uint32Array(sessions);
    let t0 = Infinity, t1 = -Infinity, timed = 0;
    for (let i = 0; i < n; i++) {
      if (Number.isNaN(data.start[i])) continue;
      counts[data.session[i]]++;
      t0 = Math.min(t0, data.start[i]);
      t1 = Math.max(t1, data.end[i]);
      timed++;
    }
    for (const f of data.faults ?? []) {
      t0 = Math.min(t0, f.start);
      t1 = Math.max(t1, f.end);
    }
    this.lanes = Array.from(counts, (c) => new Uint32Array(c));
    const fill = new Uint32Array(sessions);
    for (let i = 0; i < n; i++) if (!Number.isNaN(data.start[i])) this.lanes[data.session[i]][fill[data.session[i]]++] = i;
    // sessions usually record in time order already: sort only the lanes that are not
    for (const lane of this.lanes) {
      let sorted = true;
      for (let k = 1; k < lane.length && sorted; k++) sorted = data.start[lane[k - 1]] <= data.start[lane[k]];
      if (!sorted) lane.sort((a, b) => data.start[a] - data.start[b]);
    }
    this.maxEnd = this.lanes.map((lane) => {
      const m = new Float64Array(lane.length);
      let best = -Infinity;
      for (let k = 0; k < lane.length; k++) m[k] = best = Math.max(best, data.end[lane[k]]);
      return m;
    });
    const any = timed || (data.faults?.length ?? 0) > 0;
    this.t0 = any ? t0 : 0;
    this.t1 = any ? (t1 > t0 ? t1 : t0 + 1) : 1;
    this.timed = timed;
  }

  txnAt(index: number): number { return this.data.first + index; }
  indexOf(txn: number): number { return txn - this.data.first; }

  /** The first position in lane s whose transaction may reach past time t (its end >= t). */
  private firstReaching(s: number, t: number): number {
    const m = this.maxEnd[s];
    let lo = 0, hi = m.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (m[mid] < t) lo = mid + 1; else hi = mid;
    }
    return lo;
  }

  /**
   * The bars of lane s between times a and b, at `scale` pixels per time unit from time a: each
   * transaction its own bar when it is at least a pixel wide, otherwise merged with the
   * neighbours it shares pixels with (a merged bar takes the worst status: aborted, unknown).
   */
  bars(s: number, a: number, b: number, scale: number): Bar[] {
    const lane = this.lanes[s];
    const { start, end, status } = this.data;
    const out: Bar[] = [];
    for (let k = this.firstReaching(s, a); k < lane.length; k++) {
      const i = lane[k];
      if (start[i] > b) break;
      if (end[i] < a) continue;
      const x0 = (start[i] - a) * scale, x1 = Math.max((end[i] - a) * scale, x0 + 1);
      const last = out[out.length - 1];
      if (last && x0 < last.x1 + 1 && (x1 - x0 < 2 || last.x1 - last.x0 < 2)) {
        last.x1 = Math.max(last.x1, x1);
        last.count++;
        if (status[i] !== STATUS_COMMITTED && last.status === STATUS_COMMITTED) last.status = status[i];
      } else {
        out.push({ x0, x1, txn: this.txnAt(i), count: 1, status: status[i] });
      }
    }
    return out;
  }

  /** The transaction of lane s at time t (within `slack` time units), or -1. */
  hit(s: number, t: number, slack: number): number {
    const lane = this.lanes[s];
    if (!lane) return -1;
    let best = -1, bestDist = Infinity;
    for (let k = this.firstReaching(s, t - slack); k < lane.length; k++) {
      const i = lane[k];
      if (this.data.start[i] > t + slack) break;
      const d = t < this.data.start[i] ? this.data.start[i] - t : t > this.data.end[i] ? t - this.data.end[i] : 0;
      if (d <= slack && d < bestDist) { best = i; bestDist = d; }
    }
    return best < 0 ? -1 : this.txnAt(best);
  }
}

/** The core's timeline() JSON as typed arrays (in the worker; the arrays are then transferred). */
export function timelineData(j: { first: number; start: (number | null)[]; end: (number | null)[]; session: number[]; status: string;
  object_keys?: string[]; object_key?: number[]; lane_names?: string[]; faults?: Fault[] }): TimelineData {
  const n = j.start.length;
  const start = new Float64Array(n), end = new Float64Array(n), status = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    start[i] = j.start[i] ?? NaN;
    end[i] = j.end[i] ?? NaN;
    status[i] = j.status.charCodeAt(i) === 99 /* c */ ? STATUS_COMMITTED : j.status.charCodeAt(i) === 97 /* a */ ? STATUS_ABORTED : STATUS_UNKNOWN;
  }
  const data: TimelineData = { first: j.first, start, end, session: Uint32Array.from(j.session), status };
  if (j.faults?.length) data.faults = j.faults.map((f) => ({ kind: f.kind, node: f.node, start: Number(f.start), end: Number(f.end) }));
  if (j.object_keys && j.object_key) {
    data.objectKeys = j.object_keys;
    data.objectKey = Uint32Array.from(j.object_key);
    data.laneNames = j.lane_names;
  }
  return data;
}

/** Ticks for an axis from a to b in about `count` steps of 1, 2 or 5 times a power of ten. */
export function ticks(a: number, b: number, count: number): number[] {
  const span = b - a;
  if (!(span > 0)) return [a];
  const raw = span / Math.max(1, count);
  const pow = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * pow).find((s) => s >= raw) ?? 10 * pow;
  const out: number[] = [];
  for (let t = Math.ceil(a / step) * step; t <= b && out.length < 1000; t += step) out.push(Number(t.toPrecision(12)));
  return out;
}
