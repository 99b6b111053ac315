// The two views of the loaded history itself: the History (sessions as columns) and the
// Timeline (sessions on a real-time axis). Each is built once per history, from the worker's
// data, and shows the anomaly in view; both search by number, label or key.
import type { Anomaly, FoundTxn } from '../core/types';
import type { Checker } from '../check/checker';
import { describeKind } from '../model/anomalies';
import type { LoadedHistory } from '../model/loaded';
import { TimelineModel } from '../model/timeline';
import { HistoryView } from '../history/view';
import { TimelineView } from '../timeline/view';
import { ObjectTimelineView } from '../timeline/objects';
import { clear, h } from '../dom/dom';

/** What the views show of the check: the anomaly in view, a passing LIN check's order. */
export interface InView { anomaly?: Anomaly; linearization: number[] | null }

export class RecordViews {
  private history: HistoryView | null = null;
  private timeline: TimelineView | ObjectTimelineView | null = null;
  /** The object key a share link opens on, shown when the Timeline is first drawn. */
  private wantedKey: string | undefined;

  constructor(private readonly checker: Checker, private readonly loaded: LoadedHistory) {}

  async renderHistory(body: HTMLElement, view: InView) {
    this.history ??= await this.make(body, 'history', async () =>
      new HistoryView(this.loaded, await this.checker.sessions(), (b, e) => this.checker.transactions(b, e), (q) => this.find(q), () => this.checker.names()));
    if (!this.history || !body.isConnected) return;
    const a = view.anomaly;
    body.append(h('p', { class: 'muted', style: 'margin:0 0 10px' }, a ? `Transactions of the selected ${describeKind(a.kind).title.toLowerCase()} are highlighted. ` : '', 'Arrow keys move between transactions.'));
    body.append(this.history.el);
    this.history.setHighlight(a ? a.transactions.map((t) => t.txn).filter((t): t is number => t !== undefined) : []);
    this.history.schedule();
  }

  async renderTimeline(body: HTMLElement, view: InView) {
    this.timeline ??= await this.make(body, 'timeline', async () => {
      const data = await this.checker.timeline();
      const host = { transactions: (b: number, e: number) => this.checker.transactions(b, e), readers: (t: number) => this.checker.readers(t), find: (q: string) => this.find(q) };
      // an object history (Jepsen registers, key-value stores): one key at a time
      const tl = data.objectKeys ? new ObjectTimelineView(data, host, this.loaded) : new TimelineView(new TimelineModel(data), host, this.loaded);
      tl.fit();
      return tl;
    });
    if (!this.timeline || !body.isConnected) return;
    const a = view.anomaly;
    const ids = a ? a.transactions.map((t) => t.txn ?? 0) : [];
    this.timeline.setOverlay(ids.filter((t) => t > 0), (a?.edges ?? []).map((e) => ({ from: ids[e.from], to: ids[e.to], type: e.type })));
    // a passing LIN check's linearization, drawn as Porcupine draws it
    this.timeline.setLinearization(view.linearization);
    if (this.wantedKey !== undefined && this.timeline instanceof ObjectTimelineView) {
      this.timeline.showNamed(this.wantedKey);
      this.wantedKey = undefined;
    }
    body.append(h('p', { class: 'muted', style: 'margin:0 0 10px' },
      a ? `The ${describeKind(a.kind).title.toLowerCase()}'s transactions are outlined, with its dependencies. ` : '',
      view.linearization && !(this.timeline instanceof ObjectTimelineView) ? 'The linearization: each operation takes effect at its tick, in the numbered order. ' : '',
      'Wheel or + and - zoom, drag or the arrows pan, click a transaction for its operations.'));
    body.append(this.timeline.el);
    this.timeline.schedule();
  }

  /** The object key the Timeline shows (undefined before it is drawn, or for transactions). */
  get keyInView(): string | undefined {
    return this.timeline instanceof ObjectTimelineView ? this.timeline.keyInView : this.wantedKey;
  }

  /** Opens the Timeline of an object history on this key (a share link's). */
  preferKey(key: string | undefined) { this.wantedKey = key; }

  /** Highlights ids in the History and scrolls to txn, once the view is on the page. */
  revealInHistory(ids: number[], txn: number | undefined) {
    const go = () => {
      this.history?.setHighlight(ids);
      if (txn !== undefined) this.history?.reveal(txn, ids);
      this.history?.el.scrollIntoView({ block: 'nearest' });
    };
    // the view appears asynchronously the first time
    const tick = (n: number) => (this.history?.el.isConnected ? go() : n > 0 && setTimeout(() => tick(n - 1), 50));
    tick(100);
  }

  /**
   * The search of both views: `k7`, `key 7` or `key:7` find the transactions touching key 7;
   * `T12` or `12` the transaction numbered 12 (and those labelled so); anything else a label,
   * then a key.
   */
  private async find(query: string): Promise<FoundTxn[]> {
    const key = /^(?:k|key[\s:=]*)\s*(\S.*)$/i.exec(query);
    if (key && (/^key/i.test(query) || /^k\d/i.test(query))) {
      // k7 is key 7, or a key named "k7"
      const [a, b] = await Promise.all([this.checker.find(key[1]), this.checker.find(query)]);
      const seen = new Set<number>();
      return [...a, ...b].filter((f) => f.match === 'key' && !seen.has(f.txn) && seen.add(f.txn));
    }
    const n = /^(?:T|#)?(\d+)$/i.exec(query);
    if (n) {
      const t = this.loaded.names.txnByNumber(Number(n[1]));
      const byNumber: FoundTxn[] = t !== undefined && t >= 1 && t <= this.loaded.stats.transactions ? [{ txn: t, match: 'number' }] : [];
      return [...byNumber, ...(await this.checker.find(query)).filter((f) => f.match === 'label')];
    }
    return this.checker.find(query);
  }

  /** A view built once per history: a spinner meanwhile, a reason if it fails. */
  private async make<T>(body: HTMLElement, what: string, build: () => Promise<T>): Promise<T | null> {
    body.append(h('div', { class: 'loading muted' }, h('div', { class: 'spinner' }), `Loading the ${what}\u2026`));
    try {
      const view = await build();
      clear(body);
      return view;
    } catch (e) {
      clear(body);
      body.append(h('p', { class: 'reason' }, `The ${what} is not available: ${(e as Error).message}`));
      return null;
    }
  }
}
