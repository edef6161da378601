import type { ShowSection } from './api';
import { seatsName, unitsName } from './seat-names';
import { t } from './i18n';

export type Line = { readonly kind: 'SEATS'; readonly sectionId: string; readonly seatIds: readonly string[] } | { readonly kind: 'UNITS'; readonly sectionId: string; readonly quantity: number };

/**
 * What a hold or an order takes, as a person reads it: "Stalls, row 4, seats 10–11; 3 × Standing".
 * Falls back to the seat ids when an older answer has no lines.
 */
export function linesName(sections: readonly ShowSection[], lines: readonly Line[] | undefined, seatIds: readonly string[] = []): string {
  if (lines === undefined || lines.length === 0) return seatsName(sections, seatIds);
  const seats = lines.flatMap((l) => (l.kind === 'SEATS' ? l.seatIds : []));
  const places = lines.flatMap((l) => (l.kind === 'UNITS' ? [unitsName(sections, l.sectionId, l.quantity)] : []));
  return [...(seats.length > 0 ? [seatsName(sections, seats)] : []), ...places].join(t('groupSeparator'));
}
