/** One POST of a signed webhook body to a receiver. */
export interface WebhookRequest {
  readonly url: string;
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
  /** The whole attempt (connect, headers, the little of the body read) is cut after this long. */
  readonly timeoutMs: number;
}

/** A response (any status), or why none came (timeout, refused, reset). Never throws. */
export type WebhookResponse =
  | { readonly kind: 'response'; readonly statusCode: number; readonly durationMs: number }
  | { readonly kind: 'error'; readonly error: string; readonly durationMs: number };

/** Sends webhook requests over HTTP (adapter: src/adapters/webhooks/undici-sender.ts). */
export interface WebhookSender {
  send(request: WebhookRequest): Promise<WebhookResponse>;
  close(): Promise<void>;
}
