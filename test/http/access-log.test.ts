import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, expect, it } from 'vitest';
import { composeNode } from '../../src/compose.js';
import { loadConfig } from '../../src/config.js';

// The access log: one line per request, except successful reads (tens of thousands a second in an
// onsale), which are logged only at debug. Writes, refusals and failures are always logged.
const dataDir = mkdtempSync(join(tmpdir(), 'ticketrush-access-log-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

interface Line { readonly level: number; readonly msg: string; readonly method?: string; readonly url?: string; readonly statusCode?: number }

async function requestLines(level: 'info' | 'debug'): Promise<Line[]> {
  const lines: Line[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Line);
      done();
    },
  });
  const node = await composeNode(loadConfig({ TICKETRUSH_DATA_DIR: join(dataDir, level), TICKETRUSH_DEMO: '0', PORT: '0', HOST: '127.0.0.1' }), { logger: { level, stream } });
  try {
    const base = await node.listen();
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect((await fetch(`${base}/api/v1/shows`)).status).toBe(200);
    expect((await fetch(`${base}/api/v1/shows/nope/seats`)).status).toBe(404);
    expect((await fetch(`${base}/api/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"username":"nobody","password":"wrong-password"}' })).status).toBe(401);
  } finally {
    await node.stop();
  }
  return lines.filter((l) => l.msg === 'request');
}

it('logs writes and refusals at info, and successful reads only at debug', async () => {
  const info = await requestLines('info');
  expect(info.map((l) => `${l.method} ${l.url} ${l.statusCode}`)).toEqual(['GET /api/v1/shows/nope/seats 404', 'POST /api/v1/auth/login 401']);
  const debug = await requestLines('debug');
  expect(debug.map((l) => `${l.method} ${l.url} ${l.statusCode}`)).toEqual([
    'GET /healthz 200', 'GET /api/v1/shows 200', 'GET /api/v1/shows/nope/seats 404', 'POST /api/v1/auth/login 401',
  ]);
  expect(debug.slice(0, 2).every((l) => l.level === 20)).toBe(true);
});
