import type { Ticket } from '../domain/index.js';
import type { TicketSigner } from '../ports/security.js';

/**
 * QR payload: `TR1.<base64url(JSON claims)>.<base64url(signature)>`. A scanner with the public
 * key verifies it offline; the server checks it again and looks the ticket up.
 */
export interface TicketClaims {
  readonly tid: string;
  readonly code: string;
  readonly show: string;
  readonly seat: string;
  /** The ticket's section, so a door offline names a general-admission place (absent from QRs made before it was added). */
  readonly sec?: string;
}

const prefix = 'TR1';
/** A QR payload longer than this is not ours. */
export const qrLengthMax = 1024;

export function encodeTicketQr(signer: TicketSigner, ticket: Ticket): string {
  // General admission tickets name no seat: the claim is then empty.
  const claims: TicketClaims = { tid: ticket.ticketId, code: ticket.code, show: ticket.showId, seat: ticket.seatId ?? '', sec: ticket.sectionId };
  const body = Buffer.from(JSON.stringify(claims)).toString('base64url');
  const signed = `${prefix}.${body}`;
  return `${signed}.${signer.sign(signed)}`;
}

/** The claims of a genuine payload, or null for anything forged, truncated or foreign. */
export function decodeTicketQr(signer: TicketSigner, qr: string): TicketClaims | null {
  if (qr.length > qrLengthMax) return null;
  const parts = qr.split('.');
  if (parts.length !== 3 || parts[0] !== prefix) return null;
  const [, body, signature] = parts as [string, string, string];
  // One ticket, one spelling: Node's decoder forgives padding, stray characters, the standard
  // alphabet and unused trailing bits, so many strings would verify as the same signature.
  if (!isCanonicalBase64url(body) || !isCanonicalBase64url(signature)) return null;
  if (!signer.verify(`${prefix}.${body}`, signature)) return null;
  try {
    const claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Partial<TicketClaims>;
    const fields = [claims.tid, claims.code, claims.show, claims.seat];
    return fields.every((f) => typeof f === 'string') ? (claims as TicketClaims) : null;
  } catch {
    return null;
  }
}

const base64urlAlphabet = /^[A-Za-z0-9_-]+$/;

/** Strict base64url without padding, in its canonical form: decoding and encoding again gives the same text. */
function isCanonicalBase64url(text: string): boolean {
  return base64urlAlphabet.test(text) && Buffer.from(text, 'base64url').toString('base64url') === text;
}
