import { addressRange, createAddressPolicy, parseAddress } from '../../server/src/sources/address-policy';

const policy = createAddressPolicy();
const allowed = (address: string, host?: string) => policy.check(address, host).allowed;

describe('the address classifier refuses every non-public address', () => {
  test.each([
    ['loopback', '127.0.0.1'], ['loopback, anywhere in 127/8', '127.255.1.2'], ['IPv6 loopback', '::1'],
    ['private 10/8', '10.1.2.3'], ['private 172.16/12', '172.16.0.1'], ['private 172.31', '172.31.255.255'],
    ['private 192.168/16', '192.168.1.1'], ['link-local / cloud metadata', '169.254.169.254'],
    ['CGNAT', '100.64.0.1'], ['CGNAT top', '100.127.255.254'], ['multicast', '224.0.0.1'], ['multicast top', '239.255.255.250'],
    ['unspecified', '0.0.0.0'], ['"this network" 0/8', '0.1.2.3'], ['broadcast', '255.255.255.255'], ['reserved 240/4', '240.0.0.1'],
    ['benchmarking 198.18/15', '198.18.0.1'], ['TEST-NET-1', '192.0.2.1'], ['TEST-NET-3', '203.0.113.5'],
    ['IETF 192.0.0/24', '192.0.0.8'],
    ['IPv6 unspecified', '::'], ['IPv6 unique local', 'fd00::1'], ['IPv6 link-local', 'fe80::1'],
    ['IPv6 multicast', 'ff02::1'], ['IPv6 documentation', '2001:db8::1'],
    ['IPv4-mapped loopback', '::ffff:127.0.0.1'], ['IPv4-mapped loopback, hex', '::ffff:7f00:1'],
    ['IPv4-mapped private', '::ffff:10.0.0.1'], ['IPv4-mapped metadata', '::ffff:169.254.169.254'],
    ['IPv4-compatible loopback', '::127.0.0.1'], ['IPv4-compatible, hex', '::7f00:1'],
    ['NAT64', '64:ff9b::7f00:1'], ['6to4', '2002:7f00:1::'], ['Teredo', '2001::1'],
    ['bracketed IPv6', '[::1]'], ['bracketed mapped', '[::ffff:7f00:1]'],
  ])('%s (%s)', (_label, address) => {
    const verdict = policy.check(address);
    expect(verdict.allowed).toBe(false);
  });

  test.each([
    ['127.1'], ['0x7f.1'], ['0177.0.0.1'], ['2130706433'], ['0x7f000001'], ['0'], ['017700000001'], ['127.0.1'],
  ])('numeric spelling %s of a non-public address', (spelling) => {
    // What reaches the classifier is what the URL parser made of the host: check both.
    const host = new URL(`http://${spelling}/`).hostname;
    expect(allowed(host)).toBe(false);
    if (parseAddress(spelling)) expect(allowed(spelling)).toBe(false);
  });

  test('host names are not addresses', () => {
    expect(policy.check('localhost')).toEqual({ allowed: false, reason: 'Not an IP address: localhost' });
  });

  test('the reason names the range', () => {
    expect(policy.check('10.0.0.1')).toEqual({ allowed: false, reason: 'URL resolves to a non-public address (private)' });
    expect(addressRange(parseAddress('::7f00:1')!)).toBe('ipv4Compatible');
  });
});

describe('public addresses pass', () => {
  test.each(['93.184.216.34', '8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('%s', (address) => {
    expect(allowed(address)).toBe(true);
  });
});

describe('the allow-list', () => {
  const list = createAddressPolicy(['127.0.0.1', '10.20.0.0/16', 'images.internal', 'fd00::/8', ' ', '']);
  test('an address', () => {
    expect(list.check('127.0.0.1').allowed).toBe(true);
    expect(list.check('127.0.0.2').allowed).toBe(false);
  });
  test('a CIDR range, IPv4 and IPv6', () => {
    expect(list.check('10.20.5.5').allowed).toBe(true);
    expect(list.check('10.21.0.1').allowed).toBe(false);
    expect(list.check('fd12::1').allowed).toBe(true);
  });
  test('a host name, whatever it resolves to', () => {
    expect(list.check('192.168.1.1', 'images.internal').allowed).toBe(true);
    expect(list.check('192.168.1.1', 'IMAGES.INTERNAL').allowed).toBe(true);
    expect(list.check('192.168.1.1', 'other.internal').allowed).toBe(false);
  });
  test('a mapped IPv6 form of an allowed IPv4 address', () => {
    expect(list.check('::ffff:127.0.0.1').allowed).toBe(true);
  });
});
