import { describe, expect, it } from '@jest/globals';
import { embeddedIPv4, forbiddenRange } from '../../../../lib/services/image-urls/forbidden-range';

/** The host the WHATWG URL parser (undici's too) leaves of a URL: what the router connects to. */
const hostOf = (url: string) => new URL(url).hostname;

describe('forbiddenRange', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.5', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.10', 'private'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.127.255.255', 'carrier-grade NAT'],
    ['169.254.169.254', 'link-local'],
    ['0.0.0.0', 'this network'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['198.18.0.1', 'benchmarking'],
    ['192.0.2.1', 'documentation'],
    ['::1', 'unspecified, loopback or IPv4-compatible'],
    ['::', 'unspecified, loopback or IPv4-compatible'],
    ['[::1]', 'unspecified, loopback or IPv4-compatible'],
    ['fd00:ec2::254', 'unique local'],
    ['fc00::1', 'unique local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'documentation'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['::ffff:a00:5', 'private'],
    ['64:ff9b::7f00:1', 'loopback'],
    ['64:ff9b::a9fe:a9fe', 'link-local'],
    ['64:ff9b:1::1', 'NAT64 local use'],
    ['2002:7f00:1::1', 'loopback'],
    ['2002:c0a8:101::1', 'private'],
    ['localhost', 'not an IP address'],
  ])('refuses %s (%s)', (address, range) => {
    expect(forbiddenRange(address)).toBe(range);
  });

  it.each([
    ['8.8.8.8'],
    ['1.1.1.1'],
    ['100.63.255.255'],
    ['100.128.0.0'],
    ['172.15.255.255'],
    ['172.32.0.0'],
    ['169.253.255.255'],
    ['2606:4700:4700::1111'],
    ['::ffff:8.8.8.8'],
    ['64:ff9b::808:808'],
    ['2002:808:808::1'],
  ])('lets the public address %s through', (address) => {
    expect(forbiddenRange(address)).toBeUndefined();
  });

  it.each([
    ['http://2130706433/', 'loopback'],
    ['http://0x7f.1/', 'loopback'],
    ['http://0177.0.0.1/', 'loopback'],
    ['http://127.1/', 'loopback'],
    ['http://0/', 'this network'],
    ['http://0xA9.0xFE.0xA9.0xFE/', 'link-local'],
    ['http://[::ffff:127.0.0.1]/', 'loopback'],
    ['http://[::ffff:169.254.169.254]/', 'link-local'],
    ['http://[::]/', 'unspecified, loopback or IPv4-compatible'],
    ['http://[fd00:ec2::254]/', 'unique local'],
  ])('judges the host the URL parser makes of %s', (url, range) => {
    expect(forbiddenRange(hostOf(url))).toBe(range);
  });
});

describe('embeddedIPv4', () => {
  it.each([
    ['::ffff:10.1.2.3', '10.1.2.3'],
    ['::ffff:a01:203', '10.1.2.3'],
    ['64:ff9b::a01:203', '10.1.2.3'],
    ['2002:a01:203::', '10.1.2.3'],
  ])('reads the IPv4 address inside %s', (address, inner) => {
    expect(embeddedIPv4(address)).toBe(inner);
  });

  it('finds none in a plain IPv6 address', () => {
    expect(embeddedIPv4('2606:4700:4700::1111')).toBeUndefined();
  });
});
