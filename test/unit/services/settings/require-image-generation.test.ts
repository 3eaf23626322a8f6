import { describe, expect, it } from '@jest/globals';
import { addWaits } from '../../../../lib/services/registry/timed-snapshot';
import {
  IMAGE_GENERATION_DISABLED,
  requireImageGeneration,
} from '../../../../lib/services/settings/require-image-generation';

const timedAs = (imageGeneration: boolean, tableWaitMs: number | undefined) => ({
  timed: async () => ({ settings: { imageGeneration, transcription: false }, tableWaitMs }),
});

describe('requireImageGeneration', () => {
  it("answers what reading the settings waited for the table, for the request's trace", async () => {
    await expect(requireImageGeneration(timedAs(true, 12))).resolves.toBe(12);
    await expect(requireImageGeneration(timedAs(true, undefined))).resolves.toBeUndefined();
  });

  it('refuses with a 503 that names how to turn it on, and says retrying will not help', async () => {
    await expect(requireImageGeneration(timedAs(false, 3))).rejects.toMatchObject({
      status: 503,
      code: 'image_generation_disabled',
      retryable: false,
      message: IMAGE_GENERATION_DISABLED,
    });
  });
});

describe('addWaits', () => {
  it("adds a request's waits for the table, and is undefined only when none waited", () => {
    expect(addWaits(undefined, undefined)).toBeUndefined();
    expect(addWaits(4, undefined)).toBe(4);
    expect(addWaits(undefined, 5)).toBe(5);
    expect(addWaits(4, 5)).toBe(9);
  });
});
