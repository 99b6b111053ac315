// What a share link holds: the whole history when it fits, otherwise the selected anomaly's
// counterexample, which the core builds, shrinks and checks again (so a link never claims a
// violation it does not reproduce).
import type { Counterexample } from '../core/types';
import { encodeFragment, MAX_LINK_CHARS, type ViewState } from './share';

/** Histories up to this many transactions are shared whole when the link stays small enough. */
export const TX_LIMIT_FULL_SHARE = 200_000;

export interface ShareRequest {
  base: string;  // the page's address without query or fragment
  transactions: number;
  view: ViewState;
  hasAnomaly: boolean;  // the view's level and anomaly exist
  wholeHistory(): Promise<string>;  // canonical JSON
  counterexample(): Promise<Counterexample>;
}

export async function shareLink(r: ShareRequest): Promise<{ link: string; note: string } | { refused: string }> {
  if (r.transactions <= TX_LIMIT_FULL_SHARE) {
    const link = `${r.base}#${encodeFragment({ history: await r.wholeHistory(), view: r.view })}`;
    if (link.length <= MAX_LINK_CHARS) return { link, note: 'Link copied: it holds the whole history.' };
  }
  if (!r.hasAnomaly) return { refused: 'This history is too large to share in a link, and there is no anomaly to share instead.' };
  const c = await r.counterexample();
  if (!c.reproduces) return { refused: 'This history is too large for a link, and no smaller history reproduces this anomaly within the time allowed.' };
  const link = `${r.base}#${encodeFragment({ history: c.history, view: { level: r.view.level, anomaly: 0, tab: 'anomaly' }, counterexample: true })}`;
  if (link.length > MAX_LINK_CHARS) return { refused: 'Too large to share: even the counterexample exceeds the link size limit.' };
  return {
    link,
    note: `The history is too large for a link; copied a ${c.minimal ? 'minimal ' : ''}counterexample (${c.transactions} transactions) that fails ${r.view.level} again.`,
  };
}
