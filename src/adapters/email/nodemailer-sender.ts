import nodemailer from 'nodemailer';
import type { EmailSender, EmailSendResult } from '../../ports/email-sender.js';

/**
 * Email through SMTP with nodemailer (TICKETRUSH_SMTP_URL). Every phase is bounded (connect,
 * greeting, socket), so a server that hangs costs one attempt's timeout, then a retry later.
 * A 5xx answer refusing the message is permanent (trying again gives the same answer); anything
 * else (refused connection, timeout, 4xx) is worth another attempt.
 */
export function createNodemailerSender(options: { readonly url: string; readonly from: string; readonly timeoutMs: number }): EmailSender {
  // One connection per message (no pool): no socket left half-open against a server that restarted.
  const transport = nodemailer.createTransport({
    url: options.url,
    connectionTimeout: options.timeoutMs,
    greetingTimeout: options.timeoutMs,
    socketTimeout: options.timeoutMs,
  });
  return {
    async send(message): Promise<EmailSendResult> {
      try {
        await transport.sendMail({ from: options.from, to: message.to, subject: message.subject, text: message.text, html: message.html, messageId: message.messageId });
        return { ok: true };
      } catch (error) {
        const code = (error as { responseCode?: unknown }).responseCode;
        return { ok: false, error: error instanceof Error ? error.message : String(error), permanent: typeof code === 'number' && code >= 500 && code < 600 };
      }
    },
    async close() {
      transport.close();
    },
  };
}
