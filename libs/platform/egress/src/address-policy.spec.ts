import { refusalOf, refusedRangeOf } from './address-policy';

describe('outbound target address policy', () => {
  it.each([
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.254', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.0.1', 'link_local'],
    ['169.254.169.254', 'metadata'],
    ['100.64.0.1', 'carrier_grade_nat'],
    ['100.127.255.254', 'carrier_grade_nat'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['192.0.2.10', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['240.0.0.1', 'reserved'],
  ])('refuses IPv4 %s as %s', (address, range) => {
    expect(refusedRangeOf(address)).toBe(range);
  });

  it.each([
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['fe80::1', 'link_local'],
    ['fc00::1', 'unique_local'],
    ['fd12:3456::1', 'unique_local'],
    ['fd00:ec2::254', 'metadata'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'reserved'],
    ['2002:a00:1::', 'reserved'],
    ['[::1]', 'loopback'],
  ])('refuses IPv6 %s as %s', (address, range) => {
    expect(refusedRangeOf(address)).toBe(range);
  });

  it.each([
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:169.254.169.254', 'metadata'],
    ['::ffff:100.64.0.1', 'carrier_grade_nat'],
    ['64:ff9b::a00:1', 'private'],
    ['64:ff9b::7f00:1', 'loopback'],
  ])('judges IPv4-mapped and NAT64 address %s by the IPv4 address it carries (%s)', (address, range) => {
    expect(refusedRangeOf(address)).toBe(range);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '172.32.0.1',
    '100.128.0.1',
    '2001:4860:4860::8888',
    '2606:4700::1111',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
  ])('allows public unicast %s', (address) => {
    expect(refusedRangeOf(address)).toBeUndefined();
    expect(refusalOf(address, 'production')).toBeUndefined();
  });

  it.each(['0177.0.0.1', '2130706433', '0x7f.0.0.1', '127.1', 'localhost', ''])(
    'does not take the non-canonical or non-address text %p for an address',
    (text) => {
      expect(refusedRangeOf(text)).toBe('not_an_address');
    },
  );

  it('lets development reach loopback only; production reaches neither loopback nor any other non-public range', () => {
    for (const loopback of ['127.0.0.1', '::1', '::ffff:127.0.0.1']) {
      expect(refusalOf(loopback, 'development')).toBeUndefined();
      expect(refusalOf(loopback, 'production')).toBe('loopback');
    }
    for (const other of ['10.0.0.1', '169.254.169.254', 'fd00::1', '100.64.0.1', '0.0.0.0']) {
      expect(refusalOf(other, 'development')).toBeDefined();
      expect(refusalOf(other, 'production')).toBeDefined();
    }
  });
});
