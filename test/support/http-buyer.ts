/** A buyer over a real socket (fetch), for race tests where requests must truly interleave. */
export interface HttpReply {
  readonly status: number;
  readonly body: any;
}

export class HttpBuyer {
  private token = '';

  constructor(private baseUrl: string, readonly username: string) {}

  /** A buyer already signed in with `token` (see test/support/crowd.ts: crowds skip the password hashing). */
  static signedIn(baseUrl: string, username: string, token: string): HttpBuyer {
    const buyer = new HttpBuyer(baseUrl, username);
    buyer.token = token;
    return buyer;
  }

  /** The same buyer, still signed in, talking to a server that came back on another port. */
  reconnect(baseUrl: string): void {
    this.baseUrl = baseUrl;
  }

  async call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<HttpReply> {
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(this.token === '' ? {} : { authorization: `Bearer ${this.token}` }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text === '' ? null : JSON.parse(text) };
  }

  async signUp(password = 'password-123'): Promise<this> {
    await this.call('POST', '/api/v1/auth/register', { username: this.username, password });
    const login = await this.call('POST', '/api/v1/auth/login', { username: this.username, password });
    if (login.status !== 200) throw new Error(`login failed for ${this.username}: ${JSON.stringify(login.body)}`);
    this.token = login.body.token as string;
    return this;
  }
}
