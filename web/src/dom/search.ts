// The search box of the History and the Timeline, and the list of what it found.
import { h } from './dom';

/** A search form; onSearch gets the trimmed query on Enter. */
export function searchForm(id: string, onSearch: (query: string) => void): HTMLFormElement {
  const input = h('input', { type: 'search', class: 'tl-search', id, placeholder: 'T12, a label, or k7 for a key', 'aria-label': 'Find a transaction: T12 by number, a label, or k7 (key 7) for the transactions touching a key' }) as HTMLInputElement;
  const form = h('form', { class: 'search-form', role: 'search' }, input) as HTMLFormElement;
  form.addEventListener('submit', (e) => { e.preventDefault(); if (input.value.trim()) onSearch(input.value.trim()); });
  return form;
}

/** "3 transactions match x (key): T4, T9, T12"; each a button that shows it. */
export function matchList(query: string, found: { txn: number; match: string }[], pick: (txn: number) => void, name: (txn: number) => string = (t) => `T${t}`): HTMLElement {
  if (!found.length) return h('p', { class: 'muted', id: 'search-result' }, `No transaction matches ${query}.`);
  const links = found.map((f) => {
    const b = h('button', { class: 'txlink', type: 'button', title: `by ${f.match}` }, name(f.txn));
    b.addEventListener('click', () => pick(f.txn));
    return b;
  });
  return h('p', { class: 'search-result', id: 'search-result' }, `${found.length}${found.length >= 50 ? '+' : ''} match${found.length === 1 ? '' : 'es'} for ${query} (${found[0].match}): `,
    links.flatMap((l, i) => (i ? [', ', l] : [l])));
}
