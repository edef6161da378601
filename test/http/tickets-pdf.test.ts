import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { getDocument, OPS } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { encode } from 'uqr';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, ApiClient, createShow } from '../support/api-client.js';
import { startTestNode, type TestNode } from '../support/backend.js';
import { eventually } from '../support/wait.js';

// GET /orders/{orderId}/tickets.pdf: the order's tickets, one a page, read back with PDF.js as a
// reader would (page count, the words on each page, and the QR code's squares).
const standardFontDataUrl = `${join(resolve(import.meta.dirname, '../..'), 'node_modules/pdfjs-dist/standard_fonts')}/`;

let t: TestNode & { baseUrl: string };
let admin: ApiClient;
let showId: string;
let seq = 0;

beforeAll(async () => {
  t = await startTestNode();
  admin = await adminClient(t.node.app);
  showId = await createShow(admin, {
    sections: [
      { id: 'A', name: 'Stalls', rows: 10, seatsPerRow: 10, priceCents: 5000 },
      { id: 'GA', name: 'Standing', kind: 'GENERAL_ADMISSION', capacity: 50, priceCents: 3000 },
    ],
  });
});
afterAll(async () => t.close());

const buyer = async () => new ApiClient(t.node.app).signUp(`printer${++seq}`);

async function order(api: ApiClient, hold: object): Promise<string> {
  const held = await api.request('POST', `/api/v1/shows/${showId}/holds`, hold);
  expect(held.status).toBe(201);
  const placed = await api.request('POST', '/api/v1/orders', { holdId: held.body.holdId }, { 'x-idempotency-key': `pdf-${++seq}` });
  expect(placed.status).toBe(201);
  return placed.body.orderId as string;
}

async function ticketedOrder(api: ApiClient, hold: object): Promise<{ orderId: string; tickets: { code: string; qr: string; seatId: string | null }[] }> {
  const orderId = await order(api, hold);
  expect((await api.request('POST', `/api/v1/orders/${orderId}/sandbox-pay`, { outcome: 'SUCCEEDED' })).status).toBe(202);
  return eventually(async () => {
    const o = (await api.request('GET', `/api/v1/orders/${orderId}`)).body;
    return o.status === 'TICKETED' ? o : undefined;
  }, 10_000, 'TICKETED');
}

async function getPdf(token: string | null, orderId: string) {
  return t.node.app.inject({ method: 'GET', url: `/api/v1/orders/${orderId}/tickets.pdf`, headers: token === null ? {} : { authorization: `Bearer ${token}` } });
}

const tokenOf = (api: ApiClient): string => (api as unknown as { token: string }).token;

/** The pages' text and the dark squares of each page, read by PDF.js. */
async function readPdf(bytes: Buffer): Promise<{ text: string; squares: { x: number; y: number; side: number }[] }[]> {
  const pdf = await getDocument({ data: new Uint8Array(bytes), standardFontDataUrl, verbosity: 0, isEvalSupported: false }).promise;
  const pages = [];
  for (let n = 1; n <= pdf.numPages; n += 1) {
    const page = await pdf.getPage(n);
    const text = (await page.getTextContent()).items.map((item) => ('str' in item ? item.str : '')).join(' ');
    const operators = await page.getOperatorList();
    const squares: { x: number; y: number; side: number }[] = [];
    operators.fnArray.forEach((fn, i) => {
      if (fn !== OPS.constructPath) return;
      const [ops, coords] = operators.argsArray[i] as [number[], number[]];
      let at = 0;
      for (const op of ops) {
        if (op === OPS.rectangle) {
          const [x, y, w, h] = coords.slice(at, at + 4) as [number, number, number, number];
          // A row's run of dark modules is one rectangle, one module high.
          const modules = Math.round(w / h);
          for (let k = 0; k < modules; k += 1) squares.push({ x: x + k * h, y, side: h });
          at += 4;
        } else {
          at += op === OPS.curveTo ? 6 : op === OPS.curveTo2 || op === OPS.curveTo3 ? 4 : op === OPS.closePath ? 0 : 2;
        }
      }
    });
    pages.push({ text, squares });
  }
  await pdf.destroy();
  return pages;
}

/**
 * The QR modules the squares draw, as rows of booleans, top row first. The operands are read as
 * written: pdfkit turns the page's y axis downwards once per page, so y grows down the page.
 */
function modulesOf(squares: readonly { x: number; y: number; side: number }[]): boolean[][] {
  const side = squares[0]?.side ?? 1;
  const x0 = Math.min(...squares.map((s) => s.x));
  const y0 = Math.min(...squares.map((s) => s.y));
  const cells = squares.map((s) => [Math.round((s.x - x0) / side), Math.round((s.y - y0) / side)] as const);
  const size = Math.max(...cells.flat()) + 1;
  const grid = Array.from({ length: size }, () => Array.from({ length: size }, () => false));
  for (const [x, y] of cells) (grid[y] as boolean[])[x] = true;
  return grid;
}

describe('GET /orders/{orderId}/tickets.pdf', () => {
  it('prints one page a ticket: show, venue, the seat as a person reads it, the code, and the QR of the signed payload', async () => {
    const alice = await buyer();
    const done = await ticketedOrder(alice, { seatIds: ['A-4-9', 'A-4-10'] });
    const reply = await getPdf(tokenOf(alice), done.orderId);
    expect(reply.statusCode).toBe(200);
    expect(reply.headers['content-type']).toBe('application/pdf');
    expect(reply.headers['content-disposition']).toBe(`attachment; filename="tickets-${done.orderId}.pdf"`);
    expect(reply.headers['cache-control']).toBe('private, no-store');
    const pages = await readPdf(reply.rawPayload);
    expect(pages).toHaveLength(2);
    for (const [i, ticket] of done.tickets.entries()) {
      const page = pages[i];
      expect(page?.text).toContain('Test Show');
      expect(page?.text).toContain('Test Hall, Test City');
      expect(page?.text).toContain(`Stalls, row 4, seat ${ticket.seatId === 'A-4-9' ? 9 : 10}`);
      expect(page?.text).toContain(ticket.code);
      expect(page?.text).toContain(`Ticket ${i + 1} of 2`);
      // The squares drawn are the QR code of the ticket's own signed payload, module for module.
      const expected = encode(ticket.qr, { ecc: 'M', border: 0 }).data;
      expect(modulesOf(page?.squares ?? [])).toEqual(expected);
    }
  });

  it('names the section of a general-admission ticket, which has no seat', async () => {
    const bob = await buyer();
    const done = await ticketedOrder(bob, { section: 'GA', quantity: 1 });
    const pages = await readPdf((await getPdf(tokenOf(bob), done.orderId)).rawPayload);
    expect(pages).toHaveLength(1);
    expect(pages[0]?.text).toContain('Standing (general admission)');
    expect(pages[0]?.text).toContain(done.tickets[0]?.code);
  });

  it('answers 409 ORDER_NOT_TICKETED while the order has no tickets yet', async () => {
    const carol = await buyer();
    const orderId = await order(carol, { seatIds: ['A-9-1'] });
    const reply = await getPdf(tokenOf(carol), orderId);
    expect(reply.statusCode).toBe(409);
    expect(reply.json()).toMatchObject({ code: 'ORDER_NOT_TICKETED', details: { status: 'PENDING_PAY' } });
  });

  it("is the buyer's (or an admin's) alone: anyone else is told there is no such order, and no token is 401", async () => {
    const dave = await buyer();
    const done = await ticketedOrder(dave, { seatIds: ['A-8-1'] });
    const eve = await buyer();
    const stolen = await getPdf(tokenOf(eve), done.orderId);
    expect({ status: stolen.statusCode, code: stolen.json().code }).toEqual({ status: 404, code: 'ORDER_NOT_FOUND' });
    expect((await getPdf(null, done.orderId)).statusCode).toBe(401);
    const asAdmin = await getPdf(tokenOf(admin), done.orderId);
    expect(asAdmin.statusCode).toBe(200);
    expect(asAdmin.rawPayload.subarray(0, 5).toString('latin1')).toBe('%PDF-');
  });

  // Runs last: it renames the shared show.
  it.skipIf(!existsSync('/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc'))('prints a Chinese show title in the ticket font (Noto Sans CJK, embedded as a subset)', async () => {
    expect(t.node.config.ticketFont).not.toBeNull();
    const renamed = await admin.request('PATCH', `/api/v1/admin/shows/${showId}`, { title: '春季音乐会', venue: '国家大剧院' });
    expect(renamed.status).toBe(200);
    const dan = await buyer();
    const done = await ticketedOrder(dan, { seatIds: ['A-6-1'] });
    const reply = await getPdf(tokenOf(dan), done.orderId);
    const pages = await readPdf(reply.rawPayload);
    expect(pages[0]?.text.replace(/\s+/g, '')).toContain('春季音乐会');
    expect(pages[0]?.text.replace(/\s+/g, '')).toContain('国家大剧院');
    // A subset of the font's glyphs, not the whole 19 MB collection.
    expect(reply.rawPayload.length).toBeLessThan(200_000);
  });
});
