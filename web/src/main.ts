import './styles.css';
import { App } from './ui/app';
import { warmFonts } from './dom/fonts';

declare global {
  /** The page's app, for tests and scripts/bench-histories.mjs (its budget, verdicts, input). */
  interface Window { __isoscope?: App }
}

try {
  const t = localStorage.getItem('isoscope-theme');
  if (t === 'light' || t === 'dark') document.documentElement.dataset.theme = t;
} catch { /* storage disabled */ }

warmFonts();
const app = new App(document.getElementById('app')!);
// The first toLocaleString() loads the number-formatting data (a long task in Chromium),
// which the results page's counts needed as a dropped history's verdict arrived: loaded while
// the page is idle instead.
// (not every browser has requestIdleCallback)
const idle = (window as Partial<Pick<Window, 'requestIdleCallback'>>).requestIdleCallback ?? ((f: () => void) => setTimeout(f, 200));
idle(() => (0).toLocaleString('en-US'));
window.__isoscope = app;

// Offline: once loaded, the app (scripts, wasm, examples) is served from the cache.
if (import.meta.env.PROD && 'serviceWorker' in navigator && !new URLSearchParams(location.search).has('embed') && location.protocol.startsWith('http')) {
  navigator.serviceWorker.register('./sw.js', { scope: './' }).catch(() => { /* offline support is optional */ });
}
