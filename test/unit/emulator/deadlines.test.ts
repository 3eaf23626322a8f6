import { describe, expect, it } from '@jest/globals';
import { createDeadlines } from '../../../emulator/deadlines';

describe('createDeadlines', () => {
  it('ends an invocation past its deadline and leaves the others', async () => {
    let now = 1000;
    const deadlines = createDeadlines(10, () => now);
    const expired: string[] = [];
    deadlines.add(1500, () => expired.push('short'));
    deadlines.add(5000, () => expired.push('long'));
    const finished = deadlines.add(1200, () => expired.push('finished'));
    finished();

    now = 2000;
    await new Promise((resolve) => setTimeout(resolve, 40));
    deadlines.stop();

    expect(expired).toEqual(['short']);
  });

  it('keeps every other invocation when one in the middle, the first or the last leaves', async () => {
    let now = 1000;
    const deadlines = createDeadlines(10, () => now);
    const expired: number[] = [];
    const removers = [0, 1, 2, 3, 4].map((index) => deadlines.add(1500, () => expired.push(index)));
    removers[2]?.();
    removers[0]?.();
    removers[4]?.();
    removers[4]?.();

    now = 2000;
    await new Promise((resolve) => setTimeout(resolve, 40));
    const later = deadlines.add(2500, () => expired.push(5));
    now = 3000;
    await new Promise((resolve) => setTimeout(resolve, 40));
    later();
    deadlines.stop();

    expect(expired).toEqual([1, 3, 5]);
  });
});
