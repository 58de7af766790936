// Gridscope's service worker: the page keeps working offline (and can be installed) once it
// has been opened. Network first, so a new build is used as soon as it is served; when the
// network is gone — or the server answers with an error — the last good copy of the same
// file is served from the cache. Only this origin's GET requests are touched: the page never
// requests anything else, and dropped traces are read from disk, never fetched, so no user
// data ever enters the cache.
const CACHE = 'gridscope';

// The app shell. index.html names the hashed app files (script and wasm in the data
// attributes of its loader tag, the stylesheet in a link), so they are read from it.
async function shell() {
  const res = await fetch('./', { cache: 'no-store' });
  const html = await res.text();
  const named = [...html.matchAll(/(?:src|href|data-js|data-wasm)="([^"#]+)"/g)]
    .map((m) => m[1])
    .filter((u) => !u.startsWith('data:') && !/^[a-z]+:\/\//i.test(u));
  // The docs pages the help texts link to (listed by the build in docs/index.json).
  let docs = [];
  try {
    const list = await fetch('docs/index.json', { cache: 'no-store' });
    if (list.ok) docs = (await list.json()).map((f) => `docs/${f}`);
  } catch (_) { /* a build without docs: the app alone is kept */ }
  return ['./', 'worker_loader.js', 'worker.js', 'worker_bg.wasm', ...named, ...docs];
}

self.addEventListener('install', (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    await cache.addAll([...new Set(await shell())]);
    await self.skipWaiting();
  })());
});

self.addEventListener('activate', (event) => {
  event.waitUntil(self.clients.claim());
});

self.addEventListener('fetch', (event) => {
  const req = event.request;
  if (req.method !== 'GET' || new URL(req.url).origin !== self.location.origin) return;
  event.respondWith((async () => {
    const cache = await caches.open(CACHE);
    // The fragment (#s1=…, a shared scenario) never reaches the server; the query is ignored
    // so './?x' still finds './'.
    const cached = () => cache.match(req, { ignoreSearch: true });
    try {
      const res = await fetch(req);
      if (res.ok) {
        await cache.put(req, res.clone());
        return res;
      }
      return (await cached()) || res;
    } catch (err) {
      const hit = await cached();
      if (hit) return hit;
      throw err;
    }
  })());
});
