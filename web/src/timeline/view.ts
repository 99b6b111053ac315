// The timeline: one lane per session on a real-time axis, drawn on a canvas. Only what is in
// view is drawn, merged to a bar per pixel when zoomed out (model/timeline.ts), so 10^6
// transactions pan and zoom at frame rate. The selected anomaly's transactions are outlined and
// its dependencies drawn between them; a click shows a transaction's operations with the
// transactions it read from and those that read its writes.
import type { FoundTxn, Txn, WriteReaders } from '../core/types';
import { fmtOp } from '../model/ops';
import { STATUS_ABORTED, STATUS_UNKNOWN, ticks, type Fault, type TimelineModel } from '../model/timeline';
import { clear, h } from '../dom/dom';
import { matchList, searchForm } from '../dom/search';
import type { LoadedHistory } from '../model/loaded';

const LANE_H = 22;
const LABEL_W = 92;
const AXIS_H = 26;
const MAX_HEIGHT = 520;

export interface TimelineHost {
  transactions(begin: number, end: number): Promise<Txn[]>;
  readers(txn: number): Promise<WriteReaders[]>;
  /** a search: by number (T12), label or key */
  find(query: string): Promise<FoundTxn[]>;
}
export interface OverlayEdge { from: number; to: number; type: string }

export class TimelineView {
  readonly el: HTMLElement;
  private canvas: HTMLCanvasElement;
  private detail: HTMLElement;
  // the view: times [a, b] across the plot, lanes from `top` (a lane index, fractional)
  private a: number;
  private b: number;
  private top = 0;
  private raf = 0;
  private selected = -1;
  private outlined = new Set<number>();
  private edges: OverlayEdge[] = [];
  /** LIN's witness: each operation's linearization point, in the linearization's order */
  private points: { txn: number; t: number }[] = [];

  /** history: the one shown (what its transactions and sessions are called, its times' unit) */
  constructor(private readonly model: TimelineModel, private readonly host: TimelineHost, private readonly history: LoadedHistory) {
    this.a = model.t0;
    this.b = model.t1;
    const faults = model.data.faults ?? [];
    this.canvas = h('canvas', { class: 'tl-canvas', tabindex: 0, role: 'img',
      'aria-label': 'Timeline: sessions as lanes on a real-time axis. Plus and minus zoom, arrows pan, 0 fits, Enter selects the transaction in the middle.' });
    const form = h('div', { class: 'tl-tools' }, searchForm('timeline-search', (q) => void this.find(q)),
      this.button('Fit', () => this.fit(), 'timeline-fit'), this.button('+', () => this.zoom(0.5), 'timeline-zoom-in', 'Zoom in'),
      this.button('\u2212', () => this.zoom(2), 'timeline-zoom-out', 'Zoom out'),
      (this.anomalyButton = this.button('Zoom to the anomaly', () => this.zoomToAnomaly(), 'timeline-anomaly')),
      h('span', { class: 'muted tl-count' }, `${model.timed.toLocaleString('en-US')} transactions with times`));
    this.detail = h('aside', { class: 'hv-detail tl-detail', 'aria-live': 'polite' }, h('p', { class: 'muted' }, 'Click a transaction to see its operations.'));
    const key = (cls: string, label: string) => h('span', { class: 'tl-key' }, h('span', { class: `tl-swatch ${cls}`, 'aria-hidden': 'true' }), label);
    const legend = h('div', { class: 'tl-legend', id: 'timeline-legend', 'aria-label': 'Legend' },
      key('committed', 'committed'), key('aborted', 'aborted'), key('unknown', 'unknown outcome'), key('outlined', 'in the anomaly'),
      ...(faults.some((f) => f.kind === 'crash') ? [key('fault-crash', 'server crashed')] : []),
      ...(faults.some((f) => f.kind !== 'crash') ? [key('fault-pause', 'server paused')] : []),
      h('span', { class: 'muted' }, 'Bars span start to end; lanes are sessions.'));
    // The faults in words too (the canvas draws them as bands): what happened when.
    const faultList = faults.length
      ? h('details', { class: 'tl-faults', id: 'timeline-faults' },
        h('summary', {}, `${faults.length} fault${faults.length === 1 ? '' : 's'} during the run`),
        h('ul', {}, ...faults.map((f) => h('li', {}, `${f.kind}${f.node ? ` of ${f.node}` : ''} from ${history.formatTime(f.start)} to ${history.formatTime(f.end)}`))))
      : null;
    this.el = h('div', { class: 'tl' }, form, legend, ...(faultList ? [faultList] : []), h('div', { class: 'tl-main' }, this.canvas, this.detail));
    this.anomalyButton.hidden = true;
    this.listen();
    new ResizeObserver(() => this.schedule()).observe(this.canvas);
  }

  private button(label: string, f: () => void, id: string, name?: string) {
    const b = h('button', { class: 'btn sm', type: 'button', id, 'aria-label': name ?? null, title: name ?? null }, label);
    b.addEventListener('click', f);
    return b;
  }

  /** Outlines the anomaly's transactions and draws its dependencies. */
  setOverlay(txns: number[], edges: OverlayEdge[]) {
    this.outlined = new Set(txns);
    this.edges = edges;
    this.anomalyButton.hidden = this.outlined.size === 0;
    this.schedule();
  }

  private anomalyButton: HTMLElement;
  /** Frames the anomaly's transactions (a speck at the left edge of a long history otherwise). */
  zoomToAnomaly() {
    const { start, end, session } = this.model.data;
    let a = Infinity, b = -Infinity, lo = Infinity, hi = -Infinity;
    for (const t of this.outlined) {
      const i = this.model.indexOf(t);
      if (i < 0 || Number.isNaN(start[i])) continue;
      a = Math.min(a, start[i]); b = Math.max(b, end[i]);
      lo = Math.min(lo, session[i]); hi = Math.max(hi, session[i]);
    }
    if (!(b >= a)) return;
    const pad = Math.max((b - a) * 0.25, 1e-9 * Math.max(1, Math.abs(a)), 1);
    this.a = a - pad;
    this.b = b + pad;
    this.top = Math.max(0, Math.min((lo + hi) / 2 - this.visibleLanes / 2 + 0.5, Math.max(0, this.model.lanes.length - this.visibleLanes + 0.5)));
    this.schedule();
  }

  /**
   * Shows a linearization (a passing LIN check's order) as Porcupine does: each operation
   * takes effect at a point inside its interval, max(its start, the previous point), joined in
   * order. The points stay in their intervals because the order respects real time.
   */
  setLinearization(order: number[] | null) {
    this.points = [];
    let prev = -Infinity;
    for (const txn of order ?? []) {
      const i = this.model.indexOf(txn);
      if (i < 0 || i >= this.model.data.start.length || Number.isNaN(this.model.data.start[i])) continue;
      prev = Math.max(prev, this.model.data.start[i]);
      this.points.push({ txn, t: prev });
    }
    this.canvas.dataset.linearization = String(this.points.length);
    this.schedule();
  }

  schedule() {
    if (!this.raf) this.raf = requestAnimationFrame(() => { this.raf = 0; this.draw(); });
  }

  private get plotWidth() { return Math.max(50, this.canvas.clientWidth - LABEL_W); }
  private get visibleLanes() { return Math.max(1, (this.canvas.clientHeight - AXIS_H) / LANE_H); }
  private x(t: number) { return LABEL_W + ((t - this.a) / (this.b - this.a)) * this.plotWidth; }
  private laneY(s: number) { return AXIS_H + (s - this.top) * LANE_H; }

  private draw() {
    const c = this.canvas;
    const lanes = this.model.lanes.length;
    const cssH = Math.min(MAX_HEIGHT, AXIS_H + lanes * LANE_H + 4);
    if (c.style.height !== `${cssH}px`) c.style.height = `${cssH}px`;
    const dpr = window.devicePixelRatio || 1;
    const W = c.clientWidth, H = c.clientHeight;
    if (c.width !== Math.round(W * dpr) || c.height !== Math.round(H * dpr)) { c.width = Math.round(W * dpr); c.height = Math.round(H * dpr); }
    const g = c.getContext('2d');
    if (!g) return;
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    const css = getComputedStyle(c);
    const v = (n: string, d: string) => css.getPropertyValue(n).trim() || d;
    const col = { bg: v('--surface', '#fff'), lane: v('--surface-2', '#f6f7f9'), text: v('--text', '#111'), muted: v('--muted', '#555'),
      ok: v('--accent', '#4f46e5'), aborted: v('--aborted', '#8d96a5'), unknown: v('--unknown', '#b54708'), hi: v('--text', '#111'), border: v('--border', '#ddd') };
    g.fillStyle = col.bg;
    g.fillRect(0, 0, W, H);
    // lanes in view
    const first = Math.max(0, Math.floor(this.top)), last = Math.min(lanes, Math.ceil(this.top + this.visibleLanes));
    const scale = this.plotWidth / (this.b - this.a);
    // faults: bands behind the lanes, from the fault's start to its end (at least 2 px wide)
    const faults = this.model.data.faults ?? [];
    const faultColor = (f: Fault) => (f.kind === 'crash' ? v('--fault-crash', '#d92d20') : v('--fault-pause', '#f79009'));
    const band = (f: Fault) => {
      const x0 = Math.max(LABEL_W, this.x(f.start)), x1 = Math.min(W, Math.max(this.x(f.end), this.x(f.start) + 2));
      return x1 > x0 ? [x0, x1] : null;
    };
    let bands = 0;
    for (const f of faults) {
      const xs = band(f);
      if (!xs) continue;
      g.fillStyle = faultColor(f);
      g.globalAlpha = 0.14;
      g.fillRect(xs[0], AXIS_H, xs[1] - xs[0], H - AXIS_H);
      g.globalAlpha = 1;
      bands++;
    }
    g.font = '11px ui-monospace, SFMono-Regular, Menlo, monospace';
    g.textBaseline = 'middle';
    let drawn = 0;
    for (let s = first; s < last; s++) {
      const y = this.laneY(s);
      if (s % 2) { g.fillStyle = col.lane; g.fillRect(LABEL_W, y, W - LABEL_W, LANE_H); }
      g.fillStyle = col.muted;
      g.fillText(this.model.data.laneNames?.[s] ?? `session ${this.history.names.sessionNumber(s)}`, 6, y + LANE_H / 2, LABEL_W - 8);
      for (const bar of this.model.bars(s, this.a, this.b, scale)) {
        g.fillStyle = bar.status === STATUS_ABORTED ? col.aborted : bar.status === STATUS_UNKNOWN ? col.unknown : col.ok;
        const x0 = LABEL_W + Math.max(bar.x0, -2), x1 = LABEL_W + Math.min(bar.x1, W);
        g.globalAlpha = bar.count > 1 ? 0.55 : 0.85;
        g.fillRect(x0, y + 4, Math.max(1, x1 - x0), LANE_H - 8);
        g.globalAlpha = 1;
        drawn++;
        // a linearization's numbers take the bars' place (they would overprint the names)
        if (bar.count === 1 && x1 - x0 > 34 && !this.points.length) {
          g.fillStyle = col.bg;
          g.fillText(this.history.names.txnName(bar.txn), x0 + 4, y + LANE_H / 2, x1 - x0 - 6);
        }
      }
    }
    // the anomaly's transactions and dependencies, and the selection, on top
    for (const t of this.outlined) this.outline(g, t, col.hi, 2);
    if (this.selected > 0) this.outline(g, this.selected, col.ok, 3);
    for (const e of this.edges) {
      const p = this.center(e.from), q = this.center(e.to);
      if (!p || !q) continue;
      g.strokeStyle = v(`--edge-${e.type.toLowerCase()}`, col.muted);
      g.lineWidth = 1.5;
      g.beginPath();
      g.moveTo(p.x, p.y);
      g.bezierCurveTo(p.x + 30, p.y, q.x - 30, q.y, q.x, q.y);
      g.stroke();
    }
    if (this.points.length) this.drawLinearization(g, v('--accent', '#4f46e5'), col.text);
    // the axis over the lanes, and the label column's edge
    g.fillStyle = col.bg;
    g.fillRect(0, 0, W, AXIS_H);
    g.fillStyle = col.muted;
    g.strokeStyle = col.border;
    g.lineWidth = 1;
    const marks = ticks(this.a, this.b, Math.max(2, Math.floor(this.plotWidth / 110)));
    const step = marks.length > 1 ? marks[1] - marks[0] : Math.max(1e-9, this.b - this.a);
    const labels: string[] = [];
    for (const t of marks) {
      const x = this.x(t);
      labels.push(this.history.formatTime(t, step));
      g.fillText(labels[labels.length - 1], x + 3, AXIS_H / 2);
      g.beginPath(); g.moveTo(x + 0.5, AXIS_H - 6); g.lineTo(x + 0.5, H); g.globalAlpha = 0.35; g.stroke(); g.globalAlpha = 1;
    }
    g.beginPath(); g.moveTo(LABEL_W - 0.5, 0); g.lineTo(LABEL_W - 0.5, H); g.moveTo(0, AXIS_H - 0.5); g.lineTo(W, AXIS_H - 0.5); g.stroke();
    // each fault's band marked on the axis, named where it is wide enough
    for (const f of faults) {
      const xs = band(f);
      if (!xs) continue;
      g.fillStyle = faultColor(f);
      g.fillRect(xs[0], AXIS_H - 5, xs[1] - xs[0], 4);
      if (xs[1] - xs[0] > 60) g.fillText(`${f.kind}${f.node ? ` ${f.node}` : ''}`, xs[0] + 3, AXIS_H + 8, xs[1] - xs[0] - 6);
    }
    c.dataset.faults = String(bands); // for tests: the fault bands in view
    c.dataset.view = `${this.a},${this.b},${this.top}`; // for tests: what is on screen
    // for tests: how many bars the frame drew (close bars share a pixel's bar: bounded by the
    // lanes in view times the plot's width, whatever the history's size)
    c.dataset.drawn = String(drawn);
    c.dataset.lanes = String(last - first);
    c.dataset.ticks = labels.join('|');
  }

  private drawLinearization(g: CanvasRenderingContext2D, color: string, text: string) {
    // only the points in view (they are sorted by time)
    let k = 0;
    while (k < this.points.length && this.points[k].t < this.a) k++;
    const first = Math.max(0, k - 1);
    let prev: { x: number; y: number } | null = null;
    g.strokeStyle = color;
    g.fillStyle = text;
    g.lineWidth = 1.25;
    for (let i = first; i < this.points.length && (i === first || this.points[i - 1].t <= this.b); i++) {
      const p = this.points[i];
      const r = this.rect(p.txn);
      if (!r) { prev = null; continue; }
      const x = this.x(p.t), y = r.y + LANE_H / 2;
      g.setLineDash([]);
      g.beginPath(); g.moveTo(x, r.y + 2); g.lineTo(x, r.y + LANE_H - 2); g.stroke();
      if (prev) { g.setLineDash([3, 3]); g.beginPath(); g.moveTo(prev.x, prev.y); g.lineTo(x, y); g.stroke(); }
      g.fillText(String(i + 1), x + 3, r.y + 6);
      prev = { x, y };
    }
    g.setLineDash([]);
  }

  private rect(txn: number) {
    const i = this.model.indexOf(txn);
    const { start, end, session } = this.model.data;
    if (i < 0 || i >= start.length || Number.isNaN(start[i])) return null;
    const y = this.laneY(session[i]);
    if (y < AXIS_H - LANE_H || y > this.canvas.clientHeight) return null;
    return { x0: this.x(start[i]), x1: Math.max(this.x(end[i]), this.x(start[i]) + 2), y };
  }
  private center(txn: number) {
    const r = this.rect(txn);
    return r ? { x: (r.x0 + r.x1) / 2, y: r.y + LANE_H / 2 } : null;
  }
  private outline(g: CanvasRenderingContext2D, txn: number, color: string, width: number) {
    const r = this.rect(txn);
    if (!r) return;
    g.strokeStyle = color;
    g.lineWidth = width;
    g.strokeRect(r.x0 - 1, r.y + 2, r.x1 - r.x0 + 2, LANE_H - 4);
  }

  // ---------- interaction ----------
  private zoom(factor: number, atX = LABEL_W + this.plotWidth / 2) {
    const t = this.a + ((atX - LABEL_W) / this.plotWidth) * (this.b - this.a);
    const span = Math.max((this.b - this.a) * factor, 1e-9 * Math.max(1, Math.abs(t)));
    const full = (this.model.t1 - this.model.t0) * 1.5;
    const s = Math.min(span, full);
    const k = (t - this.a) / (this.b - this.a);
    this.a = t - k * s;
    this.b = this.a + s;
    this.schedule();
  }
  private pan(dx: number, dLanes: number) {
    const dt = (dx / this.plotWidth) * (this.b - this.a);
    this.a += dt;
    this.b += dt;
    this.top = Math.max(0, Math.min(Math.max(0, this.model.lanes.length - this.visibleLanes + 0.5), this.top + dLanes));
    this.schedule();
  }
  fit() {
    const pad = (this.model.t1 - this.model.t0) * 0.02;
    this.a = this.model.t0 - pad;
    this.b = this.model.t1 + pad;
    this.top = 0;
    this.schedule();
  }

  /** Centres transaction txn (zoomed in enough to see it) and selects it. */
  reveal(txn: number) {
    const i = this.model.indexOf(txn);
    const { start, end, session } = this.model.data;
    if (i < 0 || i >= start.length || Number.isNaN(start[i])) { this.showNote(`${this.history.names.txnName(txn)} has no timestamps.`); return; }
    const span = Math.min(this.b - this.a, Math.max((end[i] - start[i]) * 12, 1e-9));
    const mid = (start[i] + end[i]) / 2;
    this.a = mid - span / 2;
    this.b = mid + span / 2;
    this.top = Math.max(0, session[i] - Math.floor(this.visibleLanes / 2));
    void this.select(txn);
  }

  private async find(query: string) {
    const found = await this.host.find(query);
    if (found.length) this.reveal(found[0].txn);
    else clear(this.detail);
    // the matches stay listed under the selection's details
    const list = matchList(query, found, (t) => this.reveal(t), (t) => this.history.names.txnName(t));
    this.matches = list;
    this.detail.prepend(list);
  }
  private matches: HTMLElement | null = null;

  private showNote(text: string) {
    clear(this.detail);
    this.detail.append(h('p', { class: 'muted' }, text));
  }

  private listen() {
    const c = this.canvas;
    c.addEventListener('wheel', (e) => {
      e.preventDefault();
      if (e.shiftKey) this.pan(0, e.deltaY / LANE_H);
      else if (Math.abs(e.deltaX) > Math.abs(e.deltaY)) this.pan(e.deltaX, 0);
      else this.zoom(Math.exp(e.deltaY * 0.002), e.offsetX);
    }, { passive: false });
    let drag: { x: number; y: number; moved: boolean } | null = null;
    c.addEventListener('pointerdown', (e) => { drag = { x: e.clientX, y: e.clientY, moved: false }; c.setPointerCapture(e.pointerId); });
    c.addEventListener('pointermove', (e) => {
      if (!drag) return;
      const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
      if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
      if (drag.moved) { this.pan(-dx, -dy / LANE_H); drag.x = e.clientX; drag.y = e.clientY; }
    });
    c.addEventListener('pointerup', (e) => {
      const clicked = drag && !drag.moved;
      drag = null;
      if (!clicked) return;
      const lane = Math.floor(this.top + (e.offsetY - AXIS_H) / LANE_H);
      const t = this.a + ((e.offsetX - LABEL_W) / this.plotWidth) * (this.b - this.a);
      const txn = e.offsetY > AXIS_H && e.offsetX > LABEL_W ? this.model.hit(lane, t, (4 / this.plotWidth) * (this.b - this.a)) : -1;
      if (txn > 0) void this.select(txn);
    });
    c.addEventListener('keydown', (e) => {
      const step = this.plotWidth / 8;
      const keys: Record<string, () => void> = {
        '+': () => this.zoom(0.5), '=': () => this.zoom(0.5), '-': () => this.zoom(2), '0': () => this.fit(),
        ArrowLeft: () => this.pan(-step, 0), ArrowRight: () => this.pan(step, 0), ArrowUp: () => this.pan(0, -1), ArrowDown: () => this.pan(0, 1),
        Enter: () => {
          const lane = Math.floor(this.top + this.visibleLanes / 2);
          const txn = this.model.hit(Math.min(lane, this.model.lanes.length - 1), (this.a + this.b) / 2, (this.b - this.a) / 2);
          if (txn > 0) void this.select(txn);
        },
      };
      const f = keys[e.key];
      if (f) { e.preventDefault(); f(); }
    });
  }

  /** Shows txn's operations, where each read's value came from, and who read each write. */
  async select(txn: number) {
    this.selected = txn;
    this.canvas.dataset.selected = String(txn);
    this.schedule();
    let t: Txn | undefined, readers: WriteReaders[] = [];
    try {
      [[t], readers] = await Promise.all([this.host.transactions(txn, txn + 1), this.host.readers(txn)]);
    } catch { /* shown as unavailable below */ }
    if (this.selected !== txn) return;
    clear(this.detail);
    if (this.matches) this.detail.append(this.matches);
    if (!t) { this.showNote(`${this.history.names.txnName(txn)} is not available.`); return; }
    const link = (other: number) => {
      const b = h('button', { class: 'txlink', type: 'button' }, this.history.names.txnName(other));
      b.addEventListener('click', () => this.reveal(other));
      return b;
    };
    const readBy = new Map(readers.map((r) => [r.position, r.readers]));
    this.detail.append(
      h('h3', {}, this.history.names.txnName(t.txn), t.id ? h('span', { class: 'muted' }, ` \u00b7 ${t.id}`) : null),
      h('dl', { class: 'kv' },
        h('dt', {}, 'Session'), h('dd', {}, `${this.history.names.sessionNumber(t.session)} \u00b7 #${this.history.names.positionOf(t.txn, t.index)}`),
        h('dt', {}, 'Status'), h('dd', {}, t.status ?? 'committed'),
        t.start !== undefined ? [h('dt', {}, 'Time'), h('dd', {}, this.history.formatSpan(t.start, t.end!))] : null),
      h('ol', { class: 'ops tl-ops' }, t.ops.slice(0, 500).map((op, i) => {
        const from = t!.read_from?.[i];
        const by = readBy.get(i) ?? [];
        return h('li', {}, fmtOp(op),
          from === undefined || from === null ? null
            : Array.isArray(from) ? h('span', { class: 'muted' }, ' \u00b7 written by ', ...from.flatMap((w, k) => [k ? (k + 1 === from.length ? ' or ' : ', ') : '', w === 0 ? 'the initial transaction' : link(w)]))
            : from === 0 ? h('span', { class: 'muted' }, ' \u00b7 the initial value')
            : from < 0 ? h('span', { class: 'muted' }, ' \u00b7 written by no one')
            : h('span', { class: 'muted' }, ' \u00b7 written by ', link(from)),
          op[0] !== 'r' ? h('span', { class: 'muted' }, by.length ? [' \u00b7 read by ', ...by.slice(0, 20).flatMap((r, k) => [k ? ', ' : '', link(r)]), by.length > 20 ? ` and ${by.length - 20} more` : ''] : ' \u00b7 read by no one') : null);
      })));
  }
}
