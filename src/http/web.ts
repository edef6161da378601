import { existsSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

/**
 * Serves the built web front end (Vite's output) at `/`. Hashed assets are cached for good; the
 * index page and the service worker are revalidated every time so a new build is picked up.
 * Absent a build, the server runs as an API only and says so once.
 */
export async function serveWeb(app: FastifyInstance, webRoot: string | null): Promise<boolean> {
  if (webRoot === null || !existsSync(join(webRoot, 'index.html'))) {
    if (webRoot !== null) app.log.warn({ webRoot }, 'web front end not built (npm run build); serving the API only');
    return false;
  }
  await app.register(fastifyStatic, {
    root: webRoot,
    prefix: '/',
    // One route per built file, so unknown paths reach the not-found handler (client-side routes).
    wildcard: false,
    // Cache headers are ours (below), not the plugin's default max-age=0.
    cacheControl: false,
    setHeaders: (res, path) => {
      res.setHeader('cache-control', path.includes('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache');
    },
  });
  return true;
}
