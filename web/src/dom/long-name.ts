// "the whole name": a long key or value (model/ops.ts) is shown by its first bytes; this link
// fetches it whole from the core only when asked, and opens it as a text file (a blob: URL), so
// a megabyte-long key never enters the DOM.
import type { LongName, NamesJson } from '../core/types';
import { h } from './dom';

/** The whole text of long name n ("key 1", "value 2") from the names table. */
export function wholeText(names: NamesJson, n: LongName): string | undefined {
  const m = /^(key|value) (\d+)$/.exec(n.name);
  if (!m) return undefined;
  return (m[1] === 'key' ? names.keys : names.values)[Number(m[2]) - 1];
}

export function wholeNameLink(n: LongName, names: () => Promise<NamesJson>): HTMLElement {
  const a = h('a', { class: 'whole-name', href: '#', 'data-name': n.name, title: `${n.name}: ${n.bytes.toLocaleString('en-US')} bytes, opened whole as a text file` },
    `${n.name} whole (${n.bytes.toLocaleString('en-US')} bytes)`);
  a.addEventListener('click', (e) => {
    if (a.href.startsWith('blob:')) return;  // made already: the link opens it
    e.preventDefault();
    void names().then((all) => {
      const text = wholeText(all, n);
      if (text === undefined) return;
      a.href = URL.createObjectURL(new Blob([text], { type: 'text/plain;charset=utf-8' }));
      a.target = '_blank';
      a.rel = 'noopener';
      window.open(a.href, '_blank', 'noopener');
    });
  });
  return a;
}
