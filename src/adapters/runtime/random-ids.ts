import { randomFillSync, randomInt } from 'node:crypto';
import type { IdKind, IdSource } from '../../ports/runtime.js';

const prefixes: Record<IdKind, string> = { user: 'usr', show: 'shw', hold: 'hld', order: 'ord', ticket: 'tkt', flashSale: 'fls', codePool: 'cpl', bargain: 'brg', bargainOrder: 'bgo', auditEntry: 'aud', notification: 'ntf', waitlistEntry: 'wle', refund: 'rfd', exchange: 'exg', block: 'blk', queue: 'que' };
// No 0/O, 1/I/L: codes are read aloud at the door.
const codeAlphabet = '23456789ABCDEFGHJKMNPQRSTUVWXYZ';
const ticketCodeLength = 12;
// Crockford base32 sorts in ASCII order, so ids sort by creation time.
const timeAlphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const randomBytesPerId = 12;

/** Random bytes drawn a page at a time: one CSPRNG call per 4 KiB instead of one per id. */
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

function randomPart(): string {
  if (poolOffset + randomBytesPerId > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const part = pool.toString('base64url', poolOffset, poolOffset + randomBytesPerId);
  poolOffset += randomBytesPerId;
  return part;
}

function timePart(ms: number): string {
  let out = '';
  let rest = ms;
  for (let i = 0; i < 10; i++) {
    out = (timeAlphabet[rest % 32] as string) + out;
    rest = Math.floor(rest / 32);
  }
  return out;
}

/**
 * A per-process counter within the millisecond (four base32 digits, wrapping at about a million):
 * lists that page by id, like the audit log's "newest first", then keep one process's ids of the
 * same millisecond in the order they were made instead of in random order.
 */
let lastMs = 0;
let sequence = 0;
function sequencePart(ms: number): string {
  sequence = ms === lastMs ? (sequence + 1) % 1_048_576 : 0;
  lastMs = ms;
  let out = '';
  let rest = sequence;
  for (let i = 0; i < 4; i++) {
    out = (timeAlphabet[rest % 32] as string) + out;
    rest = Math.floor(rest / 32);
  }
  return out;
}

/**
 * Opaque ids: a millisecond time prefix, so new rows land at the end of the database's B-trees
 * instead of all over them, a sequence within the millisecond, then 96 random bits, which keep
 * them unguessable without coordination.
 */
export const randomIds: IdSource = {
  newId: (kind) => {
    const ms = Date.now();
    return `${prefixes[kind]}_${timePart(ms)}${sequencePart(ms)}${randomPart()}`;
  },
  newTicketCode: () => Array.from({ length: ticketCodeLength }, () => codeAlphabet[randomInt(codeAlphabet.length)]).join(''),
};
