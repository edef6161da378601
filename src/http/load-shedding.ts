import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { limits } from '../domain/index.js';

/**
 * Load shedding (issue 24 item 6). Past saturation every request queues until it times out and the
 * server spends its time on answers nobody waits for; so this process bounds the buying requests it
 * has in flight and refuses the rest AT ONCE, in onRequest (before the body is read or parsed,
 * before any store work), with 503 BUSY and Retry-After.
 *
 * Priority classes, shed in this order:
 * - `take`: requests that take stock or a place (new holds, queue joins, grabs, flash-sale orders,
 *   bargain starts and cuts): refused once `inflightMax` buying requests are in flight.
 * - `money`: work that turns a hold into money or gives stock back (orders, payments, provider
 *   callbacks, hold release and extension, cancellations): refused only past the higher
 *   `moneyInflightMax`, so a crowd of new holds never starves the buyers already paying.
 * - everything else (seat maps and availability, served from memory; /healthz, /readyz, /metrics;
 *   admin pages) is neither counted nor refused.
 */
export type ShedClass = 'take' | 'money';

export interface LoadSheddingLimits {
  /** Buying requests in flight past which `take` requests are refused (TICKETRUSH_INFLIGHT_MAX). */
  readonly inflightMax: number;
  /** Buying requests in flight past which `money` requests are refused too (TICKETRUSH_INFLIGHT_MONEY_MAX). */
  readonly moneyInflightMax: number;
}

/** 1024: a herd of 500 simultaneous buyers that one process answers within half a second (test/load/herd) is served, not shed; past it the queue only grows. */
export const defaultLoadShedding: LoadSheddingLimits = Object.freeze({ inflightMax: 1024, moneyInflightMax: 2048 });

/** Route patterns (as Fastify registers them) by class; POST unless a method is given. */
const classes: readonly { readonly method: string; readonly url: RegExp; readonly shed: ShedClass }[] = [
  { method: 'POST', url: /^\/api\/v1\/shows\/:[^/]+\/holds$/, shed: 'take' },
  { method: 'POST', url: /^\/api\/v1\/activities\/:[^/]+\/queue$/, shed: 'take' },
  { method: 'POST', url: /^\/api\/v1\/code-pools\/:[^/]+\/grab$/, shed: 'take' },
  { method: 'POST', url: /^\/api\/v1\/shows\/:[^/]+\/waitlist$/, shed: 'take' },
  { method: 'POST', url: /^\/api\/v1\/flash-sales\/:[^/]+\/orders$/, shed: 'take' },
  { method: 'POST', url: /^\/api\/v1\/bargains\/:[^/]+\/start$/, shed: 'take' },
  { method: 'POST', url: /^\/api\/v1\/bargain-orders\/:[^/]+\/cuts$/, shed: 'take' },
  // The new side of an exchange takes seats like a hold (issue 33).
  { method: 'POST', url: /^\/api\/v1\/orders\/:[^/]+\/exchange$/, shed: 'take' },
  { method: 'POST', url: /^\/api\/v1\/orders$/, shed: 'money' },
  { method: 'POST', url: /^\/api\/v1\/orders\/:[^/]+\/(sandbox-pay|cancel)$/, shed: 'money' },
  { method: 'POST', url: /^\/api\/v1\/payments\/callback$/, shed: 'money' },
  { method: 'POST', url: /^\/api\/v1\/payments\/stripe\/webhook$/, shed: 'money' },
  { method: 'POST', url: /^\/api\/v1\/bargain-orders\/:[^/]+\/order$/, shed: 'money' },
  { method: 'POST', url: /^\/api\/v1\/holds\/:[^/]+\/extend$/, shed: 'money' },
  { method: 'DELETE', url: /^\/api\/v1\/holds\/:[^/]+$/, shed: 'money' },
];

/** The class of a route, or null for one that is never shed (reads, health, admin). */
export function shedClassOf(method: string, routeUrl: string): ShedClass | null {
  for (const c of classes) if (c.method === method && c.url.test(routeUrl)) return c.shed;
  return null;
}

/** What the hook counts, for /metrics and the tests. */
export interface InflightGauge {
  readonly inflight: () => number;
  readonly shed: () => Readonly<Record<ShedClass, number>>;
}

const busyBody = JSON.stringify({
  code: 'BUSY',
  message: 'the server is at capacity; try again shortly',
  details: { retryAfterSeconds: limits.busyRetryAfterSeconds },
});

/**
 * Installs the bound on `app`. The class of each route is settled once, when it is registered
 * (onRoute), so the per-request cost is a property read and a comparison.
 */
export function installLoadShedding(app: FastifyInstance, bounds: LoadSheddingLimits): InflightGauge {
  const classOf = new Map<string, ShedClass>();
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      const shed = shedClassOf(method, route.url);
      if (shed !== null) classOf.set(`${method} ${route.url}`, shed);
    }
  });
  let inflight = 0;
  const shedCount: Record<ShedClass, number> = { take: 0, money: 0 };
  app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done) => {
    const shed = classOf.get(`${request.method} ${request.routeOptions.url ?? ''}`);
    if (shed === undefined) return done();
    const bound = shed === 'take' ? bounds.inflightMax : bounds.moneyInflightMax;
    if (inflight >= bound) {
      shedCount[shed]++;
      // Written straight to the socket: no serializer, no error handler, no body read.
      void reply
        .code(503)
        .header('retry-after', String(limits.busyRetryAfterSeconds))
        .header('content-type', 'application/json; charset=utf-8')
        .send(busyBody);
      return;
    }
    inflight++;
    let released = false;
    // 'close' comes once the answer is sent or the client went away, whichever is first.
    reply.raw.once('close', () => {
      if (released) return;
      released = true;
      inflight--;
    });
    done();
  });
  return { inflight: () => inflight, shed: () => ({ ...shedCount }) };
}
