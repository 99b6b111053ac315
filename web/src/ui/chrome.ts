// The page's frame: the top bar (the brand, Open, Share, the theme), the main area each page is
// drawn in, the drop overlay and the footer. The theme is the chrome's own; what the brand, Open
// and Share do is the app's (ChromeHost).
import { h } from '../dom/dom';
import { icon } from '../dom/icons';

export interface ChromeHost {
  /** Open, or the brand: the landing page */
  openLanding(): void;
  share(): void;
  /** the theme changed (the diagram is drawn in its colours) */
  themeChanged(): void;
}

export class Chrome {
  /** where the landing page, the results and a set's table are drawn */
  readonly main: HTMLElement;
  /** enabled while a history is shown; its data-link is the link copied last (share/, sharing.ts) */
  readonly shareButton: HTMLButtonElement;

  constructor(root: HTMLElement, private readonly embed: boolean, private readonly host: ChromeHost) {
    if (embed) document.body.classList.add('embed');
    this.shareButton = h('button', { class: 'btn', type: 'button', id: 'share', disabled: true, title: 'Copy a link that reproduces this result' }, icon('link'), h('span', { class: 'label' }, 'Share'));
    this.shareButton.addEventListener('click', () => host.share());
    this.main = h('main', { class: 'wrap', id: 'main' });
    root.append(this.topbar(), this.main, h('div', { class: 'overlay', 'aria-hidden': 'true' }, h('div', {}, 'Drop to check this history')));
    if (!embed) root.append(h('footer', { class: 'foot' }, 'Histories never leave this page: checking runs locally in WebAssembly.'));
  }

  /** Offers Share (a history is shown) or not. */
  setShareable(on: boolean) { this.shareButton.disabled = !on; }

  private topbar() {
    const embed = this.embed;
    const themeBtn = h('button', { class: 'btn ghost', type: 'button', id: 'theme-toggle', 'aria-label': 'Toggle light or dark theme', title: 'Toggle theme' }, icon('theme'));
    themeBtn.addEventListener('click', () => this.toggleTheme());
    const openBtn = h('button', { class: 'btn', type: 'button', id: 'open-another' }, icon('upload'), h('span', { class: 'label' }, 'Open'));
    openBtn.addEventListener('click', () => this.host.openLanding());
    const brand = h('a', { class: 'brand', href: embed ? './' : '#', target: embed ? '_blank' : null, rel: 'noopener' },
      h('img', { src: './favicon.svg', alt: '' }), 'isoscope', embed ? null : h('span', { class: 'tag' }, 'transaction isolation checker'));
    brand.addEventListener('click', (e) => { if (!embed) { e.preventDefault(); this.host.openLanding(); } });
    return h('header', { class: 'topbar' }, brand, h('div', { class: 'spacer' }), embed ? null : openBtn, embed ? null : this.shareButton, themeBtn);
  }

  private toggleTheme() {
    const cur = document.documentElement.dataset.theme ?? (matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light');
    const next = cur === 'dark' ? 'light' : 'dark';
    document.documentElement.dataset.theme = next;
    try { localStorage.setItem('isoscope-theme', next); } catch { /* private mode */ }
    this.host.themeChanged();
  }
}
