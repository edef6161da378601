import type { FastifyReply, FastifyRequest } from 'fastify';
import type { HoldResult } from '../ports/telemetry.js';

/**
 * A hold answer's class for the failure-rate alert (§14.2): a 5xx (BUSY and STORAGE_UNAVAILABLE
 * are 503) or a 408 request timeout is the platform failing; any other 4xx is a refusal the buyer
 * caused (a taken seat, sold out, a limit, bad input).
 */
export function holdResultOf(status: number): HoldResult {
  if (status < 400) return 'ok';
  return status >= 500 || status === 408 ? 'failed' : 'refused';
}

/**
 * An onSend hook that counts a route's answers by outcome at the edge, so a refusal is counted
 * with the code the client got wherever it was decided (sign-in, header or body validation, the
 * use case). `success` names a 2xx outcome, or null when the use case counts its own.
 */
export function countAnswers(count: (outcome: string) => void, success: (reply: FastifyReply) => string | null) {
  return async (_request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> => {
    const outcome = reply.statusCode < 400 ? success(reply) : refusalCode(payload);
    if (outcome !== null) count(outcome);
    return payload;
  };
}

function refusalCode(payload: unknown): string {
  if (typeof payload !== 'string') return 'ERROR';
  try {
    const code = (JSON.parse(payload) as { code?: unknown }).code;
    return typeof code === 'string' ? code : 'ERROR';
  } catch {
    return 'ERROR';
  }
}
