// The Share dialog: the links this result can be shared by, each with its length (the whole
// history, the counterexample of the anomaly in view), the preferred one copied at once; and
// the anomalies of the other failing levels, whose counterexample links are made on request.
import { counterexampleLink, shareOptions, type ShareableAnomaly, type ShareOption, type ShareRequest } from '../share/link';
import { clear, h, toast } from '../dom/dom';

const chars = (n: number) => `${n.toLocaleString('en-US')} characters`;

async function copy(link: string): Promise<boolean> {
  try { await navigator.clipboard.writeText(link); return true; } catch { return false; }
}

/**
 * Opens the dialog for r; `others` are anomalies of other levels. onLink is told of each link
 * copied (the page keeps the latest in the address bar).
 */
export async function openShareDialog(r: ShareRequest, others: ShareableAnomaly[], onLink: (link: string) => void) {
  document.getElementById('share-dialog')?.remove();
  const list = h('div', { class: 'share-options', id: 'share-options' }, h('p', { class: 'muted' }, 'Preparing the links\u2026'));
  const close = h('button', { class: 'btn', type: 'submit', value: 'close' }, 'Close');
  const dlg = h('dialog', { id: 'share-dialog', 'aria-labelledby': 'share-title' },
    h('form', { method: 'dialog' },
      h('h2', { id: 'share-title' }, 'Share this result'),
      h('p', { class: 'muted' }, 'A link holds the history in its fragment, which browsers never send to a server.'),
      list,
      h('div', { class: 'row' }, close)));
  dlg.addEventListener('close', () => dlg.remove());
  document.body.append(dlg);
  dlg.showModal();

  const row = (o: ShareOption, copied: boolean) => {
    const b = h('button', { class: `btn${copied ? ' primary' : ''}`, type: 'button', 'data-what': o.what, 'data-length': o.link.length }, copied ? 'Copied' : 'Copy');
    const el = h('div', { class: 'share-option', 'data-what': o.what },
      h('div', {}, h('strong', {}, o.what === 'history' ? 'Whole history' : 'Counterexample'), h('span', { class: 'muted' }, ` \u00b7 ${chars(o.link.length)}`),
        h('div', { class: 'muted small' }, o.note)),
      b);
    b.addEventListener('click', async () => {
      onLink(o.link);
      const ok = await copy(o.link);
      for (const x of list.querySelectorAll('button[data-what]')) { x.textContent = 'Copy'; x.classList.remove('primary'); }
      b.textContent = ok ? 'Copied' : 'In the address bar';
      b.classList.add('primary');
    });
    return el;
  };

  let made;
  try { made = await shareOptions(r); } catch (e) { made = { options: [], preferred: -1, refused: `Share failed: ${(e as Error).message}` }; }
  clear(list);
  if (made.refused) list.append(h('p', { class: 'reason', id: 'share-refused' }, made.refused));
  made.options.forEach((o, i) => list.append(row(o, i === made.preferred)));
  if (made.preferred >= 0) {
    const o = made.options[made.preferred];
    onLink(o.link);
    const ok = await copy(o.link);
    toast(ok ? `Link copied (${chars(o.link.length)}): ${o.note}.` : 'Could not use the clipboard; the link is in the address bar.');
  }
  // other levels' anomalies: their counterexample links, on request
  const rest = others.filter((a) => a.level !== r.selected?.level);
  if (rest.length) {
    list.append(h('p', { class: 'muted' }, made.options.length ? 'Or the counterexample of another level\u2019s anomaly:' : 'The anomalies of other levels can be shared:'));
    for (const a of rest) {
      const b = h('button', { class: 'btn sm', type: 'button', 'data-level': a.level }, `${a.level}: ${a.title}`);
      b.addEventListener('click', async () => {
        b.setAttribute('disabled', '');
        b.textContent = `${a.level}: preparing\u2026`;
        const c = await counterexampleLink(r, a).catch((e) => ({ refused: (e as Error).message }));
        const slot = h('div', {});
        b.replaceWith(slot);
        if ('link' in c) { slot.append(row(c, false)); (slot.querySelector('button') as HTMLButtonElement).click(); }
        else slot.append(h('p', { class: 'reason' }, `${a.level}: ${c.refused}`));
      });
      list.append(b, ' ');
    }
  }
}
