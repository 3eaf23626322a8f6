import { describe, expect, it } from '@jest/globals';
import { loadConfig } from '../../../lib/config';
import * as z from '../../../lib/wire/zod';

describe('lib/wire/zod', () => {
  it('gives issues the English words of classic zod, not mini\'s bare "Invalid input"', () => {
    const schema = z.looseObject({ name: z.string(), size: z.number().check(z.int(), z.lte(10)) });

    expect(schema.safeParse({ name: 3, size: 1 }).error?.issues[0]?.message).toBe(
      'Invalid input: expected string, received number',
    );
    expect(schema.safeParse({ name: 'a', size: 11 }).error?.issues[0]?.message).toBe(
      'Too big: expected number to be <=10',
    );
  });

  it('words the configuration errors a newcomer reads', () => {
    expect(() => loadConfig({ FLEET_PORT: '70000' })).toThrow(
      'invalid configuration: FLEET_PORT Too big: expected number to be <=65535',
    );
    expect(() => loadConfig({ FLEET_AUTO_ROUTE: 'maybe' })).toThrow(
      'FLEET_AUTO_ROUTE Invalid option: expected one of "0"|"1"|"true"|"false"|"yes"|"no"|"on"|"off"',
    );
  });
});
