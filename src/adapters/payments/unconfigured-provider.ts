import { PaymentProviderError, type PaymentProvider } from '../../ports/payment-provider.js';

/** TICKETRUSH_PAYMENT_PROVIDER=none: orders are refused with a clear error instead of pretending to take money. */
export const unconfiguredProvider: PaymentProvider = {
  name: 'none',
  createPayment: async () => {
    throw new PaymentProviderError('no payment provider is configured (TICKETRUSH_PAYMENT_PROVIDER=none)');
  },
  getPaymentStatus: async () => 'UNKNOWN',
  refund: async () => ({ refunded: false }),
};
