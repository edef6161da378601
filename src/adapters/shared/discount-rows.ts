import type { DiscountCode, DiscountStatus, OrderContact, OrderDiscount } from '../../domain/index.js';

/** A discount_codes row on either store (show_ids: JSON text on SQLite, text[] on PostgreSQL). */
export interface DiscountRow {
  code: string; percent_off: number | null; amount_off_cents: number | null; show_ids: string | string[] | null;
  valid_from: number | string; valid_until: number | string; max_uses: number; per_user_max: number; uses: number;
  status: DiscountStatus; created_at: number | string;
}

export const toDiscount = (r: DiscountRow): DiscountCode => ({
  code: r.code,
  off: r.percent_off !== null ? { kind: 'PERCENT', percent: r.percent_off } : { kind: 'AMOUNT', cents: r.amount_off_cents ?? 0 },
  showIds: r.show_ids === null ? null : typeof r.show_ids === 'string' ? (JSON.parse(r.show_ids) as string[]) : r.show_ids,
  validFrom: Number(r.valid_from), validUntil: Number(r.valid_until), maxUses: r.max_uses, perUserMax: r.per_user_max,
  uses: r.uses, status: r.status, createdAt: Number(r.created_at),
});

/** The order columns of issue 25 (contact, discount), as both stores keep them. */
export interface OrderExtrasRow {
  contact_name?: string | null; contact_phone?: string | null; contact_email?: string | null;
  discount_code?: string | null; discount_cents?: number | null;
}

export const orderExtras = (r: OrderExtrasRow): { contact?: OrderContact; discount?: OrderDiscount } => ({
  ...(r.contact_name == null ? {} : { contact: { name: r.contact_name, phone: r.contact_phone ?? '', email: r.contact_email ?? '' } }),
  ...(r.discount_code == null ? {} : { discount: { code: r.discount_code, discountCents: r.discount_cents ?? 0 } }),
});

/** The order's extra columns as named parameters. */
export const orderExtrasParams = (o: { contact?: OrderContact; discount?: OrderDiscount }) => ({
  contactName: o.contact?.name ?? null, contactPhone: o.contact?.phone ?? null, contactEmail: o.contact?.email ?? null,
  discountCode: o.discount?.code ?? null, discountCents: o.discount?.discountCents ?? 0,
});
