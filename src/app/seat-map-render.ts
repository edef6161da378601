import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { SeatLayout } from '../domain/index.js';
import type { Availability } from './availability-body.js';

/** Seats per rendered chunk: a chunk renders in well under a millisecond. */
const chunkSeats = 1024;
/** Rendering yields to the event loop after this much work, so a big map never stalls a request. */
const renderSliceMs = 8;
const statusNames = ['AVAILABLE', 'HELD', 'SOLD', 'REFUND_PENDING'] as const;
const statusLetters = Buffer.from('AHSR');

/** A rendered seat map: buffers shared by every response of this version (nothing is copied per reader). */
export interface RenderedMap {
  readonly version: number;
  readonly etag: string;
  readonly parts: readonly Buffer[];
  readonly length: number;
}

interface Chunk {
  stamp: number;
  json: Buffer;
}

/**
 * Renders a show's seat map incrementally: the per-seat JSON is cut into chunks of 1,024 seats,
 * each re-rendered only when one of its seats changed (a seat change marks its chunk), and a render
 * yields to the event loop every few milliseconds. The statuses are copied first, so a map is
 * consistent with its version however many changes land while it renders. One render per form at
 * a time: a request arriving meanwhile shares it.
 */
export class SeatMapRenderer {
  /** Version at which a seat of each chunk last changed. */
  private readonly stamps: Uint32Array;
  private readonly chunks: (Chunk | undefined)[] = [];
  /** seatIds of the compact form, per chunk: they never change. */
  private idChunks: Buffer[] | null = null;
  private readonly latest: { full: RenderedMap | null; compact: RenderedMap | null } = { full: null, compact: null };
  private readonly rendering: { full: Promise<RenderedMap> | null; compact: Promise<RenderedMap> | null } = { full: null, compact: null };

  constructor(private readonly showId: string, private readonly layout: SeatLayout, private readonly statuses: Uint8Array) {
    this.stamps = new Uint32Array(Math.ceil(layout.size / chunkSeats));
  }

  /** Seat i changed at `version`. */
  touch(i: number, version: number): void {
    this.stamps[Math.floor(i / chunkSeats)] = version;
  }

  async render(form: 'full' | 'compact', etag: string, availability: Availability): Promise<RenderedMap> {
    const latest = this.latest[form];
    if (latest !== null && latest.version === availability.version) return latest;
    const running = this.rendering[form];
    if (running !== null) return running;
    const render = (form === 'full' ? this.renderFull(etag, availability) : this.renderCompact(etag, availability)).finally(() => {
      this.rendering[form] = null;
    });
    this.rendering[form] = render;
    const map = await render;
    this.latest[form] = map;
    return map;
  }

  private head(availability: Availability): string {
    return `{"showId":${JSON.stringify(this.showId)},"version":${availability.version},"sections":${JSON.stringify(availability.sections)}`;
  }

  private async renderFull(etag: string, availability: Availability): Promise<RenderedMap> {
    const statuses = this.statuses.slice();
    const stamps = this.stamps.slice();
    const parts: Buffer[] = [Buffer.from(`${this.head(availability)},"seats":[`)];
    let sliceStart = performance.now();
    for (let c = 0; c < stamps.length; c++) {
      let chunk = this.chunks[c];
      if (chunk === undefined || chunk.stamp !== stamps[c]) {
        chunk = { stamp: stamps[c] as number, json: this.fullChunk(c, statuses) };
        this.chunks[c] = chunk;
        if (performance.now() - sliceStart > renderSliceMs) {
          await yieldToLoop();
          sliceStart = performance.now();
        }
      }
      parts.push(chunk.json);
    }
    parts.push(Buffer.from(']}'));
    return rendered(availability.version, etag, parts);
  }

  private fullChunk(c: number, statuses: Uint8Array): Buffer {
    const end = Math.min(this.layout.size, (c + 1) * chunkSeats);
    const seats: string[] = [];
    for (let i = c * chunkSeats; i < end; i++) {
      const s = this.layout.seatAt(i);
      seats.push(`{"seatId":"${s.seatId}","section":"${s.section}","row":${s.row},"number":${s.number},"priceCents":${s.priceCents},"accessible":${s.accessible},"status":"${statusNames[statuses[i] as number]}"}`);
    }
    // Every chunk but the first carries its leading comma, so a map is its chunks end to end.
    return Buffer.from((c === 0 ? '' : ',') + seats.join(','));
  }

  private async renderCompact(etag: string, availability: Availability): Promise<RenderedMap> {
    const statuses = this.statuses.slice();
    if (this.idChunks === null) {
      const ids: Buffer[] = [];
      let sliceStart = performance.now();
      for (let c = 0; c * chunkSeats < this.layout.size; c++) {
        const end = Math.min(this.layout.size, (c + 1) * chunkSeats);
        const chunk: string[] = [];
        for (let i = c * chunkSeats; i < end; i++) chunk.push(`"${this.layout.seatIdAt(i)}"`);
        ids.push(Buffer.from((c === 0 ? '' : ',') + chunk.join(',')));
        if (performance.now() - sliceStart > renderSliceMs) {
          await yieldToLoop();
          sliceStart = performance.now();
        }
      }
      this.idChunks = ids;
    }
    const letters = Buffer.allocUnsafe(statuses.length);
    for (let i = 0; i < statuses.length; i++) letters[i] = statusLetters[statuses[i] as number] as number;
    const head = `${this.head(availability)},"legend":{"A":"AVAILABLE","H":"HELD","S":"SOLD","R":"REFUND_PENDING"},"seatIds":[`;
    return rendered(availability.version, etag, [Buffer.from(head), ...this.idChunks, Buffer.from('],"statuses":"'), letters, Buffer.from('"}')]);
  }
}

function rendered(version: number, etag: string, parts: Buffer[]): RenderedMap {
  return { version, etag, parts, length: parts.reduce((sum, p) => sum + p.length, 0) };
}
