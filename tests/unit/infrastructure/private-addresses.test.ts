/**
 * The deny list outbound webhooks are checked against: each refused range at its edges, public
 * addresses just outside them, IPv4-mapped IPv6 judged by its IPv4 part, and anything unparseable refused.
 */
import { isPrivateAddress, literalAddress } from '../../../infrastructure/webhooks/private-addresses';

describe('isPrivateAddress', () => {
  it.each([
    ['0.0.0.0'],
    ['0.255.255.255'],
    ['10.0.0.1'],
    ['10.255.255.255'],
    ['100.64.0.1'],
    ['100.127.255.255'],
    ['127.0.0.1'],
    ['127.255.255.254'],
    ['169.254.169.254'],
    ['172.16.0.1'],
    ['172.31.255.255'],
    ['192.0.0.8'],
    ['192.0.2.10'],
    ['192.168.1.1'],
    ['198.18.0.1'],
    ['198.19.255.255'],
    ['198.51.100.7'],
    ['203.0.113.9'],
    ['224.0.0.1'],
    ['239.255.255.250'],
    ['240.0.0.1'],
    ['255.255.255.255'],
  ])('refuses IPv4 %s', (address) => expect(isPrivateAddress(address)).toBe(true));

  it.each([
    ['1.1.1.1'],
    ['8.8.8.8'],
    ['9.255.255.255'],
    ['11.0.0.1'],
    ['100.63.255.255'],
    ['100.128.0.0'],
    ['126.255.255.255'],
    ['128.0.0.1'],
    ['169.253.255.255'],
    ['172.15.255.255'],
    ['172.32.0.0'],
    ['192.0.1.1'],
    ['192.167.255.255'],
    ['192.169.0.0'],
    ['198.17.255.255'],
    ['198.20.0.0'],
    ['203.0.114.1'],
    ['223.255.255.255'],
    ['93.184.216.34'],
  ])('lets public IPv4 %s through', (address) => expect(isPrivateAddress(address)).toBe(false));

  it.each([
    ['::'],
    ['::1'],
    ['fc00::1'],
    ['fd12:3456:789a::1'],
    ['fe80::1'],
    ['febf:ffff::1'],
    ['ff02::1'],
    ['ff00::'],
    ['2001:db8::1'],
    ['2001:db8:ffff::1'],
    ['64:ff9b::7f00:1'],
    ['64:ff9b::808:808'],
    ['FE80::ABCD'],
    ['2002:7f00:1::1'],
    ['2002:808:808::1'],
    ['::7f00:1'],
    ['::2'],
  ])('refuses IPv6 %s', (address) => expect(isPrivateAddress(address)).toBe(true));

  it.each([
    ['2606:4700:4700::1111'],
    ['2001:4860:4860::8888'],
    ['2001:db9::1'],
    ['fec0::1'],
    ['fbff::1'],
    ['64:ff9b:1::1'],
    ['2003::1'],
    ['::1:0:0:1'],
  ])('lets public IPv6 %s through', (address) => expect(isPrivateAddress(address)).toBe(false));

  it.each([
    ['::ffff:127.0.0.1'],
    ['::ffff:7f00:1'],
    ['::ffff:10.0.0.1'],
    ['::ffff:169.254.169.254'],
    ['::ffff:a9fe:a9fe'],
    ['::ffff:192.168.0.1'],
    ['::ffff:0.0.0.0'],
  ])('judges IPv4-mapped %s by its IPv4 part: refused', (address) => expect(isPrivateAddress(address)).toBe(true));

  it.each([['::ffff:8.8.8.8'], ['::ffff:808:808'], ['::ffff:93.184.216.34']])(
    'judges IPv4-mapped %s by its IPv4 part: public',
    (address) => expect(isPrivateAddress(address)).toBe(false),
  );

  it.each([
    [''],
    ['localhost'],
    ['example.com'],
    ['256.1.1.1'],
    ['1.2.3'],
    ['127.1'],
    ['0x7f.0.0.1'],
    ['[::1]'],
    ['::g'],
    ['1.2.3.4.5'],
    [' 8.8.8.8'],
    ['8.8.8.8/32'],
  ])('refuses unparseable %j', (address) => expect(isPrivateAddress(address)).toBe(true));
});

describe('literalAddress', () => {
  it('answers the address a URL host names literally, IPv6 without brackets', () => {
    expect(literalAddress(new URL('http://127.0.0.1:8080/x').hostname)).toBe('127.0.0.1');
    expect(literalAddress(new URL('http://[::1]/x').hostname)).toBe('::1');
    expect(literalAddress(new URL('http://[::ffff:127.0.0.1]/').hostname)).toBe('::ffff:7f00:1');
    // The URL parser normalizes the shorthand forms of IPv4, so they are caught as literals too.
    expect(literalAddress(new URL('http://0x7f.1/').hostname)).toBe('127.0.0.1');
    expect(literalAddress(new URL('http://2130706433/').hostname)).toBe('127.0.0.1');
  });

  it('answers null for a name', () => {
    expect(literalAddress('localhost')).toBeNull();
    expect(literalAddress('hooks.example.com')).toBeNull();
  });
});
