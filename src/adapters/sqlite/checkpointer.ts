import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

export interface Checkpointer {
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
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch (error) {
    // SQLITE_BUSY: another checkpoint is running; the next tick tries again. Anything else ends
    // the thread (uncaught here), so the store turns SQLite's own checkpoint back on rather than
    // let the WAL grow with nobody copying it.
    if (error.code !== 'SQLITE_BUSY') throw error;
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
  let closing = false;
  worker.on('error', (error) => {
    if (!closing) onFailure(error);
  });
  worker.on('exit', (code) => {
    if (!closing) onFailure(new Error(`the checkpoint thread exited with code ${code}`));
  });
  return {
    async close() {
      if (closing) return;
      closing = true;
      const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
      // Held while closing: an unref'd thread would let a process with nothing else to do (a CLI
      // command) exit before the close settles, skipping whatever follows it.
      worker.ref();
      worker.postMessage('close');
      await exited;
    },
  };
}
