import { createReadStream, createWriteStream, statSync } from 'node:fs';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import cliProgress from 'cli-progress';
import { codesCsvParser, codesOfCsv } from './app/code-csv.js';
import { importCodes, type ImportCounts } from './app/code-pools.js';
import { exportBargainOrders, exportFlashSaleOrders, exportOrders, exportTickets, exportWinners, type CsvExport } from './app/exports.js';
import { openConfiguredStore, toolRuntime } from './compose-store.js';
import { loadConfig } from './config.js';
import type { Store } from './ports/engine/index.js';

/**
 * `ticketrush import codes` and `ticketrush export …`: the same use cases as the HTTP routes, on
 * the configured store opened beside any running server (SQLite in WAL mode lets both in; on
 * PostgreSQL they are two clients), with a progress bar on a terminal and a summary line.
 */

async function withStore<T>(work: (store: Store) => Promise<T>): Promise<T> {
  const config = loadConfig();
  // A tool has no event loop to keep free: SQLite on this thread, not a store thread of its own
  // (a second V8 heap, tens of MB, for nothing).
  // Its pages are read once, in order: a small page cache (8 MiB, not the server's 64) is enough,
  // and keeps the process's memory flat and small whatever the export's size.
  const store = await openConfiguredStore(config.database.kind === 'sqlite' ? { database: { ...config.database, ownThread: false } } : config, { sqliteCacheKiB: 8_192 });
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

function bar(format: string, total: number, stream: NodeJS.WriteStream = process.stderr): cliProgress.SingleBar | null {
  if (stream.isTTY !== true) return null;
  const b = new cliProgress.SingleBar({ stream, format, hideCursor: true, barsize: 30, fps: 5 }, cliProgress.Presets.shades_classic);
  b.start(total, 0);
  return b;
}

/** Imports the codes of a CSV file into a pool; answers the counts (also printed). */
export async function importCodesFromFile(poolId: string, file: string): Promise<ImportCounts> {
  const size = statSync(file).size;
  let read = 0;
  const progress = bar('import |{bar}| {percentage}% | {value}/{total} bytes | {imported} imported, {duplicates} duplicates, {rejected} rejected', size);
  const counting = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      read += chunk.length;
      done(null, chunk);
    },
  });
  const counts = await withStore(async (store) => {
    const records = createReadStream(file).pipe(counting).pipe(codesCsvParser());
    return importCodes({ store, ...toolRuntime }, poolId, codesOfCsv(records), (sofar) => progress?.update(read, sofar));
  });
  progress?.update(size, counts);
  progress?.stop();
  process.stdout.write(`${JSON.stringify(counts)}\n`);
  return counts;
}

export type ExportKind = 'orders' | 'tickets' | 'winners' | 'flash-sale-orders' | 'bargain-orders';

/** Writes an export to `out` (default: its own file name in the working directory); answers the path and rows. */
export async function exportToFile(kind: ExportKind, id: string, out?: string): Promise<{ file: string; rows: number }> {
  let rows = 0;
  return withStore(async (store) => {
    const total = kind === 'winners' ? await winnersTotal(store, id) : 0;
    const progress = bar(total > 0 ? 'export |{bar}| {percentage}% | {value}/{total} rows' : 'export | {value} rows', total);
    const onRows = (written: number): void => {
      rows = written;
      progress?.update(written);
    };
    const ctx = { store };
    const csv: CsvExport = kind === 'orders' ? await exportOrders(ctx, id, onRows)
      : kind === 'tickets' ? await exportTickets(ctx, id, onRows)
        : kind === 'flash-sale-orders' ? await exportFlashSaleOrders(ctx, id, onRows)
          : kind === 'bargain-orders' ? await exportBargainOrders(ctx, id, onRows)
            : await exportWinners(ctx, id, onRows);
    const file = out ?? csv.filename;
    await pipeline(Readable.from(csv.chunks), createWriteStream(file));
    progress?.stop();
    process.stdout.write(`${JSON.stringify({ file, rows })}\n`);
    return { file, rows };
  });
}

async function winnersTotal(store: Store, poolId: string): Promise<number> {
  const pool = await store.getCodePool(poolId);
  return pool === null ? 0 : pool.imported - pool.remaining;
}
