import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** What the last background checkpoint did (frames in the WAL, frames copied into the database). */
export interface CheckpointResult {
  readonly log: number;
  readonly checkpointed: number;
}

export interface Checkpointer {
  /** The last checkpoint's figures, or null before the first one. */
  last(): CheckpointResult | null;
  /** Stops the thread and closes its connection (the store's own close checkpoints the rest). */
  close(): Promise<void>;
}

/**
 * The thread's whole program. Eval'd CommonJS, so it needs no file of its own next to either the
 * built JavaScript or the TypeScript the tests run; the driver comes by absolute path.
 */
const program = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.filename);
db.pragma('busy_timeout = 0');
const timer = setInterval(() => {
  try {
    const [row] = db.pragma('wal_checkpoint(PASSIVE)');
    parentPort.postMessage({ log: row.log, checkpointed: row.checkpointed });
  } catch (error) {
    // SQLITE_BUSY: another checkpoint is running; the next tick tries again.
  }
}, workerData.intervalMs);
parentPort.on('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

/**
 * WAL checkpoints off the main thread. SQLite's automatic checkpoint runs inside the COMMIT that
 * crosses its threshold, on the thread that commits: copying thousands of pages into the database
 * file and fsyncing it stalled the event loop for ~100 ms during a rush (measured in the bench). The
 * store turns the automatic checkpoint off and this thread, on its own connection, runs a PASSIVE
 * checkpoint every `intervalMs`: PASSIVE never blocks the writer (it copies what no reader still
 * needs and leaves the rest for the next tick), and after a complete one the writer starts the WAL
 * over from the beginning, so it stays bounded by what a few intervals write.
 *
 * If the thread dies, `onFailure` is told, and the store turns its own automatic checkpoint back on.
 */
export function startCheckpointer(filename: string, intervalMs: number, onFailure: (error: Error) => void): Checkpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(program, { eval: true, workerData: { filename, intervalMs, driver } });
  // It must not keep a process alive that has nothing else to do.
  worker.unref();
  let last: CheckpointResult | null = null;
  let closing = false;
  worker.on('message', (result: CheckpointResult) => {
    last = result;
  });
  worker.on('error', (error) => {
    if (!closing) onFailure(error);
  });
  worker.on('exit', (code) => {
    if (!closing) onFailure(new Error(`the checkpoint thread exited with code ${code}`));
  });
  return {
    last: () => last,
    async close() {
      if (closing) return;
      closing = true;
      const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
      worker.postMessage('close');
      await exited;
    },
  };
}
