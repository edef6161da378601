/** The benches' plain HTTP calls to a server under test (fetch, JSON in and out), shared by every bench part. */
export async function call(base: string, method: string, path: string, body?: unknown, token?: string): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, json: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

export async function login(base: string, username: string, password: string): Promise<string> {
  const reply = await call(base, 'POST', '/api/v1/auth/login', { username, password });
  if (reply.status !== 200) throw new Error(`login ${username}: ${reply.status} ${JSON.stringify(reply.json)}`);
  return reply.json.token as string;
}
