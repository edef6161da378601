import type { PeriodicSweep } from './background-jobs.js';
import type { JobHandlers } from '../ports/jobs.js';
import type { PaymentProvider } from '../ports/payment-provider.js';
import { PaymentProviderError } from '../ports/payment-provider.js';

/**
 * Fault injection for the drills (issue 26 item 4): switches read once at start from the
 * environment (TICKETRUSH_FAULT_*), all off by default and refused in production mode
 * (src/config.ts). They change nothing but what they name, so a drill shows how the rest of the
 * server copes.
 */
export interface Faults {
  /** Share (0–1) of payment-provider calls that fail as an outage would. */
  readonly providerErrorRate: number;
  /** Every provider call answers only after this long (a provider in trouble). */
  readonly providerDelayMs: number;
  /** The expiry job (the per-hold job and the sweep) stops this long after the start, for `forMs`. */
  readonly expiryOutage: { readonly afterMs: number; readonly forMs: number } | null;
}

export const noFaults: Faults = Object.freeze({ providerErrorRate: 0, providerDelayMs: 0, expiryOutage: null });

export function anyFault(f: Faults): boolean {
  return f.providerErrorRate > 0 || f.providerDelayMs > 0 || f.expiryOutage !== null;
}

/** The expiry outage as absolute times (ms since the epoch) from the process's start. */
export function expiryOutageWindow(f: Faults, startedAtMs: number): { readonly fromMs: number; readonly untilMs: number } | null {
  if (f.expiryOutage === null) return null;
  const fromMs = startedAtMs + f.expiryOutage.afterMs;
  return { fromMs, untilMs: fromMs + f.expiryOutage.forMs };
}

/** A provider whose calls fail at `rate` (random injected), after any configured delay. */
export function faultyProvider(provider: PaymentProvider, rate: number, random: () => number): PaymentProvider {
  if (rate <= 0) return provider;
  const fail = (): void => {
    if (random() < rate) throw new PaymentProviderError('injected provider failure (TICKETRUSH_FAULT_PROVIDER_ERROR_RATE)');
  };
  return {
    name: provider.name,
    createPayment: async (request) => {
      fail();
      return provider.createPayment(request);
    },
    getPaymentStatus: async (paymentId) => {
      fail();
      return provider.getPaymentStatus(paymentId);
    },
    refund: async (request) => {
      fail();
      return provider.refund(request);
    },
  };
}

/** The 'expire-hold' job does nothing while `stopped()`: the sweep, once back, releases what lapsed. */
export function withExpiryOutage(handlers: JobHandlers, stopped: () => boolean): JobHandlers {
  const expire = handlers['expire-hold'];
  if (expire === undefined) return handlers;
  return {
    ...handlers,
    'expire-hold': async (data) => {
      if (!stopped()) await expire(data);
    },
  };
}

/** The expiry sweep skips its runs while `stopped()`. */
export function sweepsWithExpiryOutage(sweeps: readonly PeriodicSweep[], stopped: () => boolean): PeriodicSweep[] {
  return sweeps.map((s) => (s.name === 'expiry-sweep' ? { ...s, run: async () => (stopped() ? undefined : s.run()) } : s));
}
