import { describe, expect, it } from '@jest/globals';
import { applicationOf } from '../../../../lib/core/queue/application';
import { parsePriority, statedPriority } from '../../../../lib/core/queue/priority';
import {
  DEFAULT_AGING_MS,
  defaultPriority,
  limitOf,
  parseSharingPolicy,
  weightOf,
} from '../../../../lib/core/queue/sharing-policy';

describe('parseSharingPolicy', () => {
  it('reads each application setting, and the wildcard limit', () => {
    const policy = parseSharingPolicy({
      agingMs: 5000,
      priorities: ['tag:nightly=low', 'key:3f2a91c0=HIGH'],
      weights: ['tag:chat=3', 'client:10.0.0.7=0.5'],
      limits: ['tag:nightly=8', '*=32'],
    });

    expect(policy.agingMs).toBe(5000);
    expect([...policy.priorities]).toEqual([
      ['tag:nightly', 'low'],
      ['key:3f2a91c0', 'high'],
    ]);
    expect(weightOf(policy, 'tag:chat')).toBe(3);
    expect(weightOf(policy, 'client:10.0.0.7')).toBe(0.5);
    expect(weightOf(policy, 'tag:other')).toBe(1);
    expect(limitOf(policy, 'tag:nightly')).toBe(8);
    expect(limitOf(policy, 'tag:other')).toBe(32);
  });

  it('has no limits, equal weights and 30 s aging when nothing is set', () => {
    const policy = parseSharingPolicy({});

    expect(policy.agingMs).toBe(DEFAULT_AGING_MS);
    expect(limitOf(policy, 'tag:any')).toBeUndefined();
    expect(weightOf(policy, 'tag:any')).toBe(1);
  });

  it.each([
    [{ limits: ['tag:nightly=0'] }, /^FLEET_APP_LIMITS: "tag:nightly=0" is not <application>=a whole number/],
    [
      { limits: ['nightly=4'] },
      /^FLEET_APP_LIMITS: "nightly=4" is not .*an application is key:<id>, tag:<tag> or client:<address>, or \*/,
    ],
    [{ weights: ['tag:chat=-1'] }, /^FLEET_APP_WEIGHTS: "tag:chat=-1"/],
    [{ weights: ['*=2'] }, /^FLEET_APP_WEIGHTS: "\*=2"/],
    [
      { priorities: ['tag:nightly=urgent'] },
      /^FLEET_APP_PRIORITIES: "tag:nightly=urgent" is not <application>=high\|normal\|low/,
    ],
    [{ priorities: ['tag:nightly'] }, /^FLEET_APP_PRIORITIES: "tag:nightly"/],
  ])('refuses %j, naming the variable', (settings, message) => {
    expect(() => parseSharingPolicy(settings)).toThrow(message);
  });
});

describe('defaultPriority', () => {
  const policy = parseSharingPolicy({ priorities: ['tag:batch=low', 'key:abc12345=high', 'tag:urgent=high'] });

  it("takes the application's own default, else its first tag that has one, else normal", () => {
    expect(defaultPriority(policy, 'key:abc12345', ['batch'])).toBe('high');
    expect(defaultPriority(policy, 'tag:team-a', ['team-a', 'batch', 'urgent'])).toBe('low');
    expect(defaultPriority(policy, 'client:10.0.0.1', [])).toBe('normal');
  });
});

describe('parsePriority and statedPriority', () => {
  it('takes the three values in any case, and nothing when absent', () => {
    expect(parsePriority(' Low ', 'metadata.priority')).toBe('low');
    expect(parsePriority(undefined, 'metadata.priority')).toBeUndefined();
    expect(parsePriority(null, 'metadata.priority')).toBeUndefined();
  });

  it('refuses anything else with a 400 naming the field', () => {
    expect(() => parsePriority('urgent', 'X-Fleet-Priority')).toThrow(
      expect.objectContaining({ status: 400, param: 'X-Fleet-Priority', message: expect.stringMatching(/urgent/) }),
    );
    expect(() => parsePriority(3, 'metadata.priority')).toThrow(
      expect.objectContaining({ status: 400, param: 'metadata.priority' }),
    );
  });

  it("prefers the body's over the header's, and checks both", () => {
    expect(statedPriority('high', 'low')).toBe('high');
    expect(statedPriority(undefined, 'low')).toBe('low');
    expect(() => statedPriority('high', 'soon')).toThrow(expect.objectContaining({ param: 'X-Fleet-Priority' }));
  });
});

describe('applicationOf', () => {
  it('is the key, else the first tag, else the client address', () => {
    expect(applicationOf({ keyId: 'abc12345', tags: ['chat'], clientAddress: '10.0.0.1' })).toBe('key:abc12345');
    expect(applicationOf({ tags: ['chat', 'eu'], clientAddress: '10.0.0.1' })).toBe('tag:chat');
    expect(applicationOf({ tags: [], clientAddress: '10.0.0.1' })).toBe('client:10.0.0.1');
    expect(applicationOf({ tags: [], clientAddress: '' })).toBe('client:unknown');
  });
});
