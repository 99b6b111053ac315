// <isoscope-check src="hermitage.json">: Hermitage's table in a documentation page (the table and
// a cell's cases are hermitage/'s, as in the app). Each case's history opens in the app (beside
// embed.js, on its own origin) through a link that carries it in its fragment, at the case's
// level, where the app checks it.
import type { HermitageTable } from '../model/hermitage';
import { caseLabel, databaseName, type CellRef } from '../model/hermitage-cells';
import { renderCell } from '../hermitage/cell';
import { hermitageLegend, renderHermitageTable, rowErrors } from '../hermitage/table';
import { clear, h } from '../dom/dom';
import { encodeFragment, MAX_LINK_CHARS } from '../share/share';

const DETAIL_ID = 'hermitage-cell';

/** Draws the table into box (the element's shadow root's), a cell's cases below it once opened. */
export function showHermitageTable(box: HTMLElement, table: HermitageTable) {
  const app = new URL('./', import.meta.url);
  const tableSlot = h('div', {});
  const detail = h('div', {});
  let open: CellRef | null = null;
  const link = (ref: CellRef, history: unknown, level: string, name: string): HTMLElement | null => {
    const fragment = encodeFragment({ history: JSON.stringify(history), view: { level, anomaly: 0, tab: 'anomaly', name } });
    if (fragment.length >= MAX_LINK_CHARS) return null;
    return h('a', { class: 'open-case', href: `${app.href}#${fragment}`, target: '_blank', rel: 'noopener', part: 'open-link',
      'aria-label': `Open its history in isoscope: ${name} (a new tab)`, 'data-cell': `${ref.isolation}.${ref.anomaly}` }, 'Open its history in isoscope \u2197');
  };
  const draw = (focus: 'cell' | 'detail' | null, was: CellRef | null = null) => {
    clear(tableSlot);
    tableSlot.append(renderHermitageTable(table, { open, detailId: DETAIL_ID, onCell: (ref) => { open = ref; draw('detail'); } }));
    clear(detail);
    const ref = open;
    if (ref) {
      detail.append(renderCell(table, ref, {
        id: DETAIL_ID,
        close: () => { open = null; draw('cell', ref); },
        action: (c) => (c.history === undefined ? null : link(ref, c.history, c.level, caseLabel(table, ref.isolation, c))),
      }));
    }
    if (focus === 'detail') detail.querySelector<HTMLElement>(`#${DETAIL_ID}-title`)?.focus();
    if (focus === 'cell' && was) tableSlot.querySelector<HTMLElement>(`button.hcell[data-cell="${CSS.escape(`${was.isolation}.${was.anomaly}`)}"]`)?.focus();
  };
  clear(box);
  box.append(
    h('div', { class: 'top' }, h('span', { class: 'brandmark' }, 'isoscope'), h('strong', {}, `Hermitage's table: ${databaseName(table)}`),
      h('span', { class: 'muted' }, table.version)),
    h('div', { class: 'hermitage' }, hermitageLegend(), tableSlot, rowErrors(table), detail));
  draw(null);
}
