import { checkIn, type Ticket } from '../domain/index.js';
import type { AppContext } from './context.js';
import { AppError } from './errors.js';
import { again, done, withStaleRetries } from './stale-retry.js';
import { decodeTicketQr } from './ticket-qr.js';

/** Revoked tickets one answer lists at most (a scanner asks per show). */
export const revokedListMax = 10_000;

/** A scan made at a door while it was offline, uploaded later with its original time. */
export interface OfflineScan {
  readonly qr: string;
  readonly nonce: string;
  /** When it was scanned, epoch milliseconds. */
  readonly scannedAt: number;
  readonly gate: string | null;
  readonly deviceId: string | null;
  /** What the scanner told the door on its own (it checks the signature offline). */
  readonly offlineVerdict: 'ADMITTED' | 'ALREADY_USED' | 'INVALID';
}

export type SyncOutcome = 'ADMITTED' | 'ALREADY_ADMITTED_SAME_SCAN' | 'TICKET_ALREADY_USED' | 'TICKET_NOT_VALID' | 'TICKET_INVALID';

export interface SyncResult {
  readonly nonce: string;
  readonly outcome: SyncOutcome;
  readonly ticketId: string | null;
  /** The show and section the QR names (null for a forged one; section null in QRs from before it was named), so the door names the place. */
  readonly showId: string | null;
  readonly sectionId: string | null;
  readonly seatId: string | null;
  /** When the ticket was first used (the scan's own time when this upload admitted it). */
  readonly usedAt: number | null;
  /** The door let someone in offline, but the ticket had already been used: admitted twice. */
  readonly flagged: boolean;
}

/**
 * Applies offline scans in the order they happened. Each is the same check-in as online (one use
 * per ticket, a retried nonce is the same scan), dated with the scan's own time (never in the
 * future), so the first door to have let the ticket in keeps the admission when both sync.
 */
export async function syncOfflineScans(ctx: AppContext, staffUserId: string, scans: readonly OfflineScan[]): Promise<SyncResult[]> {
  const now = ctx.clock.now();
  const ordered = [...scans].sort((a, b) => a.scannedAt - b.scannedAt);
  const results = new Map<OfflineScan, SyncResult>();
  for (const scan of ordered) results.set(scan, await syncOne(ctx, staffUserId, scan, Number.isFinite(scan.scannedAt) ? Math.min(scan.scannedAt, now) : now));
  return scans.map((scan) => results.get(scan) as SyncResult);
}

async function syncOne(ctx: AppContext, staffUserId: string, scan: OfflineScan, at: number): Promise<SyncResult> {
  const claims = decodeTicketQr(ctx.signer, scan.qr);
  const base = { nonce: scan.nonce, ticketId: claims?.tid ?? null, showId: claims?.show ?? null, sectionId: claims?.sec ?? null, seatId: claims?.seat ?? null };
  if (claims === null) return { ...base, outcome: 'TICKET_INVALID', usedAt: null, flagged: false };
  const verdict = await withStaleRetries<{ outcome: SyncOutcome; usedAt: number | null }>('ticket', async () => {
    const ticket: Ticket | null = await ctx.store.getTicket(claims.tid);
    if (ticket === null || ticket.code !== claims.code) return done({ outcome: 'TICKET_INVALID' as const, usedAt: null });
    const checked = checkIn(ticket, { nonce: scan.nonce, staffUserId, gate: scan.gate, deviceId: scan.deviceId }, Math.max(at, ticket.issuedAt));
    if (!checked.ok) {
      const outcome = checked.error.code === 'TICKET_ALREADY_USED' ? 'TICKET_ALREADY_USED' as const : 'TICKET_NOT_VALID' as const;
      return done({ outcome, usedAt: ticket.usedAt });
    }
    if (checked.value.outcome !== 'ADMITTED') return done({ outcome: checked.value.outcome, usedAt: checked.value.ticket.usedAt });
    // Another door admitting the same ticket at once: one wins, the other re-reads and is told it was used.
    const stored = await ctx.store.checkIn({ ticket: checked.value.ticket, expectedStatus: ticket.status });
    return stored.ok ? done({ outcome: checked.value.outcome, usedAt: stored.ticket.usedAt }) : again(stored);
  });
  ctx.telemetry.checkIn(verdict.outcome);
  const flagged = scan.offlineVerdict === 'ADMITTED' && verdict.outcome !== 'ADMITTED' && verdict.outcome !== 'ALREADY_ADMITTED_SAME_SCAN';
  return { ...base, ...verdict, flagged };
}

/** Ticket ids of a show that are no longer valid, so an offline door refuses them too. */
export async function revokedTickets(ctx: AppContext, showId: string): Promise<string[]> {
  const show = await ctx.seatMaps.show(showId);
  if (show === null) throw new AppError('SHOW_NOT_FOUND', 'no such show');
  return ctx.store.revokedTicketIds(showId, revokedListMax);
}
