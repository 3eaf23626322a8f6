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
});
