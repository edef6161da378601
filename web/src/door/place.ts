import type { ShowSection } from '../api';
import { t } from '../i18n';
import { seatName } from '../seat-names';

/**
 * Where a ticket admits, as the door says it: "Stalls, row 4, seat 10" for a seat, "Standing –
 * general admission" for a place without one. An unknown section (a QR from before tickets named
 * it) still says general admission rather than a bare "Seat".
 */
export function placeName(sections: readonly ShowSection[], sectionId: string | null | undefined, seatId: string | null | undefined): string {
  if (seatId !== null && seatId !== undefined && seatId !== '') return seatName(sections, seatId);
  const section = sections.find((s) => s.id === sectionId);
  return section === undefined ? t('ticketStanding') : t('doorGaPlace', { section: section.name });
}

/** A QR's claims read without checking them: only to name the place of a refused ticket. */
export function peekClaims(qr: string): { show?: string; seat?: string; sec?: string } | null {
  try {
    const body = qr.trim().split('.')[1] ?? '';
    return JSON.parse(atob(body.replace(/-/g, '+').replace(/_/g, '/'))) as { show?: string; seat?: string; sec?: string };
  } catch {
    return null;
  }
}

/** A QR payload starts with its format tag; anything else typed at the door is a short code. */
export const isQrPayload = (text: string): boolean => text.startsWith('TR1.');
