import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export interface EmbeddedServer {
  readonly url: string;
  readonly admin: { readonly username: string; readonly password: string };
  readonly pid: number;
  /** The server's environment (the store auditor runs beside it with it). */
  readonly env: Readonly<Record<string, string | undefined>>;
  stop(): Promise<void>;
}

const readyTimeoutMs = 60_000;

/**
 * Starts `ticketrush start` as a child process on a fresh temporary data directory: its own
 * process, so the server gets its own event loop (and core) and the drill measures it, not itself.
 * Rate limits are off (every buyer registers from 127.0.0.1) and logs are at `warn`, so the
 * per-request log line does not cost the rush; its output goes to `logFile`.
 */
export async function startEmbeddedServer(logFile: string, holdSecondsMax: number, extraEnv: Readonly<Record<string, string>> = {}): Promise<EmbeddedServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'ticketrush-drill-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const admin = { username: 'drill-admin', password: randomBytes(18).toString('base64url') };
  const entry = process.argv[1];
  if (entry === undefined) throw new Error('cannot tell which script to start the server with');
  const out = openSync(logFile, 'w');
  // The same entry point and loader flags as this process: the built bin, or the sources under tsx.
  const env = {
    ...process.env,
    HOST: '127.0.0.1',
    PORT: String(port),
    TICKETRUSH_PUBLIC_URL: url,
    TICKETRUSH_DATA_DIR: dataDir,
    TICKETRUSH_DEMO: '0',
    TICKETRUSH_LOG_LEVEL: 'warn',
    TICKETRUSH_RATE_LIMITS: 'off',
    TICKETRUSH_ADMIN_USER: admin.username,
    TICKETRUSH_ADMIN_PASSWORD: admin.password,
    TICKETRUSH_HOLD_SECONDS_MAX: String(Math.max(holdSecondsMax, 900)),
    TICKETRUSH_HOLD_LIFE_SECONDS_MAX: String(Math.max(holdSecondsMax, 1200)),
    // A drill's fault switches (payment-jitter, expiry-outage), set at start.
    ...extraEnv,
  };
  const child = spawn(process.execPath, [...process.execArgv, entry, 'start'], {
    env,
    stdio: ['ignore', out, out],
  });
  closeSync(out);
  let exitCode: number | null = null;
  const exited = new Promise<void>((resolve) => child.once('exit', (code, signal) => {
    exitCode = code ?? (signal === null ? -1 : 128);
    resolve();
  }));
  // The drill never leaves its server (or its data) behind, even when it is interrupted.
  const killOnExit = (): void => void child.kill('SIGKILL');
  const interrupted = (signal: NodeJS.Signals): void => {
    void stop().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  };
  process.once('exit', killOnExit);
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  const stop = async (): Promise<void> => {
    process.off('exit', killOnExit);
    process.off('SIGINT', interrupted);
    process.off('SIGTERM', interrupted);
    if (exitCode === null) {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(killer);
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  const deadline = Date.now() + readyTimeoutMs;
  for (;;) {
    if (exitCode !== null) {
      await stop();
      throw new Error(`the embedded server exited with ${String(exitCode)} before it was ready; see ${logFile}`);
    }
    if (await isReady(url)) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`the embedded server was not ready in ${readyTimeoutMs / 1000} s; see ${logFile}`);
    }
    await sleep(100);
  }
  return { url, admin, pid: child.pid ?? -1, env, stop };
}

async function isReady(url: string): Promise<boolean> {
  try {
    const response = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2_000) });
    await response.arrayBuffer();
    return response.ok;
  } catch {
    return false;
  }
}

/** A port free right now on 127.0.0.1 (the OS picks it; the child binds it a moment later). */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
