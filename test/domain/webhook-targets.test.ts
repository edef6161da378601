import { describe, expect, it } from 'vitest';
import { allowedByOperator, checkWebhookUrl, forbiddenKind, parseIp } from '../../src/domain/index.js';

/** Issue 33 (Why 7): every inward form is refused as a webhook target. Pure: nothing is connected to. */
const kindOf = (host: string) => {
  const ip = parseIp(new URL(`http://${host}/`).hostname);
  return ip === null ? 'not an IP' : forbiddenKind(ip);
};

describe('webhook targets', () => {
  it('names each inward form: loopback, private, link-local, unique-local, unspecified, IPv4-mapped (dotted and hex)', () => {
    const cases: [string, string | null][] = [
      ['127.0.0.1', 'loopback'], ['127.8.9.10', 'loopback'], ['[::1]', 'loopback'],
      ['10.0.0.1', 'private'], ['172.16.0.1', 'private'], ['172.31.255.255', 'private'], ['192.168.1.1', 'private'],
      ['169.254.169.254', 'link-local'], ['[fe80::1]', 'link-local'], ['[febf::1]', 'link-local'],
      ['[fd00::1]', 'unique-local'], ['[fc00::1]', 'unique-local'],
      ['0.0.0.0', 'unspecified'], ['[::]', 'unspecified'],
      ['[::ffff:127.0.0.1]', 'loopback'], ['[::ffff:7f00:1]', 'loopback'], ['[::ffff:10.0.0.1]', 'private'], ['[::ffff:169.254.169.254]', 'link-local'],
      // The URL parser's other spellings of 127.0.0.1 end up as it.
      ['2130706433', 'loopback'], ['0x7f.1', 'loopback'],
      // Public: allowed.
      ['93.184.216.34', null], ['172.32.0.1', null], ['[2606:2800:220:1::1]', null], ['[::ffff:93.184.216.34]', null],
    ];
    for (const [host, kind] of cases) expect({ host, kind: kindOf(host) }).toEqual({ host, kind });
  });

  it('lets the operator allow a host name, an address, an address and port, or a range', () => {
    const loop = parseIp('127.0.0.1')!;
    const target = (host: string, port = 8080) => ({ host, port, address: loop });
    expect(allowedByOperator({ entries: [] }, target('127.0.0.1'))).toBe(false);
    expect(allowedByOperator({ entries: ['127.0.0.1'] }, target('127.0.0.1'))).toBe(true);
    expect(allowedByOperator({ entries: ['127.0.0.1:8080'] }, target('127.0.0.1'))).toBe(true);
    expect(allowedByOperator({ entries: ['127.0.0.1:9'] }, target('127.0.0.1'))).toBe(false);
    expect(allowedByOperator({ entries: ['127.0.0.0/8'] }, target('receiver.internal'))).toBe(true);
    expect(allowedByOperator({ entries: ['receiver.internal'] }, target('receiver.internal'))).toBe(true);
    expect(allowedByOperator({ entries: ['10.0.0.0/8', '::1'] }, target('receiver.internal'))).toBe(false);
  });

  it('sees this server itself behind an IPv4-mapped address (the self-loop guard)', () => {
    const self = [{ host: '127.0.0.1', port: 8080 }];
    const result = checkWebhookUrl('http://[::ffff:127.0.0.1]:8080/hook', self);
    expect(result.ok ? 'accepted' : result.error.code).toBe('WEBHOOK_URL_LOOP');
  });
});
