// What a share link holds: the whole history when it fits, and the counterexample of an anomaly
// (the core builds, shrinks and checks it again, so a link never claims a violation it does
// not reproduce; its transactions keep their numbers, sessions, positions and labels). Both are
// offered with their lengths; above SHORT_LINK_CHARS the short one is the default, since chat
// tools and issue trackers cut long links.
import type { Counterexample } from '../core/types';
import { encodeFragment, MAX_LINK_CHARS, type ViewState } from './share';

/** Histories up to this many transactions are shared whole when the link stays small enough. */
export const TX_LIMIT_FULL_SHARE = 200_000;
/** Above this many characters, the counterexample's link is the default. */
export const SHORT_LINK_CHARS = 4000;

/** An anomaly a link can carry the counterexample of. */
export interface ShareableAnomaly { level: string; index: number; title: string }

export interface ShareRequest {
  base: string;  // the page's address without query or fragment
  name: string;  // the input's name, shown when the link is opened
  transactions: number;
  view: ViewState;
  /** the anomaly in view, if any (its counterexample is offered) */
  selected?: ShareableAnomaly;
  wholeHistory(): Promise<string>;  // canonical JSON
  counterexample(level: string, index: number): Promise<Counterexample>;
}

export interface ShareOption {
  what: 'history' | 'counterexample';
  link: string;
  /** one line for the user: what the link holds */
  note: string;
}

export interface ShareOptions {
  options: ShareOption[];
  /** index into options of the one to copy at once; -1: none */
  preferred: number;
  /** why there is no link, when options is empty */
  refused?: string;
}

/** The link holding a's counterexample, or why there is none. */
export async function counterexampleLink(r: ShareRequest, a: ShareableAnomaly): Promise<ShareOption | { refused: string }> {
  const c = await r.counterexample(a.level, a.index);
  if (!c.reproduces) return { refused: `No smaller history reproduces this ${a.title.toLowerCase()} within the time allowed.` };
  const name = r.name ? `${r.name} (counterexample)` : '';
  const link = `${r.base}#${encodeFragment({ history: c.history, view: { level: a.level, anomaly: 0, tab: 'anomaly', name }, counterexample: true })}`;
  if (link.length > MAX_LINK_CHARS) return { refused: 'Even the counterexample exceeds the link size limit.' };
  const of = `${c.transactions.toLocaleString('en-US')} of ${r.transactions.toLocaleString('en-US')} transactions`;
  return { what: 'counterexample', link, note: `the ${c.minimal ? 'minimal ' : ''}counterexample of ${a.level}'s ${a.title.toLowerCase()} (${of}), which fails ${a.level} again` };
}

export async function shareOptions(r: ShareRequest): Promise<ShareOptions> {
  const options: ShareOption[] = [];
  let whole: ShareOption | null = null;
  let tooLarge = r.transactions > TX_LIMIT_FULL_SHARE;
  if (!tooLarge) {
    const link = `${r.base}#${encodeFragment({ history: await r.wholeHistory(), view: { ...r.view, name: r.name } })}`;
    if (link.length <= MAX_LINK_CHARS) whole = { what: 'history', link, note: 'the whole history, with the level and tab in view' };
    else tooLarge = true;
  }
  let refused = tooLarge ? 'This history is too large to share in a link' : '';
  // the counterexample is worth computing when the whole history makes a long link, or none
  if (r.selected && (!whole || whole.link.length > SHORT_LINK_CHARS / 4)) {
    const c = await counterexampleLink(r, r.selected);
    if ('link' in c) options.push(c);
    else refused = `${refused}${refused ? '; ' : ''}${c.refused}`;
  } else if (!whole && !r.selected) {
    refused += ', and the level in view has no anomaly to share instead';
  }
  if (whole) options.push(whole);
  let preferred = options.length ? 0 : -1;
  if (whole && (options.length === 1 || whole.link.length <= SHORT_LINK_CHARS)) preferred = options.indexOf(whole);
  return { options, preferred, refused: options.length ? undefined : `${refused}.` };
}
