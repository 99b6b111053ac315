// The isoscope page: load, check, verdict ladder, anomaly diagram, history, share, embed mode.
import { CoreCrash, CoreFailure } from '../core/result';
import type { Anomaly, InputStats, LevelInfo, ParseError } from '../core/types';
import { Checker } from '../check/checker';
import { startWarmUp } from '../worker/client';
import { describeKind } from '../model/anomalies';
import { finishedResults, formatCount, formatMs, LEVEL_DOCS, strongestSatisfied, summarize, type LevelState } from '../model/levels';
import { describeInput, formatBytes, InputError, totalBytes } from '../load/input';
import type { InFile } from '../worker/protocol';
import type { ViewState } from '../share/share';
import { decodeLink } from '../share/decode';
import type { ShareableAnomaly } from '../share/link';
import { openShareDialog } from './share-dialog';
import { keepLocally, keptLocally } from './local-input';
import { ofOriginal, setOrigin } from '../model/names';
import { setTimeUnit, timeUnitOf } from '../model/times';
import { clear, h, toast } from '../dom/dom';
import { pill, renderLadder } from './ladder';
import { AnomalyView, type AnomalyHost } from './anomaly-view';
import { exampleFiles, formatSelect, installDropAndPaste, renderLanding, type InputSources } from './landing';
import { Navigation } from './navigation';
import { RecordViews } from './record-views';
import { HistorySet, type SetPart } from './history-set';
import { icon } from '../dom/icons';

/** Anomaly tabs per page, and the most anomalies one level reports on request. */
const ANOMALY_PAGE = 20;
const MAX_ANOMALIES_SHOWN = 1000;
type Tab = 'anomaly' | 'history' | 'timeline';

export class App {
  /** ?embed: the compact iframe mode (no navigation, no History) */
  private readonly embed = new URLSearchParams(location.search).has('embed');
  private main: HTMLElement;
  private checker = new Checker(true);
  private files: InFile[] = [];
  private label = '';
  private input: InputStats | null = null;
  private infos: LevelInfo[] = [];
  private results: Record<string, LevelState> = {};
  private runId = 0;
  /** counts the inputs begun (a load, a share link's decoding): a link decoded late yields to a later input */
  private inputs = 0;
  private selected: string | undefined;
  private anomalyIndex = 0;
  private tab: Tab = 'anomaly';
  private userPicked = false;
  private pendingView: ViewState | null = null;
  /** The History and the Timeline of the loaded history */
  private records: RecordViews;
  private anomalyView: AnomalyView;
  private els: Record<string, HTMLElement> = {};
  private budgetS = 30;
  private readonly anomalyHost: AnomalyHost = {
    embed: this.embed,
    transactions: (b, e) => this.checker.transactions(b, e),
    showInHistory: (a, txn) => this.showInHistory(a, txn),
  };
  private readonly sources: InputSources = {
    load: (get: () => Promise<InFile[]>, format = '', address = '') => {
      // an input with no address (dropped, pasted) comes back from memory (Back, Forward) and,
      // after a reload, from this browser's IndexedDB (?input=local; never sent anywhere)
      const load = this.navigation.push('results', address || (this.embed ? '' : 'input=local'));
      void this.loadFrom(async () => {
        const files = await get();
        if (!address) {
          this.navigation.keep(load, files, format);
          if (!this.embed) void keepLocally(files, format);
        }
        return files;
      }, format);
    },
  };
  private readonly navigation = new Navigation({
    openFromParams: (p) => this.openFromParams(p),
    reopen: (files, format) => void this.load(files, format),
    showLanding: () => this.showLanding(),
  }, !this.embed);
  private sharedCounterexample = false;
  /** Sets of histories shown so far, checked: Back to one shows its table again at once. */
  private sets = new WeakMap<InFile[], HistorySet>();
  private set: HistorySet | null = null;

  constructor(root: HTMLElement) {
    this.anomalyView = new AnomalyView(this.anomalyHost);
    this.records = new RecordViews(this.checker, 0);
    const params = new URLSearchParams(location.search);
    if (this.embed) document.body.classList.add('embed');
    this.main = h('main', { class: 'wrap', id: 'main' });
    root.append(this.topbar(), this.main, h('div', { class: 'overlay', 'aria-hidden': 'true' }, h('div', {}, 'Drop to check this history')));
    if (!this.embed) root.append(h('footer', { class: 'foot' }, 'Histories never leave this page: checking runs locally in WebAssembly.'));
    installDropAndPaste(this.sources);
    window.addEventListener('hashchange', () => this.openFromHash());
    if (!this.openFromHash() && !this.openFromParams(params)) this.showLanding();
    startWarmUp();  // while the page waits for a file (a no-op once one is loading)
  }

  // ---------- chrome ----------
  private topbar() {
    const themeBtn = h('button', { class: 'btn ghost', type: 'button', id: 'theme-toggle', 'aria-label': 'Toggle light or dark theme', title: 'Toggle theme' }, icon('theme'));
    themeBtn.addEventListener('click', () => this.toggleTheme());
    const shareBtn = h('button', { class: 'btn', type: 'button', id: 'share', disabled: true, title: 'Copy a link that reproduces this result' }, icon('link'), h('span', { class: 'label' }, 'Share'));
    shareBtn.addEventListener('click', () => this.share());
    const openBtn = h('button', { class: 'btn', type: 'button', id: 'open-another' }, icon('upload'), h('span', { class: 'label' }, 'Open'));
    openBtn.addEventListener('click', () => this.goToLanding());
    this.els.share = shareBtn;
    const brand = h('a', { class: 'brand', href: this.embed ? './' : '#', target: this.embed ? '_blank' : null, rel: 'noopener' },
      h('img', { src: './favicon.svg', alt: '' }), 'isoscope', this.embed ? null : h('span', { class: 'tag' }, 'transaction isolation checker'));
    brand.addEventListener('click', (e) => { if (!this.embed) { e.preventDefault(); this.goToLanding(); } });
    return h('header', { class: 'topbar' }, brand, h('div', { class: 'spacer' }), this.embed ? null : openBtn, this.embed ? null : shareBtn, themeBtn);
  }

  private toggleTheme() {
    const cur = document.documentElement.dataset.theme ?? (matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light');
    const next = cur === 'dark' ? 'light' : 'dark';
    document.documentElement.dataset.theme = next;
    try { localStorage.setItem('isoscope-theme', next); } catch { /* private mode */ }
    void this.anomalyView.draw();
  }

  private goToLanding() {
    this.navigation.push('landing');
    this.showLanding();
  }

  // ---------- landing ----------
  private showLanding() {
    delete document.body.dataset.checked;
    this.checker.dispose();
    this.records = new RecordViews(this.checker, 0);
    this.anomalyView = new AnomalyView(this.anomalyHost);
    this.input = null;
    (this.els.share as HTMLButtonElement).disabled = true;
    if (location.hash) history.replaceState(null, '', location.pathname + location.search);
    this.els.errorSlot = renderLanding(this.main, this.sources);
  }

  // ---------- load ----------
  async loadFrom(get: () => Promise<InFile[]>, format = '', view: ViewState | null = null) {
    // the page no longer shows a checked history from the moment a new input is being read
    delete document.body.dataset.checked;
    // a new input replaces a shared one: the old fragment must not come back on reload
    if (location.hash) history.replaceState(null, '', location.pathname + location.search);
    this.sharedCounterexample = false;
    let files: InFile[];
    try {
      files = await get();
    } catch (e) {
      this.showError({ message: (e as Error).message, text: (e as Error).message }, 'Could not read the input');
      return;
    }
    await this.load(files, format, view);
  }

  /**
   * The level, anomaly and tab in view go into the address (level=, anomaly=, tab=), so a reload,
   * Back and Forward come back to them. Not for share links (their fragment holds the view).
   */
  private syncUrl() {
    if (this.embed || location.hash.includes('h=')) return;
    const p = new URLSearchParams(location.search);
    const set = (k: string, v: string | undefined) => (v ? p.set(k, v) : p.delete(k));
    set('level', this.selected);
    set('anomaly', this.anomalyIndex > 0 ? String(this.anomalyIndex) : undefined);
    set('tab', this.tab !== 'anomaly' ? this.tab : undefined);
    const q = p.toString();
    history.replaceState(history.state, '', `${location.pathname}${q ? `?${q}` : ''}`);
  }

  /** The view the address names (level=, anomaly=, tab=), or null. */
  private viewFromUrl(): ViewState | null {
    const p = new URLSearchParams(location.search);
    const level = p.get('level') ?? undefined;
    if (!level || !/^[A-Za-z]{1,8}$/.test(level)) return null;
    const a = Number(p.get('anomaly') ?? 0);
    const tab = p.get('tab') ?? undefined;
    return { level, anomaly: Number.isInteger(a) && a >= 0 && a < 1000 ? a : 0, tab: tab && /^[a-z]{1,16}$/.test(tab) ? tab : undefined };
  }

  async load(files: InFile[], format = '', view: ViewState | null = null) {
    ++this.inputs;
    delete document.body.dataset.checked;
    view ??= this.viewFromUrl();
    this.set?.stop();
    this.set = null;
    // several histories (folders of runs, several files): a table, each checked on its own
    if (!format && files.length > 1 && !this.embed) {
      this.checker.dispose();  // its idle worker, kept as the spare, tells the histories apart
      const parts = await this.checker.histories(files).catch(() => []);
      if (parts.length >= 2) { this.showSet(files, parts); return; }
    }
    this.files = files;
    this.label = view?.name ?? describeInput(files);
    this.results = {};
    this.selected = undefined;
    this.anomalyIndex = 0;
    this.userPicked = false;
    this.pendingView = view;
    this.anomalyView = new AnomalyView(this.anomalyHost);
    clear(this.main);
    this.main.append(h('div', { class: 'card loading', id: 'parsing' }, h('div', { class: 'spinner' }), `Parsing ${this.label} (${formatBytes(totalBytes(files))})\u2026`));
    try {
      this.input = await this.checker.load(files, format);
      setOrigin(this.input.origin);
      setTimeUnit(timeUnitOf(this.input.format));
      this.records = new RecordViews(this.checker, this.input.transactions);
    } catch (e) {
      if (e instanceof CoreFailure) this.showError(e.detail, 'This history could not be read', e.detail.format_unrecognised ? { files, readableAs: e.detail.readable_as } : undefined);
      else this.showError({ message: (e as Error).message, text: (e as Error).message }, e instanceof CoreCrash ? 'The checker stopped unexpectedly' : 'The checker could not start');
      return;
    }
    try {
      this.infos = await this.checker.levels();
    } catch (e) {
      this.showError({ message: (e as Error).message }, 'The checker failed');
      return;
    }
    (this.els.share as HTMLButtonElement).disabled = false;
    // The first level is asked for before the results page is built and laid out: the worker
    // checks while the page draws, which shows the levels decided by then.
    for (const k of ['ladder', 'panel', 'again', 'cancel']) delete this.els[k];
    void this.runCheck();
    this.renderResults();
    // the page changed under the user: focus moves to its heading, not to <body>
    if (!this.embed) document.getElementById('results-title')?.focus();
  }

  private showSet(files: InFile[], parts: import('../core/types').HistoryPartJson[]) {
    this.checker.dispose();
    this.input = null;
    (this.els.share as HTMLButtonElement).disabled = true;
    let set = this.sets.get(files);
    if (!set) {
      set = new HistorySet(describeInput(files), files, parts, (p) => this.openPart(p));
      this.sets.set(files, set);
    }
    this.set = set;
    set.render(this.main, Math.round(this.budgetS * 1000));
  }

  /** One history of a set: its results, with Back to the set's table. */
  private openPart(p: SetPart) {
    const load = this.navigation.push('results');
    this.navigation.keep(load, p.files, '');
    void this.load(p.files, '', { name: p.name });
  }

  /** A located error on the landing page; for an unrecognised format, a choice of format to read the same files as. */
  private showError(err: ParseError, title: string, retry?: { files: InFile[]; readableAs?: string }) {
    this.showLanding();
    const where = [err.file, err.line !== undefined ? `line ${err.line}` : '', err.column !== undefined ? `column ${err.column}` : '', err.offset !== undefined ? `byte ${err.offset}` : ''].filter(Boolean).join(', ');
    let choice: HTMLElement | null = null;
    if (retry) {
      const sel = formatSelect('Choose a format\u2026', retry.readableAs);
      const go = h('button', { class: 'btn primary', type: 'button', id: 'read-as' }, 'Read as this format');
      go.addEventListener('click', () => { if (sel.value) void this.load(retry.files, sel.value); });
      choice = h('div', { class: 'row read-as' }, h('label', {}, 'Read it as ', sel), go);
    }
    this.els.errorSlot.append(h('div', { class: 'error', role: 'alert', id: 'load-error' },
      h('span', { class: 'icon', 'aria-hidden': 'true' }, '!'),
      h('div', {},
        h('h2', {}, title),
        where ? h('div', { class: 'where' }, where) : null,
        h('pre', {}, err.message || err.text || 'unknown error'),
        choice)));
  }

  // ---------- check ----------
  /** The levels the page asked for with ?levels= (null: every level). */
  private wantedLevels(): Set<string> | null {
    const wanted = new URLSearchParams(location.search).get('levels');
    return wanted ? new Set(wanted.split(',').map((s) => s.trim().toUpperCase())) : null;
  }

  private levelsToRun(): string[] {
    const set = this.wantedLevels();
    return this.infos.filter((i) => i.applies && (!set || set.has(i.level.toUpperCase()))).map((i) => i.level);
  }

  async runCheck() {
    const id = ++this.runId;
    for (const i of this.infos) if (!i.applies) this.results[i.level] = { verdict: 'n/a', reason: i.reason ?? 'does not apply' };
    const levels = this.levelsToRun();
    this.updateControls(true);
    // lets tests (and a profiler) tell the check's main-thread work from the page's start-up
    performance.mark('isoscope:check-start');
    await this.checker.run({
      levels, budgetMs: Math.round(this.budgetS * 1000), maxAnomalies: 5,
      onUpdate: (level, st) => {
        if (id !== this.runId) return;
        this.results[level] = st;
        if (st.verdict === 'fail' && !this.userPicked && !this.pendingView && (this.selected === undefined || this.results[this.selected]?.verdict !== 'fail')) {
          this.selected = level;
          this.anomalyIndex = 0;
          this.renderDetail();
        } else if (this.selected === undefined && this.tab === 'anomaly' && st.verdict !== 'running' && st.verdict !== 'pending') {
          this.renderDetail();  // the levels decided so far
        }
        this.renderLadderBox();
      },
    });
    if (id !== this.runId) return;
    this.updateControls(false);
    if (this.pendingView) {
      const v = this.pendingView;
      this.pendingView = null;
      if (v.level && this.results[v.level]) { this.selected = v.level; this.anomalyIndex = v.anomaly ?? 0; }
      if (v.tab === 'history' || v.tab === 'timeline') this.tab = v.tab;
      this.records.preferKey(v.key);
    }
    if (this.selected === undefined) this.selected = strongestSatisfied(finishedResults(this.results), this.known())[0] ?? levels[0];
    this.renderLadderBox();
    this.renderDetail();
    document.body.dataset.checked = 'true';
  }

  private cancel() {
    this.checker.cancel('cancelled');
    toast('Check cancelled');
  }

  /** The levels the ladder shows: exactly those asked for with ?levels=, else every level. */
  private known() {
    const set = this.wantedLevels();
    return this.infos.filter((i) => !set || set.has(i.level.toUpperCase())).map((i) => i.level);
  }

  // ---------- results ----------
  private renderResults() {
    clear(this.main);
    delete document.body.dataset.checked;
    const inp = this.input!;
    const stat = (v: string, l: string) => h('div', { class: 'stat' }, h('b', {}, v), h('span', {}, l));
    const budget = h('input', { type: 'number', min: 0.1, step: 1, value: this.budgetS, id: 'budget', 'aria-label': 'Time budget per level in seconds' }) as HTMLInputElement;
    budget.addEventListener('change', () => { const v = Number(budget.value); if (v > 0) this.budgetS = v; });
    const again = h('button', { class: 'btn', type: 'button', id: 'recheck' }, icon('play'), 'Check again');
    again.addEventListener('click', () => void this.runCheck());
    const cancel = h('button', { class: 'btn danger', type: 'button', id: 'cancel' }, icon('stop'), 'Cancel');
    cancel.addEventListener('click', () => this.cancel());
    this.els.again = again;
    this.els.cancel = cancel;
    const bar = h('section', { class: 'card inputbar', 'aria-label': 'Loaded history' },
      h('h1', { class: 'sr-only', id: 'results-title', tabindex: -1 }, `Isolation levels of ${this.label}`),
      h('div', { class: 'file' }, h('strong', { title: this.label }, this.label), h('span', { class: 'muted' }, formatBytes(totalBytes(this.files)), this.sharedCounterexample ? ' \u00b7 shared counterexample' : '')),
      h('span', { class: 'badge', id: 'format', title: 'Detected format' }, inp.format),
      h('div', { class: 'stats', id: 'stats' },
        stat(formatCount(inp.sessions), 'sessions'), stat(ofOriginal(inp.transactions) ?? formatCount(inp.transactions), 'transactions'),
        stat(formatCount(inp.operations), 'operations'), stat(formatCount(inp.keys), 'keys'),
        inp.parse_ms !== undefined ? stat(formatMs(inp.parse_ms), 'parse') : null,
        inp.dropped_events ? h('div', { class: 'stat', id: 'dropped', title: (inp.dropped ?? []).map((d) => `${d.count} ${d.reason}`).join('\n') },
          h('b', {}, formatCount(inp.dropped_events)), h('span', {}, 'left out')) : null,
        inp.ambiguous_reads ? h('div', { class: 'stat', id: 'ambiguous', title: `${formatCount(inp.repeated_pairs ?? 0)} (key, value) pairs are written more than once: a read of one may read from any of its writes, and a level holds when some choice satisfies it` },
          h('b', {}, formatCount(inp.ambiguous_reads)), h('span', {}, 'ambiguous reads')) : null),
      this.embed ? null : h('div', { class: 'controls' }, h('label', { class: 'budget' }, h('span', { class: 'budget-text' }, 'Budget / level'), budget, 's'), again, cancel));
    this.els.ladder = h('nav', { class: 'card ladder', id: 'ladder', 'aria-label': 'Verdicts by isolation level' });
    this.els.panel = h('section', { class: 'card panel', id: 'panel' });
    this.main.append(bar, h('div', { class: 'results' }, this.els.ladder, this.els.panel));
    this.updateControls(this.checker.isRunning);
    this.renderLadderBox();
    this.renderDetail();
  }

  private updateControls(running: boolean) {
    if (this.els.cancel) (this.els.cancel as HTMLButtonElement).disabled = !running;
    if (this.els.again) (this.els.again as HTMLButtonElement).disabled = running;
  }

  private renderLadderBox() {
    const box = this.els.ladder;
    if (!box) return;
    // the ladder is rebuilt: a keyboard user's focus stays on the same level
    const focused = box.contains(document.activeElement) ? (document.activeElement as HTMLElement).dataset.level : undefined;
    const known = this.known();
    const vals = Object.values(this.results);
    const applies = this.infos.filter((i) => i.applies).length || 1;
    const done = vals.filter((v) => v.verdict !== 'pending' && v.verdict !== 'running' && v.verdict !== 'n/a').length;
    const running = vals.some((v) => v.verdict === 'running' || v.verdict === 'pending');
    const progress = h('div', { class: 'progress', role: 'progressbar', 'aria-valuemin': 0, 'aria-valuemax': applies, 'aria-valuenow': done, 'aria-label': 'Checking progress' }, h('div', {}));
    (progress.firstChild as HTMLElement).style.width = `${Math.round((done / applies) * 100)}%`;
    clear(box);
    box.append(
      h('div', { class: 'summary', id: 'summary', 'aria-live': 'polite' },
        h('strong', {}, running ? `Checking\u2026 ${done} of ${applies} levels`
          : (vals.some((v) => v.verdict === 'unknown' && v.reason === 'cancelled') ? 'Cancelled \u2014 ' : '') + summarize(finishedResults(this.results), known)),
        h('span', { class: 'muted' }, running ? 'Levels run one at a time in a background worker.' : 'Select a level to see its verdict and anomalies.'),
        running ? progress : null),
      renderLadder({ known, results: this.results, selected: this.selected, onSelect: (l) => { this.userPicked = true; this.selected = l; this.anomalyIndex = 0; this.tab = 'anomaly'; this.renderLadderBox(); this.renderDetail(); this.syncUrl(); } }));
    if (focused) box.querySelector<HTMLElement>(`.level[data-level="${focused}"]`)?.focus();
  }

  /** Rebuilds the panel; a keyboard user's focus stays on the control it was on (a tab, a button). */
  private renderDetail() {
    const panel = this.els.panel;
    const active = document.activeElement as HTMLElement | null;
    const focusedId = panel && active && panel.contains(active) ? active.id : '';
    this.renderPanel();
    if (focusedId) document.getElementById(focusedId)?.focus();
  }

  private renderPanel() {
    const panel = this.els.panel;
    if (!panel) return;
    clear(panel);
    const mkTab = (id: Tab, label: string) => {
      const b = h('button', { class: 'tab', role: 'tab', type: 'button', id: `tab-${id}`, 'aria-selected': String(this.tab === id), 'aria-controls': `tp-${id}` }, label);
      b.addEventListener('click', () => { this.tab = id; this.renderDetail(); this.syncUrl(); });
      return b;
    };
    // the Timeline needs real time: shown for histories with timestamps
    const shown: Tab[] = this.embed ? ['anomaly'] : this.input?.timestamps ? ['anomaly', 'history', 'timeline'] : ['anomaly', 'history'];
    if (!shown.includes(this.tab)) this.tab = 'anomaly';
    const labels: Record<Tab, string> = { anomaly: 'Verdict & anomaly', history: 'History', timeline: 'Timeline' };
    const tabs = h('div', { class: 'tabs', role: 'tablist' }, shown.map((t) => mkTab(t, labels[t])));
    tabs.addEventListener('keydown', (e) => {
      if (e.key !== 'ArrowRight' && e.key !== 'ArrowLeft') return;
      const k = shown.indexOf(this.tab) + (e.key === 'ArrowRight' ? 1 : shown.length - 1);
      this.tab = shown[k % shown.length];
      this.renderDetail();
      (document.getElementById(`tab-${this.tab}`) as HTMLElement | null)?.focus();
    });
    const body = h('div', { class: 'tabpanel', role: 'tabpanel', id: `tp-${this.tab}`, 'aria-labelledby': `tab-${this.tab}` });
    panel.append(tabs, body);
    if (this.tab === 'history') { void this.records.renderHistory(body, this.inView()); return; }
    if (this.tab === 'timeline') { void this.records.renderTimeline(body, this.inView()); return; }
    const level = this.selected;
    if (!level) {
      // the levels decided so far, while the others run
      const decided = this.known().filter((l) => { const v = this.results[l]?.verdict; return v === 'pass' || v === 'fail' || v === 'unknown'; });
      body.append(h('div', { class: 'empty' }, h('div', { class: 'spinner' }), h('strong', {}, 'Checking\u2026'), 'The first failing level will open here.',
        decided.length ? h('ul', { class: 'decided', id: 'decided', 'aria-label': 'Levels decided so far' },
          decided.map((l) => h('li', {}, h('span', { class: 'code' }, l), ' ', pill(this.results[l].verdict)))) : null));
      return;
    }
    const r = this.results[level] ?? { verdict: 'pending' as const };
    const doc = LEVEL_DOCS[level];
    // one level again (a new budget, or after a cancel), without re-running the others
    let again: HTMLElement | null = null;
    if (!this.embed && !this.checker.isRunning && r.verdict !== 'n/a' && r.verdict !== 'pending' && r.verdict !== 'running') {
      again = h('button', { class: 'btn sm', type: 'button', id: 'recheck-level' }, icon('play'), `Check ${level} again`);
      again.addEventListener('click', () => void this.recheckLevel(level, 5));
    }
    body.append(h('div', { class: 'level-head' },
      h('div', { class: 'level-title' }, h('h2', { id: 'detail-title' }, `${level} \u00b7 ${doc?.name ?? level}`), h('p', {}, doc?.summary ?? '')),
      again, pill(r.verdict)));
    if (r.verdict === 'pass') body.append(h('div', { class: 'pass-banner' }, `No anomaly: the history satisfies ${doc?.name ?? level}${r.ms !== undefined ? ` (checked in ${formatMs(r.ms)})` : ''}.`));
    if (r.reason) body.append(h('p', { class: 'reason' }, `Reason: ${r.reason}`));
    if (r.verdict === 'running' || r.verdict === 'pending') body.append(h('div', { class: 'empty' }, h('div', { class: 'spinner' }), 'This level has not been checked yet.'));
    const anomalies = r.anomalies ?? [];
    if (r.verdict === 'fail' && anomalies.length === 0) body.append(h('p', { class: 'reason' }, 'The checker found a violation but reported no witness.'));
    if (anomalies.length === 0) return;
    // Every kind found, with its count, most specific first.
    if (r.verdict === 'fail' && r.kinds?.length) {
      body.append(h('p', { class: 'muted', id: 'anomaly-kinds' }, `Found: ${r.kinds.map((k) =>
        `${describeKind(k.kind).title} \u00d7 ${k.lower_bound ? 'at least ' : ''}${k.count}`).join(', ')}`));
    }
    const idx = Math.min(this.anomalyIndex, anomalies.length - 1);
    const total = Math.max(r.anomalies_total ?? 0, anomalies.length);
    if (anomalies.length > 1 || total > anomalies.length) body.append(this.anomalyPager(level, anomalies, idx, total));
    this.anomalyView.render(body, anomalies[idx], level, idx);
  }

  /**
   * The anomalies of a level, a page of tabs at a time; when the check reported fewer than it
   * found, a button re-checks this level alone and reports them all.
   */
  private anomalyPager(level: string, anomalies: Anomaly[], idx: number, total: number): HTMLElement {
    const page = Math.floor(idx / ANOMALY_PAGE);
    const first = page * ANOMALY_PAGE, last = Math.min(anomalies.length, first + ANOMALY_PAGE);
    const box = h('div', { class: 'anomalies', role: 'group', 'aria-label': 'Anomalies' });
    const go = (i: number) => { this.anomalyIndex = i; this.renderDetail(); this.syncUrl(); };
    if (anomalies.length > ANOMALY_PAGE) {
      const prev = h('button', { class: 'anomaly-tab', type: 'button', 'aria-label': 'Previous anomalies', disabled: page === 0 ? '' : null }, '\u2039');
      prev.addEventListener('click', () => go(first - ANOMALY_PAGE));
      box.append(prev);
    }
    for (let i = first; i < last; i++) {
      const b = h('button', { class: 'anomaly-tab', type: 'button', 'aria-pressed': String(i === idx) }, `${i + 1}. ${describeKind(anomalies[i].kind).title}`);
      b.addEventListener('click', () => go(i));
      box.append(b);
    }
    if (anomalies.length > ANOMALY_PAGE) {
      const next = h('button', { class: 'anomaly-tab', type: 'button', 'aria-label': 'Next anomalies', disabled: last >= anomalies.length ? '' : null }, '\u203a');
      next.addEventListener('click', () => go(last));
      box.append(next);
    }
    const note = h('span', { class: 'muted', id: 'anomaly-count' }, ` ${first + 1}\u2013${last} of ${total} anomal${total === 1 ? 'y' : 'ies'}`);
    box.append(note);
    if (total > anomalies.length && !this.checker.isRunning) {
      const more = h('button', { class: 'btn', type: 'button', id: 'all-anomalies' }, `Show all ${total}`);
      more.addEventListener('click', () => void this.recheckLevel(level, Math.min(total, MAX_ANOMALIES_SHOWN)));
      box.append(more);
    }
    return box;
  }

  /** Checks one level again, reporting up to maxAnomalies anomalies. */
  private async recheckLevel(level: string, maxAnomalies: number) {
    this.updateControls(true);
    await this.checker.run({
      levels: [level], budgetMs: Math.round(this.budgetS * 1000), maxAnomalies,
      onUpdate: (l, st) => {
        this.results[l] = st;
        this.renderLadderBox();
      },
    });
    this.updateControls(false);
    this.renderDetail();
  }

  // ---------- history ----------
  /** The anomaly in view and, for LIN, its linearization (or longest prefix): what the History and the Timeline show. */
  private inView() {
    const level = this.selected ? this.results[this.selected] : undefined;
    return {
      anomaly: level?.anomalies?.[this.anomalyIndex],
      // a passing LIN check's linearization; a failing object history's longest linearizable prefix
      linearization: this.selected !== 'LIN' ? null
        : level?.verdict === 'pass' ? level.commit_order ?? null : level?.verdict === 'fail' ? level.lin_prefix ?? null : null,
    };
  }

  private showInHistory(a: Anomaly, txn: number | undefined) {
    this.tab = 'history';
    this.renderDetail();
    const ids = a.transactions.map((t) => t.txn).filter((t): t is number => t !== undefined);
    this.records.revealInHistory(ids, txn);
  }

  // ---------- share ----------
  /** Shares what the page shows: the Share dialog offers the links and copies the preferred one. */
  private async share() {
    if (!this.input) return;
    const level = this.selected;
    const anomalyOf = (l: string, i: number): ShareableAnomaly | undefined => {
      const a = this.results[l]?.anomalies?.[i];
      return a ? { level: l, index: i, title: describeKind(a.kind).title } : undefined;
    };
    const others = this.known().map((l) => anomalyOf(l, 0)).filter((a): a is ShareableAnomaly => !!a);
    await openShareDialog({
      base: `${location.origin}${location.pathname}`,
      name: this.label,
      transactions: this.input.transactions,
      view: { level, anomaly: this.anomalyIndex, tab: this.tab, key: this.records.keyInView },
      selected: level ? anomalyOf(level, this.anomalyIndex) : undefined,
      wholeHistory: () => this.checker.convert('isoscope'),
      counterexample: (l, i) => this.checker.counterexample(l, i),
    }, others, (link) => {
      this.els.share.dataset.link = link;
      history.replaceState(null, '', link);
    });
  }

  private openFromHash(): boolean {
    if (!new URLSearchParams(location.hash.slice(1)).get('h')) return false;
    if (this.els.share?.dataset.link === location.href) return true; // our own link
    // decoded in a worker: inflating a large link's history would hold the main thread
    const input = ++this.inputs;
    decodeLink(location.hash).then((p) => {
      // null cannot be (the fragment has a history, checked above); another link or a dropped
      // file since then is what the page shows
      if (!p || input !== this.inputs) return;
      this.sharedCounterexample = p.counterexample;
      // the canonical JSON under a .json name (formats are told by content and name); the
      // page shows the original input's name
      const name = p.counterexample ? 'shared-counterexample.json' : 'shared-history.json';
      if (p.view.tab === 'history' || p.view.tab === 'timeline') this.tab = p.view.tab;
      void this.load([{ name, data: p.data }], '', p.view);
    }).catch((e: Error) => {
      if (input === this.inputs) this.showError({ message: e.message }, 'This share link cannot be opened');
    });
    return true;
  }

  private openFromParams(p: URLSearchParams): boolean {
    if (p.get('input') === 'local' && !this.embed) {
      void keptLocally().then((kept) => {
        if (kept) void this.load(kept.files, kept.format);
        else this.showError({ message: 'The input of this page is no longer kept in this browser: open it again.' }, 'Nothing to show');
      });
      return true;
    }
    const src = p.get('src');
    const example = p.get('example');
    if (!src && !example) return false;
    if (!src && example) {
      void this.loadFrom(() => exampleFiles(example));
      return true;
    }
    const url = src!;
    let u: URL;
    try { u = new URL(url, location.href); } catch { this.showError({ message: 'bad src URL' }, 'Cannot load'); return true; }
    if (u.origin !== location.origin) { this.showError({ message: `src must be on this origin (${location.origin})` }, 'Cannot load'); return true; }
    void this.loadFrom(async () => {
      // the bytes the server holds now: never from a cache, never stored (public/sw.js leaves
      // no-store requests alone)
      const res = await fetch(u.href, { cache: 'no-store' });
      if (!res.ok) throw new InputError(`${u.pathname}: HTTP ${res.status}`);
      return [{ name: u.pathname.split('/').pop() || 'history', data: await res.arrayBuffer() }];
    }, p.get('format') ?? '');  // ?format= reads src as that format, like the embed's attribute
    return true;
  }
}
