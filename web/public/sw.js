// TicketRush service worker: keeps the app (above all the door check-in page) and the ticket
// public key available offline. Pages: network first, cached copy when offline. Built assets:
// cache first (their names carry a content hash). The API is never cached, except the public key.
// Icons and the door's web app manifest: network first, the precached copy offline.
const CACHE = 'ticketrush-v1';
const KEY_URL = '/api/v1/tickets/public-key';
const ROOT_FILES = /^\/(favicon\.ico|favicon\.svg|icon-\d+\.png|manifest\.webmanifest)$/;

self.addEventListener('install', (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    const files = await fetch('/precache.json').then((r) => r.json()).catch(() => ['/']);
    await cache.addAll(files);
    await cache.add(KEY_URL).catch(() => undefined);
    await self.skipWaiting();
  })());
});

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) if (name !== CACHE) await caches.delete(name);
    await self.clients.claim();
  })());
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (url.pathname === KEY_URL || ROOT_FILES.test(url.pathname)) {
    event.respondWith(networkFirst(request, request));
  } else if (request.mode === 'navigate' && !/^\/(api|docs|metrics|healthz|readyz)(\/|$)/.test(url.pathname)) {
    // Every client-side route is the same index page.
    event.respondWith(networkFirst(request, new Request('/')));
  } else if (url.pathname.startsWith('/assets/')) {
    event.respondWith(caches.match(request).then((hit) => hit ?? fetchAndKeep(request, request)));
  }
});

async function fetchAndKeep(request, cacheKey) {
  const response = await fetch(request);
  if (response.ok) {
    const cache = await caches.open(CACHE);
    await cache.put(cacheKey, response.clone());
  }
  return response;
}

async function networkFirst(request, cacheKey) {
  try {
    return await fetchAndKeep(request, cacheKey);
  } catch (error) {
    const hit = await caches.match(cacheKey);
    if (hit) return hit;
    throw error;
  }
}
