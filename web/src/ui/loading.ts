// Loading: the landing page and the ways an input arrives (landing.ts's sources: files, a folder,
// a zip, a drop, a paste, an example; the address's ?src=, ?example=, ?input=local; Back and
// Forward through navigation.ts), reading it (the core's parse, then its levels), a set of
// histories' table, a Hermitage table's page (hermitage-page.ts), and the errors the landing page
// shows. Every input begun is counted, so that one that arrives late (a share link decoded in its
// worker) yields to a later one.
import { CoreCrash, CoreFailure } from '../core/result';
import type { HistoryPartJson, ParseError } from '../core/types';
import { LoadedHistory } from '../model/loaded';
import { describeInput, InputError } from '../load/input';
import type { ViewState } from '../share/share';
import type { InFile } from '../worker/protocol';
import { h } from '../dom/dom';
import type { Checking } from './checking';
import type { Chrome } from './chrome';
import { openHermitage, type HermitageHost } from './hermitage-page';
import { HistorySet, type SetPart } from './history-set';
import type { UpLink } from './input-bar';
import { exampleFiles, formatSelect, renderLanding, type InputSources } from './landing';
import { keepLocally, keptLocally } from './local-input';
import { Navigation } from './navigation';
import type { ResultsPage } from './results-page';
import type { UrlState } from './url-state';

export class Loading {
  /** where the landing page, a drop or a paste sends an input */
  readonly sources: InputSources = {
    load: (get, format = '', address = '') => {
      // an input with no address (dropped, pasted) comes back from memory (Back, Forward) and,
      // after a reload, from this browser's IndexedDB (?input=local; never sent anywhere)
      const load = this.navigation.push('results', address || (this.url.embed ? '' : 'input=local'));
      void this.loadFrom(async () => {
        const files = await get();
        if (!address) {
          this.navigation.keep(load, files, format);
          if (!this.url.embed) void keepLocally(files, format);
        }
        return files;
      }, format);
    },
  };
  private readonly navigation: Navigation;
  /** what a Hermitage table's page (hermitage-page.ts) needs: entries, the checker, errors */
  private readonly hermitage: HermitageHost;
  /** counts the inputs begun (a load, a share link's decoding) */
  private inputs = 0;
  /** the input came from a share link of a counterexample (the input bar says so) */
  private sharedCounterexample = false;
  /** where the landing page shows a load's error */
  private errorSlot: HTMLElement | null = null;
  /** Sets of histories shown so far, checked: Back to one shows its table again at once. */
  private readonly sets = new WeakMap<InFile[], HistorySet>();
  private set: HistorySet | null = null;

  constructor(
    private readonly chrome: Chrome,
    private readonly url: UrlState,
    private readonly checking: Checking,
    private readonly results: ResultsPage,
  ) {
    this.navigation = new Navigation({
      openFromParams: (p) => this.openFromParams(p),
      reopen: (files, format) => void this.load(files, format),
      showLanding: () => this.showLanding(),
    }, !url.embed);
    this.hermitage = {
      main: chrome.main, url,
      entry: (address, file) => this.navigation.keep(this.navigation.push('results', address), [file], ''),
      clear: () => {
        ++this.inputs;
        this.checking.checker.dispose();
        this.results.close(false);
        this.chrome.setShareable(false);
      },
      check: (file, view, up) => void this.load([file], '', view, up),
      error: (message, file) => this.showError({ message, file }, 'This Hermitage table could not be read'),
    };
  }

  /** A new input begins (a share link's decoding): its number, for isLatest. */
  begin(): number { return ++this.inputs; }
  /** No input began after input. */
  isLatest(input: number): boolean { return input === this.inputs; }

  /** Open and the brand: a new entry, the landing page. */
  goToLanding() {
    this.navigation.push('landing');
    this.showLanding();
  }

  showLanding() {
    delete document.body.dataset.checked;
    this.checking.checker.dispose();
    this.results.close(true);
    this.chrome.setShareable(false);
    this.url.dropFragment();
    this.errorSlot = renderLanding(this.chrome.main, this.sources);
  }

  /** Reads an input that get() fetches (a file picked, an example, ?src=). */
  async loadFrom(get: () => Promise<InFile[]>, format = '', view: ViewState | null = null) {
    // the page no longer shows a checked history from the moment a new input is being read
    delete document.body.dataset.checked;
    // a new input replaces a shared one: the old fragment must not come back on reload
    this.url.dropFragment();
    this.sharedCounterexample = false;
    let files: InFile[];
    try {
      files = await get();
    } catch (e) {
      this.showError({ message: (e as Error).message, text: (e as Error).message }, 'Could not read the input');
      return;
    }
    await this.load(files, format, view);
  }

  /** A share link's history (sharing.ts decodes it): the canonical JSON under a .json name. */
  loadShared(data: ArrayBuffer, counterexample: boolean, view: ViewState) {
    this.sharedCounterexample = counterexample;
    // formats are told by content and name; the page shows the original input's name
    const name = counterexample ? 'shared-counterexample.json' : 'shared-history.json';
    void this.load([{ name, data }], '', view);
  }

  /**
   * Reads files and checks them (or, several histories, shows their table; a Hermitage table, its
   * page). up: the link back to where the input came from.
   */
  async load(files: InFile[], format = '', view: ViewState | null = null, up?: UpLink) {
    ++this.inputs;
    delete document.body.dataset.checked;
    this.set?.stop();
    this.set = null;
    if (!format && files.length === 1 && openHermitage(files[0], this.hermitage)) return;
    view ??= this.url.viewFromUrl();
    const checker = this.checking.checker;
    // several histories (folders of runs, several files): a table, each checked on its own
    if (!format && files.length > 1 && !this.url.embed) {
      checker.dispose();  // its idle worker, kept as the spare, tells the histories apart
      const parts = await checker.histories(files).catch(() => []);
      if (parts.length >= 2) { this.showSet(files, parts); return; }
    }
    this.results.start({ files, label: view?.name ?? describeInput(files), sharedCounterexample: this.sharedCounterexample, up }, view);
    this.checking.reset();
    try {
      this.results.read(new LoadedHistory(await checker.load(files, format)));
    } catch (e) {
      if (e instanceof CoreFailure) this.showError(e.detail, 'This history could not be read', e.detail.format_unrecognised ? { files, readableAs: e.detail.readable_as } : undefined);
      else this.showError({ message: (e as Error).message, text: (e as Error).message }, e instanceof CoreCrash ? 'The checker stopped unexpectedly' : 'The checker could not start');
      return;
    }
    try {
      await this.checking.readLevels();
    } catch (e) {
      this.showError({ message: (e as Error).message }, 'The checker failed');
      return;
    }
    this.chrome.setShareable(true);
    // The first level is asked for before the results page is built and laid out: the worker
    // checks while the page draws, which shows the levels decided by then.
    this.results.detach();
    void this.checking.run();
    this.results.render();
    // the page changed under the user: focus moves to its heading, not to <body>
    if (!this.url.embed) document.getElementById('results-title')?.focus();
  }

  private showSet(files: InFile[], parts: HistoryPartJson[]) {
    this.checking.checker.dispose();
    this.results.close(false);
    this.chrome.setShareable(false);
    let set = this.sets.get(files);
    if (!set) {
      set = new HistorySet(describeInput(files), files, parts, (p) => this.openPart(p));
      this.sets.set(files, set);
    }
    this.set = set;
    set.render(this.chrome.main, this.checking.budgetMs);
  }

  /** One history of a set: its results, with Back to the set's table. */
  private openPart(p: SetPart) {
    const load = this.navigation.push('results');
    this.navigation.keep(load, p.files, '');
    void this.load(p.files, '', { name: p.name });
  }

  /** A located error on the landing page; for an unrecognised format, a choice of format to read the same files as. */
  showError(err: ParseError, title: string, retry?: { files: InFile[]; readableAs?: string }) {
    this.showLanding();
    const where = [err.file, err.line !== undefined ? `line ${err.line}` : '', err.column !== undefined ? `column ${err.column}` : '', err.offset !== undefined ? `byte ${err.offset}` : ''].filter(Boolean).join(', ');
    let choice: HTMLElement | null = null;
    if (retry) {
      const sel = formatSelect('Choose a format\u2026', retry.readableAs);
      const go = h('button', { class: 'btn primary', type: 'button', id: 'read-as' }, 'Read as this format');
      go.addEventListener('click', () => { if (sel.value) void this.load(retry.files, sel.value); });
      choice = h('div', { class: 'row read-as' }, h('label', {}, 'Read it as ', sel), go);
    }
    this.errorSlot?.append(h('div', { class: 'error', role: 'alert', id: 'load-error' },
      h('span', { class: 'icon', 'aria-hidden': 'true' }, '!'),
      h('div', {},
        h('h2', {}, title),
        where ? h('div', { class: 'where' }, where) : null,
        h('pre', {}, err.message || err.text || 'unknown error'),
        choice)));
  }

  /** Opens what the address names (?input=local, ?example=, ?src=); false when it names nothing. */
  openFromParams(p: URLSearchParams): boolean {
    if (p.get('input') === 'local' && !this.url.embed) {
      void keptLocally().then((kept) => {
        if (kept) void this.load(kept.files, kept.format);
        else this.showError({ message: 'The input of this page is no longer kept in this browser: open it again.' }, 'Nothing to show');
      });
      return true;
    }
    const src = p.get('src');
    const example = p.get('example');
    if (!src && !example) return false;
    if (!src && example) {
      void this.loadFrom(() => exampleFiles(example));
      return true;
    }
    const url = src!;
    let u: URL;
    try { u = new URL(url, location.href); } catch { this.showError({ message: 'bad src URL' }, 'Cannot load'); return true; }
    if (u.origin !== location.origin) { this.showError({ message: `src must be on this origin (${location.origin})` }, 'Cannot load'); return true; }
    void this.loadFrom(async () => {
      // the bytes the server holds now: never from a cache, never stored (public/sw.js leaves
      // no-store requests alone)
      const res = await fetch(u.href, { cache: 'no-store' });
      if (!res.ok) throw new InputError(`${u.pathname}: HTTP ${res.status}`);
      return [{ name: u.pathname.split('/').pop() || 'history', data: await res.arrayBuffer() }];
    }, p.get('format') ?? '');  // ?format= reads src as that format, like the embed's attribute
    return true;
  }
}
