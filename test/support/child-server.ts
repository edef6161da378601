import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

export interface ChildServer {
  readonly url: string;
  readonly child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Starts a server in its own process (so the load generator never shares its event loop) with its
 * stdout going to `logFile`, as a server's logs would in production (a pipe read by this process
 * would make the bench measure itself), and resolves with the URL from the first JSON log line
 * that carries one.
 */
export async function startChildServer(
  args: readonly string[], env: NodeJS.ProcessEnv, logFile: string, timeoutMs = 60_000,
  /** What says it is ready, from one log line: the URL by default; a `worker` has none and names its holder. */
  readyOf: (line: string) => string | undefined = urlOf,
): Promise<ChildServer> {
  const out = openSync(logFile, 'w');
  // TICKETRUSH_TEST_SERVER_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof") profiles the server of a load test.
  const nodeArgs = (process.env.TICKETRUSH_TEST_SERVER_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');
  const child = spawn(process.execPath, [...nodeArgs, ...args], { env, stdio: ['ignore', out, 'inherit'] });
  closeSync(out);
  let exited: number | null = null;
  child.once('exit', (code) => {
    exited = code ?? -1;
  });
  const deadline = Date.now() + timeoutMs;
  let url: string | undefined;
  while (url === undefined) {
    if (exited !== null) throw new Error(`server ${args.join(' ')} exited with ${exited}; see ${logFile}`);
    if (Date.now() > deadline) throw new Error(`server ${args.join(' ')} did not start in ${timeoutMs} ms; see ${logFile}`);
    url = readFileSync(logFile, 'utf8').split('\n').map(readyOf).find((u) => u !== undefined);
    if (url === undefined) await sleep(100);
  }
  return {
    url,
    child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 30_000).unref();
      }),
  };
}

export function urlOf(line: string): string | undefined {
  try {
    const parsed = JSON.parse(line) as { url?: unknown };
    return typeof parsed.url === 'string' && /^https?:\/\//.test(parsed.url) ? parsed.url : undefined;
  } catch {
    return undefined;
  }
}

/** The readiness line of `ticketrush worker`: its lease holder name. */
export function workerHolderOf(line: string): string | undefined {
  try {
    const parsed = JSON.parse(line) as { holder?: unknown; queue?: unknown };
    return typeof parsed.holder === 'string' && typeof parsed.queue === 'string' ? parsed.holder : undefined;
  } catch {
    return undefined;
  }
}
