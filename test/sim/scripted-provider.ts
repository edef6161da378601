import type { LedgerCharge, ProviderLedgerReader } from '../../src/ports/engine/index.js';
import { PaymentProviderError, type CreatedPayment, type PaymentProvider, type ProviderPaymentStatus } from '../../src/ports/payment-provider.js';
import type { PaymentReport } from '../../src/domain/index.js';

/**
 * The seeded simulation's payment provider (issue 32 item 5): a scripted fake behind the
 * PaymentProvider port, since the sandbox refuses only over-refunds and calls back on its own
 * timers. Here the simulation decides every outcome: a charge succeeds or is declined when the
 * script says so, its callback is held back (delayed, late after the hold expired) until the script
 * delivers it, possibly twice; a refund is confirmed, refused or fails (the provider away) as the
 * current mood says. It keeps its own ledger, the truth the store's money is checked against.
 */

/** How the provider answers refund calls for now. */
export type RefundMood = 'confirm' | 'refuse' | 'fail';

interface Charge {
  readonly paymentId: string;
  readonly orderId: string;
  readonly amountCents: number;
  status: 'PENDING' | 'SUCCEEDED' | 'FAILED';
  /** Whether its callback reached the store at least once (before that the store may say PENDING). */
  delivered: boolean;
}

export class ScriptedProvider implements PaymentProvider {
  readonly name = 'scripted';
  /** What refund calls answer now (the simulation sets it per step). */
  refundMood: RefundMood = 'confirm';
  /** Whether opening a payment fails now (the provider away while an order is placed). */
  createFails = false;
  private readonly charges = new Map<string, Charge>();
  private readonly byKey = new Map<string, string>();
  /** Confirmed refunds by idempotency key: a key asked again answers the same, and is never paid twice. */
  private readonly refunds = new Map<string, { paymentId: string; amountCents: number }>();
  /** Decided outcomes whose callbacks have not been delivered yet, oldest first. */
  private readonly outbox: PaymentReport[] = [];
  private sequence = 0;

  async createPayment(request: { orderId: string; amountCents: number; currency: string; idempotencyKey: string }): Promise<CreatedPayment> {
    const known = this.byKey.get(request.idempotencyKey);
    if (known !== undefined) return { paymentId: known };
    if (this.createFails) throw new PaymentProviderError('scripted: the provider is away');
    const paymentId = `pay_sim${String(++this.sequence).padStart(6, '0')}`;
    this.charges.set(paymentId, { paymentId, orderId: request.orderId, amountCents: request.amountCents, status: 'PENDING', delivered: false });
    this.byKey.set(request.idempotencyKey, paymentId);
    return { paymentId };
  }

  async getPaymentStatus(paymentId: string): Promise<ProviderPaymentStatus> {
    return this.charges.get(paymentId)?.status ?? 'UNKNOWN';
  }

  async refund(request: { paymentId: string; amountCents: number; idempotencyKey: string }): Promise<{ refunded: boolean }> {
    const earlier = this.refunds.get(request.idempotencyKey);
    if (earlier !== undefined) return { refunded: true };
    if (this.refundMood === 'fail') throw new PaymentProviderError('scripted: the provider is away');
    // A refusal is not remembered: a provider that declines now may pay the same key later.
    if (this.refundMood === 'refuse') return { refunded: false };
    const charge = this.charges.get(request.paymentId);
    // Like a real provider: nothing back from a charge it never took, nor more than it took.
    if (charge === undefined || charge.status !== 'SUCCEEDED') return { refunded: false };
    if (request.amountCents <= 0 || this.refundedCents(request.paymentId) + request.amountCents > charge.amountCents) return { refunded: false };
    this.refunds.set(request.idempotencyKey, { paymentId: request.paymentId, amountCents: request.amountCents });
    return { refunded: true };
  }

  /** The card holder's answer: queued as a callback for the simulation to deliver (or hold back). */
  decide(paymentId: string, status: 'SUCCEEDED' | 'FAILED'): PaymentReport | null {
    const charge = this.charges.get(paymentId);
    if (charge === undefined || charge.status !== 'PENDING') return null;
    charge.status = status;
    const report: PaymentReport = { paymentId, orderId: charge.orderId, status, amountCents: charge.amountCents };
    this.outbox.push(report);
    return report;
  }

  /** Payments opened and not decided yet, oldest first. */
  undecided(): string[] {
    return [...this.charges.values()].filter((c) => c.status === 'PENDING').map((c) => c.paymentId);
  }

  /** Callbacks held back so far. */
  pendingCallbacks(): readonly PaymentReport[] {
    return this.outbox;
  }

  /** Takes the `index`th held-back callback off the queue (the simulation delivers it). */
  takeCallback(index: number): PaymentReport | null {
    const [report] = this.outbox.splice(index, 1);
    return report ?? null;
  }

  /** The callback reached the store (or reconciliation read the verdict): from now on the store must agree. */
  markDelivered(paymentId: string): void {
    const charge = this.charges.get(paymentId);
    if (charge !== undefined) charge.delivered = true;
  }

  chargeOf(paymentId: string): Readonly<Charge> | null {
    return this.charges.get(paymentId) ?? null;
  }

  allCharges(): readonly Readonly<Charge>[] {
    return [...this.charges.values()];
  }

  refundedCents(paymentId: string): number {
    let sum = 0;
    for (const r of this.refunds.values()) if (r.paymentId === paymentId) sum += r.amountCents;
    return sum;
  }

  /** The ledger as the auditor reads a provider's (the sandbox keeps the same shape). */
  ledger(): ProviderLedgerReader {
    return {
      charges: async (paymentIds) => {
        const out = new Map<string, LedgerCharge>();
        for (const id of paymentIds) {
          const charge = this.charges.get(id);
          if (charge !== undefined) out.set(id, { status: charge.status, refunded: this.refundedCents(id) > 0, amountCents: charge.amountCents });
        }
        return out;
      },
    };
  }
}
