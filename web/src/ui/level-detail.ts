// The results panel's first tab, Verdict & anomaly: the levels decided so far while none is
// selected; else the selected level's verdict, its reason, the kinds of anomaly found, a page of
// its anomalies and the one in view (anomaly-view.ts), with Check again and Show all.
import type { Anomaly } from '../core/types';
import { describeKind } from '../model/anomalies';
import { formatMs, LEVEL_DOCS, type LevelState } from '../model/levels';
import type { Names } from '../model/names';
import { h } from '../dom/dom';
import { icon } from '../dom/icons';
import type { AnomalyView } from './anomaly-view';
import { pill } from './ladder';

/** Anomaly tabs per page, and the most anomalies one level reports on request. */
const ANOMALY_PAGE = 20;
const MAX_ANOMALIES_SHOWN = 1000;

export interface LevelDetail {
  embed: boolean;
  /** the levels the ladder shows, and their states */
  known: string[];
  results: Record<string, LevelState>;
  /** the level selected (none while the first verdicts come) and its anomaly in view */
  level: string | undefined;
  anomalyIndex: number;
  /** a check runs: nothing is checked again meanwhile */
  checking: boolean;
  anomalyView: AnomalyView;
  /** the loaded history's names */
  names: Names;
  recheck(level: string, maxAnomalies: number): void;
  showAnomaly(index: number): void;
}

export function renderLevelDetail(body: HTMLElement, d: LevelDetail) {
  const level = d.level;
  if (!level) {
    // the levels decided so far, while the others run
    const decided = d.known.filter((l) => { const v = d.results[l]?.verdict; return v === 'pass' || v === 'fail' || v === 'unknown'; });
    body.append(h('div', { class: 'empty' }, h('div', { class: 'spinner' }), h('strong', {}, 'Checking\u2026'), 'The first failing level will open here.',
      decided.length ? h('ul', { class: 'decided', id: 'decided', 'aria-label': 'Levels decided so far' },
        decided.map((l) => h('li', {}, h('span', { class: 'code' }, l), ' ', pill(d.results[l].verdict)))) : null));
    return;
  }
  const r = d.results[level] ?? { verdict: 'pending' as const };
  const doc = LEVEL_DOCS[level];
  // one level again (a new budget, or after a cancel), without re-running the others
  let again: HTMLElement | null = null;
  if (!d.embed && !d.checking && r.verdict !== 'n/a' && r.verdict !== 'pending' && r.verdict !== 'running') {
    again = h('button', { class: 'btn sm', type: 'button', id: 'recheck-level' }, icon('play'), `Check ${level} again`);
    again.addEventListener('click', () => d.recheck(level, 5));
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
  const idx = Math.min(d.anomalyIndex, anomalies.length - 1);
  const total = Math.max(r.anomalies_total ?? 0, anomalies.length);
  if (anomalies.length > 1 || total > anomalies.length) body.append(anomalyPager(d, level, anomalies, idx, total));
  d.anomalyView.render(body, anomalies[idx], level, idx, d.names);
}

/**
 * The anomalies of a level, a page of tabs at a time; when the check reported fewer than it
 * found, a button re-checks this level alone and reports them all.
 */
function anomalyPager(d: LevelDetail, level: string, anomalies: Anomaly[], idx: number, total: number): HTMLElement {
  const page = Math.floor(idx / ANOMALY_PAGE);
  const first = page * ANOMALY_PAGE, last = Math.min(anomalies.length, first + ANOMALY_PAGE);
  const box = h('div', { class: 'anomalies', role: 'group', 'aria-label': 'Anomalies' });
  if (anomalies.length > ANOMALY_PAGE) {
    const prev = h('button', { class: 'anomaly-tab', type: 'button', 'aria-label': 'Previous anomalies', disabled: page === 0 ? '' : null }, '\u2039');
    prev.addEventListener('click', () => d.showAnomaly(first - ANOMALY_PAGE));
    box.append(prev);
  }
  for (let i = first; i < last; i++) {
    const b = h('button', { class: 'anomaly-tab', type: 'button', 'aria-pressed': String(i === idx) }, `${i + 1}. ${describeKind(anomalies[i].kind).title}`);
    b.addEventListener('click', () => d.showAnomaly(i));
    box.append(b);
  }
  if (anomalies.length > ANOMALY_PAGE) {
    const next = h('button', { class: 'anomaly-tab', type: 'button', 'aria-label': 'Next anomalies', disabled: last >= anomalies.length ? '' : null }, '\u203a');
    next.addEventListener('click', () => d.showAnomaly(last));
    box.append(next);
  }
  const note = h('span', { class: 'muted', id: 'anomaly-count' }, ` ${first + 1}\u2013${last} of ${total} anomal${total === 1 ? 'y' : 'ies'}`);
  box.append(note);
  if (total > anomalies.length && !d.checking) {
    const more = h('button', { class: 'btn', type: 'button', id: 'all-anomalies' }, `Show all ${total}`);
    more.addEventListener('click', () => d.recheck(level, Math.min(total, MAX_ANOMALIES_SHOWN)));
    box.append(more);
  }
  return box;
}
