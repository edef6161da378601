/** One email, in plain text and HTML. */
export interface EmailMessage {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  readonly html: string;
  /** A stable Message-ID per notification: should an attempt ever be repeated, receivers can tell. */
  readonly messageId: string;
}

/** Sent (the server accepted it), or not: `permanent` when trying again cannot help (a 5xx refusal of the address). */
export type EmailSendResult = { readonly ok: true } | { readonly ok: false; readonly error: string; readonly permanent: boolean };

/** The way out for email (nodemailer over SMTP when TICKETRUSH_SMTP_URL is set). Never throws. */
export interface EmailSender {
  send(message: EmailMessage): Promise<EmailSendResult>;
  close(): Promise<void>;
}
