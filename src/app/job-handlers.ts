import type { JobHandlers, JobPayloads } from '../ports/jobs.js';
import type { AppContext } from './context.js';
import { expireHold } from './expiry.js';
import { processRefund } from './refunds.js';
import { runShowCancellation } from './show-cancellation.js';
import { issueOrderTickets } from './tickets.js';

/**
 * What each named job does: one line per job, each a use case. Every handler is safe to run
 * twice or late (it re-reads the state and does nothing when there is nothing to do), since a
 * queue runs a job at least once.
 */
export function jobHandlers(
  ctx: AppContext,
  webhooks: { runJob(data: JobPayloads['deliver-webhook']): Promise<void> },
  mailer: { runJob(data: JobPayloads['notification-email']): Promise<void> } | null = null,
): JobHandlers {
  return {
    'expire-hold': async ({ holdId }) => {
      await expireHold(ctx, holdId);
    },
    'issue-tickets': async ({ orderId }) => {
      await issueOrderTickets(ctx, orderId);
    },
    'deliver-webhook': (data) => webhooks.runJob(data),
    // No mailer (SMTP not configured): nothing to send; the job is a no-op.
    'notification-email': async (data) => {
      await mailer?.runJob(data);
    },
    'process-refund': async ({ refundId }) => {
      await processRefund(ctx, refundId);
    },
    'cancel-show': async ({ showId }) => {
      await runShowCancellation(ctx, showId);
    },
  };
}
