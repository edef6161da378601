/**
 * Where a webhook may be delivered (issue 33): not into the operator's own network. An address of
 * this machine (loopback), of a private network, link-local (cloud metadata at 169.254.169.254),
 * unique-local, unspecified, or one of those written as an IPv4-mapped IPv6 address, is refused,
 * whether the URL names it or its host name resolves to it, unless the operator allows it by name.
 * Pure: the resolving is the caller's.
 */

export type ForbiddenKind = 'loopback' | 'private' | 'link-local' | 'unique-local' | 'unspecified' | 'multicast' | 'broadcast';

/** An IPv4 address as four octets, or null when the text is not one (dotted decimal, four parts). */
function ipv4Octets(text: string): number[] | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  const octets = parts.map((p) => (/^\d{1,3}$/.test(p) ? Number(p) : NaN));
  return octets.every((o) => Number.isInteger(o) && o >= 0 && o <= 255) ? octets : null;
}

/** An IPv6 address as eight 16-bit groups (an embedded dotted IPv4 tail allowed), or null. */
function ipv6Groups(text: string): number[] | null {
  let body = text;
  const zone = body.indexOf('%');
  if (zone >= 0) body = body.slice(0, zone);
  // An embedded dotted IPv4 tail (::ffff:127.0.0.1) becomes its two groups.
  const lastColon = body.lastIndexOf(':');
  if (body.slice(lastColon + 1).includes('.')) {
    const v4 = ipv4Octets(body.slice(lastColon + 1));
    if (v4 === null) return null;
    const [o0, o1, o2, o3] = v4 as [number, number, number, number];
    body = `${body.slice(0, lastColon + 1)}${((o0 << 8) | o1).toString(16)}:${((o2 << 8) | o3).toString(16)}`;
  }
  const halves = body.split('::');
  if (halves.length > 2) return null;
  const parse = (s: string): number[] | null => {
    if (s === '') return [];
    const groups = s.split(':').map((g) => (/^[0-9a-fA-F]{1,4}$/.test(g) ? parseInt(g, 16) : NaN));
    return groups.every((g) => !Number.isNaN(g)) ? groups : null;
  };
  const head = parse(halves[0] as string);
  const rest = halves.length === 2 ? parse(halves[1] as string) : [];
  if (head === null || rest === null) return null;
  const known = head.length + rest.length;
  if (halves.length === 1 ? known !== 8 : known > 7) return null;
  return [...head, ...Array.from({ length: 8 - known }, () => 0), ...rest];
}

/** A parsed address: IPv4 octets, or IPv6 groups (an IPv4-mapped one is taken as its IPv4 address). */
export type IpAddress = { readonly v: 4; readonly octets: readonly number[] } | { readonly v: 6; readonly groups: readonly number[] };

export function parseIp(text: string): IpAddress | null {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const v4 = ipv4Octets(bare);
  if (v4 !== null) return { v: 4, octets: v4 };
  if (!bare.includes(':')) return null;
  const groups = ipv6Groups(bare);
  if (groups === null) return null;
  // ::ffff:a.b.c.d (and its hex spelling ::ffff:7f00:1) is the IPv4 address a.b.c.d on the wire.
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    const hi = groups[6] as number;
    const lo = groups[7] as number;
    return { v: 4, octets: [hi >> 8, hi & 255, lo >> 8, lo & 255] };
  }
  return { v: 6, groups };
}

/** Why an address may not be a webhook target, or null when it may. */
export function forbiddenKind(address: IpAddress): ForbiddenKind | null {
  if (address.v === 4) {
    const [a, b] = address.octets as [number, number, number, number];
    if (address.octets.every((o) => o === 0) || a === 0) return 'unspecified';
    if (a === 127) return 'loopback';
    if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127)) return 'private';
    if (a === 169 && b === 254) return 'link-local';
    if (a >= 224 && a <= 239) return 'multicast';
    if (address.octets.every((o) => o === 255)) return 'broadcast';
    return null;
  }
  const g = address.groups;
  const first = g[0] as number;
  if (g.every((x) => x === 0)) return 'unspecified';
  if (g.slice(0, 7).every((x) => x === 0) && g[7] === 1) return 'loopback';
  if ((first & 0xffc0) === 0xfe80) return 'link-local';
  if ((first & 0xfe00) === 0xfc00) return 'unique-local';
  if ((first & 0xff00) === 0xff00) return 'multicast';
  return null;
}

/** Whether `address` lies in `cidr` ("10.0.0.0/8", "fd00::/8", or one address). */
export function inRange(address: IpAddress, cidr: string): boolean {
  const slash = cidr.indexOf('/');
  const base = parseIp(slash < 0 ? cidr : cidr.slice(0, slash));
  if (base === null || base.v !== address.v) return false;
  const bitsMax = address.v === 4 ? 32 : 128;
  const bits = slash < 0 ? bitsMax : Number(cidr.slice(slash + 1));
  if (!Number.isInteger(bits) || bits < 0 || bits > bitsMax) return false;
  const width = address.v === 4 ? 8 : 16;
  const units = (x: IpAddress): readonly number[] => (x.v === 4 ? x.octets : x.groups);
  const a = units(address);
  const b = units(base);
  for (let i = 0, left = bits; left > 0; i++, left -= width) {
    const take = Math.min(width, left);
    const mask = ((1 << take) - 1) << (width - take);
    if (((a[i] as number) & mask) !== ((b[i] as number) & mask)) return false;
  }
  return true;
}

/**
 * The operator's exceptions (TICKETRUSH_WEBHOOK_ALLOW_HOSTS): host names as the URL spells them
 * ("receiver.internal"), with a port to allow only it ("127.0.0.1:8080"), or address ranges
 * ("10.1.0.0/16", "::1").
 */
export interface WebhookAllowList {
  readonly entries: readonly string[];
}

/** Whether the operator allows this target: its URL host (and port), or the address it resolved to. */
export function allowedByOperator(allow: WebhookAllowList, target: { readonly host: string; readonly port: number; readonly address: IpAddress }): boolean {
  const host = target.host.toLowerCase().replace(/^\[|\]$/g, '');
  return allow.entries.some((raw) => {
    const entry = raw.trim().toLowerCase();
    if (entry === '') return false;
    if (entry.includes('/')) return inRange(target.address, entry);
    const bracketed = /^\[(.+)\](?::(\d+))?$/.exec(entry);
    const hostPort = bracketed === null ? /^([^:]+):(\d+)$/.exec(entry) : null;
    const name = bracketed?.[1] ?? hostPort?.[1] ?? entry;
    const port = bracketed?.[2] ?? hostPort?.[2];
    if (port !== undefined && Number(port) !== target.port) return false;
    if (name === host) return true;
    const asIp = parseIp(name);
    return asIp !== null && inRange(target.address, name);
  });
}
