// Hermitage's table (model/hermitage.ts): a row per isolation level of the database (its name,
// the strongest isoscope level the row's histories pass), a column per anomaly, each cell a button
// with the CLI's mark (✓ prevented, — occurs, R/O, n/a, ?) that opens its cases. The page and the
// embed draw it alike; what opening a cell does is theirs.
import type { HermitageTable } from '../model/hermitage';
import { encodeCell, LEGEND, markMeaning, type CellRef } from '../model/hermitage-cells';
import { LEVEL_DOCS } from '../model/levels';
import { h } from '../dom/dom';

export interface TableOptions {
  /** the cell whose cases are shown (its button is marked expanded) */
  open: CellRef | null;
  /** the id of the element that shows a cell's cases (aria-controls) */
  detailId: string;
  onCell(ref: CellRef): void;
}

/** The table, in a scrolling box; its cells are buttons with data-isolation and data-anomaly. */
export function renderHermitageTable(table: HermitageTable, o: TableOptions): HTMLElement {
  const head = h('tr', {},
    h('th', { scope: 'col' }, 'Level'),
    h('th', { scope: 'col', title: 'The strongest isoscope level that every history of the row passes' }, 'Passes'),
    table.anomalies.map((a) => h('th', { scope: 'col', class: 'anomaly-col', 'data-anomaly': a.name },
      h('span', { class: 'code' }, a.name), a.title ? h('span', { class: 'sub' }, a.title) : null)));
  const rows = table.rows.map((r) => h('tr', { 'data-isolation': r.isolation },
    h('th', { scope: 'row' }, r.isolation),
    h('td', { class: 'provides', title: LEVEL_DOCS[r.provides]?.name ?? null }, r.provides),
    table.anomalies.map((a) => {
      const mark = r.cells[a.name];
      const m = markMeaning(mark);
      const open = o.open?.isolation === r.isolation && o.open.anomaly === a.name;
      const b = h('button', {
        type: 'button', class: `hcell m-${m.kind}`, 'data-isolation': r.isolation, 'data-anomaly': a.name, 'data-mark': mark,
        'data-cell': encodeCell({ isolation: r.isolation, anomaly: a.name }),
        // the name holds the mark's visible text (n/a, R/O), as a name must hold a label's words
        'aria-label': `${r.isolation}, ${a.name}${a.title ? ` (${a.title})` : ''}: ${/[a-z]/i.test(mark) && m.meaning !== mark ? `${mark}, ` : ''}${m.meaning}`,
        'aria-expanded': String(open), 'aria-controls': o.detailId,
      }, mark);
      b.addEventListener('click', () => o.onCell({ isolation: r.isolation, anomaly: a.name }));
      return h('td', { class: 'cell' }, b);
    })));
  return h('div', { class: 'set-table-wrap' },
    h('table', { class: 'set-table hermitage-table', id: 'hermitage-table' },
      h('caption', { class: 'sr-only' }, `Hermitage's table of ${table.database} ${table.version}: for each isolation level, whether each anomaly is prevented or occurs`),
      h('thead', {}, head), h('tbody', {}, rows)));
}

/** The marks' meanings, one line. */
export function hermitageLegend(): HTMLElement {
  return h('p', { class: 'hermitage-legend muted', id: 'hermitage-legend' },
    LEGEND.flatMap((l, i) => [i ? ' \u00b7 ' : '', h('span', { class: `mark m-${l.kind}`, 'aria-hidden': 'true' }, l.mark), ` ${l.meaning.split(':')[0]}`]));
}

/** Errors of rows that could not run every case. */
export function rowErrors(table: HermitageTable): HTMLElement | null {
  const bad = table.rows.filter((r) => r.error);
  return bad.length ? h('ul', { class: 'hermitage-errors' }, bad.map((r) => h('li', {}, h('strong', {}, r.isolation), `: could not run every case: ${r.error}`))) : null;
}
