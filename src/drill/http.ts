import { Pool } from 'undici';

export interface Reply {
  readonly status: number;
  /** Parsed JSON, or null for an empty body. */
  readonly body: unknown;
  readonly ms: number;
}

export interface CallOptions {
  readonly body?: unknown;
  readonly token?: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * The drill's only way to the server: HTTP over a bounded pool of keep-alive connections (undici),
 * so a rush measures the server, not connection set-up, and never opens more sockets than asked.
 */
export class DrillHttp {
  private readonly pool: Pool;
  private readonly prefix: string;

  constructor(baseUrl: string, connections: number) {
    const url = new URL(baseUrl);
    this.prefix = url.pathname.replace(/\/$/, '');
    this.pool = new Pool(url.origin, { connections, pipelining: 1, keepAliveTimeout: 30_000, headersTimeout: 60_000, bodyTimeout: 60_000 });
  }

  /** Resolves with any HTTP answer; rejects only when no answer came (the caller counts it as NETWORK_ERROR). */
  async call(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, options: CallOptions = {}): Promise<Reply> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
    const started = performance.now();
    const response = await this.pool.request({
      method,
      path: `${this.prefix}${path}`,
      headers,
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
    });
    const text = await response.body.text();
    const ms = performance.now() - started;
    return { status: response.statusCode, body: parseBody(text), ms };
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}

function parseBody(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** The stable error code of a refusal, or HTTP_<status> when the body has none. */
export function codeOf(reply: Reply): string {
  const body = reply.body;
  if (body !== null && typeof body === 'object' && 'code' in body && typeof body.code === 'string') return body.code;
  return `HTTP_${reply.status}`;
}

/** A field of a JSON object answer, checked at run time (the drill trusts nothing it did not check). */
export function field<T extends 'string' | 'number'>(reply: Reply, name: string, type: T): T extends 'string' ? string : number {
  const body = reply.body;
  const value = body !== null && typeof body === 'object' ? (body as Record<string, unknown>)[name] : undefined;
  if (typeof value !== type) throw new Error(`unexpected answer (${reply.status}): no ${type} "${name}" in ${JSON.stringify(body).slice(0, 300)}`);
  return value as T extends 'string' ? string : number;
}
