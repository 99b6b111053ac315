// A cell of Hermitage's table opened: its cases, each with what it does, its script (a column per
// session, the steps that waited for a lock marked), and how it ended: prevented (blocked,
// aborted with the database's message, nothing anomalous read), occurred (the isoscope level its
// history fails), or could not run. What opens a case's history is the caller's (`action`): the
// page checks it in its worker, the embed links to the app.
import type { HermitageCase, HermitageTable } from '../model/hermitage';
import { caseName, cellCases, findRow, markMeaning, scriptSteps, sessionsOf, type CellRef } from '../model/hermitage-cells';
import { LEVEL_DOCS } from '../model/levels';
import { h } from '../dom/dom';

export interface CellOptions {
  /** the section's id (the table's cells name it in aria-controls) */
  id: string;
  /** a case's way to its history (number: the case's, in its cell, from 1); null: none */
  action(c: HermitageCase, number: number): HTMLElement | null;
  close(): void;
}

/** The cell's section: a heading (focusable), a Close button and its cases. */
export function renderCell(table: HermitageTable, ref: CellRef, o: CellOptions): HTMLElement {
  const row = findRow(table, ref.isolation)!;
  const anomaly = table.anomalies.find((a) => a.name === ref.anomaly);
  const mark = row.cells[ref.anomaly];
  const close = h('button', { class: 'btn sm', type: 'button', id: `${o.id}-close` }, 'Close');
  close.addEventListener('click', () => o.close());
  const cases = cellCases(row, ref.anomaly);
  return h('section', { class: 'hermitage-cell', id: o.id, 'aria-labelledby': `${o.id}-title`, 'data-cell': `${ref.isolation}.${ref.anomaly}` },
    h('div', { class: 'hermitage-cell-head' },
      h('h2', { id: `${o.id}-title`, tabindex: -1 },
        `${ref.isolation} \u00b7 ${ref.anomaly}${anomaly?.title ? ` (${anomaly.title})` : ''}: `,
        h('span', { class: `mark m-${markMeaning(mark).kind}` }, markMeaning(mark).meaning)),
      close),
    cases.length ? cases.map((c, i) => renderCase(c, i + 1, o))
      : h('p', { class: 'muted' }, mark === 'n/a' ? 'isoscope has no case for this anomaly yet.' : 'No case of this anomaly ran at this level.'));
}

function renderCase(c: HermitageCase, number: number, o: CellOptions): HTMLElement {
  const doc = LEVEL_DOCS[c.level];
  const outcome = c.error !== undefined
    ? h('p', { class: 'outcome error-text' }, h('strong', {}, 'Could not run: '), c.error)
    : c.result === 'occurs'
      ? h('p', { class: 'outcome occurs' }, h('strong', {}, 'Occurs: '), `the history it recorded fails ${c.level}${doc ? ` (${doc.name})` : ''}. Open it for isoscope's anomaly and counterexample.`)
      : h('p', { class: 'outcome prevented' }, h('strong', {}, 'Prevented: '), c.how || 'nothing anomalous read');
  return h('article', { class: 'hcase', 'data-case': number, 'data-result': c.result ?? 'error' },
    h('h3', {}, caseName(c), h('span', { class: 'muted' }, ` \u00b7 checked at ${c.level}`)),
    c.what ? h('p', { class: 'what' }, c.what) : null,
    scriptTable(c),
    outcome,
    c.refusals.length ? h('div', { class: 'refusals' }, h('h4', {}, 'The database refused'), c.refusals.map((r) => h('pre', {}, r))) : null,
    o.action(c, number));
}

/** The script, a row per step and a column per session, as Hermitage writes its schedules. */
function scriptTable(c: HermitageCase): HTMLElement {
  const steps = scriptSteps(c.script);
  const sessions = sessionsOf(steps);
  const waited = new Map(c.waits.map((w) => [w.step, w.waited_for]));
  return h('div', { class: 'script-wrap' }, h('table', { class: 'script' },
    h('caption', { class: 'sr-only' }, `The script of ${caseName(c)}: a row per step, a column per session`),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Step'), sessions.map((s) => h('th', { scope: 'col' }, s)))),
    h('tbody', {}, steps.map((s, i) => {
      const w = waited.get(i + 1);
      const text = [s.text, w ? h('span', { class: 'waited' }, ` waited${w.length ? ` for ${w.join(', ')}` : ''}`) : null];
      return h('tr', { class: w ? 'waited-step' : null },
        h('th', { scope: 'row', class: 'num' }, i + 1),
        s.session ? sessions.map((t) => h('td', {}, t === s.session ? text : null)) : h('td', { colspan: sessions.length || 1 }, text));
    }))));
}
