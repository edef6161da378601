import PDFDocument from 'pdfkit';
import { encode } from 'uqr';
import type { PrintableOrder, PrintableTicket } from '../app/ticket-print.js';

/**
 * An order's tickets as a PDF: one A6 page a ticket (prints on A4 folded twice, reads on a phone),
 * with the show, its date, the venue, the place named as a person reads it, the ticket code and
 * the QR code of the same signed payload the ticket carries. pdfkit writes pages into the document
 * stream as they are made; the caller sends that stream as the response.
 *
 * With a font file (TICKETRUSH_TICKET_FONT; by default Debian's Noto Sans CJK when installed) the
 * text is set in it, embedded as a subset of the characters used, so a Chinese show title prints.
 * Without one, the PDF standard fonts cover Latin-1 and the Windows-1252 extras only, and other
 * characters print as "?". The QR code, which is what the door reads, is unaffected either way.
 */
export function ticketsPdf(order: PrintableOrder, timeZone: string, font: TicketFont | null = null): PDFKit.PDFDocument {
  const doc = new PDFDocument({
    size: 'A6',
    margin: 22,
    autoFirstPage: false,
    info: { Title: latin(`Tickets - ${order.show.title}`), Subject: `Order ${order.orderId}`, Creator: 'TicketRush' },
    lang: 'en',
  });
  const when = new Intl.DateTimeFormat('en-GB', { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric', hour: '2-digit', minute: '2-digit', timeZone, timeZoneName: 'short' }).format(order.show.startsAt);
  const faces = font === null ? standardFaces : embeddedFaces(doc, font);
  order.tickets.forEach((ticket, index) => ticketPage(doc, faces, order, ticket, when, `Ticket ${index + 1} of ${order.tickets.length}`));
  doc.end();
  return doc;
}

export interface TicketFont {
  readonly file: string;
  /** The face's PostScript name within a collection (.ttc); null for a single-face file. */
  readonly name: string | null;
}

/** The faces a page uses, and what text they can print. */
interface Faces {
  readonly regular: string;
  readonly bold: string;
  readonly printable: (text: string) => string;
}

const standardFaces: Faces = { regular: 'Helvetica', bold: 'Helvetica-Bold', printable: (text) => latin(text) };

function embeddedFaces(doc: PDFKit.PDFDocument, font: TicketFont): Faces {
  if (font.name === null) doc.registerFont('ticket-text', font.file);
  else doc.registerFont('ticket-text', font.file, font.name);
  // One face for both weights: the size and the layout carry the emphasis.
  return { regular: 'ticket-text', bold: 'ticket-text', printable: (text) => text };
}

function ticketPage(doc: PDFKit.PDFDocument, faces: Faces, order: PrintableOrder, ticket: PrintableTicket, when: string, counter: string): void {
  doc.addPage();
  const width = doc.page.width - doc.page.margins.left - doc.page.margins.right;
  const left = doc.page.margins.left;
  const { printable } = faces;
  doc.fillColor('black').font(faces.bold).fontSize(15).text(printable(order.show.title), { width });
  doc.moveDown(0.2).font(faces.regular).fontSize(9.5).text(when, { width });
  doc.text(printable(`${order.show.venue}, ${order.show.city}`), { width });
  doc.moveDown(0.5).font(faces.bold).fontSize(12.5).text(printable(placeName(ticket)), { width });
  if (ticket.status !== 'VALID') doc.font(faces.bold).fontSize(10).fillColor('#b00020').text(ticket.status === 'USED' ? 'Already used at the door' : 'Not valid for entry', { width }).fillColor('black');

  // The QR code as filled squares (crisp at any zoom), in the space left above the code lines.
  const qr = encode(ticket.qr, { ecc: 'M', border: 2 });
  const bottom = doc.page.height - doc.page.margins.bottom - 52;
  const top = doc.y + 8;
  const side = Math.min(width, bottom - top);
  const module = side / qr.size;
  const x0 = left + (width - side) / 2;
  // A run of dark modules in a row is one rectangle: no hairline seams between them when a viewer
  // anti-aliases, and a smaller file.
  qr.data.forEach((row, y) => {
    for (let x = 0; x < row.length; x += 1) {
      if (!row[x]) continue;
      const start = x;
      while (row[x + 1] === true) x += 1;
      doc.rect(x0 + start * module, top + y * module, (x - start + 1) * module, module);
    }
  });
  doc.fill('black');

  doc.font('Courier-Bold').fontSize(14).text(ticket.code, left, bottom + 6, { width, align: 'center' });
  doc.font(faces.regular).fontSize(7.5).fillColor('#444444')
    .text(`${counter} - order ${order.orderId}`, { width, align: 'center' })
    .text('Show this page at the door, printed or on a phone.', { width, align: 'center' })
    .fillColor('black');
}

/** "Stalls, row 4, seat 10", or "Standing (general admission)". */
function placeName(ticket: PrintableTicket): string {
  const { place } = ticket;
  return place.kind === 'SEAT' ? `${place.section}, row ${place.row}, seat ${place.number}` : `${place.section} (general admission)`;
}

/** Windows-1252 beyond ASCII and Latin-1: what the standard fonts can print besides U+00A0-U+00FF. */
const cp1252Extras = new Set('€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ');

/** Text the standard fonts can print; anything else becomes "?" (see ticketsPdf). */
export function latin(text: string): string {
  return Array.from(text, (ch) => {
    const code = ch.codePointAt(0) ?? 0;
    return (code >= 0x20 && code <= 0x7e) || (code >= 0xa0 && code <= 0xff) || cp1252Extras.has(ch) ? ch : '?';
  }).join('');
}
