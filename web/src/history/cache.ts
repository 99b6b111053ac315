// A page cache of transactions fetched from the data worker (pure; the fetcher is injected).
import type { Txn } from '../core/types';

export const PAGE = 256;

export class TxnCache {
  private pages = new Map<number, Txn[]>();
  private inflight = new Set<number>();
  constructor(
    private readonly fetchRange: (begin: number, end: number) => Promise<Txn[]>,
    private readonly onLoaded: () => void,
    private readonly maxPages = 400,
    private readonly total = Number.MAX_SAFE_INTEGER,
  ) {}

  /** The transaction if cached; otherwise undefined and its page is requested. */
  get(txn: number): Txn | undefined {
    const p = Math.floor(txn / PAGE);
    const page = this.pages.get(p);
    if (page) {
      // refresh LRU position
      this.pages.delete(p);
      this.pages.set(p, page);
      return page[txn - p * PAGE];
    }
    this.request(p);
    return undefined;
  }

  async fetch(txn: number): Promise<Txn | undefined> {
    const hit = this.get(txn);
    if (hit) return hit;
    const rows = await this.fetchRange(txn, txn + 1);
    return rows[0];
  }

  private request(p: number) {
    if (this.inflight.has(p) || p < 0 || p * PAGE >= this.total) return;
    this.inflight.add(p);
    this.fetchRange(p * PAGE, Math.min((p + 1) * PAGE, this.total))
      .then((rows) => {
        this.pages.set(p, rows);
        while (this.pages.size > this.maxPages) this.pages.delete(this.pages.keys().next().value!);
        this.onLoaded();
      })
      .catch(() => { /* worker restarted or gone: a later scroll retries */ })
      .finally(() => this.inflight.delete(p));
  }

  get size() {
    return this.pages.size;
  }
}

/** Maps a scroll offset within a capped virtual extent onto the real extent (huge lists). */
export function scaledOffset(scroll: number, viewport: number, real: number, virtual: number): number {
  if (real <= virtual) return scroll;
  const maxV = Math.max(1, virtual - viewport);
  return (Math.min(scroll, maxV) / maxV) * Math.max(0, real - viewport);
}

export function inverseScaledOffset(offset: number, viewport: number, real: number, virtual: number): number {
  if (real <= virtual) return offset;
  const maxR = Math.max(1, real - viewport);
  return (Math.min(offset, maxR) / maxR) * Math.max(0, virtual - viewport);
}

/** Session holding a transaction id (binary search over contiguous ranges). */
export function sessionOf(ranges: { first: number; count: number }[], txn: number): number {
  let lo = 0, hi = ranges.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const r = ranges[mid];
    if (txn < r.first) hi = mid - 1;
    else if (txn >= r.first + r.count) lo = mid + 1;
    else return mid;
  }
  return -1;
}
