import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, ApiClient, createShow } from '../support/api-client.js';
import { startTestNode, type TestNode } from '../support/backend.js';
import { postCallback } from '../support/payments.js';
import { eventually } from '../support/wait.js';

let t: TestNode & { baseUrl: string };
let admin: ApiClient;
let seq = 0;

beforeAll(async () => {
  t = await startTestNode();
  admin = await adminClient(t.node.app);
});
afterAll(async () => t.close());

/** A steward signed in with the STAFF role an admin gave them. */
async function steward(): Promise<ApiClient> {
  const username = `steward${++seq}`;
  await new ApiClient(t.node.app).signUp(username);
  await admin.request('PUT', `/api/v1/admin/users/${username}/role`, { role: 'STAFF' });
  return new ApiClient(t.node.app).logIn(username, 'password-123');
}

/** A paid, ticketed seat: its ticket as the buyer sees it. */
async function ticket(showId?: string): Promise<{ qr: string; code: string; showId: string; ticketId: string; seatId: string }> {
  const buyer = await new ApiClient(t.node.app).signUp(`holder${++seq}`);
  showId ??= await createShow(admin);
  const hold = await buyer.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-1-1'] });
  const order = (await buyer.request('POST', '/api/v1/orders', { holdId: hold.body.holdId }, { 'x-idempotency-key': `t-${seq}` })).body;
  await postCallback(t.node.app, t.node.config.secrets.payment, { paymentId: order.paymentId, orderId: order.orderId, status: 'SUCCEEDED', amountCents: order.amountCents });
  return eventually(async () => {
    const o = (await buyer.request('GET', `/api/v1/orders/${order.orderId}`)).body;
    return o.status === 'TICKETED' ? (o.tickets[0] as { qr: string; code: string; showId: string; ticketId: string; seatId: string }) : undefined;
  });
}

const isoInstant = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('check-in nonces belong to one steward, gate and device', () => {
  it('admits once; only the same steward at the same gate on the same device retrying the nonce is the same scan', async () => {
    const { qr } = await ticket();
    const [north, south] = [await steward(), await steward()];
    const scan = { qr, nonce: 'scan-1', gate: 'north', deviceId: 'pad-7' };
    const first = await north.request('POST', '/api/v1/checkin', scan);
    expect({ status: first.status, outcome: first.body.outcome }).toEqual({ status: 200, outcome: 'ADMITTED' });
    const retried = await north.request('POST', '/api/v1/checkin', scan);
    expect({ status: retried.status, outcome: retried.body.outcome }).toEqual({ status: 200, outcome: 'ALREADY_ADMITTED_SAME_SCAN' });

    const others = {
      'another steward': () => south.request('POST', '/api/v1/checkin', scan),
      'another gate': () => north.request('POST', '/api/v1/checkin', { ...scan, gate: 'south' }),
      'another device': () => north.request('POST', '/api/v1/checkin', { ...scan, deviceId: 'pad-8' }),
      'no gate or device': () => north.request('POST', '/api/v1/checkin', { qr, nonce: 'scan-1' }),
    };
    for (const [who, send] of Object.entries(others)) {
      const reply = await send();
      expect({ who, status: reply.status, code: reply.body.code }).toEqual({ who, status: 409, code: 'TICKET_ALREADY_USED' });
      expect(reply.body.details.usedAt).toMatch(isoInstant);
      expect(Date.parse(reply.body.details.usedAt)).toBe(Date.parse(first.body.ticket.usedAt));
    }
  });
});

describe('a ticket QR has exactly one spelling', () => {
  it('refuses padding, stray characters, the standard alphabet and unused trailing bits as TICKET_INVALID, and still admits the genuine code', async () => {
    const { qr } = await ticket();
    const [prefix, body, signature] = qr.split('.') as [string, string, string];
    const toStandard = (text: string) => text.replaceAll('-', '+').replaceAll('_', '/');
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    // 64 signature bytes take 86 characters; the last one carries 4 unused bits.
    const lastBitFlipped = `${signature.slice(0, -1)}${alphabet[alphabet.indexOf(signature.at(-1) as string) ^ 1]}`;
    const variants = [
      `${qr}==`,
      `${qr}=`,
      `${prefix}.${body}.${signature.slice(0, 20)}!${signature.slice(20)}`,
      `${prefix}.${body}.${signature.slice(0, 20)} ${signature.slice(20)}`,
      `${prefix}.${body}.${signature.slice(0, 20)}\n${signature.slice(20)}`,
      `${prefix}.${body}==.${signature}`,
      `${prefix}.${body}.${lastBitFlipped}`,
      // The standard alphabet (+ and /), forced to differ even when the signature happens to use neither - nor _.
      `${prefix}.${toStandard(body)}.${toStandard(signature)}==`,
    ];
    if (toStandard(signature) !== signature) variants.push(`${prefix}.${body}.${toStandard(signature)}`);
    if (toStandard(body) !== body) variants.push(`${prefix}.${toStandard(body)}.${signature}`);
    const door = await steward();
    for (const variant of variants) {
      const reply = await door.request('POST', '/api/v1/checkin', { qr: variant, nonce: 'n' });
      expect({ variant, status: reply.status, code: reply.body.code }).toEqual({ variant, status: 400, code: 'TICKET_INVALID' });
    }
    expect((await door.request('POST', '/api/v1/checkin', { qr, nonce: 'n' })).status).toBe(200);
  });
});

describe('the door admits by the code printed on the ticket', () => {
  it('checks a ticket in by its short code and show, with the same once-only rule and nonce as its QR', async () => {
    const first = await ticket();
    const door = await steward();
    const scan = { code: first.code, showId: first.showId, nonce: 'typed-1', gate: 'east' };
    const admitted = await door.request('POST', '/api/v1/checkin', scan);
    expect({ status: admitted.status, outcome: admitted.body.outcome, ticketId: admitted.body.ticket.ticketId, seatId: admitted.body.ticket.seatId })
      .toEqual({ status: 200, outcome: 'ADMITTED', ticketId: first.ticketId, seatId: first.seatId });
    // The same typed scan retried is the same admission; a new scan is a second use, by code or by QR.
    expect((await door.request('POST', '/api/v1/checkin', scan)).body.outcome).toBe('ALREADY_ADMITTED_SAME_SCAN');
    const again = await door.request('POST', '/api/v1/checkin', { ...scan, nonce: 'typed-2' });
    expect({ status: again.status, code: again.body.code }).toEqual({ status: 409, code: 'TICKET_ALREADY_USED' });
    const byQr = await door.request('POST', '/api/v1/checkin', { qr: first.qr, nonce: 'scan-3' });
    expect({ status: byQr.status, code: byQr.body.code }).toEqual({ status: 409, code: 'TICKET_ALREADY_USED' });
  });

  it('reads the code as people type it: lower case, spaces and dashes between groups', async () => {
    const { code, showId } = await ticket();
    const typed = `${code.slice(0, 4)}-${code.slice(4, 8)} ${code.slice(8)}`.toLowerCase();
    const reply = await (await steward()).request('POST', '/api/v1/checkin', { code: typed, showId });
    expect({ status: reply.status, outcome: reply.body.outcome }).toEqual({ status: 200, outcome: 'ADMITTED' });
  });

  it('answers TICKET_INVALID for an unknown code, a code of another show, or a show that does not exist', async () => {
    const { code, showId } = await ticket();
    const otherShow = await createShow(admin);
    const door = await steward();
    for (const body of [{ code: 'ABCDEFGHJKMN', showId }, { code, showId: otherShow }, { code, showId: 'no_such_show' }]) {
      const reply = await door.request('POST', '/api/v1/checkin', body);
      expect({ body, status: reply.status, code: reply.body.code }).toEqual({ body, status: 400, code: 'TICKET_INVALID' });
    }
    // Still VALID: none of those used it.
    expect((await door.request('POST', '/api/v1/checkin', { code, showId })).body.outcome).toBe('ADMITTED');
  });

  it('refuses a body with both or neither of qr and code, or a code without its show, as VALIDATION_FAILED', async () => {
    const { qr, code, showId } = await ticket();
    const door = await steward();
    for (const body of [{ qr, code, showId }, { nonce: 'x' }, { code }, { code: 'x'.repeat(40), showId }, { code: '<script>', showId }]) {
      const reply = await door.request('POST', '/api/v1/checkin', body);
      expect({ body, status: reply.status, code: reply.body.code }).toEqual({ body, status: 400, code: 'VALIDATION_FAILED' });
    }
  });

  it('is for door staff only: a buyer cannot check a code in', async () => {
    const { code, showId } = await ticket();
    const buyer = await new ApiClient(t.node.app).signUp(`nosy${++seq}`);
    expect((await buyer.request('POST', '/api/v1/checkin', { code, showId })).status).toBe(403);
  });
});
