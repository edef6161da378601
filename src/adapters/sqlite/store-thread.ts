import { Worker } from 'node:worker_threads';
import { StoreBusyError, type Store } from '../../ports/engine/index.js';
import type { SqliteStoreOptions } from './sqlite-store.js';
import type { ThreadError, ThreadReply, ThreadRequest } from './store-thread-protocol.js';

/**
 * The embedded store on a thread of its own. Every operation of the port is named, takes plain
 * data and answers plain data, so it can be a message: the main thread posts {method, args} and
 * awaits the reply, and the SQLite work (statements, group commits) runs beside the event loop
 * instead of on it. In a rush of holds that was a third of the main thread's CPU; what is left
 * there is HTTP, validation and the read model. The thread is the only one that writes; reads go
 * through it too, so every answer reflects the commits before it.
 */
export async function openSqliteStoreThread(options: SqliteStoreOptions): Promise<Store> {
  const worker = startWorker(options);
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void; method: string }>();
  let nextId = 1;
  let stopped: Error | null = null;
  let closing = false;

  // Replies and exits settle calls; the thread keeps the process alive only while a call is open,
  // as a socket or a timer would.
  worker.unref();
  const settle = (id: number): { resolve: (value: unknown) => void; reject: (error: Error) => void } | undefined => {
    const call = pending.get(id);
    pending.delete(id);
    if (pending.size === 0) worker.unref();
    return call;
  };

  const methods = await new Promise<readonly string[]>((resolve, reject) => {
    const onExit = (code: number): void => reject(new Error(`the SQLite store thread exited with code ${code} before it was ready`));
    worker.once('error', reject);
    worker.once('exit', onExit);
    worker.once('message', (reply: ThreadReply) => {
      worker.off('error', reject);
      worker.off('exit', onExit);
      if (reply.kind === 'ready') resolve(reply.methods);
      else if (reply.kind === 'failed') reject(fromThread(reply.error));
      else reject(new Error(`the SQLite store thread answered ${reply.kind} before it was ready`));
    });
  });

  worker.on('message', (reply: ThreadReply) => {
    if (reply.kind !== 'results') return;
    for (const result of reply.results) {
      const call = settle(result.id);
      if (call === undefined) continue;
      if (result.ok) call.resolve(result.value);
      else call.reject(fromThread(result.error));
    }
  });
  const fail = (error: Error): void => {
    stopped ??= error;
    for (const id of [...pending.keys()]) settle(id)?.reject(error);
  };
  // A thread that dies is fatal to the process: every call in flight fails, then the error is
  // thrown where nothing catches it, so the process ends and its supervisor starts it again (every
  // commit is on disk; overdue holds are freed at start). Serving on without a store would only
  // answer 500s until someone noticed.
  const die = (error: Error): void => {
    const first = stopped === null;
    fail(error);
    if (first) {
      setImmediate(() => {
        throw error;
      });
    }
  };
  worker.on('error', (error) => die(new Error(`the SQLite store thread failed: ${error.message}`)));
  worker.on('exit', (code) => {
    if (closing) fail(new Error('the store is closed'));
    else die(new Error(`the SQLite store thread exited with code ${code}`));
  });

  let outbox: ThreadRequest[] = [];
  const send = (): void => {
    if (stopped === null) worker.postMessage(outbox);
    outbox = [];
  };
  const call = (method: string, args: readonly unknown[]): Promise<unknown> => {
    if (stopped !== null) return Promise.reject(stopped);
    const id = nextId++;
    return new Promise((resolve, reject) => {
      if (pending.size === 0) worker.ref();
      pending.set(id, { resolve, reject, method });
      // The calls of this turn of the event loop (every request read from the sockets in it) go in one message.
      if (outbox.length === 0) setImmediate(send);
      outbox.push({ id, method, args });
    });
  };

  const store: Record<string, (...args: unknown[]) => Promise<unknown>> = {};
  for (const method of methods) store[method] = (...args) => call(method, args);
  // One close however many callers ask: the thread closes its store (the last group commit and
  // checkpoint), then ends; every caller waits for that one.
  let closed: Promise<void> | null = null;
  store.close = () => {
    closed ??= (async () => {
      await call('close', []);
      closing = true;
      const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
      await worker.terminate();
      await exited;
    })();
    return closed;
  };
  return store as unknown as Store;
}

/**
 * The worker's entry: the compiled module next to this one, or, where this module runs as
 * TypeScript (the tests), the TypeScript one, loaded after tsx's loader is registered in the thread.
 * Registering tsx and transforming the store's sources again in every thread costs about 200 ms of
 * CPU per store, and the tests open hundreds: the test run bundles the worker from the same sources
 * once (vitest.config.ts) and names the bundle in TICKETRUSH_STORE_THREAD_BUNDLE.
 */
function startWorker(options: SqliteStoreOptions): Worker {
  const typescript = import.meta.url.endsWith('.ts');
  const bundle = typescript ? process.env.TICKETRUSH_STORE_THREAD_BUNDLE : undefined;
  if (bundle !== undefined && bundle !== '') return new Worker(bundle, { workerData: options });
  const entry = new URL(`./store-thread-worker.${typescript ? 'ts' : 'js'}`, import.meta.url).href;
  if (!typescript) return new Worker(new URL(entry), { workerData: options });
  const program = `
    const { workerData } = require('node:worker_threads');
    import(workerData.tsx).then(({ register }) => { register(); return import(workerData.entry); });
  `;
  return new Worker(program, { eval: true, workerData: { ...options, entry, tsx: import.meta.resolve('tsx/esm/api') } });
}

function fromThread(error: ThreadError): Error {
  if (error.kind === 'busy') return new StoreBusyError(error.operation, error.message);
  const rebuilt = new Error(error.message);
  rebuilt.name = error.name;
  if (error.code !== undefined) Object.assign(rebuilt, { code: error.code });
  if (error.stack !== undefined) rebuilt.stack = error.stack;
  return rebuilt;
}
