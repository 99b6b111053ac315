// The Timeline of an object history (Jepsen registers, key-value stores, Porcupine's logs): one
// key at a time, its processes as lanes on the real-time axis, each operation a bar from its
// invocation to its completion (an indeterminate one open to the history's end). LIN's
// linearization of the key, or the longest linearizable prefix of a failing key, is drawn as
// numbered points joined in order; the operation that cannot follow the prefix is outlined.
// The key follows the anomaly in view, so a share link that names the anomaly shows its key;
// a share link also names the key in view (ViewState.key), which it opens on.
import { TimelineModel, type TimelineData } from '../model/timeline';
import { keyTimeline, keysByCount } from '../model/objects';
import type { LoadedHistory } from '../model/loaded';
import { TimelineView, type OverlayEdge, type TimelineHost } from './view';
import { h } from '../dom/dom';

const MAX_LISTED_KEYS = 2000;

/** Same surface as TimelineView (el, setOverlay, setLinearization, schedule, fit), one key at a time. */
export class ObjectTimelineView {
  readonly el: HTMLElement;
  private readonly keys: number[];
  private readonly select: HTMLSelectElement;
  private readonly note: HTMLElement;
  private readonly slot: HTMLElement;
  private key = -1;
  private view: TimelineView | null = null;
  private readonly views = new Map<number, TimelineView>();
  private overlay: { txns: number[]; edges: OverlayEdge[] } = { txns: [], edges: [] };
  private order: number[] | null = null;

  constructor(private readonly data: TimelineData, private readonly host: TimelineHost, private readonly history: LoadedHistory) {
    this.keys = keysByCount(data);
    this.select = h('select', { class: 'tl-search', id: 'timeline-key', 'aria-label': 'Key' });
    this.select.addEventListener('change', () => this.show(Number(this.select.value)));
    this.note = h('p', { class: 'muted', id: 'timeline-key-note', style: 'margin:0 0 8px' });
    this.slot = h('div', {});
    this.el = h('div', { class: 'tl-objects' },
      h('div', { class: 'tl-tools' }, h('label', { for: 'timeline-key' }, 'Key'), this.select,
        h('span', { class: 'muted' }, `${this.keys.length.toLocaleString('en-US')} key${this.keys.length === 1 ? '' : 's'}, each checked on its own`)),
      this.note, this.slot);
    this.fillOptions();
    if (this.keys.length) this.show(this.keys[0]);
  }

  private keyName(k: number) { return this.data.objectKeys?.[k] ?? String(k); }

  /** The key in view, by name (what a share link keeps). */
  get keyInView(): string | undefined { return this.key >= 0 ? this.keyName(this.key) : undefined; }

  /** Shows the key of that name; false when the history has none. */
  showNamed(name: string): boolean {
    const k = this.keys.find((x) => this.keyName(x) === name);
    if (k === undefined) return false;
    this.show(k);
    return true;
  }

  private fillOptions() {
    const listed = this.keys.slice(0, MAX_LISTED_KEYS);
    if (this.key >= 0 && !listed.includes(this.key)) listed.push(this.key);
    this.select.replaceChildren(...listed.map((k) => h('option', { value: k }, this.keyName(k))));
    if (this.key >= 0) this.select.value = String(this.key);
  }

  /** Shows key k (its view is built once and kept). */
  show(k: number) {
    if (k === this.key) return;
    this.key = k;
    let v = this.views.get(k);
    if (!v) {
      v = new TimelineView(new TimelineModel(keyTimeline(this.data, k)), this.host, this.history);
      v.fit();
      this.views.set(k, v);
    }
    this.view = v;
    this.slot.replaceChildren(v.el);
    this.fillOptions();
    this.el.dataset.key = this.keyName(k);
    this.apply();
  }

  private keyOfTxn(txn: number) {
    const i = txn - this.data.first;
    return i >= 0 && i < this.data.objectKey!.length ? this.data.objectKey![i] : -1;
  }

  /** The anomaly's operations: the key switches to the first one's (the operation that cannot be linearized). */
  setOverlay(txns: number[], edges: OverlayEdge[]) {
    this.overlay = { txns, edges };
    if (txns.length) {
      const k = this.keyOfTxn(txns[0]);
      if (k >= 0 && k !== this.key) { this.show(k); return; }
    }
    this.apply();
  }

  /** A linearization (pass: every key's, one after the other) or a failing key's longest prefix. */
  setLinearization(order: number[] | null) {
    this.order = order;
    this.apply();
  }

  private apply() {
    if (!this.view) return;
    const mine = (t: number) => this.keyOfTxn(t) === this.key;
    const order = this.order ? this.order.filter(mine) : null;
    const txns = this.overlay.txns.filter(mine);
    this.view.setOverlay(txns, this.overlay.edges.filter((e) => mine(e.from) && mine(e.to)));
    this.view.setLinearization(order);
    const name = this.keyName(this.key);
    this.note.textContent = txns.length
      ? `Key ${name}: the longest linearizable prefix, ${order?.length ?? 0} operation${order?.length === 1 ? '' : 's'} numbered in order; T${txns[0]}, outlined, cannot take effect after it.`
      : order && order.length ? `Key ${name}: its linearization, ${order.length} operation${order.length === 1 ? '' : 's'} numbered in order.`
      : `Key ${name}: processes as lanes; an indeterminate (:info) operation runs to the end of the history.`;
    this.el.dataset.prefix = String(order?.length ?? 0);
    this.el.dataset.offending = txns.length ? String(txns[0]) : '';
  }

  schedule() { this.view?.schedule(); }
  fit() { this.view?.fit(); }
}
