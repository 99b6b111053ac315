// Sharing: the Share dialog for what the page shows (share-dialog.ts makes the links), and
// opening a share link (#h=..., decoded in a worker of its own, share/decode.ts), on load and
// when the fragment changes. The link copied last is the Share button's data-link and the
// address; it is not opened again when the fragment says it.
import { describeKind } from '../model/anomalies';
import { decodeLink } from '../share/decode';
import type { ShareableAnomaly } from '../share/link';
import type { Checking } from './checking';
import type { Chrome } from './chrome';
import type { Loading } from './loading';
import type { ResultsPage } from './results-page';
import { openShareDialog } from './share-dialog';

export class Sharing {
  constructor(
    private readonly chrome: Chrome,
    private readonly checking: Checking,
    private readonly results: ResultsPage,
    private readonly loading: Loading,
  ) {}

  /** Shares what the page shows: the Share dialog offers the links and copies the preferred one. */
  async share() {
    const shown = this.results.history;
    if (!shown) return;
    const { level, anomaly, tab } = this.results.view;
    const anomalyOf = (l: string, i: number): ShareableAnomaly | undefined => {
      const a = this.checking.results[l]?.anomalies?.[i];
      return a ? { level: l, index: i, title: describeKind(a.kind).title } : undefined;
    };
    const others = this.checking.known().map((l) => anomalyOf(l, 0)).filter((a): a is ShareableAnomaly => !!a);
    const checker = this.checking.checker;
    await openShareDialog({
      base: `${location.origin}${location.pathname}`,
      name: this.results.label,
      transactions: shown.stats.transactions,
      view: { level, anomaly, tab, key: this.results.keyInView },
      selected: level ? anomalyOf(level, anomaly) : undefined,
      wholeHistory: () => checker.convert('isoscope'),
      counterexample: (l, i) => checker.counterexample(l, i),
    }, others, (link) => {
      this.chrome.shareButton.dataset.link = link;
      history.replaceState(null, '', link);
    });
  }

  /** Opens the share link the fragment holds; false when it holds none. */
  openFromHash(): boolean {
    if (!new URLSearchParams(location.hash.slice(1)).get('h')) return false;
    if (this.chrome.shareButton.dataset.link === location.href) return true; // our own link
    // decoded in a worker: inflating a large link's history would hold the main thread
    const input = this.loading.begin();
    decodeLink(location.hash).then((p) => {
      // null cannot be (the fragment has a history, checked above); another link or a dropped
      // file since then is what the page shows
      if (!p || !this.loading.isLatest(input)) return;
      this.results.openOnTab(p.view.tab);
      this.loading.loadShared(p.data, p.counterexample, p.view);
    }).catch((e: Error) => {
      if (this.loading.isLatest(input)) this.loading.showError({ message: e.message }, 'This share link cannot be opened');
    });
    return true;
  }
}
