import { describe, expect, it } from 'vitest';
import { checkWebhookTarget, guardedSender, type WebhookTargetPolicy } from '../../src/app/webhook-targets.js';
import type { WebhookRequest, WebhookResponse, WebhookSender } from '../../src/ports/webhook-sender.js';

/**
 * Issue 33 (Why 7): a webhook host name is resolved (here by an injected table: no DNS, and no
 * connection is ever made: the sender is a fake that records what it was asked to send) when the
 * endpoint is created and again before every delivery, so a name that later resolves inward
 * (DNS rebinding) is refused at the delivery.
 */
function recordingSender(): WebhookSender & { sent: string[] } {
  const sent: string[] = [];
  return {
    sent,
    async send(req: WebhookRequest): Promise<WebhookResponse> {
      sent.push(req.url);
      return { kind: 'response', statusCode: 204, durationMs: 1 };
    },
    async close() {},
  };
}

const request = (url: string): WebhookRequest => ({ url, body: '{}', headers: {}, timeoutMs: 1000 });

describe('webhook targets after resolution', () => {
  it('refuses a name that resolves to any inward address; one that does not resolve is refused at delivery, accepted at creation', async () => {
    const table: Record<string, string[]> = {
      'public.example': ['93.184.216.34'], 'meta.example': ['169.254.169.254'], 'mixed.example': ['93.184.216.34', '10.0.0.1'],
      'v6.example': ['fd00::1'], 'mapped.example': ['::ffff:127.0.0.1'],
    };
    const policy: WebhookTargetPolicy = { allow: { entries: [] }, resolve: async (host) => { const a = table[host]; if (a === undefined) throw new Error('ENOTFOUND'); return a; } };
    expect(await checkWebhookTarget(policy, 'https://public.example/hook')).toEqual({ ok: true });
    for (const host of ['meta.example', 'mixed.example', 'v6.example', 'mapped.example', 'nowhere.example']) {
      expect({ host, ok: (await checkWebhookTarget(policy, `https://${host}/hook`)).ok }).toEqual({ host, ok: false });
    }
    expect((await checkWebhookTarget(policy, 'https://nowhere.example/hook', { unresolved: 'accept' })).ok).toBe(true);
    expect((await checkWebhookTarget(policy, 'https://meta.example/hook', { unresolved: 'accept' })).ok).toBe(false);
  });

  it('checks again at each delivery: a name that rebinds to a private address is refused as a failed attempt, never sent', async () => {
    let answer = ['93.184.216.34'];
    const policy: WebhookTargetPolicy = { allow: { entries: [] }, resolve: async () => answer };
    const inner = recordingSender();
    const sender = guardedSender(inner, policy);
    expect(await checkWebhookTarget(policy, 'https://rebind.example/hook')).toEqual({ ok: true });
    expect((await sender.send(request('https://rebind.example/hook'))).kind).toBe('response');
    answer = ['10.0.0.1'];
    const refused = await sender.send(request('https://rebind.example/hook'));
    expect(refused).toMatchObject({ kind: 'error', error: expect.stringContaining('private') });
    answer = ['fe80::1'];
    expect((await sender.send(request('https://rebind.example/hook'))).kind).toBe('error');
    // Literal inward addresses never reach the sender either.
    for (const url of ['http://169.254.169.254/latest', 'http://[fd00::1]/', 'http://10.0.0.1/', 'http://[::ffff:127.0.0.1]:6379/']) {
      expect((await sender.send(request(url))).kind).toBe('error');
    }
    expect(inner.sent).toEqual(['https://rebind.example/hook']);
  });

  it('lets through what the operator allows (a local receiver)', async () => {
    const inner = recordingSender();
    const sender = guardedSender(inner, { allow: { entries: ['127.0.0.1:4000'] }, resolve: async () => [] });
    expect((await sender.send(request('http://127.0.0.1:4000/in'))).kind).toBe('response');
    expect((await sender.send(request('http://127.0.0.1:6379/'))).kind).toBe('error');
    expect(inner.sent).toEqual(['http://127.0.0.1:4000/in']);
  });
});
