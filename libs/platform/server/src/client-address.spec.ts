import { clientAddress } from './client-address';

describe('clientAddress', () => {
  const request = (ip: string, forwarded?: string | string[]) => ({ ip, headers: { 'x-forwarded-for': forwarded } });

  it.each([
    ['the router on loopback: the first forwarded address', request('127.0.0.1', '203.0.113.7, 10.0.0.1'), '203.0.113.7'],
    ['IPv6 loopback', request('::1', ' 203.0.113.8 '), '203.0.113.8'],
    ['IPv4-mapped loopback', request('::ffff:127.0.0.1', '203.0.113.9'), '203.0.113.9'],
    ['the first of repeated headers', request('127.0.0.1', ['203.0.113.10, 1.1.1.1', '2.2.2.2']), '203.0.113.10'],
    ['loopback without the header: the peer', request('127.0.0.1'), '127.0.0.1'],
    ['loopback with an empty first entry: the peer', request('127.0.0.1', ' , 203.0.113.11'), '127.0.0.1'],
    ['a peer that is not the router: its own address, whatever it forwards', request('198.51.100.1', '203.0.113.12'), '198.51.100.1'],
  ])('%s', (_case, input, expected) => {
    expect(clientAddress(input)).toBe(expected);
  });

  it('bounds a forged address to 64 characters', () => {
    expect(clientAddress(request('127.0.0.1', 'x'.repeat(500)))).toBe('x'.repeat(64));
  });
});
