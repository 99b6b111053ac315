// The virtualized history: one lane (column) per session, one row per transaction in session
// order. Only the visible cells exist in the DOM (a recycled pool); transactions are fetched in
// pages from the data worker. Scroll extents are capped and scaled so 10^6 rows still work.
import type { FoundTxn, NamesJson, SessionRange, Txn } from '../core/types';
import { matchList, searchForm } from '../dom/search';
import type { LoadedHistory } from '../model/loaded';
import { fmtOp, longNamesOf } from '../model/ops';
import { wholeNameLink } from '../dom/long-name';
import { h, clear } from '../dom/dom';
import { inverseScaledOffset, scaledOffset, sessionOf, TxnCache } from './cache';

const ROW_H = 30;
const COL_W = 260;
const GUTTER = 64;
const HEAD_H = 34;
const MAX_EXTENT = 8_000_000; // px; browsers cap element sizes around 3.3e7

export class HistoryView {
  readonly el: HTMLElement;
  private scroller: HTMLElement;
  private spacer: HTMLElement;
  private layer: HTMLElement;
  private head: HTMLElement;
  private gutter: HTMLElement;
  private detail: HTMLElement;
  private pool: HTMLElement[] = [];
  private cache: TxnCache;
  private rows: number;
  private highlighted = new Set<number>();
  private selected = -1;
  private raf = 0;

  constructor(
    /** the history shown: its size, what its transactions and sessions are called, its times' unit */
    private readonly history: LoadedHistory,
    private readonly ranges: SessionRange[],
    fetchRange: (b: number, e: number) => Promise<Txn[]>,
    /** a search: by number (T12), label or key */
    private readonly find: (query: string) => Promise<FoundTxn[]>,
    /** the long names whole (asked for only when a "whole" link is followed) */
    private readonly names?: () => Promise<NamesJson>,
  ) {
    this.rows = ranges.reduce((m, r) => Math.max(m, r.count), 0);
    this.cache = new TxnCache(fetchRange, () => this.schedule(), 400, history.stats.transactions + 1);
    this.head = h('div', { class: 'hv-head', 'aria-hidden': 'true' });
    this.gutter = h('div', { class: 'hv-gutter', 'aria-hidden': 'true' });
    this.spacer = h('div', { class: 'hv-spacer' });
    this.layer = h('div', { class: 'hv-layer' });
    this.scroller = h('div', { class: 'hv-scroller', tabindex: 0, role: 'region', 'aria-label': 'History: sessions as columns, transactions as rows. Arrow keys move between transactions.' }, this.spacer, this.layer);
    this.detail = h('aside', { class: 'hv-detail', 'aria-live': 'polite' }, h('p', { class: 'muted' }, 'Select a transaction to see its operations.'));
    const search = searchForm('history-search', (q) => void this.search(q));
    this.el = h('div', { class: 'hv-wrap' }, h('div', { class: 'tl-tools' }, search),
      h('div', { class: 'hv' }, h('div', { class: 'hv-main' }, this.head, this.gutter, this.scroller), this.detail));
    this.spacer.style.width = `${Math.min(ranges.length * COL_W, MAX_EXTENT)}px`;
    this.spacer.style.height = `${Math.min(this.rows * ROW_H, MAX_EXTENT)}px`;
    this.scroller.addEventListener('scroll', () => this.schedule(), { passive: true });
    this.scroller.addEventListener('click', (e) => {
      const cell = (e.target as HTMLElement).closest<HTMLElement>('.hv-cell');
      if (cell?.dataset.txn) this.select(Number(cell.dataset.txn));
    });
    this.scroller.addEventListener('keydown', (e) => this.key(e));
    new ResizeObserver(() => this.schedule()).observe(this.scroller);
  }

  private viewport() {
    const vw = this.scroller.clientWidth || 800;
    const vh = this.scroller.clientHeight || 500;
    const realW = this.ranges.length * COL_W;
    const realH = this.rows * ROW_H;
    const x = scaledOffset(this.scroller.scrollLeft, vw, realW, Math.min(realW, MAX_EXTENT));
    const y = scaledOffset(this.scroller.scrollTop, vh, realH, Math.min(realH, MAX_EXTENT));
    return { vw, vh, x, y };
  }

  schedule() {
    if (!this.raf) this.raf = requestAnimationFrame(() => { this.raf = 0; this.render(); });
  }

  private render() {
    const { vw, vh, x, y } = this.viewport();
    const c0 = Math.max(0, Math.floor(x / COL_W));
    const c1 = Math.min(this.ranges.length, Math.ceil((x + vw) / COL_W) + 1);
    const r0 = Math.max(0, Math.floor(y / ROW_H));
    const r1 = Math.min(this.rows, Math.ceil((y + vh) / ROW_H) + 1);
    // the layer follows the scroller; cells are placed relative to the real offset
    this.layer.style.transform = `translate(${this.scroller.scrollLeft}px, ${this.scroller.scrollTop}px)`;
    let used = 0;
    for (let c = c0; c < c1; c++) {
      const range = this.ranges[c];
      for (let r = r0; r < r1; r++) {
        if (r >= range.count) break;
        const id = range.first + r;
        const cell = this.pool[used] ?? this.newCell();
        used++;
        cell.style.transform = `translate(${c * COL_W - x}px, ${r * ROW_H - y}px)`;
        this.fill(cell, id, c);
      }
    }
    for (let i = used; i < this.pool.length; i++) this.pool[i].hidden = true;
    // headers
    clear(this.head);
    for (let c = c0; c < c1; c++) {
      const d = h('div', { class: 'hv-hcell' }, h('strong', {}, `Session ${this.history.names.sessionNumber(c)}`), h('span', { class: 'muted' }, ` ${this.ranges[c].count.toLocaleString('en-US')} txns`));
      d.style.transform = `translate(${GUTTER + c * COL_W - x}px, 0)`;
      this.head.append(d);
    }
    clear(this.gutter);
    for (let r = r0; r < r1; r++) {
      const d = h('div', { class: 'hv-gcell' }, `#${r}`);
      d.style.transform = `translate(0, ${HEAD_H + r * ROW_H - y}px)`;
      this.gutter.append(d);
    }
  }

  private newCell() {
    const cell = h('div', { class: 'hv-cell', role: 'button' });
    this.layer.append(cell);
    this.pool.push(cell);
    return cell;
  }

  private fill(cell: HTMLElement, id: number, c: number) {
    cell.hidden = false;
    const t = this.cache.get(id);
    const key = `${id}:${t ? 1 : 0}:${this.highlighted.has(id) ? 1 : 0}:${this.selected === id ? 1 : 0}`;
    if (cell.dataset.key === key) return;
    cell.dataset.key = key;
    cell.dataset.txn = String(id);
    cell.dataset.session = String(c);
    cell.setAttribute('aria-pressed', String(this.selected === id));
    cell.className = 'hv-cell' + (this.highlighted.has(id) ? ' hl' : '') + (this.selected === id ? ' sel' : '') + (t && t.status && t.status !== 'committed' ? ` st-${t.status}` : '');
    clear(cell);
    cell.append(h('span', { class: 'hv-id' }, this.history.names.txnName(id)));
    if (!t) { cell.append(h('span', { class: 'muted' }, '\u2026')); return; }
    const ops = t.ops.slice(0, 6).map(fmtOp).join('  ');
    cell.append(h('span', { class: 'hv-ops' }, ops + (t.ops.length > 6 ? `  +${t.ops.length - 6}` : '')));
    cell.title = `${this.history.names.txnName(id)}${t.id ? ` (${t.id})` : ''} \u00b7 ${t.status ?? 'committed'} \u00b7 ${t.ops.length} ops`;
  }

  setHighlight(txns: number[]) {
    this.highlighted = new Set(txns);
    for (const c of this.pool) delete c.dataset.key;
    this.schedule();
  }

  private matches: HTMLElement | null = null;
  private async search(query: string) {
    const found = await this.find(query);
    this.matches = matchList(query, found, (t) => this.reveal(t), (t) => this.history.names.txnName(t));
    if (found.length) this.reveal(found[0].txn);
    else { clear(this.detail); this.detail.append(this.matches); }
  }

  async select(id: number) {
    this.selected = id;
    for (const c of this.pool) delete c.dataset.key;
    this.schedule();
    const t = await this.cache.fetch(id);
    clear(this.detail);
    if (this.matches) this.detail.append(this.matches);
    if (!t) { this.detail.append(h('p', { class: 'muted' }, `${this.history.names.txnName(id)} is not available.`)); return; }
    const ts = t.start !== undefined ? this.history.formatSpan(t.start, t.end!) : null;
    this.detail.append(
      h('h3', {}, this.history.names.txnName(t.txn), t.id ? h('span', { class: 'muted' }, ` \u00b7 ${t.id}`) : null),
      h('dl', { class: 'kv' },
        h('dt', {}, 'Session'), h('dd', {}, `${this.history.names.sessionNumber(t.session)} \u00b7 #${this.history.names.positionOf(t.txn, t.index)}`),
        h('dt', {}, 'Status'), h('dd', {}, h('span', { class: `status st-${t.status ?? 'committed'}` }, t.status ?? 'committed')),
        ts ? [h('dt', {}, 'Time'), h('dd', {}, ts)] : null,
        h('dt', {}, 'Operations'), h('dd', {}, String(t.ops.length))),
      h('ol', { class: 'ops' }, t.ops.slice(0, 2000).map((op) => {
        const long = this.names ? longNamesOf(op) : [];
        return h('li', {}, fmtOp(op), long.flatMap((n) => [' ', wholeNameLink(n, this.names!)]));
      })),
    );
    if (t.ops.length > 2000) this.detail.append(h('p', { class: 'muted' }, `\u2026 and ${t.ops.length - 2000} more`));
  }

  /** Scrolls so that transaction `id` is visible and selects it. */
  reveal(id: number, also: number[] = []) {
    const c = sessionOf(this.ranges, id);
    if (c < 0) return;
    const r = id - this.ranges[c].first;
    const vw = this.scroller.clientWidth || 800;
    const vh = this.scroller.clientHeight || 500;
    const realW = this.ranges.length * COL_W;
    const realH = this.rows * ROW_H;
    // the sessions of `also` (an anomaly's other transactions) whole in view when they fit,
    // from the first one's left edge; else id's session a third in
    const cols = [c, ...also.map((t) => sessionOf(this.ranges, t)).filter((x) => x >= 0)];
    const lo = Math.min(...cols), hi = Math.max(...cols);
    const left = (hi - lo + 1) * COL_W <= vw - GUTTER ? lo * COL_W : Math.max(0, c * COL_W - vw / 3);
    this.scroller.scrollLeft = inverseScaledOffset(left, vw, realW, Math.min(realW, MAX_EXTENT));
    this.scroller.scrollTop = inverseScaledOffset(Math.max(0, r * ROW_H - vh / 3), vh, realH, Math.min(realH, MAX_EXTENT));
    this.select(id);
  }

  private key(e: KeyboardEvent) {
    if (this.selected < 0) { if (e.key.startsWith('Arrow')) { e.preventDefault(); this.reveal(this.ranges[0]?.first ?? 1); } return; }
    const c = sessionOf(this.ranges, this.selected);
    const r = this.selected - this.ranges[c].first;
    let nc = c, nr = r;
    if (e.key === 'ArrowDown') nr++;
    else if (e.key === 'ArrowUp') nr--;
    else if (e.key === 'ArrowRight') nc++;
    else if (e.key === 'ArrowLeft') nc--;
    else if (e.key === 'PageDown') nr += 20;
    else if (e.key === 'PageUp') nr -= 20;
    else return;
    e.preventDefault();
    nc = Math.max(0, Math.min(this.ranges.length - 1, nc));
    nr = Math.max(0, Math.min(this.ranges[nc].count - 1, nr));
    if (this.ranges[nc].count > 0) this.reveal(this.ranges[nc].first + nr);
  }
}
