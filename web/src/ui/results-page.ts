// The results page of one history: the input bar (name, size, format, statistics, the budget,
// Check again and Cancel), the verdict ladder, and the panel's tabs (Verdict & anomaly, History,
// Timeline). It owns what is in view (the level, its anomaly, the tab; in the address through
// url-state.ts) and the views of the loaded history; it draws the verdicts as checking.ts
// reports them (CheckingView).
import type { Anomaly } from '../core/types';
import { finishedResults, strongestSatisfied, summarize, type LevelState } from '../model/levels';
import type { LoadedHistory } from '../model/loaded';
import { Names } from '../model/names';
import { formatBytes, totalBytes } from '../load/input';
import type { ViewState } from '../share/share';
import { clear, h } from '../dom/dom';
import { icon } from '../dom/icons';
import { AnomalyView, type AnomalyHost } from './anomaly-view';
import { inputBar, type ShownInput } from './input-bar';
import type { Checking, CheckingView } from './checking';
import { renderLadder } from './ladder';
import { renderLevelDetail } from './level-detail';
import { RecordViews } from './record-views';
import type { PageView, Tab, UrlState } from './url-state';

export class ResultsPage implements CheckingView {
  private input: ShownInput = { files: [], label: '', sharedCounterexample: false };
  /** the history read from the input and its History and Timeline (null: none read) */
  private shown: { history: LoadedHistory; records: RecordViews } | null = null;
  private anomalyView: AnomalyView;
  private selected: string | undefined;
  private anomalyIndex = 0;
  /** kept from one history to the next */
  private tab: Tab = 'anomaly';
  /** the user chose a level: a failing one no longer opens by itself */
  private userPicked = false;
  /** the view the address or a share link named, shown once the check ends */
  private pendingView: ViewState | null = null;
  private els: { ladder: HTMLElement; panel: HTMLElement; again: HTMLButtonElement; cancel: HTMLButtonElement } | null = null;
  private readonly anomalyHost: AnomalyHost;

  constructor(private readonly main: HTMLElement, private readonly url: UrlState, private readonly checking: Checking) {
    this.anomalyHost = {
      embed: url.embed,
      transactions: (b, e) => checking.checker.transactions(b, e),
      showInHistory: (a, txn) => this.showInHistory(a, txn),
    };
    this.anomalyView = new AnomalyView(this.anomalyHost);
  }

  /** The input's name. */
  get label(): string { return this.input.label; }
  /** The history read (null: none). */
  get history(): LoadedHistory | null { return this.shown?.history ?? null; }
  /** What is in view. */
  get view(): PageView { return { level: this.selected, anomaly: this.anomalyIndex, tab: this.tab }; }
  /** The object key the Timeline shows (a share link keeps it). */
  get keyInView(): string | undefined { return this.shown?.records.keyInView; }

  /** A new input is being read: nothing selected yet; view (null: none) is shown once checked. */
  start(input: ShownInput, view: ViewState | null) {
    this.input = input;
    this.selected = undefined;
    this.anomalyIndex = 0;
    this.userPicked = false;
    this.pendingView = view;
    this.anomalyView = new AnomalyView(this.anomalyHost);
    clear(this.main);
    this.main.append(h('div', { class: 'card loading', id: 'parsing' }, h('div', { class: 'spinner' }), `Parsing ${input.label} (${formatBytes(totalBytes(input.files))})\u2026`));
  }

  /** The core has read the input. */
  read(history: LoadedHistory) {
    this.shown = { history, records: new RecordViews(this.checking.checker, history) };
  }

  /** No history is shown (the landing page, a set's table); forget: its anomaly view too. */
  close(forget: boolean) {
    this.shown = null;
    if (forget) this.anomalyView = new AnomalyView(this.anomalyHost);
  }

  /** A share link opens on the History or the Timeline. */
  openOnTab(tab: string | undefined) {
    if (tab === 'history' || tab === 'timeline') this.tab = tab;
  }

  /** Draws the diagram again (the theme changed). */
  redraw() { void this.anomalyView.draw(); }

  /** The page is built again (render): until then the check's updates draw nothing. */
  detach() { this.els = null; }

  /** Builds the results page into main. */
  render() {
    clear(this.main);
    delete document.body.dataset.checked;
    const budget = h('input', { type: 'number', min: 0.1, step: 1, value: this.checking.budgetS, id: 'budget', 'aria-label': 'Time budget per level in seconds' });
    budget.addEventListener('change', () => { const v = Number(budget.value); if (v > 0) this.checking.budgetS = v; });
    const again = h('button', { class: 'btn', type: 'button', id: 'recheck' }, icon('play'), 'Check again');
    again.addEventListener('click', () => void this.checking.run());
    const cancel = h('button', { class: 'btn danger', type: 'button', id: 'cancel' }, icon('stop'), 'Cancel');
    cancel.addEventListener('click', () => this.checking.cancel());
    const bar = inputBar(this.input, this.shown!.history,
      this.url.embed ? null : h('div', { class: 'controls' }, h('label', { class: 'budget' }, h('span', { class: 'budget-text' }, 'Budget / level'), budget, 's'), again, cancel));
    this.els = {
      ladder: h('nav', { class: 'card ladder', id: 'ladder', 'aria-label': 'Verdicts by isolation level' }),
      panel: h('section', { class: 'card panel', id: 'panel' }),
      again, cancel,
    };
    this.main.append(bar, h('div', { class: 'results' }, this.els.ladder, this.els.panel));
    this.running(this.checking.isRunning);
    this.renderLadderBox();
    this.renderDetail();
  }

  // ---------- the check's progress (CheckingView) ----------
  running(on: boolean) {
    if (!this.els) return;
    this.els.cancel.disabled = !on;
    this.els.again.disabled = on;
  }

  levelChanged(level: string, st: LevelState) {
    const results = this.checking.results;
    if (st.verdict === 'fail' && !this.userPicked && !this.pendingView && (this.selected === undefined || results[this.selected]?.verdict !== 'fail')) {
      this.selected = level;
      this.anomalyIndex = 0;
      this.renderDetail();
    } else if (this.selected === undefined && this.tab === 'anomaly' && st.verdict !== 'running' && st.verdict !== 'pending') {
      this.renderDetail();  // the levels decided so far
    }
    this.renderLadderBox();
  }

  levelRechecked() { this.renderLadderBox(); }

  checkEnded(levels: string[]) {
    const results = this.checking.results;
    if (this.pendingView) {
      const v = this.pendingView;
      this.pendingView = null;
      if (v.level && results[v.level]) { this.selected = v.level; this.anomalyIndex = v.anomaly ?? 0; }
      this.openOnTab(v.tab);
      this.shown?.records.preferKey(v.key);
    }
    if (this.selected === undefined) this.selected = strongestSatisfied(finishedResults(results), this.checking.known())[0] ?? levels[0];
    this.renderLadderBox();
    this.renderDetail();
  }

  // ---------- the ladder and the panel ----------
  private renderLadderBox() {
    const box = this.els?.ladder;
    if (!box) return;
    // the ladder is rebuilt: a keyboard user's focus stays on the same level
    const focused = box.contains(document.activeElement) ? (document.activeElement as HTMLElement).dataset.level : undefined;
    const known = this.checking.known();
    const results = this.checking.results;
    const vals = Object.values(results);
    const applies = this.checking.infos.filter((i) => i.applies).length || 1;
    const done = vals.filter((v) => v.verdict !== 'pending' && v.verdict !== 'running' && v.verdict !== 'n/a').length;
    const running = vals.some((v) => v.verdict === 'running' || v.verdict === 'pending');
    const progress = h('div', { class: 'progress', role: 'progressbar', 'aria-valuemin': 0, 'aria-valuemax': applies, 'aria-valuenow': done, 'aria-label': 'Checking progress' }, h('div', {}));
    (progress.firstChild as HTMLElement).style.width = `${Math.round((done / applies) * 100)}%`;
    clear(box);
    box.append(
      h('div', { class: 'summary', id: 'summary', 'aria-live': 'polite' },
        h('strong', {}, running ? `Checking\u2026 ${done} of ${applies} levels`
          : (vals.some((v) => v.verdict === 'unknown' && v.reason === 'cancelled') ? 'Cancelled \u2014 ' : '') + summarize(finishedResults(results), known)),
        h('span', { class: 'muted' }, running ? 'Levels run one at a time in a background worker.' : 'Select a level to see its verdict and anomalies.'),
        running ? progress : null),
      renderLadder({ known, results, selected: this.selected, onSelect: (l) => { this.userPicked = true; this.selected = l; this.anomalyIndex = 0; this.tab = 'anomaly'; this.renderLadderBox(); this.renderDetail(); this.url.sync(this.view); } }));
    if (focused) box.querySelector<HTMLElement>(`.level[data-level="${focused}"]`)?.focus();
  }

  /** Rebuilds the panel; a keyboard user's focus stays on the control it was on (a tab, a button). */
  private renderDetail() {
    const panel = this.els?.panel;
    const active = document.activeElement as HTMLElement | null;
    const focusedId = panel && active && panel.contains(active) ? active.id : '';
    this.renderPanel();
    if (focusedId) document.getElementById(focusedId)?.focus();
  }

  private renderPanel() {
    const panel = this.els?.panel;
    if (!panel) return;
    clear(panel);
    const mkTab = (id: Tab, label: string) => {
      const b = h('button', { class: 'tab', role: 'tab', type: 'button', id: `tab-${id}`, 'aria-selected': String(this.tab === id), 'aria-controls': `tp-${id}` }, label);
      b.addEventListener('click', () => { this.tab = id; this.renderDetail(); this.url.sync(this.view); });
      return b;
    };
    // the Timeline needs real time: shown for histories with timestamps
    const shown: Tab[] = this.url.embed ? ['anomaly'] : this.shown?.history.stats.timestamps ? ['anomaly', 'history', 'timeline'] : ['anomaly', 'history'];
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
    if (this.tab === 'history') { void this.shown?.records.renderHistory(body, this.inView()); return; }
    if (this.tab === 'timeline') { void this.shown?.records.renderTimeline(body, this.inView()); return; }
    renderLevelDetail(body, {
      embed: this.url.embed, known: this.checking.known(), results: this.checking.results,
      level: this.selected, anomalyIndex: this.anomalyIndex, checking: this.checking.isRunning,
      anomalyView: this.anomalyView, names: this.shown?.history.names ?? AS_LOADED,
      recheck: (level, max) => void this.recheck(level, max),
      showAnomaly: (i) => { this.anomalyIndex = i; this.renderDetail(); this.url.sync(this.view); },
    });
  }

  private async recheck(level: string, maxAnomalies: number) {
    await this.checking.recheck(level, maxAnomalies);
    this.renderDetail();
  }

  /** The anomaly in view and, for LIN, its linearization (or longest prefix): what the History and the Timeline show. */
  private inView() {
    const level = this.selected ? this.checking.results[this.selected] : undefined;
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
    this.shown?.records.revealInHistory(ids, txn);
  }
}

/** Names of no history read (never shown: the panel exists once a history is read). */
const AS_LOADED = new Names(null);
