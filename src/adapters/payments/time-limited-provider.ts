import { withTimeout } from '../../lib/with-timeout.js';
import { PaymentProviderError, type PaymentProvider } from '../../ports/payment-provider.js';

/**
 * Any provider, with every call bounded: a provider that hangs fails like one that is down, so an
 * order request, the idempotency key it holds and each background pass end in time.
 */
export function timeLimitedProvider(provider: PaymentProvider, callMsMax: number): PaymentProvider {
  const bounded = <T>(call: string, work: Promise<T>): Promise<T> =>
    withTimeout(work, callMsMax, () => new PaymentProviderError(`${provider.name}: ${call} did not answer within ${callMsMax} ms`));
  return {
    name: provider.name,
    createPayment: (request) => bounded('createPayment', provider.createPayment(request)),
    getPaymentStatus: (paymentId) => bounded('getPaymentStatus', provider.getPaymentStatus(paymentId)),
    refund: (request) => bounded('refund', provider.refund(request)),
  };
}
