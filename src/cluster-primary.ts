import cluster, { type Worker } from 'node:cluster';

/**
 * `ticketrush start --workers N`: this process forks N workers that each run the whole server
 * (node:cluster shares one listening port among them) and only supervises:
 * - a worker that dies is forked again after a backoff that doubles with each quick death (a
 *   worker that cannot start must not spin the CPU), reset once a worker has lived a while;
 * - SIGTERM or SIGINT is forwarded to every worker for their graceful stop (each drains and
 *   closes its pools); the primary exits once they have, killing any still running after the bound.
 * Logs are JSON lines on stdout like the workers', so one log pipeline reads both.
 */
export interface PrimaryOptions {
  readonly workers: number;
  /** A worker that lived this long had started fine: its death restarts the backoff. */
  readonly healthyAfterMs?: number;
  readonly backoffBaseMs?: number;
  readonly backoffMaxMs?: number;
  /** How long the workers get to stop on SIGTERM before they are killed. */
  readonly stopBoundMs?: number;
}

const log = (level: number, msg: string, fields: Record<string, unknown> = {}): void => {
  process.stdout.write(`${JSON.stringify({ level, time: Date.now(), pid: process.pid, role: 'primary', ...fields, msg })}\n`);
};

export function runClusterPrimary(options: PrimaryOptions): void {
  const healthyAfterMs = options.healthyAfterMs ?? 30_000;
  const backoffBaseMs = options.backoffBaseMs ?? 500;
  const backoffMaxMs = options.backoffMaxMs ?? 30_000;
  const stopBoundMs = options.stopBoundMs ?? 30_000;
  let stopping = false;
  /** Per slot: quick deaths in a row, for the backoff. */
  const failures = new Array<number>(options.workers).fill(0);
  const slots = new Map<Worker, { slot: number; startedAt: number }>();

  const fork = (slot: number): void => {
    if (stopping) return;
    const worker = cluster.fork({ TICKETRUSH_WORKER_SLOT: String(slot) });
    slots.set(worker, { slot, startedAt: Date.now() });
    log(30, 'worker started', { worker: worker.process.pid, slot });
  };

  cluster.on('exit', (worker, code, signal) => {
    const entry = slots.get(worker);
    slots.delete(worker);
    if (entry === undefined) return;
    if (stopping) {
      log(30, 'worker stopped', { worker: worker.process.pid, slot: entry.slot, code, signal });
      if (slots.size === 0) process.exit(0);
      return;
    }
    const lived = Date.now() - entry.startedAt;
    failures[entry.slot] = lived >= healthyAfterMs ? 0 : (failures[entry.slot] ?? 0) + 1;
    const delayMs = Math.min(backoffMaxMs, backoffBaseMs * 2 ** Math.max(0, (failures[entry.slot] ?? 0) - 1));
    log(40, 'worker died; forking another', { worker: worker.process.pid, slot: entry.slot, code, signal, livedMs: lived, restartInMs: delayMs });
    setTimeout(() => fork(entry.slot), delayMs);
  });

  const shutdown = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    log(30, 'shutting down the workers', { signal, workers: slots.size });
    if (slots.size === 0) process.exit(0);
    for (const worker of slots.keys()) worker.process.kill('SIGTERM');
    setTimeout(() => {
      log(40, 'workers still running after the stop bound: killed', { workers: slots.size });
      for (const worker of slots.keys()) worker.process.kill('SIGKILL');
      process.exit(1);
    }, stopBoundMs).unref();
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  for (let slot = 0; slot < options.workers; slot++) fork(slot);
}
