import type { FastifyRequest } from 'fastify';

/**
 * The X-Admission-Token header as sent (undefined when absent). Its size is checked, before
 * anything in it is read, by the token check itself (2 KB).
 */
export function admissionTokenOf(request: FastifyRequest): string | undefined {
  const raw = request.headers['x-admission-token'];
  return Array.isArray(raw) ? raw[0] : raw;
}

/** The header as documented in each buying route's schema. */
export const admissionHeaderDoc = 'With the activity\'s waiting room on: X-Admission-Token from GET /activities/{activityId}/queue/{queueId} once ADMITTED (403 ADMISSION_REQUIRED without it, 403 ADMISSION_INVALID when forged, expired, or another user\'s or activity\'s).';
