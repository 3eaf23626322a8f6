import { describe, expect, it } from '@jest/globals';
import { loadConfig } from '../../../../lib/services/platform/config';
import { parseImageUrlAllow } from '../../../../lib/services/platform/image-url-allow';

describe('parseImageUrlAllow', () => {
  it('reads CIDRs, single addresses and host names', () => {
    expect(parseImageUrlAllow(['10.0.0.0/8', '192.168.1.20', 'fd12::/16', '[::1]', 'Images.Internal.'])).toEqual({
      subnets: ['10.0.0.0/8', '192.168.1.20/32', 'fd12::/16', '::1/128'],
      hosts: ['images.internal'],
    });
  });

  it.each([
    ['10.0.0.0/33'],
    ['10.0.0.0/8/8'],
    ['fd12::/129'],
    ['images.internal/8'],
    ['http://images.internal'],
    ['a b'],
  ])('refuses %s, naming it', (entry) => {
    expect(() => parseImageUrlAllow([entry])).toThrow(`FLEET_IMAGE_URL_ALLOW: "${entry}"`);
  });
});

describe('loadConfig FLEET_IMAGE_URL_ALLOW', () => {
  it('allows no private destination by default', () => {
    expect(loadConfig({}).imageUrlAllow).toEqual({ subnets: [], hosts: [] });
  });

  it('reads a comma list', () => {
    expect(loadConfig({ FLEET_IMAGE_URL_ALLOW: '10.0.0.0/8, images.internal' }).imageUrlAllow).toEqual({
      subnets: ['10.0.0.0/8'],
      hosts: ['images.internal'],
    });
  });
});
