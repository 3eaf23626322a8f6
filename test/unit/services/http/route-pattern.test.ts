import { describe, expect, it } from '@jest/globals';
import { compileRoutePattern, normalizePath, sortBySpecificity } from '../../../../lib/services/http/route-pattern';

describe('compileRoutePattern', () => {
  it('matches static paths exactly', () => {
    const pattern = compileRoutePattern('/api/tags');

    expect(pattern.match('/api/tags')).toEqual({});
    expect(pattern.match('/api/tags/')).toEqual({});
    expect(pattern.match('/api/tag')).toBeUndefined();
    expect(pattern.match('/api/tags/x')).toBeUndefined();
  });

  it('matches the root', () => {
    expect(compileRoutePattern('/').match('/')).toEqual({});
    expect(compileRoutePattern('/').match('/api')).toBeUndefined();
  });

  it('captures and decodes a path parameter', () => {
    expect(
      compileRoutePattern('/dashboard/api/benchmarks/{run_id}').match('/dashboard/api/benchmarks/run%201'),
    ).toEqual({
      run_id: 'run 1',
    });
  });

  it('captures the rest of the path with a greedy parameter', () => {
    const pattern = compileRoutePattern('dashboard/{proxy+}');

    expect(pattern.match('/dashboard/assets/app.js')).toEqual({ proxy: 'assets/app.js' });
    expect(pattern.match('/dashboard')).toBeUndefined();
  });

  it('rejects a greedy parameter that is not last', () => {
    expect(() => compileRoutePattern('/a/{proxy+}/b')).toThrow('must be the last segment');
  });

  it('orders static before parameters before greedy', () => {
    const routes = ['/x/{proxy+}', '/x/{id}', '/x/static'].map((template) => ({
      pattern: compileRoutePattern(template),
    }));

    expect(sortBySpecificity(routes).map((route) => route.pattern.template)).toEqual([
      '/x/static',
      '/x/{id}',
      '/x/{proxy+}',
    ]);
  });
});

describe('normalizePath', () => {
  it.each([
    ['/', '/'],
    ['', '/'],
    ['//', '/'],
    ['/api/chat', '/api/chat'],
    ['//api/chat', '/api/chat'],
    ['/api/chat/', '/api/chat'],
    ['/api///chat//', '/api/chat'],
  ])('makes %j %j', (path, normal) => {
    expect(normalizePath(path)).toBe(normal);
  });
});
