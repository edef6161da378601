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
async function ticket(): Promise<{ qr: string }> {
  const buyer = await new ApiClient(t.node.app).signUp(`holder${++seq}`);
  const showId = await createShow(admin);
  const hold = await buyer.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-1-1'] });
  const order = (await buyer.request('POST', '/api/v1/orders', { holdId: hold.body.holdId }, { 'x-idempotency-key': `t-${seq}` })).body;
  await postCallback(t.node.app, t.node.config.secrets.payment, { paymentId: order.paymentId, orderId: order.orderId, status: 'SUCCEEDED', amountCents: order.amountCents });
  return eventually(async () => {
    const o = (await buyer.request('GET', `/api/v1/orders/${order.orderId}`)).body;
    return o.status === 'TICKETED' ? (o.tickets[0] as { qr: string }) : undefined;
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
