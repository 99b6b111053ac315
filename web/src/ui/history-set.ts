// A set of histories (dbcop's hist-00000/ folders, a Jepsen store, two EDN files, a folder of
// Cobra runs; the core's formats/history_set.h tells): one row per history with its size, a
// verdict per level and the time, each checked on its own in turn; a row opens that history's
// results, and Back returns to the table (the page keeps it, checked).
import type { HistoryPartJson } from '../core/types';
import { Checker } from '../check/checker';
import { CoreFailure } from '../core/result';
import { CHAIN, CAUSAL, LINEAR, formatCount, formatMs, type LevelState } from '../model/levels';
import { formatBytes, totalBytes } from '../load/input';
import type { InFile } from '../worker/protocol';
import { clear, h } from '../dom/dom';
import { pill } from './ladder';

export interface SetPart {
  name: string;
  files: InFile[];
  transactions?: number;
  verdicts: Record<string, LevelState>;
  ms: number;
  error?: string;
  done: boolean;
}

const ORDER = [...CHAIN].reverse().concat([...CAUSAL].reverse(), LINEAR);

export class HistorySet {
  readonly parts: SetPart[];
  private table: HTMLElement | null = null;
  private summary: HTMLElement | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;

  constructor(readonly label: string, files: InFile[], parts: HistoryPartJson[], private readonly open: (part: SetPart) => void) {
    this.parts = parts.map((p) => ({ name: p.name, files: p.files.map((i) => files[i]), verdicts: {}, ms: 0, done: false }));
  }

  /** Shows the table in main, checking what has not been checked yet. */
  render(main: HTMLElement, budgetMs: number) {
    clear(main);
    this.summary = h('p', { class: 'muted', id: 'set-summary', 'aria-live': 'polite' });
    this.table = h('div', { class: 'set-table-wrap' });
    main.append(h('section', { class: 'card history-set', 'aria-labelledby': 'set-title' },
      h('h1', { id: 'set-title', tabindex: -1 }, `${this.parts.length} histories in ${this.label}`),
      h('p', { class: 'muted' }, 'Each history is checked on its own, one after another. Open one for its anomalies, its diagram and its history.'),
      this.summary, this.table));
    this.draw();
    document.getElementById('set-title')?.focus();
    this.stopped = false;
    this.running ??= this.checkAll(budgetMs).finally(() => { this.running = null; });
  }

  /** Stops after the history being checked (another page is shown). */
  stop() { this.stopped = true; }

  private columns(): string[] {
    const seen = new Set<string>();
    for (const p of this.parts) for (const [l, v] of Object.entries(p.verdicts)) if (v.verdict !== 'n/a' || CHAIN.includes(l)) seen.add(l);
    for (const l of CHAIN) seen.add(l);
    return ORDER.filter((l) => seen.has(l));
  }

  private draw() {
    if (!this.table?.isConnected && this.table) return;
    const table = this.table!;
    const cols = this.columns();
    const head = h('tr', {}, h('th', { scope: 'col' }, 'History'), h('th', { scope: 'col' }, 'Size'),
      cols.map((l) => h('th', { scope: 'col' }, l)), h('th', { scope: 'col' }, 'Time'));
    const rows = this.parts.map((p, i) => {
      const open = h('button', { class: 'txlink', type: 'button', 'data-part': i }, p.name);
      open.addEventListener('click', () => this.open(p));
      const size = `${formatBytes(totalBytes(p.files))}${p.transactions !== undefined ? ` \u00b7 ${formatCount(p.transactions)} txns` : ''}`;
      const cells = p.error
        ? [h('td', { colspan: cols.length, class: 'reason' }, p.error)]
        : cols.map((l) => h('td', { 'data-level': l }, p.verdicts[l] ? pill(p.verdicts[l].verdict === 'running' || p.verdicts[l].verdict === 'pending' ? 'pending' : p.verdicts[l].verdict) : ''));
      return h('tr', { 'data-name': p.name, 'data-done': String(p.done) }, h('th', { scope: 'row' }, open), h('td', { class: 'num' }, size), cells,
        h('td', { class: 'num' }, p.done ? formatMs(p.ms) : ''));
    });
    clear(table);
    table.append(h('table', { class: 'set-table', id: 'set-table' }, h('thead', {}, head), h('tbody', {}, rows)));
    const done = this.parts.filter((p) => p.done).length;
    const failing = this.parts.filter((p) => p.error || Object.values(p.verdicts).some((v) => v.verdict === 'fail')).length;
    if (this.summary) this.summary.textContent = done < this.parts.length
      ? `Checking\u2026 ${done} of ${this.parts.length} histories`
      : `${this.parts.length} histories checked: ${failing} fail some level or cannot be read, ${this.parts.length - failing} pass every level checked.`;
    if (done === this.parts.length) document.body.dataset.checked = 'true';
  }

  private async checkAll(budgetMs: number) {
    for (const p of this.parts) {
      if (this.stopped) return;
      if (p.done) continue;
      const checker = new Checker(false);
      const t0 = performance.now();
      try {
        const input = await checker.load(p.files);
        p.transactions = input.transactions;
        const infos = await checker.levels();
        for (const i of infos) if (!i.applies) p.verdicts[i.level] = { verdict: 'n/a', reason: i.reason };
        await checker.run({
          levels: infos.filter((i) => i.applies).map((i) => i.level), budgetMs, maxAnomalies: 1,
          onUpdate: (l, st) => { p.verdicts[l] = st; },
        });
      } catch (e) {
        p.error = e instanceof CoreFailure ? e.detail.text ?? e.detail.message : (e as Error).message;
      } finally {
        checker.dispose();
      }
      p.ms = performance.now() - t0;
      p.done = true;
      this.draw();
    }
  }
}
