// The anomaly panel's body: the kind in plain words, the diagram of the witness (laid out in a
// worker, drawn as SVG with pan, zoom and exports) and its dependencies, each with its reason.
import { keyText } from '../model/ops';
import type { Anomaly, Txn } from '../core/types';
import { describeKind, EDGE_DOCS } from '../model/anomalies';
import { buildDiagram, EDGE_TYPES, toDot, type Diagram } from '../diagram/model';
import { layout } from '../diagram/layout';
import { attachPanZoom, palette, pngBlob, renderSvg, svgText } from '../diagram/render';
import { clear, download, h, toast } from '../dom/dom';
import { icon } from '../dom/icons';
import type { Names } from '../model/names';

/** Witnesses larger than this are summarised with a download instead of drawn. */
const MAX_DRAWN_TXNS = 200;
const MAX_EXPLANATION_CHARS = 20_000;

/** What the panel needs from the page. */
export interface AnomalyHost {
  readonly embed: boolean;
  transactions(begin: number, end: number): Promise<Txn[]>;
  showInHistory(a: Anomaly, txn: number | undefined): void;
}

export class AnomalyView {
  private box: HTMLElement | null = null;
  /** the diagram laid out last, with the names of its history */
  private diagram: { d: Diagram; svg: SVGSVGElement | null; title: string; names: Names } | null = null;
  private pz: ReturnType<typeof attachPanZoom> | null = null;
  /** Witness transactions with their operations, fetched a few at a time. */
  private txnCache = new Map<number, Txn>();

  constructor(private readonly host: AnomalyHost) {}

  /** The anomaly's explanation, diagram (or, when too large, a summary) and dependencies; names: its history's. */
  render(body: HTMLElement, a: Anomaly, level: string, idx: number, names: Names) {
    const k = describeKind(a.kind);
    // the initial transaction is not one of the user's
    const userTxns = new Set(a.transactions.map((t) => t.txn).filter((t) => t !== 0)).size;
    const txLink = (i: number) => {
      const w = a.transactions[i];
      if (!w) return h('span', {}, '?');
      const label = w.txn !== undefined ? names.txnName(w.txn) : `s${w.session}#${w.index}`;
      if (w.txn === 0) return h('span', { class: 'mono', title: 'the initial transaction' }, 'T0 (initial)');
      const b = h('button', { class: 'txlink', type: 'button', title: `Show ${label} in the history` }, label);
      b.addEventListener('click', () => this.host.showInHistory(a, w.txn));
      return b;
    };
    body.append(h('div', { class: 'explain', id: 'explanation' },
      h('h3', {}, k.title, h('span', { class: 'muted' }, ` \u00b7 ${userTxns} transaction${userTxns === 1 ? '' : 's'}`)),
      k.summary ? h('p', {}, k.summary) : null,
      a.explanation ? h('p', { class: 'core' }, a.explanation.length > MAX_EXPLANATION_CHARS
        ? `${a.explanation.slice(0, MAX_EXPLANATION_CHARS)}\u2026 (the whole explanation is in the download)` : a.explanation) : null));
    const name = `isoscope-${level}-${a.kind}-${idx + 1}`;
    const edges = a.edges ?? [];
    const downloadWitness = () => download(`${name}.json`, new Blob([JSON.stringify(a, null, 1)], { type: 'application/json' }));
    if (a.transactions.length > MAX_DRAWN_TXNS) {
      // Too large to draw or list: a summary and the whole witness as a download.
      const b = h('button', { class: 'btn', type: 'button', id: 'download-witness' }, icon('download'), 'Download the witness (JSON)');
      b.addEventListener('click', downloadWitness);
      body.append(h('div', { class: 'witness-summary', id: 'diagram-summary' },
        h('p', {}, `This witness has ${a.transactions.length.toLocaleString('en-US')} transactions and ${edges.length.toLocaleString('en-US')} dependencies: too many to draw. `,
          'A share link carries its smallest reproducing part.'), b));
      this.box = null;
      return;
    }
    const legend = h('div', { class: 'legend', 'aria-label': 'Edge legend' }, EDGE_TYPES.map((t) => {
      const i = h('i', { class: t === 'SO' ? 'dash' : '' });
      i.style.borderTopColor = `var(--edge-${t.toLowerCase()})`;
      return h('span', { title: EDGE_DOCS[t] }, i, `${t} ${EDGE_DOCS[t].split(' (')[0]}`);
    }));
    // label: the visible text; name: the accessible name of a button that shows only an icon
    const tool = (label: string, ic: string, f: () => void, id?: string, name?: string) => {
      const b = h('button', { class: 'btn sm', type: 'button', id: id ?? null, 'aria-label': name ?? null, title: name ?? null }, icon(ic), label);
      b.addEventListener('click', f);
      return b;
    };
    const zoomBox = h('div', { class: 'diagram-box', id: 'diagram', tabindex: 0, role: 'figure', 'aria-label': `Diagram of the ${k.title} anomaly. Use + and - to zoom, arrows to pan, 0 to reset.` },
      h('div', { class: 'loading muted' }, h('div', { class: 'spinner' }), 'Laying out\u2026'));
    body.append(h('div', { class: 'diagram-tools' },
      tool('', 'zoomin', () => this.pz?.zoomIn(), undefined, 'Zoom in'), tool('', 'zoomout', () => this.pz?.zoomOut(), undefined, 'Zoom out'), tool('Fit', 'fit', () => this.pz?.reset()),
      tool('SVG', 'download', () => this.exportDiagram('svg', name), 'export-svg'), tool('PNG', 'download', () => this.exportDiagram('png', name), 'export-png'), tool('DOT', 'download', () => this.exportDiagram('dot', name), 'export-dot'),
      this.host.embed ? null : tool('Show in history', 'list', () => this.host.showInHistory(a, a.transactions.find((t) => (t.txn ?? 0) > 0)?.txn)),
      legend), zoomBox);
    if (edges.length) body.append(h('ol', { class: 'edges', 'aria-label': 'Dependencies' }, edges.map((e) => {
      const t = h('span', { class: 'etype' }, e.type);
      t.style.background = `var(--edge-${String(e.type).toLowerCase()}, var(--muted))`;
      return h('li', {}, txLink(e.from), t, txLink(e.to), e.key !== undefined ? h('span', { class: 'mono' }, `key ${keyText(e.key)}`) : null, e.why ? h('span', { class: 'muted' }, e.why) : null);
    })));
    this.box = zoomBox;
    void this.prepareDiagram(a, `${level}: ${k.title}`, names);
  }

  private async prepareDiagram(a: Anomaly, title: string, names: Names) {
    const ids = a.transactions.map((t) => t.txn).filter((t): t is number => t !== undefined && !this.txnCache.has(t));
    try {
      // fetch each witness transaction's ops (a few point queries, never the whole history)
      for (const id of [...new Set(ids)].slice(0, 200)) {
        const [t] = await this.host.transactions(id, id + 1);
        if (t) this.txnCache.set(id, t);
      }
    } catch { /* draw without ops */ }
    const d = await layout(buildDiagram(a, this.txnCache, names));
    this.diagram = { d, svg: null, title, names };
    await this.draw();
  }

  /** Draws (again: the theme changed) the diagram laid out last. */
  async draw() {
    const box = this.box;
    if (!this.diagram || !box || !box.isConnected) return;
    const svg = renderSvg(this.diagram.d, palette(), this.diagram.title, this.diagram.names);
    this.diagram.svg = svg;
    clear(box);
    const fresh = box.cloneNode(false) as HTMLElement; // drop old listeners
    const hadFocus = document.activeElement === box;
    box.replaceWith(fresh);
    if (hadFocus) fresh.focus();
    this.box = fresh;
    fresh.append(svg);
    this.pz = attachPanZoom(fresh, svg);
    fresh.dataset.ready = 'true';
  }

  private async exportDiagram(kind: 'svg' | 'png' | 'dot', name: string) {
    if (!this.diagram?.svg) return;
    const { d, svg, title, names } = this.diagram;
    try {
      if (kind === 'dot') download(`${name}.dot`, new Blob([toDot(d, names, title)], { type: 'text/vnd.graphviz' }));
      else if (kind === 'svg') download(`${name}.svg`, new Blob([svgText(svg, d)], { type: 'image/svg+xml' }));
      else download(`${name}.png`, await pngBlob(svgText(svg, d), d.width + 40, d.height + 10));
    } catch (e) {
      toast(`Export failed: ${(e as Error).message}`, 'error');
    }
  }
}
