import { randomBytes, randomInt } from 'node:crypto';
import type { IdKind, IdSource } from '../../ports/runtime.js';

const prefixes: Record<IdKind, string> = { user: 'usr', show: 'shw', hold: 'hld', order: 'ord', ticket: 'tkt' };
// No 0/O, 1/I/L: codes are read aloud at the door.
const codeAlphabet = '23456789ABCDEFGHJKMNPQRSTUVWXYZ';
const ticketCodeLength = 12;

/** Random, opaque ids: a 16-byte random suffix is unguessable and needs no coordination. */
export const randomIds: IdSource = {
  newId: (kind) => `${prefixes[kind]}_${randomBytes(16).toString('base64url')}`,
  newTicketCode: () => Array.from({ length: ticketCodeLength }, () => codeAlphabet[randomInt(codeAlphabet.length)]).join(''),
};
