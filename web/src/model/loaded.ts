// The loaded history as the page's views speak of it: its statistics, what its transactions and
// sessions are called (names.ts) and the unit of its times (times.ts). One object per history
// read, made when the core has read it and handed down to each view that shows it (the History,
// the Timeline, the anomaly and its diagram): nothing of a history is kept in a module global.
import type { InputStats } from '../core/types';
import { Names } from './names';
import { formatSpan, formatTime, timeUnitOf, type TimeUnit } from './times';

export class LoadedHistory {
  readonly names: Names;
  readonly timeUnit: TimeUnit;

  constructor(readonly stats: InputStats) {
    this.names = new Names(stats.origin);
    this.timeUnit = timeUnitOf(stats.format);
  }

  /** One time in this history's unit (times.ts: formatTime). */
  formatTime(t: number, step?: number): string { return formatTime(t, this.timeUnit, step); }
  /** "start → end (duration)" in this history's unit. */
  formatSpan(start: number, end: number): string { return formatSpan(start, end, this.timeUnit); }
}
