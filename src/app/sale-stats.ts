import type { SectionKind } from '../domain/index.js';
import type { AppContext } from './context.js';
import { found } from './errors.js';
import type { SectionState } from './seat-map-cache.js';
import type { PulseSeries } from './sale-pulse.js';

function pulseView(series: PulseSeries): SaleStats['pulse'] {
  return { stepSeconds: series.stepSeconds, points: series.points.map((p) => ({ at: new Date(p.at).toISOString(), holds: p.holds, refusals: { ...p.refusals } })) };
}

/** One section's figures: seats of a section sold by seat, units of a counted one. */
export interface SectionStats {
  id: string;
  name: string;
  kind: SectionKind;
  /** Counted sections (general admission, or seated sold by quantity) are sold by count. */
  counted: boolean;
  capacity: number;
  sold: number;
  held: number;
  available: number;
  refundPending: number;
  priceCents: number;
  /** sold x price, integer cents. */
  moneyTakenCents: number;
}

export interface SaleStats {
  showId: string;
  version: number;
  /** ISO 4217 code of every amount here. */
  currency: string;
  capacity: number;
  sold: number;
  held: number;
  available: number;
  refundPending: number;
  /** Price of every seat and place sold, integer cents. */
  moneyTakenCents: number;
  /** Seats put on hold in the last minute. */
  holdsPerMinute: number;
  /** Every section, in seat-map order. */
  sections: SectionStats[];
  /** Holds and refusals by code over the last minutes, in buckets (this process's requests). */
  pulse: { stepSeconds: number; points: { at: string; holds: number; refusals: Record<string, number> }[] };
}

/**
 * A section's figures from the read model's counters. A counted section keeps no per-unit state:
 * what is neither left nor sold is held (taken by an active hold).
 */
function sectionStats(state: SectionState): SectionStats {
  const available = Math.max(0, state.available);
  const held = state.counted ? Math.max(0, state.capacity - available - state.sold) : state.held;
  return {
    id: state.id,
    name: state.name,
    kind: state.kind,
    counted: state.counted,
    capacity: state.capacity,
    sold: state.sold,
    held,
    available,
    refundPending: state.refundPending,
    priceCents: state.priceCents,
    moneyTakenCents: state.sold * state.priceCents,
  };
}

/**
 * The organizer's live sale figures, from the in-memory read model (no store read): per section
 * and in total, every kind of section counted. Nothing here grows with the show's seats: the read
 * model keeps counters per section as seats and stock change (sections are at most
 * limits.sectionsPerShowMax).
 */
export async function saleStats(ctx: AppContext, showId: string): Promise<SaleStats> {
  const entry = found(await ctx.seatMaps.get(showId), 'SHOW_NOT_FOUND', 'no such show');
  const sections = [...entry.sections.values()].map(sectionStats);
  const total = (key: 'sold' | 'held' | 'available' | 'refundPending' | 'moneyTakenCents'): number => sections.reduce((sum, s) => sum + s[key], 0);
  return {
    showId,
    version: entry.version,
    currency: entry.show.currency ?? ctx.policy.currency,
    capacity: entry.show.capacity,
    sold: total('sold'),
    held: total('held'),
    available: total('available'),
    refundPending: total('refundPending'),
    moneyTakenCents: total('moneyTakenCents'),
    holdsPerMinute: ctx.seatMaps.feed.holdsPerMinute(showId),
    sections,
    pulse: pulseView(ctx.seatMaps.feed.pulse.series(showId, ctx.clock.now())),
  };
}
