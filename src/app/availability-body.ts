import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { SectionKind } from '../domain/index.js';

/** Every section's capacity and what is left of it, at one version of the read model. */
export interface Availability {
  readonly version: number;
  readonly sections: { id: string; kind: SectionKind; capacity: number; available: number }[];
}

export type ContentCoding = 'br' | 'gzip' | 'identity';

/** One version of a show's compact availability, in each coding a client may ask for (made on first ask). */
export interface AvailabilityBody {
  readonly version: number;
  readonly etag: string;
  body(coding: ContentCoding): Buffer;
}

/**
 * Renders `{"version","encoding":"bitmap","seats":"<base64>","sections":[...]}` once per version
 * and keeps its compressed forms: a 100,000-seat show is a 12.5 KB bitmap, 16.7 KB in base64, and
 * at most ~13 KB compressed whatever the seats' state, compressed once per version however many
 * read it (a per-request compressor would compress the same bytes for every reader). Compression
 * of a few kilobytes is well under a millisecond.
 */
export class AvailabilityRenderer {
  private latest: AvailabilityBody | null = null;

  render(version: number, etag: string, bitmap: Uint8Array, availability: Availability): AvailabilityBody {
    if (this.latest?.version === version) return this.latest;
    const identity = Buffer.from(
      `{"version":${version},"encoding":"bitmap","seats":"${Buffer.from(bitmap.buffer, bitmap.byteOffset, bitmap.byteLength).toString('base64')}","sections":${JSON.stringify(availability.sections)}}`,
    );
    const coded: Partial<Record<ContentCoding, Buffer>> = { identity };
    const body = (coding: ContentCoding): Buffer => {
      let bytes = coded[coding];
      if (bytes === undefined) {
        // Brotli at quality 5 is about gzip's speed and smaller; the top qualities cost tens of ms.
        bytes = coding === 'br'
          ? brotliCompressSync(identity, { params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: identity.length } })
          : gzipSync(identity, { level: 6 });
        coded[coding] = bytes;
      }
      return bytes;
    };
    this.latest = { version, etag, body };
    return this.latest;
  }
}
