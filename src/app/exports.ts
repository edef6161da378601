import { stringify, type Options } from 'csv-stringify/sync';
import { orderMoney } from '../domain/index.js';
import type { KeysetPosition, OrderExportRow } from '../ports/engine/index.js';
import type { AppContext } from './context.js';
import { AppError } from './errors.js';
import { iso } from './views.js';

/** Exports read the store only (the CLI opens just that). */
export type ExportContext = Pick<AppContext, 'store'>;

/** Rows per store read: one index range each; memory holds one page whatever the export's size. */
export const exportPageSize = 1_000;

/**
 * RFC 4180 (CRLF records, fields quoted when needed), and a field a spreadsheet would run as a
 * formula (= + - @ first, or a tab or CR) is prefixed with an apostrophe so it is shown as text.
 */
const csvOptions: Options = { record_delimiter: 'windows', escape_formulas: true };

/** UTF-8 byte-order mark: Excel then reads the file as UTF-8 (Chinese names show right). */
const bom = '\uFEFF';

/** A CSV export: a file name to offer and its text, produced a page at a time as it is read. */
export interface CsvExport {
  readonly filename: string;
  readonly chunks: AsyncIterable<string>;
}

/** Called after each page with the rows written so far (a CLI's progress bar). */
export type RowsWritten = (rows: number) => void;

async function* csvPages<R>(
  header: readonly string[], page: (after: KeysetPosition | null) => Promise<R[]>,
  record: (row: R) => unknown[], position: (row: R) => KeysetPosition, onRows?: RowsWritten,
): AsyncGenerator<string> {
  yield bom + stringify([header], csvOptions);
  let after: KeysetPosition | null = null;
  let written = 0;
  for (;;) {
    const rows = await page(after);
    if (rows.length === 0) return;
    written += rows.length;
    yield stringify(rows.map(record), csvOptions);
    onRows?.(written);
    if (rows.length < exportPageSize) return;
    after = position(rows[rows.length - 1] as R);
  }
}

const isoOrEmpty = (ms: number | null): string => (ms === null ? '' : iso(ms));

export async function exportWinners(ctx: ExportContext, poolId: string, onRows?: RowsWritten): Promise<CsvExport> {
  if ((await ctx.store.getCodePool(poolId)) === null) throw new AppError('CODE_POOL_NOT_FOUND', `no code pool ${poolId}`);
  return {
    filename: `code-pool-${poolId}-winners.csv`,
    chunks: csvPages(['username', 'code', 'grabbedAt'], (after) => ctx.store.winnersPage(poolId, after, exportPageSize),
      (w) => [w.username, w.code, iso(w.grabbedAt)], (w) => ({ at: w.grabbedAt, id: w.code }), onRows),
  };
}

async function showMustExist(ctx: ExportContext, showId: string): Promise<void> {
  if ((await ctx.store.getShow(showId)) === null) throw new AppError('SHOW_NOT_FOUND', `no show ${showId}`);
}

/** An order's columns: the buyer's contact (seed 002 §5) and discount come last, so older readers of the file keep their columns. */
const orderColumns = [
  'orderId', 'username', 'status', 'amountCents', 'paymentId', 'createdAt', 'updatedAt', 'contactName', 'contactPhone', 'contactEmail', 'discountCode', 'discountCents',
  'grossCents', 'refundedCents', 'netCents',
];
/**
 * The money columns (issue 32, appended) follow orderMoney: gross on the charged order only (0 on an
 * order born of an exchange), net = what the order holds now (0 on an order exchanged away: its
 * value moved to the new order's row), so summing a column over the file never counts money twice.
 */
const orderCells = (o: OrderExportRow): unknown[] => {
  const money = orderMoney(o);
  return [
    o.orderId, o.username, o.status, o.amountCents, o.paymentId ?? '', iso(o.createdAt), iso(o.updatedAt),
    o.contactName ?? '', o.contactPhone ?? '', o.contactEmail ?? '', o.discountCode ?? '', o.discountCents,
    money.grossCents, money.refundedCents, money.netCents,
  ];
};

export async function exportOrders(ctx: ExportContext, showId: string, onRows?: RowsWritten): Promise<CsvExport> {
  await showMustExist(ctx, showId);
  return {
    filename: `show-${showId}-orders.csv`,
    chunks: csvPages(orderColumns,
      (after) => ctx.store.ordersPage(showId, after, exportPageSize),
      orderCells,
      (o) => ({ at: o.createdAt, id: o.orderId }), onRows),
  };
}

export async function exportTickets(ctx: ExportContext, showId: string, onRows?: RowsWritten): Promise<CsvExport> {
  await showMustExist(ctx, showId);
  return {
    filename: `show-${showId}-tickets.csv`,
    chunks: csvPages(['ticketId', 'orderId', 'username', 'code', 'sectionId', 'seatId', 'status', 'issuedAt', 'usedAt'],
      (after) => ctx.store.ticketsPage(showId, after, exportPageSize),
      (t) => [t.ticketId, t.orderId, t.username, t.code, t.sectionId, t.seatId ?? '', t.status, iso(t.issuedAt), isoOrEmpty(t.usedAt)],
      (t) => ({ at: t.issuedAt, id: t.ticketId }), onRows),
  };
}

/** A flash sale's orders (its show carries them): the columns of a show's orders export. */
export async function exportFlashSaleOrders(ctx: ExportContext, flashSaleId: string, onRows?: RowsWritten): Promise<CsvExport> {
  if ((await ctx.store.getFlashSale(flashSaleId)) === null) throw new AppError('ACTIVITY_NOT_FOUND', `no flash sale ${flashSaleId}`);
  return {
    filename: `flash-sale-${flashSaleId}-orders.csv`,
    chunks: csvPages(orderColumns,
      (after) => ctx.store.ordersPage(flashSaleId, after, exportPageSize),
      orderCells,
      (o) => ({ at: o.createdAt, id: o.orderId }), onRows),
  };
}

/** A bargain's bargain orders: who started one, how far friends cut it, and the order it became. */
export async function exportBargainOrders(ctx: ExportContext, bargainId: string, onRows?: RowsWritten): Promise<CsvExport> {
  if ((await ctx.store.getBargain(bargainId)) === null) throw new AppError('ACTIVITY_NOT_FOUND', `no bargain ${bargainId}`);
  return {
    filename: `bargain-${bargainId}-orders.csv`,
    chunks: csvPages(['bargainOrderId', 'username', 'currentPriceCents', 'cuts', 'orderId', 'orderStatus', 'createdAt'],
      (after) => ctx.store.bargainOrdersPage(bargainId, after, exportPageSize),
      (b) => [b.bargainOrderId, b.username, b.currentPriceCents, b.cuts, b.orderId ?? '', b.orderStatus ?? '', iso(b.createdAt)],
      (b) => ({ at: b.createdAt, id: b.bargainOrderId }), onRows),
  };
}
