import type { FastifyServerOptions } from 'fastify';
import type { AppContext } from '../app/context.js';
import type { PaymentSimulator } from '../ports/payment-provider.js';
import type { TokenService } from './auth.js';

/** What the HTTP edge is given by the composition root. */
export interface HttpDeps {
  readonly ctx: AppContext;
  readonly tokens: TokenService;
  readonly paymentSecret: string;
  /** Present only when the sandbox provider is on. */
  readonly sandbox: PaymentSimulator | null;
  readonly metrics: { readonly contentType: string; render(): Promise<string> };
  readonly bodyLimitBytes: number;
  readonly logger: FastifyServerOptions['logger'];
}
