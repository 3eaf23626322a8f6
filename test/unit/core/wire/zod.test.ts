import { describe, expect, it } from '@jest/globals';
import * as mini from 'zod/mini';
import * as z from '../../../../lib/core/wire/zod';
import { loadConfig } from '../../../../lib/services/platform/config';

describe('lib/core/wire/zod', () => {
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

  describe('objects', () => {
    const shapeOf = (zod: typeof z | typeof mini) => ({
      model: zod.string().check(zod.minLength(1)),
      stream: zod.optional(zod.boolean()),
      keep: zod._default(zod.number(), 5),
      options: zod.nullish(zod.looseObject({ seed: zod.number().check(zod.int()) })),
    });
    const inputs: unknown[] = [
      { model: 'm' },
      { model: 'm', stream: true, keep: 1, options: { seed: 3, extra: 'kept' }, other: [1] },
      { model: 'm', stream: undefined, options: null },
      { model: '', stream: 'yes', keep: 'x', options: { seed: 1.5 } },
      { stream: true },
      'not an object',
      null,
      [],
    ];

    it.each([
      ['object', z.object, mini.object],
      ['looseObject', z.looseObject, mini.looseObject],
      ['strictObject', z.strictObject, mini.strictObject],
    ] as const)(
      "%s parses compiled, with the result and issues of mini's interpreted one",
      (_, compiled, interpreted) => {
        const fast = compiled(shapeOf(z));
        const slow = interpreted(shapeOf(mini));

        expect(fast._zod.traits.has('$ZodObjectJIT')).toBe(true);
        expect(slow._zod.traits.has('$ZodObjectJIT')).toBe(false);
        expect(fast).toBeInstanceOf(mini.ZodMiniObject);
        expect(Object.keys(fast.shape)).toEqual(['model', 'stream', 'keep', 'options']);
        for (const input of inputs) {
          const ours = fast.safeParse(input);
          const theirs = slow.safeParse(input);
          expect(ours.success).toBe(theirs.success);
          expect(ours.data).toEqual(theirs.data);
          expect(ours.error?.issues).toEqual(theirs.error?.issues);
        }
      },
    );
  });
});
