/**
 * The door's memory across reloads and lost networks, in IndexedDB: the public key, revoked
 * ticket ids, tickets this door admitted, and scans waiting to upload (with their original time).
 */
export interface QueuedScan {
  readonly nonce: string;
  readonly qr: string;
  readonly scannedAt: string;
  readonly gate: string;
  readonly offlineVerdict: 'ADMITTED' | 'ALREADY_USED' | 'INVALID';
}

const dbName = 'ticketrush-door';
let opened: Promise<IDBDatabase> | null = null;

function db(): Promise<IDBDatabase> {
  opened ??= new Promise((resolve, reject) => {
    const request = indexedDB.open(dbName, 1);
    request.onupgradeneeded = () => {
      request.result.createObjectStore('kv');
      request.result.createObjectStore('queue', { keyPath: 'nonce' });
      request.result.createObjectStore('admitted');
    };
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
  return opened;
}

async function run<T>(store: string, mode: IDBTransactionMode, op: (s: IDBObjectStore) => IDBRequest<T>): Promise<T> {
  const tx = (await db()).transaction(store, mode);
  return new Promise((resolve, reject) => {
    const request = op(tx.objectStore(store));
    tx.oncomplete = () => resolve(request.result);
    tx.onerror = () => reject(tx.error);
  });
}

export const getValue = <T>(key: string) => run<T | undefined>('kv', 'readonly', (s) => s.get(key) as IDBRequest<T | undefined>);
export const setValue = (key: string, value: unknown) => run('kv', 'readwrite', (s) => s.put(value, key));
export const queueScan = (scan: QueuedScan) => run('queue', 'readwrite', (s) => s.put(scan));
export const queuedScans = () => run<QueuedScan[]>('queue', 'readonly', (s) => s.getAll() as IDBRequest<QueuedScan[]>);
export const dropScans = async (nonces: readonly string[]) => {
  for (const nonce of nonces) await run('queue', 'readwrite', (s) => s.delete(nonce));
};
export const markAdmitted = (ticketId: string) => run('admitted', 'readwrite', (s) => s.put(Date.now(), ticketId));
export const wasAdmitted = async (ticketId: string) => (await run<number | undefined>('admitted', 'readonly', (s) => s.get(ticketId) as IDBRequest<number | undefined>)) !== undefined;
