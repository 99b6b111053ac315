// What the page calls transactions and sessions: what they are called in the history the user
// has. A shared counterexample carries each transaction's number, session and position in the
// history it was cut from (InputStats.origin, docs/result-json.md), so its T20001 is the
// recipient's T20001; any other history is named as loaded. One Names per loaded history (part
// of its LoadedHistory, loaded.ts), handed to the views that show it.
import type { Origin } from '../core/types';

export class Names {
  /** the counterexample's origin (null: the history is named as loaded) */
  readonly origin: Origin | null;
  /** a session of the loaded history -> its original number */
  private readonly sessionOf: number[] = [];
  /** an original transaction number -> the loaded history's */
  private readonly byNumber = new Map<number, number>();

  /** Names transactions after `o` (a counterexample's origin), or as loaded (null, absent). */
  constructor(o?: Origin | null) {
    this.origin = o && Array.isArray(o.txns) ? o : null;
    if (!this.origin) return;
    // project_history keeps the original sessions in order, one for each that kept a transaction
    let last = -1;
    this.origin.txns.forEach(([n, s], i) => {
      if (s !== last) { this.sessionOf.push(s); last = s; }
      this.byNumber.set(n, i + 1);
    });
  }

  /** The number the user knows transaction t by (t: the loaded history's number; 0 the initial one). */
  txnNumber(t: number): number {
    return this.origin && t > 0 ? this.origin.txns[t - 1]?.[0] ?? t : t;
  }
  txnName(t: number): string { return `T${this.txnNumber(t)}`; }
  /** The user's number for session s of the loaded history. */
  sessionNumber(s: number): number { return this.origin ? this.sessionOf[s] ?? s : s; }
  /** The user's position in its session of transaction t (index: its position in the loaded history). */
  positionOf(t: number | undefined, index: number): number {
    return this.origin && t !== undefined && t > 0 ? this.origin.txns[t - 1]?.[2] ?? index : index;
  }
  /** The loaded history's transaction the user calls T`n` (undefined: none). */
  txnByNumber(n: number): number | undefined {
    return this.origin ? this.byNumber.get(n) : n;
  }
  /** "2 of 100,002 transactions" for a counterexample; null otherwise. */
  ofOriginal(transactions: number): string | null {
    return this.origin ? `${transactions.toLocaleString('en-US')} of ${this.origin.transactions.toLocaleString('en-US')}` : null;
  }
}
