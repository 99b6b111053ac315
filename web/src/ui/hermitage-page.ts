// A Hermitage table (a dropped or ?src= `isoscope hermitage --json`; model/hermitage.ts tells one
// from a history): its page (the database and its version, the table of hermitage/table.ts, the
// cell open with its cases, hermitage/cell.ts, cell= in the address) and its cases' histories,
// each checked by the page like any input (the host's), with Back or the results' link up to the
// table (case= in the address). Each page is an entry of the browser's history.
import { readHermitage, type HermitageTable } from '../model/hermitage';
import { caseHistoryFile, caseLabel, databaseName, decodeCell, encodeCell, findCase, type CellRef } from '../model/hermitage-cells';
import type { ViewState } from '../share/share';
import type { InFile } from '../worker/protocol';
import { renderCell } from '../hermitage/cell';
import { hermitageLegend, renderHermitageTable, rowErrors } from '../hermitage/table';
import { clear, h } from '../dom/dom';
import type { UpLink } from './input-bar';
import type { UrlState } from './url-state';

/** What the table's page needs of the app (loading.ts). */
export interface HermitageHost {
  readonly main: HTMLElement;
  readonly url: UrlState;
  /** a new entry of the browser's history, at address (a query), that shows file again */
  entry(address: string, file: InFile): void;
  /** no history is shown any more (the table's page replaces it) */
  clear(): void;
  /** checks a history and shows its results (view: the level to open), with a link up */
  check(file: InFile, view: ViewState, up: UpLink): void;
  /** the table cannot be read */
  error(message: string, file: string): void;
}

/**
 * Shows file when it is a Hermitage table: its page with the cell the address names open, or the
 * history of the case it names (an error when it is one but broken). False: not one.
 */
export function openHermitage(file: InFile, host: HermitageHost): boolean {
  let table: HermitageTable | null;
  try {
    table = readHermitage(file.data);
  } catch (e) {
    host.error((e as Error).message, file.name);
    return true;
  }
  if (!table) return false;
  const page = new HermitagePage(table, file, host);
  const { cell, case: number } = host.url.hermitageFromUrl();
  const ref = decodeCell(table, cell);
  if (ref && findCase(table, ref, number)) page.openCase(ref, Number(number), false);
  else page.show(ref, false);
  return true;
}

const DETAIL_ID = 'hermitage-cell';

class HermitagePage {
  private open: CellRef | null = null;
  private els: { table: HTMLElement; detail: HTMLElement } | null = null;

  constructor(private readonly table: HermitageTable, private readonly file: InFile, private readonly host: HermitageHost) {}

  /** The table's page, the cell `open` (null: none) showing its cases; push: a new entry. */
  show(open: CellRef | null, push: boolean) {
    if (push) this.host.entry(this.host.url.inputAddress(open ? { cell: encodeCell(open) } : {}), this.file);
    this.host.clear();
    const main = this.host.main;
    clear(main);
    this.open = open;
    const t = this.table;
    this.els = { table: h('div', {}), detail: h('div', {}) };
    main.append(h('section', { class: 'card hermitage', 'aria-labelledby': 'hermitage-title', 'data-database': t.database },
      h('h1', { id: 'hermitage-title', tabindex: -1 }, `Hermitage's table: ${t.database} ${t.version}`),
      h('p', { class: 'muted', id: 'hermitage-target' },
        'Made by ', h('code', {}, `isoscope hermitage ${t.target || 'TARGET'} --json`), ` (${this.file.name}). `,
        'Each cell is isoscope\u2019s verdict on the histories its cases recorded; open one for its cases, and a case for its history, anomaly and counterexample, checked again in this page.'),
      hermitageLegend(), this.els.table, rowErrors(t), this.els.detail));
    this.draw(false);
    document.getElementById(open ? `${DETAIL_ID}-title` : 'hermitage-title')?.focus();
  }

  /** The history of the case `number` (from 1) of a cell, checked by the host; push: a new entry. */
  openCase(cell: CellRef, number: number, push: boolean) {
    const c = findCase(this.table, cell, String(number));
    if (!c) return;
    const url = this.host.url;
    if (push) this.host.entry(url.inputAddress({ cell: encodeCell(cell), case: String(number) }), this.file);
    // the level the address names (a reload), else the case's
    const view = { ...(url.viewFromUrl() ?? { level: c.level, anomaly: 0 }), name: caseLabel(this.table, cell.isolation, c) };
    this.host.check(caseHistoryFile(this.table, cell.isolation, c), view, {
      label: `Hermitage's table: ${databaseName(this.table)}`,
      open: () => this.show(cell, !url.embed),
    });
  }

  private draw(focusDetail: boolean) {
    if (!this.els) return;
    const { table, detail } = this.els;
    clear(table);
    table.append(renderHermitageTable(this.table, { open: this.open, detailId: DETAIL_ID, onCell: (ref) => this.openCell(ref) }));
    clear(detail);
    const ref = this.open;
    if (!ref) return;
    detail.append(renderCell(this.table, ref, {
      id: DETAIL_ID,
      close: () => this.closeCell(),
      action: (c, n) => {
        if (c.history === undefined) return null;
        const b = h('button', { class: 'btn primary sm open-case', type: 'button', 'data-case': n }, 'Open its history: verdicts, anomaly, diagram, timeline');
        b.addEventListener('click', () => this.openCase(ref, n, true));
        return b;
      },
    }));
    if (focusDetail) document.getElementById(`${DETAIL_ID}-title`)?.focus();
  }

  private openCell(ref: CellRef) {
    this.open = ref;
    this.host.url.syncCell(encodeCell(ref));
    this.draw(true);
  }

  private closeCell() {
    const was = this.open;
    this.open = null;
    this.host.url.syncCell(null);
    this.draw(false);
    // back to the cell that was open
    if (was) this.els?.table.querySelector<HTMLElement>(`button.hcell[data-cell="${CSS.escape(encodeCell(was))}"]`)?.focus();
  }
}
