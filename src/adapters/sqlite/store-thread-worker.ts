import { parentPort, workerData } from 'node:worker_threads';
import type { Store } from '../../ports/engine/index.js';
import { StoreBusyError } from '../../ports/engine/index.js';
import { openSqliteStore, type SqliteStoreOptions } from './sqlite-store.js';
import type { ThreadError, ThreadReply, ThreadRequest, ThreadResult } from './store-thread-protocol.js';

/**
 * The embedded store's own thread (see store-thread.ts): it opens the SQLite store and runs each
 * named operation it is sent, replying with the outcome. Operations arrive in batches and join the same
 * group commit as on the main thread; their results go back in batches too.
 */
const port = parentPort;
if (port === null) throw new Error('store-thread-worker.ts runs only as a worker thread');

function asThreadError(error: unknown): ThreadError {
  if (error instanceof StoreBusyError) return { kind: 'busy', operation: error.operation, message: error.message };
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return { kind: 'error', name: error.name, message: error.message, ...(typeof code === 'string' ? { code } : {}), ...(error.stack === undefined ? {} : { stack: error.stack }) };
  }
  return { kind: 'error', name: 'Error', message: String(error) };
}

let store: Store;
try {
  store = openSqliteStore(workerData as SqliteStoreOptions);
} catch (error) {
  port.postMessage({ kind: 'failed', error: asThreadError(error) } satisfies ThreadReply);
  process.exit(0);
}

const operations = store as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
let results: ThreadResult[] = [];
const sendResults = (): void => {
  const batch = results;
  results = [];
  try {
    port.postMessage({ kind: 'results', results: batch } satisfies ThreadReply);
  } catch (error) {
    // A value that cannot be copied (a bug: the port's outcomes are plain data) fails its own
    // call, not the batch and not the thread.
    for (const result of batch) {
      try {
        port.postMessage({ kind: 'results', results: [result] } satisfies ThreadReply);
      } catch {
        port.postMessage({ kind: 'results', results: [{ id: result.id, ok: false, error: asThreadError(error) }] } satisfies ThreadReply);
      }
    }
  }
};
const answer = (result: ThreadResult): void => {
  // The first result of a turn schedules the send: the rest of the batch's units settle in the same turn.
  if (results.length === 0) setImmediate(sendResults);
  results.push(result);
};
port.on('message', (requests: readonly ThreadRequest[]) => {
  for (const request of requests) {
    const operation = operations[request.method];
    if (typeof operation !== 'function') {
      answer({ id: request.id, ok: false, error: { kind: 'error', name: 'TypeError', message: `no store operation ${request.method}` } });
      continue;
    }
    // Through a promise, so an operation that throws instead of rejecting is answered too.
    Promise.resolve().then(() => operation.apply(store, [...request.args])).then(
      (value) => answer({ id: request.id, ok: true, value }),
      (error: unknown) => answer({ id: request.id, ok: false, error: asThreadError(error) }),
    );
  }
});
port.postMessage({ kind: 'ready', methods: Object.keys(store).filter((key) => typeof operations[key] === 'function') } satisfies ThreadReply);
