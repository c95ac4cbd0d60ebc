import { describe, expect, it } from 'vitest';
import { clientKey } from '../../app/services/rate-limit.server';

describe('clientKey', () => {
  it('keeps IPv4 addresses (also IPv4-mapped IPv6) as they are', () => {
    expect(clientKey('203.0.113.7')).toBe('203.0.113.7');
    expect(clientKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(clientKey('')).toBe('unknown');
    expect(clientKey(undefined)).toBe('unknown');
  });

  it('counts IPv6 addresses by their /64, whatever their spelling', () => {
    const key = clientKey('2001:db8:1:2::1');
    expect(key).toBe('2001:db8:1:2::/64');
    for (const same of ['2001:0db8:0001:0002:ffff:ffff:ffff:ffff', '2001:DB8:1:2:0:0:0:9', '2001:db8:1:2::abcd%eth0'])
      expect(clientKey(same)).toBe(key);
    expect(clientKey('2001:db8:1:3::1')).not.toBe(key);
    expect(clientKey('::1')).toBe('0:0:0:0::/64');
    expect(clientKey('fe80::1:2:3:4')).toBe('fe80:0:0:0::/64');
  });
});
