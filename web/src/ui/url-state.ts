// The results page's state in the address: the level, anomaly and tab in view (level=, anomaly=,
// tab=), so that a reload, Back and Forward come back to them; the levels asked for (levels=);
// the embed mode (?embed); a share link's fragment (#h=, which holds the view instead); in a
// Hermitage table, the cell open (cell=) and the case whose history is shown (case=). Entries
// of the browser's history (a page per input) are navigation.ts's.
import type { ViewState } from '../share/share';

/** The results panel's tabs. */
export type Tab = 'anomaly' | 'history' | 'timeline';

/** What the results page shows: a level (none while the first verdicts come), its anomaly, a tab. */
export interface PageView { level: string | undefined; anomaly: number; tab: Tab }

export class UrlState {
  /** ?embed: the compact iframe mode (no navigation, no History) */
  readonly embed = new URLSearchParams(location.search).has('embed');

  /** Puts the view into the address; not in embeds, nor under a share link (its fragment holds the view). */
  sync(view: PageView) {
    if (this.embed || location.hash.includes('h=')) return;
    const p = new URLSearchParams(location.search);
    const set = (k: string, v: string | undefined) => (v ? p.set(k, v) : p.delete(k));
    set('level', view.level);
    set('anomaly', view.anomaly > 0 ? String(view.anomaly) : undefined);
    set('tab', view.tab !== 'anomaly' ? view.tab : undefined);
    const q = p.toString();
    history.replaceState(history.state, '', `${location.pathname}${q ? `?${q}` : ''}`);
  }

  /** The view the address names (level=, anomaly=, tab=), or null. */
  viewFromUrl(): ViewState | null {
    const p = new URLSearchParams(location.search);
    const level = p.get('level') ?? undefined;
    if (!level || !/^[A-Za-z]{1,8}$/.test(level)) return null;
    const a = Number(p.get('anomaly') ?? 0);
    const tab = p.get('tab') ?? undefined;
    return { level, anomaly: Number.isInteger(a) && a >= 0 && a < 1000 ? a : 0, tab: tab && /^[a-z]{1,16}$/.test(tab) ? tab : undefined };
  }

  /** A Hermitage table's cell open (cell=, "read-committed.P4") and case shown (case=, its number in the cell). */
  hermitageFromUrl(): { cell: string | null; case: string | null } {
    const p = new URLSearchParams(location.search);
    return { cell: p.get('cell'), case: p.get('case') };
  }

  /** The address of the input shown (its example=, src= or input=) with more parameters, as a query. */
  inputAddress(more: Record<string, string>): string {
    const now = new URLSearchParams(location.search);
    const p = new URLSearchParams();
    for (const k of ['example', 'src', 'input']) { const v = now.get(k); if (v !== null) p.set(k, v); }
    for (const [k, v] of Object.entries(more)) p.set(k, v);
    return p.toString();
  }

  /** Puts a Hermitage table's open cell into the address (null: none); not in embeds. */
  syncCell(cell: string | null) {
    if (this.embed) return;
    const p = new URLSearchParams(location.search);
    if (cell) p.set('cell', cell);
    else p.delete('cell');
    const q = p.toString();
    history.replaceState(history.state, '', `${location.pathname}${q ? `?${q}` : ''}`);
  }

  /** The levels the page asked for with ?levels= (null: every level). */
  wantedLevels(): Set<string> | null {
    const wanted = new URLSearchParams(location.search).get('levels');
    return wanted ? new Set(wanted.split(',').map((s) => s.trim().toUpperCase())) : null;
  }

  /** Drops a share link's fragment: what replaces the shared input must not bring it back on reload. */
  dropFragment() {
    if (location.hash) history.replaceState(null, '', location.pathname + location.search);
  }
}
