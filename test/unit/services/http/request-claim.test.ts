import { createHash } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { parseSharingPolicy } from '../../../../lib/core/queue/sharing-policy';
import { toHttpRequest } from '../../../../lib/services/http/request';
import { requestClaim } from '../../../../lib/services/http/request-claim';
import { makeHttpEvent } from '../../../helpers/events';

const sharing = parseSharingPolicy({ priorities: ['tag:nightly=low'] });
const request = (headers: Record<string, string> = {}) =>
  toHttpRequest(makeHttpEvent({ method: 'POST', path: '/v1/chat/completions', headers, body: {} }));

describe('requestClaim', () => {
  it('is normal for the client address when nothing is said', () => {
    expect(requestClaim(request(), { tags: [] }, { apiKeys: undefined, sharing })).toEqual({
      priority: 'normal',
      app: expect.stringMatching(/^client:/),
    });
  });

  it("takes the stated priority, else the application's default", () => {
    const stated = requestClaim(
      request({ 'X-Fleet-Priority': 'high' }),
      { tags: ['nightly'] },
      { apiKeys: undefined, sharing },
    );
    const byTag = requestClaim(request(), { tags: ['nightly'] }, { apiKeys: undefined, sharing });
    const byBody = requestClaim(
      request(),
      { tags: ['nightly'], metadataPriority: 'normal' },
      { apiKeys: undefined, sharing },
    );

    expect(stated).toEqual({ priority: 'high', app: 'tag:nightly' });
    expect(byTag).toEqual({ priority: 'low', app: 'tag:nightly' });
    expect(byBody).toEqual({ priority: 'normal', app: 'tag:nightly' });
  });

  it('counts a configured key as the application, by an id that is not the key', () => {
    const key = 'sk-team-a-secret';
    const id = createHash('sha256').update(key).digest('hex').slice(0, 8);

    const claim = requestClaim(
      request({ Authorization: `Bearer ${key}` }),
      { tags: ['chat'] },
      { apiKeys: [key], sharing },
    );
    const unconfigured = requestClaim(
      request({ Authorization: 'Bearer ollama' }),
      { tags: ['chat'] },
      { apiKeys: undefined, sharing },
    );

    expect(claim.app).toBe(`key:${id}`);
    expect(claim.app).not.toContain(key);
    expect(unconfigured.app).toBe('tag:chat');
  });

  it('refuses an unknown priority with a 400 naming where it came from', () => {
    expect(() =>
      requestClaim(request({ 'X-Fleet-Priority': 'asap' }), { tags: [] }, { apiKeys: undefined, sharing }),
    ).toThrow(expect.objectContaining({ status: 400, param: 'X-Fleet-Priority' }));
    expect(() =>
      requestClaim(request(), { tags: [], metadataPriority: 'asap' }, { apiKeys: undefined, sharing }),
    ).toThrow(expect.objectContaining({ status: 400, param: 'metadata.priority' }));
  });
});
