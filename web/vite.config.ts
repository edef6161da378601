import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig, type Plugin } from 'vite';

/** Files of web/public the app uses offline too (icons, the door's manifest); sw.js is the worker itself. */
const publicFiles = (): string[] => readdirSync(join(import.meta.dirname, 'public')).filter((f) => f !== 'sw.js').map((f) => `/${f}`);

/**
 * Writes precache.json: every file of the build, so the service worker can cache the whole app
 * (the door page above all) at install time, before the network goes away.
 */
const precacheManifest = (): Plugin => ({
  name: 'ticketrush-precache-manifest',
  generateBundle(_options, bundle) {
    const files = ['/', ...Object.keys(bundle).map((f) => `/${f}`), ...publicFiles()];
    this.emitFile({ type: 'asset', fileName: 'precache.json', source: JSON.stringify(files) });
  },
});

export default defineConfig({
  root: import.meta.dirname,
  base: '/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  plugins: [precacheManifest()],
  build: {
    outDir: '../dist/web',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    reportCompressedSize: false,
  },
});
