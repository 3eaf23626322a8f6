import { describe, expect, it } from '@jest/globals';
import { corsOriginProblem } from '../../../../lib/services/platform/cors-origin-entry';

describe('corsOriginProblem', () => {
  it('accepts origins, wildcards and null', () => {
    for (const entry of ['*', 'null', 'http://localhost:*', 'https://*.example.com', 'http://[::1]:8080']) {
      expect(corsOriginProblem(entry)).toBeUndefined();
    }
  });

  it('names an entry that can never match an Origin header', () => {
    expect(corsOriginProblem('localhost:3000')).toContain('"localhost:3000" is not an origin');
    expect(corsOriginProblem('https://app.example/path')).toContain('is not an origin');
  });
});
