// <isoscope-check src="history.json" levels="SI,SER"></isoscope-check>
// One script tag: <script type="module" src="https://your.host/isoscope/embed.js"></script>
// Fetches src (same origin as the page, or CORS-enabled), checks it in a worker running the wasm
// core, and shows the verdict ladder and the anomalies' explanations in a shadow root. A Hermitage
// table (`isoscope hermitage --json`, model/hermitage.ts) is shown as its table (hermitage.ts).
import css from '../styles.css?inline';
import { Checker } from '../check/checker';
import type { InputStats, LevelInfo } from '../core/types';
import { describeKind } from '../model/anomalies';
import { readHermitage } from '../model/hermitage';
import { finishedResults, isBusy, LEVEL_DOCS, summarize, type LevelState } from '../model/levels';
import { renderLadder } from '../ui/ladder';
import { h, clear } from '../dom/dom';
import { encodeFragment, MAX_LINK_CHARS } from '../share/share';
import { showHermitageTable } from './hermitage';

const EXTRA = `
:host { display: block; font: 14px/1.5 var(--sans); color: var(--text); }
.box { background: var(--surface); border: 1px solid var(--border); border-radius: 12px; padding: 12px; box-shadow: var(--shadow); }
.top { display: flex; align-items: baseline; gap: 10px; padding: 2px 6px 8px; border-bottom: 1px solid var(--border); margin-bottom: 6px; }
.top strong { font-size: 14px; }
.brandmark { font-weight: 700; color: var(--accent); }
.anom { margin: 10px 6px 2px; }
.anom h4 { font-size: 13.5px; margin: 0; }
.anom p { margin: 2px 0 0; font-size: 13px; }
.level { cursor: default; }
.open-in-app { margin: 10px 6px 2px; font-size: 13px; }
`;

/**
 * The shared stylesheet for a shadow root: its :root rules become :host rules. The theme follows
 * the page's prefers-color-scheme unless the element's theme attribute says "light" or "dark"
 * (`:host(...)`, since a bare :host takes no compound selector).
 */
export function hostStyles(sheet: string): string {
  return sheet
    .replace(/:root:not\(\[data-theme="?light"?\]\)/g, ':host(:not([theme="light"]))')
    .replace(/:root\[data-theme="?dark"?\]/g, ':host([theme="dark"])')
    .replace(/:root/g, ':host');
}

export class IsoscopeCheck extends HTMLElement {
  static observedAttributes = ['src', 'levels', 'format', 'budget'];
  private checker: Checker | null = null;
  private box: HTMLElement;
  private gen = 0;

  constructor() {
    super();
    const root = this.attachShadow({ mode: 'open' });
    root.append(h('style', {}, hostStyles(css) + EXTRA));
    this.box = h('div', { class: 'box', part: 'box' });
    root.append(this.box);
  }

  connectedCallback() { void this.start(); }
  disconnectedCallback() { this.checker?.dispose(); this.checker = null; }
  attributeChangedCallback() { if (this.isConnected) void this.start(); }

  private status(msg: string, error = false) {
    clear(this.box);
    this.box.append(h('div', { class: error ? 'error' : 'loading muted', role: error ? 'alert' : 'status' }, error ? null : h('div', { class: 'spinner' }), msg));
  }

  /**
   * "Open in isoscope": the full app (beside embed.js, on its own origin) with this history in
   * the link's fragment, opened on the weakest failing level. Histories too large for a link
   * get a link to the app alone.
   */
  private async openInAppLink(checker: Checker, gen: number, level: string | undefined) {
    const app = new URL('./', import.meta.url);
    let href = app.href;
    try {
      const fragment = encodeFragment({ history: await checker.convert('isoscope'), view: { level, anomaly: 0, tab: 'anomaly' } });
      if (fragment.length < MAX_LINK_CHARS) href = `${app.href}#${fragment}`;
    } catch { /* the app alone */ }
    if (gen !== this.gen) return;
    this.box.append(h('div', { class: 'open-in-app' }, h('a', { href, target: '_blank', rel: 'noopener', part: 'open-link' }, 'Open in isoscope \u2197')));
  }

  private async start() {
    const gen = ++this.gen;
    const src = this.getAttribute('src');
    this.checker?.dispose();
    if (!src) { this.status('isoscope-check: set the src attribute', true); return; }
    this.status(`Checking ${src}\u2026`);
    let data: ArrayBuffer;
    try {
      // the bytes the server holds now: never from a cache, never stored (public/sw.js leaves
      // no-store requests alone)
      const res = await fetch(new URL(src, document.baseURI), { cache: 'no-store' });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      data = await res.arrayBuffer();
    } catch (e) {
      // a TypeError is the browser refusing the response: another origin without CORS, or no server
      const why = e instanceof TypeError
        ? 'the request was refused (a history on another site must be served with CORS: Access-Control-Allow-Origin)'
        : (e as Error).message;
      if (gen === this.gen) this.status(`Could not fetch ${src}: ${why}`, true);
      return;
    }
    if (gen !== this.gen) return;
    if (!this.getAttribute('format') && this.showHermitage(data)) return;
    const checker = (this.checker = new Checker(false));
    let input: InputStats;
    try {
      input = await checker.load([{ name: src.split('/').pop() || 'history', data }], this.getAttribute('format') ?? '');
    } catch (e) {
      if (gen === this.gen) this.status((e as Error).message, true);
      return;
    }
    if (gen !== this.gen) return;
    let infos: LevelInfo[];
    try { infos = await checker.levels(); } catch (e) { this.status(String(e), true); return; }
    const wanted = (this.getAttribute('levels') ?? '').split(',').map((s) => s.trim()).filter(Boolean);
    const shown = wanted.length ? infos.filter((i) => wanted.includes(i.level)) : infos;
    const known = shown.map((i) => i.level);
    const results: Record<string, LevelState> = {};
    for (const i of shown) if (!i.applies) results[i.level] = { verdict: 'n/a', reason: i.reason };
    const render = () => {
      if (gen !== this.gen) return;
      clear(this.box);
      const busy = Object.values(results).some(isBusy);
      this.box.append(h('div', { class: 'top' }, h('span', { class: 'brandmark' }, 'isoscope'), h('strong', {}, busy ? 'Checking\u2026' : summarize(finishedResults(results), known)),
        h('span', { class: 'muted' }, `${input.format} \u00b7 ${input.transactions.toLocaleString('en-US')} transactions`)));
      this.box.append(renderLadder({ known, results }));
      for (const l of known) {
        const a = results[l]?.anomalies?.[0];
        if (!a) continue;
        const k = describeKind(a.kind);
        this.box.append(h('div', { class: 'anom explain' }, h('h4', {}, `${l} (${LEVEL_DOCS[l]?.name ?? l}): ${k.title}`), k.summary ? h('p', {}, k.summary) : null, a.explanation ? h('p', { class: 'core' }, a.explanation) : null));
        break; // the weakest failing level's anomaly says the most
      }
      this.dataset.state = busy ? 'checking' : 'done';
    };
    render();
    await checker.run({
      levels: shown.filter((i) => i.applies).map((i) => i.level),
      budgetMs: Number(this.getAttribute('budget') ?? 10000) || 10000,
      maxAnomalies: 1,
      onUpdate: (l, st) => { results[l] = st; render(); },
    });
    render();
    await this.openInAppLink(checker, gen, known.find((l) => results[l]?.verdict === 'fail'));
    this.dispatchEvent(new CustomEvent('isoscope-done', { detail: { results }, bubbles: true }));
  }

  /** A Hermitage table: its table (true), or its error; false when data is not one. */
  private showHermitage(data: ArrayBuffer): boolean {
    try {
      const table = readHermitage(data);
      if (!table) return false;
      showHermitageTable(this.box, table);
      this.dataset.state = 'done';
      this.dispatchEvent(new CustomEvent('isoscope-done', { detail: { hermitage: table }, bubbles: true }));
    } catch (e) {
      this.status((e as Error).message, true);
    }
    return true;
  }
}

if (!customElements.get('isoscope-check')) customElements.define('isoscope-check', IsoscopeCheck);
