import './styles.css';
import { App } from './ui/app';
import { warmFonts } from './dom/fonts';

try {
  const t = localStorage.getItem('isoscope-theme');
  if (t === 'light' || t === 'dark') document.documentElement.dataset.theme = t;
} catch { /* storage disabled */ }

warmFonts();
const app = new App(document.getElementById('app')!);
(window as any).__isoscope = app;

// Offline: once loaded, the app (scripts, wasm, examples) is served from the cache.
if (import.meta.env.PROD && 'serviceWorker' in navigator && !new URLSearchParams(location.search).has('embed') && location.protocol.startsWith('http')) {
  navigator.serviceWorker.register('./sw.js', { scope: './' }).catch(() => { /* offline support is optional */ });
}
