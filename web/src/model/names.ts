// What the page calls transactions and sessions: what they are called in the history the user
// has. A shared counterexample carries each transaction's number, session and position in the
// history it was cut from (InputStats.origin, docs/result-json.md), so its T20001 is the
// recipient's T20001; any other history is named as loaded. One loaded history at a time.
import type { Origin } from '../core/types';

let origin: Origin | null = null;
let sessionOf: number[] = [];       // a session of the loaded history -> its original number
let byNumber = new Map<number, number>();

/** Names transactions after `o` (a counterexample's origin), or as loaded (null). */
export function setOrigin(o: Origin | null | undefined) {
  origin = o && Array.isArray(o.txns) ? o : null;
  sessionOf = [];
  byNumber = new Map();
  if (!origin) return;
  // project_history keeps the original sessions in order, one for each that kept a transaction
  let last = -1;
  origin.txns.forEach(([n, s], i) => {
    if (s !== last) { sessionOf.push(s); last = s; }
    byNumber.set(n, i + 1);
  });
}

export function currentOrigin(): Origin | null { return origin; }

/** The number the user knows transaction t by (t: the loaded history's number; 0 the initial one). */
export function txnNumber(t: number): number {
  return origin && t > 0 ? origin.txns[t - 1]?.[0] ?? t : t;
}
export function txnName(t: number): string { return `T${txnNumber(t)}`; }
/** The user's number for session s of the loaded history. */
export function sessionNumber(s: number): number { return origin ? sessionOf[s] ?? s : s; }
/** The user's position in its session of transaction t (index: its position in the loaded history). */
export function positionOf(t: number | undefined, index: number): number {
  return origin && t !== undefined && t > 0 ? origin.txns[t - 1]?.[2] ?? index : index;
}
/** The loaded history's transaction the user calls T`n` (undefined: none). */
export function txnByNumber(n: number): number | undefined {
  return origin ? byNumber.get(n) : n;
}
/** "2 of 100,002 transactions" for a counterexample; null otherwise. */
export function ofOriginal(transactions: number): string | null {
  return origin ? `${transactions.toLocaleString('en-US')} of ${origin.transactions.toLocaleString('en-US')}` : null;
}
