// The results page's input bar: the input's name and size, the format the core detected, the
// history's statistics (a counterexample's transactions "2 of 100,002"), and the controls (the
// time budget, Check again, Cancel; none in embeds), and a link up to where the input came from
// (a Hermitage table's case: its table).
import { formatCount, formatMs } from '../model/levels';
import type { LoadedHistory } from '../model/loaded';
import { formatBytes, totalBytes } from '../load/input';
import type { InFile } from '../worker/protocol';
import { h } from '../dom/dom';

/** The input the page shows: its files, its name, whether a share link carried its counterexample. */
export interface ShownInput { files: InFile[]; label: string; sharedCounterexample: boolean; up?: UpLink }

/** Where the input came from, to go back to: a Hermitage table for one of its cases. */
export interface UpLink { label: string; open(): void }

export function inputBar(input: ShownInput, history: LoadedHistory, controls: HTMLElement | null): HTMLElement {
  const inp = history.stats;
  const label = input.label;
  const stat = (v: string, l: string) => h('div', { class: 'stat' }, h('b', {}, v), h('span', {}, l));
  let up: HTMLElement | null = null;
  if (input.up) {
    const link = input.up;
    up = h('button', { class: 'btn sm up-link', type: 'button', id: 'up-link' }, `\u2190 ${link.label}`);
    up.addEventListener('click', () => link.open());
  }
  return h('section', { class: 'card inputbar', 'aria-label': 'Loaded history' },
    h('h1', { class: 'sr-only', id: 'results-title', tabindex: -1 }, `Isolation levels of ${label}`),
    up,
    h('div', { class: 'file' }, h('strong', { title: label }, label), h('span', { class: 'muted' }, formatBytes(totalBytes(input.files)), input.sharedCounterexample ? ' \u00b7 shared counterexample' : '')),
    h('span', { class: 'badge', id: 'format', title: 'Detected format' }, inp.format),
    h('div', { class: 'stats', id: 'stats' },
      stat(formatCount(inp.sessions), 'sessions'), stat(history.names.ofOriginal(inp.transactions) ?? formatCount(inp.transactions), 'transactions'),
      stat(formatCount(inp.operations), 'operations'), stat(formatCount(inp.keys), 'keys'),
      inp.parse_ms !== undefined ? stat(formatMs(inp.parse_ms), 'parse') : null,
      inp.dropped_events ? h('div', { class: 'stat', id: 'dropped', title: (inp.dropped ?? []).map((d) => `${d.count} ${d.reason}`).join('\n') },
        h('b', {}, formatCount(inp.dropped_events)), h('span', {}, 'left out')) : null,
      inp.ambiguous_reads ? h('div', { class: 'stat', id: 'ambiguous', title: `${formatCount(inp.repeated_pairs ?? 0)} (key, value) pairs are written more than once: a read of one may read from any of its writes, and a level holds when some choice satisfies it` },
        h('b', {}, formatCount(inp.ambiguous_reads)), h('span', {}, 'ambiguous reads')) : null),
    controls);
}
