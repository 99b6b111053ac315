// Navigation in the URL: each landing page and each set of results is an entry of the browser's
// history, so Back and Forward move between them, and a reload reopens what the address names
// (?example=, ?src=, a share link's fragment). An input without an address (dropped, pasted)
// is kept in memory for its entry. Not in embeds: an iframe's history is its host's.
import type { InFile } from '../worker/protocol';

export interface NavigationHost {
  /** Opens what the address names (?example=, ?src=); false when it names nothing. */
  openFromParams(params: URLSearchParams): boolean;
  /** Shows the results of an input again. */
  reopen(files: InFile[], format: string): void;
  showLanding(): void;
}

export class Navigation {
  /** Inputs loaded through the page so far: an entry knows which one it showed. */
  private loads = Date.now();  // unique across reloads: entries of an earlier document keep theirs
  /**
   * The latest inputs without an address, kept so that Back and Forward can show them again (a
   * set of histories and the one opened from it); they share the page's buffers, no copies.
   */
  private unaddressed = new Map<number, { files: InFile[]; format: string }>();
  private static readonly KEPT = 8;

  constructor(private readonly host: NavigationHost, private readonly enabled: boolean) {
    if (enabled) window.addEventListener('popstate', () => this.route());
  }

  /**
   * A new entry: the landing page, or results whose query (address) reopens them after a
   * reload. Other parameters (levels, budget) stay. Returns the entry's input number.
   */
  push(page: 'landing' | 'results', address = ''): number {
    if (!this.enabled) return this.loads;
    const params = new URLSearchParams(location.search);
    // a new input: its own view (level=, anomaly=, tab=, a Hermitage table's cell= and case=
    // belong to the last one)
    for (const k of ['example', 'src', 'input', 'level', 'anomaly', 'tab', 'cell', 'case']) params.delete(k);
    for (const [k, v] of new URLSearchParams(address)) params.set(k, v);
    const query = params.toString();
    const url = `${location.pathname}${query ? `?${query}` : ''}`;
    const state = { page, load: page === 'results' ? ++this.loads : this.loads };
    if (page === 'landing' && (history.state as { page?: string } | null)?.page === 'landing') history.replaceState(state, '', url);
    else history.pushState(state, '', url);
    return state.load;
  }

  /** Keeps an input that has no address, for the entry `load`. */
  keep(load: number, files: InFile[], format: string) {
    this.unaddressed.set(load, { files, format });
    for (const k of this.unaddressed.keys()) if (this.unaddressed.size > Navigation.KEPT) this.unaddressed.delete(k);
  }

  /** Back and Forward: show what the address and the entry say. */
  private route() {
    if (location.hash.includes('h=')) return; // hashchange opens share links
    const params = new URLSearchParams(location.search);
    if (params.get('input') !== 'local' && this.host.openFromParams(params)) return;
    // an input kept in memory before the one on disk: ?input=local names only the latest kept
    const state = history.state as { page?: string; load?: number } | null;
    const kept = state?.load !== undefined ? this.unaddressed.get(state.load) : undefined;
    if (state?.page === 'results' && kept) { this.host.reopen(kept.files, kept.format); return; }
    if (this.host.openFromParams(params)) return;
    this.host.showLanding();
  }
}
