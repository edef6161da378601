import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { composeNode, type Node } from '../../src/compose.js';
import { loadConfig } from '../../src/config.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function node(webRoot: string | null, logs: string[] = []): Promise<Node> {
  const dataDir = mkdtempSync(join(tmpdir(), 'ticketrush-web-'));
  const stream = new Writable({ write(chunk: Buffer, _enc, done) { logs.push(chunk.toString()); done(); } });
  const n = await composeNode(loadConfig({ TICKETRUSH_DATA_DIR: dataDir, TICKETRUSH_DEMO: '0' }), { webRoot, logger: { level: 'warn', stream } });
  cleanups.push(async () => {
    await n.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  return n;
}

function builtSite(): string {
  const dir = mkdtempSync(join(tmpdir(), 'ticketrush-site-'));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>TicketRush</title>');
  writeFileSync(join(dir, 'assets', 'index-abc123.js'), 'console.log(1)');
  writeFileSync(join(dir, 'sw.js'), '// sw');
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe('serving the web front end', () => {
  it('serves the built pages at / and at client-side routes, hashed assets for good, and leaves the API alone', async () => {
    const { app } = await node(builtSite());
    const home = await app.inject({ url: '/', headers: { accept: 'text/html' } });
    expect(home.statusCode).toBe(200);
    expect(home.body).toContain('<title>TicketRush</title>');
    const deep = await app.inject({ url: '/shows/some-show', headers: { accept: 'text/html,application/xhtml+xml' } });
    expect(deep.statusCode).toBe(200);
    expect(deep.body).toContain('<title>TicketRush</title>');
    expect(deep.headers['cache-control']).toBe('no-cache');
    const asset = await app.inject({ url: '/assets/index-abc123.js' });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['cache-control']).toContain('immutable');
    expect((await app.inject({ url: '/sw.js' })).headers['cache-control']).toBe('no-cache');
    const api = await app.inject({ url: '/api/v1/nothing-here', headers: { accept: 'text/html' } });
    expect(api.statusCode).toBe(404);
    expect(api.json().code).toBe('ROUTE_NOT_FOUND');
    expect((await app.inject({ url: '/nothing-here', headers: { accept: 'application/json' } })).json().code).toBe('ROUTE_NOT_FOUND');
  });

  it('starts as an API only, with a log line, when the front end is not built', async () => {
    const logs: string[] = [];
    const { app } = await node(join(tmpdir(), 'no-such-web-build'), logs);
    expect(logs.join('')).toContain('web front end not built');
    expect((await app.inject({ url: '/', headers: { accept: 'text/html' } })).json().code).toBe('ROUTE_NOT_FOUND');
    expect((await app.inject({ url: '/healthz' })).statusCode).toBe(200);
  });
});
