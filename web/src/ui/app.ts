// The isoscope page: wires its controllers. Each owns its state:
//   chrome.ts        the frame (top bar, main area, footer) and the theme
//   url-state.ts     the view in the address, ?levels=, ?embed, a share link's fragment
//   loading.ts       the landing page, inputs (files, drops, pastes, examples, ?src=, Back and
//                    Forward through navigation.ts), their parse, a set's table, load errors
//   checking.ts      the check of the loaded history: levels, budget, verdicts, cancel
//   results-page.ts  the results: input bar, ladder, panel (anomaly, History, Timeline)
//   sharing.ts       the Share dialog and opening share links
// What a loaded history is called and its times' unit travel in its LoadedHistory (model/loaded.ts).
import type { LevelState } from '../model/levels';
import type { InputStats } from '../core/types';
import { startWarmUp } from '../worker/client';
import { Checking } from './checking';
import { Chrome } from './chrome';
import { installDropAndPaste } from './landing';
import { Loading } from './loading';
import { ResultsPage } from './results-page';
import { Sharing } from './sharing';
import { UrlState } from './url-state';

export class App {
  private readonly url = new UrlState();
  private readonly checking: Checking;
  private readonly page: ResultsPage;
  private readonly loading: Loading;
  private readonly sharing: Sharing;

  constructor(root: HTMLElement) {
    const chrome = new Chrome(root, this.url.embed, {
      openLanding: () => this.loading.goToLanding(),
      share: () => void this.sharing.share(),
      themeChanged: () => this.page.redraw(),
    });
    this.checking = new Checking(this.url, () => this.page);
    this.page = new ResultsPage(chrome.main, this.url, this.checking);
    this.loading = new Loading(chrome, this.url, this.checking, this.page);
    this.sharing = new Sharing(chrome, this.checking, this.page, this.loading);
    installDropAndPaste(this.loading.sources);
    window.addEventListener('hashchange', () => this.sharing.openFromHash());
    if (!this.sharing.openFromHash() && !this.loading.openFromParams(new URLSearchParams(location.search))) this.loading.showLanding();
    startWarmUp();  // while the page waits for a file (a no-op once one is loading)
  }

  // What scripts/bench-histories.mjs reads and sets through window.__isoscope (main.ts).
  /** the time budget per level, in seconds */
  get budgetS(): number { return this.checking.budgetS; }
  set budgetS(s: number) { this.checking.budgetS = s; }
  /** each level's state so far */
  get results(): Record<string, LevelState> { return this.checking.results; }
  /** the loaded history's statistics (null: none) */
  get input(): InputStats | null { return this.page.history?.stats ?? null; }
}
