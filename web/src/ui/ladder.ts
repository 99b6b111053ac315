// The verdict ladder: every level strongest first, grouped, with the strongest satisfied marked.
import { finishedResults, formatMs, LEVEL_DOCS, ladderGroups, strongestSatisfied, VERDICT_LABEL, type LevelState } from '../model/levels';

import { h } from '../dom/dom';


export function pillClass(v: LevelState['verdict']) {
  return v === 'n/a' ? 'na' : v;
}

export function pill(v: LevelState['verdict']) {
  return h('span', { class: `pill ${pillClass(v)}` }, VERDICT_LABEL[v]);
}

export function renderLadder(opts: {
  known: string[];
  results: Record<string, LevelState>;
  selected?: string;
  onSelect?: (level: string) => void;
}): HTMLElement {
  const best = new Set(strongestSatisfied(finishedResults(opts.results), opts.known));
  const list = h('div', { class: 'ladder-list' });
  ladderGroups(opts.known).forEach((g, gi) => {
    // a secondary group where nothing applies folds into one line
    const allNa = gi > 0 && g.levels.every((l) => opts.results[l]?.verdict === 'n/a');
    let target: HTMLElement = list;
    if (allNa) {
      const reason = opts.results[g.levels[0]]?.reason ?? 'does not apply';
      const det = h('details', { class: 'na-group' }, h('summary', {}, h('span', { class: 'group-title' }, g.title), h('span', { class: 'na-line' }, `${g.levels.join(', ')}: not applicable \u2014 ${reason}`)));
      list.append(det);
      target = det;
    } else list.append(h('div', { class: 'group-title', role: 'presentation' }, g.title));
    for (const level of g.levels) {
      const r = opts.results[level] ?? { verdict: 'pending' };
      const doc = LEVEL_DOCS[level];
      const n = Math.max(r.anomalies_total ?? 0, r.anomalies?.length ?? 0);
      const meta = r.verdict === 'running' && r.progress
        ? `${r.progress.settled.toLocaleString('en-US')} of ${(r.progress.settled + r.progress.open).toLocaleString('en-US')} choices settled`
        : r.verdict === 'fail' ? `${n} anomal${n === 1 ? 'y' : 'ies'}${r.ms !== undefined ? ' \u00b7 ' + formatMs(r.ms) : ''}`
        : r.reason ? r.reason : r.ms !== undefined ? formatMs(r.ms) : '';
      const row = h('button', {
        class: `level v-${pillClass(r.verdict)}${best.has(level) ? ' best' : ''}${opts.selected === level ? ' selected' : ''}`,
        type: 'button', 'data-level': level, 'data-verdict': r.verdict,
        'aria-current': opts.selected === level ? 'true' : null,
        title: doc?.summary ?? level,
      },
        h('span', { class: 'code' }, level),
        h('span', { class: 'desc' },
          h('div', { class: 'name' }, doc?.name ?? level),
          meta || best.has(level) ? h('div', { class: 'meta' }, best.has(level) ? h('span', { class: 'best-tag' }, 'Strongest') : null, best.has(level) && meta ? ' \u00b7 ' : null, meta) : null),
        pill(r.verdict));
      if (opts.onSelect) row.addEventListener('click', () => opts.onSelect!(level));
      target.append(row);
    }
  });
  // arrow keys move between the levels (and select, as a click does); Home and End to the ends
  list.addEventListener('keydown', (e) => {
    if (!['ArrowDown', 'ArrowUp', 'Home', 'End'].includes(e.key)) return;
    const rows = [...list.querySelectorAll<HTMLButtonElement>('button.level')].filter((b) => b.offsetParent !== null);
    const at = rows.indexOf(document.activeElement as HTMLButtonElement);
    if (at < 0 || !rows.length) return;
    e.preventDefault();
    const next = e.key === 'Home' ? 0 : e.key === 'End' ? rows.length - 1 : Math.max(0, Math.min(rows.length - 1, at + (e.key === 'ArrowDown' ? 1 : -1)));
    rows[next].focus();
    rows[next].click();
  });
  return list;
}
