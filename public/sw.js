// isoscope offline support: the app's own build assets, and nothing else, come from the cache.
//
// The build (web/vite.config.ts, serviceWorkerAssets) writes BUILD below: the list of files it
// produced (paths relative to this worker's scope) and a version, a hash of their contents. Only
// a request for one of those files is answered here; every other request (a history fetched by
// ?src= or by an embed's src, anything else on the origin) goes to the network untouched and is
// never stored, so a page always checks the bytes the server sends now. Requests made with
// cache: 'no-store' (how the page and the embed fetch histories) are never answered here either.
//
// One cache per build, filled at install with fresh copies of every listed file (bypassing the
// HTTP cache), so the HTML, scripts and wasm served from it are always of one build; a new
// deploy changes this file (its list and version), installs a new worker with a new cache, and
// removes the old one. Nothing is sent anywhere.
const BUILD = /* isoscope:build */ null /* isoscope:build-end */;
const PREFIX = 'isoscope-';
const CACHE = BUILD ? PREFIX + BUILD.version : '';
const ASSETS = new Set(BUILD ? BUILD.assets : []);
const scope = () => new URL(self.registration.scope);

// The listed asset a URL names (a folder names its index.html), or ''.
function assetOf(url) {
  const s = scope();
  if (url.origin !== s.origin || !url.pathname.startsWith(s.pathname)) return '';
  let path = url.pathname.slice(s.pathname.length);
  if (path === '' || path.endsWith('/')) path += 'index.html';
  return ASSETS.has(path) ? path : '';
}

self.addEventListener('install', (e) => {
  e.waitUntil((async () => {
    if (CACHE) {
      const cache = await caches.open(CACHE);
      await cache.addAll([...ASSETS].map((a) => new Request(new URL(a, scope()), { cache: 'reload' })));
    }
    await self.skipWaiting();
  })());
});

self.addEventListener('activate', (e) => {
  e.waitUntil((async () => {
    // earlier builds' caches (and the first worker's 'isoscope-v1', which also kept histories)
    for (const name of await caches.keys()) if (name.startsWith(PREFIX) && name !== CACHE) await caches.delete(name);
    await self.clients.claim();
  })());
});

self.addEventListener('fetch', (e) => {
  const req = e.request;
  if (!CACHE || req.method !== 'GET' || req.cache === 'no-store' || req.headers.has('range')) return;
  const asset = assetOf(new URL(req.url));
  if (!asset) return;  // not the app's: the network, not stored
  e.respondWith((async () => {
    const hit = await (await caches.open(CACHE)).match(new URL(asset, scope()).href);
    // a miss (the cache was cleared) goes to the network and stays out of this build's cache
    return hit ?? fetch(req);
  })());
});
